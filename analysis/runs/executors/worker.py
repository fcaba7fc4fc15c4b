"""Claims and the worker loop: run a submission's jobs until none is left.

A worker (an element of a SLURM job array, or a local worker process) walks the
submission's job list and runs each job it can :func:`claim`. Claims are files created
with ``O_EXCL`` under ``<results>/logs/claims/<token>/``, so every job runs exactly once
per submission however many workers share the list, and each worker pays the
interpreter start and mteb imports once for all the jobs it runs.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..plan import Job, read_plan
from .job import run_job
from .records import slurm_ids

logger = logging.getLogger(__name__)

CLAIMS = "claims"
JOBS_FILE = "jobs.jsonl"


def new_token() -> str:
    """A fresh submission token: ``<UTC-ish local time>-<8 hex digits>``."""
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"


def claims_dir(results: str | Path, token: str) -> Path:
    """``<results>/logs/claims/<token>``: one submission's claims and its jobs file."""
    return Path(results) / "logs" / CLAIMS / token


def claim(results: str | Path, token: str, job_id: str) -> bool:
    """Claim job ``job_id`` for one submission: True for exactly one caller.

    The claim is a file, ``<results>/logs/claims/<token>/<job_id>``, created with ``O_EXCL`` (atomic
    on local and NFS file systems), holding the claimer's SLURM id, host and pid. Claims are per
    submission (``token``), so a resubmission runs the job again; the per-task locks of
    :mod:`analysis.runs.locks` still keep two runs of one task apart.
    """
    folder = claims_dir(results, token)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(folder / job_id, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    try:
        os.write(fd, f"{slurm_ids()['slurm_job_id']} {socket.gethostname()} {os.getpid()}".encode())
    finally:
        os.close(fd)
    return True


def run_worker(
    jobs: Sequence[Job] | str | Path,
    token: str,
    *,
    batch_size: int = 32,
    timeout_min: float | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """Run the submission's jobs until none is left (one worker of several).

    Every worker walks the same job list and runs each job it can :func:`claim`, so the jobs spread
    over however many workers start. A failing job is recorded (its record holds the error and
    traceback, :func:`~.job.run_job`) and the worker goes on; an interrupt (``KeyboardInterrupt``,
    recorded as ``interrupted`` by the job function) stops it. With a time limit, a worker claims no
    job it expects not to finish: not when less time is left than 1.25 times its longest job so far
    (a job killed by the limit is reported failed and reruns with the plan).

    Args:
        jobs: The submission's jobs in plan order, or the plan file that holds them (the
            workers then share one file instead of pickling every job each).
        token: The submission's claim namespace.
        batch_size: Encoding batch size.
        timeout_min: The worker's time limit, in minutes (None: none).
        threads: Torch threads (default: ``$SLURM_CPUS_PER_TASK``).

    Returns:
        ``{"ran": [job ids], "failed": [job ids], "stopped": reason or None}``; ``stopped``
        is None when no job was left.

    Raises:
        KeyboardInterrupt: The worker was interrupted (the running job is recorded).
    """
    if isinstance(jobs, str | Path):
        jobs = read_plan(jobs).jobs
    deadline = None if timeout_min is None else time.monotonic() + 60 * timeout_min
    ran: list[str] = []
    failed: list[str] = []
    longest = 0.0
    stopped = None
    for job in jobs:
        if deadline is not None and longest and 1.25 * longest > deadline - time.monotonic():
            stopped = (
                f"time limit: {deadline - time.monotonic():.0f} s left, longest job {longest:.0f} s"
            )
            break
        if not claim(job.results_dir, token, job.job_id):
            continue
        began = time.monotonic()
        try:
            run_job(job, batch_size=batch_size, threads=threads)
        except Exception as err:  # recorded (error, traceback) by run_job; the others go on
            logger.error("job %s failed: %s", job.job_id, err)
            failed.append(job.job_id)
        ran.append(job.job_id)
        longest = max(longest, time.monotonic() - began)
    if stopped is not None:
        logger.warning("worker stopped claiming jobs (%s); run the plan again", stopped)
    return {"ran": ran, "failed": failed, "stopped": stopped}
