"""The estimator: a benchmark's mean from a few of its tasks, with calibrated intervals.

A room of its own inside :mod:`analysis.stats` (as scipy gives ``stats.qmc`` its own
namespace): it imports only the statistics room's argument checks (:mod:`.._checks`)
and result shape (:mod:`.._results`), and nothing else there imports it.

Public modules (their names are re-exported by :mod:`analysis.stats`):

* :mod:`.predict`: :func:`predict_benchmark` (a model's mean, interval and rank from its
  scores on some tasks) and :func:`next_tasks` (which task to run next);
* :mod:`.selection`: :func:`select_tasks` (which k tasks to run).

Its held-out checks and simulated leaderboards validate it from outside the package
(``benchmarks/_sim/``).

Private layers:

* :mod:`._checks`: input checks (the reference table, observed scores, task lists, twins);
* :mod:`._select`: forward selection and MMTEB's backward elimination;
* :mod:`._ridge`: ridge regression with exact leave-one-out;
* :mod:`._target`: the predictor of the unobserved target tasks' mean;
* :mod:`._nested`: nested leave-one-model-out errors of a selection;
* :mod:`._procedure`: the whole procedure rerun without each model, or forward in time;
* :mod:`._conformal`: leverage-scaled conformal intervals and the drift in time.
"""

from __future__ import annotations

from .predict import BenchmarkPrediction as BenchmarkPrediction
from .predict import NextTasksResult as NextTasksResult
from .predict import next_tasks as next_tasks
from .predict import predict_benchmark as predict_benchmark
from .selection import TaskSelectionResult as TaskSelectionResult
from .selection import select_tasks as select_tasks
