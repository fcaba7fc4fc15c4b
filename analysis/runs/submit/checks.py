"""The results repository's CI checks, as this project's own code.

Written against the behaviour that embeddings-benchmark/results' ``tests/`` (commit
f4cc6c8, run by ``make test`` on every pull request) and its ``check_file_sizes``
workflow specify; no code of that repository is used. Each check returns
:class:`Failure` records that name the file, the problem and the fix. :data:`CHECKS` maps
each check to the CI test it mirrors; ``tests/runs/submit/test_preflight.py`` runs the real
tests beside these ones when a copy of the repository is available.

``model-meta-invalid`` stands for the several CI tests that stop with an error on a
``model_meta.json`` that is not a JSON object with ``name`` and ``revision`` (what mteb's
``ResultCache`` itself reads from it). ``result-unreadable`` is this project's own and
stricter than CI: ``TaskResult.from_disk`` must read every new result file.

Per-revision checks run on the revision folders a change touches; the others passed CI on
main, some only because CI exempts them by name (legacy folders from before 26 November
2024 without ``model_meta.json`` or with a non-SHA revision), which are therefore never
flagged here. New results cannot use those exemptions.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.compat import registered_meta, registered_model_names
from ...core.errors import model_name_from_folder
from ...core.layout import EXPERIMENTS, ModelFolder

#: check id -> the CI test (file::function) or workflow that enforces it.
CHECKS: dict[str, str] = {
    "model-meta-missing": "tests/test_ensure_correct_metadata.py::test_model_meta_in_folders",
    "model-meta-invalid": (
        "tests/test_correct_folder_structure.py, tests/test_ensure_correct_metadata.py and "
        "tests/test_model_implementation.py stop with an error"
    ),
    "folder-structure": "tests/test_correct_folder_structure.py::test_correct_folder_structure",
    "revision-format": (
        "tests/test_ensure_correct_metadata.py::test_revision_is_specified_for_new_additions"
    ),
    "organization": (
        "tests/test_ensure_correct_metadata.py::test_organization_is_specified_for_new_additions"
    ),
    "revision-match": "tests/test_ensure_correct_metadata.py::test_that_revision_match",
    "duplicate-revision": "tests/test_ensure_correct_metadata.py::test_no_duplicate_revisions",
    "task-name": "tests/test_task_name_matches_filename.py::test_task_name_matches_filename",
    "model-implemented": (
        "tests/test_model_implementation.py::test_all_models_are_implemented_in_mteb"
    ),
    "duplicate-task": "tests/test_duplicate_results.py::test_no_duplicate_task_results_exist",
    "split-removed": "tests/test_no_splits_are_removed.py::test_no_splits_are_removed",
    "language-removed": "tests/test_no_languages_are_removed.py::test_no_languages_are_removed",
    "main-score-moved": "tests/test_results_diff.py::test_result_diffs_within_threshold",
    "file-size": ".github/workflows/check_file_sizes.yml",
    "result-unreadable": "(this project; mteb's TaskResult.from_disk must read it)",
}

#: The largest file CI accepts (``check_file_sizes.yml``: 10 MB, strictly greater fails).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: The largest change of a published main score CI accepts (``MTEB_SCORE_EPSILON``).
SCORE_EPSILON = 0.001
#: Model folders CI's duplicate check leaves out.
DUPLICATE_EXEMPT = frozenset({"baseline__Human"})
META = "model_meta.json"


@dataclass(frozen=True)
class Failure:
    """One failed check: which file, what is wrong, how to fix it.

    Attributes:
        check: The check id (a key of :data:`CHECKS`).
        path: The file or folder, relative to the checkout.
        problem: What is wrong.
        fix: What to do about it.
    """

    check: str
    path: str
    problem: str
    fix: str

    @property
    def ci_test(self) -> str:
        """The results repository's test that would fail."""
        return CHECKS[self.check]

    def __str__(self) -> str:
        """``path: problem`` then the fix and the CI test, indented."""
        return (
            f"{self.path}: {self.problem}\n    fix: {self.fix}\n    [{self.check}: {self.ci_test}]"
        )


@functools.cache
def registered_names() -> frozenset[str]:
    """The model names mteb implements (``mteb.get_model_metas()``, as CI reads them)."""
    return registered_model_names()


def registered_revision(name: str) -> str | None:
    """The revision mteb registers for ``name`` (no hub access), or None when unknown."""
    meta = registered_meta(name)
    return None if meta is None else meta.revision


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def load_json(path: Path) -> tuple[Any, str | None]:
    """``(parsed JSON, None)``, or ``(None, why)`` when the file cannot be read as JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, f"{type(err).__name__}: {err}"


def read_meta(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """``model_meta.json`` as a dict, or ``(None, why)`` when it is not a usable one."""
    data, error = load_json(path)
    if error is not None:
        return None, f"is not valid JSON ({error})"
    if not isinstance(data, dict):
        return None, "is not a JSON object"
    missing = [key for key in ("name", "revision") if key not in data]
    if missing:
        return None, f"has no {' and no '.join(repr(k) for k in missing)} key"
    return data, None


def _meta_fix(model_folder: str) -> str:
    return (
        "write a complete model_meta.json with the model's 'org/name' and its 40-character "
        f"commit SHA as 'revision' (static-rteb submit writes one), in each revision folder of "
        f"{model_folder}"
    )


def _expected_folder(root: Path, meta: dict[str, Any], meta_file: Path) -> Path:
    revision = meta["revision"]
    if revision is None:
        revision = meta_file.parent.name
    if meta_file.parent.name == "external":
        revision = "external"
    experiment = None
    if EXPERIMENTS in meta_file.relative_to(root).parts:
        from mteb.models import ModelMeta

        experiment = ModelMeta.model_validate({**meta, "loader": None}).experiment_name
        experiment = str(experiment)
    return ModelFolder(str(meta["name"]), str(revision), experiment).results_folder(root)


def is_sha1(value: str) -> bool:
    """A 40-character lowercase hexadecimal commit id (CI's rule)."""
    return len(value) == 40 and all(c in "0123456789abcdef" for c in value)


def check_model_folder(
    root: Path, model: Path, changed: Collection[str] | None = None
) -> list[Failure]:
    """Every per-folder check of CI on one model folder ``results/<org>__<name>``.

    The checks of one revision folder (metadata, folder, task names) run on the revision
    folders that ``changed`` touches: the others passed CI on main, some of them only
    because CI exempts them by name (legacy folders). The checks across revisions
    (duplicate revisions and tasks, the model in mteb's registry) see the whole folder.

    Args:
        root: The top folder of the (possibly staged) checkout.
        model: The model folder.
        changed: Changed paths relative to ``root`` (None: every revision folder is checked).

    Returns:
        The failures, in a stable order.
    """
    failures: list[Failure] = []
    metas: dict[Path, dict[str, Any]] = {}
    entries = sorted(p for p in model.glob("*") if p.name != ".DS_Store")
    touched = [e for e in entries if changed is None or _touches(_rel(root, e), changed)]
    for meta_file in sorted(model.rglob(META)):
        meta, why = read_meta(meta_file)
        if meta is None and any(meta_file.is_relative_to(e) for e in touched):
            failures.append(
                Failure(
                    "model-meta-invalid",
                    _rel(root, meta_file),
                    f"model_meta.json {why}",
                    _meta_fix(_rel(root, model)),
                )
            )
        elif meta is not None:
            metas[meta_file] = meta
    failures += _folder_structure(
        root, {f: m for f, m in metas.items() if any(f.is_relative_to(e) for e in touched)}
    )
    for entry in touched:
        failures += _revision_folder(root, entry, metas.get(entry / META))
    failures += _duplicate_revisions(root, model, metas)
    failures += _implemented(root, model, metas)
    failures += _duplicate_tasks(root, model, metas)
    return failures


def _touches(folder: str, changed: Collection[str]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for path in changed)


def _folder_structure(root: Path, metas: dict[Path, dict[str, Any]]) -> list[Failure]:
    failures = []
    for meta_file, meta in metas.items():
        try:
            expected = _expected_folder(root, meta, meta_file)
        except Exception as err:  # an experiment ModelMeta that does not validate
            failures.append(
                Failure(
                    "folder-structure",
                    _rel(root, meta_file),
                    f"mteb cannot work out the experiment folder ({type(err).__name__}: {err})",
                    "correct model_meta.json so that mteb's ModelMeta validates it",
                )
            )
            continue
        if expected != meta_file.parent:
            failures.append(
                Failure(
                    "folder-structure",
                    _rel(root, meta_file),
                    f"model_meta.json names {meta['name']!r} at revision {meta['revision']!r}, "
                    f"which files results under {_rel(root, expected)}/, not "
                    f"{_rel(root, meta_file.parent)}/",
                    f"move the files to {_rel(root, expected)}/ or correct 'name'/'revision' in "
                    "model_meta.json (static-rteb submit re-files runs for you)",
                )
            )
    return failures


def _revision_folder(root: Path, entry: Path, meta: dict[str, Any] | None) -> list[Failure]:
    rel = _rel(root, entry)
    meta_file = entry / META
    if not meta_file.exists():
        what = (
            "revision folder"
            if entry.is_dir()
            else "entry (a file where a revision folder belongs)"
        )
        return [
            Failure(
                "model-meta-missing",
                rel,
                f"this {what} has no model_meta.json",
                _meta_fix(_rel(root, entry.parent))
                if entry.is_dir()
                else f"remove {rel}: a model folder holds only revision folders",
            )
        ]
    failures = [] if meta is None else _meta_fields(root, entry, meta)
    for path in sorted(entry.glob("*.json")):
        if path.name != META:
            failures += _task_name(root, path)
    return failures


def _meta_fields(root: Path, entry: Path, meta: dict[str, Any]) -> list[Failure]:
    rel, failures = _rel(root, entry / META), []
    name, revision = meta.get("name"), meta.get("revision")
    if (
        not isinstance(revision, str)
        or revision.lower() in {"no_revision_available", "external"}
        or not (is_sha1(revision) or len(revision) == 1)
    ):
        failures.append(
            Failure(
                "revision-format",
                rel,
                f"revision {revision!r} is not a 40-character lowercase commit SHA",
                "file the results under the hub commit SHA of the model's weights "
                "(static-rteb submit --revision SHA re-files them)",
            )
        )
    if not isinstance(name, str) or "/" not in name:
        failures.append(
            Failure(
                "organization",
                rel,
                f"name {name!r} has no organisation ('org/name')",
                "use the model's hub id, e.g. 'my-org/my-model' (static-rteb submit --model)",
            )
        )
    if revision != entry.name:
        failures.append(
            Failure(
                "revision-match",
                rel,
                f"revision {revision!r} differs from the folder name {entry.name!r}",
                f"move the results to a folder named {revision!r} or correct 'revision'",
            )
        )
    return failures


def _task_name(root: Path, path: Path) -> list[Failure]:
    rel = _rel(root, path)
    data, error = load_json(path)
    if error is not None or not isinstance(data, dict):
        return [
            Failure(
                "result-unreadable",
                rel,
                f"is not a JSON object ({error or 'wrong type'})",
                "rewrite the file from the run (mteb writes it); do not edit it by hand",
            )
        ]
    task = data.get("task_name") or data.get("mteb_dataset_name")
    if task is None:
        return [
            Failure(
                "task-name",
                rel,
                "has no 'task_name' key",
                "use the file mteb wrote for the run (it names its task)",
            )
        ]
    if path.stem != task:
        return [
            Failure(
                "task-name",
                rel,
                f"holds task {task!r} but is named {path.name!r}",
                f"rename it to {task}.json (or correct 'task_name')",
            )
        ]
    return []


def _revision_of(rev_folder: Path, metas: dict[Path, dict[str, Any]]) -> str:
    meta = metas.get(rev_folder / META)
    return str(meta["revision"]) if meta is not None else rev_folder.name


def _duplicate_revisions(
    root: Path, model: Path, metas: dict[Path, dict[str, Any]]
) -> list[Failure]:
    seen: dict[str, Path] = {}
    failures = []
    for rev_folder in sorted(model.iterdir()):
        if (rev_folder / META).exists() and (rev_folder / META) not in metas:
            continue  # unreadable: reported as model-meta-invalid
        revision = _revision_of(rev_folder, metas)
        if revision in seen:
            failures.append(
                Failure(
                    "duplicate-revision",
                    _rel(root, rev_folder),
                    f"revision {revision!r} is also claimed by {_rel(root, seen[revision])}",
                    "keep one folder per revision: merge the two and delete the other",
                )
            )
        seen.setdefault(revision, rev_folder)
    return failures


def _names(model: Path, metas: dict[Path, dict[str, Any]]) -> list[str]:
    names = [model_name_from_folder(model.name)]
    names += [str(m["name"]) for p, m in sorted(metas.items()) if p.is_relative_to(model)]
    return list(dict.fromkeys(names))


def _revision_folders(model: Path) -> list[Path]:
    return sorted(p for p in model.glob("*") if p.is_dir() and not p.name.startswith("."))


def _implemented(root: Path, model: Path, metas: dict[Path, dict[str, Any]]) -> list[Failure]:
    if model.name.startswith(".") or not _revision_folders(model):
        return []
    names = _names(model, metas)
    if any(name in registered_names() for name in names):
        return []
    import mteb

    return [
        Failure(
            "model-implemented",
            _rel(root, model),
            f"mteb {mteb.__version__} does not know the model {names[-1]!r} (not in its model "
            "registry), so the results repository rejects its results",
            "first get its ModelMeta entry into mteb (static-rteb submit writes the entry; see "
            "docs/submission.md, 'two pull requests'), then submit the results",
        )
    ]


def _duplicate_tasks(root: Path, model: Path, metas: dict[Path, dict[str, Any]]) -> list[Failure]:
    rev_folders = _revision_folders(model)
    if model.name.startswith(".") or model.name in DUPLICATE_EXEMPT or not rev_folders:
        return []
    reference = None
    for name in [model_name_from_folder(model.name), *_names(rev_folders[0], metas)]:
        if name in registered_names():
            reference = registered_revision(name)
            break
    else:
        return [
            Failure(
                "duplicate-task",
                _rel(root, model),
                "CI's duplicate check cannot find the model's reference revision in mteb's "
                "registry and stops with a KeyError",
                "get the model into mteb's registry first (see model-implemented)",
            )
        ]
    by_task: dict[str, list[str]] = defaultdict(list)
    for rev_folder in rev_folders:
        for path in sorted(rev_folder.glob("*.json")):
            if path.name != META:
                by_task[path.stem].append(rev_folder.name)
    failures = []
    for task, revisions in sorted(by_task.items()):
        if len(revisions) < 2:
            continue
        keep = _retained(revisions, reference)
        delete = [f"{_rel(root, model)}/{r}/{task}.json" for r in revisions if r != keep]
        failures.append(
            Failure(
                "duplicate-task",
                f"{_rel(root, model)}/*/{task}.json",
                f"task {task!r} has results in revisions {revisions}",
                f"keep revision {keep!r} (mteb's registered revision is {reference!r}) and "
                f"delete {', '.join(delete)}",
            )
        )
    return failures


def _retained(revisions: Sequence[str], reference: str | None) -> str:
    if reference in revisions:
        return str(reference)
    preferred = [r for r in revisions if r not in {"external", "no_revision_available"}]
    return (preferred or list(revisions))[0]
