"""analysis.stats.contrast.group_contrast: against scipy's Welch test, hand-computed cases, checks."""

import math

import numpy as np
import pytest
import scipy.stats as st

from analysis.stats import group_contrast


def test_group_contrast_equals_scipy_welch():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.5, 2, 7), rng.normal(0, 0.5, 30)
    values = np.r_[a, b]
    labels = ["s"] * 7 + ["t"] * 30
    res = group_contrast(values, labels, group_a="s", group_b="t", confidence_level=0.9)
    ref = st.ttest_ind(a, b, equal_var=False)
    assert res.statistic == pytest.approx(a.mean() - b.mean())
    assert res.t_statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.df == pytest.approx(ref.df, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert tuple(res.confidence_interval) == pytest.approx(tuple(ref.confidence_interval(0.9)))
    assert (res.sd_a, res.sd_b) == pytest.approx((a.std(ddof=1), b.std(ddof=1)))
    assert res.caveat == "" and "Welch" in res.method


def test_group_contrast_hand_computed():
    # a = (3, 4, 5), b = (0, 1, 2, 3): means 4 and 1.5; variances 1 and 5/3;
    # se^2 = 1/3 + 5/12 = 0.75; t = 2.5 / sqrt(0.75); df = 0.75^2 / ((1/3)^2/2 + (5/12)^2/3)
    res = group_contrast([3, 0, 4, 1, 5, 2, 3], list("abababb"), group_a="a", group_b="b")
    assert res.statistic == pytest.approx(2.5)
    assert res.standard_error == pytest.approx(math.sqrt(0.75))
    assert res.t_statistic == pytest.approx(2.5 / math.sqrt(0.75))
    assert res.df == pytest.approx(0.75**2 / ((1 / 3) ** 2 / 2 + (5 / 12) ** 2 / 3))
    lo, hi = res.confidence_interval
    assert (res.pvalue < 0.05) == (not lo <= 0 <= hi)


def test_group_contrast_small_group_has_no_test_and_says_why():
    res = group_contrast([3, 0, 4, 1, 2], ["a", "b", "a", "b", "b"], group_a="a", group_b="b")
    assert res.statistic == pytest.approx(2.5)
    assert np.isnan(res.pvalue) and np.isnan(res.confidence_interval.low)
    assert "No test and no interval" in res.caveat and "'a' has 2 model(s)" in res.caveat
    assert "No test" in repr(res)


def test_group_contrast_interval_excludes_zero_iff_p_below_alpha():
    rng = np.random.default_rng(2)
    for _ in range(40):
        n_a, n_b = rng.integers(3, 12, size=2)
        values = np.r_[
            rng.normal(rng.normal(0, 1), rng.uniform(0.2, 3), n_a), rng.normal(0, 1, n_b)
        ]
        labels = ["a"] * n_a + ["b"] * n_b
        res = group_contrast(values, labels, group_a="a", group_b="b", confidence_level=0.9)
        lo, hi = res.confidence_interval
        assert (res.pvalue < 0.1) == (not lo <= 0 <= hi)


def test_group_contrast_bad_input():
    values, labels = [1.0, 2, 3, 4, 5, 6], list("aaabbb")
    with pytest.raises(ValueError, match="`values` and `groups` must have the same length"):
        group_contrast([1, 2], ["a"], group_a="a", group_b="b")
    with pytest.raises(ValueError, match="`group_b`: no model has the label 'z'"):
        group_contrast(values, labels, group_a="a", group_b="z")
    with pytest.raises(ValueError, match="`values` has NaN"):
        group_contrast([np.nan, *values[1:]], labels, group_a="a", group_b="b")
    with pytest.raises(ValueError, match="`group_a` and `group_b` are the same label 'a'"):
        group_contrast(values, labels, group_a="a", group_b="a")
    with pytest.raises(ValueError, match="`confidence_level`"):
        group_contrast(values, labels, group_a="a", group_b="b", confidence_level=95)
