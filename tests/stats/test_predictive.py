"""predictive_comparison against statsmodels' PRESS residuals, a jackknife written out and
scipy's one-sample t over each sign pattern.

``benchmarks/bench_goodhart_validation.py`` measures its type-I error by simulation
(``benchmarks/results/goodhart_validation.md``); here a small simulation runs.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.core.errors import LabelMismatchError
from analysis.stats import predictive_comparison
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
    res = predictive_comparison(target, a, b.sample(frac=1, random_state=0))
    table = res.to_frame().set_index("model").loc[target.index]
    for column, x in (("error_a", a), ("error_b", b)):
        np.testing.assert_allclose(
            table[column], _press(target.to_numpy(), x.to_numpy()), rtol=1e-9
        )
    assert res.n == 40 and res.mae_b - res.mae_a == pytest.approx(table["difference"].mean())


def _flip_pvalue(values: np.ndarray, signs: np.ndarray) -> float:
    """The studentized sign-flip p-value, each pattern's t from scipy: (b + 1) / (B + 1)."""
    observed = stats.ttest_1samp(values, 0.0).statistic
    flipped = stats.ttest_1samp(signs * values, 0.0, axis=1).statistic
    return (1 + int((np.abs(flipped) >= abs(observed) * (1 - 1e-9)).sum())) / (len(signs) + 1)


def _pseudo_values(target: pd.Series, a: pd.Series, b: pd.Series) -> np.ndarray:
    """The jackknife's pseudo-values from a loop: statsmodels refitted per left-out model."""
    y, xa, xb = (v.to_numpy() for v in (target, a, b))
    n = len(y)
    left_out = []
    for k in range(n):
        rest = np.arange(n) != k
        gap = np.abs(_press(y[rest], xb[rest])) - np.abs(_press(y[rest], xa[rest]))
        left_out.append(gap.mean())
    plain = (np.abs(_press(y, xb)) - np.abs(_press(y, xa))).mean()
    return n * plain - (n - 1) * np.array(left_out)


def test_pseudo_values_from_a_refit_loop_and_the_flips_from_scipys_t():
    """The p-value from scipy's t over the same random sign patterns; the interval's ends
    where that test starts rejecting (p < 0.1 outside, not inside)."""
    target, a, b = _series(4)
    res = predictive_comparison(target, a, b, confidence_level=0.9, n_resamples=999, rng=7)
    pseudo, n = _pseudo_values(target, a, b), len(target)
    assert res.statistic == pytest.approx(pseudo.mean(), rel=1e-9)
    assert res.se == pytest.approx(stats.sem(pseudo), rel=1e-9)
    bits = np.random.default_rng(7).integers(0, 256, size=(999, (n + 7) // 8), dtype=np.uint8)
    signs = 1.0 - 2.0 * np.unpackbits(bits, axis=1, count=n)
    assert res.pvalue == pytest.approx(_flip_pvalue(pseudo, signs), abs=1e-12)
    for end, outward in ((res.confidence_interval.low, -1), (res.confidence_interval.high, 1)):
        step = 1e-6 * res.se
        assert _flip_pvalue(pseudo - (end - outward * step), signs) >= 0.1
        assert _flip_pvalue(pseudo - (end + outward * step), signs) < 0.1


@pytest.mark.parametrize("n", [5, 9])
def test_up_to_20_models_every_sign_pattern_is_enumerated(n):
    """Exact: the share of all 2**n patterns whose |t| (scipy) is at least the observed."""
    target, a, b = _series(11, n)
    res = predictive_comparison(target, a, b, rng=0)
    pseudo = _pseudo_values(target, a, b)
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=n)))
    observed = abs(stats.ttest_1samp(pseudo, 0.0).statistic)
    flipped = np.abs(stats.ttest_1samp(signs * pseudo, 0.0, axis=1).statistic)
    assert res.pvalue == pytest.approx((flipped >= observed * (1 - 1e-9)).mean(), abs=1e-12)
    assert res.pvalue >= 2 / 2**n  # the two patterns of one sign: 5 models never reach 0.05


def test_finds_the_better_predictor_and_not_a_relabelled_one():
    rng = np.random.default_rng(3)
    truth = rng.normal(size=60)
    target = truth + rng.normal(0, 0.3, 60)
    good, poor = truth + rng.normal(0, 0.2, 60), 3 * truth + rng.normal(0, 2.0, 60)
    res = predictive_comparison(target, good, poor, rng=1)
    assert res.statistic > 0 and res.pvalue < 0.01 and res.confidence_interval.low > 0
    swapped = predictive_comparison(target, poor, good, rng=1)
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


def test_small_simulation_holds_the_level_with_heavy_tails():
    """300 data sets at 34 models, t3 errors: the percentile bootstrap gave 0.078."""
    tally = sim.predictive_cell(np.random.default_rng(14), 300, 34, "heavy")
    assert 0.01 <= tally.rate <= 0.09  # 0.05 within three Monte-Carlo standard errors (0.013)
    # the bench's last column: the jackknife's variance over the variance of the pseudo-values'
    # mean across the data sets; about 1 (300 data sets measure it to about 20%)
    assert len(tally.statistics) == len(tally.ses) == tally.reps == tally.before.reps == 300
    assert 0.7 <= tally.variance_ratio() <= 1.5
