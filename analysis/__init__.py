"""Analysis of static embedding models on MTEB and RTEB.

Public API:

* :func:`load_leaderboard`, :func:`load_leaderboards`: results -> tidy tables
  (:mod:`analysis.leaderboard`);
* :func:`resolve_spec`, :func:`available_pins`: benchmark task lists (:mod:`analysis.specs`).
"""

from .leaderboard import (
    Leaderboard,
    ResultFileWarning,
    ResultsNotFoundError,
    load_leaderboard,
    load_leaderboards,
)
from .specs import BenchmarkSpec, TaskSpec, available_pins, resolve_spec

__version__ = "0.1.0"

__all__ = [
    "BenchmarkSpec",
    "Leaderboard",
    "ResultFileWarning",
    "ResultsNotFoundError",
    "TaskSpec",
    "available_pins",
    "load_leaderboard",
    "load_leaderboards",
    "resolve_spec",
]
