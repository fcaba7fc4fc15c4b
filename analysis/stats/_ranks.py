"""Rank kernels: Spearman/Kendall statistics of many rows and their permutation tests."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np
from scipy.stats import rankdata

from ._resampling import _count_as_extreme, _pvalue, _rows_per_block

_RANK_BLOCK = 1 << 18  # elements of one block of rank rows (Kendall's O(n^2) loops)
_MAX_EXACT_PERMUTATION_N = 10  # 10! = 3,628,800 orderings at most


def _centered_ranks2(values: np.ndarray) -> np.ndarray:
    """Twice the centred average ranks per row: integers, so sums are exact in float64."""
    return 2.0 * rankdata(values, axis=1) - (values.shape[1] + 1.0)


def _dense_ranks(values: np.ndarray) -> np.ndarray:
    """Dense integer ranks (1, 2, ...; ties share one) along the last axis."""
    return rankdata(values, method="dense", axis=-1).astype(np.int64)


def _tied_pairs(sorted_values: np.ndarray) -> np.ndarray:
    """Tied pairs along the last axis of a sorted array: the sum of C(run length, 2)."""
    new_run = np.ones(sorted_values.shape, dtype=bool)
    new_run[..., 1:] = sorted_values[..., 1:] != sorted_values[..., :-1]
    position = np.arange(sorted_values.shape[-1])
    run_start = np.maximum.accumulate(np.where(new_run, position, 0), axis=-1)
    return (position - run_start).sum(axis=-1)


def _inversions(seq: np.ndarray) -> np.ndarray:
    """Pairs i < j with seq[i] > seq[j] along the last axis (ties are not inversions)."""
    n = seq.shape[-1]
    small = n < 2**15
    seq = seq.astype(np.int16 if small else np.int32, copy=False)
    acc = np.zeros((*seq.shape[:-1], max(n - 1, 1)), dtype=np.int16 if small else np.int32)
    for d in range(1, n):
        acc[..., : n - d] += seq[..., :-d] > seq[..., d:]
    return acc.sum(axis=-1, dtype=np.int64)


def _kendall_varying(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """The part of Kendall's C - D that changes when y is permuted: n3 - 2 * D."""
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
    """Spearman's rho or Kendall's tau-b of each row pair of x, y (rows x n)."""
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
        yield rng.permuted(np.broadcast_to(base, (min(rows, n_resamples - start), n)), axis=1)


def _rank_permutation_test(
    x: np.ndarray, y: np.ndarray, method: str, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """Two-sided permutation test of rank correlation for each row pair (rows x n)."""
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
            count += _count_as_extreme(null[..., 0], observed, 0.5)
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
            count += _count_as_extreme(null, observed, 0.5)
    return statistic, _pvalue(count, total, exact), exact, total
