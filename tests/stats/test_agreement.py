"""Tests of analysis.stats.agreement.benchmark_agreement and rank-correlation coverage.

Statistics are checked against scipy (kendalltau, spearmanr) on the same model sets.
The simulation measures the coverage of ``rank_correlation``'s percentile-bootstrap
interval for a known population correlation (bivariate normal with Pearson rho:
Spearman's population rho_s = 6/pi asin(rho/2), Kendall's tau = 2/pi asin(rho)),
batched through the same kernels ``rank_correlation`` uses (checked equal first).

Measured (1,000 data sets, 999 resamples, seed 5): coverage of the 95% interval at
n = 13 / 30 / 100 models: rho = 0.3: Spearman 0.943 / 0.959 / 0.945, Kendall 0.946 /
0.955 / 0.948; rho = 0.6: 0.961 / 0.963 / 0.945 and 0.958 / 0.962 / 0.952; rho = 0.9:
0.981 / 0.977 / 0.956 and 0.973 / 0.973 / 0.961. So the interval does not
under-cover; it is conservative for strong correlations at small n (ties created by
resampling pairs with replacement shrink the resampled correlations' spread less
than they bias them); ``benchmarks/results/rank_validation.md`` has the table.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from analysis.core.errors import LabelMismatchError
from analysis.stats import benchmark_agreement, rank_correlation
from analysis.stats._ranks import _rank_statistic
from analysis.stats._resampling import _bootstrap_index_blocks, _percentile_interval

LEVEL = 0.95


def leaderboard(rng, n=40, rho=0.7):
    z = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    names = [f"org/model-{i}" for i in range(n)]
    return pd.Series(z[:, 0], index=names), pd.Series(z[:, 1], index=names)


def scipy_stat(x, y, method):
    fn = sps.kendalltau if method == "kendall" else sps.spearmanr
    return fn(x, y).statistic


@pytest.mark.parametrize("method", ["kendall", "spearman"])
def test_statistics_match_scipy(method):
    x, y = leaderboard(np.random.default_rng(1))
    res = benchmark_agreement(
        x,
        y,
        top_k=(10, 20),
        subset_sizes=(10, None),
        n_subsets=50,
        method=method,
        n_resamples=199,
        rng=0,
    )
    assert res.overall.statistic == pytest.approx(scipy_stat(x, y, method), abs=1e-12)
    for _, row in res.top.iterrows():
        top = x.sort_values(ascending=False).index[: row["k"]]
        assert list(row["models"]) == list(top)
        assert row["statistic"] == pytest.approx(scipy_stat(x[top], y[top], method), abs=1e-12)
        assert row["ci_low"] <= row["statistic"] <= row["ci_high"]
    dist = res.distributions[10]
    assert dist.shape == (50,)
    assert np.all((dist >= -1) & (dist <= 1))
    all_row = res.subsets.set_index("k").loc[40]
    assert all_row["n_subsets"] == 1 and all_row["mean"] == pytest.approx(res.overall.statistic)


def test_subsets_are_uniform_draws_and_replayable():
    x, y = leaderboard(np.random.default_rng(2), n=25)
    kw = dict(top_k=(10,), subset_sizes=(8,), n_subsets=200, n_resamples=99)
    a = benchmark_agreement(x, y, rng=3, **kw)
    b = benchmark_agreement(x, y, rng=3, **kw)
    np.testing.assert_array_equal(a.distributions[8], b.distributions[8])
    # Recompute each subset statistic with scipy from the same orderings (two Series are
    # put in sorted-label order first).
    x, y = x.sort_index(), y.sort_index()
    gen = np.random.default_rng(3)
    rank_correlation(x.to_numpy(), y.to_numpy(), method="kendall", n_resamples=99, rng=gen)
    top = np.argsort(-x.to_numpy(), kind="stable")[:10]
    rank_correlation(
        x.to_numpy()[top], y.to_numpy()[top], method="kendall", n_resamples=99, rng=gen
    )
    idx = gen.permuted(np.broadcast_to(np.arange(25), (200, 25)), axis=1)[:, :8]
    expected = [sps.kendalltau(x.to_numpy()[i], y.to_numpy()[i]).statistic for i in idx]
    np.testing.assert_allclose(a.distributions[8], expected, atol=1e-12)
    row = a.subsets.iloc[0]
    assert row["median"] == pytest.approx(np.median(expected))
    assert row["q025"] == pytest.approx(np.quantile(expected, 0.025))
    assert row["sd"] == pytest.approx(np.std(expected, ddof=1))


def test_restriction_of_range_shows_lower_agreement_at_the_top():
    """Scores that agree broadly but not among the best: the top-k tau is far below."""
    rng = np.random.default_rng(4)
    quality = np.linspace(0, 10, 60)
    x = pd.Series(quality + rng.normal(scale=0.3, size=60))
    y = pd.Series(quality + rng.normal(scale=0.3, size=60))
    y.iloc[np.argsort(-x.to_numpy())[:10]] = rng.permutation(
        y.iloc[np.argsort(-x.to_numpy())[:10]].to_numpy()
    )
    res = benchmark_agreement(
        x, y, top_k=(10,), subset_sizes=(10, None), n_subsets=500, n_resamples=199, rng=0
    )
    top = res.top.iloc[0]
    assert res.overall.statistic > 0.8
    assert top["statistic"] < res.overall.statistic - 0.3
    assert top["subset_percentile"] < 0.05


def test_series_are_aligned_by_model_and_nan_dropped():
    x = pd.Series([1.0, 2.0, 3.0, 4.0, np.nan], index=list("abcde"))
    y = pd.Series([4.0, 3.5, 2.0, 1.0, 0.0], index=list("dcbae"))
    res = benchmark_agreement(x, y, top_k=3, subset_sizes=None, n_resamples=99, rng=0)
    assert res.n == 4
    assert res.overall.statistic == pytest.approx(
        sps.kendalltau([1, 2, 3, 4], [1, 2, 3.5, 4]).statistic
    )


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"top_k": (2,)}, "top_k"),
        ({"top_k": (100,)}, "top_k"),
        ({"subset_sizes": (0,)}, "subset_sizes"),
        ({"n_subsets": 0}, "n_subsets"),
        ({"method": "pearson"}, "method"),
        ({"confidence_level": 0}, "confidence_level"),
        ({"rng": "x"}, "rng"),
    ],
)
def test_bad_options_name_the_argument(kwargs, name):
    x, y = leaderboard(np.random.default_rng(5), n=30)
    with pytest.raises(ValueError, match=f"`{name}`"):
        benchmark_agreement(x, y, n_resamples=99, **kwargs)


def test_mismatched_inputs():
    with pytest.raises(ValueError, match="same length"):
        benchmark_agreement([1, 2, 3, 4], [1, 2, 3])
    with pytest.raises(LabelMismatchError, match=r"`y` lacks \['a', 'b', 'c'\] \(3\) that `x` has"):
        benchmark_agreement(
            pd.Series([1.0, 2, 3], index=list("abc")), pd.Series([1.0, 2, 3], index=list("xyz"))
        )
    with pytest.raises(LabelMismatchError, match=r"has \['e'\] \(1\) that `x` lacks"):
        benchmark_agreement(
            pd.Series([1.0, 2, 3, 4], index=list("abcd")),
            pd.Series([1.0, 2, 3, 4, 5], index=list("abcde")),
        )


# --------------------------------------------------------------------------- coverage


def batched_percentile_ci(x, y, method, n_resamples, rng):
    """rank_correlation's interval for each row of x, y, one shared bootstrap plan."""
    reps, n = x.shape
    (idx,) = list(_bootstrap_index_blocks(n, n_resamples, rng))
    stat = _rank_statistic(x[:, idx].reshape(-1, n), y[:, idx].reshape(-1, n), method).reshape(
        reps, -1
    )
    low, high = np.empty(reps), np.empty(reps)
    for r in range(reps):
        defined = stat[r][~np.isnan(stat[r])][None]
        lo, hi = _percentile_interval(defined, LEVEL, "two-sided")
        low[r], high[r] = lo[0], hi[0]
    return low, high


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_batched_interval_equals_rank_correlation(method):
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(2, 6))  # n = 6: exact permutation test, no draws before the CI
    res = rank_correlation(x, y, method=method, n_resamples=999, rng=9)
    low, high = batched_percentile_ci(x[None], y[None], method, 999, np.random.default_rng(9))
    assert (low[0], high[0]) == pytest.approx(tuple(res.confidence_interval), abs=1e-12)


@pytest.mark.parametrize(
    ("n", "rho", "method"), [(13, 0.6, "kendall"), (30, 0.3, "spearman"), (30, 0.6, "kendall")]
)
def test_rank_correlation_interval_covers_at_least_nominal(n, rho, method):
    """Coverage of the population correlation: at least nominal - 3 SE (measured above)."""
    reps = 600
    rng = np.random.default_rng(1000 + n)
    z = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=(reps, n))
    truth = 2 / np.pi * math.asin(rho) if method == "kendall" else 6 / np.pi * math.asin(rho / 2)
    low, high = batched_percentile_ci(z[..., 0], z[..., 1], method, 499, rng)
    covered = ((low <= truth) & (truth <= high)).mean()
    assert covered >= LEVEL - 3 * math.sqrt(LEVEL * (1 - LEVEL) / reps)
