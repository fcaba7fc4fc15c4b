"""Resampling kernels: bootstrap indices and means, sign patterns, counts, quantiles.

Vectorised in numpy; memory is bounded by working in blocks. No argument checks here:
the public functions check first.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

_BLOCK = 1 << 22  # elements of one temporary block (32 MiB of float64)
_PAIR_BLOCK = 1 << 19  # elements of one (pairs x resamples) block: stays in cache
_REL_TOL = 1e-9  # relative tolerance for "as extreme as observed" (float rounding)
_MAX_EXACT_SIGN_FLIP_N = 20  # 2**20 sign patterns at most
_PARALLEL_MIN_WORK = 1 << 23  # elements of pair work before threads pay off
_N_WORKERS = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


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
