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

from typing import TYPE_CHECKING, Any

from .core.lazy import LazyNames

if TYPE_CHECKING:  # the public names, listed once (analysis.core.lazy): loaded on first use
    from .core.errors import (
        DroppedModelsWarning,
        ResultFileWarning,
        ResultsNotFoundError,
        UnknownModelError,
        UnknownNameError,
        UnknownTaskError,
    )
    from .notebook.explorer import rank_explorer
    from .results.folder import ResultsFolders
    from .results.leaderboard import Leaderboard, load_leaderboard, load_leaderboards
    from .results.specs import BenchmarkSpec, TaskSpec, available_pins, resolve_spec
    from .runs.distill import distill_model
    from .runs.local_tasks import load_local_task
    from .runs.models import load_model
    from .runs.retrieval_metrics import per_query_ndcg
    from .runs.runner import ModelSpec, run_evaluation
    from .stats import (
        BenchmarkAgreementResult,
        ComparisonReport,
        ConfidenceInterval,
        GroupContrastResult,
        PairedTestResult,
        RankCorrelationResult,
        RankIntervalsResult,
        adjust_pvalues,
        benchmark_agreement,
        compare,
        group_contrast,
        paired_bootstrap,
        pairwise_significance,
        public_private_gap,
        rank_correlation,
        rank_intervals,
    )
    from .stats.estimate.predict import BenchmarkPrediction, next_tasks, predict_benchmark
    from .stats.estimate.selection import TaskSelectionResult, select_tasks

__version__ = "0.1.0"

# Every public name loads on first use: ``import analysis`` (and so every ``--help`` of the
# command line) imports neither pandas nor scipy, and the model-running names (mteb, torch)
# load only when used.
_LAZY = LazyNames(__name__, __file__, submodules=True)
__all__: list[str] = _LAZY.names


def __getattr__(name: str) -> Any:
    """A public name (from its module) or a subpackage (``analysis.stats``), on first use."""
    return _LAZY.load(name, globals())
