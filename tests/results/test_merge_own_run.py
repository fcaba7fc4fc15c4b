"""An own run beside the leaderboard: the snapshot plus a run made here, merged in one load.

A tiny model2vec model (random vectors over MiniLM's tokenizer: built in a second, not
distilled) is run with ``analysis.runs.runner.run_evaluation`` on two shared local tasks;
``load_leaderboard(results=[snapshot, runs])`` then shows it with its own tasks, and
``Leaderboard.wide(tasks=...)`` compares it with every leaderboard model that has them.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.core.errors import IncompleteBenchmarkWarning
from analysis.core.paths import display_path
from analysis.results.leaderboard import load_leaderboard
from tests._run_fixtures import SHARED_TASKS, minilm_dir, needs_shared_cache, needs_shared_tasks
from tests.conftest import SHARED_RESULTS

TASKS = ["AILAStatutes", "STSBenchmark"]

pytestmark = [pytest.mark.slow, pytest.mark.shared, needs_shared_cache, needs_shared_tasks]


@pytest.fixture(scope="module")
def own_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    """``data/runs``-like folder holding the tiny model's results on :data:`TASKS`."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    from analysis.runs.runner import run_evaluation

    base = tmp_path_factory.mktemp("own-run")
    tokenizer = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    vectors = np.random.default_rng(0).normal(size=(tokenizer.get_vocab_size(), 16))
    model_dir = base / "tiny-static"
    StaticModel(vectors.astype(np.float32), tokenizer, normalize=True).save_pretrained(
        str(model_dir)
    )
    runs = base / "runs"
    summary = run_evaluation(
        [model_dir], TASKS, results_dir=runs, local_tasks_dir=SHARED_TASKS, show_progress=False
    )
    assert list(summary["status"]) == ["ran", "ran"], summary["error"].tolist()
    return runs, summary


def test_merged_tasks_show_the_own_model_beside_every_model_that_has_them(own_run, tmp_path):
    runs, summary = own_run
    model = summary["model"].iloc[0]
    kw = dict(tasks=TASKS, cache_dir=tmp_path)
    merged = load_leaderboard(results=[SHARED_RESULTS, runs], **kw)
    alone = load_leaderboard(results=SHARED_RESULTS, **kw)
    own = merged.scores[merged.scores["model"] == model].set_index("task")
    assert sorted(own.index) == sorted(TASKS)
    assert set(own["source"]) == {display_path(runs)}
    expected = summary.set_index("task")["main_score"]
    np.testing.assert_allclose(own.loc[TASKS, "main_score"], expected.loc[TASKS], rtol=1e-12)
    assert merged.summary.loc[model, "complete"]
    # every other row is the snapshot's, unchanged
    others = merged.scores[merged.scores["model"] != model].reset_index(drop=True)
    pd.testing.assert_frame_equal(others, alone.scores)
    wide, reference = merged.wide(tasks=TASKS), alone.wide(tasks=TASKS)
    assert set(wide.columns) == {*reference.columns, model}
    pd.testing.assert_frame_equal(wide[reference.columns], reference)
    assert merged.provenance["results"] == f"{display_path(SHARED_RESULTS)} + {display_path(runs)}"


def test_benchmark_with_an_own_model_complete_only_on_some_tasks(own_run, tmp_path):
    runs, summary = own_run
    model = summary["model"].iloc[0]
    kw = dict(pin="as-of-post", cache_dir=tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncompleteBenchmarkWarning)
        merged = load_leaderboard("RTEB(beta)", results=[SHARED_RESULTS, runs], **kw)
        alone = load_leaderboard("RTEB(beta)", results=SHARED_RESULTS, **kw)
    row = merged.summary.loc[model]
    assert row["n_tasks"] == 1 and not row["complete"] and pd.isna(row["rank_complete"])
    gaps = merged.missing[merged.missing["model"] == model]
    assert set(gaps["reason"]) == {"no result file"}
    assert len(gaps) == len(merged.spec.tasks) - 1
    columns = ["complete", "mean_task", "rank_complete"]  # mteb's Borda rank moves, these not
    pd.testing.assert_frame_equal(
        merged.summary.drop(index=model)[columns].sort_index(),
        alone.summary[columns].sort_index(),
    )
    wide = merged.wide(tasks=["AILAStatutes"])
    assert model in wide.columns
    with_task = alone.scores.loc[alone.scores["task"] == "AILAStatutes", "model"]
    assert set(wide.columns) == {*with_task, model}
