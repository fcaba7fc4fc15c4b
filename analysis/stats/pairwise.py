"""All pairs of models: sign-flip tests on one plan, max-T/Holm/BH, matching intervals."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
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
    unit_clusters,
)
from ._inversion import exact_inversion, mc_inversion
from ._maxt import maxt, single_step
from ._resampling import (
    _MAX_EXACT_SIGN_FLIP_N,
    _REL_TOL,
    SignPatterns,
    _min_pvalue,
    maxt_is_exact,
    random_sign_bits,
    unit_sums,
)
from ._results import TableResult
from .paired import _paired_scale, _ttest_and_dz

_CORRECTIONS = ("holm", "bonferroni", "bh", "none")
_ADJUSTMENTS = ("maxT", "holm", "bonferroni", "bh", "none")
_EXACT_WORK = 1 << 27  # pairs * 2**n: above this the per-pair tests are Monte-Carlo


def adjust_pvalues(
    pvalues: Any, *, adjustment: Literal["holm", "bonferroni", "bh", "none"] = "holm"
) -> Any:
    """Adjust p-values for multiple comparisons.

    ``"holm"``: Holm's step-down (family-wise error, any dependence); ``"bonferroni"``:
    ``min(1, m * p)``; ``"bh"``: Benjamini-Hochberg (false discovery rate, under
    independence or positive dependence; as statsmodels' ``fdr_bh``); ``"none"``: unchanged.
    Like :func:`scipy.stats.false_discovery_control` it returns the adjusted values
    themselves: a Series for a Series (same index), else an array in the input order.

    Args:
        pvalues: p-values (1-D, in [0, 1]).
        adjustment: ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``.

    Returns:
        Adjusted p-values, in the input order.

    Raises:
        ValueError: a p-value is NaN or outside [0, 1]; or ``adjustment`` is unknown.

    Examples:
        >>> from analysis.stats import adjust_pvalues
        >>> adjust_pvalues([0.01, 0.02, 0.04]).round(3).tolist()
        [0.03, 0.04, 0.04]
        >>> adjust_pvalues([0.01, 0.02, 0.04], adjustment="bonferroni").round(3).tolist()
        [0.03, 0.06, 0.12]
    """
    method = _check_choice(adjustment, "adjustment", _CORRECTIONS)
    p = _as_vector(pvalues, "pvalues")
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("`pvalues` must lie in [0, 1] (no NaN)")
    m = len(p)
    if method == "none" or m == 0:
        out = p.copy()
    elif method == "bonferroni":
        out = np.minimum(1.0, p * m)
    else:  # scipy's false_discovery_control gives the same BH values, 2-9x slower here
        order = np.argsort(p, kind="stable")
        if method == "holm":
            stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
        else:
            stepped = np.minimum.accumulate((m * p[order] / np.arange(1, m + 1))[::-1])[::-1]
        out = np.empty(m)
        out[order] = np.minimum(1.0, stepped)
    if isinstance(pvalues, pd.Series):
        return pd.Series(out, index=pvalues.index, name=pvalues.name)
    return out


@dataclass(frozen=True, repr=False)
class PairwiseResult(TableResult):
    """Result of :func:`pairwise_significance`: one row per pair in ``table``.

    Attributes:
        table: one row per pair (a before b in column order): ``model_a``, ``model_b``,
            ``n`` (tasks), ``difference`` (mean of a - b), ``d_z``, ``wins``, ``ties``,
            ``losses``, ``pvalue`` (unadjusted), ``ttest_pvalue``, ``pvalue_maxT``,
            ``pvalue_holm``, ``pvalue_bh``, ``pvalue_adjusted`` (by ``adjustment``),
            ``significant`` (``pvalue_adjusted < alpha``), ``ci_low``, ``ci_high``.
        adjustment: the adjustment behind ``pvalue_adjusted``, the decision, the interval.
        alpha: level of the decisions.
        confidence_level: ``1 - alpha``, the level of the intervals as a family.
        pair_confidence_level: the level each pair's interval was inverted at.
        critical_value: the max-T critical rho behind the simultaneous intervals; NaN for
            other adjustments.
        method: the tests, in a sentence.
        interval: what the intervals are, in a sentence.
        min_pvalue: smallest attainable unadjusted p-value.
        n_resamples: Monte-Carlo sign patterns requested.
        n_tasks: tasks (rows) used.
        n_units: independent units the signs flip: tasks, or clusters of tasks.
        n_models: models kept.
        exact: whether the max-T null enumerated every sign pattern.
        dropped: models left out for missing scores -> their missing tasks.
    """

    table: pd.DataFrame
    adjustment: str
    alpha: float
    confidence_level: float
    pair_confidence_level: float
    critical_value: float
    method: str
    interval: str
    min_pvalue: float
    n_resamples: int
    n_tasks: int
    n_units: int
    n_models: int
    exact: bool
    dropped: dict[Any, list[Any]] = field(default_factory=dict)

    def _summary_lines(self) -> list[str]:
        n_sig = int(self.table["significant"].sum())
        return [
            f"{n_sig} of {len(self.table)} pairs significant at alpha={self.alpha:g} "
            f"({self.adjustment}); {self.n_models} models, {self.n_tasks} tasks "
            f"({self.n_units} units)",
            f"method: {self.method[:80]}",
            f"interval: {self.interval[:80]}",
            f"critical_value={self.critical_value:.4g}, min_pvalue={self.min_pvalue:.3g}, "
            f"dropped={len(self.dropped)} model(s)",
        ]

    def pvalue_matrix(self, column: str = "pvalue_adjusted") -> pd.DataFrame:
        """Models x models p-values of ``column`` (symmetric, 1 on the diagonal)."""
        names = list(dict.fromkeys([*self.table["model_a"], *self.table["model_b"]]))
        position = {m: i for i, m in enumerate(names)}
        ia, ib = (self.table[c].map(position).to_numpy() for c in ("model_a", "model_b"))
        values = np.ones((len(names), len(names)))
        values[ia, ib] = values[ib, ia] = self.table[column].to_numpy(dtype=float)
        return pd.DataFrame(values, index=names, columns=names)


def _maxt_intervals(
    D: np.ndarray, sizes: np.ndarray | None, crit: float, scale: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """{delta : r(d - sizes * delta) <= crit} per pair (``crit`` on the squared scale r)."""
    g, k = D.shape
    w = np.ones(g) if sizes is None else sizes
    n_tasks = w.sum()
    mean = D.sum(axis=0) / n_tasks
    E = D - w[:, None] * mean
    E[:, (E**2).sum(axis=0) <= (_REL_TOL * scale) ** 2 * (w**2).sum()] = 0.0
    # (N u)^2 <= crit * G * sum (E - w u)^2, u = delta - mean:
    # A u^2 + 2 B u - C <= 0, A = N^2 - crit G sum w^2, B = crit G w.E, C = crit G sum E^2
    a = n_tasks**2 - crit * g * (w**2).sum()
    if not np.isfinite(crit) or a <= 0:
        inf = np.full(k, math.inf)
        return -inf, inf
    b, c = crit * g * (w @ E), crit * g * (E**2).sum(axis=0)
    root = np.sqrt(b**2 + a * c)
    return mean + (-b - root) / a, mean + (-b + root) / a


def _interval_level(adjustment: str, alpha: float, adjusted: np.ndarray) -> float:
    """The per-pair level whose inverted intervals agree with the adjustment's decisions."""
    k, rejected = len(adjusted), int((adjusted < alpha).sum())
    if adjustment in ("none", "maxT"):
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
    clusters: Any = None,
    adjustment: Literal["maxT", "holm", "bonferroni", "bh", "none"] = "maxT",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    rng: RngLike = None,
) -> PairwiseResult:
    """Paired sign-flip tests for every pair of models, with intervals matching the adjustment.

    Each pair (a, b) (a before b in column order) is tested on its unit differences as in
    :func:`paired_bootstrap` (exact while ``n_pairs * 2**n <= 2**27`` and n <= 20, else
    over ``n_resamples`` random patterns shared by all pairs). ``significant`` is ``pvalue_adjusted
    < alpha``, and ``[ci_low, ci_high]`` excludes 0 exactly then. Method, assumptions and validity:
    the statistics guide (``docs/statistics.md``, "Which pairs of models differ?").

    Adjustments (all reported; ``adjustment`` picks ``pvalue_adjusted``, the decision and
    the interval):

    * ``"maxT"`` (default): single-step Westfall-Young max-T over all pairs under one sign
      pattern (the kernel and patterns of :func:`rank_intervals`). Joint null: each unit's vector of
      pairwise differences is symmetric about 0 (e.g. unit effect + symmetric noise); the test is
      then exact. The simultaneous intervals invert the critical value, the larger of that null's
      and of the null centred at the observed differences, so that they also cover when pairs
      differ. Family-wise error and joint coverage are measured in ``benchmarks/README_stats.md``.
    * ``"holm"``: Holm on the per-pair p-values; intervals inverted at ``alpha / (m - R)``
      (R rejections), agreeing with Holm's decisions. ``"bonferroni"``: at ``alpha / m``.
    * ``"bh"``: Benjamini-Hochberg, for screening; false-coverage-rate intervals at
      ``R * alpha / m``.
    * ``"none"``: no adjustment; intervals at ``alpha``.

    Units are independent; ``clusters=`` flips each cluster of near-duplicate tasks at once
    (``d_z`` and ``ttest_pvalue`` are then over cluster means). A pair constant within
    float rounding gets the point interval at its mean and NaN ``d_z`` and t p-value. Holm
    and Bonferroni multiply the smallest p-value (``min_pvalue``) by the number of pairs, so
    with many models and few tasks nothing can pass them (a warning says so); max-T does
    not. Speed: ``benchmarks/results/pairwise.md``.

    Args:
        scores: one row per unit (task or query), one column per model (the wide table
            of ``Leaderboard.wide()``). A model with missing values is dropped with a
            :class:`DroppedModelsWarning` (the result's ``dropped`` lists them all).
        clusters: one cluster label per row (a Series indexed like the rows, a mapping
            row -> cluster, or a sequence in row order); None: independent rows.
        adjustment: ``"maxT"``, ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``.
        alpha: level of the decisions; intervals have level ``1 - alpha``.
        n_resamples: Monte-Carlo sign patterns when not exact.
        rng: seed or Generator (draws the Monte-Carlo patterns only).

    Returns:
        PairwiseResult (``to_frame()``: the pairs table).

    Raises:
        ValueError: ``scores`` is not a DataFrame, has fewer than 2 complete models or
            2 units, duplicate, non-numeric or infinite columns; or an option is
            invalid. The message names the argument.
        LabelMismatchError: ``clusters`` does not name the rows of ``scores``.

    Examples:
        Four models on 8 tasks (synthetic; A best, then B, C, D):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> mean = rng.normal(0.5, 0.05, (8, 1)) + [0.1, 0.05, 0.0, -0.05]  # task + model
        >>> scores = pd.DataFrame(mean + rng.normal(0, 0.01, (8, 4)),
        ...     index=[f"task{i}" for i in range(8)], columns=["A", "B", "C", "D"])
        >>> from analysis.stats import pairwise_significance
        >>> res = pairwise_significance(scores)
        >>> res.n_models, len(res.table), bool(res.table["significant"].all())
        (4, 6, True)
        >>> res.table.loc[0, ["model_a", "model_b"]].tolist()
        ['A', 'B']
    """
    adjustment = _check_choice(adjustment, "adjustment", _ADJUSTMENTS)
    alpha = _check_open_unit(alpha, "alpha")
    n_resamples, gen = _check_n_resamples(n_resamples), _check_rng(rng)
    X, names, dropped, rows = complete_score_matrix(scores)
    if len(names) < 2:
        raise ValueError(
            f"`scores` needs at least 2 models with a score on every unit, got {len(names)}"
        )
    U, sizes = unit_sums(X, unit_clusters(clusters, rows, len(rows)))
    patterns, bits, pair_exact = draw_patterns(U.shape[0], len(names), n_resamples, gen)
    return _pairwise(
        X, names, U, sizes, patterns, bits, pair_exact, adjustment, alpha, n_resamples, dropped
    )


def draw_patterns(
    n_units: int, n_models: int, n_resamples: int, rng: np.random.Generator
) -> tuple[SignPatterns, np.ndarray | None, bool]:
    """The sign patterns of the max-T test, the Monte-Carlo bits, per-pair exactness.

    Per-pair tests are exact (subset means) while ``pairs * 2**n <= 2**27`` and n <= 20;
    the max-T null while all 2**(n-1) patterns fit in ``n_resamples``. Random bits are
    drawn once (the first draw from ``rng``) when either needs them, and the max-T test
    uses them: the patterns :func:`rank_intervals` draws from the same seed.
    """
    n_pairs = n_models * (n_models - 1) // 2
    maxt_exact = maxt_is_exact(n_units, n_resamples)
    pair_exact = n_units <= _MAX_EXACT_SIGN_FLIP_N and n_pairs * 2**n_units <= _EXACT_WORK
    bits = None if maxt_exact and pair_exact else random_sign_bits(n_units, n_resamples, rng)
    patterns = SignPatterns(n_units=n_units, exact=maxt_exact, bits=None if maxt_exact else bits)
    return patterns, bits, pair_exact


def _pairwise(
    X: np.ndarray,
    names: list[Any],
    U: np.ndarray,
    sizes: np.ndarray | None,
    patterns: SignPatterns,
    bits: np.ndarray | None,
    pair_exact: bool,
    adjustment: str,
    alpha: float,
    n_resamples: int,
    dropped: dict[Any, list[Any]],
) -> PairwiseResult:
    """The computation behind :func:`pairwise_significance` (and :func:`compare`)."""
    n, g = X.shape[0], U.shape[0]
    ia, ib = np.triu_indices(len(names), 1)
    k = len(ia)
    D = U[:, ia] - U[:, ib]
    scale = _paired_scale(X, ia, ib)
    tol = _REL_TOL * scale

    def invert(level: float, interval: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if pair_exact:
            return exact_inversion(D, tol, level, "two-sided", interval=interval, sizes=sizes)
        assert bits is not None
        return mc_inversion(D, bits, tol, level, "two-sided", interval=interval, sizes=sizes)

    pvalue, _, _ = invert(alpha, False)
    kernel = maxt(U[None], ia[None], ib[None], patterns, sizes=sizes, keep_null=True, centred=True)
    assert kernel.null_max is not None and kernel.null_max_centred is not None
    observed = kernel.observed[0, 0]
    p_plain, crit_plain = single_step(kernel.null_max[0, 0], observed, patterns, alpha)
    p_centred, crit_centred = single_step(kernel.null_max_centred[0, 0], observed, patterns, alpha)
    p_maxt, crit = np.maximum(p_plain, p_centred), max(crit_plain, crit_centred)
    adjusted_by = {
        "maxT": p_maxt,
        "holm": adjust_pvalues(pvalue, adjustment="holm"),
        "bonferroni": adjust_pvalues(pvalue, adjustment="bonferroni"),
        "bh": adjust_pvalues(pvalue, adjustment="bh"),
        "none": pvalue,
    }
    adjusted = adjusted_by[adjustment]
    level = _interval_level(adjustment, alpha, adjusted)
    if adjustment == "maxT":
        low, high = _maxt_intervals(D, sizes, crit, scale)
    else:
        _, low, high = invert(level, True)
    min_p = _min_pvalue(2**g if pair_exact else n_resamples, pair_exact, True)
    family = k if adjustment in ("holm", "bonferroni") else 1
    if (patterns.min_pvalue if adjustment == "maxT" else family * min_p) >= alpha:
        warnings.warn(
            f"pairwise_significance: no pair can be significant at alpha={alpha}: the "
            f"smallest attainable p-value is {min_p:.3g}"
            + (f" and {adjustment} multiplies it by the {family} pairs" if family > 1 else "")
            + ". Use more units, fewer comparisons or adjustment='maxT'.",
            UserWarning,
            stacklevel=3,
        )
    ttest_p, dz = _ttest_and_dz(D if sizes is None else D / sizes[:, None], "two-sided", scale)
    Dt, col = X[:, ia] - X[:, ib], np.array(names, dtype=object)
    table = pd.DataFrame(
        {
            "model_a": col[ia],
            "model_b": col[ib],
            "n": n,
            "difference": Dt.mean(axis=0),
            "d_z": dz,
            "wins": (Dt > 0).sum(axis=0),
            "ties": (Dt == 0).sum(axis=0),
            "losses": (Dt < 0).sum(axis=0),
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
    units = f"{g} clusters of {n} tasks, one sign per cluster" if sizes is not None else ""
    test = (
        f"exact sign-flip tests (2^{g}={2**g} patterns)"
        if pair_exact
        else f"Monte-Carlo sign-flip tests ({n_resamples} random patterns shared by all pairs)"
    )
    if adjustment == "maxT":
        test += f"; max-T over {patterns.describe()}"
    return PairwiseResult(
        table=table,
        adjustment=adjustment,
        alpha=alpha,
        confidence_level=1.0 - alpha,
        pair_confidence_level=1.0 - level,
        critical_value=math.sqrt(crit) if adjustment == "maxT" else math.nan,
        method=test + (f" ({units})" if units else ""),
        interval=_INTERVAL_DOC[adjustment],
        min_pvalue=min_p,
        n_resamples=n_resamples,
        n_tasks=n,
        n_units=g,
        n_models=len(names),
        exact=patterns.exact,
        dropped=dropped,
    )
