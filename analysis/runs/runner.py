"""Run models over MTEB tasks with ``mteb.evaluate``: resumable, atomic, failure-tolerant.

Results are filed in mteb's layout (``mteb.ResultCache(results_dir)`` reads them). mteb
writes its JSON in place, so each (model, task) is evaluated into a private staging folder
under ``<results_dir>/.staging/`` and moved into place with ``os.replace`` when mteb
returns (predictions first): a result file exists only when its task is complete, and a
corrupt one is set aside as ``<Task>.json.corrupt`` and run again. Workers sharing a folder
evaluate each (model, revision, task) under its lock (:mod:`analysis.runs.locks`) and clean
only dead processes' staging folders. Why and how: ``docs/running.md``.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import time
import traceback
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mteb
import pandas as pd
from mteb.abstasks import AbsTask
from mteb.results import TaskResult
from tqdm.auto import tqdm

from ..core import compat
from ..core.choices import OVERWRITE_STRATEGIES, Overwrite
from ..core.errors import RunInterrupted, UnknownTaskError, unknown_task_message
from ..core.interrupt import signal_of
from ..core.io import atomic_write_bytes
from ..core.layout import PREDICTIONS, ModelFolder, corrupt_path
from ..core.paths import display_path
from .local_tasks import discover_local_tasks, load_local_task
from .locks import file_lock, lock_path, pid_alive, task_lock
from .models import load_model

if TYPE_CHECKING:
    from mteb.models import EncoderProtocol, ModelMeta

logger = logging.getLogger(__name__)

SUMMARY_COLUMNS = ["model", "revision", "task", "status", "main_score", "error"]
STAGING = ".staging"
#: Staging folders of other hosts older than this (seconds) belong to dead runs.
FOREIGN_STAGING_AGE = 24 * 3600.0
#: mteb's stand-ins for a missing model name / revision (ModelMeta.create_empty).
PLACEHOLDERS = frozenset({None, "no_model_name/available", "no_revision_available"})


@dataclass(frozen=True)
class ModelSpec:
    """A model to load: a hub id or local folder, with an optional registered name.

    Attributes:
        source: Hub id (``org/name``) or local model folder.
        name: Name to file results under (see :func:`analysis.runs.models.load_model`).
        revision: Revision override.

    Examples:
        A hub model, and a local folder filed under a name of your choice (both loaded only
        when :func:`run_evaluation` runs):

        >>> from analysis import ModelSpec
        >>> ModelSpec("minishlab/potion-base-8M")
        ModelSpec(source='minishlab/potion-base-8M', name=None, revision=None)
        >>> ModelSpec("data/models/my-static", name="me/my-static").name
        'me/my-static'
    """

    source: str | Path
    name: str | None = None
    revision: str | None = None


# --------------------------------------------------------------------------- tasks


def resolve_tasks(
    names: Iterable[str | AbsTask], local_tasks_dir: str | Path | None = None
) -> list[AbsTask]:
    """Turn task names, benchmark names and task objects into mteb tasks.

    A name that a folder under ``local_tasks_dir`` holds (by ``task.json``'s ``mteb_task``) becomes
    that local task; a benchmark name expands to its tasks (each local when available); any other
    name is looked up in mteb's registry. Returns the tasks without duplicates, in the given order.

    Raises:
        UnknownTaskError: If a name is neither a task nor a benchmark; lists close names.
    """
    local = discover_local_tasks(local_tasks_dir) if local_tasks_dir else {}
    tasks: dict[str, AbsTask] = {}
    for item in names:
        for task in _expand(item, local):
            tasks.setdefault(task.metadata.name, task)
    return list(tasks.values())


def _expand(item: str | AbsTask, local: dict[str, Path]) -> list[AbsTask]:
    if isinstance(item, AbsTask):
        return [item]
    if item in local:
        return [load_local_task(local[item])]
    if item in compat.task_names():
        return [mteb.get_task(item)]
    if item in compat.benchmark_names():
        return [
            load_local_task(local[t.metadata.name]) if t.metadata.name in local else t
            for t in mteb.get_benchmark(item).tasks
        ]
    raise UnknownTaskError(_unknown_task_message(item, local))


def _unknown_task_message(name: str, local: dict[str, Path]) -> str:
    return unknown_task_message(name, compat.task_names() | compat.benchmark_names() | set(local))


# --------------------------------------------------------------------------- paths


def result_path(results_dir: str | Path, meta: ModelMeta, task_name: str) -> Path:
    """``<results_dir>/results/<org>__<model>/<revision>/[experiments/<e>/]<Task>.json``."""
    return ModelFolder.of(meta).result_file(results_dir, task_name)


def predictions_path(results_dir: str | Path, meta: ModelMeta, task_name: str) -> Path:
    """``<results_dir>/predictions/<org>__<model>/<revision>/<Task>_predictions.json``."""
    return ModelFolder.of(meta).predictions_file(results_dir, task_name)


def set_aside_note(paths: Sequence[str | Path], *, ran_again: bool = True) -> str | None:
    """The one-line note for ``*.json.corrupt`` files (None when there are none).

    ``ran_again``: their tasks were run again (a run), or are still to run (status).
    """
    if not paths:
        return None
    one = len(paths) == 1
    what = "1 corrupt result" if one else f"{len(paths)} corrupt results"
    again = f" ({'its task' if one else 'their tasks'} ran again)" if ran_again else ""
    return f"{what} set aside{again}: {', '.join(display_path(p) for p in paths)}"


def read_valid_result(path: Path) -> TaskResult | None:
    """Read a result file (None when missing); one that does not parse goes to ``*.corrupt``."""
    if not path.is_file():
        return None
    try:
        return TaskResult.from_disk(path)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        # truncated JSON (JSONDecodeError), schema errors (pydantic's ValidationError is a
        # ValueError), missing or mistyped fields: the file is not a usable result.
        # OSError (permissions, a vanished disk) is not this and propagates.
        aside = corrupt_path(path)
        os.replace(path, aside)
        logger.warning(
            "%s was unreadable (%s); moved to %s, the task runs again.", path, err, aside
        )
        return None


# --------------------------------------------------------------------------- running


@compat.speed_up_classification()  # in force for the run only: same scores, labels read once
def run_evaluation(
    models: Sequence[str | Path | ModelSpec | EncoderProtocol],
    tasks: Sequence[str | AbsTask],
    *,
    results_dir: str | Path,
    local_tasks_dir: str | Path | None = None,
    batch_size: int = 32,
    overwrite: Overwrite = "only-missing",
    save_predictions: bool = True,
    public_only: bool = False,
    show_progress: bool = True,
    batch_progress: bool = False,
) -> pd.DataFrame:
    """Evaluate every model on every task, resumably; one failing task does not stop the run.

    Args:
        models: Hub ids, local folders, :class:`ModelSpec` or already loaded encoders.
        tasks: Task names, benchmark names or task objects (see :func:`resolve_tasks`).
        results_dir: Results folder, mteb layout (``mteb.ResultCache(results_dir)`` reads it).
        local_tasks_dir: Folder of local task folders; tasks found there run on local data.
        batch_size: Encoding batch size.
        overwrite: ``only-missing`` (skip finished tasks, run missing splits), ``always``
            (re-run everything) or ``never`` (keep any existing result file as it is).
        save_predictions: Save predictions (retrieval rankings) next to the results.
        public_only: Skip private tasks (e.g. RTEB's closed sets) instead of trying them.
        show_progress: Show the progress bar over (model, task) pairs, named after the
            model and task being run.
        batch_progress: Also show the inner bars (mteb's per task, the model's per encoding batch).
            Off by default: one bar per unit a person waits for. Needs ``show_progress``.

    Returns:
        One row per (model, task): model, revision, task, status (``ran``, ``cached``,
        ``skipped`` or ``failed``), main_score and error. Failures are also logged at the end;
        ``summary.attrs["tracebacks"]`` maps ``(model, task)`` of each failure to its traceback;
        ``summary.attrs["set_aside"]`` lists the corrupt result files moved aside (and run
        again), for :func:`set_aside_note`.

    Raises:
        ValueError: If ``overwrite`` or ``batch_size`` is invalid.
        UnknownTaskError: If a task name is unknown (before anything runs).
        RunInterrupted: On ``KeyboardInterrupt`` (Ctrl-C, a notebook kernel interrupt;
            SIGTERM under :func:`analysis.core.interrupt.stop_on_signals`): the running
            evaluation's staging folder is removed and its lock released, so no partial
            file is left; finished evaluations are kept, and running again resumes.

    Examples:
        ``tiny_model`` is the tests' distilled static model and ``tiny_task`` a hand-made local
        task folder (AskUbuntuDupQuestions' code on 4 queries; both from
        ``tests/project/test_doctests.py``):

        >>> import tempfile
        >>> from analysis import load_local_task, run_evaluation
        >>> results = tempfile.mkdtemp()
        >>> summary = run_evaluation(
        ...     [tiny_model], [load_local_task(tiny_task)], results_dir=results,
        ...     show_progress=False)
        >>> summary[["task", "status"]].values.tolist()
        [['AskUbuntuDupQuestions', 'ran']]
        >>> run_evaluation([tiny_model], [load_local_task(tiny_task)], results_dir=results,
        ...                show_progress=False)["status"].tolist()  # resumes: nothing to run
        ['cached']
    """
    if overwrite not in OVERWRITE_STRATEGIES:
        raise ValueError(f"overwrite must be one of {OVERWRITE_STRATEGIES}, got {overwrite!r}.")
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}.")
    results_dir = Path(results_dir)
    task_list = resolve_tasks(tasks, local_tasks_dir)
    _clean_stale_staging(results_dir)
    rows: list[dict[str, object]] = []
    pairs = tqdm(total=len(models) * len(task_list), desc="model x task", disable=not show_progress)
    options = {
        "batch_size": batch_size,
        "overwrite": overwrite,
        "save_predictions": save_predictions,
        "public_only": public_only,
        "show_progress": show_progress and batch_progress,
    }
    try:
        for model_like in models:
            _run_model(model_like, task_list, results_dir, pairs, rows, **options)
    except KeyboardInterrupt as err:  # the running task kept nothing partial (see _run_one)
        raise RunInterrupted(
            signum=signal_of(err),
            finished=len(rows),
            interrupted=1,
            not_started=len(models) * len(task_list) - len(rows) - 1,
            unit="evaluation",
            note="Run again to resume (finished evaluations are kept)",
        ) from None
    finally:
        pairs.close()
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    summary.attrs["tracebacks"] = {
        (row["model"], row["task"]): row["traceback"] for row in rows if row.get("traceback")
    }
    summary.attrs["set_aside"] = [str(row["set_aside"]) for row in rows if row.get("set_aside")]
    _report_failures(summary)
    return summary


def _run_model(
    model_like: str | Path | ModelSpec | EncoderProtocol,
    tasks: list[AbsTask],
    results_dir: Path,
    pairs: tqdm,
    rows: list[dict[str, object]],
    **options: Any,
) -> None:
    """Evaluate one model on ``tasks``, appending a row per task to ``rows`` as each ends."""
    label = str(model_like.source if isinstance(model_like, ModelSpec) else model_like)
    try:
        model = _load(model_like)
    except Exception as err:  # reported as a failed row per task, with the error
        pairs.update(len(tasks))
        message = f"model could not be loaded: {type(err).__name__}: {err}"
        rows.extend(_row(label, None, t.metadata.name, "failed", None, message) for t in tasks)
        return
    meta = model.mteb_model_meta
    for task in tasks:
        pairs.set_description(f"{meta.name} | {task.metadata.name}")
        rows.append(_run_one(model, meta, task, results_dir, **options))
        pairs.update(1)


def _load(model_like: str | Path | ModelSpec | EncoderProtocol) -> EncoderProtocol:
    if isinstance(model_like, ModelSpec):
        return load_model(model_like.source, name=model_like.name, revision=model_like.revision)
    if isinstance(model_like, str | Path):
        return load_model(model_like)
    meta = getattr(model_like, "mteb_model_meta", None)
    if meta is None or meta.name in PLACEHOLDERS or meta.revision in PLACEHOLDERS:
        raise TypeError(
            f"{type(model_like).__name__} has no model name and revision (mteb would file it "
            "under no_model_name_available/no_revision_available, where every unnamed model "
            "reuses and overwrites the others' results). Load it with "
            "analysis.runs.models.load_model(path, name=...) instead."
        )
    return model_like


def _row(
    model: str, revision: str | None, task: str, status: str, score: float | None, error: str | None
) -> dict[str, object]:
    return dict(zip(SUMMARY_COLUMNS, (model, revision, task, status, score, error), strict=True))


def _run_one(
    model: EncoderProtocol,
    meta: ModelMeta,
    task: AbsTask,
    results_dir: Path,
    *,
    public_only: bool,
    **options: Any,
) -> dict[str, object]:
    name = task.metadata.name

    def row(status: str, score: float | None = None, error: str | None = None) -> dict:
        return _row(str(meta.name), str(meta.revision), name, status, score, error)

    if public_only and not task.metadata.is_public:
        return row("skipped", error="private task skipped (public_only=True)")
    with task_lock(results_dir, meta, name):
        path = result_path(results_dir, meta, name)
        had = path.is_file()
        existing = read_valid_result(path)
        aside = {"set_aside": str(corrupt_path(path))} if had and existing is None else {}
        overwrite = options["overwrite"]
        if existing is not None and overwrite != "always":
            if overwrite == "never" or not existing.get_missing_evaluations(task):
                return row("cached", _main_score(existing, task))
        staging = results_dir / STAGING / f"{os.getpid()}-{uuid.uuid4().hex[:8]}-{_host()}"
        try:
            result = _evaluate_staged(model, meta, task, results_dir, staging, **options)
            return {**row("ran", _main_score(result, task)), **aside}
        except Exception as err:  # the row reports it (error + traceback); other tasks go on
            trace = traceback.format_exc()
            logger.debug("Task %s failed for %s:\n%s", name, meta.name, trace)
            failed = row("failed", error=f"{type(err).__name__}: {err}")
            return {**failed, "traceback": trace, **aside}
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _evaluate_staged(
    model: EncoderProtocol,
    meta: ModelMeta,
    task: AbsTask,
    results_dir: Path,
    staging: Path,
    *,
    batch_size: int,
    overwrite: Overwrite,
    save_predictions: bool,
    show_progress: bool,
) -> TaskResult:
    name = task.metadata.name
    cache = mteb.ResultCache(staging)
    final_result = result_path(results_dir, meta, name)
    staged_result = result_path(staging, meta, name)
    staged_result.parent.mkdir(parents=True, exist_ok=True)
    if final_result.is_file():  # mteb merges missing splits into it (run_settings.jsonl
        shutil.copy2(final_result, staged_result)  # is not copied: appended below, under a lock)
    prediction_folder = staging / PREDICTIONS if save_predictions else None
    outcome = mteb.evaluate(
        model,
        task,
        cache=cache,
        overwrite_strategy=overwrite,
        encode_kwargs={"batch_size": batch_size, "show_progress_bar": show_progress},
        prediction_folder=prediction_folder,
        show_progress_bar=show_progress,
        raise_error=True,
        co2_tracker=False,
    )
    if outcome.exceptions:
        raise RuntimeError("; ".join(str(e.exception) for e in outcome.exceptions))
    if not staged_result.is_file():
        raise RuntimeError(f"mteb returned without writing {staged_result.name}.")
    if prediction_folder is not None:
        staged_predictions = prediction_folder / task.prediction_file_name
        if staged_predictions.is_file():
            _publish(staged_predictions, predictions_path(results_dir, meta, name))
    if (staged_result.parent / "model_meta.json").is_file():
        _publish(staged_result.parent / "model_meta.json", final_result.parent / "model_meta.json")
    staged_settings = staged_result.parent / "run_settings.jsonl"
    if staged_settings.is_file():
        with file_lock(lock_path(results_dir, meta, "run_settings.jsonl")):
            _append_lines(staged_settings, final_result.parent / "run_settings.jsonl")
    _publish(staged_result, final_result)  # last: its presence means the task is complete
    return TaskResult.from_disk(final_result)


def _append_lines(source: Path, target: Path) -> None:
    """Append the lines of ``source`` to ``target``, atomically (call under a lock)."""
    old = target.read_bytes() if target.is_file() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    atomic_write_bytes(target, old + source.read_bytes())


def _publish(source: Path, target: Path) -> None:
    """Flush ``source`` to disk and move it over ``target`` atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with source.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(source, target)


def _main_score(result: TaskResult, task: AbsTask) -> float | None:
    splits = [split for split in task.eval_splits if split in result.scores]
    return float(result.get_score(splits=splits)) if splits else None


def _host() -> str:
    return socket.gethostname().replace("/", "_")


def _clean_stale_staging(results_dir: Path) -> None:
    """Remove killed runs' staging folders: this host's dead pids', others' when a day old."""
    root = results_dir / STAGING
    if not root.is_dir():
        return
    for folder in root.iterdir():
        pid, _, rest = folder.name.partition("-")
        host = rest.partition("-")[2] or _host()  # old names: <pid>-<random>
        if host == _host():
            stale = not (pid.isdigit() and (int(pid) == os.getpid() or pid_alive(int(pid))))
        else:
            try:
                stale = time.time() - folder.stat().st_mtime > FOREIGN_STAGING_AGE
            except FileNotFoundError:
                continue
        if stale:
            shutil.rmtree(folder, ignore_errors=True)


def _report_failures(summary: pd.DataFrame) -> None:
    failed = summary[summary["status"] == "failed"]
    if failed.empty:
        return
    lines = [f"  {r.model} | {r.task}: {r.error}" for r in failed.itertuples()]
    logger.warning("%d of %d evaluations failed:\n%s", len(failed), len(summary), "\n".join(lines))
