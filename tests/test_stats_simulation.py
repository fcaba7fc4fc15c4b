"""Simulation checks of analysis.stats: type-I error and interval coverage.

Seeded and vectorised across replicates through the same internal batched functions
the public API uses (``_paired_tests``, ``_rank_permutation_test``); the first tests
check that the batched results equal the public functions'.

Measured values (seeds below; 10,000 bootstrap resamples; normal data; data and
resampling draws come from separate generators):

=========================  =======  =======  =======
quantity                    n=7      n=30     n=300
=========================  =======  =======  =======
paired type-I (alpha=.05)   0.0440   0.0482   0.0500
paired 95% CI coverage      0.8765   0.9370   0.9460
Spearman type-I             0.0525   0.0500
Kendall type-I              (0.0302)  0.0485
=========================  =======  =======  =======

Paired: 4,000 data sets at n=7, 10,000 at n=30, 2,000 at n=300 (Monte-Carlo SE of a
coverage near 0.94: 0.0024 at 10,000). Rank: 2,000 data sets each (exact test at n=7,
1,999 random orderings at n=30); Kendall at n=7 is the exact size, not simulated.
At n=7 the sign-flip test is exact with 128 patterns, so its size is at most
6/128 = 0.047; Kendall's exact test at n=7 has size 152/5040 = 0.030 (a discrete
statistic), Spearman's 242/5040 = 0.048 (both computed exactly below). The
percentile bootstrap under-covers at small n: for normal differences it is close to
mean +- 1.96 * sd_plugin / sqrt(n), whose coverage is P(|t_{n-1}| <= 1.96 *
sqrt((n-1)/n)) = 0.880 at n=7, 0.936 at n=30, 0.949 at n=300.
"""

import functools
import itertools

import numpy as np
import pytest

from analysis.stats import paired_bootstrap, rank_correlation
from analysis.stats._ranks import _rank_permutation_test
from analysis.stats.paired import _paired_tests

ALPHA = 0.05
TYPE_ONE_BAND = (0.03, 0.07)
COVERAGE_BAND = (0.93, 0.97)
# n=7: measured 0.8765 (4,000 data sets, seed 7); the band allows +-2.5 points,
# about 5 Monte-Carlo standard errors, around the theoretical 0.880.
COVERAGE_BAND_N7 = (0.855, 0.905)


def null_data(rng, n, reps):
    """Paired scores under H0: a unit effect plus exchangeable noise for a and b."""
    unit = rng.normal(size=(n, reps))
    return unit + rng.normal(size=(n, reps)), unit + rng.normal(size=(n, reps))


def batched_paired(a, b, rng, n_resamples=10_000):
    """paired_bootstrap on every column pair (a[:, r], b[:, r]), one shared plan."""
    reps = a.shape[1]
    return _paired_tests(
        np.hstack([a, b]),
        np.arange(reps),
        reps + np.arange(reps),
        n_resamples=n_resamples,
        confidence_level=0.95,
        alternative="two-sided",
        rng=rng,
    )


@functools.cache
def simulate_paired(n, reps, seed, chunk=250):
    """p-values and 95% intervals of the paired test for `reps` null data sets.

    The true mean difference is 0. The percentile interval is translation
    equivariant (tests/test_stats.py checks it), so its coverage of 0 here is its
    coverage of any true difference.
    """
    data_rng = np.random.default_rng(seed)  # data apart from resampling draws
    resample_rng = np.random.default_rng(seed + 10_000)
    pvalues, covered = [], []
    for start in range(0, reps, chunk):
        a, b = null_data(data_rng, n, min(chunk, reps - start))
        res = batched_paired(a, b, resample_rng)
        pvalues.append(res.pvalue)
        covered.append((res.low <= 0) & (0 <= res.high))
    return np.concatenate(pvalues), np.concatenate(covered)


PAIRED_RUNS = {7: (4000, 7), 30: (10_000, 30), 300: (2000, 300)}  # n: (data sets, seed)


@pytest.mark.parametrize("n", [7, 40])
def test_batched_paired_equals_public_function(n):
    a, b = null_data(np.random.default_rng(1), n, 3)
    res = batched_paired(a, b, np.random.default_rng(5), n_resamples=3000)
    for r in range(3):
        ref = paired_bootstrap(a[:, r], b[:, r], n_resamples=3000, rng=5)
        assert res.pvalue[r] == ref.pvalue
        assert (res.low[r], res.high[r]) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)


@pytest.mark.parametrize("n", [7, 30, 300])
def test_paired_type_one_error(n):
    pvalues, _ = simulate_paired(n, *PAIRED_RUNS[n])
    rate = np.mean(pvalues <= ALPHA)
    assert TYPE_ONE_BAND[0] <= rate <= TYPE_ONE_BAND[1], rate


def test_paired_exact_test_is_exactly_uniform_at_n7():
    # 128 patterns, p-values on the grid k/64 (two-sided): P(p <= 0.05) = 6/128 exactly
    # for continuous symmetric data; 4,000 draws estimate it within ~0.0034 (1 SE).
    pvalues, _ = simulate_paired(7, *PAIRED_RUNS[7])
    assert set(np.round(pvalues * 64, 9)) <= set(range(1, 65))
    assert abs(np.mean(pvalues <= ALPHA) - 6 / 128) < 4 * np.sqrt(6 / 128 * (1 - 6 / 128) / 4000)


@pytest.mark.parametrize("n", [30, 300])
def test_paired_coverage(n):
    _, covered = simulate_paired(n, *PAIRED_RUNS[n])
    coverage = covered.mean()
    assert COVERAGE_BAND[0] <= coverage <= COVERAGE_BAND[1], coverage


def test_paired_coverage_small_n_is_documented():
    _, covered = simulate_paired(7, *PAIRED_RUNS[7])
    coverage = covered.mean()
    assert COVERAGE_BAND_N7[0] <= coverage <= COVERAGE_BAND_N7[1], coverage


# --------------------------------------------------------------------------- rank correlation


@pytest.mark.parametrize("method", ["spearman", "kendall"])
@pytest.mark.parametrize("n", [6, 25])
def test_batched_rank_equals_public_function(method, n):
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(3, n)), rng.normal(size=(3, n))
    stat, pvalue, _, _ = _rank_permutation_test(x, y, method, 999, np.random.default_rng(4))
    for r in range(3):
        ref = rank_correlation(x[r], y[r], method=method, n_resamples=999, rng=4)
        assert stat[r] == pytest.approx(ref.statistic, abs=1e-12)
        assert pvalue[r] == ref.pvalue


@pytest.mark.parametrize(
    ("method", "n", "n_resamples", "seed"),
    [
        ("spearman", 7, 9999, 11),  # exact: 5040 orderings
        ("spearman", 30, 1999, 12),
        ("kendall", 30, 1999, 13),
    ],
)
def test_rank_type_one_error(method, n, n_resamples, seed):
    # (b+1)/(B+1) p-values are valid for any B; fewer orderings keep the run short.
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=(2000, n)), rng.normal(size=(2000, n))
    _, pvalues, _, _ = _rank_permutation_test(
        x, y, method, n_resamples, np.random.default_rng(seed + 10_000)
    )
    rate = np.mean(pvalues <= ALPHA)
    assert TYPE_ONE_BAND[0] <= rate <= TYPE_ONE_BAND[1], rate


def test_rank_exact_size_n7():
    # Every ordering of y against x = 0..6 is one equally likely null data set, so the
    # exact test's size is the fraction of orderings with p <= alpha. Reference counts
    # are computed independently: Spearman from sum(d^2) over all orderings; Kendall
    # from inversion counts (|S| >= 15 <=> <= 3 or >= 18 inversions: 2*(1+6+20+49)=152).
    n = 7
    perms = np.array(list(itertools.permutations(range(n))), dtype=float)
    x = np.broadcast_to(np.arange(n, dtype=float), perms.shape)
    rho = 1 - 6 * ((perms - np.arange(n)) ** 2).sum(axis=1) / (n * (n * n - 1))
    extreme = np.abs(rho)[None, :] >= np.abs(rho)[:, None] - 1e-12
    spearman_size = np.sum(extreme.mean(axis=1) <= ALPHA)
    _, p_rho, exact, _ = _rank_permutation_test(x, perms, "spearman", 9999, None)
    _, p_tau, _, _ = _rank_permutation_test(x, perms, "kendall", 9999, None)
    assert exact
    assert np.sum(p_rho <= ALPHA) == spearman_size == 242
    assert np.sum(p_tau <= ALPHA) == 152
