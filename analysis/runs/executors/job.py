"""The job function every executor calls: load the model, check it, evaluate its tasks."""

from __future__ import annotations

import os
import signal
import time
import traceback
from typing import Any

from ...core.errors import JobFailedError, PlanMismatchError
from ...core.interrupt import signal_of
from ...core.layout import ModelFolder
from ..plan import Job
from .records import slurm_ids, this_process, write_record


def run_job(job: Job, *, batch_size: int = 32, threads: int | None = None) -> list[dict[str, Any]]:
    """Run one job of a plan: load the model, check it, evaluate its tasks. Raises if any failed.

    The job's record (:mod:`.records`) says ``running`` while it runs, then ``done``,
    ``failed`` (with error and traceback) or ``interrupted`` (Ctrl-C, SIGTERM: the
    interrupted task left no partial file, and the next run of the plan runs the job).

    Returns:
        One summary row per task (model, revision, task, status, main_score, error).

    Raises:
        PlanMismatchError: The model's content, name or revision differs from the plan's.
        JobFailedError: Some tasks failed; the others' results are saved.
        KeyboardInterrupt: The job was interrupted (recorded as such first).
    """
    _limit_threads(threads or _int_env("SLURM_CPUS_PER_TASK"))
    base = {
        **this_process(),
        "model": job.name,
        "tasks": list(job.tasks),
        "started": time.time(),
        **slurm_ids(),
    }
    write_record(job, state="running", **base)
    try:
        rows, tracebacks = _evaluate(job, batch_size=batch_size)
    except KeyboardInterrupt as err:
        name = signal.Signals(signal_of(err)).name
        write_record(
            job, state="interrupted", **base, finished=time.time(), error=f"interrupted ({name})"
        )
        raise
    except Exception as err:
        details = {"error": f"{type(err).__name__}: {err}", "traceback": traceback.format_exc()}
        write_record(job, state="failed", **base, finished=time.time(), **details)
        raise
    failed = [row for row in rows if row["status"] == "failed"]
    state = "failed" if failed else "done"
    error = "; ".join(f"{row['task']}: {row['error']}" for row in failed) or None
    trace = "\n".join(tracebacks) or None
    write_record(
        job, state=state, **base, finished=time.time(), rows=rows, error=error, traceback=trace
    )
    if failed:
        raise JobFailedError(f"{len(failed)} of {len(rows)} tasks failed: {error}\n{trace or ''}")
    return rows


def _evaluate(job: Job, *, batch_size: int) -> tuple[list[dict[str, Any]], list[str]]:
    from ..models import content_revision, load_model
    from ..runner import run_evaluation

    if job.content is not None:
        current = content_revision(job.model)
        if current != job.content:
            raise PlanMismatchError(
                f"The local model {job.model} changed since planning: content hash "
                f"{job.content} planned, {current} now. Make a new plan."
            )
    model = load_model(job.model, name=job.name_override, encoder=job.encoder)
    loaded = ModelFolder.of(model.mteb_model_meta)
    if loaded != job.folder:
        raise PlanMismatchError(
            f"{job.model} loads as {_described(loaded)}, but the plan expects "
            f"{_described(job.folder)}. Make a new plan."
        )
    summary = run_evaluation(
        [model],
        list(job.tasks),
        results_dir=job.results_dir,
        local_tasks_dir=job.local_tasks_dir,
        batch_size=batch_size,
        public_only=job.public_only,
        show_progress=False,
    )
    rows = summary.astype(object).where(summary.notna(), None).to_dict(orient="records")
    tracebacks = [f"[{task}]\n{trace}" for (_, task), trace in summary.attrs["tracebacks"].items()]
    return rows, tracebacks


def _described(folder: ModelFolder) -> str:
    """``<name> revision <revision>`` (``, experiment <name>`` when there is one)."""
    experiment = f", experiment {folder.experiment}" if folder.experiment else ""
    return f"{folder.name} revision {folder.revision}{experiment}"


def _int_env(name: str) -> int | None:
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() else None


def _limit_threads(threads: int | None) -> None:
    """Give torch and the BLAS/OpenMP pools ``threads`` threads (workers must not oversubscribe)."""
    if not threads:
        return
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(threads)
    threadpool_limits(limits=threads)
