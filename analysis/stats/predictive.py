"""Which of two scores predicts a third better, across models: a paired comparison of errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._checks import RngLike, _check_n_resamples, _check_open_unit, _check_rng, align_vectors
from ._results import ConfidenceInterval, TableResult
from .paired import _paired_tests


def loo_errors(target: np.ndarray, predictor: np.ndarray, weights: Any = None) -> np.ndarray:
    """Leave-one-out errors of the least-squares line ``target ~ a + b * predictor``.

    The PRESS residuals ``e_i / (1 - h_ii)``: each model's error under the line of the
    others. ``weights`` (0/1, batched over leading axes) drop the models weighted 0 from
    every fit (their errors are those of the line of the others). Returns (..., n).
    """
    w = np.ones_like(predictor) if weights is None else np.asarray(weights, dtype=float)
    total = w.sum(axis=-1, keepdims=True)
    xm = (w * predictor).sum(axis=-1, keepdims=True) / total
    ym = (w * target).sum(axis=-1, keepdims=True) / total
    sxx = (w * (predictor - xm) ** 2).sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (w * (predictor - xm) * (target - ym)).sum(axis=-1, keepdims=True) / sxx
        residual = target - ym - slope * (predictor - xm)
        leverage = w * (1.0 / total + (predictor - xm) ** 2 / sxx)
        return residual / (1.0 - leverage)


def jackknife_gaps(target: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The statistic with each model left out: both lines refitted on the others.

    Row k: the mean of ``|error_b| - |error_a|`` over the other n - 1 models, their
    leave-one-out errors taken among them. Returns (n,).
    """
    keep = 1.0 - np.eye(len(target))
    gaps = np.abs(loo_errors(target, b, keep)) - np.abs(loo_errors(target, a, keep))
    return np.where(keep > 0, gaps, 0.0).sum(axis=1) / (len(target) - 1)


@dataclass(frozen=True, repr=False)
class PredictiveComparisonResult(TableResult):
    """Result of :func:`predictive_comparison`.

    Attributes:
        table: one row per model: ``model``, ``target``, ``a``, ``b``, ``error_a`` and
            ``error_b`` (leave-one-out errors of each line), ``difference``
            (``|error_b| - |error_a|``: > 0 where ``a`` predicts the model better).
        statistic: ``mae_b - mae_a`` bias-corrected by the jackknife (the mean of the
            pseudo-values; > 0: ``a`` predicts better).
        se: its jackknife standard error over the models (descriptive).
        pvalue: two-sided, of the sign-flip test of the pseudo-values.
        confidence_interval: the shifts that test does not reject.
        mae_a: ``a``'s mean absolute leave-one-out error.
        mae_b: ``b``'s.
        r_a: Pearson correlation of ``a`` with the target (descriptive).
        r_b: the same for ``b``.
        n: models used.
        confidence_level: level of the interval.
        method: what was computed.
    """

    table: pd.DataFrame
    statistic: float
    se: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    mae_a: float
    mae_b: float
    r_a: float
    r_b: float
    n: int
    confidence_level: float
    method: str


def predictive_comparison(
    target: Any,
    a: Any,
    b: Any,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
    rng: RngLike = None,
) -> PredictiveComparisonResult:
    """Does ``a`` predict ``target`` better than ``b`` does, model by model?

    Typical use: is a model's private mean on RTEB better predicted by its public mean
    (``a``) or by its MTEB(eng, v2) mean (``b``)? Each predictor gets its least-squares
    line (the scales differ), each model its **leave-one-out** error under each line.

    * **Test**: the lines are shared by every model's error, so the differences
      ``|error_b| - |error_a|`` are not independent (a paired t of them is liberal when a
      few models pull a line). The delete-one jackknife, **both lines refitted without
      each model**, gives pseudo-values ``n * mean - (n - 1) * mean without model k``
      that account for it to first order; ``statistic`` is their mean, tested by sign
      flips (:func:`paired_bootstrap`'s test, exact up to 20 models; studentized or not,
      the same) and the interval by inverting them. Below 6 models no p < 0.05.
    * **Null**: the pseudo-values are independent and symmetric about 0 (Tukey's
      approximation; the lines' expected absolute errors equal). **Assumptions**: models
      independent; a line per predictor fits (a curve favours the one it fits better).
      Measured in ``benchmarks/results/goodhart_validation.md``: at its level with heavy,
      skewed, correlated or unequal errors and outlying models, liberal when one
      predictor in ten is far off at random.
    * Three Series are paired by label (the same models, in any order; a model missing
      in one of them is an error), three arrays by position; a NaN drops the model.

    Args:
        target: the score to predict, one per model.
        a: the first predictor.
        b: the second predictor.
        confidence_level: level of the interval.
        n_resamples: random sign patterns (above 20 models).
        rng: seed or Generator of the patterns.

    Returns:
        PredictiveComparisonResult.

    Raises:
        ValueError: lengths differ, Series mixed with arrays, < 4 complete models, inf, bad option.
        LabelMismatchError: Series with different models.

    Examples:
        60 models; ``a`` tracks the target more closely than ``b`` (synthetic):

        >>> import numpy as np
        >>> from analysis.stats import predictive_comparison
        >>> rng = np.random.default_rng(3)
        >>> truth = rng.normal(size=60)
        >>> res = predictive_comparison(truth + rng.normal(0, 0.3, 60),
        ...                             truth + rng.normal(0, 0.3, 60),
        ...                             2 * truth + rng.normal(0, 1.5, 60), rng=0)
        >>> bool(res.statistic > 0), bool(res.pvalue < 0.05), res.n
        (True, True, 60)
    """
    level = _check_open_unit(confidence_level, "confidence_level")
    n_resamples, gen = _check_n_resamples(n_resamples), _check_rng(rng)
    frame = _aligned(target, a, b)
    if len(frame) < 4:
        raise ValueError(f"`target`, `a` and `b` need at least 4 complete models, got {len(frame)}")
    y, xa, xb = (frame[c].to_numpy() for c in ("target", "a", "b"))
    frame["error_a"], frame["error_b"] = loo_errors(y, xa), loo_errors(y, xb)
    frame["difference"] = frame["error_b"].abs() - frame["error_a"].abs()
    n = len(frame)
    pseudo = (n * frame["difference"].mean() - (n - 1) * jackknife_gaps(y, xa, xb))[:, None]
    flips = _paired_tests(
        pseudo, n_resamples=n_resamples, confidence_level=level, alternative="two-sided", rng=gen
    )
    return PredictiveComparisonResult(
        table=frame.reset_index(),
        statistic=float(flips.statistic[0]),
        se=float(pseudo.std(ddof=1) / np.sqrt(n)),
        pvalue=float(flips.pvalue[0]),
        confidence_interval=ConfidenceInterval(float(flips.low[0]), float(flips.high[0])),
        mae_a=float(frame["error_a"].abs().mean()),
        mae_b=float(frame["error_b"].abs().mean()),
        r_a=float(np.corrcoef(y, xa)[0, 1]),
        r_b=float(np.corrcoef(y, xb)[0, 1]),
        n=n,
        confidence_level=level,
        method=(
            "mean |leave-one-out error| of b's least-squares line minus a's, paired by model, "
            f"as the mean of its jackknife pseudo-values over the {n} models (both lines "
            f"refitted without each); {flips.method}"
        ),
    )


def _aligned(target: Any, a: Any, b: Any) -> pd.DataFrame:
    """The three inputs as columns of one frame (by label for Series), NaN rows dropped."""
    names, series = ("target", "a", "b"), [isinstance(v, pd.Series) for v in (target, a, b)]
    if any(series) and not all(series):  # two Series in different orders, paired by position
        raise ValueError("pass `target`, `a` and `b` all as Series (paired by label) or none")
    y, xa, labels = align_vectors(target, a, ("target", "a"))
    xb = align_vectors(target, b, ("target", "b"))[1]
    frame = pd.DataFrame(dict(zip(names, (y, xa, xb), strict=True)), index=labels)
    if np.isinf(frame.to_numpy()).any():
        raise ValueError("`target`, `a` or `b` contains inf")
    return frame.rename_axis("model").dropna()
