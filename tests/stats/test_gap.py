"""analysis.stats.gap.public_private_gap: hand-computed cases, scipy's Welch test, checks; and
the models= check it shares (analysis.stats._checks._check_models)."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from analysis.stats import (
    DroppedModelsWarning,
    LabelMismatchError,
    UnknownModelError,
    public_private_gap,
)
from analysis.stats._checks import _check_models


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
