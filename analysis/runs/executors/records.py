"""Job records: ``<results>/logs/jobs/<job_id>.json``, what became of each job.

The job function (:mod:`.job`) writes a job's record when the job starts (``running``)
and when it ends (``done``, ``failed`` or ``interrupted``), atomically, with the host,
pid, SLURM id, per-task rows, error and traceback. :mod:`analysis.runs.status` reads the
records; the local executor watches them to draw its progress bar.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...core.io import atomic_write_text
from ..locks import process_start
from ..plan import Job, Plan, job_complete

JOB_RECORDS = "jobs"
#: The states a record can hold; all but ``running`` mean the job ended.
RECORD_STATES = ("running", "done", "failed", "interrupted")
ENDED = frozenset(RECORD_STATES) - {"running"}


def record_path(plan_or_results: Plan | str | Path, job_id: str) -> Path:
    """Where the record of job ``job_id`` lives: ``<results>/logs/jobs/<job_id>.json``."""
    results = plan_or_results.results_dir if isinstance(plan_or_results, Plan) else plan_or_results
    return Path(results) / "logs" / JOB_RECORDS / f"{job_id}.json"


def read_record(plan: Plan | str | Path, job_id: str) -> dict[str, Any] | None:
    """The record of a job, or None if it never started (or the record is unreadable)."""
    try:
        return json.loads(record_path(plan, job_id).read_text())
    except (OSError, ValueError):
        return None


def write_record(job: Job, **fields: Any) -> dict[str, Any]:
    """Write the record of ``job`` (atomically): ``{"job_id": ..., **fields}``."""
    path = record_path(job.results_dir, job.job_id)
    atomic_write_text(path, json.dumps({"job_id": job.job_id, **fields}, default=str))
    return fields


def slurm_ids() -> dict[str, str | None]:
    """``{"slurm_job_id": "<array>_<index>"}`` inside a SLURM job (its job id, or None)."""
    array, index = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    slurm_id = f"{array}_{index}" if array and index else os.environ.get("SLURM_JOB_ID")
    return {"slurm_job_id": slurm_id}


def this_process() -> dict[str, Any]:
    """Host, pid and pid start time of this process (how status tells it is still alive)."""
    return {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "pid_start": process_start(os.getpid()),
    }


def mark_interrupted(plan: Plan, job: Job, pids: set[int], reason: str) -> bool:
    """Record a ``running`` job of one of ``pids`` (killed workers) as interrupted; True if so."""
    record = read_record(plan, job.job_id)
    if record is None or record.get("state") != "running" or record.get("pid") not in pids:
        return False
    fields = {k: v for k, v in record.items() if k != "job_id"}
    fields.update(state="interrupted", finished=time.time(), error=reason)
    write_record(job, **fields)
    return True


def stop_counts(
    jobs: Sequence[Job], ended: Mapping[str, Mapping[str, Any]]
) -> tuple[int, int, int]:
    """What a stopped run did: jobs finished, interrupted and never started, as status counts.

    A job is finished when its record says it ended (``done`` or ``failed``), or when all
    its result files are complete whatever its record says: a stop that lands after the
    last result file but before the record leaves the record ``interrupted`` (or
    ``running``, if the worker was killed), and :mod:`analysis.runs.status` reads the job
    as done. So the run's last line and ``static-rteb status`` give the same counts.

    Returns:
        ``(finished, interrupted, not_started)``, summing to ``len(jobs)``.
    """
    finished = interrupted = 0
    for job in jobs:
        state = ended[job.job_id].get("state") if job.job_id in ended else None
        if state in ("done", "failed") or job_complete(job):
            finished += 1
        elif state == "interrupted":
            interrupted += 1
    return finished, interrupted, len(jobs) - finished - interrupted
