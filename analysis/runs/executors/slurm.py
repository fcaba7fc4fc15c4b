"""The SLURM executor: one submitit job array per submission, its elements workers.

Each element runs :func:`slurm_worker`: the worker loop (:func:`~.worker.run_worker`)
over the submission's jobs file, then, when nothing is left, it cancels the array's
elements SLURM has not started yet. A fresh SLURM job pays seconds of interpreter start
and mteb imports; a worker pays them once for all the jobs it runs
(``benchmarks/results/scale.md``). Logs go to ``<results>/logs/``.

Ctrl-C while waiting for an array stops the waiting only: the array keeps running, and
the :class:`~analysis.core.errors.RunInterrupted` message names ``static-rteb status`` and
``scancel <array id>``.
"""

from __future__ import annotations

import functools
import logging
import os
import pickle
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

from tqdm.auto import tqdm

from ...core import compat
from ...core.errors import RunInterrupted, SubmissionError
from ...core.interrupt import signal_of
from ..plan import Job, Plan, write_plan
from .base import Executor, JobOutcome, Submitted, check_executor, outcomes_from_records
from .states import JobStatus, JobTraces, failed, interrupted, results_missing
from .submissions import log_submission
from .worker import JOBS_FILE, claims_dir, new_token, run_worker

logger = logging.getLogger(__name__)

#: Lines of a SLURM log worth showing when a job died without a traceback.
SLURM_MARKERS = ("slurmstepd", "CANCELLED", "DUE TO TIME LIMIT", "oom", "error", "Error", "Killed")
#: SLURM job states in which a job may still run (squeue's long names).
ACTIVE_STATES = frozenset(
    {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"}
)


@dataclass(frozen=True)
class SlurmOptions:
    """sbatch options of a submission; resources are per worker (array element).

    Attributes:
        partition: SLURM partition (None: the cluster's default).
        cpus_per_worker: CPUs per worker (also its torch threads).
        gpus_per_worker: GPUs per worker.
        mem_gb_per_worker: Memory per worker in GB (None: the cluster's default).
        timeout_min: Time limit per worker in minutes.
        max_parallel: At most this many workers run at once (None: no limit but SLURM's).
        workers: Array elements, each a worker that runs jobs until none is left (None:
            ``max_parallel``, else one per job; never more than the jobs).
        job_name: SLURM job name.
    """

    partition: str | None = None
    cpus_per_worker: int = 1
    gpus_per_worker: int = 0
    mem_gb_per_worker: float | None = None
    timeout_min: int = 60
    max_parallel: int | None = None
    workers: int | None = None
    job_name: str = "static-rteb"

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> SlurmOptions:
        """Options from a mapping (a submission's, the command line's); others ignored."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in options.items() if k in known and v is not None})

    def n_workers(self, n_jobs: int) -> int:
        """How many array elements a submission of ``n_jobs`` jobs gets."""
        return max(1, min(n_jobs, self.workers or self.max_parallel or n_jobs))

    def submitit_parameters(self, n_jobs: int) -> dict[str, Any]:
        """The ``AutoExecutor.update_parameters`` keywords for an array of ``n_jobs`` elements."""
        params: dict[str, Any] = {
            "name": self.job_name,
            "timeout_min": self.timeout_min,
            "cpus_per_task": self.cpus_per_worker,
            "slurm_array_parallelism": self.max_parallel or n_jobs,
        }
        if self.partition:
            params["slurm_partition"] = self.partition
        if self.gpus_per_worker:
            params["gpus_per_node"] = self.gpus_per_worker
        if self.mem_gb_per_worker:
            params["mem_gb"] = self.mem_gb_per_worker
        return params


@dataclass(frozen=True)
class Submission(Submitted):
    """A submitted job array of workers.

    Attributes:
        worker_ids: SLURM id (``<array>_<index>``) of each array element.
        job_ids: The plan jobs the workers share.
        token: The submission's claim namespace (``<results>/logs/claims/<token>/``).
        submitted: Submission time (Unix time).
        plan_path: The plan file, named in the message when waiting is interrupted.
        results_dir: The results folder (its job records give the outcomes).
    """

    detached: ClassVar[bool] = True

    worker_ids: tuple[str, ...]
    job_ids: tuple[str, ...]
    token: str
    submitted: float
    plan_path: str | None = None
    results_dir: str | None = None

    @property
    def array_ids(self) -> set[str]:
        """The SLURM array job ids."""
        return {slurm_id.split("_", 1)[0] for slurm_id in self.worker_ids}

    def describe(self) -> str:
        """One line: jobs, workers, array id."""
        return (
            f"Submitted {len(self.job_ids)} job(s) to {len(self.worker_ids)} worker(s), "
            f"SLURM array {', '.join(sorted(self.array_ids))}."
        )

    def wait(self, *, show_progress: bool = True) -> list[JobOutcome]:
        """Wait until no worker is queued or running (:func:`wait_slurm`); the jobs' outcomes."""
        wait_slurm(self, show_progress=show_progress)
        if self.results_dir is None:
            return []
        plan = Plan(results_dir=self.results_dir, jobs=())
        return outcomes_from_records(plan, self.job_ids, self.submitted)


def slurm_job_status(traces: JobTraces) -> JobStatus:
    """A SLURM job's state from its record, SLURM's queue and submitit's logs."""
    plan, base, entry, record, queue = (
        traces.plan, traces.base, traces.entry, traces.record, traces.queue
    )  # fmt: skip
    if record is None:
        return _untaken_status(plan, base, entry.get("workers") or [], queue)
    slurm_id = record.get("slurm_job_id")
    state = queue.get(slurm_id, ("", ""))[0] if slurm_id else ""
    if record.get("state") == "failed":
        return failed(base, "slurm", slurm_id, record["error"], record.get("traceback"))
    if record.get("state") == "interrupted":
        return interrupted(base, "slurm", slurm_id, record)
    if record.get("state") == "done":  # complete once, files removed since
        return results_missing(base, "slurm")
    if state in ACTIVE_STATES:
        return JobStatus(
            **base, state="running", detail=state.lower(), executor="slurm", slurm_id=slurm_id
        )
    error, trace = _worker_error(plan, slurm_id, queue) if slurm_id else ("", None)
    lost = "the job's worker left SLURM's queue without finishing it (killed, or its node failed)"
    return failed(base, "slurm", slurm_id, error or lost, trace)


def _untaken_status(
    plan: Plan, base: dict[str, Any], workers: list[str], queue: Mapping[str, tuple[str, str]]
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
            return failed(base, "slurm", None, f"no SLURM worker ran it; {worker}: {error}", trace)
    detail = "not run: the SLURM workers stopped before it; run the plan again"
    return JobStatus(**base, state="pending", detail=detail, executor="slurm")


def _worker_error(
    plan: Plan, slurm_id: str, queue: Mapping[str, tuple[str, str]]
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
    paths = compat.submitit_job_paths(logs, slurm_id)
    if paths.result_pickle.is_file():
        try:
            outcome, value = compat.submitit_pickle_load(paths.result_pickle)
        except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError):
            outcome, value = "", None  # a pickle cut by the kill: fall back to the log
        if outcome == "error":
            text = str(value).strip()
            return text.splitlines()[-1] if text else "the job raised", text
    log = paths.stderr
    if not log.is_file():
        return "", None
    lines = log.read_text(errors="replace").splitlines()
    marked = [line.strip() for line in lines if any(m in line for m in SLURM_MARKERS)]
    return (marked[-1] if marked else ""), "\n".join(lines[-30:]) or None


class SlurmExecutor(Executor):
    """One submitit job array of workers per submission."""

    name: ClassVar[str] = "slurm"

    def __init__(self, options: SlurmOptions | None = None) -> None:
        self.options = options or SlurmOptions()

    def submit(self, plan: Plan, jobs: Sequence[Job], *, batch_size: int = 32) -> Submission:
        """Submit ``jobs`` as one array (:func:`submit_slurm`)."""
        return submit_slurm(plan, jobs, self.options, batch_size=batch_size)

    job_status = staticmethod(slurm_job_status)


def slurm_worker(
    jobs: Sequence[Job] | str | Path,
    token: str,
    *,
    batch_size: int = 32,
    timeout_min: float | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """One element of a SLURM job array: :func:`~.worker.run_worker`, then tidy the array.

    When the worker stopped because no job was left (not for its time limit), it cancels
    the array's elements that SLURM has not started yet: they would only start to find
    nothing to do. Arguments and return value as :func:`~.worker.run_worker`.
    """
    outcome = run_worker(
        jobs, token, batch_size=batch_size, timeout_min=timeout_min, threads=threads
    )
    if outcome["stopped"] is None:
        cancel_pending_elements()
    return outcome


def cancel_pending_elements() -> None:
    """``scancel`` this array's elements that have not started (there is nothing left)."""
    array = os.environ.get("SLURM_ARRAY_JOB_ID")
    if not array or shutil.which("scancel") is None:
        return
    try:
        subprocess.run(
            ["scancel", "--state=PENDING", array], capture_output=True, timeout=30, check=False
        )
    except (subprocess.SubprocessError, OSError) as err:
        logger.warning("could not cancel the array's pending elements: %s", err)


def submit_slurm(
    plan: Plan, jobs: Sequence[Job], options: SlurmOptions, *, batch_size: int = 32
) -> Submission:
    """Submit ``jobs`` to SLURM as one submitit job array of workers (:func:`slurm_worker`).

    The array has ``options.n_workers(len(jobs))`` elements; logs go to
    ``<results>/logs/``. Each job's record names the element that ran it.

    Returns:
        The submission (its workers' SLURM ids).

    Raises:
        ExecutorError: If sbatch is not on PATH.
        SubmissionError: If SLURM rejects the array (its message; also logged for status).
    """
    import submitit

    check_executor("slurm")
    started = time.time()
    token = new_token()
    n_workers = options.n_workers(len(jobs))
    executor = submitit.AutoExecutor(folder=plan.logs_dir, cluster="slurm")
    executor.update_parameters(**options.submitit_parameters(n_workers))
    entry: dict[str, Any] = {"executor": "slurm", "token": token, "options": asdict(options)}
    entry["options"]["batch_size"] = batch_size
    entry["jobs"] = {job.job_id: None for job in jobs}
    jobs_file = claims_dir(plan.results_dir, token) / JOBS_FILE
    write_plan(Plan(results_dir=plan.results_dir, jobs=tuple(jobs)), jobs_file)
    worker = functools.partial(
        slurm_worker, str(jobs_file), token, batch_size=batch_size, timeout_min=options.timeout_min
    )
    try:
        with executor.batch():
            submitted = [executor.submit(worker) for _ in range(n_workers)]
    except (compat.submitit_failed_job_error(), subprocess.CalledProcessError) as err:
        message = str(err).strip() or repr(err)
        log_submission(plan, {**entry, "error": message})
        raise SubmissionError(f"SLURM rejected the job array: {message}") from err
    worker_ids = tuple(str(sub.job_id) for sub in submitted)
    log_submission(plan, {**entry, "workers": list(worker_ids)})
    return Submission(
        worker_ids=worker_ids,
        job_ids=tuple(job.job_id for job in jobs),
        token=token,
        submitted=started,
        plan_path=plan.path,
        results_dir=plan.results_dir,
    )


def slurm_queue() -> dict[str, tuple[str, str]]:
    """SLURM's view of recent jobs: ``{job_id: (state, reason)}`` from ``squeue``.

    One entry per array task; finished jobs are included while SLURM remembers them
    (``MinJobAge``). Empty when SLURM is not installed or does not answer.
    """
    if shutil.which("squeue") is None:
        return {}
    try:
        command = ["squeue", "-h", "-r", "-t", "all", "-o", "%i|%T|%r"]
        out = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True).stdout
    except (subprocess.SubprocessError, OSError) as err:
        logger.warning("squeue failed (%s); SLURM states are unknown.", err)
        return {}
    rows = [line.strip().split("|") for line in out.splitlines()]
    return {row[0]: (row[1], row[2]) for row in rows if len(row) == 3}


def wait_slurm(
    submission: Submission,
    *,
    poll: float = 2.0,
    timeout: float | None = None,
    show_progress: bool = True,
) -> bool:
    """Wait until no worker of ``submission`` is pending or running in SLURM.

    Returns:
        True when every worker left the queue, False after ``timeout`` seconds.

    Raises:
        RunInterrupted: On Ctrl-C / SIGTERM: waiting stops, the array keeps running; the
            message names ``static-rteb status`` and ``scancel <array id>``.
    """
    wanted = set(submission.worker_ids)
    deadline = None if timeout is None else time.monotonic() + timeout
    bar = tqdm(total=len(wanted), desc="SLURM workers", unit="worker", disable=not show_progress)
    try:
        while True:
            queue = slurm_queue()
            active = {i for i in wanted if queue.get(i, ("", ""))[0] in ACTIVE_STATES}
            # an array task not listed yet is still pending inside its "<array>_[...]" line
            active |= {i for i in wanted if i not in queue and array_pending(i, queue)}
            bar.n = len(wanted) - len(active)
            bar.refresh()
            if not active:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(poll)
    except KeyboardInterrupt as err:
        raise RunInterrupted(
            _still_running(submission), signum=signal_of(err), detached=True
        ) from None
    finally:
        bar.close()


def _still_running(submission: Submission) -> str:
    arrays = " ".join(sorted(submission.array_ids))
    plan = f" --plan {submission.plan_path}" if submission.plan_path else " --plan PLAN.jsonl"
    return (
        f"stopped waiting; the SLURM array {arrays} keeps running its "
        f"{len(submission.job_ids)} job(s). Follow it with `static-rteb status{plan}`; "
        f"cancel it with `scancel {arrays}`"
    )


def array_pending(slurm_id: str, queue: Mapping[str, tuple[str, str]]) -> bool:
    """Whether ``slurm_id``'s array still has pending elements folded into one squeue line."""
    array = slurm_id.split("_", 1)[0]
    return any(key.startswith(f"{array}_[") for key in queue)
