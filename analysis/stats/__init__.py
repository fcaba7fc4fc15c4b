"""Statistics for comparing embedding models: rank correlation, paired tests, gaps.

Layout (public functions are re-exported here, so ``from analysis.stats import X`` and
``from analysis import X`` work):

* :mod:`._checks`: argument checks shared by every function (errors name the argument);
* :mod:`._resampling`: resampling kernels (bootstrap indices and means, sign patterns,
  exact sign-flip counts, quantiles, pair chunking);
* :mod:`._ranks`: rank kernels (Spearman/Kendall of many rows, permutation tests);
* :mod:`._results`: shared result types;
* :mod:`._inversion`: sign-flip tests inverted into intervals (exact and Monte-Carlo);
* public modules: :mod:`.paired`, :mod:`.pairwise`, :mod:`.contrast`, :mod:`.correlation`,
  :mod:`.gap`.

Every function here follows the same conventions (scipy.stats-like):

* options are keyword-only; ``rng`` is ``None``, an integer seed or a
  :class:`numpy.random.Generator` (normalised with :func:`numpy.random.default_rng`);
  a Generator you pass is advanced, so pass a seed for reproducible results;
* results are frozen dataclasses (or a :class:`pandas.DataFrame` for the
  many-model functions), confidence intervals are :class:`ConfidenceInterval`;
* a bad argument raises :class:`ValueError` whose message names the argument;
* resampling is vectorised in numpy and its memory is bounded by working in blocks.

**The unit.** Paired tests resample whatever the two score vectors are aligned on:
the tasks of a benchmark (one score per task and model) or the queries of one task.
Units are assumed independent and exchangeable; scores of different models on the
same unit may be arbitrarily correlated (that is what pairing handles).

**Tests and the intervals that match them.**

* p-values come from *permutation* tests, valid at any n (6 or 13 tasks): a
  sign-flip test of the mean paired difference (null: each difference symmetric
  about 0), a permutation test over group labels for group contrasts, a "permute y
  against x" test of a rank correlation. Exact enumeration while cheap, otherwise
  Monte-Carlo with the ``(b+1)/(B+1)`` convention. The smallest attainable p-value is
  reported on every result.
* paired and group intervals *invert the test*: the shifts the test does not reject.
  So an interval excludes 0 exactly when p < alpha, and coverage is exact under the
  test's null model. Pairwise tables use intervals that match their multiplicity
  adjustment (simultaneous max-T by default). The percentile bootstrap remains an
  option (``paired_bootstrap(method="percentile")``) for many units; it under-covers
  at small n. Every measured number (coverage, type-I error, family-wise error) is in
  ``benchmarks/README_stats.md``, written by ``benchmarks/bench_stats_validation.py``.
"""

from __future__ import annotations

from ..errors import DroppedModelsWarning, UnknownModelError
from ._results import ConfidenceInterval
from .agreement import BenchmarkAgreementResult, benchmark_agreement
from .contrast import GroupContrastResult, group_contrast
from .correlation import RankCorrelationResult, rank_correlation
from .estimate import BenchmarkPrediction, next_tasks, predict_benchmark
from .gap import public_private_gap
from .paired import PairedTestResult, paired_bootstrap
from .pairwise import adjust_pvalues, pairwise_significance
from .ranks import RankIntervalsResult, rank_intervals
from .selection import TaskSelectionResult, cross_fit_selection, select_tasks

__all__ = [
    "BenchmarkAgreementResult",
    "BenchmarkPrediction",
    "ConfidenceInterval",
    "DroppedModelsWarning",
    "GroupContrastResult",
    "PairedTestResult",
    "RankCorrelationResult",
    "RankIntervalsResult",
    "TaskSelectionResult",
    "UnknownModelError",
    "adjust_pvalues",
    "benchmark_agreement",
    "cross_fit_selection",
    "group_contrast",
    "next_tasks",
    "paired_bootstrap",
    "pairwise_significance",
    "predict_benchmark",
    "public_private_gap",
    "rank_correlation",
    "rank_intervals",
    "select_tasks",
]
