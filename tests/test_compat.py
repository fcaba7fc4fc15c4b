"""Every use of mteb's private API goes through analysis.compat, and each one still works.

Each test below exercises one wrapper against the installed mteb and fails loudly when an
mteb upgrade renames or changes the private name it wraps. The last test keeps private
names out of every other module.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from packaging.version import Version

from analysis import compat

PACKAGE = Path(compat.__file__).resolve().parent


def test_task_registry_is_mteb_private_registry():
    from mteb.get_tasks import _TASKS_REGISTRY  # the private name compat relies on

    registry = compat.task_registry()
    assert registry is _TASKS_REGISTRY
    assert "STSBenchmark" in registry and "SciFact" in registry
    assert registry["SciFact"].metadata.type == "Retrieval"


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


STRINGS_AND_COMMENTS = re.compile(r"\"[^\"]*\"|'[^']*'|#.*$")
PRIVATE = re.compile(
    r"from\s+mteb[\w.]*\s+import\s+\(?[^)\n]*\b_\w+"  # from mteb.x import _name
    r"|from\s+mteb[\w.]*\._\w+"  # from mteb._module import ...
    r"|\bmteb(?:\.\w+)*\._(?!_)\w+"  # mteb.x._name (not dunders)
    r"|\b(?:ResultCache|TaskResult|BenchmarkResults|ModelResult|ModelMeta)\._[a-z]\w*"
)


def test_no_private_mteb_name_outside_compat():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "compat.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if PRIVATE.search(STRINGS_AND_COMMENTS.sub("", line)):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert not offenders, "use analysis.compat for mteb's private API:\n" + "\n".join(offenders)


def test_private_pattern_catches_the_known_forms():
    for line in [
        "from mteb.get_tasks import _TASKS_REGISTRY",
        "from mteb._create_dataloaders import create_dataloader",
        "x = ResultCache._get_model_name_and_revision_from_path(p)",
        "mteb.results.task_result._helper()",
    ]:
        assert PRIVATE.search(line), line
    assert not PRIVATE.search("from mteb.results import TaskResult")


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
