"""compare(): one report, its tables and CD diagram; Friedman + Nemenyi as a reference.

Reference values: scipy.stats.friedmanchisquare (ties included),
scikit_posthocs.posthoc_nemenyi_friedman, the studentized-range critical difference by
hand; the report's decisions equal rank_intervals' and its pairs table equals
pairwise_significance's on the same seed.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
import scikit_posthocs as sp
import scipy.stats as st

from analysis.stats import compare, friedman_nemenyi, rank_intervals
from analysis.stats.friedman import CAVEAT


def table(n=13, k=6, seed=0, spread=2.5, decimals=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 1)) + np.linspace(0, spread, k) + rng.normal(size=(n, k))
    if decimals is not None:
        X = np.round(X, decimals)
    return pd.DataFrame(
        X, index=[f"t{i:02d}" for i in range(n)], columns=[f"m{j}" for j in range(k)]
    )


# --------------------------------------------------------------------------- Friedman, Nemenyi


@pytest.mark.parametrize("decimals", [None, 0])  # 0 decimals: many ties within tasks
def test_friedman_equals_scipy_and_nemenyi_equals_scikit_posthocs(decimals):
    X = table(decimals=decimals)
    res = friedman_nemenyi(X)
    ref = st.friedmanchisquare(*X.to_numpy().T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    n, k = X.shape
    assert res.iman_davenport == pytest.approx(
        (n - 1) * ref.statistic / (n * (k - 1) - ref.statistic)
    )
    nem = sp.posthoc_nemenyi_friedman(X.to_numpy())
    np.testing.assert_allclose(res.pvalues.to_numpy(), nem.to_numpy(), atol=1e-12)
    ranks = X.rank(axis=1, ascending=False).mean()
    assert res.mean_ranks.to_numpy() == pytest.approx(ranks.to_numpy())


def test_nemenyi_critical_difference_by_hand():
    X = table(n=20, k=5)
    res = friedman_nemenyi(X, alpha=0.05)
    q = st.studentized_range.ppf(0.95, 5, np.inf)
    assert res.critical_difference == pytest.approx(q / math.sqrt(2) * math.sqrt(5 * 6 / (6 * 20)))
    # Demsar's table: q_0.05 / sqrt(2) for k = 5 is 2.728
    assert q / math.sqrt(2) == pytest.approx(2.728, abs=1e-3)
    assert res.caveat == CAVEAT and "Benavoli" in friedman_nemenyi.__doc__
    assert "REFERENCE ONLY" in repr(res)


# --------------------------------------------------------------------------- compare


def test_compare_report_is_consistent_with_its_parts():
    X = table()
    rep = compare(X, rng=1)
    ranks = rank_intervals(X, rng=1)
    pd.testing.assert_frame_equal(rep.ranks.table, ranks.table)
    m = rep.models
    assert list(m.index) == list(ranks.table.index)
    assert list(m["key"]) == list("abcdef")
    # letters = the models significantly worse, so their count is K - rank_high
    assert (m["better_than"].str.len() == len(m) - m["rank_high"]).all()
    # a pair starred in the pairs table is among the letters (step-down >= single-step)
    keys = m["key"]
    for r in rep.pairwise.table[rep.pairwise.table["significant"]].itertuples():
        win, lose = (r.model_a, r.model_b) if r.difference > 0 else (r.model_b, r.model_a)
        assert keys[lose] in m.loc[win, "better_than"]
    # wins/ties/losses
    w = rep.wins
    assert (w.to_numpy() + w.to_numpy().T + rep.ties.to_numpy() == 13 - 13 * np.eye(6)).all()
    assert (m["wins"] + m["ties"] + m["losses"] == 13 * 5).all()


def test_compare_markdown_and_latex():
    rep = compare(table(), rng=1)
    md = rep.to_markdown()
    assert md.startswith("| # | model | score | rank | rank interval | W/T/L |")
    assert "<sup>" in md and "simultaneous interval" in md and "step-down max-T" in md
    assert md.count("\n| ") >= 6 + 15
    tex = rep.to_latex(label="tab:cmp")
    assert tex.startswith("\\begin{table}") and "\\toprule" in tex and "\\label{tab:cmp}" in tex
    assert "$^{\\mathrm{" in tex
    names = table().rename(columns=lambda c: c + "_x&%")
    assert "m0\\_x\\&\\%" in compare(names, rng=1).to_latex()


def test_cd_diagram_draws_this_packages_decisions(monkeypatch):
    rep = compare(table(), rng=1)
    captured = {}

    def fake(ranks, sig_matrix, **kwargs):
        captured.update(ranks=ranks, sig=sig_matrix, kwargs=kwargs)
        return {}

    monkeypatch.setattr(sp, "critical_difference_diagram", fake)
    rep.plot_cd()
    sig = captured["sig"]
    decided = rep.ranks.pvalues.loc[sig.index, sig.columns].fillna(1.0) <= rep.alpha
    assert ((sig.to_numpy() < rep.alpha) == decided.to_numpy()).all()
    assert captured["ranks"].to_dict() == pytest.approx(rep.models["score"].to_dict())


def test_cd_diagram_really_draws():
    import matplotlib.pyplot as plt

    rep = compare(table(), rng=1)
    ax = rep.plot_cd()
    texts = [t.get_text() for t in ax.texts]
    assert all(any(name in t for t in texts) for name in rep.models.index)
    plt.close(ax.figure)


def test_compare_with_clusters_and_borda():
    X = table()
    labels = ["a", "a", "a", "b", "b"] + [f"s{i}" for i in range(8)]
    rep = compare(X, clusters=labels, aggregate="borda", rng=0)
    assert rep.n_units == 10 and rep.aggregate == "borda"
    assert "clusters" in rep.to_markdown() and "Borda" in rep.to_markdown()
    with pytest.raises(ValueError, match="at least 3 units"):
        compare(X.iloc[:2])
