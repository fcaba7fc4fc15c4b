"""Contrast of two groups of models (e.g. static vs transformer): Welch's t, its interval."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import t as t_dist

from ._checks import _check_open_unit, align_labels
from ._results import ConfidenceInterval, StatsResult

_MIN_GROUP = 3


@dataclass(frozen=True, repr=False)
class GroupContrastResult(StatsResult):
    """Result of :func:`group_contrast`.

    Attributes:
        statistic: mean of group a minus mean of group b.
        pvalue: two-sided Welch t-test p-value; NaN when a group has fewer than 3 models.
        confidence_interval: Welch interval of the difference; (NaN, NaN) when a group has
            fewer than 3 models.
        n_a, n_b: members of each group.
        mean_a, mean_b: each group's mean.
        sd_a, sd_b: each group's standard deviation (ddof=1; NaN for one member).
        t_statistic: Welch's t, ``statistic / standard_error``.
        df: Welch-Satterthwaite degrees of freedom.
        standard_error: ``sqrt(sd_a**2 / n_a + sd_b**2 / n_b)``.
        confidence_level: level of the interval.
        method: what was done.
        caveat: why there is no test and no interval, else ``""``.
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    sd_a: float
    sd_b: float
    t_statistic: float
    df: float
    standard_error: float
    confidence_level: float
    method: str
    caveat: str

    def to_frame(self) -> pd.DataFrame:
        """One row: the groups, the difference, its interval and p-value."""
        return self._one_row(
            "n_a n_b mean_a mean_b sd_a sd_b difference=statistic "
            "ci_low=confidence_interval.low ci_high=confidence_interval.high t=t_statistic "
            "df pvalue caveat"
        )


def welch(
    a_mean: np.ndarray,
    a_var: np.ndarray,
    n_a: int,
    b_mean: np.ndarray,
    b_var: np.ndarray,
    n_b: int,
    confidence_level: float,
) -> dict[str, np.ndarray]:
    """Welch's t, df, two-sided p-value and interval, vectorised over leading axes."""
    va, vb = a_var / n_a, b_var / n_b
    var, estimate = va + vb, a_mean - b_mean
    with np.errstate(invalid="ignore", divide="ignore"):
        df = var**2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
        df = np.where(var > 0, df, n_a + n_b - 2.0)
        se = np.sqrt(var)
        t = estimate / se
        pvalue = np.where(var > 0, 2.0 * t_dist.sf(np.abs(t), df), (estimate == 0) * 1.0)
        half = t_dist.ppf(0.5 + confidence_level / 2.0, df) * se
    return {
        "estimate": estimate,
        "t": t,
        "df": df,
        "se": se,
        "pvalue": pvalue,
        "low": estimate - half,
        "high": estimate + half,
    }


def _welch_parts(a: np.ndarray, b: np.ndarray, level: float) -> dict[str, np.ndarray]:
    """:func:`welch` of mean(a) - mean(b) per column (samples on axis -2)."""
    (m_a, v_a, n_a), (m_b, v_b, n_b) = (
        (x.mean(axis=-2), x.var(axis=-2, ddof=1), x.shape[-2]) for x in (a, b)
    )
    return welch(m_a, v_a, n_a, m_b, v_b, n_b, level)


def group_contrast(
    values: Any, groups: Any, *, group_a: Any, group_b: Any, confidence_level: float = 0.95
) -> GroupContrastResult:
    """Difference of two group means with Welch's t-test and interval.

    ``values[i]`` is a number per model (e.g. its relative public-private gap) and
    ``groups[i]`` its group label; models in other groups are ignored. Two Series are
    paired by label, anything else by position.

    * **Null hypothesis**: the two groups' population means are equal; the spreads may
      differ. Welch's t with Welch-Satterthwaite degrees of freedom (as
      ``scipy.stats.ttest_ind(equal_var=False)``); the interval inverts the same test, so
      it excludes 0 exactly when ``pvalue < 1 - confidence_level``.
    * **Assumptions**: models independent (one family's variants are not: read the result
      as descriptive then); each group's mean roughly normal. Welch rejects more often than alpha
      with strongly skewed values and a small group; a permutation of the labels, or of Welch's t,
      does worse with unequal spreads (both measured: ``benchmarks/README_stats.md``, section "Issue
      18"; the statistics guide, "Do two groups of models differ?").
    * **A group under 3 models gets neither a test nor an interval** (NaN, ``caveat`` says
      why): its spread cannot be estimated.

    Args:
        values: one number per model (1-D, finite in the two groups).
        groups: one label per model (a Series is paired with ``values`` by label).
        group_a: label of the first group.
        group_b: label of the second group (different from ``group_a``).
        confidence_level: level of the interval, in (0, 1).

    Raises:
        ValueError: lengths differ, a value in the two groups is NaN or inf, a group is empty,
            ``group_a == group_b``, or an option is invalid. The message names the argument.
        LabelMismatchError: two Series with different labels.

    Examples:
        One number per model, in two groups of 5 (synthetic; ``static`` about 1 higher):

        >>> import numpy as np
        >>> from analysis.stats import group_contrast
        >>> rng = np.random.default_rng(0)
        >>> values = np.r_[rng.normal(1, 0.3, 5), rng.normal(0, 0.3, 5)]
        >>> groups = ["static"] * 5 + ["transformer"] * 5
        >>> res = group_contrast(values, groups, group_a="static", group_b="transformer")
        >>> res.n_a, res.n_b, bool(res.pvalue < 0.05), bool(res.confidence_interval.low > 0)
        (5, 5, True, True)
    """
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    vals, labels = align_labels(values, groups, ("values", "groups"))
    if group_a == group_b:
        raise ValueError(
            f"`group_a` and `group_b` are the same label {group_a!r}; contrast two different groups"
        )
    in_a, in_b = labels == group_a, labels == group_b
    for name, label, mask in (("group_a", group_a, in_a), ("group_b", group_b, in_b)):
        if not mask.any():
            present = sorted({str(x) for x in labels})[:10]
            raise ValueError(
                f"`{name}`: no model has the label {label!r} in `groups` (labels: {present})"
            )
        if not np.isfinite(vals[mask]).all():
            raise ValueError(f"`values` has NaN or inf in group {label!r}")
    a, b = vals[in_a], vals[in_b]
    n_a, n_b = len(a), len(b)
    testable = min(n_a, n_b) >= _MIN_GROUP
    res = dict.fromkeys(("pvalue", "low", "high", "t", "df", "se"), math.nan)
    if testable:
        parts = _welch_parts(a[:, None], b[:, None], confidence_level)
        res = {key: float(parts[key][0]) for key in res}
    small = group_a if n_a < _MIN_GROUP else group_b
    caveat = (
        f"No test and no interval: group {small!r} has {min(n_a, n_b)} model(s); with "
        f"fewer than {_MIN_GROUP} models a group's spread cannot be estimated, and a test "
        "would rest on an assumption the data cannot check."
    )
    return GroupContrastResult(
        statistic=float(a.mean() - b.mean()),
        pvalue=res["pvalue"],
        confidence_interval=ConfidenceInterval(res["low"], res["high"]),
        n_a=n_a,
        n_b=n_b,
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        sd_a=float(a.std(ddof=1)) if n_a > 1 else math.nan,
        sd_b=float(b.std(ddof=1)) if n_b > 1 else math.nan,
        t_statistic=res["t"],
        df=res["df"],
        standard_error=res["se"],
        confidence_level=confidence_level,
        method=(
            "Welch's t-test (unequal variances, Welch-Satterthwaite df); "
            "interval by inverting it (Welch interval)"
            if testable
            else "difference of group means only (a group under 3 models)"
        ),
        caveat="" if testable else caveat,
    )
