"""The leaderboard loader on hand-made results folders and on the shared snapshot."""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.core.errors import (
    IncompleteBenchmarkWarning,
    ResultFileWarning,
    ResultsConflictError,
    ResultsConflictWarning,
    ResultsNotFoundError,
)
from analysis.core.paths import RESULTS_ENV, display_path
from analysis.results.leaderboard import load_leaderboard, load_leaderboards
from analysis.results.specs import resolve_spec
from tests.conftest import write_result

PUB = ["STSBenchmark", "SciFact", "AILAStatutes"]
PRIV = ["EnglishFinance1Retrieval", "EnglishFinance2Retrieval"]
TASKS = PUB + PRIV


def _listing(root: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
    )


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    """Three models: A complete, B misses SciFact, C has a corrupt file and a truncated one."""
    root = tmp_path / "cache"
    a = dict(zip(TASKS, [0.80, 0.60, 0.20, 0.40, 0.50], strict=True))
    b = dict(zip(TASKS, [0.70, 0.00, 0.30, 0.45, 0.55], strict=True))
    c = dict(zip(TASKS, [0.90, 0.10, 0.10, 0.10, 0.10], strict=True))
    for task, score in a.items():
        write_result(root, "org/A", "r1", task, score)
    for task, score in b.items():
        if task != "SciFact":
            write_result(root, "org/B", "r1", task, score)
    for task, score in c.items():
        write_result(root, "org/C", "r1", task, score)
    (root / "remote/results/org__C/r1/AILAStatutes.json").write_text("{not json")
    path = root / "remote/results/org__C/r1/SciFact.json"
    path.write_text(path.read_text()[:40])  # truncated mid-file
    return root


def load(root: Path, tmp_path: Path, **kw):
    kw.setdefault("cache_dir", tmp_path / "lbcache")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lb = load_leaderboard(tasks=TASKS, results=root, workers=1, **kw)
    return lb, [w for w in caught if issubclass(w.category, ResultFileWarning)]


def test_long_table_and_hand_computed_means(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path)
    assert list(lb.scores.columns) == [
        "model",
        "revision",
        "task",
        "task_type",
        "is_public",
        "main_score",
        "source",
    ]
    assert set(lb.scores["source"]) == {lb.provenance["results"]}
    a = lb.summary.loc["org/A"]
    assert a["complete"] and a["n_tasks"] == 5
    assert a["mean_task"] == pytest.approx((0.8 + 0.6 + 0.2 + 0.4 + 0.5) / 5)
    assert a["mean_public"] == pytest.approx((0.8 + 0.6 + 0.2) / 3)
    assert a["mean_private"] == pytest.approx(0.45)
    row = lb.scores.query("model == 'org/A' and task == 'STSBenchmark'").iloc[0]
    assert row["task_type"] == "STS" and row["is_public"] and row["revision"] == "r1"
    assert not lb.scores.query("task == 'EnglishFinance1Retrieval'")["is_public"].any()


def test_means_sum_in_the_benchmarks_task_order_not_a_sets():
    """A set's order moves with Python's hash seed, and with it the sum's last bit (a rounded
    digit of the table): the means add the scores in the benchmark's task order."""
    from analysis.results.parsing import MISSING_COLUMNS
    from analysis.results.specs import BenchmarkSpec, TaskSpec
    from analysis.results.summary import summarize

    values = {"A": 1e16, "B": 1.0, "C": -1e16}  # (A + B) + C = 0, (A + C) + B = 1
    scores = pd.DataFrame(
        {"model": "m", "revision": "r", "task": list(values), "main_score": list(values.values())}
    )
    missing = pd.DataFrame(columns=MISSING_COLUMNS)
    for order in (["A", "B", "C"], ["A", "C", "B"]):
        tasks = tuple(TaskSpec(t, "Retrieval", True, ("test",), ("default",)) for t in order)
        row = summarize(scores, missing, BenchmarkSpec("toy", tasks, "by hand")).iloc[0]
        in_order = sum(values[t] for t in order) / 3  # left to right, as np.mean adds 3 values
        assert row["mean_task"] == row["mean_public"] == in_order, order


def test_incomplete_model_is_flagged_and_never_averaged(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path)
    b = lb.summary.loc["org/B"]
    assert not b["complete"] and not b["complete_public"] and b["complete_private"]
    assert math.isnan(b["mean_task"]) and math.isnan(b["mean_public"])
    assert b["mean_private"] == pytest.approx(0.5)
    assert b["missing_tasks"] == "SciFact"
    reason = lb.missing.query("model == 'org/B' and task == 'SciFact'")["reason"].item()
    assert reason == "no result file"
    assert "org/B" not in lb.wide().columns  # complete_only by default


def test_partial_means_only_by_name(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path, allow_partial_means=True)
    b = lb.summary.loc["org/B"]
    assert b["mean_public"] == pytest.approx((0.7 + 0.3) / 2)
    assert not b["complete"] and b["partial_means"]


def test_corrupt_and_truncated_files_are_skipped_with_a_warning(tiny, tmp_path):
    lb, caught = load(tiny, tmp_path)
    messages = " ".join(str(w.message) for w in caught)
    assert "org__C/r1/AILAStatutes.json" in messages
    assert "org__C/r1/SciFact.json" in messages
    c = lb.summary.loc["org/C"]
    assert c["n_tasks"] == 3 and not c["complete"]
    assert lb.summary.loc["org/A", "complete"]  # the rest loads
    # the warning is repeated when the result comes from the cache
    _, again = load(tiny, tmp_path)
    assert len(again) == 2


def test_borda_rank_hand_computed(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path)
    # per task, n_models(3) - rank; missing tasks earn 0.
    # STS: C .9 (1) A .8 (2) B .7 (3) -> A1 B0 C2 | SciFact: A .6 only -> A2
    # AILA: B .3 (1) A .2 (2) -> A1 B2 | Fin1: B .45 A .40 C .10 -> A1 B2 C0
    # Fin2: B .55 A .5 C .1 -> A1 B2 C0 | A=6 B=6 C=2 -> A,B rank 1 (min), C rank 3
    ranks = lb.summary["borda_rank"].to_dict()
    assert ranks == {"org/A": 1, "org/B": 1, "org/C": 3}


def test_missing_subset_makes_task_incomplete(tmp_path):
    root = tmp_path / "cache"
    spec = resolve_spec(tasks=["STS17"])
    subsets = spec.tasks[0].hf_subsets
    write_result(root, "org/full", "r", "STS17", {"test": [(s, 0.5) for s in subsets]})
    write_result(root, "org/part", "r", "STS17", {"test": [(s, 0.5) for s in subsets[:-1]]})
    lb = load_leaderboard(tasks=["STS17"], results=root, cache_dir=tmp_path / "c", workers=1)
    assert lb.summary.loc["org/full", "complete"]
    assert not lb.summary.loc["org/part", "complete"]
    reason = lb.missing.query("model == 'org/part'")["reason"].item()
    assert f"test/{subsets[-1]}" in reason


def test_loader_never_writes_into_results(tiny, tmp_path):
    before = _listing(tiny)
    modes = {}
    for p in [tiny, *tiny.rglob("*")]:
        if p.is_dir():
            modes[p] = p.stat().st_mode
            p.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        load(tiny, tmp_path)
        load(tiny, tmp_path, use_cache=False)
    finally:
        for p, mode in modes.items():
            p.chmod(mode)
    assert _listing(tiny) == before


def test_cache_hit_and_invalidation(tiny, tmp_path):
    first, _ = load(tiny, tmp_path)
    assert first.provenance["cache"] == "miss"
    second, _ = load(tiny, tmp_path)
    assert second.provenance["cache"] == "hit"
    pd.testing.assert_frame_equal(first.scores, second.scores)
    pd.testing.assert_frame_equal(first.summary, second.summary)
    # new result file -> different fingerprint -> reload
    write_result(tiny, "org/B", "r1", "SciFact", 0.05)
    third, _ = load(tiny, tmp_path)
    assert third.provenance["cache"] == "miss"
    assert third.summary.loc["org/B", "complete"]
    # a different task list is a different entry
    other, _ = load(tiny, tmp_path, exclude_tasks=["SciFact"])
    assert other.provenance["cache"] == "miss" and len(other.spec.tasks) == 4


def test_damaged_cache_entry_is_rebuilt(tiny, tmp_path):
    load(tiny, tmp_path)
    for f in (tmp_path / "lbcache").glob("*-scores.parquet"):
        f.write_bytes(b"garbage")
    lb, _ = load(tiny, tmp_path)
    assert lb.provenance["cache"] == "miss"
    assert lb.summary.loc["org/A", "complete"]


def test_unknown_names_list_closest(tiny, tmp_path):
    with pytest.raises(ValueError, match=r"RTEB\(beta\)"):
        load_leaderboard("RTEB(bta)", results=tiny, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="SciFact"):
        load_leaderboard(tasks=["SciFactt"], results=tiny, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="org/A"):
        load_leaderboard(tasks=TASKS, results=tiny, models=["org/AA"], cache_dir=tmp_path)
    with pytest.raises(ValueError, match="as-of-post"):
        load_leaderboard("RTEB(beta)", results=tiny, pin="as-of-pst", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="exclude_tasks"):
        load_leaderboard(tasks=TASKS, results=tiny, exclude_tasks=["Nope"], cache_dir=tmp_path)


def test_missing_or_empty_results_folder_says_how_to_get_results(tmp_path):
    for folder in [tmp_path / "absent", tmp_path]:
        with pytest.raises(ResultsNotFoundError) as err:
            load_leaderboard(tasks=TASKS, results=folder, cache_dir=tmp_path / "c")
        assert "Offline" in str(err.value) and "download" in str(err.value)
    assert not (tmp_path / "absent").exists()  # nothing created


def test_model_filter_and_wide(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path, models=["org/A"])
    assert list(lb.summary.index) == ["org/A"]
    wide = lb.wide(is_public=False)
    assert list(wide.index) == PRIV and list(wide.columns) == ["org/A"]


# ----------------------------------------------------------------- the shared snapshot


@pytest.fixture(scope="module")
def blog_models(shared_dir) -> list[str]:
    """The post's four models, read from the post."""
    from analysis.results.blog import post_models

    return sorted(
        post_models(shared_dir / "reference" / "blog-evaluating-static-models-on-rteb.md")
    )


def test_borda_rank_and_means_equal_mtebs_table_on_partial_tasks_and_ties(tmp_path):
    """mteb's own table (``get_benchmark_result``) on a hand-made folder: the rules the
    snapshot exercises, each on purpose (the whole snapshot: tests/results/test_mteb_table.py).

    A task with a subset missing is ranked by the mean of the others (8M's STS17); a model
    with no complete task is in each task's ranking and the final one, but not ranked
    itself (2M); ``n_models`` counts the ranked models only; tied scores share the average
    rank, tied points the best rank.
    """
    import mteb

    from analysis.results.columns import leaderboard_columns

    tasks = ["STS17", "STSBenchmark", "SciFact"]
    subsets = resolve_spec(tasks=["STS17"]).tasks[0].hf_subsets
    root = tmp_path / "cache"
    runs = {  # points (4 ranked models): MiniLM 1.5 + 3 + 1, 8M 1.5 + 1 + 3, 4M 0 + 2, bge 2
        "sentence-transformers/all-MiniLM-L6-v2": {
            "STS17": 0.5,
            "STSBenchmark": 0.8,
            "SciFact": 0.6,
        },
        "minishlab/potion-base-8M": {"STS17": 0.5, "STSBenchmark": 0.6, "SciFact": 0.8},
        "minishlab/potion-base-4M": {"STSBenchmark": 0.7, "STS17": 0.4},
        "minishlab/potion-base-2M": {"STS17": 0.95},
        "BAAI/bge-small-en-v1.5": {"SciFact": 0.7},
    }
    partial = {"minishlab/potion-base-8M", "minishlab/potion-base-2M"}
    for model, scores in runs.items():
        for task, score in scores.items():
            if task == "STS17":
                kept = subsets[:-1] if model in partial else subsets
                write_result(root, model, "r1", task, {"test": [(s, score) for s in kept]})
            else:
                write_result(root, model, "r1", task, score)
    lb = load_leaderboard(tasks=tasks, results=root, cache_dir=tmp_path / "c", workers=1)
    bench = mteb.Benchmark(name="toy", tasks=[mteb.get_task(t) for t in tasks])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = (
            mteb.ResultCache(root)
            .load_results(tasks=bench)
            .get_benchmark_result()
            .set_index("Model")
        )
    ranked = lb.summary["borda_rank"].dropna()
    assert (
        sorted(ranked.index)
        == sorted(table.index)
        == sorted(set(runs) - {"minishlab/potion-base-2M"})
    )
    assert ranked.to_dict() == table["Rank (Borda)"].to_dict()
    columns = leaderboard_columns(lb)["Rank (Borda)"]  # the leaderboard command's column
    assert columns.dropna().to_dict() == table["Rank (Borda)"].to_dict()
    assert sorted(ranked) == [1, 1, 4, 4]  # 2M ranks 3rd, unranked itself
    assert pd.isna(lb.summary.loc["minishlab/potion-base-2M", "borda_rank"])
    ours = lb.summary.loc[table.index, "mean_task"]
    np.testing.assert_allclose(
        ours.to_numpy(float), table["Mean (Task)"].to_numpy(float), atol=1e-12
    )
    missing = lb.missing.set_index(["model", "task"])["partial_score"]
    assert missing[("minishlab/potion-base-8M", "STS17")] == pytest.approx(0.5)
    assert np.isnan(missing[("minishlab/potion-base-4M", "SciFact")])  # no file: no score


@pytest.mark.shared
def test_parallel_equals_serial(shared_results, blog_models, tmp_path):
    kw = dict(results=shared_results, models=blog_models, use_cache=False)
    serial = load_leaderboards(["RTEB(beta)"], workers=1, **kw)["RTEB(beta)"]
    parallel = load_leaderboards(["RTEB(beta)"], workers=2, **kw)["RTEB(beta)"]
    pd.testing.assert_frame_equal(serial.scores, parallel.scores)
    pd.testing.assert_frame_equal(serial.summary, parallel.summary)


@pytest.mark.shared
def test_as_of_post_pin_changes_rteb_task_list(shared_results, tmp_path):
    now = resolve_spec("RTEB(beta)")
    post = resolve_spec("RTEB(beta)", pin="as-of-post")
    assert set(now.task_names) - set(post.task_names) == {"SWEbenchCodeRetrieval"}
    assert "mteb 1.39.2" in post.source
    assert sum(not t.is_public for t in post.tasks) == 13


def test_shared_results_untouched_by_a_load(shared_results, tmp_path):
    before = os.stat(shared_results / "remote" / "results").st_mtime_ns
    load_leaderboard(tasks=["SciFact"], results=shared_results, cache_dir=tmp_path)
    assert os.stat(shared_results / "remote" / "results").st_mtime_ns == before


# ----------------------------------------------------------------- reasons and ranks


def test_unreadable_file_is_named_in_missing(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path)
    reasons = lb.missing.query("model == 'org/C'").set_index("task")["reason"]
    assert reasons["AILAStatutes"].startswith("unreadable: JSONDecodeError")
    assert reasons["SciFact"].startswith("unreadable: ")
    assert lb.missing.query("model == 'org/B' and task == 'SciFact'")["reason"].item() == (
        "no result file"
    )
    cached, _ = load(tiny, tmp_path)  # the same from the cache
    pd.testing.assert_frame_equal(cached.missing, lb.missing)


def test_unreadable_model_meta_names_every_task_of_the_folder(tiny, tmp_path):
    (tiny / "remote/results/org__B/r1/model_meta.json").write_text("{broken")
    lb, caught = load(tiny, tmp_path)
    rows = lb.missing.query("model == 'org/B'")
    assert len(rows) == len(TASKS)
    assert all(
        r.startswith("unreadable: model_meta.json: ")
        for r in rows["reason"]
        if r != "no result file"
    )
    assert sum("org__B/r1/model_meta.json" in str(w.message) for w in caught) == 1


def test_rank_among_complete_models_beside_mtebs_borda_rank(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path)
    # only A is complete: it ranks 1 among complete models; B ties A on mteb's rank
    ranks = lb.summary["rank_complete"]
    assert str(ranks.dtype) == "Int64"
    assert ranks["org/A"] == 1 and ranks[["org/B", "org/C"]].isna().all()
    assert lb.summary.loc["org/B", "borda_rank"] == 1
    write_result(tiny, "org/B", "r1", "SciFact", 0.9)  # B complete and better on SciFact
    lb, _ = load(tiny, tmp_path)
    # among A and B: per task 2 - rank; A wins STS(.8>.7) and loses SciFact, AILA, Fin1, Fin2
    ranks = lb.summary["rank_complete"]
    assert ranks["org/A"] == 2 and ranks["org/B"] == 1 and pd.isna(ranks["org/C"])


def test_wide_restricted_to_tasks(tiny, tmp_path):
    lb, _ = load(tiny, tmp_path)
    assert "org/B" not in lb.wide().columns
    sub = lb.wide(tasks=["STSBenchmark", "AILAStatutes"])
    assert list(sub.index) == ["STSBenchmark", "AILAStatutes"]
    assert list(sub.columns) == ["org/A", "org/B"]  # C's AILAStatutes is unreadable
    assert sub.loc["AILAStatutes", "org/B"] == pytest.approx(0.3)
    assert list(lb.wide(tasks=["STSBenchmark", "SciFact"], is_public=True).columns) == ["org/A"]
    with pytest.raises(ValueError, match="STSBenchmark"):
        lb.wide(tasks=["STSBenchmarkk"])


# ----------------------------------------------------------------- several folders


def shown(folder: Path) -> str:
    """A folder as messages and the ``source`` column show it (relative beside the repo)."""
    return display_path(folder)


@pytest.mark.usefixtures("_results_env")
def test_several_folders_merge_with_their_source(tiny, tmp_path):
    own = tmp_path / "own"
    lb, _ = load([tiny, own], tmp_path)
    single, _ = load(tiny, tmp_path)
    rows = lb.scores.query("model == 'org/D'")
    assert set(rows["task"]) == {"STSBenchmark", "AILAStatutes"}
    assert set(rows["source"]) == {shown(own)} and set(single.scores["source"]) == {shown(tiny)}
    others = lb.scores[lb.scores["model"] != "org/D"].reset_index(drop=True)
    pd.testing.assert_frame_equal(others, single.scores)
    no_file = lb.missing.query("model == 'org/D' and task == 'SciFact'")
    assert no_file["reason"].item() == "no result file" and no_file["source"].isna().all()
    assert lb.provenance["results"] == f"{shown(tiny)} + {shown(own)}"
    wide = lb.wide(tasks=["STSBenchmark", "AILAStatutes"])
    assert list(wide.columns) == ["org/A", "org/B", "org/D"]
    by_env = load_leaderboard(tasks=TASKS, cache_dir=tmp_path / "lbcache", workers=1)
    pd.testing.assert_frame_equal(by_env.scores, lb.scores)


@pytest.fixture()
def _results_env(monkeypatch, tiny, tmp_path):
    own = tmp_path / "own"
    write_result(own, "org/D", "r9", "STSBenchmark", 0.95)
    write_result(own, "org/D", "r9", "AILAStatutes", 0.05)
    monkeypatch.setenv(RESULTS_ENV, f"{tiny}{os.pathsep}{own}")


def test_identical_results_in_two_folders_merge(tiny, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny / "remote/results/org__A", copy / "results/org__A")
    path = copy / "results/org__A/r1/STSBenchmark.json"
    data = json.loads(path.read_text())
    data["evaluation_time"] = 99.0  # other bytes, same main scores
    path.write_text(json.dumps(data))
    lb, _ = load([tiny, copy], tmp_path)
    single, _ = load(tiny, tmp_path)
    pd.testing.assert_frame_equal(lb.summary, single.summary)
    assert set(lb.scores.query("model == 'org/A'")["source"]) == {shown(tiny)}  # the first


def test_different_results_in_two_folders_are_an_error_naming_both(tiny, tmp_path):
    other = tmp_path / "other"
    write_result(other, "org/A", "r1", "STSBenchmark", 0.81)
    write_result(other, "org/A", "r1", "EnglishFinance1Retrieval", 0.1)
    with pytest.raises(ResultsConflictError) as err:
        load([tiny, other], tmp_path)
    message = str(err.value)
    assert "pass on_conflict='first'" in message  # the remedy, as Python spells it
    for name in ("STSBenchmark", "EnglishFinance1Retrieval"):
        assert f"{shown(tiny)}/remote/results/org__A/r1/{name}.json" in message
        assert f"{shown(other)}/remote/results/org__A/r1/{name}.json" in message
    # opted in by name: the first folder's result is kept, with a short warning naming it
    with pytest.warns(ResultsConflictWarning, match="STSBenchmark") as caught:
        merged = load_leaderboard(
            tasks=TASKS,
            results=[tiny, other],
            workers=1,
            cache_dir=tmp_path / "c2",
            on_conflict="first",
        )
    assert all(len(str(w.message)) < 1000 for w in caught)
    kept = f"kept {shown(tiny)}/remote/results/org__A/r1/STSBenchmark.json, not {shown(other)}/"
    assert kept in str(caught[0].message)  # which result was kept
    with pytest.warns(ResultsConflictWarning) as again:  # from the cache: the same note
        load_leaderboard(
            tasks=TASKS, results=[tiny, other], workers=1, cache_dir=tmp_path / "c2",
            on_conflict="first",
        )  # fmt: skip
    assert [str(w.message) for w in again] == [str(w.message) for w in caught]
    single, _ = load(tiny, tmp_path)
    kept = merged.scores.query("model == 'org/A'").drop(columns="source").reset_index(drop=True)
    pd.testing.assert_frame_equal(
        kept, single.scores.query("model == 'org/A'").drop(columns="source").reset_index(drop=True)
    )
    with pytest.raises(ResultsConflictError):  # the "first" cache entry never serves "error"
        load_leaderboard(tasks=TASKS, results=[tiny, other], workers=1, cache_dir=tmp_path / "c2")


# ----------------------------------------------------------------- completeness warning


def _write_benchmark(root: Path, spec, model: str, skip: set[str] = frozenset()) -> None:
    for task in spec.tasks:
        if task.task in skip:
            continue
        scores = {split: [(s, 0.5) for s in task.hf_subsets] for split in task.eval_splits}
        write_result(root, model, "r1", task.task, scores)


def test_few_complete_models_warn_and_name_the_better_pin(tmp_path):
    post = resolve_spec("RTEB(beta)", pin="as-of-post")
    now = resolve_spec("RTEB(beta)")
    new_tasks = set(now.task_names) - set(post.task_names)
    root = tmp_path / "cache"
    for i in range(4):
        _write_benchmark(root, post, f"org/m{i}")
    kw = dict(results=root, cache_dir=tmp_path / "c", workers=1)
    with pytest.warns(IncompleteBenchmarkWarning) as caught:
        lb = load_leaderboard("RTEB(beta)", **kw)
    assert not lb.summary["complete"].any()
    message = str(caught[0].message)
    assert "0 of 4" in message and "pin='as-of-post', 4 are" in message
    _write_benchmark(root, now, "org/m0", skip=set(post.task_names) - new_tasks)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IncompleteBenchmarkWarning)
        load_leaderboard("RTEB(beta)", pin="as-of-post", **kw)  # all complete: quiet
        load_leaderboard(tasks=list(new_tasks), **kw)  # a task list: no pin to name


@pytest.mark.shared
def test_rteb_now_warns_naming_the_post_pin(shared_results, tmp_path):
    from analysis.stats import rank_intervals

    with pytest.warns(IncompleteBenchmarkWarning, match=r"pin='as-of-post', \d+ are"):
        lb = load_leaderboard("RTEB(beta)", results=shared_results)
    assert lb.summary["complete"].mean() < 0.25
    ranks = lb.summary["rank_complete"]
    assert ranks.notna().tolist() == lb.summary["complete"].tolist()
    # the stats room's own Borda count over the complete models' tasks x models table
    borda = rank_intervals(lb.wide(), aggregate="borda", n_resamples=99, rng=0).table["rank"]
    assert ranks.dropna().astype(int).to_dict() == borda.astype(int).to_dict()


def test_the_better_pin_is_named_as_the_caller_types_it(tmp_path, capsys, monkeypatch):
    from analysis.cli import main
    from analysis.core.errors import spoken_as
    from analysis.results.summary import completeness_message

    args = ("RTEB(beta)", "now", 0, 4, {"as-of-post": 4})
    assert "(pin='now')" in completeness_message(*args)
    with spoken_as("cli"):
        cli = completeness_message(*args)
    assert cli is not None and "(--pin now)" in cli and "under --pin as-of-post, 4 are" in cli
    assert "pin=" not in cli
    # through the command line: estimate's note on RTEB(beta)
    post = resolve_spec("RTEB(beta)", pin="as-of-post")
    root = tmp_path / "cache"
    for i in range(4):
        _write_benchmark(root, post, f"org/m{i}")
    argv = ["estimate", "--results", str(root), "-m", "org/m0", "-b", "RTEB(beta)"]
    argv += ["--cache-dir", str(tmp_path / "c")]
    main(argv)
    shown = capsys.readouterr()
    assert "under --pin as-of-post, 4 are" in shown.out + shown.err
    assert "pin='as-of-post'" not in shown.out + shown.err


def test_the_other_pins_count_keeps_the_first_folder_too(tmp_path):
    """``on_conflict="first"`` holds for the extra load that counts complete models per pin."""
    post = resolve_spec("RTEB(beta)", pin="as-of-post")
    now = resolve_spec("RTEB(beta)")
    new_tasks = sorted(set(now.task_names) - set(post.task_names))
    root, other = tmp_path / "cache", tmp_path / "other"
    for i in range(4):  # incomplete under both pins: the warning counts the "now" pin too
        _write_benchmark(root, now, f"org/m{i}", skip={post.task_names[0]})
    write_result(other, "org/m0", "r1", new_tasks[0], 0.123)  # a rerun that differs
    kw = dict(results=[root, other], cache_dir=tmp_path / "c", workers=1)
    with pytest.warns(IncompleteBenchmarkWarning, match="0 of 4"):
        lb = load_leaderboard("RTEB(beta)", pin="as-of-post", on_conflict="first", **kw)
    assert not lb.summary["complete"].any()


def test_a_benchmark_no_model_completes_names_the_blocking_task(tmp_path, monkeypatch):
    """Issue 31: the warning names the task no model has, and how to leave it out."""
    from analysis.core.errors import spoken_as
    from analysis.results.summary import blocking_message, blocking_tasks

    spec = resolve_spec("RTEB(beta)", pin="as-of-post")
    absent = spec.task_names[0]
    root = tmp_path / "cache"
    for i in range(4):
        _write_benchmark(root, spec, f"org/m{i}", skip={absent})
    kw = dict(results=root, cache_dir=tmp_path / "c", workers=1, pin="as-of-post")
    with pytest.warns(IncompleteBenchmarkWarning) as caught:
        lb = load_leaderboard("RTEB(beta)", **kw)
    message = str(caught[0].message)
    assert f"No model has {absent}" in message and f"exclude_tasks=['{absent}']" in message
    assert blocking_tasks(lb.scores, lb.spec) == ([absent], [])
    with spoken_as("cli"):
        assert f"--exclude-tasks {absent}" in blocking_message([absent], [])
    with warnings.catch_warnings():
        warnings.simplefilter("error", IncompleteBenchmarkWarning)
        fixed = load_leaderboard("RTEB(beta)", exclude_tasks=[absent], **kw)
    assert fixed.summary["complete"].all()
    # no task absent: the ones most incomplete models lack are named instead
    _write_benchmark(root, spec, "org/m9", skip=set())
    with pytest.warns(IncompleteBenchmarkWarning, match=f"Most incomplete models lack {absent}"):
        load_leaderboard("RTEB(beta)", **{**kw, "cache_dir": tmp_path / "c2"})


def test_a_benchmark_without_any_result_loads_empty(tmp_path):
    """A benchmark none of whose tasks has a result loads with an empty summary (it crashed)."""
    spec = resolve_spec("RTEB(beta)", pin="as-of-post")
    root = tmp_path / "cache"
    write_result(root, "org/m0", "r1", "STSBenchmark", 0.5)  # not an RTEB task
    lb = load_leaderboard("RTEB(beta)", results=root, cache_dir=tmp_path / "c", workers=1,
                          pin="as-of-post")  # fmt: skip
    assert lb.summary.empty and lb.wide().empty and len(spec.task_names)


def test_load_leaderboards_refuses_two_boards_of_one_name(tmp_path):
    """Two custom task lists are both named "custom": one board would be silently lost."""
    write_result(tmp_path, "org/m0", "r1", "STSBenchmark", 0.5)
    a, b = resolve_spec(tasks=["STSBenchmark"]), resolve_spec(tasks=["SciFact"])
    with pytest.raises(ValueError, match=r"\['custom'\] more than once"):
        load_leaderboards([a, b], results=tmp_path, use_cache=False, workers=1)


def test_the_tasks_most_models_lack_are_named_in_one_order_every_run():
    """Tied counts come in the benchmark's order (they came from sets: the hint and its
    ``--exclude-tasks`` command changed between identical runs)."""
    from types import SimpleNamespace

    from analysis.results.summary import blocking_tasks

    spec = SimpleNamespace(task_names=[f"T{i}" for i in (9, 3, 7, 1, 5, 8, 2)])
    lacks = {"a": {"T9"}, "b": {"T3", "T7", "T1", "T5"}, "c": {"T5", "T1", "T7", "T3"}}
    rows = [
        (model, task)
        for model in ("a", "b", "c", "d")
        for task in spec.task_names
        if task not in lacks.get(model, set())
    ]
    scores = pd.DataFrame(rows, columns=["model", "task"])
    assert blocking_tasks(scores, spec) == ([], ["T3", "T7", "T1"])  # 2 of 3 each; T9: 1


def test_the_completeness_note_names_the_rank_column_as_the_caller_sees_it():
    from analysis.core.errors import spoken_as
    from analysis.results.summary import completeness_message

    args = ("RTEB(beta)", "now", 7, 283, {"as-of-post": 70})
    assert "Means and rank_complete cover" in completeness_message(*args)
    with spoken_as("cli"):  # the command's table has no rank_complete
        assert "Means and Rank (Mean) cover" in completeness_message(*args)
