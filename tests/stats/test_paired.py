"""analysis.stats.paired.paired_bootstrap: against scipy, brute force, hand-computed cases, checks."""

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from analysis.stats import PairedTestResult, paired_bootstrap
from tests.stats._montecarlo import mc_tol


def mean_diff(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


def subset_means(d):
    """All 2**n - 1 nonempty subset means, by brute force (reference for the inversion)."""
    n = len(d)
    return np.array(
        [np.mean(d[list(c)]) for r in range(1, n + 1) for c in itertools.combinations(range(n), r)]
    )


def brute_pvalue(d, shift=0.0, alternative="two-sided"):
    """Sign-flip p-value of mean(d - shift) over all 2**n patterns, by brute force."""
    y = np.asarray(d, float) - shift
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(y))))
    sums, obs = signs @ y, y.sum()
    eps = 1e-9
    if alternative == "greater":
        return np.mean(sums >= obs - eps)
    if alternative == "less":
        return np.mean(sums <= obs + eps)
    return np.mean(np.abs(sums) >= abs(obs) - eps)


def test_paired_hand_computed_n3():
    # d = (1, 2, 3): the 8 sign patterns give sums +-6, +-4, +-2, 0, 0.
    a, b = np.array([2.0, 4.0, 6.0]), np.array([1.0, 2.0, 3.0])
    two = paired_bootstrap(a, b, rng=0)
    assert two.statistic == pytest.approx(2.0)
    assert two.pvalue == pytest.approx(2 / 8)  # |sum| >= 6: +6 and -6
    assert two.min_pvalue == pytest.approx(2 / 8)
    assert paired_bootstrap(a, b, alternative="greater", rng=0).pvalue == pytest.approx(1 / 8)
    assert paired_bootstrap(a, b, alternative="less", rng=0).pvalue == pytest.approx(1.0)
    assert "exact sign-flip test (2^3=8 sign patterns)" in two.method
    # 3 units can never reject at 0.05: the inverted interval is the whole line
    assert two.confidence_interval == (-np.inf, np.inf)


def test_paired_hand_computed_n4_mixed_signs():
    # d = (1, -2, 3, 4), sum 6. A pattern flips a subset F of {1, 2, 3, 4}:
    # sum = 10 - 2*sum(F); |sum| >= 6 iff sum(F) <= 2 ({}, {1}, {2}) or >= 8
    # ({1,2,3,4}, {2,3,4}, {1,3,4}): 6 of 16 patterns.
    d = np.array([1.0, -2.0, 3.0, 4.0])
    res = paired_bootstrap(d, np.zeros(4), rng=0)
    assert res.statistic == pytest.approx(1.5)
    assert res.pvalue == pytest.approx(6 / 16)
    # one-sided: sum >= 6 iff sum(F) <= 2: 3 of 16
    assert paired_bootstrap(d, np.zeros(4), alternative="greater").pvalue == pytest.approx(3 / 16)


def test_paired_inversion_hand_computed_n6():
    # n=6, alpha=0.05: k = ceil(0.05 * 2**5) - 1 = 1, so the ends are the smallest and
    # the largest subset mean, i.e. min(d) and max(d): p(d) at d = min is 2/64 * 2.
    d = np.array([0.3, -0.1, 0.5, 0.9, 0.2, 0.4])
    res = paired_bootstrap(d, np.zeros(6), rng=0)
    assert res.confidence_interval == pytest.approx((-0.1, 0.9), abs=1e-8)
    # n=8, confidence 0.9: k = ceil(0.1 * 128) - 1 = 12: the 12th smallest subset mean
    d8 = np.array([0.3, -0.1, 0.5, 0.9, 0.2, 0.4, -0.6, 1.3])
    res8 = paired_bootstrap(d8, np.zeros(8), confidence_level=0.9)
    ref = np.sort(subset_means(d8))
    assert res8.confidence_interval == pytest.approx((ref[11], ref[-12]), abs=1e-8)


@pytest.mark.parametrize("seed", range(6))
def test_paired_inversion_matches_brute_force_p_of_shift(seed):
    # The interval is {d : p(d) >= alpha}: check it on a grid against brute force.
    rng = np.random.default_rng(seed)
    n = 7 + seed % 3
    d = np.round(rng.normal(0.3, 1.0, size=n), 1)  # rounded: ties between subset means
    for alternative in ("two-sided", "greater", "less"):
        res = paired_bootstrap(d, np.zeros(n), alternative=alternative, confidence_level=0.9)
        lo, hi = res.confidence_interval
        assert res.pvalue == pytest.approx(brute_pvalue(d, 0.0, alternative), abs=1e-12)
        for shift in np.linspace(d.min() - 0.5, d.max() + 0.5, 61):
            if min(abs(shift - lo), abs(shift - hi)) < 1e-7:
                continue
            inside = lo <= shift <= hi
            assert inside == (brute_pvalue(d, shift, alternative) >= 0.1), (alternative, shift)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_exact_equals_scipy_permutation_test(alternative):
    rng = np.random.default_rng(5)
    a = rng.normal(size=9)
    b = a - 0.4 + 0.5 * rng.normal(size=9)
    ref = st.permutation_test(
        (a, b),
        mean_diff,
        permutation_type="samples",
        vectorized=True,
        alternative=alternative,
    )
    res = paired_bootstrap(a, b, alternative=alternative, rng=0)
    assert res.exact
    assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


def test_paired_exact_up_to_20_units():
    # 2**16 patterns (more than n_resamples): still exact, equal to scipy's exact count.
    rng = np.random.default_rng(16)
    a, b = rng.normal(size=16), rng.normal(size=16) + 0.3
    res = paired_bootstrap(a, b, n_resamples=1000)
    ref = st.permutation_test(
        (a, b), mean_diff, permutation_type="samples", vectorized=True, n_resamples=np.inf
    )
    assert res.exact and "2^16=65536" in res.method
    assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_paired_monte_carlo_pvalue_agrees_with_scipy(alternative):
    rng = np.random.default_rng(6)
    a = rng.normal(size=30)
    b = a - 0.2 + rng.normal(size=30)
    ref = st.permutation_test(
        (a, b),
        mean_diff,
        permutation_type="samples",
        vectorized=True,
        alternative=alternative,
        n_resamples=10_000,
        rng=1,
    )
    res = paired_bootstrap(a, b, alternative=alternative, rng=2)
    assert res.method.startswith("Monte-Carlo sign-flip test (10000 random sign patterns)")
    assert not res.exact
    assert res.min_pvalue == pytest.approx(1 / 10_001)
    assert 0.01 < ref.pvalue < 0.99  # a p-value where the comparison means something
    assert abs(res.pvalue - ref.pvalue) < mc_tol(ref.pvalue, 10_000)


def test_paired_monte_carlo_draws_are_the_documented_bytes():
    # The docstring: random bytes rng.integers(0, 256, (B, ceil(n/8)), uint8), unpacked.
    rng = np.random.default_rng(3)
    d = rng.normal(0.2, 1, size=23)
    res = paired_bootstrap(d, np.zeros(23), n_resamples=400, rng=11)
    packed = np.random.default_rng(11).integers(0, 256, size=(400, 3), dtype=np.uint8)
    signs = 1.0 - 2.0 * np.unpackbits(packed, axis=1, count=23)
    count = (np.abs(signs @ d) >= abs(d.sum()) - 1e-9).sum()
    assert res.pvalue == pytest.approx((count + 1) / 401)


def test_paired_ttest_and_effect_size_match_scipy():
    rng = np.random.default_rng(12)
    a, b = rng.normal(size=11), rng.normal(size=11) + 0.5
    for alternative in ("two-sided", "greater", "less"):
        res = paired_bootstrap(a, b, alternative=alternative, rng=0)
        ref = st.ttest_rel(a, b, alternative=alternative)
        assert res.ttest_pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    d = a - b
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


@pytest.mark.parametrize(("n", "alternative"), [(7, "two-sided"), (40, "greater"), (12, "less")])
def test_paired_percentile_ci_same_draws_as_scipy(n, alternative):
    # Same Generator state -> scipy draws the same resampling indices as we do.
    rng = np.random.default_rng(n)
    a, b = rng.normal(size=n), rng.normal(size=n) + 0.3
    ref = st.bootstrap(
        (a, b),
        mean_diff,
        paired=True,
        vectorized=True,
        method="percentile",
        alternative=alternative,
        n_resamples=5000,
        rng=np.random.default_rng(99),
    )
    res = paired_bootstrap(
        a, b, alternative=alternative, n_resamples=5000, rng=99, method="percentile"
    )
    assert res.interval_method == "percentile"
    assert res.confidence_interval == pytest.approx(tuple(ref.confidence_interval), abs=1e-9)


@pytest.mark.parametrize("n", [6, 25])
def test_paired_swap_flips_sign(n):
    rng = np.random.default_rng(n)
    a, b = rng.normal(size=n), rng.normal(size=n)
    ab = paired_bootstrap(a, b, rng=3)
    ba = paired_bootstrap(b, a, rng=3)
    assert ba.statistic == pytest.approx(-ab.statistic, abs=1e-15)
    assert ba.pvalue == ab.pvalue
    assert ba.confidence_interval.low == pytest.approx(-ab.confidence_interval.high, abs=1e-9)
    assert ba.confidence_interval.high == pytest.approx(-ab.confidence_interval.low, abs=1e-9)
    g = paired_bootstrap(a, b, alternative="greater", rng=3)
    assert paired_bootstrap(b, a, alternative="less", rng=3).pvalue == g.pvalue


@pytest.mark.parametrize("n", [9, 24])
def test_paired_ci_is_translation_equivariant(n):
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=n), rng.normal(size=n)
    base = paired_bootstrap(a, b, rng=4).confidence_interval
    shifted = paired_bootstrap(a + 0.75, b, rng=4).confidence_interval
    assert shifted.low == pytest.approx(base.low + 0.75, abs=1e-7)
    assert shifted.high == pytest.approx(base.high + 0.75, abs=1e-7)


@pytest.mark.parametrize("n", [5, 8, 30])
def test_paired_all_zero_differences(n):
    a = np.linspace(0.2, 0.8, n)
    res = paired_bootstrap(a, a.copy(), rng=0)
    assert res.statistic == 0.0
    assert res.pvalue == 1.0
    lo, hi = res.confidence_interval
    assert (lo <= 0 <= hi) and (n < 6 or hi - lo < 1e-8)
    assert np.isnan(res.effect_size) and np.isnan(res.ttest_pvalue)


@pytest.mark.parametrize("n", [6, 13, 25])
def test_paired_constant_differences(n):
    # All differences equal c: the only shift the test cannot reject is c itself.
    a = np.linspace(0.2, 0.8, n)
    res = paired_bootstrap(a + 0.05, a, rng=0)
    assert res.statistic == pytest.approx(0.05)
    assert res.confidence_interval == pytest.approx((0.05, 0.05), abs=1e-8)
    assert res.pvalue == pytest.approx(res.min_pvalue)
    assert res.pvalue < 0.05 and res.confidence_interval.low > 0


def test_paired_min_pvalue_is_attained_and_documented():
    a = np.arange(7.0) + 1.0
    res = paired_bootstrap(a, np.zeros(7), rng=0)  # all differences positive
    assert res.min_pvalue == pytest.approx(2 / 128)
    assert res.pvalue == pytest.approx(res.min_pvalue)
    one = paired_bootstrap(a, np.zeros(7), alternative="greater", rng=0)
    assert one.pvalue == one.min_pvalue == pytest.approx(1 / 128)
    assert one.confidence_interval.high == np.inf
    # 21 units: Monte-Carlo; a random pattern is as extreme as all-positive
    # differences only if it is all +1 or all -1 (chance 2/2**21 per draw)
    mc = paired_bootstrap(np.arange(21.0) + 1, np.zeros(21), n_resamples=100, rng=0)
    assert mc.pvalue == mc.min_pvalue == pytest.approx(1 / 101)


def test_paired_result_type_and_reproducibility():
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=50), rng.normal(size=50)
    r1 = paired_bootstrap(a, b, rng=5, n_resamples=2000)
    r2 = paired_bootstrap(list(a), pd.Series(b), rng=np.random.default_rng(5), n_resamples=2000)
    assert r1 == r2
    assert isinstance(r1, PairedTestResult)
    assert (r1.n, r1.n_resamples, r1.alternative) == (50, 2000, "two-sided")
    assert r1.statistic == pytest.approx(np.mean(a - b), abs=1e-15)
    with pytest.raises(AttributeError):
        r1.statistic = 1.0


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "name"),
    [
        ([1, 2, 3, 4], [1, 2, 3], {}, "`a` and `b` must have the same length"),
        ([1, np.nan, 3], [1, 2, 3], {}, "`a` contains NaN"),
        ([1, 2, 3], [1, 2, np.inf], {}, "`b` contains NaN or inf"),
        ([1], [2], {}, "`a` and `b` need at least 2"),
        ([1, 2, 3], [3, 2, 1], {"n_resamples": 2.5}, "`n_resamples` must be a positive integer"),
        ([1, 2, 3], [3, 2, 1], {"n_resamples": 0}, "`n_resamples`"),
        ([1, 2, 3], [3, 2, 1], {"n_resamples": "100"}, "`n_resamples`"),
        ([1, 2, 3], [3, 2, 1], {"confidence_level": 0}, "`confidence_level`"),
        ([1, 2, 3], [3, 2, 1], {"confidence_level": 1.2}, "`confidence_level`"),
        ([1, 2, 3], [3, 2, 1], {"confidence_level": np.nan}, "`confidence_level`"),
        ([1, 2, 3], [3, 2, 1], {"alternative": "two_sided"}, "`alternative`"),
        ([1, 2, 3], [3, 2, 1], {"method": "bca"}, "`method`"),
        ([1, 2, 3], [3, 2, 1], {"rng": 1.5}, "`rng`"),
    ],
)
def test_paired_bad_input(a, b, kwargs, name):
    with pytest.raises(ValueError, match=name):
        paired_bootstrap(a, b, **kwargs)
