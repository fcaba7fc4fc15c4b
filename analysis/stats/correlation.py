"""Rank correlation with a permutation p-value and a bootstrap interval."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ._checks import (
    RngLike,
    _check_choice,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    align_vectors,
)
from ._ranks import _rank_permutation_test, _rank_statistic
from ._resampling import _bootstrap_index_blocks, _min_pvalue, _percentile_interval
from ._results import ConfidenceInterval, StatsResult

_RANK_METHODS = ("spearman", "kendall")


@dataclass(frozen=True, repr=False)
class RankCorrelationResult(StatsResult):
    """Result of :func:`rank_correlation`.

    Attributes:
        statistic: Spearman's rho or Kendall's tau-b (as scipy computes them).
        pvalue: two-sided permutation p-value (see :func:`rank_correlation`).
        confidence_interval: percentile bootstrap interval over resampled pairs.
        n: number of (x, y) pairs used, after dropping pairs with a NaN.
        method: ``"spearman"`` or ``"kendall"``.
        min_pvalue: smallest p-value this n and test can return (ties in the data
            can only make the attainable minimum larger).
        pvalue_method: how the p-value was computed (exact or Monte-Carlo, how many orderings).
        n_resamples: bootstrap resamples drawn.
        n_resamples_dropped: bootstrap resamples dropped because x or y was constant
            in them (the correlation is undefined there).
        confidence_level: level of the interval.
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
    confidence_level: float = 0.95

    def to_frame(self) -> pd.DataFrame:
        """One row: the correlation, its interval and p-value."""
        return self._one_row(
            "method statistic ci_low=confidence_interval.low "
            "ci_high=confidence_interval.high pvalue min_pvalue n"
        )


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

    * **Pairing**: two Series are paired by label (the same labels in any order;
      different labels raise :class:`~analysis.core.errors.LabelMismatchError` naming the
      missing and extra ones) and put in sorted-label order, so their order never
      changes the result; arrays are paired by position.
    * **Missing values**: a pair where x or y is NaN is dropped; ``n`` reports the
      pairs kept. An infinite value is an error.
    * **Ties** get average ranks. Rho is the Pearson correlation of the ranks and
      tau is Kendall's tau-b, both identical to ``scipy.stats.spearmanr`` /
      ``scipy.stats.kendalltau``.
    * **p-value**: two-sided permutation test of "x and y are independent" (y is
      permuted against x; the items are assumed exchangeable under the null). It is the fraction of
      orderings whose |statistic| is at least the observed one. When ``n! <= n_resamples`` (n <= 7
      at the default) all n! orderings are enumerated (exact test); otherwise ``n_resamples`` random
      orderings with the ``(b+1)/(n_resamples+1)`` convention.
    * **Smallest attainable p-value** (``min_pvalue``): ``2/n!`` for the exact test
      (the identity and the reversed ordering are as extreme; ties make it larger;
      1/3 at n=3, 1/12 at n=4, 1/60 at n=5), ``1/(n_resamples+1)`` for Monte-Carlo.
    * **CI**: percentile bootstrap over items (pairs resampled with replacement).
      Resamples in which x or y is constant have no correlation; they are dropped
      (``n_resamples_dropped``) and the interval uses the rest (NaN if none is
      left). The interval is approximate and too narrow at small n.
    * **Cost**: Spearman is O(n log n) per resample, Kendall O(n^2) (contiguous
      16-bit comparisons): Kendall's resamples cost more as n grows (no file of
      ``benchmarks/results/`` times them yet).

    Draws from ``rng``: the orderings (Monte-Carlo only), then the bootstrap indices.

    Args:
        x: scores of the items under the first condition (1-D, numbers).
        y: scores of the same items under the second condition.
        method: ``"spearman"`` or ``"kendall"``.
        n_resamples: Monte-Carlo orderings for the p-value and bootstrap resamples for the CI.
        confidence_level: confidence level of the two-sided interval, in (0, 1).
        rng: seed or Generator for the resampling.

    Returns:
        RankCorrelationResult with ``statistic``, ``pvalue``, ``confidence_interval``,
        ``n``, ``method``, ``min_pvalue`` and the resampling details.

    Raises:
        ValueError: x and y differ in length, hold inf, have fewer than 3 complete
            pairs or are constant after dropping NaN pairs; or an option is invalid.

    Examples:
        30 models' scores on two benchmarks (synthetic, strongly related):

        >>> import numpy as np
        >>> from analysis.stats import rank_correlation
        >>> rng = np.random.default_rng(0)
        >>> x = rng.normal(size=30)
        >>> y = x + rng.normal(0, 0.5, 30)
        >>> res = rank_correlation(x, y, n_resamples=999, rng=0)
        >>> round(res.statistic, 2), res.pvalue == res.min_pvalue == 1 / 1000
        (0.84, True)
        >>> bool(res.confidence_interval.low < res.statistic < res.confidence_interval.high)
        True
    """
    method = _check_choice(method, "method", _RANK_METHODS)
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level, gen = _check_open_unit(confidence_level, "confidence_level"), _check_rng(rng)
    xv, yv, _ = align_vectors(x, y, ("x", "y"))
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
    ci = ConfidenceInterval(np.nan, np.nan)
    if defined.size:
        low, high = _percentile_interval(defined[None], confidence_level, "two-sided")
        ci = ConfidenceInterval(float(low[0]), float(high[0]))
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
        confidence_level=confidence_level,
    )
