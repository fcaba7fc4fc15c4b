"""What became of a plan's jobs: done, running, failed (with the error) or pending.

:func:`plan_status` reads what every executor leaves (result files, the submission log, the
job's record, the task locks), then asks the executor
(:meth:`~analysis.runs.executors.base.Executor.job_status`: SLURM's queue and submitit's
logs, or the local worker's pid). The states and what to do about each: ``docs/cluster.md``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.layout import corrupt_path
from .executors.factory import executor_class
from .executors.records import read_record
from .executors.slurm import slurm_queue
from .executors.states import STATES, JobStatus, JobTraces, failed
from .executors.submissions import read_submissions
from .locks import Holder
from .locks import lock_holder as held_by
from .plan import Job, Plan, job_complete

STATUS_COLUMNS = ["job", "model", "tasks", "state", "executor", "slurm_id", "detail"]


def plan_status(plan: Plan, *, queue: dict[str, tuple[str, str]] | None = None) -> list[JobStatus]:
    """The state of every job of ``plan``, in plan order (``queue``: SLURM's, read when None)."""
    last = {job_id: entry for entry in read_submissions(plan) for job_id in entry.get("jobs", {})}
    if queue is None:
        queue = slurm_queue() if any(e["executor"] == "slurm" for e in last.values()) else {}
    return [
        _with_set_aside(job, _status(plan, job, last.get(job.job_id), queue)) for job in plan.jobs
    ]


def set_aside_files(job: Job) -> list[Path]:
    """The job's corrupt result files that were moved aside (``<Task>.json.corrupt``).

    Only those whose task has no result file again: a task run again since is not news.
    """
    return [
        corrupt_path(path)
        for path in job.result_files()
        if not path.is_file() and corrupt_path(path).is_file()
    ]


def set_aside_since(plan: Plan, since: float) -> list[Path]:
    """The plan's result files set aside as corrupt since ``since`` (Unix time).

    The rename is the file's last status change (``st_ctime``); its content, and so its
    modification time, are the corrupt file's own.
    """
    found = []
    for job in plan.jobs:
        for path in job.result_files():
            aside = corrupt_path(path)
            try:
                if aside.stat().st_ctime >= since - 1:
                    found.append(aside)
            except OSError:
                continue
    return found


def _with_set_aside(job: Job, status: JobStatus) -> JobStatus:
    """A pending job whose results were set aside as corrupt says so, not "results missing"."""
    if status.state != "pending":
        return status
    files = set_aside_files(job)
    if not files:  # the usual case: mteb (imported by the runner) is not needed
        return status
    from .runner import set_aside_note

    note = set_aside_note(files, ran_again=False)
    return dataclasses.replace(status, detail=f"{note}; run again")


def _status(
    plan: Plan, job: Job, entry: dict[str, Any] | None, queue: dict[str, tuple[str, str]]
) -> JobStatus:
    base: dict[str, Any] = {"job_id": job.job_id, "model": job.name, "tasks": job.tasks}
    if job_complete(job):
        slurm_id = entry["jobs"].get(job.job_id) if entry else None
        executor = entry["executor"] if entry else None
        return JobStatus(**base, state="done", executor=executor, slurm_id=slurm_id)
    if entry is None:
        elsewhere = _running_elsewhere(job, base, None, here="not submitted here")
        return elsewhere or JobStatus(**base, state="pending", detail="not submitted")
    executor = entry["executor"]
    if entry.get("error"):
        return failed(base, executor, None, entry["error"], None, prefix="submission rejected")
    kind = executor_class(executor)
    record = read_record(plan, job.job_id)
    if record is not None and record.get("started", 0) < entry["time"] - 1:
        record = None  # from an earlier attempt
    if record is None:  # not taken by the last submission: another process may run it
        here = "queued here behind it" if kind.may_start(entry) else None
        elsewhere = _running_elsewhere(job, base, executor, here=here)
        if elsewhere is not None:
            return elsewhere
    return kind.job_status(JobTraces(plan, base, entry, record, queue))


def lock_holder(job: Job) -> tuple[str, Holder] | None:
    """A process holding the lock of one of the job's tasks: ``(task, holder)``.

    Another process on the plan (a second ``run --plan``, or ``run -m -t`` on the same
    model and task) holds each task's lock (:mod:`analysis.runs.locks`) while it runs it.
    """
    for task, path in zip(job.tasks, job.lock_files(), strict=True):
        holder = held_by(path)
        if holder is not None:
            return task, holder
    return None


def _running_elsewhere(
    job: Job, base: dict[str, Any], executor: str | None, *, here: str | None = None
) -> JobStatus | None:
    """The job as another process runs it, when one holds a task's lock.

    ``here`` says what this plan's own runs do with the job: None when nothing of them runs
    any more (the job is then ``running``, elsewhere); else the job is ``pending``, saying
    this (``queued here behind it``, ``not submitted here``).
    """
    held = lock_holder(job)
    if held is None:
        return None
    task, holder = held
    owner = f"pid {holder.pid} on {holder.host}"
    where = f"running elsewhere: {owner}" + ("" if len(job.tasks) == 1 else f" ({task})")
    state, detail = ("running", where) if here is None else ("pending", f"{where}; {here}")
    return JobStatus(**base, state=state, detail=detail, executor=executor, held_by=owner)


def jobs_to_run(plan: Plan, statuses: Sequence[JobStatus]) -> list[Job]:
    """The jobs a run of the plan submits: unfinished, and not running or queued elsewhere.

    A job another process holds the lock of (:attr:`JobStatus.held_by`) is submitted too:
    its worker waits behind the lock and then finds the result, or runs it when the other
    process stopped first.
    """
    return [
        plan.job(s.job_id)
        for s in statuses
        if s.held_by is not None
        or (s.state in ("failed", "interrupted", "pending") and not s.detail.startswith("queued"))
    ]


def status_table(statuses: Sequence[JobStatus]) -> pd.DataFrame:
    """One row per job: job, model, tasks, state, executor, slurm_id, detail."""
    rows = [
        [
            s.job_id,
            s.model,
            ",".join(s.tasks),
            s.state,
            s.executor or "",
            s.slurm_id or "",
            s.detail,
        ]
        for s in statuses
    ]
    return pd.DataFrame(rows, columns=STATUS_COLUMNS)


def state_counts(statuses: Sequence[JobStatus]) -> dict[str, int]:
    """How many jobs are in each state (every state listed, zeros included)."""
    return dict.fromkeys(STATES, 0) | Counter(status.state for status in statuses)


def result_rows(plan: Plan) -> pd.DataFrame:
    """Every (model, task) of the plan: model, revision, task, status (done/missing), main_score."""
    from .runner import _main_score, read_valid_result, resolve_tasks

    rows = []
    for job in plan.jobs:
        tasks = resolve_tasks(job.tasks, job.local_tasks_dir)
        for task, path in zip(tasks, job.result_files(), strict=True):
            result = read_valid_result(path)
            complete = result is not None and not result.get_missing_evaluations(task)
            score = _main_score(result, task) if result is not None and complete else None
            status = "done" if complete else "missing"
            rows.append((job.name, job.revision, task.metadata.name, status, score))
    return pd.DataFrame(rows, columns=["model", "revision", "task", "status", "main_score"])
