"""The Goodhart audit's tests against independent implementations, and a small simulation.

References: scipy (Welch's t-test, permutation tests), statsmodels (OLS, PRESS
residuals, Holm), and plain loops written here. ``benchmarks/bench_goodhart_validation.py``
runs the simulations of :mod:`benchmarks._goodhart_sim` with many replicates
(``benchmarks/results/goodhart_validation.md``); here they run with few.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.core.errors import LabelMismatchError
from analysis.stats import (
    advantage_predictors,
    predictive_comparison,
    public_advantage,
    trained_task_effect,
)
from analysis.stats._resampling import sign_patterns
from analysis.stats.advantage import MIN_TASKS_PER_SIDE
from tests.conftest import REPO, load_file

sim = load_file(REPO / "benchmarks" / "_goodhart_sim.py", "_goodhart_sim")


def _board(rng, n1=16, n2=13, k=12, shift=None):
    x = (
        rng.normal(0.5, 0.1, (n1 + n2, 1))
        + rng.normal(0, 0.05, k)
        + rng.normal(0, 0.03, (n1 + n2, k))
    )
    if shift is not None:
        x[:n1] += shift
    tasks = [f"t{i:02d}" for i in range(n1 + n2)]
    scores = pd.DataFrame(x, index=tasks, columns=[f"m{j:02d}" for j in range(k)])
    return scores, tasks[:n1], tasks[n1:]


def _relative(scores: pd.DataFrame) -> pd.DataFrame:
    """Each score minus the mean of the other models on its task, written out."""
    k = scores.shape[1]
    total = scores.sum(axis=1)
    return scores.apply(lambda col: col - (total - col) / (k - 1))


# --------------------------------------------------------------------------- public_advantage


def test_per_model_statistics_are_welchs_on_the_relative_scores():
    scores, pub, priv = _board(np.random.default_rng(0))
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv, n_resamples=999, rng=0)
    table = res.to_frame().set_index("model")
    y = _relative(scores)
    for model in scores.columns:
        ref = stats.ttest_ind(y.loc[pub, model], y.loc[priv, model], equal_var=False)
        assert table.loc[model, "advantage"] == pytest.approx(
            y.loc[pub, model].mean() - y.loc[priv, model].mean(), abs=1e-12
        )
        assert table.loc[model, "pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
        assert table.loc[model, "df"] == pytest.approx(ref.df, rel=1e-9)


def test_simultaneous_critical_value_matches_a_loop_over_every_sign_pattern():
    """Exact enumeration (12 tasks): the max |Welch t| over the models, scipy per pattern."""
    scores, pub, priv = _board(np.random.default_rng(1), n1=6, n2=6, k=5)
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv, n_resamples=4096)
    assert res.exact and res.n_patterns == 2**11
    y = _relative(scores)
    signs = next(sign_patterns(12, 4096, np.random.default_rng(0)).blocks(2**11))
    table = res.to_frame().set_index("model")
    observed = np.abs(table["advantage"] / table["se"])
    k = int(np.ceil(0.05 * len(signs)))  # the 95% quantile the single-step rule takes
    criticals, adjusted = [], []
    for centre_pub, centre_priv in (
        (y.loc[pub].mean(), y.loc[priv].mean()),  # within each side
        (y.mean(), y.mean()),  # pooled: no advantage imposed
    ):
        a = (y.loc[pub] - centre_pub).to_numpy()[None] * signs[:, :6, None]
        b = (y.loc[priv] - centre_priv).to_numpy()[None] * signs[:, 6:, None]
        maxima = np.sort(np.abs(stats.ttest_ind(a, b, axis=1, equal_var=False).statistic).max(1))
        criticals.append(maxima[len(maxima) - k])
        adjusted.append([(maxima >= t * (1 - 1e-9) - 1e-9).mean() for t in observed])
    assert res.critical_value == pytest.approx(max(criticals), rel=1e-6)
    np.testing.assert_allclose(table["pvalue_adjusted"], np.max(adjusted, axis=0), atol=1e-12)


def test_beyond_chance_is_the_interval_excluding_zero_and_finds_a_gain():
    shift = np.zeros(40)
    shift[0], shift[1] = 0.1, -0.1
    scores, pub, priv = _board(np.random.default_rng(2), k=40, shift=shift)
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv, n_resamples=2000, rng=0)
    table = res.to_frame().set_index("model")
    assert table.loc["m00", "beyond_chance"] == "public"
    assert table.loc["m01", "beyond_chance"] == "private"
    flagged = table["beyond_chance"] != ""
    assert (flagged == (table["pvalue_adjusted"] < res.alpha)).all()
    assert (flagged == ((table["ci_low"] > 0) | (table["ci_high"] < 0))).all()
    # wider than each model's own 95% Welch interval; near Bonferroni's for 40 models
    # that move independently (the max-T gains where models move together)
    per_model = stats.t.ppf(0.975, table["df"])
    bonferroni = stats.t.ppf(1 - 0.025 / 40, table["df"])
    assert (res.critical_value > per_model).all()
    assert abs(res.critical_value / np.median(bonferroni) - 1) < 0.1


def test_a_side_too_small_gets_no_test_and_says_what_it_cannot_say():
    scores, pub, priv = _board(np.random.default_rng(3), n1=7, n2=2, k=10)
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv)
    assert not res.testable and MIN_TASKS_PER_SIDE > 2
    assert res.to_frame()[["ci_low", "pvalue_adjusted"]].isna().all().all()
    assert "7 public / 2 private" in res.caveat and "cannot say" in res.caveat


def test_inputs_are_checked():
    scores, pub, priv = _board(np.random.default_rng(4))
    with pytest.raises(LabelMismatchError):
        public_advantage(scores.iloc[1:], public_tasks=pub, private_tasks=priv)
    holed = scores.copy()
    holed.iloc[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing scores"):
        public_advantage(holed, public_tasks=pub, private_tasks=priv)


# --------------------------------------------------------------------------- predictors


def test_predictor_parts_against_scipy_and_statsmodels():
    import statsmodels.api as sm
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(5)
    scores, pub, priv = _board(rng, k=30)
    models = list(scores.columns)
    found = pd.DataFrame(
        {"size": rng.normal(size=30), "org": rng.random(30) < 0.3, "date": rng.normal(size=30)},
        index=models,
    )
    found.loc["m03", "date"] = np.nan  # unknown: left out of that predictor only
    res = advantage_predictors(scores, found, public_tasks=pub, private_tasks=priv)
    table = res.to_frame().set_index("predictor")
    y = _relative(scores)
    adv = y.loc[pub].mean() - y.loc[priv].mean()
    z = pd.Series(stats.rankdata(found["size"]), index=models)
    z = (z - z.mean()) / z.std(ddof=0)
    fit = sm.OLS(adv.to_numpy(), sm.add_constant(z.to_numpy())).fit()
    assert table.loc["size", "effect"] == pytest.approx(fit.params[1], rel=1e-9)
    c = z / (z**2).sum()
    v = y @ c
    welch = stats.ttest_ind(v[pub], v[priv], equal_var=False)
    assert table.loc["size", "effect"] / table.loc["size", "se_tasks"] == pytest.approx(
        welch.statistic, rel=1e-9
    )
    org = found["org"]
    assert table.loc["org", "effect"] == pytest.approx(adv[org].mean() - adv[~org].mean(), rel=1e-9)
    assert table.loc["date", "n_models"] == 29 and table.loc["size", "n_models"] == 30
    holm = multipletests(table["pvalue"], method="holm")[1]
    np.testing.assert_allclose(table["pvalue_adjusted"], holm, rtol=1e-12)
    assert (table["se"] >= table["se_tasks"]).all()
    assert (table["detectable"] > 2 * table["se"]).all()


def test_a_predictor_needs_its_groups_and_the_models_of_scores():
    scores, pub, priv = _board(np.random.default_rng(6), k=10)
    lone = pd.DataFrame({"org": [True] + [False] * 9}, index=scores.columns)
    with pytest.raises(ValueError, match="each group needs 2 models"):
        advantage_predictors(scores, lone, public_tasks=pub, private_tasks=priv)
    with pytest.raises(LabelMismatchError):
        advantage_predictors(scores, lone.iloc[1:], public_tasks=pub, private_tasks=priv)


# --------------------------------------------------------------------------- within models


def test_trained_task_effect_against_every_relabelling():
    """6 models with known training data: all 720 reassignments, enumerated here."""
    import itertools

    rng = np.random.default_rng(7)
    scores, pub, _ = _board(rng, k=8)
    scores = scores.loc[pub]
    trained = pd.DataFrame(False, index=scores.index, columns=scores.columns)
    trained.iloc[0, :2] = True
    trained.iloc[[2, 3], 2] = True
    trained[["m06", "m07"]] = pd.NA  # unknown training data: never relabelled
    trained = trained.astype("boolean")
    scores.iloc[0, :2] += 0.05
    res = trained_task_effect(scores, trained, n_resamples=40_000, rng=0)
    y = _relative(scores)
    known = list(scores.columns[:6])
    patterns = [trained[m].astype(bool).to_numpy() for m in known]
    flags = trained.fillna(False).to_numpy(dtype=float)

    def statistic(values, assigned):
        columns = values[known].to_numpy()
        diffs = [
            columns[on, j].mean() - columns[~on, j].mean()
            for j, on in enumerate(assigned)
            if 0 < on.sum() < len(on)
        ]
        return np.mean(diffs)

    def exact_pvalue(delta):
        """Every reassignment, the trained cells' relative scores shifted by ``delta``."""
        shifted = y - delta * flags
        seen = statistic(shifted, patterns)
        null = np.array([statistic(shifted, p) for p in itertools.permutations(patterns)])
        return (np.abs(null) >= abs(seen) - 1e-12).mean()

    assert res.n_models == 3
    assert res.statistic == pytest.approx(statistic(y, patterns), abs=1e-12)
    assert res.pvalue == pytest.approx(exact_pvalue(0.0), abs=0.01)
    # the interval's ends are where the (exact) test starts to reject
    low, high = res.confidence_interval
    assert low < res.statistic < high
    eps = 1e-3 * (high - low)
    for inside, outside in ((low + eps, low - eps), (high - eps, high + eps)):
        assert exact_pvalue(inside) > 0.05 - 0.01 and exact_pvalue(outside) <= 0.05 + 0.01


# --------------------------------------------------------------------------- predictive


def test_predictive_comparison_uses_press_residuals_and_scipys_bootstrap():
    import statsmodels.api as sm

    rng = np.random.default_rng(8)
    truth = rng.normal(size=40)
    models = [f"m{j}" for j in range(40)]
    target = pd.Series(truth + rng.normal(0, 0.3, 40), index=models)
    a = pd.Series(truth + rng.normal(0, 0.3, 40), index=models)
    b = pd.Series(2 * truth + rng.normal(0, 1.0, 40), index=models).sample(frac=1, random_state=0)
    res = predictive_comparison(target, a, b, n_resamples=20_000, rng=0)
    table = res.to_frame().set_index("model").loc[models]
    for column, x in (("error_a", a), ("error_b", b.loc[models])):
        press = sm.OLS(target.to_numpy(), sm.add_constant(x.to_numpy())).fit()
        np.testing.assert_allclose(table[column], press.get_influence().resid_press, rtol=1e-9)
    from analysis.stats.predictive import _mae_gap

    order = sorted(models)  # the function pairs Series by label, in sorted order
    ref = stats.bootstrap(
        tuple(v.loc[order].to_numpy() for v in (target, a, b)),
        lambda t, x, z, axis=-1: _mae_gap(t, x, z),
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=20_000,
        rng=np.random.default_rng(0),
    )
    assert res.n == 40 and res.statistic == pytest.approx(table["difference"].mean())
    assert res.confidence_interval.low == pytest.approx(ref.confidence_interval.low, rel=1e-9)
    assert res.confidence_interval.high == pytest.approx(ref.confidence_interval.high, rel=1e-9)


def test_predictive_comparison_refuses_different_models():
    s = pd.Series([1.0, 2.0, 3.0, 4.0], index=list("abcd"))
    with pytest.raises(LabelMismatchError):
        predictive_comparison(s, s, s.rename(index={"d": "e"}))


# --------------------------------------------------------------------------- simulation


def test_simulation_kernels_are_the_public_functions():
    rng = np.random.default_rng(9)
    x_pub, x_priv, _ = sim.leaderboard(rng, 16, 13, 20, "unequal")
    scores, pub, priv = _board(np.random.default_rng(0), k=20)
    scores.loc[:, :] = np.vstack([x_pub, x_priv])
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv, n_resamples=400, rng=5)
    from analysis.stats.advantage import _relative as relative
    from analysis.stats.advantage import _welch_parts, simultaneous

    y_pub, y_priv = relative(x_pub), relative(x_priv)
    w = _welch_parts(y_pub, y_priv, 0.95)
    patterns = sign_patterns(29, 400, np.random.default_rng(5))
    _, c = simultaneous(y_pub, y_priv, np.abs(w["t"]), patterns, 0.05)
    assert res.critical_value == pytest.approx(c, rel=1e-12)


def test_small_simulation_holds_the_family_wise_level():
    """150 global-null leaderboards (70 models, 16/13 tasks, unequal spreads)."""
    errors, _ = sim.advantage_cell(np.random.default_rng(10), 150, 16, 13, 70, "unequal")
    assert errors.rate <= 0.11  # 0.05 plus three Monte-Carlo standard errors
    _, covered = sim.advantage_cell(np.random.default_rng(11), 100, 14, 6, 70, "heavy", spread=0.02)
    assert covered.rate >= 0.88


def test_small_simulation_of_the_predictor_test():
    got, detectable = sim.predictor_cell(np.random.default_rng(12), 150, 16, 13, 70, "normal")
    assert got["rank"].rate <= 0.11 and got["group"].rate <= 0.11
    assert 0 < detectable["rank"] < 0.05
