"""A job's state as ``static-rteb status`` shows it, and the helpers every executor shares.

Each executor reads its own traces (:meth:`.base.Executor.job_status`: SLURM's queue and
submitit's logs in :mod:`.slurm`, the worker's pid in :mod:`.local`);
:mod:`analysis.runs.status` reads what every executor shares (results, submissions,
records, locks) and asks the job's executor for the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..plan import Plan

STATES = ("done", "running", "failed", "interrupted", "pending")


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


@dataclass(frozen=True)
class JobTraces:
    """What :func:`analysis.runs.status.plan_status` found of an unfinished job, for its executor.

    Attributes:
        plan: The plan.
        base: The fields every state has (``job_id``, ``model``, ``tasks``).
        entry: The job's last submission (a line of ``submissions.jsonl``).
        record: The job's record from that submission, or None (not taken yet).
        queue: SLURM's queue (empty when no job went to SLURM).
    """

    plan: Plan
    base: dict[str, Any]
    entry: dict[str, Any]
    record: dict[str, Any] | None
    queue: Mapping[str, tuple[str, str]]


def failed(
    base: dict[str, Any],
    executor: str,
    slurm_id: str | None,
    error: str,
    trace: str | None,
    *,
    prefix: str = "",
) -> JobStatus:
    """A failed job: its detail is the error's first line (after ``prefix``), 120 characters."""
    first = error.strip().splitlines()[0] if error.strip() else "failed"
    return JobStatus(
        **base,
        state="failed",
        detail=(f"{prefix}: {first}" if prefix else first)[:120],
        executor=executor,
        slurm_id=slurm_id,
        error=error,
        traceback=trace,
    )


def interrupted(
    base: dict[str, Any], executor: str, slurm_id: str | None, record: dict[str, Any]
) -> JobStatus:
    """A job stopped cleanly (Ctrl-C, SIGTERM): running the plan again runs it."""
    detail = f"{record.get('error') or 'interrupted'}; run the plan again"
    return JobStatus(
        **base, state="interrupted", detail=detail, executor=executor, slurm_id=slurm_id
    )


def results_missing(base: dict[str, Any], executor: str) -> JobStatus:
    """A job recorded done whose result files were removed since: pending again."""
    return JobStatus(
        **base, state="pending", detail="results missing; run again", executor=executor
    )
