"""The patches to send to mteb (``docs/mteb-patches/``, written by ``tools/mteb_patches.py``).

The files are the script's output for the installed mteb, they apply to it, and mteb with
them applied gives what the installed mteb gives: the same training datasets for every
registered model, the same result files read (and the same ones refused), the same pair
classification scores, the same undersampled rows and text batches.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("mteb_patches", REPO / "tools/mteb_patches.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


@pytest.mark.parametrize("name", sorted(TOOL.PATCHES))
def test_patch_file_is_the_scripts_output(name):
    path = TOOL.OUT / f"{name}.diff"
    assert path.read_text(encoding="utf-8") == TOOL.unified_diff(name), (
        f"{path} is stale: run python tools/mteb_patches.py"
    )


def _apply(names: list[str], target: Path, *, check: bool) -> None:
    for name in names:
        command = ["git", "apply", *(["--check"] if check else []), str(TOOL.OUT / f"{name}.diff")]
        done = subprocess.run(command, cwd=target, capture_output=True, text=True)
        assert done.returncode == 0, f"{name}: {done.stderr}"


@pytest.mark.parametrize("name", sorted(TOOL.PATCHES))
def test_patch_applies_to_the_installed_mteb(name, tmp_path):
    for rel in {rel for rel, _, _ in TOOL.PATCHES[name]}:
        (tmp_path / "mteb" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TOOL.mteb_folder() / rel, tmp_path / "mteb" / rel)
    _apply([name], tmp_path, check=True)


PROBE = r"""
import json, sys, warnings
from pathlib import Path

warnings.filterwarnings("ignore")
import mteb
from datasets import Dataset, DatasetDict
from mteb.models.model_implementations import MODEL_REGISTRY
from mteb.results import TaskResult

from analysis.core import compat
from tests._run_fixtures import hashing_encoder

files, scratch = Path(sys.argv[1]), Path(sys.argv[2])
out = {"mteb": mteb.__file__}
out["training"] = {
    name: sorted(meta.get_training_datasets() or []) for name, meta in sorted(MODEL_REGISTRY.items())
}
out["files"] = {}
for path in sorted(files.glob("*.json")):
    try:
        out["files"][path.name] = TaskResult.from_disk(path).model_dump(mode="json")
    except Exception as err:
        out["files"][path.name] = type(err).__name__

texts = ["how do I install it", "install steps please", "a cat", "the weather today"] * 3
rows = {"sentence1": texts, "sentence2": texts[::-1], "labels": [1, 0, 0, 1] * 3}
task = mteb.get_task("SprintDuplicateQuestions")
task.filter_eval_splits(["test"])
task.dataset = {"default": DatasetDict({"test": Dataset.from_dict(rows)})}
task.data_loaded = True  # preloaded: mteb.evaluate neither loads nor unloads it
result = mteb.evaluate(
    hashing_encoder(), task, cache=mteb.ResultCache(scratch), co2_tracker=False,
    show_progress_bar=False, raise_error=True, overwrite_strategy="always",
)
out["pair"] = result.task_results[0].scores

banking = mteb.get_task("Banking77Classification")
labelled = Dataset.from_dict({"text": texts, "label": [0, 1, 2, 1] * 3})
out["undersampled"] = banking._undersample_data(labelled, 0)[2]
loader = compat.create_dataloader(labelled, task_metadata=banking.metadata, batch_size=5)
out["batches"] = [batch["text"] for batch in loader]
print(json.dumps(out, default=str))
"""


def _probe(tmp_path: Path, files: Path, mteb_parent: Path | None) -> dict[str, Any]:
    paths = [*([str(mteb_parent)] if mteb_parent else []), str(REPO)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "HF_HUB_OFFLINE": "1"}
    scratch = tmp_path / ("patched" if mteb_parent else "installed")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(files), str(scratch)],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return out


@pytest.mark.slow
def test_patched_mteb_gives_what_the_installed_one_gives(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    entry = {"main_score": 0.5, "hf_subset": "default", "languages": ["eng-Latn"]}
    base = {"dataset_revision": "r", "task_name": "STS12", "mteb_version": "2.26.24"}
    good = {**base, "evaluation_time": 1.0, "scores": {"test": [entry]}}
    (files / "good.json").write_text(json.dumps(good))
    (files / "nan.json").write_text(json.dumps({**good, "evaluation_time": float("nan")}))
    no_main = {**good, "scores": {"test": [{"hf_subset": "default", "languages": []}]}}
    (files / "no_main_score.json").write_text(json.dumps(no_main))
    (files / "subset_not_text.json").write_text(
        json.dumps({**good, "scores": {"test": [{**entry, "hf_subset": 3}]}})
    )
    patched = tmp_path / "patched-mteb"
    shutil.copytree(TOOL.mteb_folder(), patched / "mteb", ignore=shutil.ignore_patterns("*.pyc"))
    _apply(sorted(TOOL.PATCHES), patched, check=False)
    want = _probe(tmp_path, files, None)
    got = _probe(tmp_path, files, patched)
    assert got.pop("mteb").startswith(str(patched)) and not want.pop("mteb").startswith(
        str(patched)
    )
    assert want["files"]["no_main_score.json"] == want["files"]["subset_not_text.json"]
    assert got == want
