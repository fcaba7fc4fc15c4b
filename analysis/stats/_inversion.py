"""Sign-flip tests of paired differences and their inversion into intervals.

The sign-flip test of the mean of differences ``x`` (n units) shifted by ``d``
compares ``T(d) = sum(x - d)`` with ``V_s(d) = sum(s * (x - d))`` over sign patterns
``s``. Write ``A`` for the units a pattern flips and ``m_A`` for the mean of ``x`` over
``A``. Then ``V_s(d) = T(d) - 2 * |A| * (m_A - d)``, so

* ``V_s(d) >= T(d)`` exactly when ``m_A <= d`` (the empty set always counts);
* for ``d`` below the mean (``T(d) > 0``), ``|V_s(d)| >= |T(d)|`` exactly when
  ``min(m_A, m_{A^c}) <= d``; above the mean, when ``max(m_A, m_{A^c}) >= d``.

Every p-value ``p(d)`` is therefore a count of subset means on one side of ``d``, a step function,
and the set ``{d : p(d) >= alpha}`` is an interval whose ends are order statistics of subset means
(Hartigan's subset-mean intervals). Computing the p-value at ``d = 0`` and the ends from the *same*
subset means makes "the interval excludes 0" and "p < alpha" the same event, exactly, ties included.
Exact: all ``2**n - 1`` nonempty subsets (built by doubling, chunked over pairs). Monte-Carlo: the
subsets a fixed set of random patterns flips, with the ``(b + 1) / (B + 1)`` p-value.

A small tolerance ``tol`` (per pair, in units of the differences) makes values within float rounding
count as "as extreme"; the ends are widened by the same ``tol``, so the equivalence holds with it.

**Clusters.** When the units flipped are clusters of tasks (one sign per cluster), ``D``
holds each cluster's *sum* of task differences and ``sizes`` its number of tasks. The
same algebra holds with ``m_A`` the mean over the *tasks* of the flipped clusters (sum
of their sums over the sum of their sizes), and the statistic is the mean over tasks.
"""

from __future__ import annotations

import math

import numpy as np

from ._resampling import _BLOCK, _rows_per_block

_INF = np.inf


def _subset_means(D: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Means over every nonempty subset of units: (pairs, 2**n - 1)."""
    n, k = D.shape
    sums, sizes = np.empty((k, 2**n)), np.empty(2**n)
    sums[:, 0] = sizes[0] = 0.0
    for i in range(n):
        w = 1 << i
        np.add(sums[:, :w], D[i][:, None], out=sums[:, w : 2 * w])
        np.add(sizes[:w], weights[i], out=sizes[w : 2 * w])
    out = sums[:, 1:]
    out /= sizes[1:]
    return out


def _kth(values: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Row-wise k-th smallest (or largest) value, k >= 1 (partitions in place)."""
    idx = values.shape[1] - k if largest else k - 1
    values.partition(idx, axis=1)
    return values[:, idx].copy()


def _ends(
    lower: np.ndarray, upper: np.ndarray, rank: int, alternative: str, t: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Interval ends: the rank-th smallest of each row of ``lower``, largest of ``upper``."""
    lo, hi = np.full(len(t), -_INF), np.full(len(t), _INF)
    if rank >= 1 and alternative != "less":
        lo = _kth(np.ascontiguousarray(lower), rank, largest=False) - t
    if rank >= 1 and alternative != "greater":
        hi = _kth(np.ascontiguousarray(upper), rank, largest=True) + t
    return lo, hi


def _weights(n: int, sizes: np.ndarray | None) -> np.ndarray:
    return np.ones(n) if sizes is None else np.asarray(sizes, dtype=float)


def exact_inversion(
    D: np.ndarray,
    tol: np.ndarray,
    alpha: float,
    alternative: str,
    *,
    interval: bool = True,
    sizes: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact sign-flip p-values of ``mean(D[:, j]) = 0`` and the inverted intervals.

    Args:
        D: differences, units x pairs (n <= 20); with ``sizes``, each unit's sum of task
            differences.
        tol: per-pair tolerance (units of the task differences).
        alpha: level of the test inverted (the interval is {d : p(d) >= alpha}).
        alternative: "two-sided", "greater" or "less".
        interval: compute the ends (else they are NaN).
        sizes: tasks per unit (None: one task each).

    Returns:
        (pvalue, low, high), one entry per pair.
    """
    n, k = D.shape
    total, weights = 2**n, _weights(n, sizes)
    pvalue, low, high = np.empty(k), np.full(k, np.nan), np.full(k, np.nan)
    mean = D.sum(axis=0) / weights.sum()
    rank = math.ceil(alpha * (total // 2 if alternative == "two-sided" else total)) - 1
    step = _rows_per_block(total, k, _BLOCK)
    for s in range(0, k, step):
        sl = slice(s, min(s + step, k))
        means = _subset_means(D[:, sl], weights)
        t = tol[sl][:, None]
        below = (means <= t).sum(axis=1)  # nonempty subsets with m_A <= 0 (+tol)
        above = (means >= -t).sum(axis=1)
        if alternative == "greater":
            pvalue[sl] = (1.0 + below) / total
        elif alternative == "less":
            pvalue[sl] = (1.0 + above) / total
        else:
            m, tt = mean[sl], tol[sl]
            p = np.where(m > tt, 2.0 * (1.0 + below) / total, 1.0)
            p = np.where(m < -tt, 2.0 * (1.0 + above) / total, p)
            pvalue[sl] = np.minimum(p, 1.0)
        if interval:
            low[sl], high[sl] = _ends(means, means, rank, alternative, tol[sl])
    return pvalue, low, high


def mc_inversion(
    D: np.ndarray,
    bits: np.ndarray,
    tol: np.ndarray,
    alpha: float,
    alternative: str,
    *,
    interval: bool = True,
    sizes: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Monte-Carlo version of :func:`exact_inversion` over fixed random patterns ``bits``.

    p(d) = (1 + #{patterns as extreme at d}) / (B + 1); the interval is {d : p(d) >= alpha},
    with ends at order statistics of the flipped sets' means (see the module notes).
    """
    n, k = D.shape
    B, weights = bits.shape[0], _weights(n, sizes)
    n_tasks = weights.sum()
    size = (bits @ weights)[:, None]
    rank = math.ceil(alpha * (B + 1)) - 1
    total = D.sum(axis=0)
    mean = total / n_tasks
    pvalue, low, high = np.empty(k), np.full(k, np.nan), np.full(k, np.nan)
    step = _rows_per_block(B, k, _BLOCK // 4)
    for s in range(0, k, step):
        sl = slice(s, min(s + step, k))
        flipped = bits @ D[:, sl]  # (B, rows): sums over the flipped set A
        with np.errstate(invalid="ignore", divide="ignore"):
            m_a, m_c = flipped / size, (total[sl] - flipped) / (n_tasks - size)
        empty_a, empty_c = size == 0, size == n_tasks
        t = tol[sl]
        lower_side, upper_side = np.where(empty_a, -_INF, m_a), np.where(empty_a, _INF, m_a)
        if alternative == "greater":
            count = (lower_side <= t).sum(axis=0)
        elif alternative == "less":
            count = (upper_side >= -t).sum(axis=0)
        else:
            lower_side = np.minimum(lower_side, np.where(empty_c, -_INF, m_c))
            upper_side = np.maximum(upper_side, np.where(empty_c, _INF, m_c))
            m = mean[sl]
            count = np.where(
                m > t,
                (lower_side <= t).sum(axis=0),
                np.where(m < -t, (upper_side >= -t).sum(axis=0), B),
            )
        pvalue[sl] = np.minimum((1.0 + count) / (B + 1.0), 1.0)
        if interval:
            low[sl], high[sl] = _ends(lower_side.T, upper_side.T, rank, alternative, t)
    return pvalue, low, high
