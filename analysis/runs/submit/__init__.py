"""Submit own runs to the MTEB leaderboard: the results repository's CI checks, run locally.

``static-rteb submit`` (:mod:`.cli`) runs :func:`submit`. One job per module:
:mod:`.preflight` (the results repository's own tests, run on a checkout plus the files
about to be committed), :mod:`.refile` (runs -> hub name and
commit SHA), :mod:`.folder` (what a model folder says about itself), :mod:`.model_meta`
(the submission's ``model_meta.json``), :mod:`.card` (mteb's model card),
:mod:`.registry_entry` (the ``ModelMeta`` for a pull request to mteb), :mod:`.gitrepo`,
:mod:`.submission` (the steps in order).
"""

from __future__ import annotations

from .preflight import Failure, PreflightReport, preflight
from .submission import SubmitOutcome, submit

__all__ = ["Failure", "PreflightReport", "SubmitOutcome", "preflight", "submit"]
