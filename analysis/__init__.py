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
  first use so that the analysis half never imports torch.

Shared by all three: :mod:`analysis.errors` (errors and name lookups),
:mod:`analysis.compat` (every use of mteb's private API), :mod:`analysis.io` (atomic
writes, tables, figures), :mod:`analysis.paths`.
"""

from .errors import (
    DroppedModelsWarning,
    ResultFileWarning,
    ResultsNotFoundError,
    UnknownModelError,
    UnknownNameError,
    UnknownTaskError,
)
from .results.folder import ResultsFolders
from .results.leaderboard import Leaderboard, load_leaderboard, load_leaderboards
from .results.specs import BenchmarkSpec, TaskSpec, available_pins, resolve_spec
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
from .stats.estimate import BenchmarkPrediction, next_tasks, predict_benchmark
from .stats.selection import TaskSelectionResult, select_tasks

__version__ = "0.1.0"

# Model-running names import mteb and torch; load them on first use only.
_LAZY = {
    "load_model": "analysis.runs.models",
    "load_local_task": "analysis.runs.local_tasks",
    "run_evaluation": "analysis.runs.runner",
    "ModelSpec": "analysis.runs.runner",
    "per_query_ndcg": "analysis.runs.retrieval_metrics",
    "distill_model": "analysis.runs.distill",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'analysis' has no attribute {name!r}")


__all__ = [  # noqa: RUF022
    "BenchmarkSpec",
    "ModelSpec",
    "distill_model",
    "load_local_task",
    "load_model",
    "per_query_ndcg",
    "run_evaluation",
    "BenchmarkAgreementResult",
    "ComparisonReport",
    "ConfidenceInterval",
    "ResultsFolders",
    "GroupContrastResult",
    "RankIntervalsResult",
    "benchmark_agreement",
    "compare",
    "group_contrast",
    "rank_intervals",
    "DroppedModelsWarning",
    "Leaderboard",
    "PairedTestResult",
    "RankCorrelationResult",
    "ResultFileWarning",
    "ResultsNotFoundError",
    "TaskSpec",
    "UnknownModelError",
    "UnknownNameError",
    "UnknownTaskError",
    "adjust_pvalues",
    "available_pins",
    "load_leaderboard",
    "load_leaderboards",
    "paired_bootstrap",
    "pairwise_significance",
    "public_private_gap",
    "rank_correlation",
    "resolve_spec",
    "BenchmarkPrediction",
    "TaskSelectionResult",
    "next_tasks",
    "predict_benchmark",
    "select_tasks",
]
