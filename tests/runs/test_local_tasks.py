"""analysis.runs.local_tasks: registered mteb tasks fed from local folders, validated up front."""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import mteb
import pytest
from datasets import Dataset

from analysis.core import compat
from analysis.runs.local_tasks import (
    LocalTaskError,
    discover_local_tasks,
    load_local_task,
    own_loading,
    read_spec,
)
from tests._run_fixtures import (
    FIXTURE_TASKS,
    FIXTURES,
    SHARED_TASK_NAMES,
    SHARED_TASKS,
    copy_fixture,
    distilled_static_model,
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
    """mteb's metadata, class and evaluation; a hub copy changes only the dataset's path."""
    task, registered = load_local_task(FIXTURES / kind), mteb.get_task(task_name)
    dataset = {**registered.metadata.dataset}
    if read_spec(FIXTURES / kind).format == "hub":
        dataset["path"] = str((FIXTURES / kind / "hub").absolute())
    assert task.metadata == registered.metadata.model_copy(update={"dataset": dataset})
    assert isinstance(task, type(registered)) and type(task).__mro__[1] is type(registered)
    assert task.local_folder == FIXTURES / kind  # type: ignore[attr-defined]
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
    """The hub copy's sent1/sent2 are renamed by SprintDuplicateQuestions' own transform."""
    task = load_local_task(FIXTURES / "PairClassification")
    task.load_data()
    assert set(task.dataset["test"].column_names) == {"sentence1", "sentence2", "labels"}
    assert set(task.dataset["test"]["labels"]) == {0, 1}
    assert task.metadata.revision == mteb.get_task("SprintDuplicateQuestions").metadata.revision


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


def _pair_folder(root: Path, task: str = "LegalBenchPC") -> Path:
    """The pair fixture's rows in the simple format, under a task that loads plainly."""
    folder = root / "Pairs"
    folder.mkdir()
    spec = {"mteb_task": task, "type": "PairClassification", "split": "test"}
    (folder / "task.json").write_text(json.dumps({**spec, "format": "pair-classification-jsonl"}))
    lines = (FIXTURES / "PairClassification" / "hub" / "test.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    _write_jsonl(
        folder / "test.jsonl",
        [{"sentence1": r["sent1"], "sentence2": r["sent2"], "label": r["labels"]} for r in rows],
    )
    return folder


def test_pair_folder_loads(tmp_path: Path) -> None:
    task = load_local_task(_pair_folder(tmp_path))
    task.load_data()
    assert task.dataset["test"].num_rows == 12 and set(task.dataset["test"]["labels"]) == {0, 1}


def test_empty_split_is_named(tmp_path: Path) -> None:
    folder = _pair_folder(tmp_path)
    (folder / "test.jsonl").write_text("")
    with pytest.raises(LocalTaskError, match=r"test\.jsonl: the split is empty"):
        load_local_task(folder)


def test_pair_label_outside_zero_one(tmp_path: Path) -> None:
    folder = _pair_folder(tmp_path)
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


# --------------------------------------------------------------------------- simple formats refuse


@pytest.mark.parametrize(
    ("task_name", "kind", "does"),
    [
        ("SprintDuplicateQuestions", "PairClassification", "renames columns"),
        ("ToxicConversationsClassification", "Classification", r"subsamples the rows \(strat"),
    ],
)
def test_a_task_with_its_own_transform_is_refused_in_a_simple_format(
    tmp_path: Path, task_name: str, kind: str, does: str
) -> None:
    """Named with what its transform does and the hub-format download that fixes it."""
    folder = tmp_path / task_name
    folder.mkdir()
    simple = {"PairClassification": "pair-classification-jsonl"}.get(kind, "classification-jsonl")
    spec = {"mteb_task": task_name, "type": kind, "split": "test", "format": simple}
    (folder / "task.json").write_text(json.dumps(spec))
    dataset = mteb.get_task(task_name).metadata.dataset
    with pytest.raises(LocalTaskError) as err:
        load_local_task(folder)
    message = str(err.value)
    assert f"{task_name} cannot be read from the {simple!r} format" in message
    assert re.search(f"dataset_transform {does}", message)
    fix = f"hf download {dataset['path']} --repo-type dataset --revision {dataset['revision']}"
    assert f"{fix} --local-dir {folder / 'hub'}" in message and '"format": "hub"' in message


def test_own_loading_flags_task_classes_never_mtebs_abstract_ones() -> None:
    """Across mteb's registry: every class defining its own transform or loader is refused;
    what the abstract task classes define (zero-shot's transform, retrieval's loader) is not;
    the shared tasks and the simple-format fixtures load plainly."""
    registry = compat.task_registry()
    refused = {name: own_loading(cls) for name, cls in registry.items() if own_loading(cls)}
    for name, cls in registry.items():
        if {"dataset_transform", "load_data"} & set(vars(cls)):
            assert name in refused, name
    assert not [m for methods in refused.values() for m in methods if m.startswith("AbsTask")]
    plain = set(registry) - set(refused)
    for base in ("AbsTaskZeroShotClassification", "AbsTaskRetrieval"):
        assert [n for n in plain if base in {c.__name__ for c in registry[n].__mro__}], base
    simple = (*SHARED_TASK_NAMES, "AskUbuntuDupQuestions", "TwentyNewsgroupsClustering")
    assert not {*simple, "LegalBenchPC"} & set(refused)
    assert "SprintDuplicateQuestions" in refused and 0 < len(refused) < len(registry)


# --------------------------------------------------------------------------- hub format

WORDS = {
    0: "bad awful sad angry broken slow rude",
    1: "plain okay normal usual average fair",
    2: "good great happy lovely quick kind",
}
COMMON = "the movie food day service was really very this my".split()


def _sentence(rng: random.Random, label: int, n: int = 7) -> str:
    return " ".join(rng.choice([*WORDS[label].split(), *COMMON]) for _ in range(n))


def _hub_folder(root: Path, task: str, configs: dict[str, dict[str, list[dict]]], **spec: str):
    """A hub-format copy made of synthetic rows: one parquet file per config and split,
    named in README.md's ``configs`` as a dataset repository lays them out."""
    folder, lines = root / task, ["---", "configs:"]
    for config, splits in configs.items():
        (folder / "hub" / config).mkdir(parents=True)
        lines += [f"- config_name: {config}", "  data_files:"]
        for split, rows in splits.items():
            path = f"{config}/{split}-00000-of-00001.parquet"
            Dataset.from_list(rows).to_parquet(folder / "hub" / path)
            lines += [f"  - split: {split}", f"    path: {path}"]
    (folder / "hub" / "README.md").write_text("\n".join([*lines, "---", ""]))
    (folder / "task.json").write_text(json.dumps({"mteb_task": task, "format": "hub", **spec}))
    return folder


def _tweets(root: Path) -> Path:
    """TweetSentimentClassification: fast-loaded by language, test split subsampled to 256."""
    rng, splits = random.Random(0), {"train": [], "test": []}
    for lang, sizes in (
        ("english", {"train": 60, "test": 300}),
        ("german", {"train": 9, "test": 9}),
    ):
        for split, size in sizes.items():
            splits[split] += [
                {"text": _sentence(rng, i % 3), "label": i % 3, "lang": lang} for i in range(size)
            ]
    return _hub_folder(root, "TweetSentimentClassification", {"default": splits}, subset="english")


def _klue_nli(root: Path) -> Path:
    """KLUE-NLI: config nli; its transform drops neutral pairs, maps labels, restructures."""
    rng = random.Random(1)

    def rows(size: int) -> list[dict]:
        return [
            {"guid": f"g{i}", "source": "synthetic", "premise": _sentence(rng, i % 3),
             "hypothesis": _sentence(rng, (i % 3) if i % 2 else 2 - i % 3), "label": i % 3}
            for i in range(size)
        ]  # fmt: skip

    sts = [{"sentence1": "a b", "sentence2": "a c", "labels": {"label": 1.0}}]
    configs = {"nli": {"train": rows(30), "validation": rows(200)}, "sts": {"validation": sts}}
    return _hub_folder(root, "KLUE-NLI", configs)


def _scifact(root: Path) -> Path:
    """SciFact: corpus, queries and qrels configs, read by mteb's RetrievalDatasetLoader."""
    rng = random.Random(2)
    corpus = [
        {"_id": f"d{i}", "title": f"doc {i}", "text": _sentence(rng, i % 3)} for i in range(40)
    ]
    queries = [{"_id": f"q{i}", "text": _sentence(rng, i % 3, 4)} for i in range(12)]
    qrels = [{"query-id": f"q{i}", "corpus-id": f"d{i + 3 * j}", "score": 1}
             for i in range(10) for j in range(2)]  # fmt: skip
    configs = {"corpus": {"test": corpus}, "queries": {"test": queries}, "qrels": {"test": qrels}}
    return _hub_folder(root, "SciFact", configs)


def _mteb_on(monkeypatch: pytest.MonkeyPatch, repo: str, folder: Path) -> None:
    """Mteb's own loaders, with only the location redirected: the datasets functions they
    call read ``folder`` when asked for ``repo`` (nothing else changes; offline, any other
    location fails)."""
    import mteb.abstasks.abstask as abstask
    import mteb.abstasks.retrieval_dataset_loaders as loaders

    for module in (abstask, loaders):
        for name in ("load_dataset", "get_dataset_config_names", "get_dataset_split_names"):
            if hasattr(module, name):
                real = getattr(module, name)
                monkeypatch.setattr(module, name, functools.partial(_at, real, repo, folder))


def _at(real: Callable[..., Any], repo: str, folder: Path, *args: Any, **kwargs: Any) -> Any:
    if kwargs.get("path") == repo:
        kwargs["path"] = str(folder)
    elif args and args[0] == repo:
        args = (str(folder), *args[1:])
    return real(*args, **kwargs)


def _plain(data: Any) -> Any:
    """Datasets as comparable values: container type, features and every row."""
    if isinstance(data, Dataset):
        return ("Dataset", data.features.to_dict(), data.to_dict())
    if isinstance(data, Mapping):
        return (type(data).__name__, {key: _plain(value) for key, value in data.items()})
    if isinstance(data, list):
        return [_plain(value) for value in data]
    return data


@pytest.fixture(scope="module")
def static_model(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from analysis.runs.models import load_model

    return load_model(distilled_static_model(tmp_path_factory))


def _scores(model: Any, task: Any) -> str:
    result = mteb.evaluate(
        model, task, cache=None, show_progress_bar=False, raise_error=True, co2_tracker=False
    )
    return json.dumps(result.task_results[0].scores, sort_keys=True)


def _ours_and_mtebs(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """Our task on ``folder``, and mteb's registered task reading the same files."""
    ours = load_local_task(folder)
    mtebs = mteb.get_task(ours.metadata.name, hf_subsets=ours.hf_subsets)
    _mteb_on(monkeypatch, mtebs.metadata.dataset["path"], folder / "hub")
    return ours, mtebs


HUB_COPIES = [_tweets, _klue_nli, _scifact]


@pytest.mark.parametrize("make", HUB_COPIES, ids=lambda make: make.__name__)
def test_hub_copy_gives_mtebs_own_datasets(
    make: Callable[[Path], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same files, loaded by our loader and by mteb's with only the location redirected:
    identical datasets after each task's dataset_transform."""
    ours, mtebs = _ours_and_mtebs(make(tmp_path), monkeypatch)
    ours.load_data()
    mtebs.load_data()
    assert _plain(ours.dataset) == _plain(mtebs.dataset)
    if make is _tweets:  # subsampled to 256 (of 300), English only (the copy has German too)
        assert set(ours.dataset) == {"english"}
        test, train = ours.dataset["english"]["test"], ours.dataset["english"]["train"]
        assert (test.num_rows, train.num_rows) == (256, 60)
    if make is _klue_nli:  # neutral pairs dropped, labels 0/1, one row of lists
        (pairs,) = ours.dataset["validation"]
        assert len(pairs["labels"]) == 200 - len(range(1, 200, 3))
        assert set(pairs["labels"]) == {0, 1}


@pytest.mark.parametrize(
    "make",
    [pytest.param(_tweets, marks=pytest.mark.slow), _klue_nli, _scifact],
    ids=lambda make: make.__name__,
)
def test_hub_copy_gives_mtebs_own_scores(
    make: Callable[[Path], Path],
    static_model: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """mteb.evaluate of the tests' static model: every score identical (classification is
    slow: mteb reads the test labels row by row in each of its 10 experiments)."""
    ours, mtebs = _ours_and_mtebs(make(tmp_path), monkeypatch)
    scores = _scores(static_model, ours)
    assert scores == _scores(static_model, mtebs) and '"main_score"' in scores


def test_hub_folder_must_exist_and_says_how_to_make_it(tmp_path: Path) -> None:
    folder = copy_fixture("PairClassification", tmp_path)
    (folder / "hub" / "test.jsonl").unlink()
    (folder / "hub").rmdir()
    with pytest.raises(LocalTaskError, match=r"hub: missing folder.*hf download mteb/sprint"):
        load_local_task(folder)


def test_hub_copy_of_another_revision_is_refused(tmp_path: Path) -> None:
    """hf download's own records of the commit it wrote (huggingface_hub's writer)."""
    from huggingface_hub._local_folder import write_download_metadata

    folder = copy_fixture("PairClassification", tmp_path)
    revision = mteb.get_task("SprintDuplicateQuestions").metadata.revision
    write_download_metadata(folder / "hub", "test.jsonl", revision, etag="x")
    load_local_task(folder)  # mteb's revision: fine
    write_download_metadata(folder / "hub", "test.jsonl", "0" * 40, etag="x")
    with pytest.raises(
        LocalTaskError, match=rf"hub: downloaded at revision {'0' * 40}; .* --revision {revision} "
    ):
        load_local_task(folder)


def test_hub_copy_without_the_split_mteb_evaluates(tmp_path: Path) -> None:
    folder = copy_fixture("PairClassification", tmp_path)
    (folder / "hub" / "test.jsonl").rename(folder / "hub" / "validation.jsonl")
    task = load_local_task(folder)
    with pytest.raises(
        LocalTaskError,
        match=r"hub: mteb's loading of SprintDuplicateQuestions gives no default/test;",
    ):
        task.load_data()
    assert not task.data_loaded


def test_hub_copy_without_the_config_mteb_asks_for(tmp_path: Path) -> None:
    folder = _klue_nli(tmp_path)
    readme = folder / "hub" / "README.md"
    readme.write_text(readme.read_text().replace("config_name: nli", "config_name: nli-old"))
    task = load_local_task(folder)
    with pytest.raises(LocalTaskError, match=r"hub: mteb cannot load KLUE-NLI from it \(.*'nli'"):
        task.load_data()


def test_hub_task_json_needs_only_the_task(tmp_path: Path) -> None:
    folder = tmp_path / "T"
    folder.mkdir()
    (folder / "task.json").write_text(json.dumps({"format": "hub"}))
    with pytest.raises(LocalTaskError, match=r"missing field\(s\) mteb_task\.$"):
        read_spec(folder)
    (folder / "task.json").write_text(json.dumps({"format": "hub", "mteb_task": "SciFact"}))
    spec = read_spec(folder)
    assert (spec.type, spec.split, spec.subset) == ("", "", "")
