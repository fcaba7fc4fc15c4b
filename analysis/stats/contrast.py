"""Contrast of two groups of models (e.g. static vs transformer) by a permutation test."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import RngLike, _as_vector, _check_n_resamples, _check_open_unit, _check_rng
from ._resampling import _REL_TOL
from ._results import ConfidenceInterval

_MAX_EXACT_ARRANGEMENTS = 200_000
_MIN_GROUP_FOR_INTERVAL = 3
_CANDIDATE_BLOCK = 256


@dataclass(frozen=True)
class GroupContrastResult:
    """Result of :func:`group_contrast`.

    Attributes:
        statistic: mean of group a minus mean of group b.
        pvalue: two-sided permutation p-value (group labels reassigned).
        confidence_interval: the shifts of group a that the test does not reject at
            ``1 - confidence_level`` (NaN, NaN when a group has fewer than 3 members).
        n_a: members of group a.
        n_b: members of group b.
        method: what was done (exact or Monte-Carlo, how many arrangements).
        exact: whether all arrangements were enumerated.
        n_arrangements: arrangements used (all, or the random ones).
        min_pvalue: smallest p-value this test can return.
        note: why there is no interval, or "".
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    n_a: int
    n_b: int
    method: str
    exact: bool
    n_arrangements: int
    min_pvalue: float
    note: str


def _arrangements(
    n_a: int, n_b: int, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, bool]:
    """Boolean masks (arrangements x pooled): True = in group a. Pooled order: a, then b."""
    n = n_a + n_b
    if math.comb(n, n_a) <= min(n_resamples, _MAX_EXACT_ARRANGEMENTS):
        idx = np.array(list(itertools.combinations(range(n), n_a)), dtype=np.intp)
        masks = np.zeros((len(idx), n), dtype=bool)
        np.put_along_axis(masks, idx, True, axis=1)
        return masks, True
    perms = rng.permuted(np.broadcast_to(np.arange(n), (n_resamples, n)), axis=1)
    masks = np.zeros((n_resamples, n), dtype=bool)
    np.put_along_axis(masks, perms[:, :n_a], True, axis=1)
    return masks, False


def _count_extreme(
    t: np.ndarray, c: np.ndarray, observed: float, deltas: np.ndarray, tol: float
) -> np.ndarray:
    """Per shift delta: arrangements with |t - c * delta| >= |observed - delta| - tol."""
    lhs = np.abs(t[None, :] - c[None, :] * deltas[:, None])
    return (lhs >= np.abs(observed - deltas)[:, None] - tol).sum(axis=1)


def group_contrast(
    values: Any,
    groups: Any,
    *,
    group_a: Any,
    group_b: Any,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> GroupContrastResult:
    """Difference of two group means with a permutation test over group labels.

    ``values[i]`` is a number per model (e.g. its relative public-private gap) and
    ``groups[i]`` its group label; models in other groups are ignored.

    * **Null hypothesis**: the labels a and b are exchangeable among the pooled
      models (the two groups' values come from the same distribution). The p-value
      is the fraction of label arrangements (which ``n_a`` of the pooled models form
      group a) whose |mean_a - mean_b| is at least the observed one. All
      ``C(n_a + n_b, n_a)`` arrangements are enumerated when there are at most
      ``min(n_resamples, 200000)`` (exact test), otherwise ``n_resamples`` random
      ones with the ``(b+1)/(n_resamples+1)`` convention. Ties count as extreme.
    * **Interval**: by inversion: the shifts d for which the same test, applied
      after subtracting d from group a, does not reject at ``1 - confidence_level``
      (the location-shift model: group a = group b + d). The p-value of each shift is
      a count of arrangements whose statistic is linear in d, so the interval's ends
      are among the points where an arrangement's status changes; they are found
      exactly among those points (by bisection, checked against the p-value at 0;
      where acceptance is not monotone, the convex hull of the accepted shifts by a
      full scan). So the interval excludes 0 exactly when p < alpha, except in a
      non-monotone case, where the hull may contain 0 with p < alpha (never
      observed in the simulations of ``benchmarks/README_stats.md``).
    * **Groups under 3 members get no interval** (NaN, with ``note`` saying why): a
      group of 1 or 2 models carries almost no information about its spread, and a
      location-shift interval from it is driven by one or two values. The p-value
      is still reported (with its ``min_pvalue``: ``2/C(n, n_a)``-ish, e.g. 1/45 at
      2 vs 8).
    * **Unit**: the model. Models are assumed independent (models from one family
      are not; read the result as descriptive then).

    Draws from ``rng``: the random arrangements (Monte-Carlo only).

    Args:
        values: one number per model (1-D, finite).
        groups: one label per model, same length.
        group_a: label of the first group.
        group_b: label of the second group.
        n_resamples: random arrangements when not exact.
        confidence_level: level of the interval, in (0, 1).
        rng: seed or Generator.

    Returns:
        GroupContrastResult.

    Raises:
        ValueError: lengths differ, a value in the two groups is NaN or inf, a group
            is empty, or an option is invalid. The message names the argument.
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    gen = _check_rng(rng)
    vals = _as_vector(values, "values")
    labels = np.asarray(list(groups), dtype=object)
    if labels.shape != vals.shape:
        raise ValueError(
            f"`values` and `groups` must have the same length, got {len(vals)} and {len(labels)}"
        )
    in_a, in_b = labels == group_a, labels == group_b
    for name, label, mask in (("group_a", group_a, in_a), ("group_b", group_b, in_b)):
        if not mask.any():
            raise ValueError(f"`{name}`: no model has the label {label!r} in `groups`")
        if not np.isfinite(vals[mask]).all():
            raise ValueError(f"`values` has NaN or inf in group {label!r}")
    a, b = vals[in_a], vals[in_b]
    n_a, n_b = len(a), len(b)
    observed = float(a.mean() - b.mean())
    pooled = np.concatenate([a, b])
    masks, exact = _arrangements(n_a, n_b, n_resamples, gen)
    w = np.where(masks, 1.0 / n_a, -1.0 / n_b)
    t = w @ pooled
    k = masks[:, :n_a].sum(axis=1)
    c = k / n_a - (n_a - k) / n_b  # slope: t_pi(d) = t_pi - c_pi * d
    total, add = (len(t), 0) if exact else (len(t) + 1, 1)
    tol = _REL_TOL * float(np.mean(np.abs(pooled)) + 1e-300)
    pvalue = float(min(1.0, (_count_extreme(t, c, observed, np.zeros(1), tol)[0] + add) / total))
    if exact:
        method = f"exact permutation test over group labels ({total} arrangements)"
        min_p = (2.0 if n_a == n_b else 1.0) / total
    else:
        method = f"Monte-Carlo permutation test over group labels ({n_resamples} arrangements)"
        min_p = 1.0 / total
    note = ""
    ci = ConfidenceInterval(math.nan, math.nan)
    if min(n_a, n_b) < _MIN_GROUP_FOR_INTERVAL:
        note = (
            f"No interval: a group has {min(n_a, n_b)} member(s); with fewer than "
            f"{_MIN_GROUP_FOR_INTERVAL} models a group's spread is unknown and an interval "
            "would rest on one or two values."
        )
    else:
        ci = _invert(t, c, observed, 1.0 - confidence_level, total, add, tol)
        method += "; interval by inverting it (shift of group a)"
    return GroupContrastResult(
        statistic=observed,
        pvalue=pvalue,
        confidence_interval=ci,
        n_a=n_a,
        n_b=n_b,
        method=method,
        exact=exact,
        n_arrangements=len(t),
        min_pvalue=min_p,
        note=note,
    )


def _invert(
    t: np.ndarray, c: np.ndarray, observed: float, alpha: float, total: int, add: int, tol: float
) -> ConfidenceInterval:
    """Hull of {d : p(d) >= alpha}; candidates are the shifts where |t - c d| = |T - d|."""
    with np.errstate(invalid="ignore", divide="ignore"):
        roots = np.concatenate([(t - observed) / (c - 1.0), (t + observed) / (c + 1.0)])
    roots = np.unique(roots[np.isfinite(roots)])
    mids = (roots[1:] + roots[:-1]) / 2.0
    cands = np.sort(np.concatenate([roots, mids, [observed, 0.0]]))

    def accepted(block: np.ndarray) -> np.ndarray:
        return (_count_extreme(t, c, observed, block, tol) + add) / total >= alpha

    def first(order: np.ndarray) -> float:
        """The first accepted candidate of ``order`` (a full scan, in blocks)."""
        for s in range(0, len(order), _CANDIDATE_BLOCK):
            block = order[s : s + _CANDIDATE_BLOCK]
            ok = np.flatnonzero(accepted(block))
            if ok.size:
                return float(block[ok[0]])
        return math.nan

    def boundary(order: np.ndarray) -> float:
        """First accepted candidate by bisection (acceptance assumed monotone).

        ``order`` runs from far out towards the estimate, whose p-value is 1.
        """
        lo, hi = 0, len(order) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if accepted(order[mid : mid + 1])[0]:
                hi = mid
            else:
                lo = mid + 1
        return float(order[lo])

    left, right = cands[cands <= observed], cands[cands >= observed][::-1]
    low, high = boundary(left), boundary(right)
    zero_ok = bool(accepted(np.zeros(1))[0])
    if zero_ok != (low <= 0.0 <= high):  # acceptance is not monotone here: scan all
        low, high = first(cands), first(cands[::-1])
    # Beyond every root the status of each arrangement no longer changes: if the
    # outermost region is accepted, the interval is unbounded on that side.
    far = np.array([cands[0] - 1.0 - abs(cands[0]), cands[-1] + 1.0 + abs(cands[-1])])
    far_ok = accepted(far)
    return ConfidenceInterval(-math.inf if far_ok[0] else low, math.inf if far_ok[1] else high)
