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

Shared by all three: :mod:`analysis.core.errors` (errors and name lookups),
:mod:`analysis.core.compat` (every use of mteb's private API), :mod:`analysis.core.io` (atomic
writes, tables, figures), :mod:`analysis.core.paths`.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from .core.errors import (
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

# Every public name loads on first use: ``import analysis`` (and so every ``--help`` of the
# command line) imports neither pandas nor scipy, and the model-running names (mteb, torch)
# load only when used.
_LAZY = {
    "DroppedModelsWarning": "analysis.core.errors",
    "ResultFileWarning": "analysis.core.errors",
    "ResultsNotFoundError": "analysis.core.errors",
    "UnknownModelError": "analysis.core.errors",
    "UnknownNameError": "analysis.core.errors",
    "UnknownTaskError": "analysis.core.errors",
    "ResultsFolders": "analysis.results.folder",
    "Leaderboard": "analysis.results.leaderboard",
    "load_leaderboard": "analysis.results.leaderboard",
    "load_leaderboards": "analysis.results.leaderboard",
    "BenchmarkSpec": "analysis.results.specs",
    "TaskSpec": "analysis.results.specs",
    "available_pins": "analysis.results.specs",
    "resolve_spec": "analysis.results.specs",
    "BenchmarkAgreementResult": "analysis.stats",
    "ComparisonReport": "analysis.stats",
    "ConfidenceInterval": "analysis.stats",
    "GroupContrastResult": "analysis.stats",
    "PairedTestResult": "analysis.stats",
    "RankCorrelationResult": "analysis.stats",
    "RankIntervalsResult": "analysis.stats",
    "adjust_pvalues": "analysis.stats",
    "benchmark_agreement": "analysis.stats",
    "compare": "analysis.stats",
    "group_contrast": "analysis.stats",
    "paired_bootstrap": "analysis.stats",
    "pairwise_significance": "analysis.stats",
    "public_private_gap": "analysis.stats",
    "rank_correlation": "analysis.stats",
    "rank_intervals": "analysis.stats",
    "BenchmarkPrediction": "analysis.stats.estimate",
    "next_tasks": "analysis.stats.estimate",
    "predict_benchmark": "analysis.stats.estimate",
    "TaskSelectionResult": "analysis.stats.selection",
    "select_tasks": "analysis.stats.selection",
    "load_model": "analysis.runs.models",
    "load_local_task": "analysis.runs.local_tasks",
    "run_evaluation": "analysis.runs.runner",
    "ModelSpec": "analysis.runs.runner",
    "per_query_ndcg": "analysis.runs.retrieval_metrics",
    "distill_model": "analysis.runs.distill",
}


def __getattr__(name: str) -> Any:
    """A public name (from its module) or a subpackage (``analysis.stats``), on first use."""
    import importlib
    import importlib.util

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
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
