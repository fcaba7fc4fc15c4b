"""Mock checkouts of the MTEB results repository, and running that repository's own CI on them.

Mock checkouts are small git repositories with a ``results/`` tree on ``main`` and a
branch on top. Their result files are hand-made (scores invented for the tests, filed
under real task names only so that mteb can read them) -- **not MTEB data**.

When ``$STATIC_RTEB_RESULTS_REPO`` points at a clone of
https://github.com/embeddings-benchmark/results, :func:`init_checkout` also copies that
clone's own CI (``tests/``, ``makefile``, ``pyproject.toml``, ``.github/``, ...) into
the mock checkout, and :func:`run_real_suite` runs it (``pytest tests/``, as its ``make
test`` does) with the project's Python. Nothing of that repository is committed here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ENV = "STATIC_RTEB_RESULTS_REPO"
TESTS_DIR = Path(__file__).resolve().parent
GIT_ENV = {
    "GIT_AUTHOR_NAME": "static-rteb tests",
    "GIT_AUTHOR_EMAIL": "tests@static-rteb.invalid",
    "GIT_COMMITTER_NAME": "static-rteb tests",
    "GIT_COMMITTER_EMAIL": "tests@static-rteb.invalid",
}
#: The one test of the results repository that needs the network: it clones that
#: repository from GitHub (``mteb.load_results`` with the default remote).
NETWORK_TEST = "tests/test_load_results.py::test_load_results_mteb"
MTEB_VERSION = "2.26.24"


def results_repo_copy() -> Path | None:
    """The clone of the results repository named by ``$STATIC_RTEB_RESULTS_REPO``, if usable."""
    value = os.environ.get(REPO_ENV)
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    return path if (path / "tests").is_dir() and (path / "results").is_dir() else None


needs_results_repo = pytest.mark.skipif(
    results_repo_copy() is None,
    reason=(
        f"runs the results repository's own CI tests: set {REPO_ENV} to a clone of "
        "https://github.com/embeddings-benchmark/results (`git clone "
        "https://github.com/embeddings-benchmark/results /tmp/results && "
        f"export {REPO_ENV}=/tmp/results`)"
    ),
)


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity; return stdout (fails the test on error)."""
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def commit_all(repo: Path, message: str) -> str:
    """Commit everything in ``repo``; return the new HEAD."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def init_checkout(path: Path, *, with_ci: bool = False) -> Path:
    """A new git repository at ``path`` shaped like the results repository, committed on main.

    Args:
        path: The folder to create.
        with_ci: Copy the CI of ``$STATIC_RTEB_RESULTS_REPO`` (every top-level entry but
            ``.git`` and ``results``) and one small real model folder (the copy's
            ``tests/test_correct_folder_structure.py`` indexes a ``Haon-Chen`` model folder
            when it is imported, so the tree needs one).
    """
    (path / "results").mkdir(parents=True)
    (path / "results" / ".gitkeep").write_text("")
    if with_ci:
        copy = results_repo_copy()
        assert copy is not None, f"{REPO_ENV} is not set"
        for entry in copy.iterdir():
            if entry.name in {".git", "results"}:
                continue
            if entry.is_dir():
                shutil.copytree(entry, path / entry.name, symlinks=True)
            else:
                shutil.copy2(entry, path / entry.name, follow_symlinks=False)
        _copy_small_model_folder(copy, path, "Haon-Chen__")
    git(path, "init", "-q", "-b", "main")
    commit_all(path, "main")
    return path


def _copy_small_model_folder(copy: Path, target: Path, prefix: str) -> None:
    model = sorted(p for p in (copy / "results").glob(f"{prefix}*") if p.is_dir())[0]
    revision = sorted(p for p in model.iterdir() if (p / "model_meta.json").is_file())[0]
    dest = target / "results" / model.name / revision.name
    dest.mkdir(parents=True)
    shutil.copy2(revision / "model_meta.json", dest)
    results = sorted(
        (p for p in revision.glob("*.json") if p.name != "model_meta.json"),
        key=lambda p: p.stat().st_size,
    )
    for path in results[:2]:
        shutil.copy2(path, dest)


def result_dict(
    task: str,
    subsets: dict[str, list[tuple[str, float, list[str]]]] | float,
    *,
    task_name: str | None = None,
) -> dict[str, Any]:
    """A hand-made mteb result (``TaskResult`` JSON) for ``task``.

    ``subsets`` is a main score (split ``test``, subset ``default``, English) or
    ``{split: [(subset, main score, languages), ...]}``.
    """
    import mteb

    if not isinstance(subsets, dict):
        subsets = {"test": [("default", float(subsets), ["eng-Latn"])]}
    scores = {
        split: [
            {"main_score": s, "cosine_spearman": s, "hf_subset": sub, "languages": langs}
            for sub, s, langs in entries
        ]
        for split, entries in subsets.items()
    }
    return {
        "dataset_revision": mteb.get_task(task).metadata.revision,
        "task_name": task_name or task,
        "mteb_version": MTEB_VERSION,
        "scores": scores,
        "evaluation_time": 1.0,
        "kg_co2_emissions": None,
    }


def write_result(
    folder: Path,
    task: str,
    subsets: Any = 0.8,
    *,
    task_name: str | None = None,
    file_stem: str | None = None,
    pad_to: int | None = None,
) -> Path:
    """Write a hand-made result file ``folder/<file_stem or task>.json`` (optionally padded)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result_dict(task, subsets, task_name=task_name), indent=2)
    if pad_to is not None:
        text += " " * max(0, pad_to - len(text.encode()))
    path = folder / f"{file_stem or task}.json"
    path.write_text(text)
    return path


def write_meta(folder: Path, name: str, revision: str | None, *, raw: str | None = None) -> Path:
    """Write ``model_meta.json``: mteb's registered entry at ``revision`` (else a minimal one)."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model_meta.json"
    if raw is not None:
        path.write_text(raw)
        return path
    registered = MODEL_REGISTRY.get(name)
    if registered is not None:
        data = {**registered.to_dict(), "revision": revision}
    else:
        data = {"name": name, "revision": revision, "languages": ["eng-Latn"], "framework": []}
    path.write_text(json.dumps(data, default=str, indent=4))
    return path


def model_folder(root: Path, name: str, revision: str) -> Path:
    """``root/results/<org>__<name>/<revision>``."""
    return root / "results" / name.replace("/", "__") / revision


def registered_sha_models(count: int, exclude: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """``count`` models mteb registers with a 40-character revision: ``[(name, revision)]``."""
    import mteb

    found = sorted(
        (m.name, m.revision)
        for m in mteb.get_model_metas()
        if m.name
        and m.revision
        and re.fullmatch(r"[0-9a-f]{40}", m.revision)
        and m.name not in exclude
        and "Haon-Chen" not in m.name
    )
    return found[:count]


# -- the results repository's own CI -------------------------------------------------------


def run_real_suite(checkout: Path, report: Path) -> dict[str, dict[str, Any]]:
    """Run the copied CI (``pytest tests/``) in ``checkout``; per test: outcome, params, text.

    The project's Python and packages are used (mteb 2.26.24 satisfies the repository's
    ``mteb>=2.0``; pytest, pandas and datasets are installed). The network test
    (:data:`NETWORK_TEST`) is deselected. A small plugin of this project
    (``_results_ci_plugin``) records each test's parameters and failure text.
    """
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "MTEB_CACHE"}}
    env.update(PYTHONPATH=str(TESTS_DIR), RESULTS_CI_REPORT=str(report), HF_HUB_OFFLINE="1")
    command = [
        sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider",
        "-p", "_results_ci_plugin", "--deselect", NETWORK_TEST,
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=checkout, env=env, capture_output=True, text=True, timeout=1800
    )
    assert report.is_file(), (
        f"the results repository's tests did not run:\n{done.stdout}\n{done.stderr}"
    )
    outcomes: dict[str, dict[str, Any]] = json.loads(report.read_text())
    return outcomes


def run_size_workflow(checkout: Path) -> subprocess.CompletedProcess[str]:
    """Run the copied ``check_file_sizes.yml`` step (its shell script) for HEAD against main."""
    import yaml

    workflow = yaml.safe_load((checkout / ".github/workflows/check_file_sizes.yml").read_text())
    steps = [s for job in workflow["jobs"].values() for s in job["steps"] if "run" in s]
    script = steps[0]["run"]
    base = git(checkout, "merge-base", "main", "HEAD")
    script = script.replace("${{ github.event.pull_request.base.sha }}", base)
    script = script.replace("${{ github.sha }}", git(checkout, "rev-parse", "HEAD"))
    return subprocess.run(
        ["bash", "-e", "-c", script], cwd=checkout, capture_output=True, text=True
    )


def failures_mentioning(outcomes: dict[str, dict[str, Any]], *needles: str) -> set[str]:
    """The CI test functions that failed (or errored) for something named by ``needles``.

    A parametrized test is attributed by its parameters (paths), any other by its
    failure text.
    """
    failed = set()
    for nodeid, record in outcomes.items():
        if record["outcome"] not in {"failed", "error"}:
            continue
        haystack = record.get("params") or record.get("text", "")
        if any(needle in haystack for needle in needles):
            failed.add(nodeid.split("::")[-1].split("[")[0])
    return failed
