"""Labelled inputs align or refuse; every result has the one shape (short repr, to_frame).

Every public function of analysis.stats that takes pandas objects pairs them by label:
reordering (shuffling) the labels gives an identical result, different label sets raise
a LabelMismatchError naming the missing and extra labels, and plain arrays stay
positional. Every result derives from StatsResult: frozen, repr at most 10 lines,
to_frame() a DataFrame, a notebook rendering; interval levels are called
confidence_level. Warnings about dropped models stay under 1,000 characters.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest

from analysis.core.errors import AnalysisError, DroppedModelsWarning, LabelMismatchError
from analysis.stats import (
    StatsResult,
    adjust_pvalues,
    benchmark_agreement,
    compare,
    friedman_nemenyi,
    group_contrast,
    paired_bootstrap,
    pairwise_significance,
    public_private_gap,
    rank_correlation,
    rank_intervals,
)
from analysis.stats._results import MAX_REPR_LINES


def table(n_tasks=9, n_models=5, seed=0):
    rng = np.random.default_rng(seed)
    values = (
        rng.normal(size=(n_tasks, 1))
        + np.linspace(0, 1.5, n_models)
        + rng.normal(size=(n_tasks, n_models))
    )
    return pd.DataFrame(
        values,
        index=[f"task-{i:02d}" for i in range(n_tasks)],
        columns=[f"org/model-{j}" for j in range(n_models)],
    )


def shuffled(obj, seed=1):
    return obj.sample(frac=1.0, random_state=seed)


def frames_equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


# --------------------------------------------------------------------------- vectors


@pytest.mark.parametrize("n", [9, 25])  # exact and Monte-Carlo sign flips
def test_paired_series_align_by_label(n):
    X = table(n, 2)
    a, b = X.iloc[:, 0], X.iloc[:, 1]
    ref = paired_bootstrap(a, b, rng=3)
    got = paired_bootstrap(shuffled(a), shuffled(b, seed=2), rng=3)
    frames_equal(ref.to_frame(), got.to_frame())
    # the position-paired mistake the issue measured: a different answer
    wrong = paired_bootstrap(a.to_numpy(), shuffled(b, seed=2).to_numpy(), rng=3)
    assert wrong.pvalue != ref.pvalue or wrong.statistic != ref.statistic
    with pytest.raises(LabelMismatchError, match=r"`b` lacks \['task-00'\] \(1\) that `a` has"):
        paired_bootstrap(a, b.iloc[1:])
    with pytest.raises(LabelMismatchError, match=r"has \['extra'\] \(1\) that `a` lacks"):
        paired_bootstrap(a, pd.concat([b, pd.Series([0.0], index=["extra"])]))
    with pytest.raises(LabelMismatchError, match="duplicate labels"):
        paired_bootstrap(pd.concat([a, a.head(1)]), pd.concat([b, b.head(1)]))


def test_rank_correlation_series_align_by_label():
    # 39 models, y given in another order: the statistic must not change.
    rng = np.random.default_rng(5)
    names = [f"m{i}" for i in range(39)]
    x = pd.Series(rng.normal(size=39), index=names)
    y = pd.Series(x.to_numpy() + 0.5 * rng.normal(size=39), index=names)
    ref = rank_correlation(x, y, n_resamples=499, rng=1)
    got = rank_correlation(shuffled(x), shuffled(y, seed=7), n_resamples=499, rng=1)
    assert ref == got
    assert ref.statistic > 0.7
    positional = rank_correlation(x.to_numpy(), shuffled(y, seed=7).to_numpy(), rng=1)
    assert abs(positional.statistic) < 0.5  # what pairing by position did
    with pytest.raises(LabelMismatchError, match="`y` lacks"):
        rank_correlation(x, y.iloc[:-1])


def test_group_contrast_series_align_by_label():
    rng = np.random.default_rng(2)
    names = [f"m{i}" for i in range(12)]
    values = pd.Series(rng.normal(size=12) + np.r_[np.ones(5), np.zeros(7)], index=names)
    groups = pd.Series(["static"] * 5 + ["transformer"] * 7, index=names)
    ref = group_contrast(values, groups, group_a="static", group_b="transformer")
    got = group_contrast(
        shuffled(values), shuffled(groups, 4), group_a="static", group_b="transformer"
    )
    assert ref == got
    with pytest.raises(LabelMismatchError, match="`groups` lacks"):
        group_contrast(values, groups.iloc[:-1], group_a="static", group_b="transformer")


def test_benchmark_agreement_series_align_by_label():
    rng = np.random.default_rng(3)
    names = [f"m{i}" for i in range(30)]
    x = pd.Series(rng.normal(size=30), index=names)
    y = pd.Series(x.to_numpy() + rng.normal(size=30), index=names)
    kw = dict(top_k=(10,), subset_sizes=(10, None), n_subsets=100, n_resamples=99, rng=2)
    ref = benchmark_agreement(x, y, **kw)
    got = benchmark_agreement(shuffled(x), shuffled(y, 5), **kw)
    frames_equal(ref.to_frame(), got.to_frame())


def test_adjust_pvalues_keeps_labels():
    p = pd.Series([0.01, 0.04, 0.03], index=["a", "b", "c"], name="p")
    out = adjust_pvalues(p)
    assert isinstance(out, pd.Series) and list(out.index) == ["a", "b", "c"]
    assert out.to_numpy() == pytest.approx(adjust_pvalues(p.to_numpy()))


# --------------------------------------------------------------------------- tables


def clusters_of(X):
    labels = ["c1", "c1", "c1", "c2", "c2"] + [f"s{i}" for i in range(len(X) - 5)]
    return pd.Series(labels, index=X.index)


@pytest.mark.parametrize("n", [9, 25])
def test_pairwise_and_ranks_ignore_row_order(n):
    X = table(n, 5)
    clusters = clusters_of(X)
    for kw in ({}, {"clusters": clusters}):
        ref = pairwise_significance(X, n_resamples=999, rng=4, **kw)
        got = pairwise_significance(
            shuffled(X), n_resamples=999, rng=4, **{k: shuffled(v, 9) for k, v in kw.items()}
        )
        frames_equal(ref.table, got.table)
        r1 = rank_intervals(X, n_resamples=999, rng=4, **kw)
        r2 = rank_intervals(shuffled(X), n_resamples=999, rng=4, **kw)
        pd.testing.assert_frame_equal(r1.table, r2.table)
        pd.testing.assert_frame_equal(r1.pvalues, r2.pvalues)
    c1 = compare(X, n_resamples=999, rng=2)
    c2 = compare(shuffled(X), n_resamples=999, rng=2)
    pd.testing.assert_frame_equal(c1.models, c2.models)
    f1, f2 = friedman_nemenyi(X), friedman_nemenyi(shuffled(X))
    assert f1.statistic == pytest.approx(f2.statistic, rel=1e-12)


def test_clusters_must_name_the_rows():
    X = table(9, 3)
    good = clusters_of(X)
    with pytest.raises(LabelMismatchError, match=r"`clusters` lacks \['task-00'\]"):
        pairwise_significance(X, clusters=good.iloc[1:])
    with pytest.raises(LabelMismatchError, match="`clusters` has no cluster for the units"):
        rank_intervals(X, clusters=good.iloc[1:].to_dict())
    with pytest.raises(ValueError, match=r"`clusters` must hold one label per unit \(9\)"):
        pairwise_significance(X, clusters=list(good)[1:])
    with pytest.raises(ValueError, match="missing labels"):
        paired_bootstrap(X.iloc[:, 0], X.iloc[:, 1], clusters=good.where(good != "c2"))
    # a mapping is a lookup: extra keys (tasks not in this table) are ignored
    extra = {**good.to_dict(), "other-task": "c9"}
    res = pairwise_significance(X, clusters=extra, rng=0)
    assert res.n_units == 9 - 3


def test_public_private_gap_ignores_row_order():
    rng = np.random.default_rng(8)
    public, private = [f"p{i}" for i in range(7)], [f"q{i}" for i in range(6)]
    wide = pd.DataFrame(rng.uniform(size=(13, 6)), index=public + private)
    kw = {"public_tasks": public, "private_tasks": private, "n_resamples": 200, "rng": 3}
    for ref in ("mean", "median"):
        a = public_private_gap(wide, reference=ref, **kw)
        b = public_private_gap(
            shuffled(wide), reference=ref, **{**kw, "public_tasks": public[::-1]}
        )
        frames_equal(a.table, b.table)


# --------------------------------------------------------------------------- result shape


def all_results():
    X = table(13, 6)
    a, b = X.iloc[:, 0], X.iloc[:, 1]
    public, private = list(X.index[:7]), list(X.index[7:])
    return [
        paired_bootstrap(a, b, rng=0),
        pairwise_significance(X, rng=0),
        rank_intervals(X, rng=0),
        rank_correlation(a, b, rng=0),
        benchmark_agreement(
            a, b, top_k=(5,), subset_sizes=(5, None), n_subsets=20, n_resamples=99, rng=0
        ),
        group_contrast(
            X.iloc[0], pd.Series(list("aaabbb"), index=X.columns), group_a="a", group_b="b"
        ),
        public_private_gap(X, public_tasks=public, private_tasks=private, n_resamples=99, rng=0),
        compare(X, rng=0),
        friedman_nemenyi(X),
    ]


def test_every_result_has_the_one_shape():
    for res in all_results():
        assert isinstance(res, StatsResult), type(res)
        assert dataclasses.is_dataclass(res) and type(res).__dataclass_params__.frozen
        text = repr(res)
        assert len(text.splitlines()) <= MAX_REPR_LINES, text
        assert text.startswith(type(res).__name__ + "(")
        assert isinstance(res.to_frame(), pd.DataFrame) and len(res.to_frame())
        assert "<table" in res._repr_html_()
        names = {f.name for f in dataclasses.fields(res)}
        assert "interval_level" not in names
        if "confidence_interval" in names or type(res).__name__ in (
            "PairwiseResult",
            "RankIntervalsResult",
            "PublicPrivateGapResult",
        ):
            assert "confidence_level" in names, type(res)


def test_reprs_stay_short_on_big_tables_and_warnings_stay_short():
    rng = np.random.default_rng(0)
    names = [f"some-organisation/a-rather-long-model-name-number-{j:03d}-v2" for j in range(183)]
    X = pd.DataFrame(
        rng.normal(size=(41, 183)), index=[f"Task{i}" for i in range(41)], columns=names
    )
    X.iloc[::2, 30:] = np.nan  # 153 models with 21 missing tasks each
    with pytest.warns(DroppedModelsWarning) as caught:
        res = rank_intervals(X, n_resamples=99, rng=0)
    message = str(caught[0].message)
    assert len(message) < 1000, len(message)
    assert "dropped 153 model(s)" in message and "`dropped` attribute" in message
    assert len(res.dropped) == 153
    for r in (res, pairwise_significance(X.iloc[:, :30], n_resamples=99, rng=0)):
        assert len(repr(r)) < 1200 and len(repr(r).splitlines()) <= MAX_REPR_LINES


def test_label_errors_are_analysis_errors():
    assert issubclass(LabelMismatchError, AnalysisError)
    assert issubclass(LabelMismatchError, ValueError)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = pd.Series([1.0, 2, 3], index=list("abc"))
        with pytest.raises(ValueError):
            rank_correlation(x, x.rename({"a": "z"}))
