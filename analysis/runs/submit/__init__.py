"""Submit own runs to the MTEB leaderboard: the results repository's CI checks, run locally.

``static-rteb submit`` (:mod:`.cli`) runs :func:`submit`. One job per module:
:mod:`.checks` (CI's checks as this project's code), :mod:`.preflight` (run them on a
checkout plus the files about to be committed), :mod:`.refile` (runs -> hub name and
commit SHA), :mod:`.folder` (what a model folder says about itself), :mod:`.model_meta`
(the submission's ``model_meta.json``), :mod:`.card` (mteb's model card),
:mod:`.registry_entry` (the ``ModelMeta`` for a pull request to mteb), :mod:`.gitrepo`,
:mod:`.submission` (the steps in order).
"""

from __future__ import annotations

from .checks import CHECKS, Failure
from .preflight import PreflightReport, preflight
from .submission import SubmitOutcome, submit

__all__ = ["CHECKS", "Failure", "PreflightReport", "SubmitOutcome", "preflight", "submit"]
