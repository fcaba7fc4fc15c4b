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
    PairedTestResult,
    RankCorrelationResult,
    UnknownModelError,
    adjust_pvalues,
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


def test_paired_hand_computed_n3():
    # d = (1, 2, 3): the 8 sign patterns give sums +-6, +-4, +-2, 0, 0.
    a, b = np.array([2.0, 4.0, 6.0]), np.array([1.0, 2.0, 3.0])
    two = paired_bootstrap(a, b, rng=0)
    assert two.statistic == pytest.approx(2.0)
    assert two.pvalue == pytest.approx(2 / 8)  # |sum| >= 6: +6 and -6
    assert two.min_pvalue == pytest.approx(2 / 8)
    assert paired_bootstrap(a, b, alternative="greater", rng=0).pvalue == pytest.approx(1 / 8)
    assert paired_bootstrap(a, b, alternative="less", rng=0).pvalue == pytest.approx(1.0)
    assert "exact sign-flip permutation (2^3=8 sign patterns)" in two.method


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
    assert "exact" in res.method
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
    assert res.method.startswith("Monte-Carlo sign-flip permutation, 10000 draws")
    assert res.min_pvalue == pytest.approx(1 / 10_001)
    assert 0.01 < ref.pvalue < 0.99  # a p-value where the comparison means something
    assert abs(res.pvalue - ref.pvalue) < mc_tol(ref.pvalue, 10_000)


@pytest.mark.parametrize(("n", "alternative"), [(7, "two-sided"), (40, "greater"), (12, "less")])
def test_paired_ci_same_draws_as_scipy(n, alternative):
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
    res = paired_bootstrap(a, b, alternative=alternative, n_resamples=5000, rng=99)
    # Equal up to float32 rounding of the centred bootstrap means (spread ~0.5 here,
    # rounding ~3e-8); different draws would differ by ~1e-2.
    assert res.confidence_interval == pytest.approx(tuple(ref.confidence_interval), abs=1e-6)


@pytest.mark.parametrize("n", [7, 25])
def test_paired_ci_agrees_with_scipy_within_mc_error(n):
    # Independent seeds. A percentile endpoint from B=10,000 resamples has a Monte-Carlo
    # SE of about sqrt(q(1-q)/B)/f(z_q) = 0.027 bootstrap SEs (q=0.025, normal shape);
    # the difference of two independent estimates has SE 0.038. Tolerance: 0.2 bootstrap
    # SEs (> 5 SE of the difference). A wrong percentile level (e.g. 5%/95% instead of
    # 2.5%/97.5%) moves an endpoint by about 0.3 bootstrap SEs.
    rng = np.random.default_rng(100 + n)
    a = rng.normal(size=n)
    b = a + rng.exponential(size=n)
    ref = st.bootstrap((a, b), mean_diff, paired=True, vectorized=True, method="percentile", rng=1)
    res = paired_bootstrap(a, b, rng=2)
    tol = 0.2 * ref.standard_error
    assert res.confidence_interval.low == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert res.confidence_interval.high == pytest.approx(ref.confidence_interval.high, abs=tol)


@pytest.mark.parametrize("n", [6, 40])
def test_paired_swap_flips_sign(n):
    rng = np.random.default_rng(n)
    a, b = rng.normal(size=n), rng.normal(size=n)
    ab = paired_bootstrap(a, b, rng=3)
    ba = paired_bootstrap(b, a, rng=3)
    assert ba.statistic == pytest.approx(-ab.statistic, abs=1e-15)
    assert ba.pvalue == ab.pvalue
    assert ba.confidence_interval.low == pytest.approx(-ab.confidence_interval.high, abs=1e-12)
    assert ba.confidence_interval.high == pytest.approx(-ab.confidence_interval.low, abs=1e-12)
    g = paired_bootstrap(a, b, alternative="greater", rng=3)
    assert paired_bootstrap(b, a, alternative="less", rng=3).pvalue == g.pvalue


def test_paired_ci_is_translation_equivariant():
    # Shifting a by c shifts every bootstrap mean by c: coverage does not depend on the
    # true difference (used by the coverage simulation).
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=20), rng.normal(size=20)
    base = paired_bootstrap(a, b, rng=4).confidence_interval
    shifted = paired_bootstrap(a + 0.75, b, rng=4).confidence_interval
    assert shifted.low == pytest.approx(base.low + 0.75, abs=1e-9)
    assert shifted.high == pytest.approx(base.high + 0.75, abs=1e-9)


@pytest.mark.parametrize("n", [5, 30])
def test_paired_all_zero_differences(n):
    a = np.linspace(0.2, 0.8, n)
    res = paired_bootstrap(a, a.copy(), rng=0)
    assert res.statistic == 0.0
    assert res.pvalue == 1.0
    assert res.confidence_interval == (0.0, 0.0)


def test_paired_min_pvalue_is_attained_and_documented():
    a = np.arange(7.0) + 1.0
    res = paired_bootstrap(a, np.zeros(7), rng=0)  # all differences positive
    assert res.min_pvalue == pytest.approx(2 / 128)
    assert res.pvalue == pytest.approx(res.min_pvalue)
    one = paired_bootstrap(a, np.zeros(7), alternative="greater", rng=0)
    assert one.pvalue == one.min_pvalue == pytest.approx(1 / 128)
    assert one.confidence_interval.high == np.inf
    # 2**20 > 100 resamples: Monte-Carlo; a random pattern is as extreme as all-positive
    # differences only if it is all +1 or all -1 (chance 2/2**20 per draw)
    mc = paired_bootstrap(np.arange(20.0) + 1, np.zeros(20), n_resamples=100, rng=0)
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
        ([1, 2], [2, 1], {}, "`a` and `b` need at least 3"),
        ([1, 2, 3], [3, 2, 1], {"n_resamples": 2.5}, "`n_resamples` must be a positive integer"),
        ([1, 2, 3], [3, 2, 1], {"n_resamples": 0}, "`n_resamples`"),
        ([1, 2, 3], [3, 2, 1], {"n_resamples": "100"}, "`n_resamples`"),
        ([1, 2, 3], [3, 2, 1], {"confidence_level": 0}, "`confidence_level`"),
        ([1, 2, 3], [3, 2, 1], {"confidence_level": 1.2}, "`confidence_level`"),
        ([1, 2, 3], [3, 2, 1], {"confidence_level": np.nan}, "`confidence_level`"),
        ([1, 2, 3], [3, 2, 1], {"alternative": "two_sided"}, "`alternative`"),
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
    assert adjust_pvalues(p, method="holm") == pytest.approx([0.05, 0.08, 0.09, 0.09, 0.09])
    # ties and the cap at 1
    assert adjust_pvalues([0.02, 0.02, 0.5]) == pytest.approx([0.06, 0.06, 0.5])
    assert adjust_pvalues([0.5, 0.6]) == pytest.approx([1.0, 1.0])
    assert adjust_pvalues([0.01, 0.2], method="bonferroni") == pytest.approx([0.02, 0.4])
    assert adjust_pvalues([0.01, 0.2], method="none") == pytest.approx([0.01, 0.2])


def test_holm_bad_input():
    with pytest.raises(ValueError, match="`pvalues`"):
        adjust_pvalues([0.1, 1.2])
    with pytest.raises(ValueError, match="`method`"):
        adjust_pvalues([0.1], method="bh")


# --------------------------------------------------------------------------- pairwise_significance


def _scores(n_units, n_models, seed=0):
    rng = np.random.default_rng(seed)
    task = rng.uniform(0.3, 0.7, size=(n_units, 1))
    skill = np.linspace(0, 0.1, n_models)
    values = task + skill + 0.03 * rng.normal(size=(n_units, n_models))
    return pd.DataFrame(values, columns=[f"model-{k}" for k in range(n_models)])


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
def test_pairwise_shape_and_order():
    scores = _scores(8, 5)
    out = pairwise_significance(scores, n_resamples=500, rng=0)
    assert len(out) == 5 * 4 // 2
    assert list(out.columns) == [
        "model_a",
        "model_b",
        "difference",
        "ci_low",
        "ci_high",
        "pvalue",
        "pvalue_adjusted",
        "significant",
        "n",
    ]
    order = {m: k for k, m in enumerate(scores.columns)}
    assert all(order[a] < order[b] for a, b in zip(out.model_a, out.model_b, strict=True))
    assert len(set(zip(out.model_a, out.model_b, strict=True))) == len(out)
    assert (out["n"] == 8).all()
    assert out.attrs["min_pvalue"] == pytest.approx(2 / 256)


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
@pytest.mark.parametrize(("n_units", "n_resamples"), [(6, 10_000), (25, 2000)])
def test_pairwise_matches_paired_bootstrap(n_units, n_resamples):
    scores = _scores(n_units, 6, seed=n_units)
    out = pairwise_significance(scores, n_resamples=n_resamples, rng=42)
    for row in out.itertuples():
        ref = paired_bootstrap(
            scores[row.model_a], scores[row.model_b], n_resamples=n_resamples, rng=42
        )
        assert row.difference == pytest.approx(ref.statistic, abs=1e-15)
        assert row.pvalue == ref.pvalue
        assert (row.ci_low, row.ci_high) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)
    assert ("exact" in out.attrs["method"]) == (n_units == 6)


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
def test_pairwise_adjustment_and_significance():
    scores = _scores(13, 6, seed=3)
    holm = pairwise_significance(scores, n_resamples=2000, rng=1)
    bonf = pairwise_significance(scores, n_resamples=2000, rng=1, correction="bonferroni")
    none = pairwise_significance(scores, n_resamples=2000, rng=1, correction="none", alpha=0.01)
    m = len(holm)
    p = holm["pvalue"].to_numpy()
    order = np.argsort(p, kind="stable")
    expected = np.empty(m)
    running = 0.0
    for rank, k in enumerate(order):  # Holm by hand, as a loop
        running = max(running, min(1.0, (m - rank) * p[k]))
        expected[k] = running
    assert holm["pvalue_adjusted"].to_numpy() == pytest.approx(expected)
    assert bonf["pvalue_adjusted"].to_numpy() == pytest.approx(np.minimum(1, m * p))
    assert (none["pvalue_adjusted"] == none["pvalue"]).all()
    assert (holm["significant"] == (holm["pvalue_adjusted"] <= 0.05)).all()
    assert (none["significant"] == (none["pvalue"] <= 0.01)).all()
    # the best vs the worst model differ clearly (0.1 on 13 tasks, noise 0.03)
    extreme = holm[(holm.model_a == "model-0") & (holm.model_b == "model-5")].iloc[0]
    assert extreme.significant and extreme.difference < 0 and extreme.ci_high < 0


def test_pairwise_warns_when_nothing_can_be_significant():
    # 6 units: min p = 2/64; 15 pairs x 2/64 > 0.05 under Holm -> a warning
    with pytest.warns(UserWarning, match=r"no pair can be significant.*15 pairs"):
        out = pairwise_significance(_scores(6, 6), n_resamples=100, rng=0)
    assert not out["significant"].any()
    # 13 units, 5 models: 10 x 2/8192 < 0.05 -> no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pairwise_significance(_scores(13, 5), n_resamples=10_000, rng=0)
    # without correction only the floor itself matters: 2/16 > 0.05 at 4 units
    with pytest.warns(UserWarning, match="smallest attainable p-value is 0.125"):
        pairwise_significance(_scores(4, 3), correction="none", rng=0)


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
def test_pairwise_reversed_columns_mirror():
    scores = _scores(10, 4, seed=5)
    fwd = pairwise_significance(scores, n_resamples=3000, rng=7).set_index(["model_a", "model_b"])
    rev = pairwise_significance(scores[scores.columns[::-1]], n_resamples=3000, rng=7)
    rev = rev.set_index(["model_b", "model_a"]).reindex(fwd.index)
    assert rev["difference"].to_numpy() == pytest.approx(-fwd["difference"].to_numpy(), abs=1e-15)
    assert (rev["pvalue"] == fwd["pvalue"]).all()
    assert rev["ci_low"].to_numpy() == pytest.approx(-fwd["ci_high"].to_numpy(), abs=1e-12)


@pytest.mark.filterwarnings("ignore:pairwise_significance. no pair can be significant")
def test_pairwise_threads_do_not_change_results(monkeypatch):
    # 40 models: enough work for the thread pool; chunks draw no random numbers.
    import analysis.stats._resampling as stats_module

    scores = _scores(9, 40, seed=9)
    monkeypatch.setattr(stats_module, "_N_WORKERS", 1)
    serial = pairwise_significance(scores, n_resamples=10_000, rng=3)
    monkeypatch.setattr(stats_module, "_N_WORKERS", 3)
    monkeypatch.setattr(stats_module, "_PARALLEL_MIN_WORK", 0)
    threaded = pairwise_significance(scores, n_resamples=10_000, rng=3)
    pd.testing.assert_frame_equal(serial, threaded)


def test_pairwise_bad_input():
    scores = _scores(6, 4)
    holey = scores.copy()
    holey.iloc[2, 1] = np.nan
    holey.iloc[0, 3] = np.nan
    with pytest.raises(ValueError, match=r"`scores` has missing values in columns \['model-1', "):
        pairwise_significance(holey)
    with pytest.raises(ValueError, match="drop incomplete models"):
        pairwise_significance(holey)
    inf = scores.copy()
    inf.iloc[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"`scores` has infinite values in columns \['model-0'\]"):
        pairwise_significance(inf)
    with pytest.raises(ValueError, match="`scores` must be a pandas DataFrame"):
        pairwise_significance(scores.to_numpy())
    with pytest.raises(ValueError, match="`scores` needs at least 2 model"):
        pairwise_significance(scores[["model-0"]])
    with pytest.raises(ValueError, match="`scores` needs at least 3 units"):
        pairwise_significance(scores.head(2))
    dup = scores.rename(columns={"model-1": "model-0"})
    with pytest.raises(ValueError, match="`scores` has duplicate"):
        pairwise_significance(dup)
    text = scores.assign(**{"model-2": "x"})
    with pytest.raises(ValueError, match=r"non-numeric columns: \['model-2'\]"):
        pairwise_significance(text)
    for kwargs, name in [
        ({"correction": "fdr"}, "correction"),
        ({"alpha": 0}, "alpha"),
        ({"n_resamples": -3}, "n_resamples"),
        ({"confidence_level": 2}, "confidence_level"),
        ({"rng": object()}, "rng"),
    ]:
        with pytest.raises(ValueError, match=f"`{name}`"):
            pairwise_significance(scores, **kwargs)


# --------------------------------------------------------------------------- public_private_gap


def _long(table, public):
    rows = [
        {"model": m, "task": t, "is_public": t in public, "main_score": v, "revision": "r1"}
        for m, scores in table.items()
        for t, v in scores.items()
    ]
    return pd.DataFrame(rows)


HAND = {
    "A": {"P1": 0.5, "P2": 0.7, "Q1": 0.4, "Q2": 0.6},
    "B": {"P1": 0.4, "P2": 0.6, "Q1": 0.7, "Q2": 0.9},
}


def test_gap_hand_computed():
    # A: public mean 0.6, private 0.5 -> gap -0.1; B: 0.5, 0.8 -> gap +0.3.
    # With 2 tasks per side a bootstrap side mean is x1, the mean or x2 with
    # probabilities 1/4, 1/2, 1/4, so the gap's extremes have probability 1/16 > 2.5%:
    # A's 95% interval is (0.4 - 0.7, 0.6 - 0.5) = (-0.3, 0.1); B's is (0.1, 0.5).
    out = public_private_gap(_long(HAND, {"P1", "P2"}), n_resamples=4000, rng=0)
    out = out.set_index("model")
    assert out.loc["A", "mean_public"] == pytest.approx(0.6)
    assert out.loc["A", "mean_private"] == pytest.approx(0.5)
    assert out.loc["A", "gap"] == pytest.approx(-0.1)
    assert out.loc["B", "gap"] == pytest.approx(0.3)
    assert (out.loc["A", "gap_ci_low"], out.loc["A", "gap_ci_high"]) == pytest.approx((-0.3, 0.1))
    assert (out.loc["B", "gap_ci_low"], out.loc["B", "gap_ci_high"]) == pytest.approx((0.1, 0.5))
    assert out.loc["A", ["rank_public", "rank_private", "rank_shift"]].tolist() == [1, 2, -1]
    assert out.loc["B", ["rank_public", "rank_private", "rank_shift"]].tolist() == [2, 1, 1]
    assert (out["n_public"] == 2).all() and (out["n_private"] == 2).all()


def test_gap_stratified_bootstrap_by_hand():
    rng = np.random.default_rng(3)
    public, private = ["p1", "p2", "p3"], ["q1", "q2", "q3", "q4"]
    table = {m: {t: rng.uniform() for t in public + private} for m in ["x", "y", "z"]}
    out = public_private_gap(_long(table, set(public)), n_resamples=300, rng=9)
    gen = np.random.default_rng(9)
    i_pub = gen.integers(0, 3, size=(300, 3))  # public side first, then private
    i_priv = gen.integers(0, 4, size=(300, 4))
    for row in out.itertuples():
        pub = np.array([table[row.model][t] for t in public])
        priv = np.array([table[row.model][t] for t in private])
        gaps = priv[i_priv].mean(axis=1) - pub[i_pub].mean(axis=1)
        lo, hi = np.quantile(gaps, [0.025, 0.975])
        assert (row.gap_ci_low, row.gap_ci_high) == pytest.approx((lo, hi), abs=1e-12)


def test_gap_rank_ties_use_min():
    table = {
        "A": {"P1": 0.5, "P2": 0.7, "Q1": 0.4, "Q2": 0.6},
        "B": {"P1": 0.7, "P2": 0.5, "Q1": 0.5, "Q2": 0.5},  # same public mean as A
        "C": {"P1": 0.1, "P2": 0.2, "Q1": 0.9, "Q2": 0.9},
    }
    out = public_private_gap(_long(table, {"P1", "P2"}), n_resamples=50, rng=0)
    ranks = out.set_index("model")[["rank_public", "rank_private", "rank_shift"]]
    assert ranks.loc["A"].tolist() == [1, 2, -1]
    assert ranks.loc["B"].tolist() == [1, 2, -1]  # A and B tie on both sides
    assert ranks.loc["C"].tolist() == [3, 1, 2]
    assert out["model"].tolist() == ["A", "B", "C"]


def test_gap_drops_incomplete_models_with_warning():
    table = {k: dict(v) for k, v in HAND.items()}
    table["C"] = {"P1": 0.1, "P2": 0.2, "Q1": 0.3}  # no Q2
    table["D"] = {"P1": 0.1, "P2": np.nan, "Q1": 0.3, "Q2": 0.3}  # NaN counts as missing
    with pytest.warns(DroppedModelsWarning, match=r"'C' \(1 missing\), 'D' \(1 missing\)"):
        out = public_private_gap(_long(table, {"P1", "P2"}), n_resamples=50, rng=0)
    assert sorted(out["model"]) == ["A", "B"]
    assert out.attrs["dropped_models"] == ["C", "D"]
    assert out.attrs["public_tasks"] == ["P1", "P2"]


def test_gap_models_argument_and_close_names():
    long = _long(HAND, {"P1", "P2"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = public_private_gap(long, models=["B"], n_resamples=50, rng=0)
    assert out["model"].tolist() == ["B"]
    assert out.loc[0, "rank_public"] == 1
    with pytest.raises(UnknownModelError, match=r"`models`: unknown model\(s\) 'b '.*'B'"):
        public_private_gap(long, models=["b "])


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
    long = _long(HAND, {"P1", "P2"})
    with pytest.raises(ValueError, match=r"`scores` lacks the column\(s\) \['is_public'\]"):
        public_private_gap(long.drop(columns="is_public"))
    with pytest.raises(ValueError, match="repeated"):
        public_private_gap(pd.concat([long, long.head(1)]))
    one_public = long[long.task != "P2"]
    with pytest.raises(ValueError, match="at least 2 public and 2 private tasks, got 1 public"):
        public_private_gap(one_public)
    mixed = long.copy()
    mixed.loc[(mixed.model == "B") & (mixed.task == "Q1"), "is_public"] = True
    with pytest.raises(ValueError, match=r"both public and private: \['Q1'\]"):
        public_private_gap(mixed)
    bad = long.assign(main_score=long.main_score.where(long.task != "Q1", np.inf))
    with pytest.raises(ValueError, match="'main_score' contains inf"):
        public_private_gap(bad)
    with pytest.raises(ValueError, match="'is_public' must hold only True/False"):
        public_private_gap(long.assign(is_public="yes"))
    with pytest.raises(ValueError, match="`n_resamples`"):
        public_private_gap(long, n_resamples=1.0)
    with pytest.raises(ValueError, match="`scores` must be a pandas DataFrame"):
        public_private_gap(long.to_dict())
    all_holey = _long(
        {"A": {"P1": 0.1, "P2": 0.2, "Q1": 0.3}, "B": {"P1": 0.1, "Q1": 0.3, "Q2": 1}}, {"P1", "P2"}
    )
    with (
        pytest.warns(DroppedModelsWarning),
        pytest.raises(ValueError, match="no model has a score"),
    ):
        public_private_gap(all_holey)
