"""analysis.runs.local_tasks: registered mteb tasks fed from local folders, validated up front."""

from __future__ import annotations

import json
from pathlib import Path

import mteb
import pytest

from analysis.runs.local_tasks import (
    LocalTaskError,
    discover_local_tasks,
    load_local_task,
    read_spec,
)
from tests._run_fixtures import (
    FIXTURE_TASKS,
    FIXTURES,
    SHARED_TASKS,
    copy_fixture,
    needs_shared_tasks,
)


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def _classification_folder(root: Path, test_labels: list[int]) -> Path:
    """A tiny hand-made classification folder borrowing Banking77Classification's metadata."""
    folder = root / "Classification"
    folder.mkdir()
    spec = {
        "mteb_task": "Banking77Classification",
        "type": "Classification",
        "split": "test",
        "format": "classification-jsonl",
    }
    (folder / "task.json").write_text(json.dumps(spec))
    names = {0: "card_lost", 1: "top_up"}
    train = [
        {"text": f"train text {i}", "label": i % 2, "label_text": names[i % 2]} for i in range(6)
    ]
    test = [{"text": f"test text {i}", "label": label} for i, label in enumerate(test_labels)]
    _write_jsonl(folder / "train.jsonl", train)
    _write_jsonl(folder / "test.jsonl", test)
    return folder


@pytest.mark.parametrize(("kind", "task_name"), sorted(FIXTURE_TASKS.items()))
def test_fixture_keeps_registered_metadata(kind: str, task_name: str) -> None:
    task = load_local_task(FIXTURES / kind)
    assert task.metadata == mteb.get_task(task_name).metadata
    assert type(task) is type(mteb.get_task(task_name))
    assert list(task.eval_splits) == ["test"] and task.hf_subsets == ["default"]
    assert not task.data_loaded
    task.load_data()
    assert task.data_loaded and task.dataset
    task.unload_data()
    task.load_data()  # reloads from the validated rows, as mteb does between models
    assert task.data_loaded


def test_reranking_fixture_structure() -> None:
    task = load_local_task(FIXTURES / "Reranking")
    task.load_data()
    split = task.dataset["default"]["test"]
    assert split["corpus"].column_names == ["id", "title", "text"]
    assert split["queries"]["id"] == ["q1", "q2", "q3", "q4"]
    assert split["relevant_docs"]["q1"] == {"d1": 1, "d2": 1}
    assert split["top_ranked"]["q4"] == ["d7", "d8", "d4", "d2", "d10"]


def test_clustering_fixture_groups_sets() -> None:
    task = load_local_task(FIXTURES / "Clustering")
    task.load_data()
    sets = task.dataset["test"]
    assert len(sets) == 2
    assert all(len(row["sentences"]) == len(row["labels"]) == 9 for row in sets)


def test_pair_classification_fixture_columns() -> None:
    task = load_local_task(FIXTURES / "PairClassification")
    task.load_data()
    assert set(task.dataset["test"].column_names) == {"sentence1", "sentence2", "labels"}
    assert set(task.dataset["test"]["labels"]) == {0, 1}


def test_discover_by_task_name() -> None:
    found = discover_local_tasks(FIXTURES)
    assert found == {
        name: FIXTURES / kind for kind, name in sorted(FIXTURE_TASKS.items(), key=lambda kv: kv[1])
    }


def test_missing_task_json(tmp_path: Path) -> None:
    with pytest.raises(LocalTaskError, match=r"task\.json: missing file"):
        read_spec(tmp_path)


def test_missing_data_file_is_named(tmp_path: Path) -> None:
    folder = copy_fixture("Reranking", tmp_path)
    (folder / "qrels" / "test.tsv").unlink()
    with pytest.raises(LocalTaskError, match=r"qrels/test\.tsv: missing file"):
        load_local_task(folder)


def test_qrels_unknown_corpus_id_names_file_and_line(tmp_path: Path) -> None:
    folder = copy_fixture("Reranking", tmp_path)
    with (folder / "qrels" / "test.tsv").open("a") as handle:
        handle.write("q2\td99\t1\n")
    with pytest.raises(LocalTaskError, match=r"test\.tsv:10: corpus-id 'd99' is not in corpus"):
        load_local_task(folder)


def test_qrels_unknown_query_id(tmp_path: Path) -> None:
    folder = copy_fixture("Reranking", tmp_path)
    with (folder / "qrels" / "test.tsv").open("a") as handle:
        handle.write("q9\td1\t1\n")
    with pytest.raises(LocalTaskError, match=r"test\.tsv:10: query-id 'q9' is not in queries"):
        load_local_task(folder)


def test_top_ranked_unknown_id(tmp_path: Path) -> None:
    folder = copy_fixture("Reranking", tmp_path)
    with (folder / "top_ranked" / "test.jsonl").open("a") as handle:
        handle.write(json.dumps({"query-id": "q1", "corpus-ids": ["d1", "zz"]}) + "\n")
    with pytest.raises(LocalTaskError, match=r"test\.jsonl:5: corpus-ids \['zz'\]"):
        load_local_task(folder)


def test_duplicate_corpus_id(tmp_path: Path) -> None:
    folder = copy_fixture("Reranking", tmp_path)
    with (folder / "corpus.jsonl").open("a") as handle:
        handle.write(json.dumps({"_id": "d3", "text": "again"}) + "\n")
    with pytest.raises(LocalTaskError, match=r"corpus\.jsonl:11: duplicate _id 'd3'"):
        load_local_task(folder)


def test_empty_split_is_named(tmp_path: Path) -> None:
    folder = copy_fixture("PairClassification", tmp_path)
    (folder / "test.jsonl").write_text("")
    with pytest.raises(LocalTaskError, match=r"test\.jsonl: the split is empty"):
        load_local_task(folder)


def test_pair_label_outside_zero_one(tmp_path: Path) -> None:
    folder = copy_fixture("PairClassification", tmp_path)
    with (folder / "test.jsonl").open("a") as handle:
        handle.write(json.dumps({"sentence1": "a", "sentence2": "b", "label": 2}) + "\n")
    with pytest.raises(LocalTaskError, match=r"test\.jsonl:13: unknown label 2"):
        load_local_task(folder)


def test_classification_label_missing_from_train(tmp_path: Path) -> None:
    folder = _classification_folder(tmp_path, test_labels=[0, 1, 7])
    with pytest.raises(LocalTaskError, match=r"test\.jsonl:3: unknown label 7 \(not in train"):
        load_local_task(folder)


def test_classification_inconsistent_label_text(tmp_path: Path) -> None:
    folder = _classification_folder(tmp_path, test_labels=[0, 1])
    with (folder / "train.jsonl").open("a") as handle:
        handle.write(json.dumps({"text": "x", "label": 0, "label_text": "top_up"}) + "\n")
    with pytest.raises(LocalTaskError, match=r"train\.jsonl:7: label 0 is named 'top_up'"):
        load_local_task(folder)


def test_classification_folder_loads(tmp_path: Path) -> None:
    task = load_local_task(_classification_folder(tmp_path, test_labels=[0, 1, 1]))
    task.load_data()
    assert task.dataset["test"]["label"] == [0, 1, 1]
    assert task.dataset["train"].num_rows == 6


def test_invalid_json_line(tmp_path: Path) -> None:
    folder = copy_fixture("Clustering", tmp_path)
    with (folder / "test.jsonl").open("a") as handle:
        handle.write('{"text": "unterminated\n')
    with pytest.raises(LocalTaskError, match=r"test\.jsonl:19: invalid JSON"):
        load_local_task(folder)


def test_missing_field(tmp_path: Path) -> None:
    folder = copy_fixture("Clustering", tmp_path)
    with (folder / "test.jsonl").open("a") as handle:
        handle.write(json.dumps({"text": "no label"}) + "\n")
    with pytest.raises(LocalTaskError, match=r"test\.jsonl:19: missing field 'label'"):
        load_local_task(folder)


def test_sts_score_out_of_range(tmp_path: Path) -> None:
    folder = tmp_path / "STS"
    folder.mkdir()
    spec = {"mteb_task": "STSBenchmark", "type": "STS", "split": "test", "format": "sts-jsonl"}
    (folder / "task.json").write_text(json.dumps(spec))
    _write_jsonl(
        folder / "test.jsonl",
        [
            {"sentence1": "a", "sentence2": "b", "score": 4.0},
            {"sentence1": "c", "sentence2": "d", "score": 9.5},
        ],
    )
    with pytest.raises(LocalTaskError, match=r"test\.jsonl:2: score 9\.5 is outside"):
        load_local_task(folder)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"type": "Retrieval"}, "does not match mteb's type 'PairClassification'"),
        ({"format": "beir"}, "cannot feed SprintDuplicateQuestions"),
        ({"format": "csv"}, "unknown format 'csv'"),
        ({"split": "dev"}, "split 'dev' is not an evaluation split"),
        ({"mteb_task": "SprintDuplicateQuestion"}, "Did you mean: 'SprintDuplicateQuestions'"),
    ],
)
def test_task_json_must_fit_the_registered_task(
    tmp_path: Path, change: dict[str, str], message: str
) -> None:
    folder = copy_fixture("PairClassification", tmp_path)
    spec = json.loads((folder / "task.json").read_text())
    (folder / "task.json").write_text(json.dumps({**spec, **change}))
    with pytest.raises(LocalTaskError, match=message):
        load_local_task(folder)


@needs_shared_tasks
def test_shared_tasks_load_with_mteb_counts() -> None:
    expected = {  # mteb 2.26 descriptive statistics of the test splits
        "AILAStatutes": {"corpus": 82, "queries": 50},
        "SciFact": {"corpus": 5183, "queries": 300},
    }
    for name, counts in expected.items():
        task = load_local_task(SHARED_TASKS / name)
        task.load_data()
        split = task.dataset["default"]["test"]
        assert {key: split[key].num_rows for key in counts} == counts
    sts = load_local_task(SHARED_TASKS / "STSBenchmark")
    sts.load_data()
    assert sts.dataset["test"].num_rows == 1379
    banking = load_local_task(SHARED_TASKS / "Banking77Classification")
    banking.load_data()
    assert (banking.dataset["train"].num_rows, banking.dataset["test"].num_rows) == (10003, 3080)


def test_a_mistyped_local_tasks_folder_is_named_as_typed_with_its_close_match(tmp_path):
    """``--local-tasks ../shared/taskz``: the link's spelling, and the folder meant."""
    (tmp_path / "real").mkdir()
    (tmp_path / "tasks").symlink_to(tmp_path / "real", target_is_directory=True)
    typed = tmp_path / "taskz"
    with pytest.raises(LocalTaskError) as err:
        discover_local_tasks(typed)
    message = str(err.value)
    assert message.startswith(f"{typed}: local tasks folder does not exist.")
    assert "close name: 'tasks'" in message and "real" not in message.split("exist.")[1]
