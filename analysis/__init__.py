"""Analysis of static embedding models on MTEB and RTEB.

Public API:

The package has three rooms:

* :mod:`analysis.results`: results loading (:func:`load_leaderboard`,
  :func:`load_leaderboards`), benchmark task lists and pins (:func:`resolve_spec`,
  :func:`available_pins`), the blog's tables, model groups, placement;
* :mod:`analysis.stats`: :func:`rank_correlation`, :func:`paired_bootstrap`,
  :func:`pairwise_significance`, :func:`group_contrast`, :func:`public_private_gap`,
  :func:`rank_intervals`, :func:`rank_correlation`, :func:`benchmark_agreement`,
  :func:`adjust_pvalues`;
* :mod:`analysis.runs` (needs the ``runs`` extra: mteb models, torch): :func:`load_model`,
  :func:`load_local_task`, :func:`run_evaluation`, :func:`per_query_ndcg`, loaded on
  first use so that the analysis half never imports torch;
* :mod:`analysis.notebook`, the notebook layer above them: :func:`rank_explorer` (every
  ranked model's rank interval in one interactive page).

Shared by all three: :mod:`analysis.core.errors` (errors and name lookups),
:mod:`analysis.core.compat` (every use of mteb's private API), :mod:`analysis.core.io` (atomic
writes, tables, figures), :mod:`analysis.core.paths`.
"""

import lazy_loader

__version__ = "0.1.0"

# Every public name loads on first use (scientific Python's SPEC 1): ``import analysis`` (and
# so every ``--help`` of the command line) imports neither pandas nor scipy, and the
# model-running names (mteb, torch) load only when used. The names are listed once, in
# ``__init__.pyi``.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
