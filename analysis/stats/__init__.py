"""Statistics for comparing embedding models: rank correlation, paired tests, gaps.

Layout (public functions are re-exported here, so ``from analysis.stats import X`` and
``from analysis import X`` work):

* :mod:`._checks`: argument checks shared by every function (errors name the argument);
* :mod:`._resampling`: resampling kernels (bootstrap indices and means, sign patterns,
  exact sign-flip counts, quantiles, pair chunking);
* :mod:`._ranks`: rank kernels (Spearman/Kendall of many rows, permutation tests);
* :mod:`._results`: shared result types;
* public modules: :mod:`.paired`, :mod:`.pairwise`, :mod:`.correlation`, :mod:`.gap`.

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

**Two resampling schemes, two questions.**

* p-values come from *permutation* tests, which are valid at any n (6 or 13 tasks):
  a sign-flip test of the mean paired difference, a "permute y against x" test of
  a rank correlation. Exact enumeration is used when it is no more work than the
  requested number of resamples, otherwise Monte-Carlo with the ``(b+1)/(B+1)``
  convention. The smallest attainable p-value is reported on every result.
* confidence intervals are *percentile bootstrap* intervals (units resampled with
  replacement). They are approximate: at small n they are too narrow. Measured
  coverage of the nominal 95% interval of a mean difference (normal differences,
  10,000 resamples, ``tests/test_stats_simulation.py``): 0.877 at n=7 units, 0.937
  at n=30, 0.946 at n=300 (theory for this interval: 0.880, 0.936, 0.949). Read a CI
  over 6-13 tasks as a rough range, and use the p-value for the decision. Measured
  type-I error of the p-values at alpha=0.05: 0.044 (n=7), 0.048 (n=30), 0.050
  (n=300) for the paired test; 0.053 (n=7) and 0.050 (n=30) for Spearman, 0.049
  (n=30) for Kendall.
"""

from __future__ import annotations

from ..errors import DroppedModelsWarning, UnknownModelError
from ._results import ConfidenceInterval
from .correlation import RankCorrelationResult, rank_correlation
from .gap import public_private_gap
from .paired import PairedTestResult, paired_bootstrap
from .pairwise import adjust_pvalues, pairwise_significance
from .ranks import RankIntervalsResult, rank_intervals

__all__ = [
    "ConfidenceInterval",
    "DroppedModelsWarning",
    "PairedTestResult",
    "RankCorrelationResult",
    "RankIntervalsResult",
    "UnknownModelError",
    "adjust_pvalues",
    "paired_bootstrap",
    "pairwise_significance",
    "public_private_gap",
    "rank_correlation",
    "rank_intervals",
]
