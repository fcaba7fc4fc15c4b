"""The Goodhart audit's tests against independent implementations, and a small simulation.

References: scipy (Welch's t-test, permutation tests), statsmodels (OLS, PRESS
residuals, Holm), and plain loops written here. ``benchmarks/bench_goodhart_validation.py``
runs the simulations of :mod:`benchmarks._goodhart_sim` with many replicates
(``benchmarks/results/goodhart_validation.md``); here they run with few.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.core.errors import LabelMismatchError
from analysis.results.clusters import cluster_details, task_clusters
from analysis.results.specs import resolve_spec
from analysis.stats import (
    advantage_predictors,
    public_advantage,
    trained_task_effect,
)
from analysis.stats._checks import unit_clusters
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
    criticals = []
    for centre_pub, centre_priv in (
        (y.loc[pub].mean(), y.loc[priv].mean()),  # within each side
        (y.mean(), y.mean()),  # pooled: no advantage imposed
    ):
        a = (y.loc[pub] - centre_pub).to_numpy()[None] * signs[:, :6, None]
        b = (y.loc[priv] - centre_priv).to_numpy()[None] * signs[:, 6:, None]
        t_null = np.abs(stats.ttest_ind(a, b, axis=1, equal_var=False).statistic)
        maxima = np.sort(t_null.max(1))
        criticals.append(maxima[len(maxima) - k])
    pooled_null = t_null  # the second pass: the pooled residuals
    assert res.critical_value == pytest.approx(max(criticals), rel=1e-6)
    # the step-down over the pooled null, written out: the i-th largest
    # |t| against the maximum over itself and the smaller ones, then monotone in that order
    ranked, adjusted, running = list(observed.sort_values(ascending=False).index), {}, 0.0
    for i, model in enumerate(ranked):
        rest = [y.columns.get_loc(m) for m in ranked[i:]]
        tail = pooled_null[:, rest].max(1)
        running = max(running, (tail >= observed[model] * (1 - 1e-9) - 1e-9).mean())
        adjusted[model] = running
    np.testing.assert_allclose(
        table["pvalue_adjusted"], pd.Series(adjusted)[table.index], atol=1e-12
    )


def test_clusters_flip_together_against_a_loop_over_every_cluster_pattern():
    """12/12 tasks in 12 clusters (pairs; one across the sides, its ends another): 7 a
    side, 2**11 patterns, scipy per pattern."""
    scores, pub, priv = _board(np.random.default_rng(6), n1=12, n2=12, k=6)
    order = pub + priv  # the function sorts each side; these names already are
    label = {t: f"c{(i + 1) // 2}" for i, t in enumerate(order)}  # t00 alone ... t23 alone
    label[order[0]], label[order[-1]] = "ends", "ends"  # 12 clusters, two span the sides
    res = public_advantage(
        scores, public_tasks=pub, private_tasks=priv, clusters=label, n_resamples=4096
    )
    assert res.exact and res.n_patterns == 2**11 and "12 task clusters" in res.method
    codes = pd.factorize(pd.Series([label[t] for t in order]))[0]
    signs = next(sign_patterns(12, 4096, np.random.default_rng(0)).blocks(2**11))[:, codes]
    y = _relative(scores)
    k = int(np.ceil(0.05 * len(signs)))
    criticals = []
    for centre_pub, centre_priv in ((y.loc[pub].mean(), y.loc[priv].mean()), (y.mean(), y.mean())):
        a = (y.loc[pub] - centre_pub).to_numpy()[None] * signs[:, :12, None]
        b = (y.loc[priv] - centre_priv).to_numpy()[None] * signs[:, 12:, None]
        maxima = np.sort(np.abs(stats.ttest_ind(a, b, axis=1, equal_var=False).statistic).max(1))
        criticals.append(maxima[len(maxima) - k])
    assert res.critical_value == pytest.approx(max(criticals), rel=1e-6)
    singletons = public_advantage(
        scores,
        public_tasks=pub,
        private_tasks=priv,
        clusters={t: t for t in order},
        n_resamples=999,
        rng=3,
    )
    plain = public_advantage(scores, public_tasks=pub, private_tasks=priv, n_resamples=999, rng=3)
    assert singletons.critical_value == plain.critical_value
    pd.testing.assert_frame_equal(singletons.to_frame(), plain.to_frame())
    del label[order[3]]
    with pytest.raises(LabelMismatchError, match="no cluster"):
        public_advantage(scores, public_tasks=pub, private_tasks=priv, clusters=label)


def test_beyond_chance_is_the_step_down_and_holds_every_interval_excluding_zero():
    shift = np.zeros(40)
    shift[0], shift[1] = 0.1, -0.1
    scores, pub, priv = _board(np.random.default_rng(2), k=40, shift=shift)
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv, n_resamples=2000, rng=0)
    table = res.to_frame().set_index("model")
    assert table.loc["m00", "beyond_chance"] == "public"
    assert table.loc["m01", "beyond_chance"] == "private"
    flagged = table["beyond_chance"] != ""
    assert (flagged == (table["pvalue_adjusted"] < res.alpha)).all()
    assert flagged[(table["ci_low"] > 0) | (table["ci_high"] < 0)].all()
    # wider than each model's own 95% Welch interval; near Bonferroni's for 40 models
    # that move independently (the max-T gains where models move together)
    per_model = stats.t.ppf(0.975, table["df"])
    bonferroni = stats.t.ppf(1 - 0.025 / 40, table["df"])
    assert (res.critical_value > per_model).all()
    assert abs(res.critical_value / np.median(bonferroni) - 1) < 0.1


def test_detectable_is_the_critical_value_shifted_by_the_power_quantile():
    """``detectable_effect``: (c + t quantile at the power on df) x se, from scipy; the
    normal's at infinite df; where it is short of the power, as its docstring says."""
    from scipy.stats import nct, norm

    from analysis.stats.advantage import detectable_effect

    for df, power in ((5, 0.8), (24, 0.8), (60, 0.9), (12, 0.5)):
        got = detectable_effect(3.5, 2.0, df, power=power)
        assert got == pytest.approx(2.0 * (3.5 + stats.t.ppf(power, df)), rel=1e-12)
    assert detectable_effect(3.5, 1.0, np.inf, power=0.8) == pytest.approx(3.5 + norm.ppf(0.8))
    short = {df: nct.sf(3.5, df, detectable_effect(3.5, 1.0, df, power=0.8)) for df in (6, 24)}
    assert round(short[24], 2) == 0.79 and round(short[6], 2) == 0.77


def test_public_advantage_reports_each_models_detectable_at_its_critical_value():
    """The ``detectable`` column is :func:`detectable_effect` at the intervals' critical
    value on each model's own se and df; more power, a larger effect; a side too small to
    test, none; ``power`` checked."""
    from analysis.stats.advantage import detectable_effect

    scores, pub, priv = _board(np.random.default_rng(2), k=12)
    got = {
        power: public_advantage(
            scores, public_tasks=pub, private_tasks=priv, power=power, n_resamples=499, rng=0
        )
        for power in (0.5, 0.8)
    }
    res, table = got[0.8], got[0.8].to_frame()
    expected = [
        detectable_effect(res.critical_value, se, df, power=0.8)
        for se, df in zip(table["se"], table["df"], strict=True)
    ]
    np.testing.assert_allclose(table["detectable"], expected, rtol=1e-12)
    assert (table["detectable"] > got[0.5].to_frame()["detectable"]).all()
    assert (table["detectable"] > res.critical_value * table["se"]).all()
    small, pub2, priv2 = _board(np.random.default_rng(3), n1=7, n2=2, k=10)
    untested = public_advantage(small, public_tasks=pub2, private_tasks=priv2).to_frame()
    assert untested["detectable"].isna().all()
    with pytest.raises(ValueError, match="power"):
        public_advantage(scores, public_tasks=pub, private_tasks=priv, power=1.0)


def _step_down_loop(null, observed, total):
    """Westfall-Young's step-down, written out: hypotheses by decreasing observed |t|, each
    against the per-pattern maximum over itself and those after it; p = (b + 1) / (B + 1)."""
    observed = np.where(np.isnan(observed), 0.0, observed)
    out, running = np.empty(len(observed)), 0.0
    ranked = sorted(range(len(observed)), key=lambda i: -observed[i])
    for step, i in enumerate(ranked):
        tail = null[:, ranked[step:]].max(axis=1)
        beyond = int((tail >= observed[i] * (1 - 1e-9) - 1e-9).sum())
        running = max(running, (beyond + 1) / (total + 1))
        out[i] = running
    return out


def test_step_down_matches_the_loop_with_ties_a_nan_and_a_clear_gain():
    """Random patterns: ties share a p-value, a NaN |t| (no spread) is never beyond chance,
    and a model the single step misses can be found once a larger one is stepped past."""
    from analysis.stats._maxt import single_step, step_down

    rng = np.random.default_rng(4)
    patterns = sign_patterns(20, 999, rng)
    null = np.abs(rng.standard_t(3, size=(999, 8)))
    null[:, 0] *= 4  # a model whose own null is far wider: it dominates the first step
    observed = np.array([60.0, 2.9, 2.9, 1.0, np.nan, 0.2, 9.0, 0.0])
    got = step_down(null, observed, patterns)
    np.testing.assert_allclose(got, _step_down_loop(null, observed, 999), atol=1e-12)
    assert got[1] == got[2] and got[4] == 1.0
    single, critical = single_step(null.max(axis=1), observed, patterns, 0.05)
    assert np.all(got <= single + 1e-12) and single[4] == 1.0  # a NaN counts as 0 in both
    assert got[6] < 0.05 and observed[6] < critical  # stepped past model 0, found


def test_a_side_too_small_gets_no_test_and_says_what_it_cannot_say():
    scores, pub, priv = _board(np.random.default_rng(3), n1=7, n2=2, k=10)
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv)
    assert not res.testable and MIN_TASKS_PER_SIDE > 2
    assert res.to_frame()[["ci_low", "pvalue_adjusted"]].isna().all().all()
    assert "7 public / 2 private" in res.caveat and "cannot say" in res.caveat
    # clusters are a side's independent units: 14/6 tasks in pairs are 7/3 clusters
    scores, pub, priv = _board(np.random.default_rng(3), n1=14, n2=6, k=10)
    pairs = {t: f"pair{int(t[1:]) // 2}" for t in pub + priv}
    assert public_advantage(scores, public_tasks=pub, private_tasks=priv).testable
    res = public_advantage(scores, public_tasks=pub, private_tasks=priv, clusters=pairs)
    assert not res.testable and "7 public / 3 private task clusters" in res.caveat


def test_inputs_are_checked():
    scores, pub, priv = _board(np.random.default_rng(4))
    with pytest.raises(LabelMismatchError):
        public_advantage(scores.iloc[1:], public_tasks=pub, private_tasks=priv)
    holed = scores.copy()
    holed.iloc[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing scores"):
        public_advantage(holed, public_tasks=pub, private_tasks=priv)


# --------------------------------------------------------------------------- predictors


def _task_noise(y: pd.DataFrame, pub: list[str], priv: list[str], cols: Any = None) -> pd.DataFrame:
    """The covariance of the models' advantages over the tasks (pandas, pairwise)."""
    cols = list(y.columns) if cols is None else cols
    return y.loc[pub, cols].cov() / len(pub) + y.loc[priv, cols].cov() / len(priv)


def _residual_maker(x: np.ndarray) -> np.ndarray:
    """I - X X^+: the least-squares residuals of a fit on the columns of ``x``."""
    return np.eye(len(x)) - x @ np.linalg.pinv(x)


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
    # the models' part: residual variance minus its task noise, Satterthwaite's df of both
    noise = _task_noise(y, pub, priv)
    for m in models:  # its diagonal: each model's Welch variance
        w = stats.ttest_ind(y.loc[pub, m], y.loc[priv, m], equal_var=False)
        assert noise[m][m] == pytest.approx((adv[m] / w.statistic) ** 2, rel=1e-9)
    e = np.trace(_residual_maker(fit.model.exog) @ noise)  # the noise in the residuals
    tau2 = max(0.0, (fit.ssr - e) / (30 - 2))
    v_task, v_model = table.loc["size", "se_tasks"] ** 2, tau2 * (c**2).sum()
    assert table.loc["size", "se_models"] ** 2 == pytest.approx(v_model, rel=1e-9)
    df_model = max(1.0, 28 * (tau2 / (tau2 + e / 28)) ** 2)  # floored at 1
    df = (v_task + v_model) ** 2 / (v_task**2 / welch.df + v_model**2 / df_model)
    assert table.loc["size", "df"] == pytest.approx(df, rel=1e-9)
    org = found["org"]
    assert table.loc["org", "effect"] == pytest.approx(adv[org].mean() - adv[~org].mean(), rel=1e-9)
    assert table.loc["date", "n_models"] == 29 and table.loc["size", "n_models"] == 30
    holm = multipletests(table["pvalue"], method="holm")[1]
    np.testing.assert_allclose(table["pvalue_adjusted"], holm, rtol=1e-12)
    assert (table["se"] >= table["se_tasks"]).all()
    assert (table["detectable"] > 2 * table["se"]).all()


def test_predictor_shuffles_against_a_loop_over_shuffled_predictors():
    """pvalue_permutation: the share of shuffled predictors whose t is as large, found
    here by calling the function once per shuffle (its t checked against statsmodels
    above); the decision and the interval take the larger of the two tests."""
    rng = np.random.default_rng(8)
    scores, pub, priv = _board(rng, k=30)
    models = list(scores.columns)
    z = rng.normal(size=30)
    y = _relative(scores)
    adv = y.loc[pub].mean() - y.loc[priv].mean()
    found = pd.DataFrame(
        {"size": z + 20 * adv.to_numpy(), "strong": z + 50 * adv.to_numpy(), "org": z > 0.8},
        index=models,
    )

    def t_of(frame: pd.DataFrame) -> pd.Series:
        table = advantage_predictors(
            scores, frame, public_tasks=pub, private_tasks=priv, n_resamples=60, rng=0
        ).to_frame()
        return (table["effect"] / table["se"]).set_axis(table["predictor"])

    res = advantage_predictors(
        scores, found, public_tasks=pub, private_tasks=priv, n_resamples=4000, rng=1
    )
    table = res.to_frame().set_index("predictor")
    observed, loops = t_of(found).abs(), 200
    shuffled = [
        t_of(found.apply(lambda col: rng.permutation(col.to_numpy())).set_axis(models))
        for _ in range(loops)
    ]
    looped = (pd.concat(shuffled, axis=1).abs().ge(observed, axis=0).sum(axis=1) + 1) / (loops + 1)
    for name in found:
        p = table.loc[name, "pvalue_permutation"]
        assert 0.002 < looped[name] < 0.95, looped[name]  # neither p trivially 0 or 1
        assert abs(p - looped[name]) < 4 * np.sqrt(looped[name] * (1 - looped[name]) / loops) + 0.01
        assert table.loc[name, "pvalue"] == max(p, table.loc[name, "pvalue_t"])
        excludes = table.loc[name, "ci_low"] > 0 or table.loc[name, "ci_high"] < 0
        assert excludes == (table.loc[name, "pvalue"] < 0.05)
    assert table.loc["strong", "pvalue"] < 0.05 < table.loc["size", "pvalue"]


@pytest.mark.parametrize("kind", ["rank", "groups"])
def test_the_t_is_students_where_theory_gives_it(kind: str):
    """With next to no task noise and no families the contrast's t is the least-squares
    slope's t on the ranks (a group: the pooled two-sample t), Student's with n - 2 df:
    the t with its df matches scipy's ``linregress`` / ``ttest_ind`` (the Satterthwaite df
    come out near n - 2), and so do ``pvalue_t`` (its parametric bootstrap) and the
    shuffles' p within their Monte-Carlo error (4,000), on three data sets."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        z = rng.normal(size=30)
        predictor = stats.rankdata(z) if kind == "rank" else z > 0.3
        gain = rng.normal(0, 0.02, 30) + 0.006 * (predictor - predictor.mean()) / predictor.std()
        x = rng.normal(0.5, 0.1, (29, 1)) + rng.normal(0, 1e-5, (29, 30))
        x[:16] += gain
        tasks, models = [f"t{i:02d}" for i in range(29)], [f"m{j:02d}" for j in range(30)]
        row = (
            advantage_predictors(
                pd.DataFrame(x, index=tasks, columns=models),
                pd.DataFrame({"p": predictor}, index=models),
                public_tasks=tasks[:16],
                private_tasks=tasks[16:],
                n_resamples=4000,
                rng=seed,
            )
            .to_frame()
            .iloc[0]
        )
        if kind == "rank":
            ref = stats.linregress(predictor, gain).pvalue
        else:
            ref = stats.ttest_ind(gain[predictor], gain[~predictor]).pvalue
        assert 0.001 < ref < 0.9, ref  # neither p trivially 0 or 1
        student = 2 * stats.t.sf(abs(row["effect"] / row["se"]), row["df"])
        assert student == pytest.approx(ref, rel=0.02), seed  # the t and its df
        bound = 4 * np.sqrt(ref * (1 - ref) / 4000) + 0.003
        assert abs(row["pvalue_t"] - ref) < bound, seed  # its parametric bootstrap
        assert abs(row["pvalue_permutation"] - ref) < bound, seed


def test_a_group_of_two_in_six_models_keeps_the_interval_with_the_decision():
    """15 distinct shuffles, many equal to the observed one (ties at the critical value):
    the interval excludes 0 exactly when ``pvalue < 0.05``, also where the t rejects and
    the shuffles do not; no shuffle reaches 0.05, so nothing is detectable (NaN)."""
    disagree = 0
    for seed in range(60):
        scores, pub, priv = _board(np.random.default_rng(seed), k=6)
        scores.loc[pub, ["m00", "m01"]] += 0.015
        group = pd.DataFrame({"g": [True, True] + [False] * 4}, index=scores.columns)
        res = advantage_predictors(
            scores, group, public_tasks=pub, private_tasks=priv, n_resamples=999, rng=seed
        )
        row = res.to_frame().iloc[0]
        assert (row["ci_low"] > 0 or row["ci_high"] < 0) == (row["pvalue"] < 0.05), seed
        assert np.isnan(row["detectable"])
        disagree += row["pvalue_t"] < 0.05 <= row["pvalue_permutation"]
        drawn = row["pvalue_t"] * 1000  # (b + 1) / 1000: 999 bootstrap draws, not 15
        assert abs(drawn - round(drawn)) < 1e-9 and row["pvalue_t"] not in {1 / 15, 2 / 15}
    assert disagree >= 3  # the decision rests on the shuffles there
    ranked = group.astype(float)  # ranks with two values: 15 distinct shuffles too
    tied = advantage_predictors(scores, ranked, public_tasks=pub, private_tasks=priv, rng=0)
    assert tied.to_frame()["kind"].iloc[0] == "rank" and np.isnan(tied.to_frame()["detectable"][0])


def test_few_arrangements_are_enumerated_against_a_loop_over_every_one():
    """Where a predictor has no more distinct arrangements over the models than
    ``n_resamples``, each is used once (exact, as the sign flips and
    ``scipy.stats.permutation_test`` do): ``pvalue_permutation`` is the share of them
    whose |t| is as large, found here by calling the function once per arrangement."""
    from itertools import combinations

    scores, pub, priv = _board(np.random.default_rng(21), k=8)
    scores.loc[pub, ["m00", "m01", "m02"]] += 0.02
    models = list(scores.columns)

    def t_of(members: tuple[int, ...]) -> float:
        group = pd.DataFrame({"g": np.isin(np.arange(8), members)}, index=models)
        table = advantage_predictors(
            scores, group, public_tasks=pub, private_tasks=priv, n_resamples=60, rng=0
        ).to_frame()
        return float(table["effect"].iloc[0] / table["se"].iloc[0])

    every = np.abs([t_of(members) for members in combinations(range(8), 3)])  # 56
    observed = abs(t_of((0, 1, 2)))
    group = pd.DataFrame({"g": [True] * 3 + [False] * 5}, index=models)
    for seed in (0, 1):  # no draws: the same for every rng
        res = advantage_predictors(
            scores, group, public_tasks=pub, private_tasks=priv, n_resamples=56, rng=seed
        )
        got = res.to_frame()["pvalue_permutation"].iloc[0]
        assert got == np.mean(every >= observed * (1 - 1e-9)), got
    assert 1 / 56 <= got < 0.2  # the gain puts the observed group near the top


def test_a_predictor_constant_within_families_is_tested_per_model_with_their_part():
    """With ``families``, a predictor constant within every family (one organisation's
    models, a tier of families) stays per model: its effect and task part from scipy's
    Welch, its models' part the dense moments (``_dense_model_part``: M, P, K and numpy's
    solve, the task noise from pandas' ``cov``), all of its contrast between families.
    One that varies within families keeps its own share; one of two families only is not
    tested and stays out of Holm's adjustment; a family missing or a group of one model is
    refused."""
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(23)
    scores, pub, priv = _board(rng, k=30)
    models = list(scores.columns)
    family = pd.Series([f"f{j % 8}" for j in range(30)], index=models)  # sizes 4 and 3
    shared = rng.normal(0, 0.02, 8)[np.arange(30) % 8]  # each family's public advantage
    scores.loc[pub] += shared + 0.01 * family.isin(["f0", "f1"]).to_numpy()
    found = pd.DataFrame(
        {
            "org": family.isin(["f0", "f1"]),
            "f0": family.eq("f0"),  # one family: its own effect is what it tests
            "tier": family.map(lambda f: float(f[1:]) ** 1.5),
            "size": rng.normal(size=30),
            "kind": family.map({"f0": True, "f1": False}).astype("boolean"),
        },
        index=models,
    )
    found.loc["m00", "tier"] = np.nan  # left out of that predictor
    kw = {"public_tasks": pub, "private_tasks": priv, "n_resamples": 200, "rng": 3}
    table = advantage_predictors(scores, found, families=family, **kw).to_frame()
    table = table.set_index("predictor")
    y = _relative(scores)

    def check(name: str, c: np.ndarray, keep: list[str], groups: bool = True) -> None:
        row, adv = table.loc[name], y.loc[pub, keep].mean() - y.loc[priv, keep].mean()
        welch = stats.ttest_ind((y[keep] @ c)[pub], (y[keep] @ c)[priv], equal_var=False)
        noise = _task_noise(y, pub, priv, keep).to_numpy()
        dense = _dense_model_part(adv.to_numpy(), c, noise, family[keep].to_numpy(), groups)
        assert row["effect"] == pytest.approx(adv @ c, rel=1e-9)
        assert row["se_tasks"] == pytest.approx(abs(adv @ c / welch.statistic), rel=1e-9)
        assert row["se_models"] ** 2 == pytest.approx(dense[0], rel=1e-9)
        assert not dense[4] and dense[2] > 0  # the families' part at work, not the pooled
        assert (row["n_models"], row["n_families"], row["family_share"]) == (len(keep), 8, 1.0)

    org = family.isin(["f0", "f1"]).to_numpy()
    check("org", np.where(org, 1 / 8, -1 / 22), models)
    assert (table.loc["org", "n_a"], table.loc["org", "n_b"]) == (8, 22)
    z = stats.rankdata(found["tier"].dropna())
    z = (z - z.mean()) / z.std()
    check("tier", z / (z**2).sum(), models[1:], groups=False)  # m00's tier unknown
    one = family.eq("f0").to_numpy()
    check("f0", np.where(one, 1 / 4, -1 / 26), models)
    whole = _dense_model_part(  # with f0's own shared effect counted as chance: larger
        (y.loc[pub].mean() - y.loc[priv].mean()).to_numpy(),
        np.where(one, 1 / 4, -1 / 26),
        _task_noise(y, pub, priv, models).to_numpy(),
        family.to_numpy(),
    )[0]
    assert table.loc["f0", "se_models"] ** 2 < whole
    assert table["one_family"].to_dict() == {
        "org": False,
        "f0": True,
        "tier": False,
        "size": False,
        "kind": False,
    }
    alone = advantage_predictors(scores, found[["size"]], **kw).to_frame().iloc[0]
    fixed = ["effect", "se_tasks"]  # no draws; se_models: the next tests
    assert table.loc["size", fixed].tolist() == alone[fixed].tolist()
    z = pd.Series(stats.rankdata(found["size"]), index=models)  # its contrast's share between
    z -= z.mean()
    between = (z.groupby(family).transform("mean") ** 2).sum() / (z**2).sum()
    assert table.loc["size", "family_share"] == pytest.approx(between, rel=1e-9)
    assert np.isnan(alone["family_share"]) and np.isnan(alone["n_families"])
    kind = table.loc["kind"]
    assert (kind["n_models"], kind["n_families"]) == (8, 2)
    assert kind[["effect", "pvalue"]].isna().all()
    tested = table["pvalue"].notna()
    holm = multipletests(table.loc[tested, "pvalue"], method="holm")[1]
    np.testing.assert_allclose(table.loc[tested, "pvalue_adjusted"], holm, rtol=1e-12)
    with pytest.raises(LabelMismatchError, match="no family for"):
        advantage_predictors(scores, found, families=family.iloc[1:], **kw)
    lone = pd.DataFrame({"one": [True] + [False] * 29}, index=models)  # refused, as per model
    with pytest.raises(ValueError, match="each group needs 2 models"):
        advantage_predictors(
            scores, lone, families={m: m for m in models[:1]} | dict(family[1:]), **kw
        )


@pytest.mark.parametrize("tau_f", [1.0, 0.5, 0.0])
def test_the_models_variance_parts_match_its_moments_on_the_datas_families(tau_f: float):
    """Not the formulas again: A = family part (variance tau_f) + model part (1) + noise
    (variance 1, as the function is told) on the data's organisation sizes; the parts' mean
    over 2,000 draws against the true variance tau_m sum c**2 + tau_f sum_f (sum c in f)**2
    of each contrast: the static shape (one family and 2 of another), one within families
    (summing to 0 in each) and 40 at random, within 5% (the moments are unbiased); so one
    family against the rest as a group, its own term left out of the truth. With nothing
    shared, the static shape's falls under 0 often and the pooled spread is used instead:
    20-70% over (conservative)."""
    from analysis.stats.advantage import _model_part

    rng = np.random.default_rng(8)
    sizes = [8, 10, 9, 8, 5, 3, 3, 3, *[2] * 6, *[1] * 9]
    fam = np.repeat(np.arange(len(sizes)), sizes)
    near = np.where((fam == 0) | np.isin(np.arange(70), [8, 9]), 1 / 10, -1 / 60)
    within = np.zeros(70)
    for f in range(4):  # half of each large family against its other half
        half = np.flatnonzero(fam == f)[: sizes[f] // 2 * 2]
        within[half] = np.resize([1.0, -1.0], len(half))
    c = np.column_stack(
        [near, within / np.abs(within).sum(), *rng.permuted(np.tile(near, (40, 1)), axis=1)]
    )
    sums = np.array([[c[fam == f, k].sum() for f in range(len(sizes))] for k in range(c.shape[1])])
    truth = (c**2).sum(axis=0) + tau_f * (sums**2).sum(axis=1)
    one = np.where(fam == 0, 1 / 8, -1 / 62)[:, None]  # one family: its own effect tested
    truth_one = (one**2).sum() + tau_f * sum(one[fam == f].sum() ** 2 for f in range(1, 23))
    total, total_one = np.zeros(c.shape[1]), 0.0
    for _ in range(2000):
        a = rng.normal(0, np.sqrt(tau_f), len(sizes))[fam] + rng.normal(0, np.sqrt(2.0), 70)
        total += _model_part(a, c, np.eye(70), fam)[0]
        total_one += _model_part(a, one, np.eye(70), fam, True)[0][0]
    ratio = total / 2000 / truth
    assert np.all(np.abs(ratio[1:] - 1) < 0.05), ratio
    assert abs(ratio[0] - 1) < 0.05 if tau_f else 1.2 < ratio[0] < 1.7, ratio[0]
    assert abs(total_one / 2000 / truth_one - 1) < 0.05, total_one / 2000 / truth_one


def test_detectable_and_the_shuffles_floor_count_the_tested_predictors_only():
    """``detectable`` is at ``alpha / m`` with ``m`` the predictors Holm adjusts over: one
    of two families only (not tested) changes no other predictor's ``detectable``, nor the
    fewest shuffles allowed (``m / alpha``)."""
    rng = np.random.default_rng(5)
    scores, pub, priv = _board(rng, k=30)
    family = pd.Series([f"f{j % 8}" for j in range(30)], index=scores.columns)
    kind = family.map({"f0": True, "f1": False}).astype("boolean")  # f0 against f1 only
    found = pd.DataFrame({"size": rng.normal(size=30), "kind": kind}, index=scores.columns)
    kw = {"public_tasks": pub, "private_tasks": priv, "families": family, "rng": 3}
    both = advantage_predictors(scores, found, n_resamples=20, **kw).to_frame()
    alone = advantage_predictors(scores, found[["size"]], n_resamples=20, **kw).to_frame()
    assert both["pvalue"].isna().tolist() == [False, True]
    assert np.isfinite(alone["detectable"][0])
    assert both["detectable"][0] == alone["detectable"][0]
    found["tier"] = rng.normal(size=30)  # a second tested predictor: 40 shuffles or more
    with pytest.raises(ValueError, match="40 or more for 2 tested"):
        advantage_predictors(scores, found, n_resamples=20, **kw)


def test_a_predictor_varying_within_families_counts_their_shared_spread():
    """Per model with ``families``: tau_m sum c**2 + tau_f sum_f (sum of c in f)**2, the
    two solving the moments of the one-way ANOVA of the residuals of A on the contrast
    (statsmodels' ``anova_lm`` here; its expectations as dense traces, the task noise the
    models' covariance over the tasks), with Satterthwaite's df for that combination of
    the two sums; without families the pooled part; the task part is unchanged."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(5)
    scores, pub, priv = _board(rng, k=40)
    models = list(scores.columns)
    family = pd.Series([f"f{j % 9}" for j in range(40)], index=models)
    shared = pd.Series(rng.normal(0, 0.03, 9), index=[f"f{i}" for i in range(9)])
    scores.loc[pub] += family.map(shared).to_numpy() + rng.normal(0, 0.03, 40)  # and each model's
    found = pd.DataFrame({"size": rng.normal(size=40) + family.str[1:].astype(float)}, models)
    kw = {"public_tasks": pub, "private_tasks": priv, "n_resamples": 200, "rng": 3}
    row = advantage_predictors(scores, found, families=family, **kw).to_frame().iloc[0]
    alone = advantage_predictors(scores, found, **kw).to_frame().iloc[0]

    y = _relative(scores)
    adv = y.loc[pub].mean() - y.loc[priv].mean()
    z = stats.rankdata(found["size"])
    z = (z - z.mean()) / z.std()  # standardized ranks: the slope per SD of them
    c = z / (z**2).sum()
    frame = pd.DataFrame({"a": adv.to_numpy(), "c": c, "f": family.to_numpy()})
    fit = smf.ols("a ~ c", frame).fit()
    frame["r"] = fit.resid
    anova = sm.stats.anova_lm(smf.ols("r ~ C(f)", frame).fit())
    # E[r'Ar] = tr(A M Cov(A) M), Cov(A) = tau_f K + tau_m I + noise: dense, two equations
    n, f, noise = 40, 9, _task_noise(y, pub, priv).to_numpy()
    hot = pd.get_dummies(family).to_numpy(float)
    m_ = _residual_maker(fit.model.exog)
    b_ = m_ @ (np.eye(n) - _residual_maker(hot)) @ m_  # between families, after the slope
    w_, k_ = m_ - b_, hot @ hot.T
    lhs = [[np.trace(x @ k_), np.trace(x)] for x in (b_, w_)]
    rhs = [
        anova.loc[q, "sum_sq"] - np.trace(x @ noise) for q, x in (("C(f)", b_), ("Residual", w_))
    ]
    tau_f, tau_m = np.linalg.solve(lhs, rhs)
    assert tau_f > 0 and tau_m > 0  # both parts at work here
    assert lhs[0][1] == pytest.approx(f - 1 - row["family_share"])  # the slope took a share
    pooled = alone["se_models"] ** 2  # the residual spread less its noise, times sum c**2
    assert pooled == pytest.approx((fit.ssr - np.trace(m_ @ noise)) / (n - 2) * (c**2).sum())
    cc, between = (c**2).sum(), (frame.groupby("f")["c"].sum() ** 2).sum()
    assert between > 2 * cc  # mostly between families: the pooled part misses some
    v = tau_m * cc + tau_f * between
    assert row["se_models"] ** 2 == pytest.approx(v, rel=1e-9)
    assert row["se"] ** 2 == pytest.approx(row["se_tasks"] ** 2 + v, rel=1e-9)
    assert row["se_tasks"] == pytest.approx(alone["se_tasks"], rel=1e-12)
    v_pub, v_priv = ((y.loc[side] @ c).var() / len(side) for side in (pub, priv))
    tau2, e_m = pooled / cc, np.trace(m_ @ noise) / (n - 2)
    df_pooled = (n - 2) * (tau2 / (tau2 + e_m)) ** 2  # Satterthwaite, each part its own
    g = np.linalg.solve(np.transpose(lhs), [between, cc])  # v = g . (sums of squares - noise)
    sums = [anova.loc[q, "sum_sq"] for q in ("C(f)", "Residual")]
    df_v = v**2 / sum(
        (g_ * s_) ** 2 / d for g_, s_, d in zip(g, sums, (lhs[0][1], lhs[1][1]), strict=True)
    )
    parts, dfs = [v_pub, v_priv, v], [len(pub) - 1, len(priv) - 1, max(df_v, 1.0)]
    satterthwaite = sum(parts) ** 2 / sum(v**2 / d for v, d in zip(parts, dfs, strict=True))
    assert row["df"] == pytest.approx(satterthwaite, rel=1e-9)
    parts[2], dfs[2] = pooled, max(df_pooled, 1.0)
    assert alone["df"] == pytest.approx(
        sum(parts) ** 2 / sum(v**2 / d for v, d in zip(parts, dfs, strict=True)), rel=1e-9
    )
    assert row["se_models"] > alone["se_models"]  # the families' shared spread counted
    assert row["df"] < alone["df"]


def _dense_model_part(
    a: np.ndarray, c: np.ndarray, noise: np.ndarray, fam: np.ndarray, groups: bool = False
) -> tuple:
    """The models' variance of contrast ``c`` and its df, by dense matrices (M, P, K) and
    numpy's solve: (variance, df, tau_f, tau_m, whether the pooled spread was used). With
    ``groups``, a family that is one side of ``c`` exactly has no term of its own in tau_f's
    weight (written with sets)."""
    n, hot = len(fam), pd.get_dummies(fam).to_numpy(float)
    m_ = _residual_maker(np.column_stack([np.ones(n), c]))
    b_ = m_ @ (np.eye(n) - _residual_maker(hot)) @ m_
    w_, k_, r = m_ - b_, hot @ hot.T, m_ @ a
    lhs = [[np.trace(q @ k_), np.trace(q)] for q in (b_, w_)]
    sums = [r @ q @ r for q in (b_, w_)]
    rhs = [s_ - np.trace(q @ noise) for s_, q in zip(sums, (b_, w_), strict=True)]
    tau_f, tau_m = np.linalg.solve(lhs, rhs)
    sides = [set(np.flatnonzero(c > 0)), set(np.flatnonzero(c < 0))]
    own = [f for f in set(fam) if groups and set(np.flatnonzero(fam == f)) in sides]
    weights = [sum(c[fam == f].sum() ** 2 for f in set(fam) - set(own)), (c**2).sum()]
    v = float(np.dot(weights, [tau_f, tau_m]))
    gs = np.linalg.solve(np.transpose(lhs), weights)
    spread = sum((g_ * s_) ** 2 / q[1] for g_, s_, q in zip(gs, sums, lhs, strict=True))
    if v > 0:
        return v, max(1.0, v**2 / spread), tau_f, tau_m, False
    e_m = np.trace(m_ @ noise) / (n - 2)  # else the families share nothing: the pooled spread
    tau2 = max(0.0, (r @ r) / (n - 2) - e_m)
    return tau2 * weights[1], max(1.0, (n - 2) * (tau2 / (tau2 + e_m)) ** 2), tau_f, tau_m, True


@pytest.mark.parametrize("sizes", [[12, 9, 2], [8, 10, 9, 8, 5, 3, 3, 3, 2, 2, 1, 1, 1]])
def test_the_models_parts_against_dense_moments(sizes: list[int]):
    """The vectorised variance and df against the same moments written as dense matrices
    (M, P, K) and solved with numpy, 3 families too, with correlated task noise: contrasts
    between families, within them (summing to 0 in each: tau_m sum c**2 alone) and at
    random; Satterthwaite's df of v = g . (the between and within sums less their noise);
    where v is not positive (families sharing nothing), the pooled spread and its df."""
    from analysis.stats.advantage import _model_part

    rng = np.random.default_rng(len(sizes))
    fam = np.repeat(np.arange(len(sizes)), sizes)
    n = len(fam)
    within = np.concatenate([np.resize([1.0, -1.0], k) * (k % 2 == 0) for k in sizes])
    between = np.where(fam == 0, 1.0, -sizes[0] / (n - sizes[0]))
    c = np.column_stack([between, within, *(rng.permutation(between) for _ in range(20))])
    g = rng.normal(size=(n, 12)) + rng.normal(size=(len(sizes), 12))[fam]  # correlated
    noise = g @ g.T / 40
    apart = np.linspace(-3, 3, len(sizes))[fam] + rng.normal(0, 1.5, n)  # families apart
    alike = rng.normal(0, 1.5, n)  # the families share nothing: v < 0 about half the time
    fell = []
    for a, groups in itertools.product((apart, alike), (False, True)):
        v, df = _model_part(a, c, noise, fam, groups)
        dense = [_dense_model_part(a, c[:, j], noise, fam, groups) for j in range(c.shape[1])]
        np.testing.assert_allclose(v, [d[0] for d in dense], rtol=1e-9)
        np.testing.assert_allclose(df, [d[1] for d in dense], rtol=1e-9)
        fell.append(sum(d[4] for d in dense))
        assert v[1] == pytest.approx(dense[1][3] * (within**2).sum())  # within: tau_m alone
    assert fell[0] == fell[1] == 0 and 0 < fell[2] < c.shape[1], fell  # both branches checked
    apart_own = _model_part(apart, c[:, :1], noise, fam, True)[0]
    assert apart_own < _model_part(apart, c[:, :1], noise, fam)[0]  # family 0's term left out


@pytest.mark.parametrize("sizes", [[12, 9, 2], [8, 10, 9, 8, 5, 3, 3, 3, 2, 2, 1, 1, 1]])
def test_the_bootstraps_spreads_and_draws_against_dense_moments(sizes: list[int]):
    """What :func:`_null_t` draws from: the fitted (tau_m, tau_f) are the dense moment
    equations' solution (tau_f not positive: the pooled spread and 0); the model part of
    many draws at once equals it draw by draw; the draws' contrast has the variance the fit
    gives it (noise + tau_m I + tau_f H'H, the tested family's block left out)."""
    from analysis.stats.advantage import _model_part, _null_t

    rng = np.random.default_rng(len(sizes))
    fam = np.repeat(np.arange(len(sizes)), sizes)
    n = len(fam)
    c0 = np.where(fam == 0, 1.0 / sizes[0], -1.0 / (n - sizes[0]))  # family 0 against the rest
    g = rng.normal(size=(n, 12)) + rng.normal(size=(len(sizes), 12))[fam]
    noise = g @ g.T / 4000
    apart = np.linspace(-0.3, 0.3, len(sizes))[fam] + rng.normal(0, 0.1, n)
    alike = rng.normal(0, 0.1, n)
    for a, groups in itertools.product((apart, alike), (False, True)):
        _, _, tau_f, tau_m, _ = _dense_model_part(a, c0, noise, fam, groups)
        tau2 = _model_part(a, c0[:, None], noise, None)[0][0] / (c0**2).sum()
        want = (max(tau_m, 0.0), tau_f) if tau_f > 0 else (tau2, 0.0)
        got = _model_part(a, c0[:, None], noise, fam, groups, spreads=True)[2]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-15)
    draws = rng.normal(0, 0.1, (n, 7))
    many = _model_part(draws, c0[:, None], noise, fam, True)
    one = [_model_part(draws[:, j], c0[:, None], noise, fam, True) for j in range(7)]
    np.testing.assert_allclose(many[0], [o[0][0] for o in one], rtol=1e-12)
    np.testing.assert_allclose(many[1], [o[1][0] for o in one], rtol=1e-12)
    tau_m, tau_f = _model_part(apart, c0[:, None], noise, fam, True, spreads=True)[2]
    assert tau_f > 0  # the families apart: a shared part to draw
    hot = pd.get_dummies(fam).to_numpy(float)[:, 1:]  # family 0's own block left out
    sigma = noise + tau_m * np.eye(n) + tau_f * hot @ hot.T
    fixed = ((100.0, 1e12), (100.0, 1e12))  # the task part all but constant at 200
    t = _null_t(apart, c0, noise, fam, True, fixed, 40_000, np.random.default_rng(0))
    assert len(t) == 40_000  # every draw asked for
    # the t's numerator over about sqrt(200): its model part (under 0.1) adds under 0.05%
    assert 200 * np.var(t) == pytest.approx(c0 @ sigma @ c0, rel=0.03)  # 4 standard errors
    every = tau_f * pd.get_dummies(fam).to_numpy(float) @ pd.get_dummies(fam).to_numpy(float).T
    assert c0 @ (sigma + every - tau_f * hot @ hot.T) @ c0 > 1.2 * (c0 @ sigma @ c0)  # told apart


def test_detectable_needs_the_level_reached_with_the_power_and_counts_mirrors_once():
    """``detectable`` is NaN unless the shuffles' p-value of the most extreme arrangement
    falls under the level with probability ``power``. Drawn shuffles: Binomial(n_resamples,
    1 / distinct |t|) of them tie it; that probability against 300 runs of the function on
    a group that is the most extreme arrangement (its gain is huge). Every arrangement
    (exact): its p-value is (1 + its mirror) / arrangements, so a group of half the models
    counts an arrangement and its mirror (the same |t|) once."""
    from scipy.stats import binom

    scores, pub, priv = _board(np.random.default_rng(3), k=10)
    scores.loc[pub, ["m00", "m01", "m02", "m03"]] += 0.3
    group = pd.DataFrame({"g": [True] * 4 + [False] * 6}, index=scores.columns)
    kw = {"public_tasks": pub, "private_tasks": priv, "n_resamples": 199}  # < 210: drawn
    level = 0.011  # p < 0.011: at most 1 of 199 shuffles ties it, each with chance 1/210
    runs = [
        advantage_predictors(scores, group, confidence_level=1 - level, rng=seed, **kw)
        for seed in range(300)
    ]
    reached = np.mean([r.to_frame()["pvalue_permutation"][0] < level for r in runs])
    expected = binom.cdf(1, 199, 1 / 210)  # about three quarters
    assert abs(reached - expected) < 4 * np.sqrt(expected * (1 - expected) / 300)
    for power, finite in ((expected - 0.05, True), (expected + 0.05, False)):
        res = advantage_predictors(
            scores, group, confidence_level=1 - level, power=power, rng=0, **kw
        )
        assert np.isfinite(res.to_frame()["detectable"][0]) == finite, power
    # every arrangement at 0.006: 4 of 10 models (210) reach it, p = 1/210, whatever the
    # power; 5 of 10 make 252 arrangements in 126 mirror pairs, and 2/252 > 0.006 cannot
    kw["n_resamples"] = 10_000
    half = pd.DataFrame({"g": [True] * 5 + [False] * 5}, index=scores.columns)
    got = {
        name: advantage_predictors(
            scores, predictor, confidence_level=1 - 0.006, power=0.99, rng=0, **kw
        ).to_frame()
        for name, predictor in (("group", group), ("half", half))
    }
    assert np.isfinite(got["group"]["detectable"][0]) and np.isnan(got["half"]["detectable"][0])
    assert got["group"]["pvalue_permutation"][0] == 1 / 210  # the most extreme of 210
    assert got["half"]["pvalue_permutation"][0] * 252 % 2 == pytest.approx(0)  # mirror pairs


def test_true_false_with_unknowns_is_a_group_whatever_its_dtype():
    """True/False with missing values is an object column (what ``.where(notna)`` makes):
    the same two groups as pandas' nullable boolean, never ranks of 0 and 1."""
    scores, pub, priv = _board(np.random.default_rng(6), k=9)
    flags = [True, True, True, False, False, False, False, None, None]
    kw = {"public_tasks": pub, "private_tasks": priv, "rng": 0}
    got = {
        dtype: advantage_predictors(
            scores, pd.DataFrame({"g": pd.Series(flags, index=scores.columns, dtype=dtype)}), **kw
        ).to_frame()
        for dtype in ("object", "boolean")
    }
    assert got["object"]["kind"][0] == "groups" and got["object"]["n_a"][0] == 3
    pd.testing.assert_frame_equal(got["object"], got["boolean"])


def test_a_predictor_needs_its_groups_and_the_models_of_scores():
    scores, pub, priv = _board(np.random.default_rng(6), k=10)
    lone = pd.DataFrame({"org": [True] + [False] * 9}, index=scores.columns)
    with pytest.raises(ValueError, match="each group needs 2 models"):
        advantage_predictors(scores, lone, public_tasks=pub, private_tasks=priv)
    with pytest.raises(LabelMismatchError):
        advantage_predictors(scores, lone.iloc[1:], public_tasks=pub, private_tasks=priv)
    two = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0) % 3}, index=scores.columns)
    with pytest.raises(ValueError, match="must be 40 or more for 2 tested predictors"):
        advantage_predictors(scores, two, public_tasks=pub, private_tasks=priv, n_resamples=39)
    advantage_predictors(scores, two, public_tasks=pub, private_tasks=priv, n_resamples=40)


def test_the_draws_do_not_depend_on_the_order_of_the_models():
    """The same seed gives the same answers whatever the columns' order (the shuffles and the
    reassignments are drawn over the models in sorted order)."""
    rng = np.random.default_rng(11)
    scores, pub, priv = _board(rng, k=10)
    found = pd.DataFrame(
        {"size": rng.normal(size=10), "org": [True] * 4 + [False] * 6}, index=scores.columns
    )
    trained = pd.DataFrame(rng.random((len(pub), 10)) < 0.3, index=pub, columns=scores.columns)

    def answers(cols: list[str]) -> tuple[pd.DataFrame, float, object]:
        kw = {"n_resamples": 99, "rng": 1}
        table = advantage_predictors(
            scores[cols], found.loc[cols], public_tasks=pub, private_tasks=priv, **kw
        ).to_frame()
        within = trained_task_effect(scores.loc[pub, cols], trained[cols], **kw)
        return table, within.pvalue, within.confidence_interval

    given, shuffled = answers(list(scores.columns)), answers(list(rng.permutation(scores.columns)))
    pd.testing.assert_frame_equal(shuffled[0], given[0])
    assert shuffled[1:] == given[1:]


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
        """Every reassignment, the trained cells' scores shifted by ``delta`` (unknown: untrained)."""
        shifted = _relative(scores - delta * flags)
        seen = statistic(shifted, patterns)
        null = np.array([statistic(shifted, p) for p in itertools.permutations(patterns)])
        return (np.abs(null) >= abs(seen) - 1e-12).mean()

    assert res.n_models == 3
    assert res.statistic == pytest.approx(statistic(y, patterns), abs=1e-12)
    assert res.pvalue == pytest.approx(exact_pvalue(0.0), abs=0.01)
    # the interval's ends are where the (exact) test starts to reject
    low, high = res.confidence_interval
    assert exact_pvalue(res.shift) == 1.0 and low < res.shift < high
    eps = 1e-3 * (high - low)
    for inside, outside in ((low + eps, low - eps), (high - eps, high + eps)):
        assert exact_pvalue(inside) > 0.05 - 0.01 and exact_pvalue(outside) <= 0.05 + 0.01


def test_trained_task_effect_when_every_model_trained_alike():
    """Every model trained on t00 only: a common gain cancels in the relative scores, so no
    shift can be estimated (NaN) and none rejected (the whole line)."""
    scores, pub, _ = _board(np.random.default_rng(3), k=8)
    trained = pd.DataFrame(False, index=pub, columns=scores.columns)
    trained.iloc[0] = True
    res = trained_task_effect(scores.loc[pub], trained, n_resamples=99, rng=0)
    assert res.n_models == 8 and np.isnan(res.shift)
    assert tuple(res.confidence_interval) == (-np.inf, np.inf)


def test_trained_task_interval_is_the_hull_of_every_shift_kept():
    """The interval's ends against the p-value of a shift d evaluated at every draw's roots and
    between them: exact, also where the shifts kept are not one piece (draws whose overlap term
    exceeds the observed one), where a search outward from the estimate stops short."""
    from analysis.stats.advantage import _inverted

    rng, pieces = np.random.default_rng(0), 0
    for trial in range(300):
        b, big_a, big_g = int(rng.integers(5, 60)), rng.normal(), abs(rng.normal()) + 0.05
        a, g = rng.normal(size=b), big_g * rng.uniform(-2, 2, b)
        a[:3], g[:3] = [big_a, big_a, -big_a], [big_g, big_g, -big_g]  # ties: itself, its mirror
        alpha = (0.05, 0.2, 0.3)[trial % 3]
        with np.errstate(divide="ignore", invalid="ignore"):
            roots = np.r_[(a - big_a) / (g - big_g), (a + big_a) / (g + big_g)]
        roots = np.sort(roots[np.isfinite(roots)])
        far = 10 * (np.abs(roots).max() + 1)  # beyond every root: the p-value at +-inf
        points = np.r_[-far, roots, (roots[1:] + roots[:-1]) / 2, far]
        gaps = [np.abs(a - d * g) >= abs(big_a - d * big_g) - 1e-12 for d in points]
        kept = np.array([(1 + gap.sum()) / (b + 1) > alpha for gap in gaps])
        low, high = points[kept].min(), points[kept].max()
        expected = (-np.inf if low == -far else low, np.inf if high == far else high)
        assert tuple(_inverted((big_a, big_g), a, g, alpha)) == pytest.approx(expected, rel=1e-9)
        pieces += bool((~kept & (points > low) & (points < high)).any())
    assert pieces >= 20  # the sets in several pieces were there to test


def test_trained_task_effect_within_families_against_every_such_relabelling():
    """Two families of 3 models: the 3! * 3! reassignments within them, enumerated here."""
    import itertools

    rng = np.random.default_rng(13)
    scores, pub, _ = _board(rng, k=6)
    scores = scores.loc[pub]
    trained = pd.DataFrame(False, index=scores.index, columns=scores.columns)
    trained.iloc[0, [0, 3]] = True
    trained.iloc[[2, 3], 1] = True
    trained.iloc[5, 4] = True
    scores.iloc[0, [0, 3]] += 0.03
    families = {m: "a" if j < 3 else "b" for j, m in enumerate(scores.columns)}
    res = trained_task_effect(scores, trained, families=families, n_resamples=40_000, rng=0)
    assert "within 2 families" in res.method
    y = _relative(scores).to_numpy()
    own = trained.to_numpy()

    def statistic(assigned, values=y):
        diffs = [
            values[on, j].mean() - values[~on, j].mean()
            for j, on in enumerate(assigned.T)
            if 0 < on.sum() < len(on)
        ]
        return np.mean(diffs)

    null = [
        statistic(own[:, list(first) + list(second)])
        for first in itertools.permutations(range(3))
        for second in itertools.permutations(range(3, 6))
    ]
    seen = statistic(own)
    assert res.statistic == pytest.approx(seen, abs=1e-12)
    assert res.pvalue == pytest.approx((np.abs(null) >= abs(seen) - 1e-12).mean(), abs=0.01)

    def exact_pvalue(delta):
        """Every such reassignment, the trained cells' scores shifted by ``delta``."""
        shifted = _relative(scores - delta * own).to_numpy()
        null = [
            statistic(own[:, list(first) + list(second)], shifted)
            for first in itertools.permutations(range(3))
            for second in itertools.permutations(range(3, 6))
        ]
        return (np.abs(null) >= abs(statistic(own, shifted)) - 1e-12).mean()

    low, high = res.confidence_interval  # the shifts the exact test does not reject, at 1/36
    assert exact_pvalue(res.shift) == 1.0 and np.isfinite([low, high]).all()
    eps = 1e-3 * (high - low)
    for inside, outside in ((low + eps, low - eps), (high - eps, high + eps)):
        assert exact_pvalue(inside) >= 2 / 36 and exact_pvalue(outside) <= 1 / 36
    del families["m05"]
    with pytest.raises(LabelMismatchError, match="no family"):
        trained_task_effect(scores, trained, families=families)


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


@pytest.mark.parametrize("departure", sorted(sim.LOG_SIGMA))
def test_skewed_departures_have_the_stated_spread_and_skewness(departure):
    """The lognormal's theoretical skewness, the interactions' SD 0.03, on many draws."""
    e = sim.interactions(np.random.default_rng(12), 200_000, 0, 1, departure).ravel()
    sigma = sim.LOG_SIGMA[departure]
    assert e.std() == pytest.approx(sim.SD, rel=0.03)
    assert abs(e.mean()) < 3 * sim.SD / np.sqrt(len(e))
    skew = stats.lognorm(sigma).stats(moments="s")  # scipy's, not the module's formula
    assert stats.skew(e) == pytest.approx(float(skew), rel=0.05 if sigma < 1 else 0.25)


def test_model_shape_is_the_skew_and_kurtosis_of_the_two_way_residuals():
    """Against statsmodels' additive fit (task and model as factors) and scipy's moments."""
    import statsmodels.formula.api as smf

    x = np.random.default_rng(13).lognormal(0, 0.5, (9, 5))
    long = pd.DataFrame(x).stack().rename("x").rename_axis(["task", "model"]).reset_index()
    fit = smf.ols("x ~ C(task) + C(model)", data=long).fit()
    resid = long.assign(r=fit.resid).pivot(index="task", columns="model", values="r")
    skew, kurtosis = sim.model_shape(x)
    np.testing.assert_allclose(skew, stats.skew(resid.to_numpy(), axis=0))
    np.testing.assert_allclose(kurtosis, stats.kurtosis(resid.to_numpy(), axis=0))


def test_the_relabelling_reference_is_welchs_t_over_relabelled_tasks():
    """``label_max_t`` (the bench's reference not chosen) against scipy, relabelling by relabelling."""
    y = np.random.default_rng(16).normal(size=(11, 4))
    public = sim.relabellings(6, 5, 7, np.random.default_rng(17))
    assert public.shape == (7, 11) and (public.sum(axis=1) == 6).all()
    public[0] = np.arange(11) < 6  # the split as it is: the models' own Welch t
    got = sim.label_max_t(y[:6], y[6:], public)
    assert got[0] == pytest.approx(np.abs(sim._welch_parts(y[:6], y[6:], 0.95)["t"]).max())
    for value, side in zip(got, public, strict=True):
        welch = stats.ttest_ind(y[side], y[~side], equal_var=False).statistic
        assert value == pytest.approx(np.abs(welch).max())


def test_spread_ratio_is_the_sides_sds_of_the_relative_scores():
    """Against a loop: each model minus the mean of the others, task by task."""
    x = np.random.default_rng(19).lognormal(size=(9, 5))
    relative = np.array([[row[j] - np.delete(row, j).mean() for j in range(5)] for row in x])
    want = relative[5:].std(axis=0, ddof=1) / relative[:5].std(axis=0, ddof=1)
    np.testing.assert_allclose(sim.spread_ratio(x[:5], x[5:]), want)


def test_the_relabelling_holds_with_exchangeable_tasks_and_fails_at_unequal_spreads():
    """The bench's reason for the flips, in small (14/6 tasks; 300 data sets a cell, so a
    rate at the level 0.05 stays under 0.09, three Monte-Carlo standard errors above it)."""
    rates = {
        departure: [t.rate for t in sim.reference_cell(rng, 300, 14, 6, 70, departure)]
        for departure, rng in zip(
            ("normal", "outlier", "unequal"), np.random.default_rng(18).spawn(3), strict=True
        )
    }
    assert max(rates["normal"] + rates["outlier"] + rates["unequal"][:1]) <= 0.09, rates
    assert rates["unequal"][1] >= 0.12, rates  # the relabelling: measured 0.2 and more


def test_the_data_pairs_correlate_across_the_sides_before_the_spreads():
    """Public task i with private task i at ``pairs[i]`` over the models, the rest independent."""
    e = sim.interactions(np.random.default_rng(16), 4, 3, 200_000, "unequal", (0.9, 0.5))
    r = np.corrcoef(e)
    assert r[0, 4] == pytest.approx(0.9, abs=0.01) and r[1, 5] == pytest.approx(0.5, abs=0.01)
    assert np.abs(r[[2, 3, 0], [6, 6, 5]]).max() < 0.01
    assert e[4].std() / e[0].std() == pytest.approx(sim.PRIVATE_SPREAD["unequal"], rel=0.02)


@pytest.mark.parametrize("benchmark", ["RTEB(beta)", "RTEB(eng, beta)"])
def test_the_data_pairs_are_the_units_the_notebook_flips(benchmark):
    """RTEB(beta)'s clusters on the benchmark's tasks, coded as ``public_advantage`` codes them."""
    n1, n2, pairs = sim.data_pairs(benchmark)
    spec = resolve_spec(benchmark, pin="as-of-post")
    public, private = sorted(spec.scope_tasks("public")), sorted(spec.scope_tasks("private"))
    mapping = task_clusters("RTEB(beta)")  # as the notebook passes it to every benchmark
    codes = unit_clusters(mapping, pd.Index(public + private), n1 + n2)
    shared = set(codes[:n1]) & set(codes[n1:])
    assert (n1, n2) == (len(public), len(private)) and len(pairs) == len(shared) > 0
    assert codes.max() + 1 == n1 + n2 - len(pairs)
    correlations = {c["label"]: c["mean_correlation"] for c in cluster_details("RTEB(beta)")}
    across = {mapping[t] for t in public} & {mapping[t] for t in private}
    assert sorted(pairs) == sorted(correlations[label] for label in across)
    simulated = sim.cross_pair_clusters(n1, n2, len(pairs))
    labels = [f"p{i}" for i in range(n1)] + [
        f"p{i}" if i < len(pairs) else f"q{i}" for i in range(n2)
    ]
    np.testing.assert_array_equal(simulated, unit_clusters(labels, None, n1 + n2))
    with pytest.raises(ValueError, match="not a public-private pair"):
        sim.data_pairs("MTEB(eng, v2)", clusters_of="MTEB(eng, v2)")  # within one side


def test_the_pairs_reach_the_draws_and_the_flips(monkeypatch):
    """``advantage_cell`` passes ``pairs`` down to the draws and flips the cross pairs."""
    seen = {}
    draw, flip = sim.interactions, sim.simultaneous

    def interactions(*args, **kwargs):
        seen["pairs"] = args[5] if len(args) > 5 else kwargs.get("pairs")
        return draw(*args, **kwargs)

    def simultaneous(*args, **kwargs):
        seen["codes"] = args[5] if len(args) > 5 else kwargs.get("codes")
        return flip(*args, **kwargs)

    monkeypatch.setattr(sim, "interactions", interactions)
    monkeypatch.setattr(sim, "simultaneous", simultaneous)
    sim.advantage_cell(
        np.random.default_rng(1),
        1,
        8,
        7,
        10,
        "normal",
        pairs=(0.9, 0.8),
        clustered=True,
        n_patterns=20,
    )
    assert seen["pairs"] == (0.9, 0.8)
    np.testing.assert_array_equal(seen["codes"], sim.cross_pair_clusters(8, 7, 2))
    with pytest.raises(ValueError, match="would undo"):
        sim.interactions(np.random.default_rng(1), 4, 4, 5, "families", (0.9,))


@pytest.fixture
def bench(monkeypatch):
    """``benchmarks/bench_goodhart_validation.py``, its ledger of cells empty."""
    module = load_file(
        REPO / "benchmarks" / "bench_goodhart_validation.py", "bench_goodhart_validation"
    )
    monkeypatch.setattr(module, "LEDGER", [])
    return module


def test_the_validation_report_counts_each_cell_against_its_target(bench):
    """The summary of ``goodhart_validation.md``: each cell as shown, in its column."""
    for where, hits, how, target in [
        ("a", 604, "notebook", "error"),  # 0.0604, shown 0.060: in
        ("b", 606, "notebook", "error"),  # shown 0.061: out
        ("c", 9496, "other", "coverage"),  # shown 0.950: in
        ("d", 399, "design", "error"),  # shown 0.040: in
        ("e", 394, "design", "error"),  # shown 0.039: out, within 2 standard errors
        ("f", 300, "design", "error"),  # out by 0.010, 2 standard errors at 0.04: 0.004
        ("g", 9400, "notebook", "coverage"),  # out by 0.010, 2 standard errors: 0.004
        ("h", 9490, "other", "coverage"),  # shown 0.949: out, within 2 standard errors
    ]:
        bench.ledger("t", where, sim.Tally(reps=10_000, hits=hits), how, target)
    assert bench.ledger_section()[-2] == (
        "| t | 3 of 8 | 2 of 3; b: 0.061 ± 0.002; g: 0.940 ± 0.002 | 1 of 2; h: 0.949 ± 0.002 "
        "| 2 of 3; e: 0.039 ± 0.002; f: 0.030 ± 0.002 | 1 / 0 / 1 |"
    )


def test_the_validation_report_labels_the_cells_as_the_functions_take_them(bench, monkeypatch):
    """The notebook's calls, the others, and the refused or assumption-breaking ones."""
    tallies = (sim.Tally(10, 0), sim.Tally(10, 10), sim.Tally(10, 0))
    monkeypatch.setattr(bench.sim, "advantage_cell", lambda *args, **kwargs: tallies)
    monkeypatch.setattr(bench, "on_every_core", lambda job, jobs: list(map(job, jobs)))  # here
    bench.advantage_rows(1)
    bench.data_cluster_section(1)
    label = {w: how for test, w, _, _, how in bench.LEDGER if test.endswith("decisions")}
    assert {w for w, how in label.items() if how == "notebook"} == {
        f"{name} {d}"
        for name in ("RTEB(beta)", "RTEB(eng, beta)")
        for d in bench.DATA_PAIR_DEPARTURES
    }
    assert label["16/13 normal"] == label["16/13 corr-tasks, in pairs"] == "other"
    assert label["16/13 corr-tasks"] == label["RTEB(beta) normal, pairs flipped alone"] == "design"
    refused = {w for w, how in label.items() if how == "design" and "in pairs" in w}
    assert refused == {
        f"14/6 {d}, in pairs" for d in ("corr-tasks", "normal", "unequal", "heavy", "skewed")
    }
    for size in (bench.FULL, bench.ENG):  # the function's own rule for those splits
        scores, pub, priv = _board(np.random.default_rng(19), *size)
        codes = sim.pair_clusters(*size)
        res = public_advantage(
            scores,
            public_tasks=pub,
            private_tasks=priv,
            clusters=dict(zip(pub + priv, codes.tolist(), strict=True)),
            n_resamples=50,
            rng=0,
        )
        assert res.testable == (size == bench.FULL)


def test_small_simulation_holds_the_family_wise_level():
    """150 global-null leaderboards (70 models, 16/13 tasks, unequal spreads)."""
    errors, _, _ = sim.advantage_cell(np.random.default_rng(10), 150, 16, 13, 70, "unequal")
    assert errors.rate <= 0.11  # 0.05 plus three Monte-Carlo standard errors
    _, covered, _ = sim.advantage_cell(
        np.random.default_rng(11), 100, 14, 6, 70, "heavy", spread=0.02
    )
    assert covered.rate >= 0.88


def test_small_simulation_of_correlated_tasks_with_their_clusters():
    """Pairs of tasks correlated at 0.7: one sign per task fails, one per pair holds."""
    naive, _, _ = sim.advantage_cell(np.random.default_rng(15), 60, 16, 13, 70, "corr-tasks")
    clustered, _, _ = sim.advantage_cell(
        np.random.default_rng(15), 150, 16, 13, 70, "corr-tasks", clustered=True
    )
    assert naive.rate >= 0.2 and clustered.rate <= 0.11


def test_small_simulation_of_the_predictor_test():
    got, detectable = sim.predictor_cell(
        np.random.default_rng(12), 150, 16, 13, 70, "normal", n_shuffles=199
    )
    assert got["rank"].rate <= 0.11 and got["group"].rate <= 0.11
    assert 0 < detectable["rank"] < 0.05


def test_small_simulation_of_one_family_with_a_shared_effect():
    """A group that is one family, its models sharing their true advantage, tested per
    model with the families' shared spread in its variance (as the notebook gives its
    organisations): about the level among 10 families and among 23 of the data's shape
    (one of 8 models, most alone), where the families as units had p >= 1/F (among 10:
    none). So for that family and 2 of another (its contrast mostly between
    families), which rejected 0.265 before the families' spread was counted."""
    sizes = [8, 10, 9, 8, 5, 3, 3, 3, *[2] * 6, *[1] * 9]
    got, detectable = sim.predictor_cell(
        np.random.default_rng(16), 150, 16, 13, 70, "normal", family_spread=0.02, n_shuffles=99
    )
    assert 0 < got["family"].rate <= 0.11  # as units, 10 families: p >= 0.1, none
    assert np.isnan(detectable["family"])  # 99 shuffles cannot reach 0.05 / 7: no more
    assert got["near"].rate <= 0.11 and got["rank"].rate <= 0.11
    got, _ = sim.predictor_cell(
        np.random.default_rng(17),
        200,
        16,
        13,
        70,
        "normal",
        family_spread=0.02,
        family_sizes=sizes,
        n_shuffles=99,
    )
    assert max(got[kind].rate for kind in ("rank", "group", "family", "near")) <= 0.11
    with pytest.raises(ValueError, match="add up to the 70 models"):
        sim.predictor_cell(np.random.default_rng(0), 1, 16, 13, 70, "normal", family_sizes=[3])


@pytest.mark.slow  # reads the snapshot's RTEB(beta)
def test_small_simulation_of_the_trained_shift_on_the_data_design(shared_results):
    """The notebook's call on RTEB(beta)'s own training records and organisations (22 of its
    models trained on one public task, 5 organisations varying), every trained cell shifted
    by 0.05 and half the interactions shared within organisations: the interval covers the
    shift, bounded, and ``shift`` estimates it. The interval for the relative scores' shift
    covered 0.893 of these data sets (0.857 in the bench's)."""
    design = sim.trained_design(shared_results)
    assert int(design[0].fillna(False).sum(axis=1).max()) >= 20  # one task carries the test
    rng = np.random.default_rng(18)
    _, shifts, low, high = sim.trained_draws(
        rng, 150, "families", effect=0.05, within_families=True, design=design
    )
    assert np.isfinite(low).all() and np.isfinite(high).all()
    assert np.mean((np.array(low) <= 0.05) & (0.05 <= np.array(high))) >= 0.9  # 0.95 - 3 SE
    assert np.mean(shifts) == pytest.approx(0.05, abs=0.003)  # its SE about 0.0007


def test_small_simulation_of_the_power_with_few_models():
    """5 of 10 models report no detectable effect; 5 of 20 one found about as often as stated."""
    effect, none, power = sim.few_models_power(np.random.default_rng(13), 40, 10, 5)
    assert np.isnan(effect) and none == 1.0 and power is None
    effect, none, power = sim.few_models_power(np.random.default_rng(14), 200, 20, 5)
    assert 0 < effect < 0.1 and none == 0.0 and power is not None
    assert 0.6 <= power.rate <= 0.95


def test_the_validation_report_keeps_finished_cells_and_resumes_from_them(
    bench, tmp_path, shared_results
):
    """A kept cell is read back, not run again; another cell is run, and another seed."""
    calls = []

    def cell(rng: np.random.Generator, reps: int) -> float:
        calls.append(reps)
        return float(rng.random())

    bench.sim.counted_cell = cell
    try:
        bench.use_cache(tmp_path, shared_results)
        first = bench._sim_job(("counted_cell", ("k",), (3,), {}))
        assert bench._sim_job(("counted_cell", ("k",), (3,), {})) == first and calls == [3]
        bench._sim_job(("counted_cell", ("k",), (4,), {}))  # other arguments: another cell
        assert calls == [3, 4]
        (code,) = tmp_path.iterdir()  # the simulation's and the package's source
        (seen,) = code.iterdir()  # then the seed, the data and the libraries
        assert code.name == bench.source_key() and len(list(seen.iterdir())) == 2
        assert seen.name == bench.environment_key(shared_results)
        bench.SEED += 1  # another seed: not the kept cells
        bench.use_cache(tmp_path, shared_results)
        bench._sim_job(("counted_cell", ("k",), (3,), {}))
        assert calls == [3, 4, 3]
        bench.SEED -= 1
        bench.use_cache(None)
        bench._sim_job(("counted_cell", ("k",), (3,), {}))  # no cache: run
        assert calls == [3, 4, 3, 3]
    finally:
        bench.use_cache(None)
        del bench.sim.counted_cell


def test_the_kept_cells_code_digest_ignores_docstrings_and_comments_only(bench, tmp_path):
    """An edit to a docstring or a comment keeps a cell's code key; any other edit, a
    constant's value or a line moved into another function, changes it."""
    base = '''"""Module."""
LIMIT = 3


def f(x):
    """What f does."""
    return x + LIMIT  # add


class C:
    """A class."""

    def g(self):
        """Only a docstring."""
'''
    reworded = base.replace("What f does.", "What f does,\n    said again.").replace(
        "# add", "# adds the limit"
    )
    changed = {
        "a constant": base.replace("LIMIT = 3", "LIMIT = 4"),
        "a statement": base.replace("return x + LIMIT", "return x - LIMIT"),
        "a body": base.replace(
            '"""Only a docstring."""', '"""Only a docstring."""\n        return 1'
        ),
    }
    path = tmp_path / "m.py"

    def key(text: str) -> str:
        path.write_text(text)
        return bench._code(path)

    assert key(base) == key(reworded) == key(base.replace('"""Module."""\n', ""))
    assert all(key(text) != key(base) for text in changed.values())


def test_the_validation_report_holds_power_cells_to_their_reported_power(bench):
    """A power cell is in its target at 0.8 or more, as shown, and beyond chance below it."""
    assert bench.in_target(sim.Tally(reps=1000, hits=800), "power")
    assert not bench.in_target(sim.Tally(reps=1000, hits=799), "power")
    assert not bench.beyond_chance(sim.Tally(reps=1000, hits=790), "power")  # 2 SE: 0.025
    assert bench.beyond_chance(sim.Tally(reps=1000, hits=770), "power")


def test_small_simulation_finds_a_reported_detectable_with_its_power():
    """public_advantage's `detectable` (as it reports it), given to one model; and
    a predictor's interval at a true effect."""
    power = load_file(REPO / "benchmarks" / "_goodhart_power.py", "_goodhart_power")
    effect, decided, outside = power.detectable_power(
        np.random.default_rng(3), 150, 16, 13, 70, "normal", n_patterns=100
    )
    assert 0.02 < effect < 0.1 and decided.reps == outside.reps == 150
    # about 0.75 at 16/13 (goodhart_validation.md), less 4 standard errors; the step-down
    # finds whatever the single-step interval does
    assert 0.6 <= outside.rate <= decided.rate
    covered = power.predictor_coverage(
        np.random.default_rng(4), 40, 16, 13, 70, "normal", effect=0.03, n_shuffles=99
    )
    assert covered["rank"].rate >= 0.85 and covered["group"].rate >= 0.85
