"""The notebook layer: what the notebooks call, above the three rooms.

``from analysis.notebook import setup`` is what a notebook types (:mod:`.context`); the other
modules show tables (:mod:`.display`) and figures (:mod:`.style`), run the notebooks under papermill
(:mod:`.batch`, :mod:`.params`, :mod:`.flags`), decide an estimate (:mod:`.estimate`) and draw the
rank explorer (:mod:`.explorer`). The names load on first use (listed in ``__init__.pyi``), so
``static-rteb batch --help`` imports neither pandas nor matplotlib.
"""

from __future__ import annotations

import lazy_loader

# The public names, listed once in ``__init__.pyi``, each loaded on first use (SPEC 1).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
