"""All pairs of models: paired tests sharing one resampling plan, multiplicity adjustment."""

from __future__ import annotations

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
)
from .paired import _paired_tests

_CORRECTIONS = ("holm", "bonferroni", "none")


def adjust_pvalues(
    pvalues: Any, *, method: Literal["holm", "bonferroni", "none"] = "holm"
) -> np.ndarray:
    """Adjust p-values for multiple comparisons (family-wise error rate).

    Holm's step-down: sort the m p-values ascending, multiply the i-th smallest
    (i = 1..m) by ``m - i + 1``, take the running maximum and cap at 1. It controls
    the family-wise error rate under any dependence and is uniformly more powerful
    than Bonferroni (``min(1, m * p)``). ``"none"`` returns the p-values unchanged.

    Args:
        pvalues: p-values (1-D, in [0, 1]).
        method: ``"holm"``, ``"bonferroni"`` or ``"none"``.

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
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def pairwise_significance(
    scores: pd.DataFrame,
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    correction: Literal["holm", "bonferroni", "none"] = "holm",
    alpha: float = 0.05,
    rng: RngLike = None,
) -> pd.DataFrame:
    """Paired tests for every pair of models, sharing one resampling plan.

    For each unordered pair (a, b) of columns, with a before b in column order,
    this is :func:`paired_bootstrap` of ``scores[a]`` vs ``scores[b]``: same
    statistic, sign-flip p-value and percentile bootstrap CI, with the same
    assumptions (see there). All pairs share the same bootstrap resamples of the
    units and the same sign patterns, drawn once, exactly as ``paired_bootstrap``
    draws them; so a pair's p-value and CI equal ``paired_bootstrap`` with the same
    seed, and intervals of different pairs are mutually consistent. The work is a
    few matrix products (per-model resampled means, ``counts @ scores``) plus one
    row of differences per pair, chunked over pairs (and spread over a few threads
    when large): memory stays near 8 * n_models * n_resamples bytes (twice that for
    a Monte-Carlo p-value) plus a few MiB. The exact p-value counts the 2**n sign
    patterns by meeting in the middle (two halves of 2**(n/2) sums), not one by one.
    80 models x 13 tasks x 10,000 resamples (3,160 pairs) take about 0.2 s on 2
    cores (``benchmarks/bench_pairwise.py``).

    ``significant`` is ``pvalue_adjusted <= alpha``. With Holm or Bonferroni the
    adjustment is over all m = n_models*(n_models-1)/2 pairs, and the smallest
    adjusted p-value is at least ``m * min_pvalue`` (``attrs["min_pvalue"]``):
    ``2/2**n`` for the exact test over n units, ``1/(n_resamples+1)`` for
    Monte-Carlo. When that exceeds ``alpha`` no pair can be significant, whatever
    the data, and a warning says so. Example: 13 tasks give 2/8192, so Holm at 0.05
    can flag pairs only among at most 204 pairs (e.g. 20 models, or each of 80
    models against one reference): with 80 models (3,160 pairs) nothing can pass.

    Args:
        scores: one row per unit (task or query), one column per model, no missing
            values.
        n_resamples: bootstrap resamples, and sign patterns when not exact.
        confidence_level: confidence level of the intervals, in (0, 1).
        correction: multiple-comparison adjustment, ``"holm"``, ``"bonferroni"`` or
            ``"none"`` (see :func:`adjust_pvalues`).
        alpha: significance level for the ``significant`` column, in (0, 1).
        rng: seed or Generator for the resampling.

    Returns:
        DataFrame with one row per pair and columns ``model_a``, ``model_b``,
        ``difference`` (mean of a - b), ``ci_low``, ``ci_high``, ``pvalue``,
        ``pvalue_adjusted``, ``significant``, ``n``. ``attrs`` holds ``method``,
        ``min_pvalue``, ``n_resamples``, ``confidence_level``, ``correction`` and
        ``alpha``.

    Raises:
        ValueError: ``scores`` is not a DataFrame, has fewer than 2 models or 3
            units, duplicate or non-numeric columns, or missing/infinite values (the
            message names the columns); or an option is invalid.
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    correction = _check_choice(correction, "correction", _CORRECTIONS)
    alpha = _check_open_unit(alpha, "alpha")
    gen = _check_rng(rng)
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(
            f"`scores` must be a pandas DataFrame (rows = units, columns = models), "
            f"got {type(scores).__name__}"
        )
    names = list(scores.columns)
    if scores.columns.duplicated().any():
        dup = sorted({str(c) for c in scores.columns[scores.columns.duplicated()]})
        raise ValueError(f"`scores` has duplicate model columns: {dup}")
    if len(names) < 2:
        raise ValueError(f"`scores` needs at least 2 model columns, got {len(names)}")
    if len(scores) < 3:
        raise ValueError(f"`scores` needs at least 3 units (rows), got {len(scores)}")
    bad = [c for c in names if not pd.api.types.is_numeric_dtype(scores[c])]
    if bad:
        raise ValueError(f"`scores` has non-numeric columns: {bad}")
    X = scores.to_numpy(dtype=float, na_value=np.nan)
    nan_cols = [names[k] for k in np.flatnonzero(np.isnan(X).any(axis=0))]
    if nan_cols:
        raise ValueError(
            f"`scores` has missing values in columns {nan_cols}; drop incomplete models "
            "(columns) or tasks (rows) first, e.g. scores.dropna(axis=1)"
        )
    inf_cols = [names[k] for k in np.flatnonzero(np.isinf(X).any(axis=0))]
    if inf_cols:
        raise ValueError(f"`scores` has infinite values in columns {inf_cols}")
    ia, ib = np.triu_indices(len(names), 1)
    res = _paired_tests(
        X,
        ia,
        ib,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alternative="two-sided",
        rng=gen,
    )
    adjusted = adjust_pvalues(res.pvalue, method=correction)
    family = 1 if correction == "none" else len(ia)
    if family * res.min_pvalue > alpha:
        more = "" if res.exact else ", more resamples"
        warnings.warn(
            f"pairwise_significance: no pair can be significant at alpha={alpha}: the "
            f"smallest attainable p-value is {res.min_pvalue:.3g} ({res.method.split(';')[0]})"
            + (f" and {correction} multiplies it by the {family} pairs" if family > 1 else "")
            + f". Use more units{more} or fewer comparisons.",
            UserWarning,
            stacklevel=2,
        )
    col = np.array(names, dtype=object)
    out = pd.DataFrame(
        {
            "model_a": col[ia],
            "model_b": col[ib],
            "difference": res.statistic,
            "ci_low": res.low,
            "ci_high": res.high,
            "pvalue": res.pvalue,
            "pvalue_adjusted": adjusted,
            "significant": adjusted <= alpha,
            "n": len(X),
        }
    )
    out.attrs.update(
        method=res.method,
        min_pvalue=res.min_pvalue,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        correction=correction,
        alpha=alpha,
    )
    return out
