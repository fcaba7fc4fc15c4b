"""The one Westfall-Young max-T kernel, shared by pairwise_significance and rank_intervals.

For a pair (a, b) of columns of ``U`` (units x models) the unit differences are
``d = U[:, a] - U[:, b]`` over G units: tasks, or clusters of tasks (then a unit's value
is the *sum* over its tasks and ``sizes`` holds its number of tasks). The statistic is

    r = (sum d)**2 / (G * sum d**2)   in [0, 1],

a monotone function of the paired |t| (``t**2 = (G - 1) r / (1 - r)``). Under a sign
pattern s it is ``(s . d)**2 / (G * sum d**2)``, so one product of the patterns with the
model columns serves every pair. Two nulls: uncentred (the exact permutation null of
"no pair differs") and centred at each pair's task mean (what simultaneous intervals
need, since pairs that truly differ would shrink the first null's tail). Per pattern and
family the kernel keeps the largest statistic (single step) and, for the step-down, the
running maxima over the pairs in decreasing order of their observed statistic.

**Tolerance.** A pair whose root-mean-square deviation over its tasks is at most 1e-9 of
its scale (the two models' mean absolute task value) counts as constant (centred) or
zero (uncentred): its statistic is 0 under every pattern. "At least as extreme" is
``r_s >= r * (1 - 1e-9) - 1e-9``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._resampling import _BLOCK, _REL_TOL, SignPatterns

TOL = 1e-9  # "as extreme": r_s >= r * (1 - TOL) - TOL


@dataclass(frozen=True)
class MaxT:
    """What :func:`maxt` computed for a batch of data sets (reps) and families of pairs.

    Attributes:
        observed: (reps, F, m) observed statistics r.
        stepdown: (reps, F, m) Westfall-Young step-down adjusted p-values, or None.
        null_max: (reps, F, patterns) largest uncentred r per pattern, or None.
        null_max_centred: the same for the centred null, or None.
        patterns: the sign patterns used.
    """

    observed: np.ndarray
    stepdown: np.ndarray | None
    null_max: np.ndarray | None
    null_max_centred: np.ndarray | None
    patterns: SignPatterns


def _inverse_norms(d: np.ndarray, scale: np.ndarray, n_units: int, size_sq: float) -> np.ndarray:
    """1 / (G * sum d**2) per pair, 0 where the RMS over tasks is within rounding of 0."""
    q = np.einsum("rgp,rgp->rp", d, d)
    zero = q <= (_REL_TOL * scale) ** 2 * size_sq
    return np.divide(1.0, n_units * q, out=np.zeros_like(q), where=~zero)


def maxt(
    U: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    patterns: SignPatterns,
    *,
    sizes: np.ndarray | None = None,
    step_down: bool = False,
    keep_null: bool = False,
    centred: bool = False,
) -> MaxT:
    """Max-T statistics of all pairs under shared sign patterns (see the module notes).

    Args:
        U: (reps, G, K) per-unit values of K models in ``reps`` data sets.
        ia: (F, m) first model of each pair, per family.
        ib: (F, m) second model.
        patterns: the sign patterns (over the G units).
        sizes: (G,) tasks per unit; None: one task each.
        step_down: compute the Westfall-Young step-down adjusted p-values.
        keep_null: keep the per-pattern maxima (single-step null distribution).
        centred: also keep the centred null's per-pattern maxima.
    """
    reps, g, _ = U.shape
    w = np.ones(g) if sizes is None else np.asarray(sizes, dtype=float)
    n_fam, m = ia.shape
    ia_flat, ib_flat = ia.ravel(), ib.ravel()
    U = U - U.mean(axis=2, keepdims=True)  # unit effects cancel in differences
    scale_models = np.abs(U).sum(axis=1) / w.sum()  # (reps, K): mean |value| per task
    scale = scale_models[:, ia_flat] + scale_models[:, ib_flat]  # (reps, F*m)
    size_sq = float((w**2).sum())
    d = U[:, :, ia_flat] - U[:, :, ib_flat]  # (reps, G, F*m)
    inv = _inverse_norms(d, scale, g, size_sq)
    observed = d.sum(axis=1) ** 2 * inv  # (reps, F*m)
    mean = d.sum(axis=1) / w.sum()  # task mean per pair
    inv_c = (
        _inverse_norms(d - w[None, :, None] * mean[:, None, :], scale, g, size_sq)
        if centred
        else inv
    )
    order = np.argsort(-observed.reshape(reps, n_fam, m), axis=2, kind="stable")
    if step_down:
        sorted_obs = np.take_along_axis(observed.reshape(reps, n_fam, m), order, axis=2)
        threshold = sorted_obs * (1.0 - TOL) - TOL
        flat_order = (order + (np.arange(n_fam) * m)[None, :, None]).reshape(reps, 1, -1)
        count = np.zeros((reps, n_fam, m), dtype=np.int64)
    total = patterns.total
    null = np.empty((reps, n_fam, total)) if keep_null else None
    null_c = np.empty((reps, n_fam, total)) if keep_null and centred else None
    start = 0
    for signs in patterns.blocks(max(1, _BLOCK // max(reps * n_fam * m, 1))):
        b, sums = signs.shape[0], np.matmul(signs, U)  # sums: (reps, b, K)
        diff = sums[:, :, ia_flat] - sums[:, :, ib_flat]  # (reps, b, F*m)
        if null_c is not None:
            shift = (signs @ w)[None, :, None] * mean[:, None, :]
            stat_c = (diff - shift) ** 2 * inv_c[:, None, :]
            null_c[:, :, start : start + b] = (
                stat_c.reshape(reps, b, n_fam, m).max(axis=3).transpose(0, 2, 1)
            )
        diff *= diff
        diff *= inv[:, None, :]
        if null is not None:
            null[:, :, start : start + b] = (
                diff.reshape(reps, b, n_fam, m).max(axis=3).transpose(0, 2, 1)
            )
        if step_down:
            stat = np.take_along_axis(diff, flat_order, axis=2).reshape(reps, b, n_fam, m)
            tail_max = np.maximum.accumulate(stat[..., ::-1], axis=3)[..., ::-1]
            count += (tail_max >= threshold[:, None]).sum(axis=1)
        start += b
    stepdown = None
    if step_down:
        adjusted = np.minimum(np.maximum.accumulate(patterns.pvalue(count), axis=2), 1.0)
        stepdown = np.empty_like(adjusted)
        np.put_along_axis(stepdown, order, adjusted, axis=2)
    return MaxT(
        observed=observed.reshape(reps, n_fam, m),
        stepdown=stepdown,
        null_max=null,
        null_max_centred=null_c,
        patterns=patterns,
    )


def step_down(null: np.ndarray, observed: np.ndarray, patterns: SignPatterns) -> np.ndarray:
    """Westfall-Young step-down adjusted p-values: ``null`` (patterns, m), ``observed`` (m,).

    The i-th largest observed meets the per-pattern maximum over itself and the smaller
    ones; the p-values are then made monotone in that order. A NaN observed counts as 0.
    """
    observed = np.nan_to_num(observed, nan=0.0)
    order = np.argsort(-observed, kind="stable")
    tail_max = np.maximum.accumulate(null[:, order[::-1]], axis=1)[:, ::-1]
    count = (tail_max >= observed[order] * (1.0 - TOL) - TOL).sum(axis=0)
    adjusted = np.empty(len(observed))
    adjusted[order] = np.maximum.accumulate(patterns.pvalue(count))
    return adjusted


def single_step(
    null: np.ndarray, observed: np.ndarray, patterns: SignPatterns, alpha: float
) -> tuple[np.ndarray, float]:
    """Single-step adjusted p-values and the critical statistic from one null's maxima.

    ``null`` (patterns,) per-pattern maxima of one family, ``observed`` (m,); a NaN counts
    as 0. A pair is rejected (p < alpha) exactly when its r exceeds the returned critical
    value (inf when no pattern count allows a rejection).
    """
    ordered, total = np.sort(null), len(null)
    threshold = np.nan_to_num(observed, nan=0.0) * (1.0 - TOL) - TOL
    pvalue = patterns.pvalue(total - np.searchsorted(ordered, threshold, side="left"))
    rank = (
        int(np.ceil(alpha * total - 1e-12))
        if patterns.exact
        else int(np.ceil(alpha * (total + 1) - 1e-12)) - 1
    )
    if not 1 <= rank <= total:
        return pvalue, np.inf
    return pvalue, (float(ordered[total - rank]) + TOL) / (1.0 - TOL)
