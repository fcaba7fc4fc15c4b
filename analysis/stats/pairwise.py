"""All pairs of models: sign-flip tests on one plan, max-T/Holm/BH, matching intervals."""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd

from ._checks import (
    RngLike,
    _as_vector,
    _check_choice,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    complete_score_matrix,
)
from ._inversion import exact_inversion, mc_inversion, random_sign_bits
from ._resampling import _MAX_EXACT_SIGN_FLIP_N, _REL_TOL, _sign_patterns
from .paired import _sign_flip_min_pvalue, _ttest_and_dz

_CORRECTIONS = ("holm", "bonferroni", "bh", "none")
_ADJUSTMENTS = ("maxT", "holm", "bonferroni", "bh", "none")
_EXACT_WORK = 1 << 27  # pairs * 2**n: above this the pairwise tests are Monte-Carlo
_PATTERN_BLOCK = 1 << 12  # sign patterns per block of the max-T null


def adjust_pvalues(
    pvalues: Any, *, method: Literal["holm", "bonferroni", "bh", "none"] = "holm"
) -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    * ``"holm"``: Holm's step-down (family-wise error rate, any dependence): sort
      ascending, multiply the i-th smallest (i = 1..m) by ``m - i + 1``, running
      maximum, cap at 1. Uniformly more powerful than Bonferroni.
    * ``"bonferroni"``: ``min(1, m * p)``.
    * ``"bh"``: Benjamini-Hochberg step-up (false discovery rate, for screening;
      valid under independence or positive dependence): ``m * p_(i) / i``, running
      minimum from the largest, cap at 1 (as ``statsmodels`` ``fdr_bh``).
    * ``"none"``: unchanged.

    Args:
        pvalues: p-values (1-D, in [0, 1]).
        method: ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``.

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
    if method == "holm":
        stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    else:
        stepped = np.minimum.accumulate((m * p[order] / np.arange(1, m + 1))[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def _maxt_null(
    X: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    inv_norm: np.ndarray,
    signs: np.ndarray,
    centre: np.ndarray | None = None,
) -> np.ndarray:
    """Max over pairs of |s . (d - centre)| * inv_norm per sign pattern s (row of signs).

    ``d = X[:, a] - X[:, b]``; ``s . (d - c) = s . X[:, a] - s . X[:, b] - c * sum(s)``, so
    one product of the patterns with the model columns serves every pair.
    """
    pattern_sums = signs @ X  # (patterns, models)
    total = signs.sum(axis=1)[:, None]
    out = np.zeros(signs.shape[0])
    for a in np.unique(ia):
        sel = np.flatnonzero(ia == a)
        diff = pattern_sums[:, [a]] - pattern_sums[:, ib[sel]]
        if centre is not None:
            diff -= total * centre[sel]
        np.abs(diff, out=diff)
        diff *= inv_norm[sel]
        np.maximum(out, diff.max(axis=1), out=out)
    return out


def _maxt(
    X: np.ndarray,
    D: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    *,
    exact: bool,
    bits: np.ndarray | None,
    alpha: float,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Single-step Westfall-Young max-T: adjusted p-values, standardized statistics, critical value.

    Statistic of a pair: rho = |sum(s * d)| / (sqrt(n) * ||d||) in [0, 1], a monotone
    function of the paired |t| under sign flips. Null: the largest rho over all pairs
    under the same sign pattern applied to every pair (all 2**n patterns, or ``bits``).
    Two such nulls: of the differences themselves (the exact permutation null of "no
    pair differs") and of the differences centred at their means (what the null looks
    like at the estimated shifts, which the intervals need: pairs that truly differ
    would otherwise shrink the first null's tail). The adjusted p-value is the larger
    of the two and the critical value the larger of the two quantiles, so the test is
    never less conservative than the exact one, and rejecting (p < alpha) is rho > c.
    """
    n = X.shape[0]
    m = D.mean(axis=0)

    def inverse(norm: np.ndarray) -> np.ndarray:
        return np.where(norm > 0, 1.0 / np.where(norm > 0, norm, 1.0), 0.0) / math.sqrt(n)

    inv_norm = inverse(np.sqrt((D**2).sum(axis=0)))
    inv_norm_centred = inverse(np.sqrt(((D - m) ** 2).sum(axis=0)))
    rho = np.abs(D.sum(axis=0)) * inv_norm
    if exact:  # s and -s give the same maximum: half of the patterns suffice
        half = 2 ** (n - 1)
        blocks = [
            _sign_patterns(n, s, min(s + _PATTERN_BLOCK, half))
            for s in range(0, half, _PATTERN_BLOCK)
        ]
        rank = math.ceil(alpha * half)
        denom, add = float(half), 0.0
    else:
        assert bits is not None
        signs = 1.0 - 2.0 * bits
        blocks = [signs[s : s + _PATTERN_BLOCK] for s in range(0, len(signs), _PATTERN_BLOCK)]
        rank = math.ceil(alpha * (len(signs) + 1)) - 1
        denom, add = len(signs) + 1.0, 1.0
    tol = _REL_TOL
    pvalue, crit = np.zeros(len(rho)), -math.inf
    for centre, inv in ((None, inv_norm), (m, inv_norm_centred)):
        null = np.concatenate([_maxt_null(X, ia, ib, inv, b, centre) for b in blocks])
        null.sort()
        count = len(null) - np.searchsorted(null, rho - tol, side="left")  # null >= rho - tol
        pvalue = np.maximum(pvalue, np.minimum((count + add) / denom, 1.0))
        c = float(null[len(null) - rank]) + tol if 1 <= rank <= len(null) else math.inf
        crit = max(crit, c)
    return pvalue, rho, crit


def _maxt_intervals(D: np.ndarray, crit: float) -> tuple[np.ndarray, np.ndarray]:
    """{delta : rho(d - delta) <= crit}: mean +- crit * sqrt(v / (1 - crit^2)), v = mean sq. dev."""
    m = D.mean(axis=0)
    if crit >= 1.0:
        inf = np.full(len(m), math.inf)
        return -inf, inf
    v = ((D - m) ** 2).mean(axis=0)
    half = crit * np.sqrt(v / (1.0 - crit**2))
    return m - half, m + half


def _interval_level(adjustment: str, alpha: float, adjusted: np.ndarray) -> float:
    """The per-pair level whose inverted intervals agree with the adjustment's decisions."""
    k = len(adjusted)
    rejected = int((adjusted < alpha).sum())
    if adjustment == "none":
        return alpha
    if adjustment == "bonferroni":
        return alpha / k
    if adjustment == "holm":
        return alpha / (k - rejected) if rejected < k else alpha
    return rejected * alpha / k if rejected else alpha / k  # bh: FCR-adjusted (BY 2005)


_INTERVAL_DOC = {
    "maxT": "simultaneous: inverts the single-step max-T critical value (t-type, all pairs)",
    "bonferroni": "simultaneous: each pair's sign-flip test inverted at alpha/m",
    "holm": "Holm-compatible: each pair's test inverted at alpha/(m-R), R = Holm rejections",
    "bh": "FCR-adjusted (Benjamini-Yekutieli): each pair's test inverted at R*alpha/m",
    "none": "unadjusted: each pair's sign-flip test inverted at alpha",
}


def pairwise_significance(
    scores: pd.DataFrame,
    *,
    adjustment: Literal["maxT", "holm", "bonferroni", "bh", "none"] = "maxT",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    rng: RngLike = None,
) -> pd.DataFrame:
    """Paired sign-flip tests for every pair of models, with intervals matching the adjustment.

    For each unordered pair (a, b) of columns (a before b in column order) the unit
    differences ``d = a - b`` are tested as in :func:`paired_bootstrap` (null: every
    difference symmetric about 0; p-value exact over the 2**n sign patterns when
    ``n_pairs * 2**n <= 2**27`` and n <= 20, else Monte-Carlo over ``n_resamples``
    patterns shared by all pairs). Every column of the table tells the same story:
    ``significant`` is ``pvalue_adjusted < alpha`` and the interval ``[ci_low,
    ci_high]`` excludes 0 exactly when ``significant`` (tested on simulated data).

    Adjustments (all reported; ``adjustment`` picks ``pvalue_adjusted``, the
    decision and the interval):

    * ``"maxT"`` (default): single-step Westfall-Young max-T. The statistic of a pair
      is its paired |t| (through the equivalent ``rho = |sum d| / (sqrt(n) ||d||)``);
      the null distribution is the largest statistic over *all* pairs under one sign
      pattern applied to every pair at once, so it uses the correlation between pairs
      (no Bonferroni-type loss). Joint null: each unit's vector of pairwise
      differences is symmetric about 0 (e.g. model scores in a unit = unit effect +
      symmetric noise); under it the test is exact (13 tasks: size 204/4096 =
      0.0498). The intervals ``mean +- c * sqrt(v / (1 - c^2))`` (v the mean squared
      deviation, c the critical rho) invert the critical value. So that they also
      cover when pairs truly differ, c is the larger of two quantiles: of that exact
      null and of the same null for the differences centred at their means (the
      adjusted p-value is likewise the larger of the two; never less conservative
      than the exact test). Measured with 10 models x 13 tasks
      (``benchmarks/README_stats.md``): family-wise error under the global null and
      the share of data sets with any interval excluding 0 at most alpha within
      Monte-Carlo error; joint coverage of all 45 intervals about 0.94 when the
      models differ (measured, not guaranteed).
    * ``"holm"``: Holm's step-down on the per-pair p-values (any dependence). Interval:
      each pair's test inverted at ``alpha / (m - R)`` (R = Holm rejections), which
      agrees with Holm's decisions; for guaranteed joint coverage use "maxT" or
      "bonferroni" (inverted at ``alpha / m``).
    * ``"bh"``: Benjamini-Hochberg false discovery rate, for screening. Interval:
      false-coverage-rate adjusted (inverted at ``R * alpha / m``), agreeing with BH.
    * ``"none"``: no adjustment; intervals at ``alpha``.

    Other columns: ``d_z`` (Cohen's d_z), ``ttest_pvalue`` (paired t, reference),
    ``wins``/``ties``/``losses`` (units where a > b, a == b, a < b).

    The smallest attainable p-value (``attrs["min_pvalue"]``) is ``2/2**n`` exact or
    ``1/(n_resamples+1)``; Holm/Bonferroni multiply it by the number of pairs m, so
    with 13 tasks and 80 models (3,160 pairs) nothing can pass Holm (a warning says
    so), whereas max-T is not multiplied. Cost: 80 models x 13 tasks (exact, 8,192
    patterns) in well under 2 s on 2 cores (``benchmarks/bench_pairwise.py``).

    Args:
        scores: one row per unit (task or query), one column per model. A model
            with missing values is dropped with a :class:`DroppedModelsWarning`
            naming it and its missing units (rows).
        adjustment: ``"maxT"``, ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``.
        alpha: level of the decisions; intervals have level ``1 - alpha``.
        n_resamples: Monte-Carlo sign patterns when not exact.
        rng: seed or Generator (draws the Monte-Carlo patterns only).

    Returns:
        DataFrame with one row per pair: ``model_a``, ``model_b``, ``n``,
        ``difference`` (mean of a - b), ``d_z``, ``wins``, ``ties``, ``losses``,
        ``pvalue``, ``ttest_pvalue``, ``pvalue_maxT``, ``pvalue_holm``,
        ``pvalue_bh``, ``pvalue_adjusted``, ``significant``, ``ci_low``, ``ci_high``.
        ``attrs`` holds ``method``, ``adjustment``, ``interval``, ``alpha``,
        ``min_pvalue``, ``n_resamples``, ``critical_value`` (max-T rho),
        ``interval_level`` and ``dropped_models``.

    Raises:
        ValueError: ``scores`` is not a DataFrame, has fewer than 2 complete models or
            2 units, duplicate, non-numeric or infinite columns; or an option is
            invalid. The message names the argument.
    """
    adjustment = _check_choice(adjustment, "adjustment", _ADJUSTMENTS)
    alpha = _check_open_unit(alpha, "alpha")
    n_resamples = _check_n_resamples(n_resamples)
    gen = _check_rng(rng)
    X, names, dropped = complete_score_matrix(scores)
    if len(names) < 2:
        raise ValueError(
            f"`scores` needs at least 2 models with a score on every unit, got {len(names)}"
        )
    n = X.shape[0]
    ia, ib = np.triu_indices(len(names), 1)
    k = len(ia)
    D = X[:, ia] - X[:, ib]
    tol = _REL_TOL * (np.abs(X).mean(axis=0)[ia] + np.abs(X).mean(axis=0)[ib])
    exact = n <= _MAX_EXACT_SIGN_FLIP_N and k * 2**n <= _EXACT_WORK
    bits = None if exact else random_sign_bits(n, n_resamples, gen)
    n_patterns = 2**n if exact else n_resamples

    def invert(level: float, interval: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if exact:
            return exact_inversion(D, tol, level, "two-sided", interval=interval)
        assert bits is not None
        return mc_inversion(D, bits, tol, level, "two-sided", interval=interval)

    pvalue, _, _ = invert(alpha, False)
    p_maxt, _, crit = _maxt(X, D, ia, ib, exact=exact, bits=bits, alpha=alpha)
    adjusted_by = {
        "maxT": p_maxt,
        "holm": adjust_pvalues(pvalue, method="holm"),
        "bonferroni": adjust_pvalues(pvalue, method="bonferroni"),
        "bh": adjust_pvalues(pvalue, method="bh"),
        "none": pvalue,
    }
    adjusted = adjusted_by[adjustment]
    if adjustment == "maxT":
        level = alpha
        low, high = _maxt_intervals(D, crit)
    else:
        level = _interval_level(adjustment, alpha, adjusted)
        _, low, high = invert(level, True)
    min_p = _sign_flip_min_pvalue(n, exact, n_patterns, "two-sided")
    family = k if adjustment in ("holm", "bonferroni") else 1
    if family * min_p >= alpha:
        warnings.warn(
            f"pairwise_significance: no pair can be significant at alpha={alpha}: the "
            f"smallest attainable p-value is {min_p:.3g}"
            + (f" and {adjustment} multiplies it by the {family} pairs" if family > 1 else "")
            + ". Use more units, fewer comparisons or adjustment='maxT'.",
            UserWarning,
            stacklevel=2,
        )
    ttest_p, dz = _ttest_and_dz(D, "two-sided")
    col = np.array(names, dtype=object)
    out = pd.DataFrame(
        {
            "model_a": col[ia],
            "model_b": col[ib],
            "n": n,
            "difference": D.mean(axis=0),
            "d_z": dz,
            "wins": (D > 0).sum(axis=0),
            "ties": (D == 0).sum(axis=0),
            "losses": (D < 0).sum(axis=0),
            "pvalue": pvalue,
            "ttest_pvalue": ttest_p,
            "pvalue_maxT": p_maxt,
            "pvalue_holm": adjusted_by["holm"],
            "pvalue_bh": adjusted_by["bh"],
            "pvalue_adjusted": adjusted,
            "significant": adjusted < alpha,
            "ci_low": low,
            "ci_high": high,
        }
    )
    test = (
        f"exact sign-flip tests (2^{n}={n_patterns} patterns)"
        if exact
        else f"Monte-Carlo sign-flip tests ({n_patterns} random patterns shared by all pairs)"
    )
    out.attrs.update(
        method=test,
        adjustment=adjustment,
        interval=_INTERVAL_DOC[adjustment],
        interval_level=level,
        critical_value=crit,
        alpha=alpha,
        min_pvalue=min_p,
        n_resamples=n_resamples,
        dropped_models=dropped,
    )
    return out
