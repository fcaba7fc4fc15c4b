"""Which of two scores predicts a third better, across models: a paired test of their errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._checks import RngLike, _as_vector, label_mismatch
from ._results import ConfidenceInterval, StatsResult
from .paired import paired_bootstrap


def loo_errors(target: np.ndarray, predictor: np.ndarray) -> np.ndarray:
    """Leave-one-out errors of the least-squares line ``target ~ a + b * predictor``.

    The exact closed form (the PRESS residuals ``e_i / (1 - h_ii)``): each model's
    error when the line is fitted on the other models.
    """
    design = np.column_stack([np.ones_like(predictor), predictor])
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    residual = target - design @ coef
    leverage = np.einsum("ij,ij->i", design @ np.linalg.pinv(design.T @ design), design)
    return residual / (1.0 - leverage)


@dataclass(frozen=True, repr=False)
class PredictiveComparisonResult(StatsResult):
    """Result of :func:`predictive_comparison`.

    Attributes:
        table: one row per model: ``model``, ``target``, ``a``, ``b``, ``error_a`` and
            ``error_b`` (leave-one-out errors of each line), ``difference``
            (``|error_b| - |error_a|``: > 0 where ``a`` predicts the model better).
        statistic: mean of ``difference``: how much smaller ``a``'s mean absolute error
            is than ``b``'s (> 0: ``a`` predicts better).
        pvalue: the sign-flip p-value over the models.
        confidence_interval: the interval that inverts it.
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
    pvalue: float
    confidence_interval: ConfidenceInterval
    mae_a: float
    mae_b: float
    r_a: float
    r_b: float
    n: int
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
    so neither line has seen the model it predicts. The paired comparison, with the
    model as the unit, is :func:`analysis.stats.paired_bootstrap` of the absolute errors
    (``|error_b| - |error_a|``): its mean, a sign-flip p-value and the interval that
    inverts it.

    * **Null hypothesis**: each model's pair of absolute errors is exchangeable (neither
      predictor is better for it). **Assumptions**: models independent; a line per
      predictor describes the relation (a curve would favour the predictor it fits
      better). Absolute errors, not squared, so that one badly predicted model does not
      decide. Measured type-I error (heavy tails, outliers, correlated predictors,
      errors of different shapes with the same mean) at 60 models:
      ``benchmarks/results/goodhart_validation.md``.
    * Three Series are paired by label (the same models, in any order; a model missing
      in one of them is an error); a NaN in any of the three drops the model.

    Args:
        target: the score to predict, one per model.
        a: the first predictor.
        b: the second predictor.
        n_resamples: sign patterns when not enumerated.
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
    frame = _aligned(target, a, b)
    if len(frame) < 4:
        raise ValueError(f"`target`, `a` and `b` need at least 4 complete models, got {len(frame)}")
    y, xa, xb = (frame[c].to_numpy() for c in ("target", "a", "b"))
    frame["error_a"], frame["error_b"] = loo_errors(y, xa), loo_errors(y, xb)
    frame["difference"] = frame["error_b"].abs() - frame["error_a"].abs()
    res = paired_bootstrap(
        frame["error_b"].abs().to_numpy(),
        frame["error_a"].abs().to_numpy(),
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rng=rng,
    )
    return PredictiveComparisonResult(
        table=frame.reset_index(),
        statistic=res.statistic,
        pvalue=res.pvalue,
        confidence_interval=res.confidence_interval,
        mae_a=float(frame["error_a"].abs().mean()),
        mae_b=float(frame["error_b"].abs().mean()),
        r_a=float(np.corrcoef(y, xa)[0, 1]),
        r_b=float(np.corrcoef(y, xb)[0, 1]),
        n=len(frame),
        confidence_level=confidence_level,
        method=f"leave-one-out absolute errors of two least-squares lines, paired; {res.method}",
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
