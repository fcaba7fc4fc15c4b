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

__all__ = [
    "BenchmarkSpec",
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
