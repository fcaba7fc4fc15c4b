"""Fast tests of analysis.stats: statistics against scipy, hand-computed cases, checks."""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from analysis.stats import (
    ConfidenceInterval,
    DroppedModelsWarning,
    LabelMismatchError,
    PairedTestResult,
    RankCorrelationResult,
    UnknownModelError,
    adjust_pvalues,
    group_contrast,
    paired_bootstrap,
    pairwise_significance,
    public_private_gap,
    rank_correlation,
)
from analysis.stats._checks import _check_models


def mean_diff(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


def mc_tol(p, n_resamples, k=4.5):
    """Tolerance for two independent Monte-Carlo estimates of the same p-value."""
    return k * math.sqrt(2 * max(p * (1 - p), 1e-4) / n_resamples)


# --------------------------------------------------------------------------- rank_correlation


@pytest.mark.parametrize("method", ["spearman", "kendall"])
@pytest.mark.parametrize("seed", range(5))
def test_rank_statistic_equals_scipy_with_ties(method, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    x = rng.integers(0, 5, n).astype(float)  # many ties
    y = x + rng.integers(-3, 4, n)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        x[0], y[0] = x[0] + 1, y[0] - 1
    ref = st.spearmanr(x, y) if method == "spearman" else st.kendalltau(x, y)
    res = rank_correlation(x, y, method=method, n_resamples=99, rng=seed)
    assert res.statistic == pytest.approx(ref.statistic, abs=1e-12)
    assert res.n == n and res.method == method


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_rank_nan_pairs_are_dropped(method):
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=25), rng.normal(size=25)
    x[[2, 7]] = np.nan
    y[[7, 11, 20]] = np.nan
    keep = ~(np.isnan(x) | np.isnan(y))
    ref = (st.spearmanr if method == "spearman" else st.kendalltau)(x[keep], y[keep])
    res = rank_correlation(x, y, method=method, n_resamples=99, rng=0)
    assert res.n == 21
    assert res.statistic == pytest.approx(ref.statistic, abs=1e-12)
    # pandas input with NA behaves the same
    res2 = rank_correlation(pd.Series(x).astype("Float64"), y, method=method, n_resamples=99, rng=0)
    assert res2.statistic == res.statistic and res2.n == 21


def test_rank_hand_computed_n4_exact():
    # x = 1..4, y swaps the middle pair: d = (0, 1, 1, 0) -> rho = 1 - 6*2/60 = 0.8;
    # one discordant pair of 6 -> tau = (5 - 1)/6 = 2/3.
    # Null over the 24 orderings: |rho| >= 0.8 for rho = 1 (1), 0.8 (3 adjacent swaps)
    # and the mirror images -> 8/24; same for |tau| >= 2/3 (<= 1 or >= 5 inversions).
    x, y = [1, 2, 3, 4], [1, 3, 2, 4]
    rho = rank_correlation(x, y, rng=0)
    tau = rank_correlation(x, y, method="kendall", rng=0)
    assert rho.statistic == pytest.approx(0.8)
    assert tau.statistic == pytest.approx(2 / 3)
    for res in (rho, tau):
        assert res.pvalue == pytest.approx(8 / 24)
        assert res.min_pvalue == pytest.approx(2 / 24)
        assert "exact" in res.pvalue_method and "24" in res.pvalue_method


def test_rank_hand_computed_n3():
    # Perfect agreement at n=3: only the identity and the reversal reach |rho| = 1.
    res = rank_correlation([0.1, 0.5, 0.9], [3, 5, 7], rng=0)
    assert res.statistic == pytest.approx(1.0)
    assert res.pvalue == pytest.approx(2 / 6) == res.min_pvalue


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_rank_exact_pvalue_equals_scipy_permutation_test(method):
    # Without ties both null distributions are symmetric, so our |stat| p-value equals
    # scipy's 2*min(one-sided) exact p-value.
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=6), rng.normal(size=6)
    x = x + y  # some correlation
    fun = st.spearmanr if method == "spearman" else st.kendalltau

    ref = st.permutation_test(
        (y,), lambda yy: fun(x, yy).statistic, permutation_type="pairings", n_resamples=9999
    )
    res = rank_correlation(x, y, method=method, rng=0)
    assert "exact" in res.pvalue_method
    assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_rank_exact_pvalue_with_ties_by_brute_force(method):
    # Ties in x and y: the null is not symmetric, so check against a direct loop over
    # all 6! orderings with scipy's statistic: p = share of |stat| >= |observed|.
    x = np.array([1.0, 1.0, 2.0, 3.0, 3.0, 3.0])
    y = np.array([2.0, 1.0, 2.0, 5.0, 2.0, 4.0])
    fun = st.spearmanr if method == "spearman" else st.kendalltau
    observed = abs(fun(x, y).statistic)
    null = np.array([abs(fun(x, y[list(p)]).statistic) for p in itertools.permutations(range(6))])
    res = rank_correlation(x, y, method=method, rng=0)
    assert res.statistic == pytest.approx(fun(x, y).statistic, abs=1e-12)
    assert res.pvalue == pytest.approx(np.mean(null >= observed - 1e-12), abs=1e-12)


def test_rank_kendall_monte_carlo_with_ties_agrees_with_scipy():
    rng = np.random.default_rng(12)
    x = rng.integers(0, 4, 16).astype(float)
    y = x + rng.integers(-2, 3, 16)
    ref = st.permutation_test(
        (y,),
        lambda yy: st.kendalltau(x, yy).statistic,
        permutation_type="pairings",
        n_resamples=3000,
        rng=1,
    )
    res = rank_correlation(x, y, method="kendall", n_resamples=3000, rng=2)
    assert 0.01 < ref.pvalue < 0.99
    assert abs(res.pvalue - ref.pvalue) < mc_tol(ref.pvalue, 3000)


def test_rank_monte_carlo_pvalue_agrees_with_scipy():
    rng = np.random.default_rng(4)
    n = 15
    x = rng.normal(size=n)
    y = 0.4 * x + rng.normal(size=n)

    def rho(yy, axis=-1):
        rx = st.rankdata(x) - (n + 1) / 2
        ry = st.rankdata(yy, axis=axis) - (n + 1) / 2
        return (ry @ rx) / np.sqrt((rx @ rx) * np.sum(ry**2, axis=axis))

    ref = st.permutation_test(
        (y,), rho, permutation_type="pairings", vectorized=True, n_resamples=9999, rng=1
    )
    res = rank_correlation(x, y, rng=2)
    assert "Monte-Carlo" in res.pvalue_method
    assert res.min_pvalue == pytest.approx(1 / 10_000)
    assert abs(res.pvalue - ref.pvalue) < mc_tol(ref.pvalue, 9999)


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_rank_bootstrap_ci_reproduces_hand_loop(method):
    # n=5 is exact (no orderings drawn), so the bootstrap indices are the first draws.
    x = np.array([1.0, 2.0, 2.0, 3.0, 5.0])
    y = np.array([2.0, 1.0, 4.0, 4.0, 6.0])
    res = rank_correlation(x, y, method=method, n_resamples=400, rng=7)
    idx = np.random.default_rng(7).integers(0, 5, size=(400, 5))
    fun = st.spearmanr if method == "spearman" else st.kendalltau
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dist = np.array([fun(x[i], y[i]).statistic for i in idx])
    defined = dist[~np.isnan(dist)]
    assert res.n_resamples_dropped == np.isnan(dist).sum() > 0
    lo, hi = np.quantile(defined, [0.025, 0.975])
    assert res.confidence_interval == pytest.approx((lo, hi), abs=1e-12)


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_rank_self_and_reversed(method):
    x = np.array([0.3, 0.1, 0.9, 0.5, 0.7, 0.2, 0.8, 0.4, 0.6, 0.05])
    same = rank_correlation(x, x, method=method, n_resamples=199, rng=0)
    rev = rank_correlation(x, -x, method=method, n_resamples=199, rng=0)
    assert same.statistic == pytest.approx(1.0)
    assert rev.statistic == pytest.approx(-1.0)
    assert same.pvalue == pytest.approx(1 / 200)  # nothing beats a perfect ranking
    assert same.confidence_interval == pytest.approx((1.0, 1.0))


def test_rank_result_is_frozen_and_reproducible():
    x, y = np.arange(12.0), np.array([3, 1, 2, 6, 5, 4, 9, 7, 8, 12, 11, 10.0])
    r1 = rank_correlation(x, y, n_resamples=500, rng=11)
    r2 = rank_correlation(x, y, n_resamples=500, rng=np.random.default_rng(11))
    assert r1 == r2
    assert isinstance(r1, RankCorrelationResult)
    assert isinstance(r1.confidence_interval, ConfidenceInterval)
    with pytest.raises(AttributeError):
        r1.pvalue = 0.0


@pytest.mark.parametrize(
    ("x", "y", "match"),
    [
        ([1, 1, 1, 1], [1, 2, 3, 4], r"`x` is constant"),
        ([1, 2, 3, 4], [5, 5, 5, 5], r"`y` is constant"),
        ([3, 2, 2, 2], [np.nan, 5, 6, 7], r"`x` is constant"),  # constant after dropping
        ([1, 2, np.nan, 4], [1, np.nan, 3, 4], r"`x` and `y` need at least 3"),
        ([1, 2], [2, 1], r"`x` and `y` need at least 3"),
        ([1, 2, 3], [1, 2], r"`x` and `y` must have the same length"),
        ([1, np.inf, 3], [1, 2, 3], r"`x` contains inf"),
        ([1, 2, 3], [1, -np.inf, 3], r"`y` contains inf"),
        ([[1, 2], [3, 4]], [1, 2], r"`x` must be 1-D"),
        (["a", "b", "c"], [1, 2, 3], r"`x` must be"),
    ],
)
def test_rank_bad_data(x, y, match):
    with pytest.raises(ValueError, match=match):
        rank_correlation(x, y)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"method": "pearson"}, "method"),
        ({"n_resamples": 2.5}, "n_resamples"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"n_resamples": True}, "n_resamples"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"rng": "seed"}, "rng"),
    ],
)
def test_rank_bad_options(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        rank_correlation([1, 2, 3, 4], [2, 1, 4, 3], **kwargs)


# --------------------------------------------------------------------------- paired_bootstrap


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


# --------------------------------------------------------------------------- adjust_pvalues


def test_holm_hand_computed():
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> running max 0.06
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust_pvalues(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_known_values():
    # statsmodels.stats.multitest.multipletests(p, method="holm") gives these
    # (computed by hand: 5*.01, 4*.02, 3*.03, max(.09, 2*.04), max(.09, .05)).
    p = [0.01, 0.02, 0.03, 0.04, 0.05]
    assert adjust_pvalues(p, adjustment="holm") == pytest.approx([0.05, 0.08, 0.09, 0.09, 0.09])
    # ties and the cap at 1
    assert adjust_pvalues([0.02, 0.02, 0.5]) == pytest.approx([0.06, 0.06, 0.5])
    assert adjust_pvalues([0.5, 0.6]) == pytest.approx([1.0, 1.0])
    assert adjust_pvalues([0.01, 0.2], adjustment="bonferroni") == pytest.approx([0.02, 0.4])
    assert adjust_pvalues([0.01, 0.2], adjustment="none") == pytest.approx([0.01, 0.2])


def test_bh_hand_computed_and_scipy():
    # m=4, sorted 0.005, 0.01, 0.03, 0.04: 4p/i = 0.02, 0.02, 0.04, 0.04 (running min from top)
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert adjust_pvalues(p, adjustment="bh") == pytest.approx([0.02, 0.04, 0.04, 0.02])
    q = np.random.default_rng(1).uniform(size=40) ** 2
    assert adjust_pvalues(q, adjustment="bh") == pytest.approx(st.false_discovery_control(q))


def test_holm_bad_input():
    with pytest.raises(ValueError, match="`pvalues`"):
        adjust_pvalues([0.1, 1.2])
    with pytest.raises(ValueError, match="`adjustment`"):
        adjust_pvalues([0.1], adjustment="fdr")


# --------------------------------------------------------------------------- pairwise_significance


def _scores(n_units, n_models, seed=0):
    rng = np.random.default_rng(seed)
    task = rng.uniform(0.3, 0.7, size=(n_units, 1))
    skill = np.linspace(0, 0.1, n_models)
    values = task + skill + 0.03 * rng.normal(size=(n_units, n_models))
    return pd.DataFrame(
        values,
        columns=[f"model-{k}" for k in range(n_models)],
        index=[f"task-{i}" for i in range(n_units)],
    )


PAIRWISE_COLUMNS = [
    "model_a",
    "model_b",
    "n",
    "difference",
    "d_z",
    "wins",
    "ties",
    "losses",
    "pvalue",
    "ttest_pvalue",
    "pvalue_maxT",
    "pvalue_holm",
    "pvalue_bh",
    "pvalue_adjusted",
    "significant",
    "ci_low",
    "ci_high",
]


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
def test_pairwise_shape_and_order():
    scores = _scores(8, 5)
    scores.iloc[0, 1] = scores.iloc[0, 0]  # one tie
    res = pairwise_significance(scores, n_resamples=500, rng=0)
    out = res.table
    assert len(out) == 5 * 4 // 2
    assert list(out.columns) == PAIRWISE_COLUMNS
    order = {m: k for k, m in enumerate(scores.columns)}
    assert all(order[a] < order[b] for a, b in zip(out.model_a, out.model_b, strict=True))
    assert (out["n"] == 8).all()
    assert res.min_pvalue == pytest.approx(2 / 256)
    assert (out["wins"] + out["ties"] + out["losses"] == 8).all()
    first = out.iloc[0]
    d = scores["model-0"] - scores["model-1"]
    assert (first.wins, first.ties, first.losses) == ((d > 0).sum(), 1, (d < 0).sum())
    assert first.d_z == pytest.approx(d.mean() / d.std(ddof=1))
    assert first.ttest_pvalue == pytest.approx(
        st.ttest_rel(scores["model-0"], scores["model-1"]).pvalue
    )


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
@pytest.mark.parametrize(("n_units", "n_resamples"), [(6, 10_000), (23, 2000)])
def test_pairwise_unadjusted_matches_paired_bootstrap(n_units, n_resamples):
    scores = _scores(n_units, 6, seed=n_units)
    res = pairwise_significance(scores, n_resamples=n_resamples, adjustment="none", rng=42)
    out = res.table
    for row in out.itertuples():
        ref = paired_bootstrap(
            scores[row.model_a], scores[row.model_b], n_resamples=n_resamples, rng=42
        )
        assert row.difference == pytest.approx(ref.statistic, abs=1e-15)
        assert row.pvalue == pytest.approx(ref.pvalue, abs=1e-15)
        assert (row.ci_low, row.ci_high) == pytest.approx(tuple(ref.confidence_interval), abs=1e-9)
    assert ("exact" in res.method) == (n_units == 6)


def maxt_by_hand(X):
    """Single-step max-T over all 2**n patterns by brute force (paired |t| statistics).

    Two nulls, as documented: sign flips of the differences, and of the differences
    centred at their means; the adjusted p-value is the larger of the two.
    """
    n, m = X.shape
    pairs = list(itertools.combinations(range(m), 2))
    D = np.column_stack([X[:, i] - X[:, j] for i, j in pairs])

    t_obs = np.abs(D.mean(0)) / (D.std(0, ddof=1) / np.sqrt(n))
    # rho = |mean| / sqrt(mean of squares) is a monotone function of |t|: compare rho
    rho_obs = np.abs(D.mean(0)) / np.sqrt((D**2).mean(0))
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=n)))
    p = np.zeros(len(pairs))
    for R in (D, D - D.mean(0)):
        maxima = np.array(
            [np.max(np.abs((R * s[:, None]).mean(0)) / np.sqrt((R**2).mean(0))) for s in signs]
        )
        p = np.maximum(p, np.array([np.mean(maxima >= r - 1e-9) for r in rho_obs]))
    assert np.all(np.argsort(t_obs) == np.argsort(rho_obs))
    return p


def test_pairwise_maxt_matches_brute_force_t_statistics():
    scores = _scores(8, 4, seed=2)
    out = pairwise_significance(scores, adjustment="maxT").table
    assert out["pvalue_maxT"].to_numpy() == pytest.approx(maxt_by_hand(scores.to_numpy()))
    # Two models far from the rest: here the centred null is the larger one for some
    # pairs (the uncentred null alone would give smaller p-values, e.g. 0.246 vs 0.379).
    rng = np.random.default_rng(0)
    far = pd.DataFrame(rng.normal(size=(9, 5)) + np.array([0, 0.3, 0.6, 5, 8]))
    res = pairwise_significance(far, adjustment="maxT").table
    assert res["pvalue_maxT"].to_numpy() == pytest.approx(maxt_by_hand(far.to_numpy()))
    assert res["pvalue_maxT"].iloc[0] == pytest.approx(0.379, abs=5e-4)
    assert (out["pvalue_adjusted"] == out["pvalue_maxT"]).all()
    # max-T is never above Bonferroni (it uses the dependence between pairs)
    assert (out["pvalue_maxT"] <= np.minimum(1, len(out) * out["pvalue"]) + 1e-12).all()


@pytest.mark.parametrize("adjustment", ["maxT", "holm", "bonferroni", "bh", "none"])
@pytest.mark.parametrize(("n_units", "seed"), [(7, 0), (13, 1), (13, 2), (24, 3)])
def test_pairwise_interval_excludes_zero_iff_significant(adjustment, n_units, seed):
    scores = _scores(n_units, 8, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = pairwise_significance(scores, adjustment=adjustment, n_resamples=2000, rng=seed).table
    excludes = (out["ci_low"] > 0) | (out["ci_high"] < 0)
    assert (excludes == out["significant"]).all()
    assert (out["significant"] == (out["pvalue_adjusted"] < 0.05)).all()
    assert (out["ci_low"] <= out["difference"]).all() and (
        out["difference"] <= out["ci_high"]
    ).all()


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
def test_pairwise_adjustments_by_hand():
    scores = _scores(13, 6, seed=3)
    res = pairwise_significance(scores, adjustment="holm", rng=1)
    out = res.table
    m = len(out)
    p = out["pvalue"].to_numpy()
    order = np.argsort(p, kind="stable")
    expected = np.empty(m)
    running = 0.0
    for rank, k in enumerate(order):  # Holm by hand, as a loop
        running = max(running, min(1.0, (m - rank) * p[k]))
        expected[k] = running
    assert out["pvalue_holm"].to_numpy() == pytest.approx(expected)
    assert out["pvalue_adjusted"].to_numpy() == pytest.approx(expected)
    assert out["pvalue_bh"].to_numpy() == pytest.approx(st.false_discovery_control(p))
    rejected = int((expected < 0.05).sum())
    assert res.pair_confidence_level == pytest.approx(1 - 0.05 / (m - rejected))
    assert res.confidence_level == 0.95
    # the best vs the worst model differ clearly (0.1 on 13 tasks, noise 0.03)
    extreme = out[(out.model_a == "model-0") & (out.model_b == "model-5")].iloc[0]
    assert extreme.significant and extreme.difference < 0 and extreme.ci_high < 0


def test_pairwise_warns_when_nothing_can_be_significant():
    # 6 units: min p = 2/64; 15 pairs x 2/64 > 0.05 under Holm -> a warning
    with pytest.warns(UserWarning, match=r"no pair can be significant.*15 pairs"):
        out = pairwise_significance(_scores(6, 6), adjustment="holm", rng=0).table
    assert not out["significant"].any()
    assert np.isinf(out["ci_low"]).all()
    # max-T does not multiply the floor: 13 units, 80 models, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pairwise_significance(_scores(13, 12), rng=0)
    with pytest.warns(UserWarning, match="smallest attainable p-value is 0.125"):
        pairwise_significance(_scores(4, 3), adjustment="none", rng=0)


def test_pairwise_reversed_columns_mirror():
    scores = _scores(10, 4, seed=5)
    fwd = pairwise_significance(scores, rng=7).table.set_index(["model_a", "model_b"])
    rev = pairwise_significance(scores[scores.columns[::-1]], rng=7).table
    rev = rev.set_index(["model_b", "model_a"]).reindex(fwd.index)
    assert rev["difference"].to_numpy() == pytest.approx(-fwd["difference"].to_numpy(), abs=1e-15)
    assert rev["pvalue"].to_numpy() == pytest.approx(fwd["pvalue"].to_numpy(), abs=1e-15)
    assert rev["pvalue_maxT"].to_numpy() == pytest.approx(fwd["pvalue_maxT"].to_numpy())
    assert rev["ci_low"].to_numpy() == pytest.approx(-fwd["ci_high"].to_numpy(), abs=1e-9)


def test_pairwise_result_shape_and_pvalue_matrix():
    res = pairwise_significance(_scores(13, 5, seed=4), rng=0)
    assert res.to_frame().equals(res.table) and res.confidence_level == 0.95
    assert res.pair_confidence_level == 0.95 and res.n_units == res.n_tasks == 13
    m = res.pvalue_matrix("pvalue_maxT")
    assert (np.diag(m) == 1).all() and (m.to_numpy() == m.to_numpy().T).all()
    for r in res.table.itertuples():
        assert m.loc[r.model_a, r.model_b] == r.pvalue_maxT
    assert len(repr(res).splitlines()) <= 10


def test_pairwise_drops_model_with_missing_tasks():
    scores = _scores(9, 4)
    scores.iloc[2, 1] = np.nan
    scores.iloc[5, 1] = np.nan
    with pytest.warns(DroppedModelsWarning, match=r"'model-1' lacks \['task-2', 'task-5'\]"):
        res = pairwise_significance(scores, rng=0)
    out = res.table
    assert "model-1" not in set(out.model_a) | set(out.model_b)
    assert res.dropped == {"model-1": ["task-2", "task-5"]}
    assert len(out) == 3


def test_pairwise_bad_input():
    scores = _scores(6, 4)
    inf = scores.copy()
    inf.iloc[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"`scores` has infinite values in columns \['model-0'\]"):
        pairwise_significance(inf)
    with pytest.raises(ValueError, match="`scores` must be a pandas DataFrame"):
        pairwise_significance(scores.to_numpy())
    with pytest.raises(ValueError, match="`scores` needs at least 2 model"):
        pairwise_significance(scores[["model-0"]])
    with pytest.raises(ValueError, match="`scores` needs at least 2 units"):
        pairwise_significance(scores.head(1))
    dup = scores.rename(columns={"model-1": "model-0"})
    with pytest.raises(ValueError, match="`scores` has duplicate"):
        pairwise_significance(dup)
    text = scores.assign(**{"model-2": "x"})
    with pytest.raises(ValueError, match=r"non-numeric columns: \['model-2'\]"):
        pairwise_significance(text)
    for kwargs, name in [
        ({"adjustment": "fdr"}, "adjustment"),
        ({"alpha": 0}, "alpha"),
        ({"n_resamples": -3}, "n_resamples"),
        ({"rng": object()}, "rng"),
    ]:
        with pytest.raises(ValueError, match=f"`{name}`"):
            pairwise_significance(scores, **kwargs)


# --------------------------------------------------------------------------- group_contrast


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


# --------------------------------------------------------------------------- public_private_gap


def _wide(table):
    """Tasks x models from {model: {task: score}}."""
    return pd.DataFrame(table)


HAND = {
    "A": {"P1": 0.5, "P2": 0.7, "Q1": 0.4, "Q2": 0.6},
    "B": {"P1": 0.4, "P2": 0.6, "Q1": 0.7, "Q2": 0.9},
    "C": {"P1": 0.3, "P2": 0.5, "Q1": 0.3, "Q2": 0.3},
}
PUB, PRIV = ["P1", "P2"], ["Q1", "Q2"]


def test_gap_hand_computed():
    # gaps: A 0.5 - 0.6 = -0.1, B 0.8 - 0.5 = +0.3, C 0.3 - 0.4 = -0.1.
    # relative: A -0.1 - mean(0.3, -0.1) = -0.2; B 0.3 - (-0.1) = 0.4; C -0.2.
    res = public_private_gap(_wide(HAND), public_tasks=PUB, private_tasks=PRIV, rng=0)
    out = res.table.set_index("model")
    assert out.loc["A", "gap"] == pytest.approx(-0.1)
    assert out.loc["B", "gap"] == pytest.approx(0.3)
    assert out["relative_gap"].to_dict() == pytest.approx({"A": -0.2, "B": 0.4, "C": -0.2})
    # A: y = x - mean(others): public (0.5-0.35, 0.7-0.55) = (0.15, 0.15),
    # private (0.4-0.5, 0.6-0.6) = (-0.1, 0): Welch se = sqrt(0 + 0.005/2) = 0.05, df = 1
    assert out.loc["A", "relative_gap_se"] == pytest.approx(0.05)
    assert out.loc["A", "relative_gap_df"] == pytest.approx(1.0)
    t = st.t.ppf(0.975, 1)
    assert out.loc["A", "relative_gap_ci_low"] == pytest.approx(-0.2 - t * 0.05)
    # average ranks: public means A .6, B .5, C .4; private A .5, B .8, C .3
    assert out["rank_public"].to_dict() == {"A": 1.0, "B": 2.0, "C": 3.0}
    assert out["rank_shift"].to_dict() == {"A": -1.0, "B": 1.0, "C": 0.0}
    assert res.reference == "mean" and res.to_frame().equals(res.table)


def test_gap_median_reference_hand_computed():
    # Four models: gaps A -0.1, B +0.3, C -0.1, D -0.2 (D: P 0.3/0.3, Q 0.1/0.1).
    # For A the others' gaps are (0.3, -0.1, -0.2): median -0.1 (model C), so
    # relative = -0.1 - (-0.1) = 0 and y = x_A - x_C.
    table = {**HAND, "D": {"P1": 0.3, "P2": 0.3, "Q1": 0.1, "Q2": 0.1}}
    res = public_private_gap(
        _wide(table), public_tasks=PUB, private_tasks=PRIV, reference="median", rng=0
    )
    out = res.table.set_index("model")
    gaps = {"A": -0.1, "B": 0.3, "C": -0.1, "D": -0.2}
    for m, g in gaps.items():
        others = [v for k, v in gaps.items() if k != m]
        assert out.loc[m, "relative_gap"] == pytest.approx(g - np.median(others))
    wide = _wide(table)
    y = wide["A"] - wide["C"]
    ref = st.ttest_ind(y[PRIV], y[PUB], equal_var=False)
    assert out.loc["A", "relative_gap_pvalue"] == pytest.approx(ref.pvalue)


def test_gap_median_reference_ignores_one_outlier():
    # The median of the others' gaps does not move when one model collapses privately.
    rng = np.random.default_rng(1)
    public, private = [f"p{i}" for i in range(7)], [f"q{i}" for i in range(6)]
    wide = pd.DataFrame(rng.uniform(0.3, 0.7, (13, 7)), index=public + private)
    wide.loc[private, 0] -= 0.5  # model 0 already loses most on the private tasks
    worse = wide.copy()
    worse.loc[private, 0] -= 0.15  # ... and now loses 0.15 more
    for ref in ("mean", "median"):
        kw = {"public_tasks": public, "private_tasks": private, "reference": ref, "rng": 0}
        ga = public_private_gap(wide, **kw).table.set_index("model")["relative_gap"].drop(0)
        gb = public_private_gap(worse, **kw).table.set_index("model")["relative_gap"].drop(0)
        expected = 0.15 / 6 if ref == "mean" else 0.0  # every other model moves, or none
        assert (gb - ga).to_numpy() == pytest.approx(np.full(6, expected), abs=1e-12)


def test_gap_welch_matches_scipy():
    rng = np.random.default_rng(3)
    public, private = [f"p{i}" for i in range(7)], [f"q{i}" for i in range(6)]
    table = {m: {t: rng.uniform() for t in public + private} for m in "vwxyz"}
    out = public_private_gap(_wide(table), public_tasks=public, private_tasks=private, rng=0).table
    wide = pd.DataFrame(table)
    for row in out.itertuples():
        others = wide.drop(columns=row.model).mean(axis=1)
        y = wide[row.model] - others
        ref = st.ttest_ind(y[private], y[public], equal_var=False)
        assert row.relative_gap_pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        ci = ref.confidence_interval(0.95)
        assert (row.relative_gap_ci_low, row.relative_gap_ci_high) == pytest.approx(tuple(ci))


def test_gap_rank_ties_use_average_and_shift_interval():
    table = {
        "A": {"P1": 0.5, "P2": 0.7, "Q1": 0.4, "Q2": 0.6},
        "B": {"P1": 0.7, "P2": 0.5, "Q1": 0.5, "Q2": 0.5},  # same public mean as A
        "C": {"P1": 0.1, "P2": 0.2, "Q1": 0.9, "Q2": 0.9},
    }
    out = public_private_gap(
        _wide(table), public_tasks=PUB, private_tasks=PRIV, n_resamples=500, rng=0
    ).table
    ranks = out.set_index("model")[["rank_public", "rank_private", "rank_shift"]]
    assert ranks.loc["A"].tolist() == [1.5, 2.5, -1.0]
    assert ranks.loc["B"].tolist() == [1.5, 2.5, -1.0]
    assert ranks.loc["C"].tolist() == [3.0, 1.0, 2.0]
    assert (out["rank_shift_ci_low"] <= out["rank_shift"]).all()
    assert (out["rank_shift"] <= out["rank_shift_ci_high"]).all()


def test_gap_rows_must_be_the_listed_tasks_and_incomplete_models_drop():
    table = {k: dict(v) for k, v in HAND.items()}
    table["D"] = {"P1": 0.1, "P2": 0.2, "Q1": 0.3}  # no Q2
    table["E"] = {"P1": 0.1, "P2": np.nan, "Q1": 0.3, "Q2": 0.3}
    with pytest.warns(DroppedModelsWarning, match=r"'D' lacks \['Q2'\]; 'E' lacks \['P2'\]"):
        res = public_private_gap(_wide(table), public_tasks=PUB, private_tasks=PRIV, rng=0)
    assert sorted(res.table["model"]) == ["A", "B", "C"]
    assert res.dropped == {"D": ["Q2"], "E": ["P2"]}
    with pytest.raises(LabelMismatchError, match=r"`scores` lacks \['Q3'\]"):
        public_private_gap(_wide(HAND), public_tasks=PUB, private_tasks=[*PRIV, "Q3"], rng=0)
    extra = _wide(HAND).rename(index={"Q2": "Z9"})
    with pytest.raises(LabelMismatchError, match=r"has \['Z9'\]"):
        public_private_gap(extra, public_tasks=PUB, private_tasks=PRIV, rng=0)


def test_gap_models_argument_and_close_names():
    with pytest.raises(UnknownModelError, match=r"`models`: unknown model\(s\) 'b '.*'B'"):
        public_private_gap(_wide(HAND), public_tasks=PUB, private_tasks=PRIV, models=["b "])


def test_check_models_helper():
    available = ["minishlab/potion-base-8M", "minishlab/potion-base-32M", "BAAI/bge-m3"]
    assert _check_models(None, available) == available
    assert _check_models(["BAAI/bge-m3", "BAAI/bge-m3"], available) == ["BAAI/bge-m3"]
    with pytest.raises(KeyError) as err:
        _check_models(["minishlab/potion-base-8m", "nope"], available, "wanted")
    msg = str(err.value)
    assert msg.startswith("`wanted`: unknown model(s)")
    assert "did you mean 'minishlab/potion-base-8M'" in msg
    assert "'nope' (did you mean no close match?)" in msg
    assert isinstance(err.value, ValueError)
    with pytest.raises(ValueError, match="`models` must be a list"):
        _check_models("BAAI/bge-m3", available)


def test_gap_bad_input():
    wide = _wide(HAND)
    kw = {"public_tasks": PUB, "private_tasks": PRIV}
    long = wide.stack().rename("main_score").rename_axis(["task", "model"]).reset_index()
    with pytest.raises(ValueError, match="looks like the long table"):
        public_private_gap(long, **kw)
    with pytest.raises(ValueError, match="`public_tasks` needs at least 2 tasks, got 1"):
        public_private_gap(wide, public_tasks=["P1"], private_tasks=PRIV)
    with pytest.raises(ValueError, match="`private_tasks` must be a list"):
        public_private_gap(wide, public_tasks=PUB, private_tasks="Q1")
    with pytest.raises(ValueError, match=r"share tasks \['P2'\]"):
        public_private_gap(wide, public_tasks=PUB, private_tasks=[*PRIV, "P2"])
    bad = wide.copy()
    bad.loc["Q1", "B"] = np.inf
    with pytest.raises(ValueError, match="`scores` contains inf"):
        public_private_gap(bad, **kw)
    with pytest.raises(ValueError, match="`n_resamples`"):
        public_private_gap(wide, n_resamples=1.0, **kw)
    with pytest.raises(ValueError, match="`reference`"):
        public_private_gap(wide, reference="trimmed", **kw)
    with pytest.raises(ValueError, match="`scores` must be a pandas DataFrame"):
        public_private_gap(wide.to_dict(), **kw)
    with pytest.raises(ValueError, match="the relative gap needs at least 3"):
        public_private_gap(wide[["A", "B"]], **kw)
