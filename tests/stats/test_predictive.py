"""predictive_comparison against statsmodels' PRESS residuals, a jackknife written out, and
its swap test written out with numpy's polyfit over each swapped pair of predictors.

``benchmarks/bench_goodhart_validation.py`` measures its type-I error by simulation
(``benchmarks/results/goodhart_validation.md``); here a small simulation runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.core.errors import LabelMismatchError
from analysis.stats import predictive_comparison
from analysis.stats.predictive import onto
from tests.conftest import REPO, load_file

sim = load_file(REPO / "benchmarks" / "_goodhart_sim.py", "_goodhart_sim")


def _press(target: np.ndarray, x: np.ndarray) -> np.ndarray:
    import statsmodels.api as sm

    fit = sm.OLS(target, sm.add_constant(x)).fit()
    return fit.get_influence().resid_press


def _series(seed: int, n: int = 30):
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    models = [f"m{j:02d}" for j in range(n)]
    target = pd.Series(truth + rng.normal(0, 0.3, n), index=models)
    a = pd.Series(truth + rng.standard_t(3, n) * 0.3, index=models)
    b = pd.Series(2 * truth + rng.normal(0, 1.0, n), index=models)
    return target, a, b


def test_errors_are_statsmodels_press_residuals_and_pairing_is_by_label():
    target, a, b = _series(8, 40)
    res = predictive_comparison(target, a, b.sample(frac=1, random_state=0), n_resamples=999)
    table = res.to_frame().set_index("model").loc[target.index]
    for column, x in (("error_a", a), ("error_b", b)):
        np.testing.assert_allclose(
            table[column], _press(target.to_numpy(), x.to_numpy()), rtol=1e-9
        )
    assert res.n == 40 and res.mae_b - res.mae_a == pytest.approx(table["difference"].mean())


def _jackknife(target: np.ndarray, a: np.ndarray, b: np.ndarray, press=_press) -> np.ndarray:
    """The jackknife's pseudo-values from a loop: the lines refitted per left-out model."""
    n, left_out = len(target), []
    for k in range(n):
        rest = np.arange(n) != k
        gap = np.abs(press(target[rest], b[rest])) - np.abs(press(target[rest], a[rest]))
        left_out.append(gap.mean())
    plain = (np.abs(press(target, b)) - np.abs(press(target, a))).mean()
    return n * plain - (n - 1) * np.array(left_out)


def _polyfit_press(target: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Leave-one-out errors, each from numpy's polyfit on the others."""
    out = []
    for i in range(len(target)):
        rest = np.arange(len(target)) != i
        slope, intercept = np.polyfit(x[rest], target[rest], 1)
        out.append(target[i] - intercept - slope * x[i])
    return np.array(out)


def test_pseudo_values_from_a_refit_loop_and_the_swaps_written_out():
    """The p-value: the studentized pseudo-values' mean against its values with each
    model's a and mapped b swapped (the same random patterns), every line refitted by
    polyfit; the interval's half-width: the swaps' critical value times the se."""
    target, a, b = (v.iloc[:10] for v in _series(4))
    res = predictive_comparison(target, a, b, confidence_level=0.9, n_resamples=39, rng=7)
    y, xa, xb = (v.to_numpy() for v in (target, a, b))
    pseudo, n = _jackknife(y, xa, xb), len(y)
    assert res.statistic == pytest.approx(pseudo.mean(), rel=1e-9)
    assert res.se == pytest.approx(stats.sem(pseudo), rel=1e-9)
    s_ba, s_ab = stats.theilslopes(xb, xa).slope, stats.theilslopes(xa, xb).slope
    slope = np.sqrt(s_ba / s_ab)
    mapped = (xb - np.median(xb - slope * xa)) / slope
    swaps = np.random.default_rng(7).random((39, n)) < 0.5
    null = []
    for swap in swaps:
        worlds = np.where(swap, mapped, xa), np.where(swap, xa, mapped)
        values = _jackknife(y, *worlds, press=_polyfit_press)
        null.append(abs(stats.ttest_1samp(values, 0.0).statistic))
    observed = abs(stats.ttest_1samp(pseudo, 0.0).statistic)
    assert res.pvalue == pytest.approx((1 + sum(t >= observed * (1 - 1e-9) for t in null)) / 40)
    critical = np.sort(null)[-3]  # p < 0.1 exactly when fewer than 3 of the 39 are as large
    half = res.confidence_interval.high - res.statistic
    assert half == pytest.approx(critical * res.se, rel=1e-6)
    assert res.statistic - res.confidence_interval.low == pytest.approx(half)


def test_the_mapping_is_a_symmetric_robust_line():
    """Exact on an exact line; the same whatever affine scale b comes in; a model far off
    does not move it."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=30)
    np.testing.assert_allclose(onto(a, 3.0 + 2.0 * a), a, atol=1e-12)
    b = 2.0 * a + rng.normal(0, 0.3, 30)
    np.testing.assert_allclose(onto(a, 5.0 - 0.5 * b), onto(a, b), atol=1e-12)
    far = b.copy()
    far[0] += 40.0
    np.testing.assert_allclose(onto(a, far)[1:], onto(a, b)[1:], atol=0.05)


def test_the_mapping_back_is_its_inverse_and_its_sign_is_kendalls():
    """onto(b, a) undoes onto(a, b); with a coarse predictor (most Theil-Sen slopes 0) a
    negated b gives the same test, as least squares does not see the sign."""
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=25), rng.normal(size=25)
    b = 3.0 * a + b  # related, not on a line
    forward = onto(a, b)  # b on a's scale: forward = (b - c) / s
    s = (b[1] - b[0]) / (forward[1] - forward[0])
    np.testing.assert_allclose(onto(b, a), s * a + (b[0] - s * forward[0]), atol=1e-10)
    target, a, other = _series(6, 34)
    coarse = np.sign(a).where(a.abs() > 1.2, 0.0)  # 25 of 34 at 0: most slopes of it are 0
    one = predictive_comparison(target, coarse, other, n_resamples=499, rng=3)
    negated = predictive_comparison(target, coarse, -other, n_resamples=499, rng=3)
    assert negated.pvalue == pytest.approx(one.pvalue)
    assert negated.confidence_interval == pytest.approx(one.confidence_interval)


def test_a_predictor_without_a_slope_for_every_pair_left_out_is_refused():
    target, a, _ = _series(7, 12)
    nearly = pd.Series(0.0, index=a.index)
    nearly.iloc[:2] = [1.0, 2.0]  # leaving both out leaves a constant
    with pytest.raises(ValueError, match="`b` differs from its commonest value in 2 of the 12"):
        predictive_comparison(target, a, nearly)


def test_five_models_never_reach_the_level():
    """Swapping every model, or none, gives the same |t|: p >= 2/32 at 5 models."""
    target, a, b = _series(11, 5)
    assert predictive_comparison(target, a, b, rng=0).pvalue > 0.05


def test_finds_the_better_predictor_and_not_a_relabelled_one():
    rng = np.random.default_rng(3)
    truth = rng.normal(size=60)
    target = truth + rng.normal(0, 0.3, 60)
    good, poor = truth + rng.normal(0, 0.2, 60), 3 * truth + rng.normal(0, 2.0, 60)
    res = predictive_comparison(target, good, poor, n_resamples=999, rng=1)
    assert res.statistic > 0 and res.pvalue < 0.01 and res.confidence_interval.low > 0
    swapped = predictive_comparison(target, poor, good, n_resamples=999, rng=1)
    assert swapped.statistic == pytest.approx(-res.statistic)
    assert swapped.pvalue == pytest.approx(res.pvalue)
    interval = swapped.confidence_interval
    assert (interval.low, interval.high) == pytest.approx(
        (-res.confidence_interval.high, -res.confidence_interval.low)
    )


def test_inputs_are_checked():
    s = pd.Series([1.0, 2.0, 3.0, 4.0], index=list("abcd"))
    with pytest.raises(LabelMismatchError):
        predictive_comparison(s, s, s.rename(index={"d": "e"}))
    with pytest.raises(ValueError, match="at least 4"):
        predictive_comparison([1.0, 2.0, 3.0], [1.0, 2.0, 4.0], [0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="confidence_level"):
        predictive_comparison(s, s, s, confidence_level=1.5)
    with pytest.raises(ValueError, match="n_resamples"):
        predictive_comparison(s, s, s, n_resamples=0)
    with pytest.raises(ValueError, match="all as Series"):  # two orders, one by position
        predictive_comparison(s, s.iloc[::-1], s.to_numpy())


@pytest.mark.parametrize(
    ("departure", "contamination", "flips_at_least"),
    [("heavy", (0.1, 2.0), 0.0), ("contaminated", (0.05, 8.0), 0.12)],
)
def test_small_simulation_holds_the_level(departure, contamination, flips_at_least):
    """300 data sets at 34 models: t3 errors (the percentile bootstrap gave 0.078), and one
    or two models far off one predictor, where the flips of the pseudo-values (the test
    before the swaps) reject about a quarter of the time."""
    tally = sim.predictive_cell(
        np.random.default_rng(14), 300, 34, departure, contamination=contamination
    )
    assert 0.01 <= tally.rate <= 0.09  # 0.05 within three Monte-Carlo standard errors (0.013)
    assert tally.flips.rate >= flips_at_least
    # the bench's last column: the jackknife's variance over the variance of the statistic
    # across the data sets; about 1 (300 data sets measure it to about 20%)
    assert len(tally.statistics) == len(tally.ses) == tally.reps == tally.flips.reps == 300
    assert 0.7 <= tally.variance_ratio() <= 1.5


@pytest.mark.parametrize("departure", sim.ONE_SIDED_DEPARTURES)
def test_the_one_sided_nulls_give_a_and_b_the_same_expected_absolute_error(departure):
    """The bench's by-design nulls: ``a`` departs alone, ``b``'s normal errors matched to
    its expected absolute error (200,000 draws: to about 0.3%)."""
    rng = np.random.default_rng(15)
    truth = rng.normal(size=200_000)
    ea, eb = sim.one_sided_errors(rng, departure, truth, (0.05, 4.0))
    assert np.abs(eb).mean() == pytest.approx(np.abs(ea).mean(), rel=0.01)
    if departure == "one-sided unequal":  # a's spread grows with the truth
        assert stats.spearmanr(np.abs(ea), np.abs(truth)).statistic > 0.3
    else:  # rare large errors, or heavy tails
        assert stats.kurtosis(ea) > 1.0
    assert abs(stats.skew(eb)) < 0.05 and abs(stats.kurtosis(eb)) < 0.1  # b stays normal


@pytest.mark.parametrize("scale_b", [1.0, 1.5, 2.0])
def test_the_coverage_cells_truth_is_the_closed_form_at_normal_errors(scale_b):
    """The bench's true difference (a million models, least-squares lines) against the
    normal case's closed form: each line's residual SD, sqrt(var(target) - cov**2 / var(x)),
    times E|N(0, 1)| = sqrt(2 / pi); 0 at the null."""
    power = load_file(REPO / "benchmarks" / "_goodhart_power.py", "_goodhart_power")
    got = power.predictive_truth(np.random.default_rng(16), "normal", scale_b)
    residual = [np.sqrt(1.09 - 1 / (1 + 0.09 * s**2)) for s in (scale_b, 1.0)]
    assert got == pytest.approx(np.sqrt(2 / np.pi) * (residual[0] - residual[1]), abs=2e-3)


def test_small_simulation_covers_a_true_difference():
    """b's errors 1.5 times a's at 34 models: the interval covers the difference about 95%
    of the time (150 data sets: at least 0.85, four standard errors below), the test
    rejects more often than at the null, and the statistic's mean is near the truth."""
    power = load_file(REPO / "benchmarks" / "_goodhart_power.py", "_goodhart_power")
    truth, covered, rejected, bias = power.predictive_coverage(
        np.random.default_rng(17), 150, 34, "normal", scale_b=1.5
    )
    assert 0.07 < truth < 0.08 and covered.reps == rejected.reps == 150
    assert covered.rate >= 0.85 and rejected.rate > 0.15
    assert abs(bias) < 0.02  # the statistic's SD over the data sets is about 0.04
    with pytest.raises(ValueError, match="no population"):
        power.predictive_coverage(np.random.default_rng(0), 1, 34, "outlier", scale_b=1.5)
    with pytest.raises(ValueError, match="`scale_b` must be 1"):
        sim.predictive_data(np.random.default_rng(0), 34, "one-sided heavy", scale_b=1.5)
