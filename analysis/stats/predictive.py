"""Which of two scores predicts a third better, across models: a paired comparison of errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import t as t_dist

from ._checks import _check_open_unit, align_vectors
from ._results import ConfidenceInterval, TableResult


def loo_errors(target: np.ndarray, predictor: np.ndarray, weights: Any = None) -> np.ndarray:
    """Leave-one-out errors of the least-squares line ``target ~ a + b * predictor``.

    The exact closed form (the PRESS residuals ``e_i / (1 - h_ii)``): each model's error
    when the line is fitted on the other models. ``weights`` (0/1, batched over leading
    axes) drop the models weighted 0 from every fit (their errors are then those of the
    line of the others). Returns (..., n).
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

    Row k: the mean over the models other than k of ``|error_b| - |error_a|``, their
    leave-one-out errors taken among those n - 1 models. Returns (n,).
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
        statistic: mean of ``difference``: how much smaller ``a``'s mean absolute error
            is than ``b``'s (> 0: ``a`` predicts better).
        se: its jackknife standard error over the models.
        df: degrees of freedom of the t reference (``n - 1``).
        pvalue: two-sided, ``statistic / se`` against t with ``df``.
        confidence_interval: ``statistic +- t * se``.
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
    df: float
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
    target: Any, a: Any, b: Any, *, confidence_level: float = 0.95
) -> PredictiveComparisonResult:
    """Does ``a`` predict ``target`` better than ``b`` does, model by model?

    Typical use: is a model's private mean on RTEB better predicted by its public mean
    (``a``) or by its MTEB(eng, v2) mean (``b``)? Each predictor gets its least-squares
    line (the scales differ), and each model its **leave-one-out** error under each line,
    so neither line has seen the model it predicts. The statistic is the mean of
    ``|error_b| - |error_a|`` over the models, paired by model.

    * **Standard error**: the delete-one jackknife over the models, **both lines refitted
      without the model left out** and every other model's leave-one-out error
      recomputed: the lines are shared by all the models' errors, so the errors are not
      independent. A paired t or sign-flip test of the differences (models as independent
      units) was measured rejecting too often when a few models pull a line (outliers),
      and so was the percentile bootstrap with heavy tails; the jackknife does not, and
      is conservative (type-I error 0.03-0.04 at 34 models): its variance overstates the
      statistic's (Efron-Stein), measured in ``benchmarks/results/goodhart_validation.md``.
      ``pvalue``: ``statistic / se`` against Student's t with ``n - 1`` degrees of
      freedom; the interval ``statistic +- t * se`` excludes 0 exactly when ``pvalue <
      1 - confidence_level``.
    * **Null hypothesis**: the two predictors' expected absolute leave-one-out errors
      are equal. **Assumptions**: models independent; a line per predictor describes the
      relation (a curve would favour the predictor it fits better). Absolute errors, not
      squared, so that one badly predicted model does not decide.
    * Three Series are paired by label (the same models, in any order; a model missing
      in one of them is an error), three arrays by position; a NaN drops the model.

    Args:
        target: the score to predict, one per model.
        a: the first predictor.
        b: the second predictor.
        confidence_level: level of the interval.

    Returns:
        PredictiveComparisonResult.

    Raises:
        ValueError: lengths differ, Series mixed with arrays, fewer than 4 complete models,
            inf, or a bad option.
        LabelMismatchError: Series with different models.

    Examples:
        60 models; ``a`` tracks the target more closely than ``b`` (synthetic):

        >>> import numpy as np
        >>> from analysis.stats import predictive_comparison
        >>> rng = np.random.default_rng(3)
        >>> truth = rng.normal(size=60)
        >>> res = predictive_comparison(truth + rng.normal(0, 0.3, 60),
        ...                             truth + rng.normal(0, 0.3, 60),
        ...                             2 * truth + rng.normal(0, 1.5, 60))
        >>> bool(res.statistic > 0), bool(res.pvalue < 0.05), res.n
        (True, True, 60)
    """
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    frame = _aligned(target, a, b)
    if len(frame) < 4:
        raise ValueError(f"`target`, `a` and `b` need at least 4 complete models, got {len(frame)}")
    y, xa, xb = (frame[c].to_numpy() for c in ("target", "a", "b"))
    frame["error_a"], frame["error_b"] = loo_errors(y, xa), loo_errors(y, xb)
    frame["difference"] = frame["error_b"].abs() - frame["error_a"].abs()
    n = len(frame)
    statistic = float(frame["difference"].mean())
    left_out = jackknife_gaps(y, xa, xb)
    se = float(np.sqrt((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum()))
    half = float(t_dist.ppf(0.5 + confidence_level / 2, n - 1)) * se
    pvalue = float(2 * t_dist.sf(abs(statistic) / se, n - 1)) if se > 0 else float(statistic == 0)
    return PredictiveComparisonResult(
        table=frame.reset_index(),
        statistic=statistic,
        se=se,
        df=float(n - 1),
        pvalue=pvalue,
        confidence_interval=ConfidenceInterval(statistic - half, statistic + half),
        mae_a=float(frame["error_a"].abs().mean()),
        mae_b=float(frame["error_b"].abs().mean()),
        r_a=float(np.corrcoef(y, xa)[0, 1]),
        r_b=float(np.corrcoef(y, xb)[0, 1]),
        n=n,
        confidence_level=confidence_level,
        method=(
            "mean |leave-one-out error| of b's least-squares line minus a's, paired by model; "
            f"delete-one jackknife standard error over the {n} models (both lines refitted "
            f"without each), t with {n - 1} df"
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
