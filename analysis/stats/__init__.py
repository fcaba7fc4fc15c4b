"""Statistics for comparing embedding models: rank correlation, paired tests, gaps.

The public names are listed once in ``__init__.pyi``. What every function shares (the
scipy.stats-like conventions, the one vocabulary, pairing by label, the unit, the tests and
the intervals that invert them) and each method's null and measured behaviour are in
``docs/statistics.md``; the private kernels (``_checks``, ``_resampling``, ``_maxt``,
``_ranks``, ``_results``, ``_inversion``) are shared by the public modules, and the
simulations that measure them live in ``benchmarks/_sim/``.
"""

from __future__ import annotations

import lazy_loader

# The public names, listed once in ``__init__.pyi``, each loaded on first use (SPEC 1).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
