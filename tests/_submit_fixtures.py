"""Mock checkouts of the MTEB results repository, each with a local git repository as origin.

Mock checkouts are small git repositories with a ``results/`` tree on ``main`` (published
to a bare repository beside them, their ``origin``) and a branch on top. Their result
files are hand-made (scores invented for the tests, filed under real task names only so
that mteb can read them) -- **not MTEB data**.

Their ``tests/`` is a stand-in for the results repository's own suite, written by
:func:`init_checkout` (:data:`STAND_IN_SUITE`: a few of that suite's tests, condensed; each
names the upstream test it mirrors). When ``$STATIC_RTEB_RESULTS_REPO`` points at a clone of
https://github.com/embeddings-benchmark/results, ``init_checkout(with_ci=True)`` copies that
clone's real suite (``tests/``, ``makefile``, ``pyproject.toml``, ``.github/``, ...) instead.
Nothing of that repository is committed here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
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


def init_checkout(path: Path, *, with_ci: bool = False, tests: bool = True) -> Path:
    """A new git repository at ``path`` shaped like the results repository, on main.

    Main is committed and published to ``origin``, a bare repository beside ``path``
    (``<name>.origin.git``), so that ``origin/main`` exists as in a clone.

    Args:
        path: The folder to create.
        with_ci: Copy the CI of ``$STATIC_RTEB_RESULTS_REPO`` (every top-level entry but
            ``.git`` and ``results``) and one small real model folder (the copy's
            ``tests/test_correct_folder_structure.py`` indexes a ``Haon-Chen`` model folder
            when it is imported, so the tree needs one), instead of the stand-in suite.
        tests: Write the stand-in suite (:data:`STAND_IN_SUITE`); False: no ``tests/``.
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
    elif tests:
        for rel, text in STAND_IN_SUITE.items():
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            (path / rel).write_text(text.lstrip())
    git(path, "init", "-q", "-b", "main")
    commit_all(path, "main")
    origin = path.parent / f"{path.name}.origin.git"
    git(path.parent, "clone", "-q", "--bare", str(path), str(origin))
    git(path, "remote", "add", "origin", str(origin))
    publish(path)
    return path


def publish(checkout: Path) -> None:
    """Push main to ``origin`` (main moved on upstream): ``origin/main`` is main again."""
    git(checkout, "push", "-q", "origin", "main")
    git(checkout, "fetch", "-q", "origin")


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


# -- a stand-in for the results repository's own suite ----------------------------------
#
# Written into each mock checkout's tests/. Each test mirrors the test of the same name in
# embeddings-benchmark/results at f4cc6c8 (tests/<file>), condensed to its assertion; the
# diff test finds the base commit as that repository's tests/git_utils.py does. None imports
# mteb (test_all_models_are_implemented_in_mteb does, upstream; submit refuses an unknown
# model itself), so the suite runs in a second or two.

_HEAD = """
import json
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).parent.parent
results_folder = REPO_ROOT / "results"
model_rev_pairs = [(m, r) for m in results_folder.glob("*") for r in m.glob("*") if r.is_dir()]
"""
STAND_IN_SUITE = {
    "tests/__init__.py": "",
    "tests/test_ensure_correct_metadata.py": _HEAD
    + """

@pytest.mark.parametrize("model_rev_pair", model_rev_pairs)
def test_that_revision_match(model_rev_pair):
    meta = json.loads((model_rev_pair[1] / "model_meta.json").read_text())
    assert meta["revision"] == model_rev_pair[1].name


@pytest.mark.parametrize("model_rev_pair", model_rev_pairs)
def test_organization_is_specified_for_new_additions(model_rev_pair):
    meta = json.loads((model_rev_pair[1] / "model_meta.json").read_text())
    assert "/" in meta["name"]
""",
    "tests/test_task_name_matches_filename.py": _HEAD
    + """

@pytest.mark.parametrize("model_rev_pair", model_rev_pairs)
def test_task_name_matches_filename(model_rev_pair):
    for json_file in model_rev_pair[1].glob("*.json"):
        if json_file.name != "model_meta.json":
            task_name = json.loads(json_file.read_text())["task_name"]
            assert json_file.stem == task_name, f"{json_file} holds {task_name}"
""",
    "tests/test_no_splits_are_removed.py": _HEAD
    + """

def git(*args):
    return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True)


def test_no_splits_are_removed():
    base = next(
        out for ref in ("origin/main", "main") if (out := git("merge-base", ref, "HEAD").stdout.strip())
    )
    errors = []
    for rel in git("diff", "--name-only", base, "HEAD", "--", "*.json").stdout.split():
        path, old = REPO_ROOT / rel, git("show", f"{base}:{rel}").stdout
        if path.exists() and path.name != "model_meta.json" and old:
            def splits(data):
                return {s: {e["hf_subset"] for e in v} for s, v in data["scores"].items()}
            before, now = splits(json.loads(old)), splits(json.loads(path.read_text()))
            if any(subsets - now.get(s, set()) for s, subsets in before.items()):
                errors.append(f"{rel} has had splits/subsets removed")
    assert not errors, errors
""",
}
