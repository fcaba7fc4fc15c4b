"""Analysis of static embedding models on MTEB and RTEB.

Public API:

* :func:`load_leaderboard`, :func:`load_leaderboards`: results -> tidy tables
  (:mod:`analysis.leaderboard`);
* :func:`resolve_spec`, :func:`available_pins`: benchmark task lists (:mod:`analysis.specs`);
* :func:`rank_correlation`, :func:`paired_bootstrap`, :func:`pairwise_significance`,
  :func:`public_private_gap`, :func:`adjust_pvalues`: statistics (:mod:`analysis.stats`).
"""

from .leaderboard import (
    Leaderboard,
    ResultFileWarning,
    ResultsNotFoundError,
    load_leaderboard,
    load_leaderboards,
)
from .specs import BenchmarkSpec, TaskSpec, available_pins, resolve_spec
from .stats import (
    ConfidenceInterval,
    DroppedModelsWarning,
    PairedTestResult,
    RankCorrelationResult,
    UnknownModelError,
    adjust_pvalues,
    paired_bootstrap,
    pairwise_significance,
    public_private_gap,
    rank_correlation,
)

__version__ = "0.1.0"

# Model-running names import mteb and torch; load them on first use only.
_LAZY = {
    "load_model": "analysis.models",
    "load_local_task": "analysis.local_tasks",
    "run_evaluation": "analysis.runner",
    "ModelSpec": "analysis.runner",
    "per_query_ndcg": "analysis.retrieval_metrics",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'analysis' has no attribute {name!r}")


__all__ = [  # noqa: RUF022
    "BenchmarkSpec",
    "ModelSpec",
    "load_local_task",
    "load_model",
    "per_query_ndcg",
    "run_evaluation",
    "ConfidenceInterval",
    "DroppedModelsWarning",
    "Leaderboard",
    "PairedTestResult",
    "RankCorrelationResult",
    "ResultFileWarning",
    "ResultsNotFoundError",
    "TaskSpec",
    "UnknownModelError",
    "adjust_pvalues",
    "available_pins",
    "load_leaderboard",
    "load_leaderboards",
    "paired_bootstrap",
    "pairwise_significance",
    "public_private_gap",
    "rank_correlation",
    "resolve_spec",
]
