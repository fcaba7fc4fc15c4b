"""Statistics for comparing embedding models: rank correlation, paired tests, gaps.

Layout (public functions are re-exported here, so ``from analysis.stats import X`` and
``from analysis import X`` work):

* :mod:`._checks`: argument checks and label alignment shared by every function
  (errors name the argument; labelled inputs are paired by label or refused);
* :mod:`._resampling`: resampling kernels (bootstrap indices and means, the one
  sign-pattern generator, quantiles, cluster sums);
* :mod:`._maxt`: the one Westfall-Young max-T kernel (pairwise tables and rank intervals);
* :mod:`._ranks`: rank kernels (Spearman/Kendall of many rows, permutation tests);
* :mod:`._results`: the one result shape (:class:`StatsResult`) and intervals;
* :mod:`._inversion`: sign-flip tests inverted into intervals (exact and Monte-Carlo);
* public modules: :mod:`.paired`, :mod:`.pairwise`, :mod:`.ranks`, :mod:`.compare`,
  :mod:`.friedman`, :mod:`.contrast`, :mod:`.correlation`, :mod:`.agreement`, :mod:`.gap`,
  :mod:`.advantage` (the Goodhart audit's tests), :mod:`.predictive`;
* :mod:`.estimate`: the estimator's own room (a benchmark mean from a few tasks:
  :func:`predict_benchmark`, :func:`next_tasks`, :func:`select_tasks`), with its private
  layers.

The simulations that measure these functions' behaviour live outside the package, in
``benchmarks/_sim/`` (run by the tests with few replicates, by the benchmarks with many).

Every function here follows the same conventions (scipy.stats-like):

* options are keyword-only; ``rng`` is ``None``, an integer seed or a
  :class:`numpy.random.Generator` (normalised with :func:`numpy.random.default_rng`);
  a Generator you pass is advanced, so pass a seed for reproducible results;
* every result is a frozen dataclass deriving from :class:`StatsResult`: a short repr
  (at most 10 lines), ``to_frame()`` and a notebook rendering (:func:`adjust_pvalues`,
  like :func:`scipy.stats.false_discovery_control`, returns the adjusted values
  themselves);
* **one vocabulary** (scipy's words; ``tests/stats/test_vocabulary.py`` enforces it):
  ``confidence_level`` names interval levels and ``alpha`` test (decision) levels, and a
  function takes at most one of them: where one function both estimates and tests, one
  level drives both (:func:`rank_intervals`: ``confidence_level``, its groups decided at
  ``1 - confidence_level``; :func:`pairwise_significance` and :func:`compare`:
  ``alpha``, their intervals at ``1 - alpha``); the multiplicity adjustment is
  ``adjustment=``; an interval is a :class:`ConfidenceInterval` (``low``, ``high``)
  named ``confidence_interval``, and its ends in a table are ``ci_low`` / ``ci_high``
  (``rank_low`` / ``rank_high`` for rank intervals); a caveat in words is ``caveat``
  (``""`` when there is none);
* every table argument is the wide tasks x models table of ``Leaderboard.wide()``;
* **labels**: pandas inputs are paired by label (Series with Series, a table's rows with
  ``clusters``), never by position; different label sets raise
  :class:`~analysis.core.errors.LabelMismatchError` naming the missing and extra labels;
  labelled rows are sorted by label before resampling, so reordering an input never
  changes a result; plain arrays are paired by position;
* a bad argument raises :class:`ValueError` whose message names the argument;
* resampling is vectorised in numpy and its memory is bounded by working in blocks.

**The unit.** Paired tests resample whatever the two score vectors are aligned on:
the tasks of a benchmark (one score per task and model) or the queries of one task.
Units are assumed independent and exchangeable; scores of different models on the
same unit may be arbitrarily correlated (that is what pairing handles). Near-duplicate
tasks are not independent: ``clusters=`` (one label per task; the benchmark's clusters
come from :func:`analysis.results.clusters.task_clusters`) makes each cluster one unit,
whose tasks' signs flip together.

**Tests and the intervals that match them.**

* p-values of paired and rank-correlation tests come from *permutation* tests, valid at
  any n (6 or 13 tasks): a sign-flip test of the mean paired difference (null: each
  difference symmetric about 0) and a "permute y against x" test of a rank
  correlation. Group contrasts (:func:`group_contrast`) are Welch contrasts: Welch's
  t-test with its Welch-Satterthwaite reference distribution (a permutation over group
  labels tests "same distribution" and rejects equal means when the spreads differ;
  see :mod:`.contrast`). Exact enumeration while cheap, otherwise
  Monte-Carlo with the ``(b+1)/(B+1)`` convention. The smallest attainable p-value is
  reported on every result.
* paired and group intervals *invert the test* (for groups, Welch's interval): the
  shifts the test does not reject.
  So an interval excludes 0 exactly when p < alpha, and coverage is exact under the
  test's null model. Pairwise tables use intervals that match their multiplicity
  adjustment (simultaneous max-T by default). The percentile bootstrap remains an
  option (``paired_bootstrap(method="percentile")``) for many units; it under-covers
  at small n. Every measured number (coverage, type-I error, family-wise error) is in
  ``benchmarks/README_stats.md``, written by ``benchmarks/bench_stats_validation.py``.
"""

from __future__ import annotations

import lazy_loader

# The public names, listed once in ``__init__.pyi``, each loaded on first use (SPEC 1).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
