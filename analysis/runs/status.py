"""What became of a plan's jobs: done, running, failed (with the error) or pending.

:func:`plan_status` reads, for every job of a plan,

* the results folder: a job is **done** when all its result files are complete;
* the submission log (``<results>/logs/submissions.jsonl``): a job never submitted is
  **pending**; a job whose submission SLURM rejected is **failed** with SLURM's message;
* the job's record (``<results>/logs/jobs/<id>.json``), which names the SLURM worker
  (array element) that took it, and SLURM's queue (``squeue``): a job no worker has
  taken is **pending** while a worker of its submission is queued or running (with
  SLURM's reason); a taken job is **running** while its worker runs;
* submitit's logs (``<results>/logs/<slurm id>_0_log.err`` and ``..._result.pkl``): a
  job whose worker left the queue without finishing it is **failed**, with its error
  and traceback, or SLURM's own message (cancelled, time limit, out of memory) from the
  worker's log; so is a job that no worker took when a worker died with an error;
* for the local executor, the worker's pid: a record ``running`` whose process is gone
  is **failed**;
* the task locks (``<results>/.locks/...``): a job that the last submission has not
  started but whose task lock a live process holds (a second ``run --plan`` on the same
  plan, or ``run -m -t``) is **running elsewhere**, with that process's pid and host;
* a record ``interrupted`` (Ctrl-C, SIGTERM, a kernel interrupt: the job stopped
  cleanly, with no partial file) is **interrupted**, never failed; running the plan
  again runs it.
"""

from __future__ import annotations

import dataclasses
import pickle as pickle_module
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..core import compat
from .executors.records import read_record
from .executors.slurm import ACTIVE_STATES, array_pending, slurm_queue
from .executors.submissions import read_submissions
from .locks import LockInfo, lock_is_held, pid_alive, read_lock
from .plan import Job, Plan, job_complete

STATES = ("done", "running", "failed", "interrupted", "pending")
STATUS_COLUMNS = ["job", "model", "tasks", "state", "executor", "slurm_id", "detail"]
#: Lines of a SLURM log worth showing when a job died without a traceback.
SLURM_MARKERS = ("slurmstepd", "CANCELLED", "DUE TO TIME LIMIT", "oom", "error", "Error", "Killed")


@dataclass(frozen=True)
class JobStatus:
    """The state of one job.

    Attributes:
        job_id: The job.
        model: Its model's result name.
        tasks: Its tasks.
        state: ``done``, ``running``, ``failed``, ``interrupted`` or ``pending``.
        detail: A short explanation (SLURM's reason, the error's first line).
        executor: ``local`` or ``slurm`` (last submission), or None.
        slurm_id: ``<array>_<index>`` of the last SLURM submission, or None.
        error: The error of a failed job (SLURM's message or the exception).
        traceback: The traceback of a failed job, when one was recorded.
        held_by: ``pid <pid> on <host>`` of another process that holds the lock of one
            of the job's tasks, when no worker of the plan's last submission has started
            it (a second ``run --plan`` on one plan). A run of the plan may still queue
            the job: its worker waits behind that lock, then finds the result.
    """

    job_id: str
    model: str
    tasks: tuple[str, ...]
    state: str
    detail: str = ""
    executor: str | None = None
    slurm_id: str | None = None
    error: str | None = None
    traceback: str | None = None
    held_by: str | None = None


def plan_status(plan: Plan, *, queue: dict[str, tuple[str, str]] | None = None) -> list[JobStatus]:
    """The state of every job of ``plan``.

    Args:
        plan: The plan.
        queue: SLURM's queue (:func:`analysis.runs.executors.slurm_queue`); read when None
            and some job was submitted to SLURM.

    Returns:
        One :class:`JobStatus` per job, in plan order.
    """
    last: dict[str, dict[str, Any]] = {}
    for entry in read_submissions(plan):
        for job_id in entry.get("jobs", {}):
            last[job_id] = entry
    if queue is None:
        queue = slurm_queue() if any(e["executor"] == "slurm" for e in last.values()) else {}
    return [
        _with_set_aside(job, _status(plan, job, last.get(job.job_id), queue)) for job in plan.jobs
    ]


def set_aside_files(job: Job) -> list[Path]:
    """The job's corrupt result files that were moved aside (``<Task>.json.corrupt``).

    Only those whose task has no result file again: a task run again since is not news.
    """
    from .runner import corrupt_path

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
    from .runner import corrupt_path

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
    from .runner import set_aside_note

    note = set_aside_note(set_aside_files(job), ran_again=False)
    if note is None:
        return status
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
        return _failed(base, executor, None, entry["error"], None, prefix="submission rejected")
    record = read_record(plan, job.job_id)
    if record is not None and record.get("started", 0) < entry["time"] - 1:
        record = None  # from an earlier attempt
    if record is None:  # not taken by the last submission: another process may run it
        queued_here = executor != "local" or _coordinator_alive(entry)
        here = "queued here behind it" if queued_here else None
        elsewhere = _running_elsewhere(job, base, executor, here=here)
        if elsewhere is not None:
            return elsewhere
    if executor == "slurm":
        return _slurm_status(plan, base, entry, record, queue)
    return _local_status(base, entry, record)


def lock_holder(job: Job) -> tuple[str, LockInfo] | None:
    """A live process holding the lock of one of the job's tasks: ``(task, holder)``.

    Another process on the plan (a second ``run --plan``, or ``run -m -t`` on the same
    model and task) takes each task's lock (:mod:`analysis.runs.locks`) while it runs it.
    Whether it still holds it is :func:`~analysis.runs.locks.lock_is_held`'s rule, the
    one a worker breaking the lock applies.
    """
    for task, path in zip(job.tasks, job.lock_files(), strict=True):
        holder = read_lock(path)
        if holder is not None and lock_is_held(path, holder):
            return task, holder
    return None


def _running_elsewhere(
    job: Job, base: dict[str, Any], executor: str | None, *, here: str | None = None
) -> JobStatus | None:
    """The job as another process runs it, when one holds a task's lock.

    Args:
        job: The job.
        base: The status fields every state has.
        executor: The last submission's executor, if any.
        here: What this plan's own runs do with the job: None when nothing of them runs
            any more (the job is then ``running``, elsewhere); else ``pending``, saying
            this (``queued here behind it``: a worker waits behind the lock, then finds
            the result; ``not submitted here``).
    """
    held = lock_holder(job)
    if held is None:
        return None
    task, holder = held
    owner = f"pid {holder.pid} on {holder.host}"
    where = f"running elsewhere: {owner}" + ("" if len(job.tasks) == 1 else f" ({task})")
    state, detail = ("running", where) if here is None else ("pending", f"{where}; {here}")
    return JobStatus(**base, state=state, detail=detail, executor=executor, held_by=owner)


def _coordinator_alive(entry: dict[str, Any]) -> bool:
    """Whether the process that made a local submission still runs (on this host)."""
    return entry.get("host") == socket.gethostname() and pid_alive(
        int(entry.get("pid", 0)), entry.get("pid_start")
    )


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


def _failed(
    base: dict[str, Any],
    executor: str,
    slurm_id: str | None,
    error: str,
    trace: str | None,
    *,
    prefix: str = "",
) -> JobStatus:
    first = error.strip().splitlines()[0] if error.strip() else "failed"
    detail = f"{prefix}: {first}" if prefix else first
    return JobStatus(
        **base,
        state="failed",
        detail=detail[:120],
        executor=executor,
        slurm_id=slurm_id,
        error=error,
        traceback=trace,
    )


def _interrupted(
    base: dict[str, Any], executor: str, slurm_id: str | None, record: dict[str, Any]
) -> JobStatus:
    detail = f"{record.get('error') or 'interrupted'}; run the plan again"
    return JobStatus(
        **base, state="interrupted", detail=detail, executor=executor, slurm_id=slurm_id
    )


def _slurm_status(
    plan: Plan,
    base: dict[str, Any],
    entry: dict[str, Any],
    record: dict[str, Any] | None,
    queue: dict[str, tuple[str, str]],
) -> JobStatus:
    # submissions before worker arrays had one element per job, named in "jobs"
    workers = entry.get("workers") or [entry["jobs"][base["job_id"]]]
    if record is None:
        return _untaken_status(plan, base, workers, queue)
    slurm_id = record.get("slurm_job_id")
    state = queue.get(slurm_id, ("", ""))[0] if slurm_id else ""
    if record.get("state") == "failed":
        return _failed(base, "slurm", slurm_id, record["error"], record.get("traceback"))
    if record.get("state") == "interrupted":
        return _interrupted(base, "slurm", slurm_id, record)
    if record.get("state") == "done":  # complete once, files removed since
        return JobStatus(
            **base, state="pending", detail="results missing; run again", executor="slurm"
        )
    if state in ACTIVE_STATES:
        return JobStatus(
            **base, state="running", detail=state.lower(), executor="slurm", slurm_id=slurm_id
        )
    error, trace = _worker_error(plan, slurm_id, queue) if slurm_id else ("", None)
    if not error:
        error = (
            "the job's worker left SLURM's queue without finishing it (killed, or its node failed)"
        )
    return _failed(base, "slurm", slurm_id, error, trace)


def _untaken_status(
    plan: Plan, base: dict[str, Any], workers: list[str], queue: dict[str, tuple[str, str]]
) -> JobStatus:
    """A job no worker has started: pending while its workers may still take it."""
    states = {w: queue.get(w, ("", "")) for w in workers}
    running = [w for w, (state, _) in states.items() if state in ACTIVE_STATES - {"PENDING"}]
    queued = [
        w
        for w, (state, _) in states.items()
        if state == "PENDING" or (not state and array_pending(w, queue))
    ]
    if running:
        return JobStatus(
            **base, state="pending", detail="queued for a running SLURM worker", executor="slurm"
        )
    if queued:
        reason = states[queued[0]][1]
        detail = f"queued in SLURM ({reason})" if reason and reason != "None" else "queued in SLURM"
        return JobStatus(**base, state="pending", detail=detail, executor="slurm")
    for worker in workers:
        error, trace = _worker_error(plan, worker, queue)
        if error:
            return _failed(base, "slurm", None, f"no SLURM worker ran it; {worker}: {error}", trace)
    return JobStatus(
        **base,
        state="pending",
        detail="not run: the SLURM workers stopped before it; run the plan again",
        executor="slurm",
    )


def _worker_error(
    plan: Plan, slurm_id: str, queue: dict[str, tuple[str, str]]
) -> tuple[str, str | None]:
    """Why a worker that left the queue ended: its error or SLURM's state ("": it ended well)."""
    error, trace = _submitit_error(plan.logs_dir, slurm_id)
    state, reason = queue.get(slurm_id, ("", ""))
    if state and state not in {"COMPLETED", *ACTIVE_STATES}:
        error = (
            f"SLURM state {state}"
            + (f" ({reason})" if reason and reason != "None" else "")
            + (f": {error}" if error else "")
        )
    return error, trace


def _submitit_error(logs: Path, slurm_id: str) -> tuple[str, str | None]:
    """The error of a SLURM job from submitit's files.

    The traceback from its result pickle, else SLURM's own lines (cancelled, time limit,
    out of memory) from its stderr log. Returns (error line, full text or None).
    """
    pickle = logs / f"{slurm_id}_0_result.pkl"
    if pickle.is_file():
        try:
            outcome, value = compat.submitit_pickle_load(pickle)
        except (OSError, EOFError, ValueError, TypeError, pickle_module.UnpicklingError):
            outcome, value = "", None  # a pickle cut by the kill: fall back to the log
        if outcome == "error":
            text = str(value).strip()
            return text.splitlines()[-1] if text else "the job raised", text
    log = logs / f"{slurm_id}_0_log.err"
    if not log.is_file():
        return "", None
    lines = log.read_text(errors="replace").splitlines()
    marked = [line.strip() for line in lines if any(m in line for m in SLURM_MARKERS)]
    tail = "\n".join(lines[-30:])
    return (marked[-1] if marked else ""), tail or None


def _local_status(
    base: dict[str, Any], entry: dict[str, Any], record: dict[str, Any] | None
) -> JobStatus:
    here = socket.gethostname()
    if record is None:
        detail = (
            "queued for a local worker" if _coordinator_alive(entry) else "not run (the run ended)"
        )
        return JobStatus(**base, state="pending", detail=detail, executor="local")
    if record.get("state") == "failed":
        return _failed(base, "local", None, record["error"], record.get("traceback"))
    if record.get("state") == "interrupted":
        return _interrupted(base, "local", None, record)
    if record.get("state") == "running":
        if record.get("host") != here or pid_alive(int(record["pid"]), record.get("pid_start")):
            detail = f"pid {record['pid']} on {record.get('host')}"
            return JobStatus(**base, state="running", detail=detail, executor="local")
        return _failed(
            base,
            "local",
            None,
            f"worker pid {record['pid']} on {record.get('host')} died before finishing",
            None,
        )
    # a "done" record with incomplete results: files were removed since
    return JobStatus(**base, state="pending", detail="results missing; run again", executor="local")


def status_table(statuses: Sequence[JobStatus]) -> pd.DataFrame:
    """A table of job states: job, model, tasks, state, executor, slurm_id, detail.

    Args:
        statuses: From :func:`plan_status`.

    Returns:
        One row per job.
    """
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
    counts = dict.fromkeys(STATES, 0)
    for status in statuses:
        counts[status.state] += 1
    return counts


def result_rows(plan: Plan) -> pd.DataFrame:
    """Every (model, task) of the plan with its main score from the results folder.

    Args:
        plan: The plan.

    Returns:
        Columns model, revision, task, status (``done`` or ``missing``), main_score.
    """
    from .runner import _main_score, read_valid_result, resolve_tasks

    rows = []
    for job in plan.jobs:
        tasks = resolve_tasks(job.tasks, job.local_tasks_dir)
        for task, path in zip(tasks, job.result_files(), strict=True):
            result = read_valid_result(path)
            complete = result is not None and not result.get_missing_evaluations(task)
            score = _main_score(result, task) if result is not None and complete else None
            rows.append(
                {
                    "model": job.name,
                    "revision": job.revision,
                    "task": task.metadata.name,
                    "status": "done" if complete else "missing",
                    "main_score": score,
                }
            )
    return pd.DataFrame(rows, columns=["model", "revision", "task", "status", "main_score"])
