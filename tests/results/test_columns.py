"""The leaderboard's own columns against mteb's: zero-shot %, training overlap, Mean (TaskType).

The references are mteb's own functions (``ModelMeta.zero_shot_percentage``,
``ModelMeta.get_training_datasets``, ``TaskMetadata.adapted_from``) and mteb's own table
code (``mteb.benchmarks._create_table._create_summary_table``), never a copy of them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from analysis.results.columns import leaderboard_columns, type_means
from analysis.results.leaderboard import Leaderboard
from analysis.results.parsing import MISSING_COLUMNS
from analysis.results.specs import BenchmarkSpec, TaskSpec, resolve_spec
from analysis.results.summary import summarize
from analysis.results.training import overlap_table, task_sources, trained_on, zero_shot

#: Registered models of several kinds: training data with sources, none recorded, a
#: static model, an instruction model trained on MTEB tasks.
MODELS = [
    "BAAI/bge-m3",
    "nvidia/NV-Embed-v2",
    "sentence-transformers/all-MiniLM-L6-v2",
    "minishlab/potion-base-8M",
    "Cohere/Cohere-embed-v4.0",
    "nvidia/Nemotron-3-Embed-8B-BF16",
]


def _meta(name):
    import mteb

    return mteb.get_model_meta(name, fetch_from_hf=False)


@pytest.fixture(scope="module")
def task_lists() -> dict[str, list[str]]:
    rteb = resolve_spec("RTEB(beta)", pin="as-of-post")
    return {
        "public": rteb.scope_tasks("public"),
        "private": rteb.scope_tasks("private"),
        "MTEB(eng, v2)": resolve_spec("MTEB(eng, v2)").task_names,
    }


def test_zero_shot_is_mtebs_and_unknown_stays_unknown(task_lists):
    for tasks in task_lists.values():
        ours = zero_shot([*MODELS, "org/not-registered"], tasks)
        for name in MODELS:
            ref = _meta(name).zero_shot_percentage(tasks)
            assert (pd.isna(ours[name]) and ref is None) or ours[name] == ref, name
        assert pd.isna(ours["org/not-registered"])
    assert pd.isna(zero_shot(["Cohere/Cohere-embed-v4.0"], task_lists["public"]).iloc[0])


def test_trained_on_follows_get_training_datasets(task_lists):
    tasks = task_lists["public"] + task_lists["MTEB(eng, v2)"]
    table = trained_on(MODELS, tasks)
    for name in MODELS:
        seen = _meta(name).get_training_datasets()
        if seen is None:
            assert table[name].isna().all()
        else:
            assert table[name].tolist() == [t in seen for t in tasks], name


def test_sources_are_adapted_from_and_reach_the_task(task_lists):
    import mteb

    sources = task_sources(task_lists["public"])
    for task, found in sources.items():
        assert found == tuple(mteb.get_task(task).metadata.adapted_from or ())
    assert any(sources.values())  # RTEB(beta) has a derived public task (MIRACL)
    via = trained_on(MODELS, task_lists["public"], sources=True)
    direct = trained_on(MODELS, task_lists["public"])
    # mteb's rules: a model trained on a task's source counts as trained on the task
    assert not (via.fillna(False) & ~direct.fillna(False)).any().any()


def test_overlap_table_counts_and_keeps_unknown(task_lists):
    table = overlap_table(MODELS, task_lists)
    direct = trained_on(MODELS, task_lists["public"])
    for name in MODELS:
        known = _meta(name).get_training_datasets() is not None
        assert table.loc[name, "known"] == known
        if known:
            assert table.loc[name, "public trained"] == int(direct[name].sum())
        else:
            assert table.loc[name, ["public trained", "private zero-shot %"]].isna().all()
    n_public = len(task_lists["public"])
    expected = (100 - 100 * table["public trained"] / n_public).astype("Float64")
    got = table["public zero-shot %"].astype("Float64")
    assert ((got - expected).abs() < 1).fillna(True).all()  # mteb truncates to an integer


# --------------------------------------------------------------- Mean (TaskType) vs mteb


def _board(scores: pd.DataFrame, spec: BenchmarkSpec) -> Leaderboard:
    missing = pd.DataFrame(columns=MISSING_COLUMNS)
    return Leaderboard(spec, scores, missing, summarize(scores, missing, spec))


def _mteb_summary(board: Leaderboard) -> pd.DataFrame:
    """mteb's own table for the board's per-task scores (``_create_summary_table``)."""
    import polars as pl
    from mteb.benchmarks._create_table import _create_summary_table
    from mteb.benchmarks.benchmark import BenchmarkAggregation as Agg

    frame = pl.DataFrame(
        {
            "model_name": board.scores["model"].tolist(),
            "task_name": board.scores["task"].tolist(),
            "score": board.scores["main_score"].astype(float).tolist(),
            "is_public": board.scores["is_public"].astype(bool).tolist(),
            "subset": ["default"] * len(board.scores),
            "split": ["test"] * len(board.scores),
        }
    )
    table = _create_summary_table(
        frame, aggregations=(Agg.MEAN_TASK, Agg.MEAN_TASK_TYPE, Agg.TASK_TYPES)
    )
    return table.df.to_pandas().set_index("Model")


def test_type_means_equal_mtebs_table_on_a_hand_made_board():
    spec = BenchmarkSpec(
        "toy",
        tuple(
            TaskSpec(name, kind, True, ("test",), ("default",))
            for name, kind in [
                ("SciFact", "Retrieval"),
                ("NFCorpus", "Retrieval"),
                ("ArguAna", "Retrieval"),
                ("STSBenchmark", "STS"),
                ("Banking77Classification", "Classification"),
            ]
        ),
        "by hand",
    )
    models = ["BAAI/bge-m3", "sentence-transformers/all-MiniLM-L6-v2", "minishlab/potion-base-8M"]
    rng = np.random.default_rng(0)
    rows = [
        (m, "r", t.task, t.type, True, float(rng.uniform(0.2, 0.9)), "x")
        for m in models
        for t in spec.tasks
        if not (m == models[2] and t.task == "ArguAna")  # one model lacks a task
    ]
    scores = pd.DataFrame(rows, columns=[*MISSING_COLUMNS[:5], "main_score", "source"])
    board = _board(scores, spec)
    ours, ref = type_means(board), _mteb_summary(board)
    for kind in ("Retrieval", "STS", "Classification", "Mean (TaskType)"):
        pd.testing.assert_series_equal(
            ours[kind], ref[kind].reindex(ours.index), check_names=False, atol=1e-12
        )
    assert np.isnan(ours.loc[models[2], "Mean (TaskType)"])  # incomplete: no mean, as mteb
    kept = leaderboard_columns(board, models=models[1:])  # the Borda rank among those kept
    assert sorted(kept.index) == sorted(models[1:]) and sorted(kept["Rank (Borda)"]) == [1, 2]
    assert kept["Mean (TaskType)"].equals(ours.loc[kept.index, "Mean (TaskType)"])


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize(
    ("benchmark", "pin"), [("RTEB(beta)", "as-of-post"), ("MTEB(eng, v2)", "now")]
)
def test_columns_equal_mtebs_table_for_every_model(shared_results, benchmark, pin):
    """Every model of mteb's table: Rank (Borda), Mean (Task), Mean (TaskType) and Zero-shot are mteb's."""
    from analysis.results.leaderboard import load_leaderboard

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = load_leaderboard(benchmark, results=shared_results, pin=pin)
    ours, ref = leaderboard_columns(board), _mteb_summary(board)
    shared = ref.index.intersection(ours.index)
    assert len(shared) > 50
    for column in ("Mean (Task)", "Mean (TaskType)"):
        a, b = ours.loc[shared, column].astype(float), ref.loc[shared, column].astype(float)
        assert (a.isna() == b.isna()).all(), column
        np.testing.assert_allclose(a.dropna(), b.dropna(), atol=1e-12, err_msg=column)
    # the summary's borda_rank is mteb's (tests/results/test_mteb_table.py)
    mteb_rank = board.summary.loc[ours.index, "borda_rank"]
    pd.testing.assert_series_equal(ours["Rank (Borda)"], mteb_rank, check_names=False)
    mteb_zero_shot = ref.loc[shared, "Zero-shot"].replace(-1, pd.NA).astype("Int64")
    pd.testing.assert_series_equal(ours.loc[shared, "Zero-shot"], mteb_zero_shot, check_names=False)
