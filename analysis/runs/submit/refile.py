"""Re-file own runs under the hub name and commit SHA the results repository requires.

A run of a local model folder is filed under ``local/<folder>`` and revision ``local-<content
hash>`` (:func:`analysis.core.layout.content_revision`), which the results repository's CI rejects:
it wants the model's hub id (``org/name``) and the 40-character commit SHA of the weights on the
hub. A result file holds no model name or revision (only the task, its scores and the dataset
revision), so re-filing moves the files to ``results/<org>__<name>/<sha>/`` with a new
``model_meta.json``; the scores are untouched.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from ...core import compat
from ...core.errors import LeaderboardSubmitError
from ...core.io import atomic_write_text
from ...core.layout import LOCAL_REVISION_PREFIX, RESULTS, ModelFolder, content_revision
from ...core.paths import display_path
from ..models import HUB_ID, LOCAL_ORG

META = "model_meta.json"
RUN_SETTINGS = "run_settings.jsonl"


@dataclass(frozen=True)
class RunFolder:
    """One revision folder of own results (``results/<org>__<name>/<revision>/``).

    Attributes:
        path: The folder.
        name: The model name it is filed under.
        revision: The revision it is filed under.
        reference: The ``reference`` of its ``model_meta.json`` (a local run's model folder
            as a ``file://`` URI), if any.
        tasks: Task name -> result file.
    """

    path: Path
    name: str
    revision: str
    reference: str | None
    tasks: dict[str, Path]

    @property
    def is_local(self) -> bool:
        """Filed under a local name or a content revision (``local/...``, ``local-...``)."""
        local_name = self.name.startswith(f"{LOCAL_ORG}/")
        return local_name or self.revision.startswith(LOCAL_REVISION_PREFIX)

    @property
    def model_dir(self) -> Path | None:
        """The model folder the run was made from, when the metadata names an existing one."""
        if not self.reference or not self.reference.startswith("file:"):
            return None
        folder = Path(unquote(urlparse(self.reference).path))
        return folder if folder.is_dir() else None


def find_run_folders(folder: str | Path) -> list[Path]:
    """The revision folders (holding ``model_meta.json``) at or below ``folder``."""
    folder = Path(os.path.abspath(Path(folder).expanduser()))  # symlinks kept, as typed
    if not folder.is_dir():
        raise LeaderboardSubmitError(
            f"--results {display_path(folder)} does not exist or is not a folder."
        )
    if (folder / META).is_file():
        return [folder]
    found = sorted(p.parent for p in folder.rglob(META) if "predictions" not in p.parts)
    if not found:
        raise LeaderboardSubmitError(
            f"--results {display_path(folder)} holds no run: no model_meta.json at or below it. "
            "Pass the revision folder of a run, e.g. data/runs/results/<org>__<model>/<revision>."
        )
    return found


def read_run(folder: str | Path) -> RunFolder:
    """Read one run's revision folder (its identity as mteb reads it, and its result files).

    Raises:
        LeaderboardSubmitError: The folder has no result file, or mteb reads no identity.
    """
    folder = Path(os.path.abspath(folder))
    try:
        name, revision, _, meta = compat.model_name_and_revision_from_folder(folder)
    except ValueError as err:
        raise LeaderboardSubmitError(f"{folder}: {err}; is it a run's revision folder?") from err
    tasks = {p.stem: p for p in sorted(folder.glob("*.json")) if p.name != META}
    if not tasks:
        raise LeaderboardSubmitError(
            f"{folder} holds no result file (<Task>.json); nothing to submit."
        )
    reference = getattr(meta, "reference", None) if meta is not None else None
    return RunFolder(folder, str(name), str(revision), reference, tasks)


@dataclass(frozen=True)
class Submission:
    """The result files of one model, to be filed under ``name`` at ``revision``.

    Attributes:
        name: The model's hub id.
        revision: The commit SHA the results are filed under (None: not yet known).
        runs: The run folders the files come from.
        tasks: Task name -> result file.
        notes: Things the user should know (printed by the command).
    """

    name: str
    revision: str | None
    runs: tuple[RunFolder, ...]
    tasks: dict[str, Path]
    notes: tuple[str, ...] = ()

    @property
    def folder(self) -> str:
        """``results/<org>__<name>/<revision>`` relative to the checkout."""
        return f"{RESULTS}/{ModelFolder(self.name, str(self.revision)).relative}"

    @property
    def model_dir(self) -> Path | None:
        """The local model folder the runs were made from, if known."""
        return next((run.model_dir for run in self.runs if run.model_dir is not None), None)


def is_sha1(value: str) -> bool:
    """A 40-character lowercase hexadecimal commit id (the results repository's rule)."""
    return len(value) == 40 and all(c in "0123456789abcdef" for c in value)


def check_model_name(name: str) -> str:
    """``name`` if it is a hub id ``org/name``; else an error saying what to pass."""
    if not HUB_ID.match(name) or name.startswith(f"{LOCAL_ORG}/"):
        raise LeaderboardSubmitError(
            f"--model {name!r} is not a Hugging Face hub id 'org/name' (the results repository "
            "requires an organisation, e.g. 'my-org/my-static-model')."
        )
    return name


def check_revision(revision: str) -> str:
    """``revision`` if it is a 40-character lowercase commit SHA; else an error with the fix."""
    if is_sha1(revision):
        return revision
    hint = " (use lowercase)" if is_sha1(revision.lower()) else ""
    raise LeaderboardSubmitError(
        f"--revision {revision!r} is not a 40-character commit SHA{hint}. Pass the full commit "
        "id of the model's hub repository holding these weights (the 'Files' tab on the hub, "
        "or `git rev-parse HEAD` in a clone)."
    )


def read_runs(folders: Sequence[str | Path]) -> list[RunFolder]:
    """Every run folder at or below each of ``folders``."""
    return [read_run(run) for folder in folders for run in find_run_folders(folder)]


def select_runs(runs: Sequence[RunFolder], model: str) -> tuple[list[RunFolder], list[str]]:
    """The runs of one model revision from folders that may hold several (``data/runs``).

    Taken: the runs filed under ``model`` itself (a rerun of a hub model), else those of the
    one local model; with a note naming what was taken and left when there were several.

    Raises:
        LeaderboardSubmitError: No run; or several models or revisions and none of them
            is ``model`` or the one local model; the message lists each one's folder.
    """
    if not runs:
        raise LeaderboardSubmitError("no run folder given (--results).")
    by_identity: dict[tuple[str, str], list[RunFolder]] = {}
    for run in runs:
        by_identity.setdefault((run.name, run.revision), []).append(run)
    if len(by_identity) == 1:
        return list(runs), []
    named = [key for key in by_identity if key[0] == model]
    local = [key for key in by_identity if by_identity[key][0].is_local]
    pick = named if named else local
    if len(pick) == 1:
        (key,) = pick
        left = ", ".join(f"{n} @ {r}" for n, r in sorted(by_identity) if (n, r) != key)
        how = "the runs filed under --model" if named else "the one local model's runs"
        return by_identity[key], [
            f"--results holds several models; took {how}, {key[0]} @ {key[1]} "
            f"({_folders(by_identity[key])}), and left {left}"
        ]
    listed = "\n".join(
        f"  {n} @ {r}: --results {_folders(by_identity[(n, r)])}" for n, r in sorted(by_identity)
    )
    why = (
        f"several revisions of {model}"
        if named
        else f"none is filed under {model!r}"
        + (f" and {len(local)} are local models" if len(local) > 1 else "")
    )
    raise LeaderboardSubmitError(
        f"--results holds runs of several models or revisions ({why}); submit one model "
        f"revision at a time: pass the folder of the one to submit:\n{listed}"
    )


def _folders(runs: Sequence[RunFolder]) -> str:
    """The runs' folders as the user would type them (relative to the repository)."""
    return " ".join(display_path(run.path) for run in runs)


def plan_runs(
    runs: Sequence[RunFolder],
    model: str,
    *,
    revision: str | None = None,
    registered_revision: str | None = None,
    folder_revision: str | None = None,
) -> Submission:
    """Gather the runs of one model and decide the name and revision they are filed under.

    The revision: ``revision`` (``--revision``), else the runs' own commit SHA, the model folder's
    commit (``folder_revision``) or mteb's registered one; None when nothing determines it.

    Raises:
        LeaderboardSubmitError: Runs of several models (:func:`select_runs`), a run filed
            under another hub name or revision, two different results for one task, a bad
            name or revision.
    """
    name = check_model_name(model)
    chosen_runs, picked = select_runs(runs, name)
    runs = tuple(chosen_runs)
    ((source_name, source_revision),) = {(run.name, run.revision) for run in runs}
    if source_name != name and not runs[0].is_local:
        raise LeaderboardSubmitError(
            f"these results are filed under {source_name!r}, not {name!r}: only runs of a local "
            f"folder are re-filed under another name. Pass --model {source_name}."
        )
    chosen, notes = _revision(source_revision, revision, registered_revision, folder_revision)
    notes = [*picked, *notes]
    check_model_dir(runs)
    if (source_name, source_revision) != (name, chosen):
        notes.append(f"re-filed from {source_name} @ {source_revision} to {name} @ {chosen}")
    return Submission(name, chosen, runs, _tasks(runs), tuple(notes))


def _revision(
    source: str, given: str | None, registered: str | None, folder: str | None
) -> tuple[str | None, list[str]]:
    if given is not None:
        given = check_revision(given)
        if is_sha1(source) and source != given:
            raise LeaderboardSubmitError(
                f"these results were made with revision {source}; --revision {given} would "
                "file them under a revision they were not made with. Leave --revision out."
            )
        return given, []
    if is_sha1(source):
        return source, []
    if folder is not None and is_sha1(folder):
        return folder, [f"revision {folder}: the model folder's own commit"]
    if registered is not None:
        return registered, [
            f"revision {registered}: mteb's registered revision (pass --revision if your "
            "weights are another commit)"
        ]
    return None, []


def check_model_dir(runs: Sequence[RunFolder], given: Path | None = None) -> None:
    """Refuse a local run whose model folder (``given``, else its own) changed since the run."""
    for run in runs:
        folder = given or run.model_dir
        if folder is None or not run.revision.startswith(LOCAL_REVISION_PREFIX):
            continue
        now = content_revision(folder)
        if now != run.revision:
            raise LeaderboardSubmitError(
                f"{run.path} was made from {folder} when its content hash was {run.revision}; "
                f"the folder now hashes to {now}. Rerun the tasks with the current folder "
                "before submitting (a submission must be reproducible from the published weights)."
            )


def _tasks(runs: Sequence[RunFolder]) -> dict[str, Path]:
    tasks: dict[str, Path] = {}
    for run in runs:
        for task, path in run.tasks.items():
            if task in tasks and not filecmp.cmp(tasks[task], path, shallow=False):
                raise LeaderboardSubmitError(
                    f"two different results for {task}: {tasks[task]} and {path}; pass only the "
                    "run folder whose result should be submitted."
                )
            tasks.setdefault(task, path)
    return tasks


def stage(submission: Submission, meta_json: str, cache_dir: str | Path) -> Path:
    """Write the submission into an mteb ``ResultCache`` folder; return the revision folder."""
    if submission.revision is None:
        raise LeaderboardSubmitError(f"no revision for {submission.name}: pass --revision SHA.")
    target = Path(cache_dir) / submission.folder
    target.mkdir(parents=True, exist_ok=True)
    for task, path in sorted(submission.tasks.items()):
        shutil.copyfile(path, target / f"{task}.json")
    atomic_write_text(target / META, meta_json)
    settings = [run.path / RUN_SETTINGS for run in submission.runs]
    texts = [path.read_text(encoding="utf-8") for path in settings if path.is_file()]
    lines = [line for text in texts for line in text.splitlines() if line.strip()]
    if lines:
        atomic_write_text(target / RUN_SETTINGS, "\n".join(dict.fromkeys(lines)) + "\n")
    return target
