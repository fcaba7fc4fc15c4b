"""Conformal prediction intervals from leave-one-model-out errors, scaled by leverage.

Scores are ``R_i = |e_i| / sigma_i`` with ``sigma_i**2 = 1 + gamma * lev_i`` (a random-coefficient
model's error variance, so models far from the references on the observed tasks get wider
intervals); ``gamma`` from a Theil-Sen line of ``e**2`` on ``lev`` (:func:`variance_slope`).
:func:`split_interval` is the split-conformal interval of the procedure rerun without each model;
:func:`leave_one_out_widths` each model's interval from the others' scores (held-out reporting);
:class:`TimeDrift` the same scaling in the distance in time, for a model newer than the references.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._select import conformal_rank

#: Leverages closer than this fraction of their range count as tied in :func:`variance_slope`:
#: a model and its near-duplicate come out of the fits a few 1e-17 apart, differently on
#: another CPU's BLAS kernels, and their arbitrary slopes moved the results by up to 3e-4
#: points between machines; left out (as exact ties are), they agree to 1e-14.
LEVERAGE_TIE = 1e-9


def variance_slope(errors: np.ndarray, leverage: np.ndarray) -> float:
    """Robust method-of-moments ``gamma`` in ``E[e**2] = s**2 (1 + gamma lev)``; 0 if none.

    Theil-Sen line ``e**2 = a + b lev`` (as ``scipy.stats.theilslopes``; squared errors are
    heavy-tailed), pairs tied within :data:`LEVERAGE_TIE` left out; ``gamma = b / a``, 0
    when either is not positive. It follows the conditional median, so gamma is
    under-stated for skewed squared errors (tested); the intervals stay valid for any gamma.
    """
    e2, lev = np.asarray(errors, dtype=float) ** 2, np.asarray(leverage, dtype=float)
    if len(e2) < 3 or np.ptp(lev) <= 0:
        return 0.0
    i, j = np.triu_indices(len(lev), k=1)
    dx = lev[j] - lev[i]
    ok = np.abs(dx) > LEVERAGE_TIE * np.ptp(lev)
    if not ok.any():  # every pair tied: no slope to measure
        return 0.0
    slope = float(np.median((e2[j] - e2[i])[ok] / dx[ok]))
    intercept = float(np.median(e2) - slope * np.median(lev))
    return slope / intercept if slope > 0 and intercept > 0 else 0.0  # NaN included


def sigma(leverage: np.ndarray | float, gamma: float) -> np.ndarray:
    """Scale of a prediction error at the given leverage(s)."""
    return np.sqrt(1.0 + gamma * np.asarray(leverage, dtype=float))


def upper_order_statistic(values: np.ndarray, level: float) -> float:
    """The ``ceil(level (n + 1))``-th smallest value; +inf when that rank exceeds n."""
    n = len(values)
    rank = conformal_rank(n, level)
    if rank > n:
        return float("inf")
    return float(np.partition(np.asarray(values, dtype=float), rank - 1)[rank - 1])


def split_interval(
    prediction: float, scores: np.ndarray, sigma_x: float, level: float
) -> tuple[float, float]:
    """``prediction +- sigma_x q(scores)`` (may be infinite for small n)."""
    half = sigma_x * upper_order_statistic(scores, level)
    return prediction - half, prediction + half


def leave_one_out_widths(
    errors: np.ndarray, leverage: np.ndarray, level: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """Each model's half-width from the other models' normalized scores.

    Returns:
        ``gamma`` (from all models), the half-widths and whether each error was
        covered. The half-width of model i is ``sigma_i q(R_-i)``.
    """
    gamma = variance_slope(errors, leverage)
    sig = sigma(leverage, gamma)
    scores = np.abs(errors) / sig
    n = len(scores)
    rank = conformal_rank(n - 1, level)
    if rank > n - 1:
        half = np.full(n, np.inf)
    else:
        order = np.sort(scores)
        position = np.searchsorted(order, scores, side="left")
        # the rank-th smallest of the others: skip model i's own score when it lies below
        half = sig * np.where(position < rank, order[np.minimum(rank, n - 1)], order[rank - 1])
    return gamma, half, np.abs(errors) <= half


#: Days in a year: drift and spread are stated per year of distance in time.
YEAR = 365.25


@dataclass(frozen=True)
class TimeDrift:
    """How forward-in-time errors move with the distance in time from the references.

    ``error = drift * gap + sqrt(1 + growth * gap) * noise`` (gap in years): a trend and a
    variance growing linearly with the distance, as a random walk's.

    Attributes:
        drift: Theil-Sen slope of the signed errors on the gap, per year, clipped at 0
            from above (only a rising frontier is extrapolated).
        growth: :func:`variance_slope` of the detrended errors on the gap (per year).
        quantile: the conformal quantile of the detrended errors scaled to gap 0.
        n: held-out predictions it is fitted on.
        level: the level ``quantile`` is calibrated for: the one asked for, or ``n / (n +
            1)`` (the largest error's) when ``n`` is too small for it.
    """

    drift: float
    growth: float
    quantile: float
    n: int
    level: float

    def shift(self, gap_days: float) -> float:
        """The correction added to a prediction ``gap_days`` newer than the references."""
        return -self.drift * max(gap_days, 0.0) / YEAR

    def half_width(self, gap_days: float) -> float:
        """The half-width at ``gap_days`` from the newest reference."""
        return float(self.quantile * sigma(max(gap_days, 0.0) / YEAR, self.growth))


def time_drift(errors: np.ndarray, gaps_days: np.ndarray, level: float) -> TimeDrift:
    """Fit :class:`TimeDrift` on forward-in-time errors and their gaps (days).

    A model ``g`` years newer than the references then gets ``yhat - drift g +- sqrt(1 +
    growth g) q``: the held-out errors are taken as exchangeable after removing the trend
    and scaling by the distance in time.
    """
    e, g = np.asarray(errors, dtype=float), np.asarray(gaps_days, dtype=float) / YEAR
    drift = min(float(stats.theilslopes(e, g).slope), 0.0) if len(e) >= 3 and np.ptp(g) > 0 else 0.0
    resid = e - drift * g
    growth = variance_slope(resid, g)
    scores = np.abs(resid) / sigma(g, growth)
    quantile, reached = upper_order_statistic(scores, level), float(level)
    if not np.isfinite(quantile) and len(scores):  # too few for `level`: the largest error
        quantile, reached = float(np.max(scores)), len(scores) / (len(scores) + 1)
    return TimeDrift(drift, growth, quantile, len(e), reached)
