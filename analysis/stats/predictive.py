"""Which of two scores predicts a third better, across models: a paired comparison of errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import iqr, kendalltau, theilslopes

from ._checks import RngLike, _check_n_resamples, _check_open_unit, _check_rng, align_vectors
from ._resampling import _BLOCK, _rows_per_block, permutation_critical, permutation_pvalue
from ._results import ConfidenceInterval, TableResult


def pair_errors(target: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Row k, column i: model i's error under the line of the models but k and i.

    The diagonal: its leave-one-out (PRESS) error. Least squares from the centred sums,
    each pair's terms taken out; ``x`` (..., n); returns (..., n, n).
    """
    n, eye = target.shape[-1], np.eye(target.shape[-1], dtype=bool)
    x, y = x - x.mean(axis=-1, keepdims=True), target - target.mean()
    xi, xk, yk = (
        x[..., None, :],
        np.where(eye, 0.0, x[..., :, None]),
        np.where(eye, 0.0, y[:, None]),
    )
    m, sum_ = np.where(eye, n - 1.0, n - 2.0), lambda v: v.sum(axis=-1)[..., None, None]
    sx, sy, sxx = sum_(x) - xi - xk, -y - yk, sum_(x * x) - xi * xi - xk * xk
    sxy = sum_(x * y) - xi * y - xk * yk
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (sxy - sx * sy / m) / (sxx - sx * sx / m)
    return y - (sy - slope * sx) / m - slope * xi


def pseudo_values(target: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The jackknife's pseudo-values of ``mean |error_b| - mean |error_a|``.

    Both lines refitted without each model; ``a``, ``b`` (..., n); returns (..., n).
    """
    n, eye = target.shape[-1], np.eye(target.shape[-1], dtype=bool)
    gaps = np.abs(pair_errors(target, b)) - np.abs(pair_errors(target, a))
    full = np.diagonal(gaps, axis1=-2, axis2=-1).mean(axis=-1)[..., None]
    return n * full - np.where(eye, 0.0, gaps).sum(axis=-1)


def onto(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b`` mapped onto ``a``'s scale by a robust line symmetric in the two.

    Slope: Kendall's tau's sign times the geometric mean of the Theil-Sen slopes of b on
    a and of a on b (their interquartile ranges' ratio where a slope is 0: coarse
    values), through the median of ``b - slope * a``. ``onto(b, a)`` is its inverse.
    """
    slopes = theilslopes(b, a).slope, theilslopes(a, b).slope
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = abs(slopes[0] / slopes[1]) ** 0.5 if 0 not in slopes else iqr(b) / iqr(a)
    ratio = ratio if np.isfinite(ratio) and ratio > 0 else np.std(b) / np.std(a)
    slope = ratio * (-1.0 if kendalltau(a, b).statistic < 0 else 1.0)
    return (b - np.median(b - slope * a)) / slope


def studentized(pseudo: np.ndarray) -> np.ndarray:
    """The pseudo-values' mean over its standard error, along the last axis (0 if se is 0)."""
    se = pseudo.std(axis=-1, ddof=1) / np.sqrt(pseudo.shape[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, pseudo.mean(axis=-1) / se, 0.0)


def swapped_t(y: np.ndarray, a: np.ndarray, b: np.ndarray, swaps: int, gen: Any) -> np.ndarray:
    """The studentized statistic with each model's ``a`` and mapped ``b`` swapped at random.

    Every line refitted; ``swaps`` values, drawn in blocks that bound the memory.
    """
    mapped, out = onto(a, b), []
    step = _rows_per_block(len(y) ** 2, swaps, _BLOCK // 8)  # about 30 arrays of a block
    for size in np.diff(np.r_[0:swaps:step, swaps]):
        swap = gen.random((size, len(y))) < 0.5
        worlds = pseudo_values(y, np.where(swap, mapped, a), np.where(swap, a, mapped))
        out.append(studentized(worlds))
    return np.concatenate(out)


@dataclass(frozen=True, repr=False)
class PredictiveComparisonResult(TableResult):
    """Result of :func:`predictive_comparison`.

    Attributes:
        table: one row per model: ``model``, ``target``, ``a``, ``b``, ``error_a`` and
            ``error_b`` (leave-one-out errors of each line), ``difference``
            (``|error_b| - |error_a|``: > 0 where ``a`` predicts the model better).
        statistic: ``mae_b - mae_a`` bias-corrected by the jackknife (the mean of the
            pseudo-values; > 0: ``a`` predicts better).
        se: its jackknife standard error over the models.
        pvalue: two-sided, of ``statistic / se`` against its values with each model's two
            predictions swapped at random (every line refitted).
        confidence_interval: ``statistic +- q * se``, ``q`` the swaps' critical value.
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

    * **Statistic**: the lines are shared by every model's error, so the differences
      ``|error_b| - |error_a|`` are not independent. The delete-one jackknife, **both
      lines refitted without each model**, gives pseudo-values ``n * mean - (n - 1) *
      mean without model k``; ``statistic`` is their mean, ``se`` their standard error.
    * **Test**: a model far off one line pulls that line, and so moves every other
      model's error under it; flips of the pseudo-values take those moves as independent evidence
      (liberal when one or two models in 34 are far off one predictor: the report's sweep). So
      ``statistic / se`` is referred to its values with each model's ``a`` and ``b`` swapped at
      random, ``b`` first mapped onto ``a``'s scale by a robust line symmetric in the two
      (:func:`onto`), every line and jackknife refitted: a swapped model takes its pull to the other
      line. The interval is ``statistic +- q * se`` with ``q`` the swaps' critical value: it
      excludes 0 exactly when p is below the level (``1 - confidence_level`` taken exactly).
    * **Null**: each model's ``a`` and ``b``, on one scale, are exchangeable (the test is
      exact then, but for the estimated mapping); it implies the lines' expected absolute
      errors are equal. Where the errors differ in shape but not in that expectation the
      test is only approximate: it holds with heavy, skewed, correlated or unequal errors
      and outlying models measured alike on both predictors (below), but rare, large errors
      on one predictor only can lie outside a sample of 34 models, which then shows that
      predictor as the better one (no test of a mean over the models sees them).
      **Assumptions**: models independent; a line per predictor fits (a curve favours the
      one it fits better). Measured in ``benchmarks/results/goodhart_validation.md``:
      heavy, skewed, correlated and unequal errors, outlying models, and predictors off by
      1 to 4 (errors SD 0.3) in 5 to 20% of the models.
    * Three Series are paired by label (the same models, in any order; a model missing
      in one of them is an error), three arrays by position; a NaN drops the model.

    Args:
        target: the score to predict, one per model.
        a: the first predictor.
        b: the second predictor.
        confidence_level: level of the interval.
        n_resamples: random swaps.
        rng: seed or Generator of the swaps.

    Returns:
        PredictiveComparisonResult.

    Raises:
        ValueError: lengths differ, Series mixed with arrays, < 4 complete models, inf, a
            predictor off its commonest value in fewer than 3 models, bad option.
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
    if (n := len(frame)) < 4:
        raise ValueError(f"`target`, `a` and `b` need at least 4 complete models, got {n}")
    y, xa, xb = (frame[c].to_numpy() for c in ("target", "a", "b"))
    for name, x in (("a", xa), ("b", xb)):  # every line without two models needs a slope
        if (left := n - np.unique(x, return_counts=True)[1].max()) < 3:
            raise ValueError(
                f"`{name}` differs from its commonest value in {left} of the {n} "
                "models; leaving two out can leave no slope: 3 are needed"
            )
    frame["error_a"], frame["error_b"] = (np.diagonal(pair_errors(y, x)) for x in (xa, xb))
    frame["difference"] = frame["error_b"].abs() - frame["error_a"].abs()
    pseudo = pseudo_values(y, xa, xb)
    statistic, se = float(pseudo.mean()), float(pseudo.std(ddof=1) / np.sqrt(n))
    null = np.sort(np.abs(swapped_t(y, xa, xb, n_resamples, gen)))
    half = permutation_critical(null, 1 - level)[0] * se if se > 0 else 0.0
    return PredictiveComparisonResult(
        table=frame.reset_index(),
        statistic=statistic,
        se=se,
        pvalue=permutation_pvalue(null, float(studentized(pseudo))),
        confidence_interval=ConfidenceInterval(statistic - half, statistic + half),
        mae_a=float(frame["error_a"].abs().mean()),
        mae_b=float(frame["error_b"].abs().mean()),
        r_a=float(np.corrcoef(y, xa)[0, 1]),
        r_b=float(np.corrcoef(y, xb)[0, 1]),
        n=n,
        confidence_level=level,
        method=(
            "mean |leave-one-out error| of b's least-squares line minus a's, paired by model, "
            f"as the mean of its jackknife pseudo-values over the {n} models (both lines "
            "refitted without each), over its jackknife standard error, referred to "
            f"{n_resamples} random swaps of each model's a and b (b mapped onto a's scale by "
            "a symmetric Theil-Sen line; every line refitted); interval: statistic +- the "
            "swaps' critical value times the standard error"
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
