"""Statistics for comparing embedding models: rank correlation, paired tests, gaps.

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

import itertools
import math
import numbers
import os
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from .errors import DroppedModelsWarning, UnknownModelError, check_names

__all__ = [
    "ConfidenceInterval",
    "DroppedModelsWarning",
    "PairedTestResult",
    "RankCorrelationResult",
    "UnknownModelError",
    "adjust_pvalues",
    "paired_bootstrap",
    "pairwise_significance",
    "public_private_gap",
    "rank_correlation",
]

RngLike = int | np.random.Generator | None
Alternative = Literal["two-sided", "greater", "less"]

_BLOCK = 1 << 22  # elements of one temporary block (32 MiB of float64)
_PAIR_BLOCK = 1 << 19  # elements of one (pairs x resamples) block: stays in cache
_RANK_BLOCK = 1 << 18  # elements of one block of rank rows (Kendall's O(n^2) loops)
_REL_TOL = 1e-9  # relative tolerance for "as extreme as observed" (float rounding)
_MAX_EXACT_SIGN_FLIP_N = 20  # 2**20 sign patterns at most
_MAX_EXACT_PERMUTATION_N = 10  # 10! = 3,628,800 orderings at most
_PARALLEL_MIN_WORK = 1 << 23  # elements of pair work before threads pay off
_N_WORKERS = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
_ALTERNATIVES = ("two-sided", "greater", "less")
_CORRECTIONS = ("holm", "bonferroni", "none")
_RANK_METHODS = ("spearman", "kendall")
_GAP_COLUMNS = ("model", "task", "is_public", "main_score")


# --------------------------------------------------------------------------- results


class ConfidenceInterval(NamedTuple):
    """A confidence interval; a one-sided interval has an infinite end."""

    low: float
    high: float


@dataclass(frozen=True)
class RankCorrelationResult:
    """Result of :func:`rank_correlation`.

    Attributes:
        statistic: Spearman's rho or Kendall's tau-b (as scipy computes them).
        pvalue: two-sided permutation p-value (see :func:`rank_correlation`).
        confidence_interval: percentile bootstrap interval over resampled pairs.
        n: number of (x, y) pairs used, after dropping pairs with a NaN.
        method: ``"spearman"`` or ``"kendall"``.
        min_pvalue: smallest p-value this n and test can return (ties in the data
            can only make the attainable minimum larger).
        pvalue_method: how the p-value was computed (exact or Monte-Carlo, how many
            orderings).
        n_resamples: bootstrap resamples drawn.
        n_resamples_dropped: bootstrap resamples dropped because x or y was constant
            in them (the correlation is undefined there).
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    n: int
    method: str
    min_pvalue: float
    pvalue_method: str
    n_resamples: int
    n_resamples_dropped: int


@dataclass(frozen=True)
class PairedTestResult:
    """Result of :func:`paired_bootstrap`.

    Attributes:
        statistic: mean of ``a - b`` over the units.
        pvalue: sign-flip permutation p-value for ``alternative``.
        confidence_interval: percentile bootstrap interval of the mean difference
            (one-sided for a one-sided ``alternative``, like scipy).
        n: number of paired units.
        method: what was done, e.g. ``"exact sign-flip permutation (2^7=128 sign
            patterns); percentile bootstrap CI (10000 resamples of 7 units)"``.
        min_pvalue: smallest p-value this n, method and alternative can return.
        n_resamples: bootstrap resamples (and Monte-Carlo sign patterns) requested.
        alternative: the alternative hypothesis tested.
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    n: int
    method: str
    min_pvalue: float
    n_resamples: int
    alternative: str


# --------------------------------------------------------------------------- argument checks


def _check_n_resamples(value: Any, name: str = "n_resamples") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer, got {value!r}")
    return int(value)


def _check_open_unit(value: Any, name: str) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < value < 1
    if not ok:
        raise ValueError(f"`{name}` must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def _check_rng(rng: Any) -> np.random.Generator:
    if isinstance(rng, bool):
        raise ValueError(f"`rng` must be None, an integer seed or a numpy Generator, got {rng!r}")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"`rng` must be None, an integer seed or a numpy Generator, got {rng!r}"
        ) from exc


def _as_vector(values: Any, name: str) -> np.ndarray:
    """1-D float array; pandas NA becomes NaN."""
    if isinstance(values, pd.Series | pd.Index):
        try:
            values = values.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"`{name}` must hold numbers") from exc
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be a 1-D array of numbers") from exc
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D, got an array of shape {arr.shape}")
    return arr


def _check_models(
    requested: Iterable[Any] | None, available: Iterable[Any], argname: str = "models"
) -> list[Any]:
    """The requested model names, checked against ``available`` (see :func:`check_names`)."""
    return check_names(requested, available, argname=argname)


# --------------------------------------------------------------------------- resampling core


def _rows_per_block(row_len: int, total: int, budget: int = _BLOCK) -> int:
    return max(1, min(total, budget // max(row_len, 1)))


def _bootstrap_index_blocks(
    n: int, n_resamples: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Blocks of bootstrap indices, ``rng.integers(0, n, (rows, n))`` each.

    When ``n * n_resamples <= 2**22`` there is one block: exactly the draws
    ``scipy.stats.bootstrap(..., paired=True)`` makes from the same Generator.
    """
    rows = _rows_per_block(n, n_resamples)
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, n, size=(min(rows, n_resamples - start), n))


def _bootstrap_means(X: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap means of every column of ``X`` (units x columns), rows resampled jointly.

    One resample is a multiset of units, i.e. a row of multiplicities ``counts``;
    the resampled means of all columns are then ``counts @ X / n``, a matrix product.
    Every column sees the same resampled units. Returns (columns, n_resamples).
    """
    n, m = X.shape
    out = np.empty((m, n_resamples))
    start = 0
    for idx in _bootstrap_index_blocks(n, n_resamples, rng):
        rows = idx.shape[0]
        flat = (idx + (np.arange(rows) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(float)
        out[:, start : start + rows] = (counts @ X).T  # (rows, n) @ (n, m): BLAS-friendly
        start += rows
    out /= n
    return out


def _sign_flip_is_exact(n: int, n_resamples: int) -> bool:
    return n <= _MAX_EXACT_SIGN_FLIP_N and 2**n <= n_resamples


def _sign_patterns(n: int, start: int, stop: int) -> np.ndarray:
    """Sign patterns number ``start..stop-1`` over n units: bit i of the number flips unit i."""
    return 1.0 - 2.0 * ((np.arange(start, stop)[:, None] >> np.arange(n)) & 1)


def _sign_flip_means(X: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of every column of ``X`` under ``n_resamples`` random sign patterns.

    For paired differences ``d = a - b`` the sign-flipped mean is linear, so the
    Monte-Carlo null distribution of a pair is ``means[a] - means[b]``. A pattern
    flips unit i where bit i is set; the bits come from random bytes
    (``rng.integers(0, 256, (rows, ceil(n/8)), dtype=uint8)`` per row block,
    unpacked), and the sum is ``colsum(X) - 2 * bits @ X``. Returns (columns,
    n_resamples).
    """
    n, m = X.shape
    out = np.empty((m, n_resamples))
    total = X.sum(axis=0)
    rows = _rows_per_block(n, n_resamples)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        packed = rng.integers(0, 256, size=(stop - start, (n + 7) // 8), dtype=np.uint8)
        flips = np.unpackbits(packed, axis=1, count=n).astype(float)
        out[:, start:stop] = (total - 2.0 * (flips @ X)).T
    out /= n
    return out


def _count_patterns_at_least(D: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """Count, per column d of ``D`` (units x pairs), sign patterns s with s @ d >= threshold.

    There are 2**n patterns. Meet in the middle instead of enumerating their sums:
    split the units in two halves, enumerate each half's 2**(n/2) signed sums and
    count, for every left sum L, the right sums R >= threshold - L, by one merge (a
    stable sort of thresholds and sorted right sums, thresholds first so that ties
    count as "at least").
    """
    n = D.shape[0]
    n1 = n // 2
    left = (_sign_patterns(n1, 0, 2**n1) @ D[:n1]).T  # (pairs, 2**n1)
    right = np.sort((_sign_patterns(n - n1, 0, 2 ** (n - n1)) @ D[n1:]).T, axis=1)
    thresholds = threshold[:, None] - left
    merged = np.concatenate([thresholds, right], axis=1)
    is_right = np.argsort(merged, axis=1, kind="stable") >= thresholds.shape[1]
    right_below = np.cumsum(is_right, axis=1)  # right sums strictly below each threshold
    below = np.where(is_right, 0, right_below).sum(axis=1)
    return thresholds.shape[1] * right.shape[1] - below


def _exact_sign_flip_count(D: np.ndarray, tol: np.ndarray, alternative: str) -> np.ndarray:
    """Exact count of sign patterns at least as extreme as the observed sums ``D.sum(0)``.

    The pattern set is symmetric (s and -s give opposite sums, exactly, in floats), so
    two-sided counts are twice the upper tail and "less" is "greater" mirrored.
    ``tol`` (sum scale) makes values within float rounding of the observed count.
    """
    observed = D.sum(axis=0)
    if alternative == "greater":
        return _count_patterns_at_least(D, observed - tol)
    if alternative == "less":
        return _count_patterns_at_least(D, -observed - tol)
    threshold = np.abs(observed) - tol
    count = 2 * _count_patterns_at_least(D, np.maximum(threshold, 0.0))
    return np.where(threshold > 0, count, 2 ** D.shape[0])


def _count_as_extreme(
    null: np.ndarray, observed: np.ndarray, tol: np.ndarray | float, alternative: str
) -> np.ndarray:
    """Per row of ``null`` (rows x resamples): how many values are at least as extreme."""
    observed = np.asarray(observed)[:, None]
    tol = np.broadcast_to(np.asarray(tol, dtype=float), observed.shape[:1])[:, None]
    if alternative == "two-sided":
        hits = np.abs(null) >= np.abs(observed) - tol
    elif alternative == "greater":
        hits = null >= observed - tol
    else:
        hits = null <= observed + tol
    return hits.sum(axis=1)


def _pvalue(count: np.ndarray, total: int, exact: bool) -> np.ndarray:
    """P-value from the count of resamples at least as extreme as the observed data.

    Exact: count / total (the observed arrangement is among them). Monte-Carlo:
    (count + 1) / (total + 1), which is valid (never anti-conservative).
    """
    count = np.asarray(count, dtype=float)
    return count / total if exact else (count + 1.0) / (total + 1.0)


def _min_pvalue(total: int, exact: bool, two_sided_pairs: bool) -> float:
    if not exact:
        return 1.0 / (total + 1.0)
    return (2.0 if two_sided_pairs else 1.0) / total


def _quantile_rows(dist: np.ndarray, prob: float) -> np.ndarray:
    """Row-wise quantile, numpy's/scipy's default "linear" (Hyndman-Fan type 7).

    Partitions ``dist`` in place (rows are reordered, values unchanged). One
    single-kth partition (numpy's SIMD path, several times faster than np.quantile's
    multi-kth partition on wide rows), then a min or max over the short side for the
    neighbouring order statistic.
    """
    width = dist.shape[1]
    h = prob * (width - 1)
    j = math.floor(h)
    g = h - j
    if g == 0 or j + 1 >= width:
        dist.partition(j, axis=1)
        return dist[:, j].astype(np.float64)
    if j + 1 <= width // 2:  # x_(j) is the max of the j+1 smallest
        dist.partition(j + 1, axis=1)
        upper = dist[:, j + 1].astype(np.float64)
        lower = dist[:, : j + 1].max(axis=1).astype(np.float64)
    else:  # x_(j+1) is the min of the width-j-1 largest
        dist.partition(j, axis=1)
        lower = dist[:, j].astype(np.float64)
        upper = dist[:, j + 1 :].min(axis=1).astype(np.float64)
    return lower + (upper - lower) * g


def _percentile_interval(
    dist: np.ndarray, confidence_level: float, alternative: str
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval per row of ``dist``, as scipy.stats.bootstrap.

    ``dist`` (rows x resamples) is reordered in place within each row.
    """
    if alternative == "two-sided":
        alpha = (1.0 - confidence_level) / 2.0
        return _quantile_rows(dist, alpha), _quantile_rows(dist, 1.0 - alpha)
    alpha = 1.0 - confidence_level
    inf = np.full(dist.shape[0], np.inf)
    if alternative == "less":
        return -inf, _quantile_rows(dist, 1.0 - alpha)
    return _quantile_rows(dist, alpha), inf


def _pair_chunks(ia: np.ndarray, ib: np.ndarray, step: int) -> list[slice]:
    """Split pair positions into chunks of at most ``step`` pairs.

    Where pairs come in runs with a fixed first column and consecutive second
    columns (the upper-triangle order of :func:`pairwise_significance`), chunks
    follow the runs, so a chunk's differences are one broadcast subtraction.
    """
    k = len(ia)
    breaks = np.flatnonzero((np.diff(ia) != 0) | (np.diff(ib) != 1)) + 1
    if len(breaks) + 1 > k / 8:  # no useful runs: plain chunks
        return [slice(s, min(s + step, k)) for s in range(0, k, step)]
    bounds = [0, *breaks.tolist(), k]
    return [
        slice(s, min(s + step, stop))
        for start, stop in itertools.pairwise(bounds)
        for s in range(start, stop, step)
    ]


def _pair_differences(M: np.ndarray, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``M[a] - M[b]`` into ``out`` (broadcast, no gather, for a run; see _pair_chunks)."""
    if len(a) > 1 and a[0] == a[-1] and (a == a[0]).all() and (np.diff(b) == 1).all():
        return np.subtract(M[a[0]], M[b[0] : b[-1] + 1], out=out)
    return np.subtract(M[a], M[b], out=out)


def _run_parallel(fn: Any, chunks: list[slice], work: int) -> None:
    """Call ``fn`` on every chunk; on a thread pool when there is enough work.

    numpy releases the GIL in the array operations used, chunks write disjoint
    output slices and draw no random numbers, so results do not depend on threads.
    """
    workers = min(_N_WORKERS, len(chunks))
    if workers < 2 or work < _PARALLEL_MIN_WORK:
        for sl in chunks:
            fn(sl)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(fn, chunks))


@dataclass(frozen=True)
class _PairedArrays:
    statistic: np.ndarray
    pvalue: np.ndarray
    low: np.ndarray
    high: np.ndarray
    exact: bool
    n_patterns: int
    method: str
    min_pvalue: float


def _paired_tests(
    X: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    *,
    n_resamples: int,
    confidence_level: float,
    alternative: str,
    rng: np.random.Generator,
) -> _PairedArrays:
    """Paired sign-flip tests and bootstrap CIs of ``mean(X[:, ia] - X[:, ib])``.

    The one implementation behind :func:`paired_bootstrap` (one pair) and
    :func:`pairwise_significance` (all pairs). Draw order from ``rng``: the bootstrap
    indices (``_bootstrap_means``), then the Monte-Carlo sign patterns
    (``_sign_flip_means``; nothing is drawn when the test is exact, where all 2**n
    patterns are counted by ``_exact_sign_flip_count``). Every pair shares both, so a
    pair's result does not depend on which other columns are in ``X``.
    """
    n = X.shape[0]
    # Bootstrap means centred on each column's mean, in float32: the pair's
    # distribution is (C[a] - C[b]) + (mean[a] - mean[b]), and float32 halves the
    # memory traffic and doubles the SIMD width of the partition (4x faster). The
    # centring keeps the rounding tiny: about 6e-8 of the bootstrap spread.
    means = X.mean(axis=0)
    boot = _bootstrap_means(X, n_resamples, rng)
    boot -= means[:, None]
    boot = boot.astype(np.float32)
    exact = _sign_flip_is_exact(n, n_resamples)
    null = None if exact else _sign_flip_means(X, n_resamples, rng)
    n_patterns = 2**n if exact else n_resamples
    statistic = np.mean(X[:, ia] - X[:, ib], axis=0)
    # Values within float rounding of the observed one count as "as extreme".
    tol = _REL_TOL * (np.mean(np.abs(X[:, ia]), axis=0) + np.mean(np.abs(X[:, ib]), axis=0))
    k = len(ia)
    pvalue, low, high = np.empty(k), np.empty(k), np.empty(k)
    step = _rows_per_block(max(n_resamples, n_patterns), k, _PAIR_BLOCK)
    local = threading.local()

    def work(sl: slice) -> None:
        if not hasattr(local, "boot"):  # per-thread buffers: no page faults per chunk
            local.boot = np.empty((step, n_resamples), dtype=np.float32)
            local.null = None if exact else np.empty((step, n_resamples))
        rows = sl.stop - sl.start
        dist = _pair_differences(boot, ia[sl], ib[sl], local.boot[:rows])
        shift = means[ia[sl]] - means[ib[sl]]
        lo, hi = _percentile_interval(dist, confidence_level, alternative)
        low[sl], high[sl] = lo + shift, hi + shift
        if exact:
            diffs = X[:, ia[sl]] - X[:, ib[sl]]
            count = _exact_sign_flip_count(diffs, n * tol[sl], alternative)
        else:
            diff = _pair_differences(null, ia[sl], ib[sl], local.null[:rows])
            count = _count_as_extreme(diff, statistic[sl], tol[sl], alternative)
        pvalue[sl] = _pvalue(count, n_patterns, exact)

    _run_parallel(work, _pair_chunks(ia, ib, step), k * (n_resamples + n_patterns))
    if exact:
        perm = f"exact sign-flip permutation (2^{n}={n_patterns} sign patterns)"
    else:
        perm = f"Monte-Carlo sign-flip permutation, {n_patterns} draws"
    method = f"{perm}; percentile bootstrap CI ({n_resamples} resamples of {n} units)"
    return _PairedArrays(
        statistic=statistic,
        pvalue=pvalue,
        low=low,
        high=high,
        exact=exact,
        n_patterns=n_patterns,
        method=method,
        min_pvalue=_min_pvalue(n_patterns, exact, alternative == "two-sided"),
    )


# --------------------------------------------------------------------------- rank statistics


def _centered_ranks2(values: np.ndarray) -> np.ndarray:
    """Twice the centred average ranks per row: integers, so sums are exact in float64."""
    n = values.shape[1]
    return 2.0 * rankdata(values, axis=1) - (n + 1.0)


def _dense_ranks(values: np.ndarray) -> np.ndarray:
    """Dense integer ranks (1, 2, ...; ties share one) along the last axis."""
    return rankdata(values, method="dense", axis=-1).astype(np.int64)


def _tied_pairs(sorted_values: np.ndarray) -> np.ndarray:
    """Tied pairs along the last axis of a sorted array: the sum of C(run length, 2)."""
    n = sorted_values.shape[-1]
    new_run = np.ones(sorted_values.shape, dtype=bool)
    new_run[..., 1:] = sorted_values[..., 1:] != sorted_values[..., :-1]
    position = np.arange(n)
    run_start = np.maximum.accumulate(np.where(new_run, position, 0), axis=-1)
    return (position - run_start).sum(axis=-1)


def _inversions(seq: np.ndarray) -> np.ndarray:
    """Pairs i < j with seq[i] > seq[j] along the last axis (ties are not inversions).

    O(n^2) comparisons, but of contiguous slices (SIMD, 16-bit), accumulated
    elementwise and reduced once: faster in numpy than merge-sort or Fenwick loops.
    """
    n = seq.shape[-1]
    small = n < 2**15
    seq = seq.astype(np.int16 if small else np.int32, copy=False)
    acc = np.zeros((*seq.shape[:-1], max(n - 1, 1)), dtype=np.int16 if small else np.int32)
    for d in range(1, n):
        acc[..., : n - d] += seq[..., :-d] > seq[..., d:]
    return acc.sum(axis=-1, dtype=np.int64)


def _kendall_varying(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """The part of Kendall's C - D that changes when y is permuted: n3 - 2 * D.

    With the pairs ordered by (x, y), the discordant pairs D are exactly the
    inversions of the y ranks (pairs tied in x are ordered by y, so they never
    are), and C - D = pairs - n1 - n2 + n3 - 2 * D, where n1 (n2) counts pairs tied
    in x (y) and n3 pairs tied in both. Dense integer ranks; ``rx`` broadcasts
    against ``ry``. When every rx row is strictly increasing (x sorted, no ties)
    the given order is already the (x, y) order and n3 = 0.
    """
    n = ry.shape[-1]
    if (np.diff(rx, axis=-1) > 0).all():
        return -2 * _inversions(ry)
    key = rx * (n + 1) + ry
    order = np.argsort(key, axis=-1, kind="stable")
    both = _tied_pairs(np.take_along_axis(key, order, axis=-1))
    return both - 2 * _inversions(np.take_along_axis(ry, order, axis=-1))


def _kendall_fixed(rx: np.ndarray, ry: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pairs - n1 - n2, sqrt((pairs - n1) * (pairs - n2))): unchanged when y is permuted."""
    n = rx.shape[-1]
    pairs = n * (n - 1) // 2
    untied_x = pairs - _tied_pairs(np.sort(rx, axis=-1))
    untied_y = pairs - _tied_pairs(np.sort(ry, axis=-1))
    return untied_x + untied_y - pairs, np.sqrt(untied_x * untied_y.astype(float))


def _rank_statistic(x: np.ndarray, y: np.ndarray, method: str) -> np.ndarray:
    """Spearman's rho or Kendall's tau-b of each row pair of x, y (rows x n).

    Rho is the Pearson correlation of average ranks (as scipy.stats.spearmanr).
    Tau-b is (C - D) / sqrt((pairs - n1) * (pairs - n2)) with ties as in
    scipy.stats.kendalltau (see ``_kendall_varying``); C - D is an exact integer.
    A row where x or y is constant gives NaN.
    """
    rows, n = x.shape
    out = np.empty(rows)
    step = _rows_per_block(n, rows, _RANK_BLOCK)
    for s in range(0, rows, step):
        xs, ys = x[s : s + step], y[s : s + step]
        if method == "spearman":
            rx, ry = _centered_ranks2(xs), _centered_ranks2(ys)
            num = np.einsum("ij,ij->i", rx, ry)
            den = np.sqrt(np.einsum("ij,ij->i", rx, rx) * np.einsum("ij,ij->i", ry, ry))
        else:
            rx, ry = _dense_ranks(xs), _dense_ranks(ys)
            fixed, den = _kendall_fixed(rx, ry)
            num = fixed + _kendall_varying(rx, ry)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[s : s + step] = num / den
    return np.clip(out, -1.0, 1.0)


def _permutation_is_exact(n: int, n_resamples: int) -> bool:
    return n <= _MAX_EXACT_PERMUTATION_N and math.factorial(n) <= n_resamples


def _permutation_blocks(
    n: int, n_resamples: int, rng: np.random.Generator, rows: int
) -> Iterator[np.ndarray]:
    """Orderings of range(n) in blocks: all n! (identity first) or random ones."""
    if _permutation_is_exact(n, n_resamples):
        perms = itertools.permutations(range(n))
        while block := list(itertools.islice(perms, rows)):
            yield np.array(block, dtype=np.intp)
        return
    base = np.arange(n, dtype=np.intp)
    for start in range(0, n_resamples, rows):
        count = min(rows, n_resamples - start)
        yield rng.permuted(np.broadcast_to(base, (count, n)), axis=1)


def _rank_permutation_test(
    x: np.ndarray, y: np.ndarray, method: str, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """Two-sided permutation test of rank correlation for each row pair (rows x n).

    y is permuted against x; all rows share the orderings. The statistic is
    compared through its numerator (the denominator does not change under
    permutation), which is integer-valued: a sum of products of twice-centred ranks
    for Spearman, C - D for Kendall. So "as extreme" is decided exactly, ties
    included.
    Returns (statistic, pvalue, exact, number of orderings).
    """
    rows, n = x.shape
    exact = _permutation_is_exact(n, n_resamples)
    total = math.factorial(n) if exact else n_resamples
    count = np.zeros(rows, dtype=np.int64)
    statistic = _rank_statistic(x, y, method)
    if method == "spearman":
        rx, ry = _centered_ranks2(x), _centered_ranks2(y)
        observed = np.einsum("ij,ij->i", rx, ry)
        step = _rows_per_block(rows * n, total)
        for perms in _permutation_blocks(n, n_resamples, rng, step):
            null = ry[:, perms] @ rx[:, :, None]  # (rows, block, 1)
            count += _count_as_extreme(null[..., 0], observed, 0.5, "two-sided")
    else:
        # Reorder each row's pairs by x: neither tau nor its permutation distribution
        # changes, and without ties in x the (x, y) order is then the identity.
        by_x = np.argsort(x, axis=1, kind="stable")
        rx = _dense_ranks(np.take_along_axis(x, by_x, axis=1))
        ry = _dense_ranks(np.take_along_axis(y, by_x, axis=1))
        fixed, _ = _kendall_fixed(rx, ry)
        observed = fixed + _kendall_varying(rx, ry)
        step = _rows_per_block(rows * n, total, _RANK_BLOCK)
        for perms in _permutation_blocks(n, n_resamples, rng, step):
            null = fixed[:, None] + _kendall_varying(rx[:, None, :], ry[:, perms])
            count += _count_as_extreme(null, observed, 0.5, "two-sided")
    return statistic, _pvalue(count, total, exact), exact, total


# --------------------------------------------------------------------------- public API


def rank_correlation(
    x: Any,
    y: Any,
    *,
    method: Literal["spearman", "kendall"] = "spearman",
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> RankCorrelationResult:
    """Rank correlation with a permutation p-value and a bootstrap interval.

    Typical use: do two rankings of models (two benchmarks, public vs private tasks)
    agree? x and y are the two scores of the same items (models).

    Assumptions and conventions:

    * **Missing values**: a pair where x or y is NaN is dropped; ``n`` reports the
      pairs kept. An infinite value is an error.
    * **Ties** get average ranks. Rho is the Pearson correlation of the ranks and
      tau is Kendall's tau-b, both identical to ``scipy.stats.spearmanr`` /
      ``scipy.stats.kendalltau``.
    * **p-value**: two-sided permutation test of "x and y are independent" (y is
      permuted against x; the items are assumed exchangeable under the null). It is
      the fraction of orderings whose |statistic| is at least the observed one. When
      ``n! <= n_resamples`` (n <= 7 at the default) all n! orderings are enumerated
      (exact test); otherwise ``n_resamples`` random orderings with the
      ``(b+1)/(n_resamples+1)`` convention.
    * **Smallest attainable p-value** (``min_pvalue``): ``2/n!`` for the exact test
      (the identity and the reversed ordering are as extreme; ties make it larger;
      1/3 at n=3, 1/12 at n=4, 1/60 at n=5), ``1/(n_resamples+1)`` for Monte-Carlo.
    * **CI**: percentile bootstrap over items (pairs resampled with replacement).
      Resamples in which x or y is constant have no correlation; they are dropped
      (``n_resamples_dropped``) and the interval uses the rest (NaN if none is
      left). The interval is approximate and too narrow at small n.
    * **Cost**: Spearman is O(n log n) per resample, Kendall O(n^2) (contiguous
      16-bit comparisons). With 9,999 resamples on 2 cores: n=300 takes about 1 s
      (Spearman) / 2 s (Kendall), n=700 about 2 s / 6 s.

    Draws from ``rng``: the orderings (Monte-Carlo only), then the bootstrap indices.

    Args:
        x: scores of the items under the first condition (1-D, numbers).
        y: scores of the same items under the second condition.
        method: ``"spearman"`` or ``"kendall"``.
        n_resamples: Monte-Carlo orderings for the p-value and bootstrap resamples for
            the CI.
        confidence_level: confidence level of the two-sided interval, in (0, 1).
        rng: seed or Generator for the resampling.

    Returns:
        RankCorrelationResult with ``statistic``, ``pvalue``, ``confidence_interval``,
        ``n``, ``method``, ``min_pvalue`` and the resampling details.

    Raises:
        ValueError: x and y differ in length, hold inf, have fewer than 3 complete
            pairs or are constant after dropping NaN pairs; or an option is invalid.
    """
    method = _check_choice(method, "method", _RANK_METHODS)
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    gen = _check_rng(rng)
    xv, yv = _as_vector(x, "x"), _as_vector(y, "y")
    if xv.shape != yv.shape:
        raise ValueError(f"`x` and `y` must have the same length, got {len(xv)} and {len(yv)}")
    for name, v in (("x", xv), ("y", yv)):
        if np.isinf(v).any():
            raise ValueError(f"`{name}` contains inf; only finite values or NaN are allowed")
    keep = ~(np.isnan(xv) | np.isnan(yv))
    xv, yv = xv[keep], yv[keep]
    n = len(xv)
    if n < 3:
        raise ValueError(f"`x` and `y` need at least 3 pairs without NaN, got {n}")
    for name, v in (("x", xv), ("y", yv)):
        if np.all(v == v[0]):
            raise ValueError(
                f"`{name}` is constant (after dropping NaN pairs): the rank correlation "
                "is undefined"
            )
    statistic, pvalue, exact, total = _rank_permutation_test(
        xv[None], yv[None], method, n_resamples, gen
    )
    dist = np.concatenate(
        [
            _rank_statistic(xv[idx], yv[idx], method)
            for idx in _bootstrap_index_blocks(n, n_resamples, gen)
        ]
    )
    defined = dist[~np.isnan(dist)]
    if defined.size:
        low, high = _percentile_interval(defined[None], confidence_level, "two-sided")
        ci = ConfidenceInterval(float(low[0]), float(high[0]))
    else:
        ci = ConfidenceInterval(np.nan, np.nan)
    if exact:
        pvalue_method = f"exact permutation test ({n}!={total} orderings)"
    else:
        pvalue_method = f"Monte-Carlo permutation test, {total} orderings"
    return RankCorrelationResult(
        statistic=float(statistic[0]),
        pvalue=float(pvalue[0]),
        confidence_interval=ci,
        n=n,
        method=method,
        min_pvalue=_min_pvalue(total, exact, True),
        pvalue_method=pvalue_method,
        n_resamples=n_resamples,
        n_resamples_dropped=int(dist.size - defined.size),
    )


def paired_bootstrap(
    a: Any,
    b: Any,
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    alternative: Alternative = "two-sided",
    rng: RngLike = None,
) -> PairedTestResult:
    """Paired comparison of two models: mean difference, sign-flip p-value, bootstrap CI.

    ``a[i]`` and ``b[i]`` are the scores of two models on the same unit i.

    Assumptions and conventions:

    * **Unit**: whatever a and b are aligned on (the tasks of a benchmark, the
      queries of a task). Units are assumed independent; the CI and the p-value
      are statements about the population the units stand for.
    * **Missing values**: none allowed (NaN or inf raise); drop incomplete units
      first, for both models alike.
    * **Statistic**: the mean of ``a - b``.
    * **p-value**: paired sign-flip permutation test. Under the null hypothesis the
      two scores of a unit are exchangeable, i.e. each difference is symmetric
      about 0, so its sign can be flipped. The test statistic is the mean
      difference (|mean| for two-sided); the p-value is the fraction of sign
      patterns whose statistic is at least as extreme as the observed one (within
      float rounding). When ``2**n <= n_resamples`` (n <= 13 at the default) all
      ``2**n`` patterns are enumerated: an exact test, valid at any n. Otherwise
      ``n_resamples`` random patterns with the ``(b+1)/(n_resamples+1)``
      convention. Ties (zero differences) are harmless: their sign does not matter.
      All-zero differences give statistic 0 and p-value 1.
    * **Smallest attainable p-value** (``min_pvalue``): exact: ``2/2**n`` two-sided,
      ``1/2**n`` one-sided (zero differences make it larger). So with 5 units or
      fewer no two-sided p-value is below 0.05 (2/32 = 0.0625), 6 units give
      0.03125. Monte-Carlo: ``1/(n_resamples+1)``.
    * **CI**: percentile bootstrap of the mean difference, units resampled with
      replacement; the same as ``scipy.stats.bootstrap((a, b), ..., paired=True,
      method="percentile")``: for n*n_resamples <= 2**22 the same draws from the
      same Generator, so the same interval up to float32 rounding (the bootstrap
      means are held centred in float32 for speed: an error near 1e-7 of their
      spread, far below the Monte-Carlo error). It is too narrow at small n:
      measured coverage of the 95% interval (normal differences) is 0.877 at n=7,
      0.937 at n=30, 0.946 at n=300. For a one-sided alternative the interval is
      one-sided, like scipy's.

    Draws from ``rng``: bootstrap indices ``rng.integers(0, n, (n_resamples, n))``,
    then (Monte-Carlo only) sign patterns ``rng.integers(0, 2, (n_resamples, n))``
    (each in row blocks when n * n_resamples > 2**22).
    :func:`pairwise_significance` draws exactly the same, so a pair gets the same
    p-value and CI there as here with the same seed.

    Args:
        a: scores of the first model, one per unit.
        b: scores of the second model on the same units.
        n_resamples: bootstrap resamples, and sign patterns when not exact.
        confidence_level: confidence level of the interval, in (0, 1).
        alternative: ``"two-sided"``, ``"greater"`` (mean of a - b > 0) or ``"less"``.
        rng: seed or Generator for the resampling.

    Returns:
        PairedTestResult with ``statistic``, ``pvalue``, ``confidence_interval``,
        ``n``, ``method``, ``min_pvalue``, ``n_resamples`` and ``alternative``.

    Raises:
        ValueError: a and b differ in length, hold NaN or inf or have fewer than 3
            units; or an option is invalid.
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    alternative = _check_choice(alternative, "alternative", _ALTERNATIVES)
    gen = _check_rng(rng)
    av, bv = _as_vector(a, "a"), _as_vector(b, "b")
    if av.shape != bv.shape:
        raise ValueError(f"`a` and `b` must have the same length, got {len(av)} and {len(bv)}")
    for name, v in (("a", av), ("b", bv)):
        if not np.isfinite(v).all():
            raise ValueError(
                f"`{name}` contains NaN or inf; drop incomplete units from both a and b first"
            )
    if len(av) < 3:
        raise ValueError(f"`a` and `b` need at least 3 paired units, got {len(av)}")
    res = _paired_tests(
        np.column_stack([av, bv]),
        np.array([0]),
        np.array([1]),
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alternative=alternative,
        rng=gen,
    )
    return PairedTestResult(
        statistic=float(res.statistic[0]),
        pvalue=float(res.pvalue[0]),
        confidence_interval=ConfidenceInterval(float(res.low[0]), float(res.high[0])),
        n=len(av),
        method=res.method,
        min_pvalue=res.min_pvalue,
        n_resamples=n_resamples,
        alternative=alternative,
    )


def adjust_pvalues(
    pvalues: Any, *, method: Literal["holm", "bonferroni", "none"] = "holm"
) -> np.ndarray:
    """Adjust p-values for multiple comparisons (family-wise error rate).

    Holm's step-down: sort the m p-values ascending, multiply the i-th smallest
    (i = 1..m) by ``m - i + 1``, take the running maximum and cap at 1. It controls
    the family-wise error rate under any dependence and is uniformly more powerful
    than Bonferroni (``min(1, m * p)``). ``"none"`` returns the p-values unchanged.

    Args:
        pvalues: p-values (1-D, in [0, 1]).
        method: ``"holm"``, ``"bonferroni"`` or ``"none"``.

    Returns:
        Adjusted p-values, in the input order.

    Raises:
        ValueError: a p-value is NaN or outside [0, 1]; or ``method`` is unknown.
    """
    method = _check_choice(method, "method", _CORRECTIONS)
    p = _as_vector(pvalues, "pvalues")
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("`pvalues` must lie in [0, 1] (no NaN)")
    m = len(p)
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def pairwise_significance(
    scores: pd.DataFrame,
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    correction: Literal["holm", "bonferroni", "none"] = "holm",
    alpha: float = 0.05,
    rng: RngLike = None,
) -> pd.DataFrame:
    """Paired tests for every pair of models, sharing one resampling plan.

    For each unordered pair (a, b) of columns, with a before b in column order,
    this is :func:`paired_bootstrap` of ``scores[a]`` vs ``scores[b]``: same
    statistic, sign-flip p-value and percentile bootstrap CI, with the same
    assumptions (see there). All pairs share the same bootstrap resamples of the
    units and the same sign patterns, drawn once, exactly as ``paired_bootstrap``
    draws them; so a pair's p-value and CI equal ``paired_bootstrap`` with the same
    seed, and intervals of different pairs are mutually consistent. The work is a
    few matrix products (per-model resampled means, ``counts @ scores``) plus one
    row of differences per pair, chunked over pairs (and spread over a few threads
    when large): memory stays near 8 * n_models * n_resamples bytes (twice that for
    a Monte-Carlo p-value) plus a few MiB. The exact p-value counts the 2**n sign
    patterns by meeting in the middle (two halves of 2**(n/2) sums), not one by one.
    80 models x 13 tasks x 10,000 resamples (3,160 pairs) take about 0.2 s on 2
    cores (``benchmarks/bench_pairwise.py``).

    ``significant`` is ``pvalue_adjusted <= alpha``. With Holm or Bonferroni the
    adjustment is over all m = n_models*(n_models-1)/2 pairs, and the smallest
    adjusted p-value is at least ``m * min_pvalue`` (``attrs["min_pvalue"]``):
    ``2/2**n`` for the exact test over n units, ``1/(n_resamples+1)`` for
    Monte-Carlo. When that exceeds ``alpha`` no pair can be significant, whatever
    the data, and a warning says so. Example: 13 tasks give 2/8192, so Holm at 0.05
    can flag pairs only among at most 204 pairs (e.g. 20 models, or each of 80
    models against one reference): with 80 models (3,160 pairs) nothing can pass.

    Args:
        scores: one row per unit (task or query), one column per model, no missing
            values.
        n_resamples: bootstrap resamples, and sign patterns when not exact.
        confidence_level: confidence level of the intervals, in (0, 1).
        correction: multiple-comparison adjustment, ``"holm"``, ``"bonferroni"`` or
            ``"none"`` (see :func:`adjust_pvalues`).
        alpha: significance level for the ``significant`` column, in (0, 1).
        rng: seed or Generator for the resampling.

    Returns:
        DataFrame with one row per pair and columns ``model_a``, ``model_b``,
        ``difference`` (mean of a - b), ``ci_low``, ``ci_high``, ``pvalue``,
        ``pvalue_adjusted``, ``significant``, ``n``. ``attrs`` holds ``method``,
        ``min_pvalue``, ``n_resamples``, ``confidence_level``, ``correction`` and
        ``alpha``.

    Raises:
        ValueError: ``scores`` is not a DataFrame, has fewer than 2 models or 3
            units, duplicate or non-numeric columns, or missing/infinite values (the
            message names the columns); or an option is invalid.
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    correction = _check_choice(correction, "correction", _CORRECTIONS)
    alpha = _check_open_unit(alpha, "alpha")
    gen = _check_rng(rng)
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(
            f"`scores` must be a pandas DataFrame (rows = units, columns = models), "
            f"got {type(scores).__name__}"
        )
    names = list(scores.columns)
    if scores.columns.duplicated().any():
        dup = sorted({str(c) for c in scores.columns[scores.columns.duplicated()]})
        raise ValueError(f"`scores` has duplicate model columns: {dup}")
    if len(names) < 2:
        raise ValueError(f"`scores` needs at least 2 model columns, got {len(names)}")
    if len(scores) < 3:
        raise ValueError(f"`scores` needs at least 3 units (rows), got {len(scores)}")
    bad = [c for c in names if not pd.api.types.is_numeric_dtype(scores[c])]
    if bad:
        raise ValueError(f"`scores` has non-numeric columns: {bad}")
    X = scores.to_numpy(dtype=float, na_value=np.nan)
    nan_cols = [names[k] for k in np.flatnonzero(np.isnan(X).any(axis=0))]
    if nan_cols:
        raise ValueError(
            f"`scores` has missing values in columns {nan_cols}; drop incomplete models "
            "(columns) or tasks (rows) first, e.g. scores.dropna(axis=1)"
        )
    inf_cols = [names[k] for k in np.flatnonzero(np.isinf(X).any(axis=0))]
    if inf_cols:
        raise ValueError(f"`scores` has infinite values in columns {inf_cols}")
    ia, ib = np.triu_indices(len(names), 1)
    res = _paired_tests(
        X,
        ia,
        ib,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alternative="two-sided",
        rng=gen,
    )
    adjusted = adjust_pvalues(res.pvalue, method=correction)
    family = 1 if correction == "none" else len(ia)
    if family * res.min_pvalue > alpha:
        more = "" if res.exact else ", more resamples"
        warnings.warn(
            f"pairwise_significance: no pair can be significant at alpha={alpha}: the "
            f"smallest attainable p-value is {res.min_pvalue:.3g} ({res.method.split(';')[0]})"
            + (f" and {correction} multiplies it by the {family} pairs" if family > 1 else "")
            + f". Use more units{more} or fewer comparisons.",
            UserWarning,
            stacklevel=2,
        )
    col = np.array(names, dtype=object)
    out = pd.DataFrame(
        {
            "model_a": col[ia],
            "model_b": col[ib],
            "difference": res.statistic,
            "ci_low": res.low,
            "ci_high": res.high,
            "pvalue": res.pvalue,
            "pvalue_adjusted": adjusted,
            "significant": adjusted <= alpha,
            "n": len(X),
        }
    )
    out.attrs.update(
        method=res.method,
        min_pvalue=res.min_pvalue,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        correction=correction,
        alpha=alpha,
    )
    return out


def public_private_gap(
    scores: pd.DataFrame,
    *,
    models: Sequence[str] | None = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> pd.DataFrame:
    """Per model: private minus public mean score, with a stratified bootstrap CI.

    Input is the leaderboard loader's long table (columns ``model``, ``task``,
    ``is_public``, ``main_score``; other columns are ignored), one row per
    (model, task).

    Assumptions and conventions:

    * **Task sets**: the public (private) tasks are all tasks with
      ``is_public`` True (False) among the selected models' rows. Every kept model
      must have a score for every one of them, so all models are compared on the
      same tasks; a model missing any task (or with a NaN score) is dropped with a
      :class:`DroppedModelsWarning` naming it, and listed in
      ``attrs["dropped_models"]``. Each side needs at least 2 tasks.
    * **gap** = mean_private - mean_public (positive = better on private tasks).
    * **CI**: percentile bootstrap that resamples tasks *within* each side,
      independently (stratified: the numbers of public and private tasks are
      fixed). The same resampled task sets are used for every model. With few
      tasks per side the interval is rough and too narrow (see the module notes).
      No p-value is given: the two sides hold different tasks, so there is no
      exchangeability to test under.
    * **Ranks**: ``rank_public`` / ``rank_private`` rank the kept models by their
      mean on each side (1 = best, ties share the best rank, pandas "min");
      ``rank_shift = rank_public - rank_private`` (positive = the model climbs on
      the private tasks).

    Draws from ``rng``: the public-task bootstrap indices, then the private ones.

    Args:
        scores: long table with columns ``model``, ``task``, ``is_public`` (bool),
            ``main_score`` (finite numbers; NaN counts as missing).
        models: restrict to these models (an unknown name raises an error listing
            close names); None keeps all.
        n_resamples: bootstrap resamples.
        confidence_level: confidence level of the intervals, in (0, 1).
        rng: seed or Generator for the resampling.

    Returns:
        DataFrame, one row per kept model, sorted by ``rank_public`` then name, with
        columns ``model``, ``n_public``, ``n_private``, ``mean_public``,
        ``mean_private``, ``gap``, ``gap_ci_low``, ``gap_ci_high``, ``rank_public``,
        ``rank_private``, ``rank_shift``. ``attrs`` holds ``dropped_models``,
        ``public_tasks``, ``private_tasks``, ``n_resamples`` and
        ``confidence_level``.

    Raises:
        ValueError: a required column is missing, a (model, task) pair is repeated,
            a task is both public and private, ``main_score`` holds inf or
            non-numbers, a side has fewer than 2 tasks, or no model is complete; or
            an option is invalid.
        UnknownModelError: a name in ``models`` is not in ``scores``.
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    gen = _check_rng(rng)
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(f"`scores` must be a pandas DataFrame, got {type(scores).__name__}")
    absent = [c for c in _GAP_COLUMNS if c not in scores.columns]
    if absent:
        raise ValueError(f"`scores` lacks the column(s) {absent}; expected {list(_GAP_COLUMNS)}")
    df = scores.loc[:, list(_GAP_COLUMNS)].copy()
    if df["is_public"].isna().any() or not df["is_public"].isin([True, False]).all():
        raise ValueError("`scores` column 'is_public' must hold only True/False")
    df["is_public"] = df["is_public"].astype(bool)
    try:
        df["main_score"] = pd.to_numeric(df["main_score"]).astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError("`scores` column 'main_score' must hold numbers") from exc
    if np.isinf(df["main_score"].to_numpy()).any():
        raise ValueError("`scores` column 'main_score' contains inf")
    dup = df.duplicated(["model", "task"])
    if dup.any():
        pairs = df.loc[dup, ["model", "task"]].head(5).to_records(index=False).tolist()
        raise ValueError(f"`scores` has repeated (model, task) rows, e.g. {pairs}")
    sides = df.groupby("task")["is_public"].nunique()
    if (sides > 1).any():
        raise ValueError(
            f"`scores`: tasks marked both public and private: {sorted(sides.index[sides > 1])}"
        )
    selected = _check_models(models, df["model"].unique(), "models")
    df = df[df["model"].isin(selected)]
    public = sorted(df.loc[df["is_public"], "task"].unique())
    private = sorted(df.loc[~df["is_public"], "task"].unique())
    if len(public) < 2 or len(private) < 2:
        raise ValueError(
            f"`scores` needs at least 2 public and 2 private tasks, got {len(public)} public "
            f"and {len(private)} private"
        )
    wide = df.pivot(index="task", columns="model", values="main_score")
    wide = wide.reindex(index=public + private, columns=selected)
    missing = wide.isna().sum(axis=0)
    dropped = [m for m in selected if missing[m] > 0]
    kept = [m for m in selected if missing[m] == 0]
    if dropped:
        detail = ", ".join(f"{m!r} ({missing[m]} missing)" for m in dropped)
        warnings.warn(
            f"public_private_gap: dropped {len(dropped)} model(s) without a score on every "
            f"one of the {len(public)} public and {len(private)} private tasks: {detail}",
            DroppedModelsWarning,
            stacklevel=2,
        )
    if not kept:
        raise ValueError("`scores`: no model has a score for every public and private task")
    x_pub = wide.loc[public, kept].to_numpy(dtype=float)
    x_priv = wide.loc[private, kept].to_numpy(dtype=float)
    mean_pub, mean_priv = x_pub.mean(axis=0), x_priv.mean(axis=0)
    boot_gap = -_bootstrap_means(x_pub, n_resamples, gen)
    boot_gap += _bootstrap_means(x_priv, n_resamples, gen)
    low, high = _percentile_interval(boot_gap, confidence_level, "two-sided")
    out = pd.DataFrame(
        {
            "model": kept,
            "n_public": len(public),
            "n_private": len(private),
            "mean_public": mean_pub,
            "mean_private": mean_priv,
            "gap": mean_priv - mean_pub,
            "gap_ci_low": low,
            "gap_ci_high": high,
        }
    )
    out["rank_public"] = out["mean_public"].rank(method="min", ascending=False).astype("int64")
    out["rank_private"] = out["mean_private"].rank(method="min", ascending=False).astype("int64")
    out["rank_shift"] = out["rank_public"] - out["rank_private"]
    out = out.sort_values(["rank_public", "model"], kind="stable").reset_index(drop=True)
    out.attrs.update(
        dropped_models=dropped,
        public_tasks=public,
        private_tasks=private,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
    )
    return out
