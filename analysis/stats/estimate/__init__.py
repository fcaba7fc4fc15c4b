"""The estimator: a benchmark's mean from a few of its tasks, with calibrated intervals.

A room of its own inside :mod:`analysis.stats` (as scipy's ``stats.qmc``): it imports
only the room's argument checks and result shape. Public: :mod:`.predict`
(:func:`predict_benchmark`, :func:`next_tasks`) and :mod:`.selection`
(:func:`select_tasks`), re-exported by :mod:`analysis.stats`; the private layers are
named in the README's "What is where". Its held-out checks live in ``benchmarks/_sim/``.
"""

from __future__ import annotations

from .predict import BenchmarkPrediction as BenchmarkPrediction
from .predict import NextTasksResult as NextTasksResult
from .predict import next_tasks as next_tasks
from .predict import predict_benchmark as predict_benchmark
from .selection import TaskSelectionResult as TaskSelectionResult
from .selection import select_tasks as select_tasks
