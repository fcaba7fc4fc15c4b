"""analysis.stats.correlation.rank_correlation: against scipy, hand-computed cases, checks."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from analysis.stats import ConfidenceInterval, RankCorrelationResult, rank_correlation
from tests.stats._montecarlo import mc_tol


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
