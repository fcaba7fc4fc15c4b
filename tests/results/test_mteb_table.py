"""The loader's means and Borda ranks against mteb's own leaderboard table, model for model.

Every benchmark of the shared snapshot (MTEB(eng, v1), MTEB(eng, v2), MTEB(Multilingual,
v2), RTEB(beta)) under both task-list pins (``now``, ``as-of-post``). The reference is
mteb's code, not a copy of it:

* ``mteb.ResultCache(snapshot).load_results(...)`` reads the snapshot once, with mteb's
  defaults (a folder without ``model_meta.json`` is skipped, as the loader skips it), over
  the tasks of every benchmark under both pins;
* each benchmark is mteb's own (``mteb.get_benchmark``; ``RtebBenchmark`` for RTEB) with
  the pin's task list (``TaskSpec.to_mteb()``: each task restricted to the pin's splits and
  subsets);
* the table is ``BenchmarkResults.get_benchmark_result()``, mteb's public entry to it,
  which is ``Benchmark._create_summary_table(BenchmarkResults._to_results_df(tasks))``,
  what the leaderboard app calls too. The tests call those two directly, so that the long
  frame is made once per task list;
  :func:`test_the_reference_is_what_get_benchmark_result_returns` fails if that ever
  stops being what ``get_benchmark_result`` does.

mteb's table shows the models of mteb's registry only (an inner join with
``MODEL_REGISTRY`` after the ranks are made), but ranks and averages every loaded model.
The means and Borda ranks of *every* model are taken from the pieces
``_create_summary_table`` builds the table from (all private, called as it calls them):
the per-task pivot (``_build_per_task_pivot``), the mean (``_skipna_false_mean``), and the
Borda count (``_borda_rank_from_long`` on the long frame, ``n_models`` the pivot's height);
:func:`test_the_registered_models_equal_mtebs_table` checks them against the table itself.

RTEB's leaderboard table averages and ranks its public tasks only (mteb issue 3902). Its
other views, mteb's plain ``Benchmark`` over the private tasks and over all of them, are
compared with the loader's ``exclude_tasks`` views and its ``mean_public`` and
``mean_private``.

Not compared: ``Mean (TaskType)`` (the loader has no such column), and the leaderboard
app's own selection of models (it loads only registered models, folders without
``model_meta.json`` included: another set of models, so other ranks; docs/leaderboard.md).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analysis.results.leaderboard import load_leaderboard, load_leaderboards
from analysis.results.specs import BenchmarkSpec, resolve_spec
from tests.conftest import REPO

pytestmark = [pytest.mark.slow, pytest.mark.shared]

BENCHMARKS = ("MTEB(eng, v1)", "MTEB(eng, v2)", "MTEB(Multilingual, v2)", "RTEB(beta)")
PINS = ("now", "as-of-post")
RTEB = "RTEB(beta)"
#: (benchmark, pin, view): RTEB's views are "public" (its leaderboard), "private", "all".
Key = tuple[str, str, str]
CASES = [
    (b, p, v)
    for b in BENCHMARKS
    for p in PINS
    for v in (("public", "private", "all") if b == RTEB else ("all",))
]


@dataclasses.dataclass(frozen=True)
class Reference:
    """mteb's table of one view, and its mean and Borda rank of every model it loaded."""

    table: pd.DataFrame  # as mteb shows it (registered models), indexed by model
    mean: pd.Series  # Mean (Task) of every model of mteb's per-task pivot
    borda: pd.Series  # Rank (Borda) of every model of the pivot


def _reference(bench: Any, fed: Any, seen: Any) -> Reference:
    """mteb's table of ``bench`` fed the long frame ``fed``; the pieces from ``seen``.

    ``seen`` is the frame the table is built from: ``fed`` itself, or for RTEB's own
    table its public rows (``RtebBenchmark._create_summary_table`` filters them).
    """
    # the pieces of mteb's table (private), called as _create_summary_table calls them
    from mteb.benchmarks._create_table import (
        _borda_rank_from_long,
        _build_per_task_pivot,
        _skipna_false_mean,
    )

    table = bench._create_summary_table(fed).df.to_pandas().set_index("Model")
    pivot, task_cols = _build_per_task_pivot(seen)
    models = pivot["model_name"].to_list()
    assert len(set(models)) == len(models), "mteb's pivot holds experiment variants"
    mean = pivot.select("model_name", _skipna_false_mean(task_cols).alias("mean")).to_pandas()
    borda = _borda_rank_from_long(seen, n_models=pivot.height).to_pandas()
    return Reference(
        table=table,
        mean=mean.set_index("model_name")["mean"],
        borda=borda.set_index("model_name")["Rank (Borda)"].loc[models],
    )


def _references(results: Any, spec: BenchmarkSpec) -> dict[str, Reference]:
    """mteb's references of every view of one benchmark under one pin."""
    import mteb
    import polars as pl

    bench = dataclasses.replace(
        mteb.get_benchmark(spec.name), tasks=[t.to_mteb() for t in spec.tasks]
    )
    long = results._to_results_df(bench.tasks)  # what get_benchmark_result() feeds the table
    if spec.name != RTEB:
        return {"all": _reference(bench, long, long)}
    plain = mteb.Benchmark(name=f"{spec.name} (every task)", tasks=bench.tasks)
    public, private = long.filter(pl.col("is_public")), long.filter(~pl.col("is_public"))
    return {
        "public": _reference(bench, long, public),  # the leaderboard's own table
        "private": _reference(plain, private, private),
        "all": _reference(plain, long, long),
    }


@pytest.fixture(scope="module")
def mteb_results(shared_results: Path) -> Any:
    """The snapshot as mteb's ``load_results`` reads it: every task of every benchmark and pin."""
    import mteb

    names = sorted({t for b in BENCHMARKS for p in PINS for t in resolve_spec(b, pin=p).task_names})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mteb.ResultCache(shared_results).load_results(tasks=names, only_main_score=True)


@pytest.fixture(scope="module")
def mteb_tables(mteb_results: Any) -> dict[Key, Reference]:
    """mteb's reference per (benchmark, pin, view); a task list both pins share is made once."""
    made: dict[str, dict[str, Reference]] = {}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in BENCHMARKS:
            for pin in PINS:
                spec = resolve_spec(name, pin=pin)
                key = repr(spec.key()["tasks"])
                if key not in made:
                    made[key] = _references(mteb_results, spec)
                for view, ref in made[key].items():
                    out[(name, pin, view)] = ref
    return out


@pytest.fixture(scope="module")
def ours(shared_results: Path) -> dict[Key, pd.DataFrame]:
    """The loader's summary per (benchmark, pin, view): RTEB's views by ``exclude_tasks``."""
    kw: dict[str, Any] = dict(results=shared_results)  # the parse cache: as users load
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for pin in PINS:
            boards = load_leaderboards(list(BENCHMARKS), pin=pin, **kw)
            for name, board in boards.items():
                out[(name, pin, "all")] = board.summary
            spec = boards[RTEB].spec
            for view, left_out in (("public", "private"), ("private", "public")):
                board = load_leaderboard(
                    RTEB, pin=pin, exclude_tasks=spec.scope_tasks(left_out), **kw
                )
                out[(RTEB, pin, view)] = board.summary
    return out


def _differ(ours: pd.Series, theirs: pd.Series) -> list[str]:
    """Models whose values differ (NaN equals NaN; means to 1e-12)."""
    ours, theirs = ours.astype(float), theirs.astype(float).loc[ours.index]
    same = (ours.isna() & theirs.isna()) | np.isclose(ours, theirs, rtol=0, atol=1e-12)
    return sorted(ours.index[~same])


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(c))
def test_every_models_mean_and_borda_rank_equal_mtebs(case: Key, mteb_tables, ours):
    """Each model mteb ranks, ranked and averaged alike; the others have no rank."""
    ref, summary = mteb_tables[case], ours[case]
    ranked = summary.index[summary["borda_rank"].notna()]
    assert sorted(ranked) == sorted(ref.borda.index), "not the models mteb ranks"
    assert len(ranked) > 50
    means = _differ(summary.loc[ref.mean.index, "mean_task"], ref.mean)
    assert not means, f"{len(means)} models' Mean (Task) differ from mteb's: {means[:10]}"
    ranks = _differ(summary.loc[ref.borda.index, "borda_rank"], ref.borda)
    assert not ranks, f"{len(ranks)} models' Borda rank differ from mteb's: {ranks[:10]}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(c))
def test_the_registered_models_equal_mtebs_table(case: Key, mteb_tables, ours):
    """The table as mteb shows it: every row's Mean (Task) and Rank (Borda)."""
    ref, summary = mteb_tables[case], ours[case]
    table = ref.table
    assert set(table.index) <= set(summary.index)
    assert _differ(summary.loc[table.index, "mean_task"], table["Mean (Task)"]) == []
    assert _differ(summary.loc[table.index, "borda_rank"], table["Rank (Borda)"]) == []
    # the pieces the other test uses are the table's, row for row
    assert _differ(ref.mean.loc[table.index], table["Mean (Task)"]) == []
    assert _differ(ref.borda.loc[table.index], table["Rank (Borda)"]) == []


@pytest.mark.parametrize("pin", PINS)
def test_rteb_public_and_private_means_of_the_whole_board(pin: str, mteb_tables, ours):
    """``mean_public`` and ``mean_private`` of the full load are mteb's tables of each side."""
    summary = ours[(RTEB, pin, "all")]
    for view, column in (("public", "mean_public"), ("private", "mean_private")):
        ref = mteb_tables[(RTEB, pin, view)].mean
        assert _differ(summary.loc[ref.index, column], ref) == [], (view, column)


def test_ties_and_incomplete_models_are_in_the_comparison(mteb_tables, ours):
    """The comparison covers tied ranks, NaN means and models mteb ranks but does not average."""
    tied = sum(int(ref.borda.duplicated().sum()) for ref in mteb_tables.values())
    assert tied > 0, "no tied Borda rank anywhere: the tie rule is not exercised"
    incomplete = sum(int(ref.mean.isna().sum()) for ref in mteb_tables.values())
    assert incomplete > 0
    unranked = sum(int(s["borda_rank"].isna().sum()) for s in ours.values())
    assert unranked > 0, "no loaded model without a complete task: that rule is not exercised"
    # FloresBitextMining is missing for 179 models: none is complete, as in mteb's table
    multilingual = mteb_tables[("MTEB(Multilingual, v2)", "now", "all")]
    assert multilingual.mean.isna().all()


def test_the_loader_pages_counts_are_the_loaders(ours, shared_results: Path):
    """docs/leaderboard.md's counts of complete models, read from the page."""
    page = " ".join((REPO / "docs" / "leaderboard.md").read_text(encoding="utf-8").split())
    found = re.search(
        r"RTEB\(beta\) has (\d+) of (\d+) complete under `pin=\"now\"` .*? and (\d+) under "
        r"`pin=\"as-of-post\"`; MTEB\(Multilingual, v2\) has none under either pin, because "
        r"no model has a complete FloresBitextMining score: the snapshot lacks (\d+) "
        r"FloresBitextMining files \(its `README.md`\), and none of the (\d+) it has",
        page,
    )
    assert found, "docs/leaderboard.md no longer states the counts this test checks"
    now, of, post, absent, present = map(int, found.groups())
    rteb_now, rteb_post = ours[(RTEB, "now", "all")], ours[(RTEB, "as-of-post", "all")]
    assert (int(rteb_now["complete"].sum()), len(rteb_now)) == (now, of)
    assert int(rteb_post["complete"].sum()) == post
    for pin in PINS:
        multilingual = ours[("MTEB(Multilingual, v2)", pin, "all")]
        lacking = (
            multilingual["missing_tasks"]
            .str.split(";")
            .map(lambda tasks: "FloresBitextMining" in tasks)
        )
        assert lacking.all() and not multilingual["complete"].any()
    files = list((shared_results / "remote" / "results").glob("*/*/FloresBitextMining.json"))
    assert len(files) == present
    readme = " ".join((shared_results / "README.md").read_text(encoding="utf-8").split())
    assert f"{absent} very large `FloresBitextMining.json` files" in readme


def test_the_reference_is_what_get_benchmark_result_returns(mteb_results):
    """mteb's public entry to its table equals the two private calls the reference makes."""
    import mteb

    spec = resolve_spec(RTEB, pin="as-of-post")
    bench = dataclasses.replace(mteb.get_benchmark(RTEB), tasks=[t.to_mteb() for t in spec.tasks])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        public = mteb_results.model_copy(update={"benchmark": bench}).get_benchmark_result()
        ours = bench._create_summary_table(mteb_results._to_results_df(bench.tasks))
    pd.testing.assert_frame_equal(public, ours.df.to_pandas())
