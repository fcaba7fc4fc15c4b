"""Every use of mteb's private API goes through analysis.core.compat, and each one still works.

Each test below exercises one wrapper against the installed mteb and fails loudly when an
mteb upgrade renames or changes the private name it wraps. The guard at the end keeps
private access out of every other module.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from analysis.core import compat


def test_task_registry_is_mteb_private_registry():
    from mteb.get_tasks import _TASKS_REGISTRY  # the private name compat relies on

    registry = compat.task_registry()
    assert registry is _TASKS_REGISTRY
    assert "STSBenchmark" in registry and "SciFact" in registry
    assert registry["SciFact"].metadata.type == "Retrieval"


def test_mteb_names_are_kept_per_version_and_read_without_mteb(tmp_path, monkeypatch):
    """``task_names``/``benchmark_names`` keep the installed mteb's lists in the cache, one file
    per mteb version; ``seen_names`` reads them back, equal, in a process that imports no
    mteb; a file of another version, or an unreadable one, is not seen."""
    import subprocess
    import sys
    from importlib.metadata import version

    from tests._cli import cli_env

    monkeypatch.setenv("STATIC_RTEB_CACHE", str(tmp_path))
    assert compat.seen_names("tasks") is None
    for cached in (compat.task_names, compat.benchmark_names):
        cached.cache_clear()
    try:
        tasks, benchmarks = compat.task_names(), compat.benchmark_names()
    finally:
        for cached in (compat.task_names, compat.benchmark_names):
            cached.cache_clear()
    assert "SciFact" in tasks and "RTEB(beta)" in benchmarks
    kept = tmp_path / "mteb-names" / f"{version('mteb')}.json"
    assert [p.name for p in kept.parent.iterdir()] == [kept.name]
    code = (
        "import sys\nfrom analysis.core.compat import seen_names\n"
        "print(len(seen_names('tasks')), len(seen_names('benchmarks')), 'mteb' in sys.modules)"
    )
    env = cli_env({"STATIC_RTEB_CACHE": str(tmp_path)})
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [str(len(tasks)), str(len(benchmarks)), "False"]
    assert compat.seen_names("tasks") == tasks and compat.seen_names("benchmarks") == benchmarks
    kept.rename(kept.with_name("0.0.1.json"))  # another mteb's
    assert compat.seen_names("tasks") is None
    kept.write_text("{not json", encoding="utf-8")
    assert compat.seen_names("tasks") is None and compat.seen_names("benchmarks") is None


@pytest.mark.parametrize(
    "direct_url",
    [
        '{"url": "file:///src/mteb", "dir_info": {"editable": true}}',
        '{"url": "https://github.com/embeddings-benchmark/mteb", "vcs_info": {"vcs": "git"}}',
    ],
)
def test_an_mteb_from_outside_an_index_keeps_no_names(tmp_path, monkeypatch, direct_url):
    """An mteb installed editable or from a checkout (PEP 610's ``direct_url.json``) can change
    its tasks under one version: its names are never kept, so a task just added to it is never
    refused as a typo."""
    import importlib.metadata

    real = importlib.metadata.distribution("mteb")

    class Direct:
        version = real.version

        def read_text(self, name: str) -> str | None:
            return direct_url if name == "direct_url.json" else real.read_text(name)

    monkeypatch.setenv("STATIC_RTEB_CACHE", str(tmp_path))
    assert compat._names_file() == tmp_path / "mteb-names" / f"{real.version}.json"
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Direct())
    compat.benchmark_names.cache_clear()
    try:
        assert "RTEB(beta)" in compat.benchmark_names()
    finally:
        compat.benchmark_names.cache_clear()
    assert compat._names_file() is None and compat.seen_names("benchmarks") is None
    assert not (tmp_path / "mteb-names").exists()


def test_model_name_and_revision_from_folder(tmp_path):
    from mteb import ResultCache

    assert hasattr(ResultCache, "_get_model_name_and_revision_from_path")
    folder = tmp_path / "org__model" / "rev1"
    folder.mkdir(parents=True)
    (folder / "model_meta.json").write_text(json.dumps({"name": "org/model", "revision": "rev1"}))
    name, revision, experiment, meta = compat.model_name_and_revision_from_folder(folder)
    assert (name, revision, experiment) == ("org/model", "rev1", None)
    assert meta.name == "org/model"


def test_create_dataloader_batches_texts():
    import mteb
    from datasets import Dataset

    metadata = mteb.get_task("STSBenchmark").metadata
    loader = compat.create_dataloader(
        Dataset.from_dict({"text": ["a", "b", "c"]}), task_metadata=metadata, batch_size=2
    )
    batches = list(loader)
    assert [len(b["text"]) for b in batches] == [2, 1]


@pytest.mark.parametrize(
    ("stored", "expected"),
    [("2.26.24", "2.26.24"), ("2.12.0-2.12.19", "2.12.0"), ("not a version", None), (None, None)],
)
def test_parse_mteb_version_min(stored, expected):
    got = compat.parse_mteb_version_min(stored)
    assert got == (None if expected is None else Version(expected))


def test_legacy_task_type():
    from mteb.results import task_result

    assert isinstance(task_result.outdated_tasks, dict)  # what from_disk consults first
    assert compat.legacy_task_type("SprintDuplicateQuestions") == "PairClassification"
    assert compat.legacy_task_type("STSBenchmark") == "STS"
    assert compat.legacy_task_type("NoSuchTask") is None


# --------------------------------------------------------------------------- result files


def test_result_reader_sources_are_the_installed_mteb():
    """mteb changed code the fast reader restates: re-prove it (test_fastparse), then update."""
    import mteb

    assert mteb.__version__ == compat.RESULT_READER_MTEB
    assert compat.result_reader_digests() == compat.RESULT_READER_SOURCES
    assert compat.fast_reader_in_step() is True


def test_stored_as_is_takes_phase_timing_from_mteb():
    from typing import get_type_hints

    from mteb.timing import PhaseTiming

    hints = get_type_hints(PhaseTiming)
    assert compat._phase_keys() == {key: hint is str for key, hint in hints.items()}
    assert set(hints) == {"name", "start", "end", "split", "subset"}


def _joined(records: list[tuple[str, str | None, str, bool]]) -> list[tuple[str, Any, str]]:
    """``(model, revision, task)`` that mteb's ``join_revisions`` keeps of stand-in results."""
    from mteb.results import BenchmarkResults, ModelResult, TaskResult

    by_model: dict[tuple[str, Any], list[Any]] = {}
    for name, revision, task, scored in records:
        result = TaskResult.from_validated(
            task_name=task, mteb_version="2.26.24", scores={"test": []} if scored else {}
        )
        by_model.setdefault((name, revision), []).append(result)
    bench = BenchmarkResults(
        model_results=[
            ModelResult(model_name=n, model_revision=r, task_results=results)
            for (n, r), results in by_model.items()
        ]
    )
    return sorted(
        (m.model_name, m.model_revision, t.task_name)
        for m in bench.join_revisions()
        for t in m.task_results
    )


@pytest.mark.parametrize(
    "records",
    [
        [("org/a", "r1", "STS12", True), ("org/a", "r1", "STS13", True)],
        [("org/a", "r1", "STS12", True), ("org/a", "r2", "STS12", True)],  # two revisions
        [("org/a", "r1", "STS12", True), ("org/a", "r2", "STS13", True)],
        [("org/a", None, "STS12", True)],  # a None revision
        [("org/a", "r1", "STS12", True), ("org/a", "r1", "STS12", True)],  # a task twice
        [("org/a", "r1", "STS12", True), ("org/a", "r1", "STS13", False)],  # no scores
    ],
)
def test_join_passes_through_only_when_join_revisions_changes_nothing(records):
    revisions = len({r[1] for r in records})
    by_revision: dict[Any, list[tuple[str, bool]]] = {}
    for _, revision, task, scored in records:
        by_revision.setdefault(revision, []).append((task, scored))
    claims = [
        compat.join_passes_through(
            revisions, rev, [t for t, _ in items], [scored for _, scored in items]
        )
        for rev, items in by_revision.items()
    ]
    unchanged = _joined(records) == sorted((n, r, t) for n, r, t, _ in records)
    assert all(claims) <= unchanged  # passing through is only claimed when it is true
    if revisions == 1 and None not in by_revision:
        assert all(claims) == unchanged


# --------------------------------------------------------------------------- submitit


def test_submitit_pickle_load_reads_a_job_result(tmp_path):
    from submitit.core.utils import cloudpickle_dump  # how submitit writes <id>_result.pkl

    path = tmp_path / "7_0_0_result.pkl"
    cloudpickle_dump(("error", "Traceback (most recent call last):\nValueError: bad"), path)
    outcome, value = compat.submitit_pickle_load(path)
    assert outcome == "error" and value.endswith("ValueError: bad")


def test_submitit_job_paths_are_the_files_a_job_leaves(tmp_path):
    """The result pickle and stderr log of an array element, as submitit's own Job names them."""
    from submitit.slurm.slurm import SlurmJob

    paths = compat.submitit_job_paths(tmp_path, "12_3")
    assert paths.result_pickle == tmp_path.absolute() / "12_3_0_result.pkl"
    assert paths.stderr == tmp_path.absolute() / "12_3_0_log.err"
    job = SlurmJob(folder=tmp_path, job_id="12_3")  # what a SLURM job of submitit writes
    assert (job.paths.result_pickle, job.paths.stderr) == (paths.result_pickle, paths.stderr)


def test_submitit_failed_job_error_is_what_a_rejected_command_raises():
    """submitit runs sbatch through CommandFunction; a non-zero exit raises FailedJobError."""
    from submitit.core.utils import CommandFunction

    error = compat.submitit_failed_job_error()
    assert issubclass(error, Exception) and error.__name__ == "FailedJobError"
    with pytest.raises(error, match="rejected here"):
        CommandFunction(["sh", "-c", "echo 'sbatch: error: rejected here' >&2; exit 1"])()


# --------------------------------------------------------------------------- mteb tasks


def test_downloaded_revisions_reads_what_hf_download_records(tmp_path):
    """huggingface_hub's own writer and reader of a local folder's download records."""
    from huggingface_hub._local_folder import read_download_metadata, write_download_metadata

    assert compat.downloaded_revisions(tmp_path) == set()
    for name, commit in (("README.md", "a" * 40), ("data/test-00000.parquet", "b" * 40)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
        write_download_metadata(tmp_path, name, commit, etag="e")
        assert read_download_metadata(tmp_path, name).commit_hash == commit
    assert compat.downloaded_revisions(tmp_path) == {"a" * 40, "b" * 40}


def test_hf_languages_to_mteb():
    from mteb.languages import iso_mappings

    assert hasattr(iso_mappings, "_hf_langs_to_iso_lang_scripts")
    assert compat.hf_languages_to_mteb("en") == ["eng-Latn"]
    assert compat.hf_languages_to_mteb(["de", "eng", "multilingual"]) == ["deu-Latn", "eng-Latn"]
    assert compat.hf_languages_to_mteb(["multilingual"]) is None


def _results_checkout(root):
    import os
    import subprocess

    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}
    (root / "results").mkdir(parents=True)
    (root / "results" / ".gitkeep").write_text("")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "main"]):
        subprocess.run(["git", *args], cwd=root, check=True, env={**os.environ, **env})
    return env


def test_checkout_result_cache_submits_offline_without_touching_origin(tmp_path, monkeypatch):
    """submit_results through the subclass: a branch and a commit, no fetch, no reset."""
    import subprocess

    import mteb
    from mteb import ResultCache

    assert hasattr(ResultCache, "_get_unsubmitted_results")
    for key, value in _results_checkout(tmp_path / "checkout").items():
        monkeypatch.setenv(key, value)
    checkout = tmp_path / "checkout"
    subprocess.run(
        ["git", "remote", "add", "origin", "https://invalid.example/results"],
        cwd=checkout,
        check=True,
    )
    meta = mteb.get_model_meta("sentence-transformers/all-MiniLM-L6-v2", fetch_from_hf=False)
    folder = tmp_path / "cache" / "results" / meta.model_name_as_path() / meta.revision
    folder.mkdir(parents=True)
    task = mteb.get_task("STSBenchmark")
    result = {
        "dataset_revision": task.metadata.revision, "task_name": "STSBenchmark", "mteb_version": "2.26.24",
        "scores": {"test": [{"main_score": 0.8, "hf_subset": "default", "languages": ["eng-Latn"]}]},
        "evaluation_time": 1.0, "kg_co2_emissions": None,
    }  # fmt: skip
    (folder / "STSBenchmark.json").write_text(json.dumps(result))
    (folder / "model_meta.json").write_text(json.dumps(meta.to_dict(), default=str))
    (tmp_path / "cache" / "remote").symlink_to(checkout)
    cache = compat.checkout_result_cache(tmp_path / "cache")
    assert isinstance(cache, ResultCache)
    pending = compat.unsubmitted_result_files(cache, [meta])
    assert [p.name for p in pending[meta]] == ["STSBenchmark.json"]
    response = cache.submit_results([meta])
    assert response["status"] == "ready_for_submission" and response["result_count"] == 1
    branch = subprocess.run(
        ["git", "branch", "--show-current"], cwd=checkout, capture_output=True, text=True
    )
    assert branch.stdout.startswith("mteb-results-")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=checkout, capture_output=True, text=True
    ).stdout
    assert f"results/{meta.model_name_as_path()}/{meta.revision}/STSBenchmark.json" in tracked
    assert compat.unsubmitted_result_files(cache, [meta]) == {}
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError):
        compat.checkout_result_cache(tmp_path / "empty").download_from_remote()


# --------------------------------------------------------------------------- model registry


def test_registered_meta_reads_mteb_registry_without_the_hub():
    import mteb

    from analysis.core.compat import registered_meta, registered_model_names

    name = "sentence-transformers/all-MiniLM-L6-v2"
    assert registered_meta(name) == mteb.get_model_meta(name, fetch_from_hf=False)
    assert registered_meta("no-such-org/no-such-model") is None
    assert registered_model_names() == frozenset(
        meta.name for meta in mteb.get_model_metas() if meta.name
    )


def test_registered_meta_follows_renames_only_when_asked():
    import warnings

    import mteb
    from mteb.models.get_model_meta import _MODEL_RENAMES

    from analysis.core.compat import registered_meta

    old, new = next((o, n) for o, n in _MODEL_RENAMES.items() if registered_meta(n) is not None)
    assert registered_meta(old) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # mteb's rename notice
        assert registered_meta(old, follow_renames=True) == mteb.get_model_meta(old)
    assert registered_meta(old, follow_renames=True) == registered_meta(new)


def test_abs_encoder_is_mteb_encoder_base_loaded_on_first_use():
    from mteb.models.abs_encoder import AbsEncoder  # the private module compat relies on

    assert "AbsEncoder" not in vars(compat)  # not imported with the module
    assert compat.AbsEncoder is AbsEncoder
    assert {"encode", "similarity", "similarity_pairwise"} <= set(dir(AbsEncoder))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        compat.nothing  # noqa: B018


def test_scoring_function_is_what_model_meta_validates():
    from mteb.models import ModelMeta

    empty = ModelMeta.create_empty()
    validated = type(empty).model_validate({**empty.model_dump(), "similarity_fn_name": "cosine"})
    assert compat.scoring_function("cosine") is validated.similarity_fn_name
    with pytest.raises(ValueError):
        compat.scoring_function("no such function")


@pytest.fixture(scope="module")
def registry_sample():
    """Registered models with and without training data, and one adapted from another."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    metas = sorted(MODEL_REGISTRY.items())
    with_data = [n for n, m in metas if m.training_datasets][:3]
    without = [n for n, m in metas if m.training_datasets is None][:2]
    adapted = [n for n, m in metas if m.adapted_from in MODEL_REGISTRY][:2]
    assert with_data and without and adapted
    return {name: MODEL_REGISTRY[name] for name in with_data + without + adapted}


def test_training_datasets_are_model_meta_get_training_datasets(registry_sample):
    from mteb.benchmarks._create_table import _training_datasets_cached  # what compat wraps

    for name, meta in registry_sample.items():
        public = meta.get_training_datasets()
        expected = None if public is None else frozenset(public)
        assert compat.training_datasets(name) == expected == _training_datasets_cached(name)
    assert compat.training_datasets("no-org/no-such-model") is None


def test_zero_shot_percentage_is_model_meta_zero_shot_percentage(registry_sample):
    from mteb.benchmarks._create_table import _zero_shot_pct_cached  # what compat wraps

    tasks = ("STS12", "SciFact", "NFCorpus", "Banking77Classification", "MSMARCO")
    for name, meta in registry_sample.items():
        expected = meta.zero_shot_percentage(list(tasks))
        assert compat.zero_shot_percentage(name, tasks) == expected, name
        assert _zero_shot_pct_cached(name, tuple(sorted(tasks))) == expected
    assert compat.zero_shot_percentage("no-org/no-such-model", tasks) is None


def test_leaderboard_model_columns_are_mteb_table_columns(registry_sample):
    from mteb.benchmarks._create_table import _static_model_meta  # what compat wraps

    columns = compat.leaderboard_model_columns()
    assert columns is _static_model_meta()
    for name, meta in registry_sample.items():
        row = columns[name]
        assert set(row) >= {
            "Max Tokens",
            "Embedding Dimensions",
            "Total Parameters (B)",
            "Active Parameters (B)",
            "Release Date",
        }
        assert row["Embedding Dimensions"] == meta.embed_dim or meta.embed_dim is None


def test_model_folder_name_is_mteb_model_name_as_path():
    import mteb

    from analysis.core.errors import model_folder_name

    for meta in mteb.get_model_metas():
        assert model_folder_name(str(meta.name)) == meta.model_name_as_path(), meta.name


# --------------------------------------------------------------------------- classification


@pytest.fixture
def classification_fix():
    """mteb's own functions before the test, and checked to be back after it."""
    original = _mteb_classification_functions()
    assert compat._classification_users == 0
    yield compat
    assert compat._classification_users == 0
    assert _mteb_classification_functions() == original


def _mteb_classification_functions():
    from mteb import _create_dataloaders
    from mteb._evaluators.sklearn_evaluator import SklearnEvaluator
    from mteb.abstasks.classification import AbsTaskClassification
    from mteb.abstasks.multilabel_classification import AbsTaskMultilabelClassification
    from mteb.abstasks.pair_classification import AbsTaskPairClassification

    return (
        AbsTaskClassification.__dict__["_undersample_data"],
        AbsTaskClassification.__dict__["_calculate_scores"],
        SklearnEvaluator.__dict__["__call__"],
        AbsTaskPairClassification.__dict__["_compute_metrics"],
        AbsTaskMultilabelClassification.__dict__["_undersample_data_indices"],
        _create_dataloaders.__dict__["_create_dataloader_from_texts"],
    )


def test_classification_fix_nests_and_is_undone(classification_fix):
    original = _mteb_classification_functions()
    with compat.speed_up_classification() as in_place:
        assert in_place is True
        patched = _mteb_classification_functions()
        assert all(p is not o for p, o in zip(patched, original, strict=True))
        with compat.speed_up_classification() as again:  # nested: nothing changes
            assert again is True
            assert _mteb_classification_functions() == patched
        assert _mteb_classification_functions() == patched  # the outer block still runs
    assert _mteb_classification_functions() == original


@pytest.mark.parametrize("stop", [RuntimeError, KeyboardInterrupt])
def test_classification_fix_is_undone_when_the_block_raises(classification_fix, stop):
    original = _mteb_classification_functions()
    with pytest.raises(stop), compat.speed_up_classification():
        assert _mteb_classification_functions() != original
        raise stop("stopped in the block")
    assert _mteb_classification_functions() == original


def test_classification_fix_in_two_threads_is_undone_by_the_last(classification_fix):
    """Two threads, blocks overlapping: in place while either runs, mteb's when both ended."""
    import threading

    original = _mteb_classification_functions()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def first() -> None:
        with compat.speed_up_classification():
            first_in.set()
            second_in.wait(30)
        first_out.set()

    def second() -> None:
        first_in.wait(30)
        with compat.speed_up_classification():
            second_in.set()
            first_out.wait(30)
            seen["after the first ended"] = _mteb_classification_functions()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert first_out.is_set() and not any(thread.is_alive() for thread in threads)
    patched = seen["after the first ended"]
    assert all(p is not o for p, o in zip(patched, original, strict=True))
    assert _mteb_classification_functions() == original


def test_classification_fix_never_half_restored_for_a_concurrent_block(classification_fix):
    """Threads entering and leaving at random: inside a block, every function is the fix's."""
    import threading

    original = _mteb_classification_functions()
    errors: list[str] = []

    def churn(rounds: int) -> None:
        for _ in range(rounds):
            with compat.speed_up_classification():
                now = _mteb_classification_functions()
                mteb_own = sum(n is o for n, o in zip(now, original, strict=True))
                if mteb_own:
                    errors.append(f"{mteb_own} of 6 functions mteb's inside a block")

    threads = [threading.Thread(target=churn, args=(300,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors[:3]
    assert _mteb_classification_functions() == original


def test_classification_fix_turns_itself_off_for_changed_mteb_code(
    classification_fix, monkeypatch, caplog
):
    original = _mteb_classification_functions()
    sources = {**compat.CLASSIFICATION_FIX_SOURCES, "SklearnEvaluator.__call__": "0" * 16}
    monkeypatch.setattr(compat, "CLASSIFICATION_FIX_SOURCES", sources)
    monkeypatch.setattr(compat, "_classification_notes", [])
    with caplog.at_level("WARNING", logger="analysis.core.compat"):
        for _ in range(2):
            with compat.speed_up_classification() as in_place:
                assert in_place is False
                assert _mteb_classification_functions() == original
    assert _mteb_classification_functions() == original
    notes = [r.getMessage() for r in caplog.records if "classification speed-up" in r.getMessage()]
    assert len(notes) == 1 and "SklearnEvaluator.__call__" in notes[0], notes


def test_classification_fix_sources_are_the_installed_mteb():
    """The recorded sources are the pinned mteb's (fails on an upgrade: re-check the fix)."""
    import mteb

    if mteb.__version__ != compat.CLASSIFICATION_FIX_MTEB:
        pytest.skip(f"mteb {mteb.__version__}: the fix was written for another version")
    digests = [compat._source_digest(f) for f in _mteb_classification_functions()]
    assert digests == list(compat.CLASSIFICATION_FIX_SOURCES.values())


#: Every how-many-th intent of Banking77Classification the tests keep (see banking20).
BANKING_STRIDE = 4


@pytest.fixture(scope="module")
def banking20(tmp_path_factory):
    """A local task of the Banking77Classification rows whose intent id is a multiple of 4.

    20 of the 77 intents, every train and test row of those, in mteb's order: a smaller
    real classification task, so that the classification benchmark
    (benchmarks/bench_classification.py), which runs the whole of Banking77, measures a
    task the tests do not use.
    """
    from tests._run_fixtures import SHARED_TASKS

    source = SHARED_TASKS / "Banking77Classification"
    if not source.is_dir():
        pytest.skip(f"needs the shared task copies at {SHARED_TASKS} (set SHARED_DIR)")
    folder = tmp_path_factory.mktemp("local-tasks") / "Banking20"
    folder.mkdir()
    spec = json.loads((source / "task.json").read_text(encoding="utf-8"))
    spec["source"] = f"{spec['source']}; intents whose id is a multiple of {BANKING_STRIDE}"
    (folder / "task.json").write_text(json.dumps(spec), encoding="utf-8")
    for split in ("train", "test"):
        lines = (source / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if json.loads(line)["label"] % BANKING_STRIDE == 0]
        (folder / f"{split}.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder


def _banking20(folder):
    from analysis.runs.local_tasks import load_local_task

    task = load_local_task(folder)
    task.load_data()
    return task


def test_classification_fix_undersamples_and_scores_like_mteb(classification_fix, banking20):
    """Same training rows in every experiment and the same metrics, on Banking77 labels."""
    import numpy as np
    from datasets.arrow_dataset import Column

    task = _banking20(banking20)
    train, test = task.dataset["train"], task.dataset["test"]
    assert isinstance(test["label"], Column)  # what mteb hands to scikit-learn
    y_pred = np.random.default_rng(0).permutation(np.asarray(test["label"][:]))

    def run() -> tuple[list, dict]:
        picks, idxs = [], None
        for i in range(3):
            _, idxs, selected = task._undersample_data(train, i, idxs)
            picks.append((list(idxs), selected))
        return picks, task._calculate_scores(test["label"], y_pred)

    mteb_picks, mteb_scores = run()
    with compat.speed_up_classification() as in_place:
        assert in_place is True
        assert run() == (mteb_picks, mteb_scores)
    assert len(mteb_picks[0][1]) == 20 * task.samples_per_label


def test_classification_fix_selects_without_datasets_hashing_in_its_bare_except(
    classification_fix, banking20, monkeypatch
):
    """The undersampled rows get their fingerprint from the fix, one per selection.

    datasets hashes a transform's arguments inside a bare ``except:``, which swallowed a
    Ctrl-C landing there (the walk's Ctrl-C step missed its moment so): the fix's
    ``select`` never calls it, and the fingerprint still tells two selections apart.
    """
    from datasets import arrow_dataset, fingerprint

    task = _banking20(banking20)
    train = task.dataset["train"]
    hashed = []

    def update_fingerprint(*args, **kwargs):
        hashed.append(args)
        return original(*args, **kwargs)

    original = fingerprint.update_fingerprint
    monkeypatch.setattr(fingerprint, "update_fingerprint", update_fingerprint)
    assert arrow_dataset.fingerprint_transform is fingerprint.fingerprint_transform
    task._undersample_data(train, 0)
    assert hashed, "datasets no longer hashes in select: the fix's fingerprint can go"
    hashed.clear()
    with compat.speed_up_classification() as in_place:
        assert in_place, "mteb changed a function the fix replaces"
        first, idxs, _ = task._undersample_data(train, 0)
        second, _, _ = task._undersample_data(train, 1, idxs)
    assert hashed == []
    assert len({train._fingerprint, first._fingerprint, second._fingerprint}) == 3


def _run_recording(tmp_path, monkeypatch, *, stop=None, during=None):
    """``run_evaluation`` of one model whose run records mteb's functions (and may raise)."""
    from analysis.runs import runner

    seen = []

    def run_model(*args, **kwargs):
        seen.append(_mteb_classification_functions())
        if during is not None:
            during()
        if stop is not None:
            raise stop("stopped in the run")

    monkeypatch.setattr(runner, "_run_model", run_model)
    runner.run_evaluation(["a/model"], ["STSBenchmark"], results_dir=tmp_path, show_progress=False)
    return seen


def test_run_evaluation_applies_the_fix_for_the_run_only(classification_fix, tmp_path, monkeypatch):
    original = _mteb_classification_functions()
    seen = _run_recording(tmp_path, monkeypatch)
    assert all(p is not o for p, o in zip(seen[0], original, strict=True))
    assert _mteb_classification_functions() == original  # a user's own mteb.evaluate: mteb's


@pytest.mark.parametrize("stop", [RuntimeError, KeyboardInterrupt])
def test_run_evaluation_that_raises_restores_mteb(classification_fix, tmp_path, monkeypatch, stop):
    original = _mteb_classification_functions()
    with pytest.raises(stop):  # a KeyboardInterrupt comes out as RunInterrupted, one
        _run_recording(tmp_path, monkeypatch, stop=stop)
    assert _mteb_classification_functions() == original


def test_nested_run_evaluation_keeps_the_outer_runs_fix(classification_fix, tmp_path, monkeypatch):
    original = _mteb_classification_functions()
    after_inner = []

    def inner_run() -> None:
        from analysis.runs.runner import run_evaluation

        run_evaluation([], ["STSBenchmark"], results_dir=tmp_path, show_progress=False)
        after_inner.append(_mteb_classification_functions())

    seen = _run_recording(tmp_path, monkeypatch, during=inner_run)
    assert after_inner == seen and seen[0] != original
    assert _mteb_classification_functions() == original


def test_run_evaluation_in_two_threads(classification_fix, tmp_path, monkeypatch):
    """The first run to end leaves the other's fix in place; the last restores mteb's."""
    import threading

    from analysis.runs import runner

    original = _mteb_classification_functions()
    both_in, first_done = threading.Barrier(2, timeout=60), threading.Event()
    seen: dict[str, tuple] = {}

    def run_model(label, *args, **kwargs):
        both_in.wait()
        if label == "a/second":
            first_done.wait(60)
            seen["second, after the first ended"] = _mteb_classification_functions()

    def run(label: str) -> None:
        runner.run_evaluation(
            [label], ["STSBenchmark"], results_dir=tmp_path / label, show_progress=False
        )
        if label == "a/first":
            first_done.set()

    monkeypatch.setattr(runner, "_run_model", run_model)
    threads = [threading.Thread(target=run, args=(f"a/{n}",)) for n in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert first_done.is_set() and not any(thread.is_alive() for thread in threads)
    patched = seen["second, after the first ended"]
    assert all(p is not o for p, o in zip(patched, original, strict=True))
    assert _mteb_classification_functions() == original


@pytest.mark.slow
def test_classification_fix_gives_mteb_scores_on_banking20(
    classification_fix, tmp_path_factory, banking20
):
    """A static model on 20 intents of Banking77: every split, subset, metric and experiment."""
    import mteb

    from analysis.runs.models import load_model
    from tests._run_fixtures import distilled_static_model

    model = load_model(distilled_static_model(tmp_path_factory))
    task = _banking20(banking20)
    assert task.dataset["test"].num_rows < 3080 / 3  # not the task the benchmark measures

    def scores() -> str:
        result = mteb.evaluate(
            model,
            task,
            cache=None,
            encode_kwargs={"batch_size": 256, "show_progress_bar": False},
            show_progress_bar=False,
            raise_error=True,
            co2_tracker=False,
        )
        return json.dumps(result.task_results[0].scores, sort_keys=True)  # NaN-safe equality

    mteb_scores = scores()
    with compat.speed_up_classification() as in_place:
        assert in_place is True
        fixed = scores()
    assert fixed == mteb_scores
    per_experiment = json.loads(fixed)["test"][0]["scores_per_experiment"]
    assert len(per_experiment) == task.n_experiments


def test_text_dataloader_reads_the_column_once_and_yields_mteb_batches(
    classification_fix, monkeypatch
):
    """The texts ``create_dataloader`` feeds a model, as mteb builds them and read at once."""
    import mteb
    from datasets import Dataset
    from datasets.arrow_dataset import Column
    from mteb._create_dataloaders import create_dataloader

    texts = [f"text {i} " * (i % 7) for i in range(1000)]
    dataset = Dataset.from_dict({"text": texts, "label": [i % 5 for i in range(1000)]})
    metadata = mteb.get_task("Banking77Classification").metadata

    def batches() -> list:
        loader = create_dataloader(dataset, task_metadata=metadata, input_column="text")
        return list(loader)

    mteb_batches = batches()
    assert [t for batch in mteb_batches for t in batch["text"]] == texts

    whole = Column.__getitem__

    def no_row_by_row(self, key):
        if isinstance(key, int):
            raise AssertionError(f"row {key} of the text Column was read alone")
        return whole(self, key)

    monkeypatch.setattr(Column, "__getitem__", no_row_by_row)
    monkeypatch.setattr(Column, "__iter__", lambda self: no_row_by_row(self, 0))
    with compat.speed_up_classification() as in_place:
        assert in_place is True
        assert batches() == mteb_batches
    with pytest.raises(AssertionError, match="read alone"):
        batches()  # mteb's own code does read it row by row (so the check above can fail)


def test_pair_classification_labels_read_once_give_mteb_metrics(classification_fix):
    """The label Column of a pair classification split, as mteb scores it, and read at once."""
    import mteb
    import numpy as np
    from datasets import Dataset

    rng = np.random.default_rng(0)
    n = 2000
    labels = Dataset.from_dict({"labels": rng.integers(0, 2, n).tolist()})["labels"]
    distances = {
        key: rng.normal(size=n).round(2).tolist()  # rounded: ties in the thresholds
        for key in (
            "similarity_scores",
            "cosine_scores",
            "manhattan_distances",
            "euclidean_distances",
            "dot_scores",
        )
    }
    task = mteb.get_task("SprintDuplicateQuestions")
    mteb_metrics = task._compute_metrics(distances, labels)
    with compat.speed_up_classification() as in_place:
        assert in_place is True
        assert task._compute_metrics(distances, labels) == mteb_metrics
    assert len(mteb_metrics) > 20


@pytest.mark.slow
def test_classification_fix_gives_mteb_scores_on_pair_classification(
    classification_fix, tmp_path_factory
):
    """The static model on the pair classification fixture: every score, with and without."""
    import mteb

    from analysis.runs.local_tasks import load_local_task
    from analysis.runs.models import load_model
    from tests._run_fixtures import FIXTURES, distilled_static_model

    model = load_model(distilled_static_model(tmp_path_factory))
    task = load_local_task(FIXTURES / "PairClassification")

    def scores() -> str:
        result = mteb.evaluate(
            model, task, cache=None, show_progress_bar=False, raise_error=True, co2_tracker=False
        )
        return json.dumps(result.task_results[0].scores, sort_keys=True)

    mteb_scores = scores()
    with compat.speed_up_classification() as in_place:
        assert in_place is True
        assert scores() == mteb_scores


def test_multilabel_undersampling_reads_labels_once_and_picks_mteb_rows(classification_fix):
    """Multilabel undersampling (no local multilabel task: label lists drawn at random)."""
    import mteb
    import numpy as np
    from datasets import Dataset

    rng = np.random.default_rng(0)
    rows = [sorted(set(rng.integers(0, 20, rng.integers(1, 4)).tolist())) for _ in range(3000)]
    labels = Dataset.from_dict({"label": rows})["label"]
    task = mteb.get_task("CEDRClassification")

    def picks() -> list[tuple[list[int], list[int]]]:
        task.np_rng = np.random.RandomState(task.seed)  # mteb's per-task generator
        return [task._undersample_data_indices(labels, 8, None) for _ in range(3)]

    mteb_picks = picks()
    with compat.speed_up_classification() as in_place:
        assert in_place is True
        assert picks() == mteb_picks
    assert all(len(chosen) >= 8 * 20 / 3 for chosen, _ in mteb_picks)


def test_float64_token_encoding_is_in_place_and_undone():
    import model2vec.distill.inference as inference

    original = inference._encode_mean_with_model
    with compat.float64_token_encoding() as in_place:
        assert in_place is True
        assert inference._encode_mean_with_model is compat._encode_mean_float64
    assert inference._encode_mean_with_model is original


def test_float64_token_encoding_turns_itself_off_for_changed_model2vec_code(monkeypatch, caplog):
    import model2vec.distill.inference as inference

    original = inference._encode_mean_with_model
    sources = {**compat.FLOAT64_ENCODING_SOURCES, "create_embeddings": "0" * 16}
    monkeypatch.setattr(compat, "FLOAT64_ENCODING_SOURCES", sources)
    monkeypatch.setattr(compat, "_float64_notes", [])
    with caplog.at_level("WARNING", logger="analysis.core.compat"):
        for _ in range(2):
            with compat.float64_token_encoding() as in_place:
                assert in_place is False
                assert inference._encode_mean_with_model is original
    notes = [r.getMessage() for r in caplog.records if "float32" in r.getMessage()]
    assert len(notes) == 1 and "create_embeddings" in notes[0], notes


def test_float64_encoding_sources_are_the_installed_model2vec():
    """The recorded sources are the pinned model2vec's (fails on an upgrade: re-check)."""
    import model2vec
    import model2vec.distill.inference as inference

    if model2vec.__version__ != compat.FLOAT64_ENCODING_MODEL2VEC:
        pytest.skip(f"model2vec {model2vec.__version__}: written for another version")
    digests = {
        name: compat._source_digest(getattr(inference, name))
        for name in compat.FLOAT64_ENCODING_SOURCES
    }
    assert digests == compat.FLOAT64_ENCODING_SOURCES


def test_float64_encoding_is_model2vecs_mean_in_float64(tmp_path):
    """Against model2vec's own float32 pooling, on a batch of different lengths with padding."""
    import copy

    import model2vec.distill.inference as inference
    import torch
    from transformers import AutoModel

    from tests._run_fixtures import tiny_teacher

    model = AutoModel.from_pretrained(tiny_teacher(tmp_path / "tiny-bert")).eval()
    ids = torch.tensor([[2, 10, 3, 0, 0], [2, 11, 12, 13, 3], [2, 14, 3, 0, 0]])
    encodings = {
        "input_ids": ids,
        "attention_mask": (ids != 0).long(),
        "token_type_ids": torch.zeros_like(ids),
    }
    theirs = inference._encode_mean_with_model(model, encodings)
    ours = compat._encode_mean_float64(copy.deepcopy(model).double(), encodings)
    assert ours.dtype == torch.float64 and theirs.dtype == torch.float32
    torch.testing.assert_close(ours.float(), theirs, rtol=1e-5, atol=1e-6)
    assert not torch.equal(ours, theirs.double())  # float64 indeed: not float32 widened


def test_token_embedding_sources_are_the_installed_model2vec():
    """The recorded sources are the pinned model2vec's (fails on an upgrade: re-check)."""
    import model2vec
    import model2vec.distill.distillation as distillation
    import model2vec.distill.inference as inference

    if model2vec.__version__ != compat.FLOAT64_ENCODING_MODEL2VEC:
        pytest.skip(f"model2vec {model2vec.__version__}: written for another version")
    modules = {"distill_from_model": distillation, "create_embeddings": inference}
    digests = {name: compat._source_digest(getattr(modules[name], name)) for name in modules}
    assert digests == compat.TOKEN_EMBEDDING_SOURCES


def test_token_embeddings_route_through_the_wrapper_and_are_restored(monkeypatch):
    import model2vec.distill.distillation as distillation

    original = distillation.create_embeddings
    calls: list[tuple[object, dict]] = []
    with compat.token_embeddings_through(lambda f, kw: calls.append((f, kw)) or "kept") as on:
        assert on is True
        assert distillation.create_embeddings(model="m", tokenized=[[1]]) == "kept"
    assert calls == [(original, {"model": "m", "tokenized": [[1]]})]
    assert distillation.create_embeddings is original
    changed = {**compat.TOKEN_EMBEDDING_SOURCES, "distill_from_model": "0" * 16}
    monkeypatch.setattr(compat, "TOKEN_EMBEDDING_SOURCES", changed)
    with compat.token_embeddings_through(lambda f, kw: "kept") as on:  # model2vec changed
        assert on is False and distillation.create_embeddings is original


# --------------------------------------------------------------------------- the guard
#
# Every module of the project's code is parsed (AST, not text) and any access to the
# private API of the libraries compat.py wraps is reported: an import from a module path
# with an underscore part, an import of a name from anywhere but a public ``__init__`` that
# exports it (``from mteb.abstasks.abstask import AbsTask`` is private, ``from
# mteb.abstasks import AbsTask`` is not), an underscore attribute reached from an imported
# name (``ResultCache._x``, ``mteb.a._b``), an underscore attribute the project itself never
# defines (``cache._get_unsubmitted_results``: an instance of someone else's class),
# ``getattr``/``setattr``/``hasattr`` of such a name, pydantic's ``model_construct`` (it
# skips the validation mteb's objects rely on), and replacing a library's attribute
# (``task.load_data = ...``, ``mteb.x.y = ...``).

ROOT = Path(compat.__file__).resolve().parents[2]  # the checkout
SCANNED = ("analysis", "tools", "benchmarks", "notebooks")
WRAPPED = ("mteb", "submitit", "model2vec")
COMPAT = "analysis/core/compat.py"
#: Python's own underscore names the project uses on purpose (not a wrapped library's).
PYTHON_PRIVATE = frozenset({"_SubParsersAction", "_actions", "_exit"})


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@functools.cache
def _source(name: str) -> tuple[Path, bool] | None:
    """``(file, is a package)`` of an installed module, found without importing it."""
    top, *parts = name.split(".")
    spec = importlib.util.find_spec(top)  # a top-level look-up imports nothing
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    for i, part in enumerate(parts):
        if (folder / part / "__init__.py").is_file():
            folder = folder / part
        elif i == len(parts) - 1 and (folder / f"{part}.py").is_file():
            return folder / f"{part}.py", False
        else:
            return None
    return folder / "__init__.py", True


@functools.cache
def _exported(name: str) -> frozenset[str]:
    """The names a package's ``__init__`` exports: its ``__all__``, else its public names."""
    found = _source(name)
    if found is None or not found[1]:  # not a package: a plain module is no public __init__
        return frozenset()
    tree = ast.parse(found[0].read_text(encoding="utf-8"))
    listed: list[str] = []
    defined: list[str] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = getattr(node, "value", None)
            if isinstance(value, ast.List | ast.Tuple):
                listed += [e.value for e in value.elts if isinstance(e, ast.Constant)]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            defined += [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.append(node.name)
        defined += [t.id for t in targets if isinstance(t, ast.Name)]
    return frozenset(n for n in listed or defined if not _is_private(n))


def _is_package(name: str) -> bool:
    found = _source(name)
    return found is not None and found[1]


def _reached_privately(origin: str, chain: list[str]) -> str | None:
    """Why ``origin.chain`` reaches past the libraries' public ``__init__``s, or None.

    Walking from a module, each step must be a name its package's ``__init__`` exports or
    a subpackage; once past the modules (a class, a function), only underscore names count.
    """
    name = origin
    for attr in chain:
        if _is_private(attr):
            return "a private name"
        if attr.startswith("__") or _source(name) is None:
            return None
        if not _is_package(name):
            return f"inside the module {name}, not a public __init__"
        if attr not in _exported(name) and not _is_package(f"{name}.{attr}"):
            return f"not exported by {name}"
        name = f"{name}.{attr}"
    return None


def _imported_from_wrapped(tree: ast.AST) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """Names bound to a wrapped library (name -> dotted origin), and private imports."""
    bound, found = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in WRAPPED:
                    if any(_is_private(p) for p in alias.name.split(".")):
                        found.append((node.lineno, f"import {alias.name}: a private module"))
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] not in WRAPPED:
                continue
            for alias in node.names:
                origin = f"{node.module}.{alias.name}"
                bound[alias.asname or alias.name] = origin
                what = f"from {node.module} import {alias.name}"
                if any(_is_private(p) for p in origin.split(".")):
                    found.append((node.lineno, f"{what}: a private name"))
                elif alias.name not in _exported(node.module) and _source(origin) is None:
                    found.append((node.lineno, f"{what}: not exported by a public __init__"))
    return bound, found


def _attribute_root(node: ast.Attribute) -> tuple[ast.expr, list[str]]:
    chain = [node.attr]
    value = node.value
    while isinstance(value, ast.Attribute):
        chain.append(value.attr)
        value = value.value
    return value, chain[::-1]


def private_access(
    source: str | ast.Module, ours: frozenset[str] = frozenset()
) -> list[tuple[int, str]]:
    """``(line, what)`` of every private access to a wrapped library in ``source``.

    Args:
        source: Python source, or its syntax tree.
        ours: Underscore names the project defines itself (attributes of its own objects).
    """
    tree = ast.parse(source) if isinstance(source, str) else source
    bound, found = _imported_from_wrapped(tree)
    for node in ast.walk(tree):  # a name also assigned in the file may not be the library
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.pop(node.id, None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root, chain = _attribute_root(node)
            from_wrapped = isinstance(root, ast.Name) and root.id in bound
            if node.attr == "model_construct":
                found.append((node.lineno, "model_construct: builds an object unvalidated"))
            elif from_wrapped and isinstance(node.ctx, ast.Store):
                found.append((node.lineno, f"replaces {bound[root.id]}.{'.'.join(chain)}"))
            elif node.attr == "load_data" and isinstance(node.ctx, ast.Store):
                found.append((node.lineno, "replaces a task's load_data"))
            elif from_wrapped and (why := _reached_privately(bound[root.id], chain)):
                found.append((node.lineno, f"{bound[root.id]}.{'.'.join(chain)}: {why}"))
            elif _is_private(node.attr) and node.attr not in ours | PYTHON_PRIVATE:
                found.append((node.lineno, f".{node.attr}: another library's private attribute"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = node.args
            if node.func.id in {"getattr", "setattr", "hasattr"} and len(args) >= 2:
                name = args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    if _is_private(name.value) and name.value not in ours:
                        found.append((node.lineno, f"{node.func.id}(..., {name.value!r})"))
    return sorted(set(found))


def _our_names(trees: list[ast.Module]) -> frozenset[str]:
    """Every underscore name the project's code defines (functions, classes, attributes...)."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
                names.add(node.id if isinstance(node, ast.Name) else node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
    return frozenset(n for n in names if _is_private(n))


def _scanned() -> list[Path]:
    return sorted(p for folder in SCANNED for p in (ROOT / folder).rglob("*.py"))


def test_no_private_access_to_wrapped_libraries_outside_compat():
    trees = {p.relative_to(ROOT).as_posix(): ast.parse(p.read_text("utf-8")) for p in _scanned()}
    ours = _our_names(list(trees.values()))
    offenders = [
        f"{rel}:{line}: {what}"
        for rel, tree in trees.items()
        if rel != COMPAT
        for line, what in private_access(tree, ours)
    ]
    assert not offenders, (
        "private API of mteb/submitit/model2vec outside analysis/core/compat.py; add a wrapper "
        "there (with a test that fails when the library changes it):\n" + "\n".join(offenders)
    )


@pytest.mark.parametrize(
    "line",
    [
        "from mteb.get_tasks import _TASKS_REGISTRY",
        "from mteb._create_dataloaders import create_dataloader",
        "import mteb._create_dataloaders",
        "from mteb.abstasks.clustering_legacy import AbsTaskClusteringLegacy",
        "from submitit.core.utils import pickle_load",
        "from mteb import ResultCache\nResultCache._get_model_name_and_revision_from_path(p)",
        "import mteb\nmteb.results.task_result._helper()",
        "import submitit\nsubmitit.core.utils.FailedJobError",
        "cache._get_unsubmitted_results(models)",
        "getattr(result, '_fix_pair_classification_scores')",
        "TaskResult.model_construct(task_name='x')",
        "task.load_data = types.MethodType(f, task)",
        "import model2vec.distill.inference as inference\ninference.create_embeddings = f",
        "from mteb.results import task_result\ntask_result.outdated_tasks",
        "import mteb\nmteb.abstasks.abstask.AbsTask",
    ],
)
def test_the_guard_finds_each_kind_of_private_access(line):
    assert private_access(line), line


@pytest.mark.parametrize(
    "line",
    [
        "from mteb.results import TaskResult",
        "from mteb.abstasks import AbsTaskClusteringLegacy",
        "from mteb import ResultCache\nResultCache(path).load_results()",
        "import mteb\nmteb.get_task('STS12').metadata.name",
        "from model2vec.distill import distill_from_model",
        "from mteb.results import task_result",
        "import mteb\nmteb.results.TaskResult.from_disk(p).scores",
        "import mteb\nmteb.__version__",
        "self._cache = {}\nself._cache.clear()",
        "TaskResult.from_validated(task_name='x')",
    ],
)
def test_the_guard_passes_public_access(line):
    assert not private_access(line, frozenset({"_cache"})), line
