"""Which of two scores predicts a third better, across models: a paired comparison of errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._checks import (
    RngLike,
    _as_vector,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    label_mismatch,
)
from ._resampling import _bootstrap_index_blocks, _percentile_interval
from ._results import ConfidenceInterval, StatsResult


def loo_errors(target: np.ndarray, predictor: np.ndarray) -> np.ndarray:
    """Leave-one-out errors of the least-squares line ``target ~ a + b * predictor``.

    The exact closed form (the PRESS residuals ``e_i / (1 - h_ii)``): each model's error
    when the line is fitted on the other models. Batched over leading axes (rows of
    resampled models).
    """
    xm = predictor.mean(axis=-1, keepdims=True)
    ym = target.mean(axis=-1, keepdims=True)
    sxx = ((predictor - xm) ** 2).sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = ((predictor - xm) * (target - ym)).sum(axis=-1, keepdims=True) / sxx
        residual = target - ym - slope * (predictor - xm)
        leverage = 1.0 / predictor.shape[-1] + (predictor - xm) ** 2 / sxx
        return residual / (1.0 - leverage)


def _mae_gap(target: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mean |leave-one-out error| of b's line minus a's (batched over leading axes)."""
    return np.abs(loo_errors(target, b)).mean(axis=-1) - np.abs(loo_errors(target, a)).mean(axis=-1)


@dataclass(frozen=True, repr=False)
class PredictiveComparisonResult(StatsResult):
    """Result of :func:`predictive_comparison`.

    Attributes:
        table: one row per model: ``model``, ``target``, ``a``, ``b``, ``error_a`` and
            ``error_b`` (leave-one-out errors of each line), ``difference``
            (``|error_b| - |error_a|``: > 0 where ``a`` predicts the model better).
        statistic: mean of ``difference``: how much smaller ``a``'s mean absolute error
            is than ``b``'s (> 0: ``a`` predicts better).
        pvalue: twice the smaller share of bootstrap resamples on either side of 0.
        confidence_interval: percentile interval over the resampled models.
        mae_a: ``a``'s mean absolute leave-one-out error.
        mae_b: ``b``'s.
        r_a: Pearson correlation of ``a`` with the target (descriptive).
        r_b: the same for ``b``.
        n: models used.
        n_resamples: bootstrap resamples.
        confidence_level: level of the interval.
        method: what was computed.
    """

    table: pd.DataFrame
    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    mae_a: float
    mae_b: float
    r_a: float
    r_b: float
    n: int
    n_resamples: int
    confidence_level: float
    method: str

    def to_frame(self) -> pd.DataFrame:
        """The per-model table (a copy)."""
        return self.table.copy()


def predictive_comparison(
    target: Any,
    a: Any,
    b: Any,
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> PredictiveComparisonResult:
    """Does ``a`` predict ``target`` better than ``b`` does, model by model?

    Typical use: is a model's private mean on RTEB better predicted by its public mean
    (``a``) or by its MTEB(eng, v2) mean (``b``)? Each predictor gets its least-squares
    line (the scales differ), and each model its **leave-one-out** error under each line,
    so neither line has seen the model it predicts. The statistic is the mean of
    ``|error_b| - |error_a|`` over the models, paired by model. Its interval is a
    percentile bootstrap over the models **with both lines refitted in every resample**:
    the lines are shared by all the models' errors, so a sign-flip test of the
    differences (models as independent units) rejects too often when a few models pull a
    line (measured: heavy tails, outliers). The p-value is twice the smaller share of
    resamples on either side of 0 (it is below ``1 - confidence_level`` exactly when the
    interval excludes 0).

    * **Null hypothesis**: the two predictors' expected absolute leave-one-out errors
      are equal. **Assumptions**: models independent; a line per predictor describes the
      relation (a curve would favour the predictor it fits better). Absolute errors, not
      squared, so that one badly predicted model does not decide. Measured type-I error
      (normal, heavy-tailed and correlated errors, outliers) at 34 and 60 models:
      ``benchmarks/results/goodhart_validation.md``.
    * Three Series are paired by label (the same models, in any order; a model missing
      in one of them is an error); a NaN in any of the three drops the model.

    Args:
        target: the score to predict, one per model.
        a: the first predictor.
        b: the second predictor.
        n_resamples: bootstrap resamples of the models.
        confidence_level: level of the interval.
        rng: seed or Generator.

    Returns:
        PredictiveComparisonResult.

    Raises:
        ValueError: lengths differ, fewer than 4 complete models, inf, or a bad option.
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
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    gen = _check_rng(rng)
    frame = _aligned(target, a, b)
    if len(frame) < 4:
        raise ValueError(f"`target`, `a` and `b` need at least 4 complete models, got {len(frame)}")
    y, xa, xb = (frame[c].to_numpy() for c in ("target", "a", "b"))
    frame["error_a"], frame["error_b"] = loo_errors(y, xa), loo_errors(y, xb)
    frame["difference"] = frame["error_b"].abs() - frame["error_a"].abs()
    dist = np.concatenate(
        [
            _mae_gap(y[idx], xa[idx], xb[idx])
            for idx in _bootstrap_index_blocks(len(y), n_resamples, gen)
        ]
    )
    dist = dist[np.isfinite(dist)]  # a resample with one distinct predictor value has no line
    low, high = _percentile_interval(dist[None].copy(), confidence_level, "two-sided")
    pvalue = min(1.0, 2.0 * min(float((dist <= 0).mean()), float((dist >= 0).mean())))
    return PredictiveComparisonResult(
        table=frame.reset_index(),
        statistic=float(frame["difference"].mean()),
        pvalue=pvalue,
        confidence_interval=ConfidenceInterval(float(low[0]), float(high[0])),
        mae_a=float(frame["error_a"].abs().mean()),
        mae_b=float(frame["error_b"].abs().mean()),
        r_a=float(np.corrcoef(y, xa)[0, 1]),
        r_b=float(np.corrcoef(y, xb)[0, 1]),
        n=len(frame),
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=(
            "mean |leave-one-out error| of b's least-squares line minus a's, paired by model; "
            f"percentile bootstrap over {n_resamples} resamples of the models, both lines "
            "refitted in each"
        ),
    )


def _aligned(target: Any, a: Any, b: Any) -> pd.DataFrame:
    """The three inputs as columns of one frame (by label for Series), NaN rows dropped."""
    inputs = {"target": target, "a": a, "b": b}
    if all(isinstance(v, pd.Series) for v in inputs.values()):
        index = target.index
        for name, value in inputs.items():
            if value.index.has_duplicates or set(value.index) != set(index):
                raise label_mismatch("target", index, name, value.index)
        frame = pd.DataFrame({n: v.reindex(index).astype(float) for n, v in inputs.items()})
        frame = frame.sort_index()
    else:
        arrays = {n: _as_vector(v, n) for n, v in inputs.items()}
        if len({len(v) for v in arrays.values()}) > 1:
            raise ValueError("`target`, `a` and `b` must have the same length")
        frame = pd.DataFrame(arrays)
    frame.index.name = "model"
    if np.isinf(frame.to_numpy()).any():
        raise ValueError("`target`, `a` or `b` contains inf")
    return frame.dropna()
