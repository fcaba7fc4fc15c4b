"""Leaderboard reproduction: all-MiniLM-L6-v2 (packaged, offline) on the shared local tasks.

CI runs AILAStatutes and STSBenchmark. SciFact and Banking77Classification take about
15 minutes on 2 CPU cores and run only in full mode: ``STATIC_RTEB_FULL=1 pytest
tests/runs/test_reproduction.py``.
"""

from __future__ import annotations

from pathlib import Path

import mteb
import numpy as np
import pytest
import pytrec_eval
from mteb.results import TaskResult

from analysis.runs.retrieval_metrics import load_predictions, per_query_ndcg, read_qrels_tsv
from analysis.runs.runner import ModelSpec, predictions_path, result_path, run_evaluation
from tests._run_fixtures import (
    FULL,
    MINILM,
    SHARED_CACHE,
    SHARED_TASKS,
    minilm_dir,
    needs_shared_cache,
    needs_shared_tasks,
)

TOLERANCE = 0.001
CI_TASKS = ("AILAStatutes", "STSBenchmark")
FULL_TASKS = ("SciFact", "Banking77Classification")

pytestmark = [pytest.mark.slow, pytest.mark.shared, needs_shared_tasks, needs_shared_cache]


def published_score(task_name: str) -> float:
    """The main score the MTEB results snapshot publishes for all-MiniLM-L6-v2."""
    meta = mteb.get_model_meta(MINILM)
    result = mteb.ResultCache(SHARED_CACHE).load_task_result(task_name, meta)
    assert result is not None, f"no published {task_name} result in {SHARED_CACHE}"
    return float(result.get_score(splits=list(mteb.get_task(task_name).eval_splits)))


def _reproduce(tasks: tuple[str, ...], results: Path) -> dict[str, float]:
    summary = run_evaluation(
        [ModelSpec(minilm_dir(), name=MINILM)],
        list(tasks),
        results_dir=results,
        local_tasks_dir=SHARED_TASKS,
        batch_size=32,
        show_progress=False,
    )
    assert set(summary["status"]) == {"ran"}, summary["error"].tolist()
    assert set(summary["revision"]) == {mteb.get_model_meta(MINILM).revision}
    return dict(zip(summary["task"], summary["main_score"], strict=True))


@pytest.fixture(scope="module")
def ci_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, float]]:
    results = tmp_path_factory.mktemp("minilm")
    return results, _reproduce(CI_TASKS, results)


@pytest.mark.parametrize("task_name", CI_TASKS)
def test_minilm_reproduces_published_score(ci_run: tuple, task_name: str) -> None:
    _, scores = ci_run
    assert abs(scores[task_name] - published_score(task_name)) <= TOLERANCE


def test_results_filed_under_registered_name_and_revision(ci_run: tuple) -> None:
    results, _ = ci_run
    meta = mteb.get_model_meta(MINILM)
    for task_name in CI_TASKS:
        path = result_path(results, meta, task_name)
        assert path.parts[-3:-1] == ("sentence-transformers__all-MiniLM-L6-v2", meta.revision)
        assert TaskResult.from_disk(path).task_name == task_name


def test_per_query_ndcg_matches_mteb_on_ailastatutes(ci_run: tuple) -> None:
    results, _ = ci_run
    meta = mteb.get_model_meta(MINILM)
    predictions = load_predictions(predictions_path(results, meta, "AILAStatutes"))
    qrels = read_qrels_tsv(SHARED_TASKS / "AILAStatutes" / "qrels" / "test.tsv")
    per_query = per_query_ndcg(predictions, qrels, k=10)
    assert len(per_query) == 50 and per_query.index.is_monotonic_increasing

    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(predictions)
    expected = np.array([reference[q]["ndcg_cut_10"] for q in per_query.index])
    np.testing.assert_allclose(per_query.to_numpy(), expected, atol=1e-12)

    reported = TaskResult.from_disk(result_path(results, meta, "AILAStatutes"))
    ndcg_at_10 = reported.scores["test"][0]["ndcg_at_10"]  # mteb rounds it to 5 decimals
    assert abs(round(per_query.mean(), 5) - ndcg_at_10) <= 1e-6
    assert abs(per_query.mean() - ndcg_at_10) <= 5e-6


@pytest.mark.skipif(not FULL, reason="full mode only: set STATIC_RTEB_FULL=1 (about 15 min)")
def test_minilm_reproduces_full_tasks(tmp_path: Path) -> None:
    scores = _reproduce(FULL_TASKS, tmp_path)
    for task_name in FULL_TASKS:
        assert abs(scores[task_name] - published_score(task_name)) <= TOLERANCE, task_name
