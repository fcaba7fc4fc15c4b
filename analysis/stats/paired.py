"""Paired comparison of two models: sign-flip test, the interval that inverts it, t, d_z."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.stats import t as t_dist

from ._checks import (
    _ALTERNATIVES,
    Alternative,
    RngLike,
    _check_choice,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    align_vectors,
    unit_clusters,
)
from ._inversion import exact_inversion, mc_inversion
from ._resampling import (
    _MAX_EXACT_SIGN_FLIP_N,
    _REL_TOL,
    _bootstrap_means,
    _min_pvalue,
    _percentile_interval,
    random_sign_bits,
    unit_sums,
)
from ._results import ConfidenceInterval, StatsResult

_INTERVALS = ("inversion", "percentile")


@dataclass(frozen=True, repr=False)
class PairedTestResult(StatsResult):
    """Result of :func:`paired_bootstrap`.

    Attributes:
        statistic: mean of ``a - b`` over the tasks (units).
        pvalue: sign-flip permutation p-value for ``alternative``.
        confidence_interval: the interval of ``interval_method``; one-sided for a
            one-sided ``alternative``.
        n: number of paired tasks (units).
        n_units: independent units the signs flip: ``n``, or the number of clusters.
        confidence_level: level of ``confidence_interval``.
        method: what was done, in a sentence.
        min_pvalue: smallest p-value this n, test and alternative can return.
        n_resamples: Monte-Carlo sign patterns (and bootstrap resamples) requested.
        alternative: the alternative hypothesis tested.
        interval_method: ``"inversion"`` or ``"percentile"``.
        exact: whether the sign-flip test enumerated all ``2**n`` patterns.
        ttest_pvalue: paired t-test p-value (over cluster means with clusters).
        effect_size: Cohen's d_z (ddof=1; over cluster means with clusters).
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    n: int
    n_units: int
    confidence_level: float
    method: str
    min_pvalue: float
    n_resamples: int
    alternative: str
    interval_method: str = "inversion"
    exact: bool = True
    ttest_pvalue: float = math.nan
    effect_size: float = math.nan

    def to_frame(self) -> pd.DataFrame:
        """One row: the estimate, interval, p-values and effect size."""
        return self._one_row(
            "difference=statistic ci_low=confidence_interval.low "
            "ci_high=confidence_interval.high pvalue ttest_pvalue d_z=effect_size n n_units "
            "min_pvalue"
        )


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


def _paired_scale(X: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Scale of each pair's task differences: mean |a| + mean |b| over the tasks."""
    level = np.abs(X).mean(axis=0)
    return level[ia] + level[ib]


def _paired_tests(
    D: np.ndarray,
    *,
    n_resamples: int,
    confidence_level: float,
    alternative: str,
    rng: np.random.Generator,
    interval: str = "inversion",
    tol: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
) -> _PairedArrays:
    """Sign-flip tests and intervals of the task mean of ``D[:, j]`` for every column j."""
    n = D.shape[0]
    w, alpha = (np.ones(n) if sizes is None else sizes), 1.0 - confidence_level
    if tol is None:  # float ties: 1e-9 of each column's mean absolute value
        tol = _REL_TOL * np.mean(np.abs(D / w[:, None]), axis=0)
    statistic = D.sum(axis=0) / w.sum()
    boot = None
    if interval == "percentile":  # resample units; the mean over their tasks
        both = _bootstrap_means(np.column_stack([D, w]), n_resamples, rng)
        boot = both[:-1] / both[-1]
    exact, invert = n <= _MAX_EXACT_SIGN_FLIP_N, interval == "inversion"
    unit = "units" if sizes is None else "clusters"
    if exact:
        pvalue, low, high = exact_inversion(
            D, tol, alpha, alternative, interval=invert, sizes=sizes
        )
        n_patterns = 2**n
        test = f"exact sign-flip test (2^{n}={n_patterns} sign patterns)"
    else:
        bits = random_sign_bits(n, n_resamples, rng)
        pvalue, low, high = mc_inversion(
            D, bits, tol, alpha, alternative, interval=invert, sizes=sizes
        )
        n_patterns = n_resamples
        test = f"Monte-Carlo sign-flip test ({n_patterns} random sign patterns)"
    if sizes is not None:
        test += f", one sign per cluster ({n} clusters of {int(w.sum())} tasks)"
    if boot is not None:
        low, high = _percentile_interval(boot, confidence_level, alternative)
        how = f"percentile bootstrap interval ({n_resamples} resamples of {n} {unit})"
    else:
        how = "interval by inverting that test"
    return _PairedArrays(
        statistic=statistic,
        pvalue=pvalue,
        low=low,
        high=high,
        exact=exact,
        n_patterns=n_patterns,
        method=f"{test}; {how}",
        min_pvalue=_min_pvalue(n_patterns, exact, alternative == "two-sided"),
    )


def _ttest_and_dz(
    D: np.ndarray, alternative: str, scale: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Paired t p-value and Cohen's d_z per column of D (unit values)."""
    n = D.shape[0]
    mean, sd = D.mean(axis=0), D.std(axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        dz = np.where(sd > _REL_TOL * scale, mean / sd, np.nan)
        t = dz * math.sqrt(n)
    if alternative == "two-sided":
        p = 2.0 * t_dist.sf(np.abs(t), n - 1)
    elif alternative == "greater":
        p = t_dist.sf(t, n - 1)
    else:
        p = t_dist.cdf(t, n - 1)
    return np.minimum(p, 1.0), dz


def paired_bootstrap(
    a: Any,
    b: Any,
    *,
    clusters: Any = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: Literal["inversion", "percentile"] = "inversion",
    alternative: Alternative = "two-sided",
    rng: RngLike = None,
) -> PairedTestResult:
    """Paired comparison of two models: mean difference, sign-flip test, matching interval.

    ``a[i]`` and ``b[i]`` are the scores of two models on the same unit i (a task, or a
    query). Method, assumptions and validity: the statistics guide (``docs/statistics.md``,
    "Is model a better than b?").

    **Null hypothesis.** Exchangeability: every difference ``a[i] - b[i]`` is symmetric
    about 0. That is stronger than "the mean difference is 0": skewed differences with mean
    0 are rejected more often than alpha, symmetric ones at most alpha at every n (measured:
    the "skewed null" and "symmetric null" rows of ``benchmarks/README_stats.md``). Read a
    rejection as "the differences are not symmetric about 0".

    * **Units** are independent; two Series pair by label, arrays by position. NaN or inf
      raise: drop incomplete units from both models first.
    * **Clusters** (``clusters=``, one label per unit): every sign flip flips a whole cluster,
      so near-duplicate tasks do not inflate the type-I error (guide, "Near-duplicate
      tasks"); the smallest p-value is then ``2/2**G`` for G clusters.
    * **p-value**: exact over all ``2**n`` sign patterns for n <= 20, else ``n_resamples``
      random patterns with ``(b+1)/(n_resamples+1)``. Exact two-sided ``min_pvalue`` is
      ``2/2**n``: with 5 units or fewer nothing is significant at 0.05.
    * **Interval** ``method="inversion"`` (default): the shifts d the same test does not
      reject on ``a - b - d``; exact, and it excludes 0 exactly when ``pvalue < 1 -
      confidence_level``. ``method="percentile"``: the percentile bootstrap of
      ``scipy.stats.bootstrap(..., paired=True)`` (same draws), too narrow at small n; use
      it only with many units (hundreds of queries).
    * ``ttest_pvalue`` (``scipy.stats.ttest_rel``) and ``effect_size`` (Cohen's d_z) are for
      reference; NaN for differences constant within float rounding.

    Draws from ``rng``: the bootstrap indices (``method="percentile"`` only), then the
    Monte-Carlo sign patterns (n > 20 only); an exact test draws nothing.

    Args:
        a: scores of the first model, one per unit (a Series is paired by label).
        b: scores of the second model on the same units.
        clusters: one cluster label per unit (a Series indexed like ``a``, a mapping
            unit -> cluster, or a sequence in unit order); None: independent units.
        n_resamples: Monte-Carlo sign patterns (n > 20) and bootstrap resamples.
        confidence_level: confidence level of the interval, in (0, 1).
        method: ``"inversion"`` (default) or ``"percentile"``.
        alternative: ``"two-sided"``, ``"greater"`` (mean of a - b > 0) or ``"less"``.
        rng: seed or Generator for the resampling.

    Raises:
        ValueError: a and b differ in length, hold NaN or inf or have fewer than 2
            units; or an option is invalid. The message names the argument.
        LabelMismatchError: two Series (or ``clusters``) with different labels.

    Examples:
        Two models' scores on the same 8 tasks (synthetic; ``b`` about 0.03 lower):

        >>> import numpy as np
        >>> from analysis.stats import paired_bootstrap
        >>> rng = np.random.default_rng(0)
        >>> a = rng.normal(0.6, 0.05, 8)
        >>> b = a - 0.03 + rng.normal(0, 0.01, 8)
        >>> res = paired_bootstrap(a, b)
        >>> res.exact, res.pvalue == 2 / 2**8, res.pvalue < 0.05
        (True, True, True)
        >>> bool(res.confidence_interval.low < res.statistic < res.confidence_interval.high)
        True
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    method = _check_choice(method, "method", _INTERVALS)
    alternative, gen = _check_choice(alternative, "alternative", _ALTERNATIVES), _check_rng(rng)
    av, bv, labels = align_vectors(a, b, ("a", "b"))
    for name, v in (("a", av), ("b", bv)):
        if not np.isfinite(v).all():
            raise ValueError(
                f"`{name}` contains NaN or inf; drop incomplete units from both a and b first"
            )
    if len(av) < 2:
        raise ValueError(f"`a` and `b` need at least 2 paired units, got {len(av)}")
    codes = unit_clusters(clusters, None if labels is None else pd.Index(labels), len(av))
    scale = _paired_scale(np.column_stack([av, bv]), np.array([0]), np.array([1]))
    D, sizes = unit_sums((av - bv)[:, None], codes)
    res = _paired_tests(
        D,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alternative=alternative,
        rng=gen,
        interval=method,
        tol=_REL_TOL * scale,
        sizes=sizes,
    )
    tp, dz = _ttest_and_dz(D if sizes is None else D / sizes[:, None], alternative, scale)
    return PairedTestResult(
        statistic=float(res.statistic[0]),
        pvalue=float(res.pvalue[0]),
        confidence_interval=ConfidenceInterval(float(res.low[0]), float(res.high[0])),
        n=len(av),
        n_units=D.shape[0],
        confidence_level=confidence_level,
        method=res.method,
        min_pvalue=res.min_pvalue,
        n_resamples=n_resamples,
        alternative=alternative,
        interval_method=method,
        exact=res.exact,
        ttest_pvalue=float(tp[0]),
        effect_size=float(dz[0]),
    )
