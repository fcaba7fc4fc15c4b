"""analysis.stats.pairwise: adjust_pvalues and pairwise_significance against hand computations,
scipy and brute force; checks."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from analysis.stats import (
    DroppedModelsWarning,
    adjust_pvalues,
    paired_bootstrap,
    pairwise_significance,
)

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
