"""Run a plan's jobs: on this machine (worker processes) or on SLURM (submitit job arrays).

Both executors call the same job function, :func:`run_job`, which loads the model, checks
it against the plan and runs :func:`analysis.runs.runner.run_evaluation` on the job's tasks
(locked, staged and atomic per task). Each job keeps a record,
``<results>/logs/jobs/<job_id>.json`` (state ``running``/``done``/``failed``, host, pid,
SLURM ids, per-task rows, error and traceback), and every submission is appended to
``<results>/logs/submissions.jsonl``; :mod:`analysis.runs.status` reads both, with SLURM's
queue and submitit's logs, to tell what is done, running, failed or pending.

* ``local``: ``N`` worker processes (default: the number of cores), each with
  ``cores // N`` torch threads.
* ``slurm``: one submitit job array per submission whose elements are workers
  (:func:`run_worker`): each claims the submission's next unclaimed job, runs it, and
  claims again until none is left. A fresh SLURM job pays seconds of interpreter start
  and mteb imports; a worker pays them once for all the jobs it runs
  (``benchmarks/results/scale.md``). ``--workers`` elements (default: ``--max-parallel``,
  else one per job), logs in ``<results>/logs/``.
"""

from __future__ import annotations

import functools
import json
import logging
import multiprocessing
import os
import shutil
import socket
import subprocess
import time
import traceback
import uuid
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..errors import ExecutorError, JobFailedError, PlanMismatchError, SubmissionError
from ..io import atomic_write_text
from .locks import process_start
from .plan import Job, Plan, read_plan, write_plan

logger = logging.getLogger(__name__)

EXECUTORS = ("local", "slurm")
JOB_RECORDS = "jobs"
SUBMISSIONS = "submissions.jsonl"
#: SLURM job states in which a job may still run (squeue's long names).
ACTIVE_STATES = frozenset(
    {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"}
)


# --------------------------------------------------------------------------- job records


def record_path(plan_or_results: Plan | str | Path, job_id: str) -> Path:
    """Where the record of job ``job_id`` lives: ``<results>/logs/jobs/<job_id>.json``."""
    results = plan_or_results.results_dir if isinstance(plan_or_results, Plan) else plan_or_results
    return Path(results) / "logs" / JOB_RECORDS / f"{job_id}.json"


def read_record(plan: Plan, job_id: str) -> dict[str, Any] | None:
    """The record of a job, or None if it never started (or the record is unreadable)."""
    try:
        return json.loads(record_path(plan, job_id).read_text())
    except (OSError, ValueError):
        return None


def _write_record(job: Job, **fields: Any) -> dict[str, Any]:
    path = record_path(job.results_dir, job.job_id)
    atomic_write_text(path, json.dumps({"job_id": job.job_id, **fields}, default=str))
    return fields


def _slurm_ids() -> dict[str, str | None]:
    array, index = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    slurm_id = f"{array}_{index}" if array and index else os.environ.get("SLURM_JOB_ID")
    return {"slurm_job_id": slurm_id}


# --------------------------------------------------------------------------- the job function


def run_job(job: Job, *, batch_size: int = 32, threads: int | None = None) -> list[dict[str, Any]]:
    """Run one job of a plan: load the model, check it, evaluate its tasks. Raises if any failed.

    Args:
        job: The job.
        batch_size: Encoding batch size.
        threads: Torch threads (default: ``$SLURM_CPUS_PER_TASK``, else torch's default).

    Returns:
        One summary row per task (model, revision, task, status, main_score, error).

    Raises:
        PlanMismatchError: The model's content, name or revision differs from the plan's.
        JobFailedError: Some tasks failed; the others' results are saved.
    """
    _limit_threads(threads or _int_env("SLURM_CPUS_PER_TASK"))
    base = {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "pid_start": process_start(os.getpid()),
        "model": job.name,
        "tasks": list(job.tasks),
        "started": time.time(),
        **_slurm_ids(),
    }
    _write_record(job, state="running", **base)
    try:
        rows, tracebacks = _evaluate(job, batch_size=batch_size)
    except BaseException as err:
        _write_record(
            job,
            state="failed",
            **base,
            finished=time.time(),
            error=f"{type(err).__name__}: {err}",
            traceback=traceback.format_exc(),
        )
        raise
    failed = [row for row in rows if row["status"] == "failed"]
    state = "failed" if failed else "done"
    error = "; ".join(f"{row['task']}: {row['error']}" for row in failed) or None
    trace = "\n".join(tracebacks) or None
    _write_record(
        job, state=state, **base, finished=time.time(), rows=rows, error=error, traceback=trace
    )
    if failed:
        raise JobFailedError(f"{len(failed)} of {len(rows)} tasks failed: {error}\n{trace or ''}")
    return rows


def _evaluate(job: Job, *, batch_size: int) -> tuple[list[dict[str, Any]], list[str]]:
    from .models import content_revision, load_model
    from .runner import run_evaluation

    if job.content is not None:
        current = content_revision(job.model)
        if current != job.content:
            raise PlanMismatchError(
                f"The local model {job.model} changed since planning: content hash "
                f"{job.content} planned, {current} now. Make a new plan."
            )
    model = load_model(job.model, name=job.name_override)
    meta = model.mteb_model_meta
    if (str(meta.name), str(meta.revision)) != (job.name, job.revision):
        raise PlanMismatchError(
            f"{job.model} loads as {meta.name} revision {meta.revision}, but the plan expects "
            f"{job.name} revision {job.revision}. Make a new plan."
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
    rows = [
        {key: (None if _is_nan(value) else value) for key, value in row.items()}
        for row in summary.to_dict(orient="records")
    ]
    tracebacks = [f"[{task}]\n{trace}" for (_, task), trace in summary.attrs["tracebacks"].items()]
    return rows, tracebacks


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and value != value


def _int_env(name: str) -> int | None:
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() else None


def _limit_threads(threads: int | None) -> None:
    """Give torch and the BLAS/OpenMP pools ``threads`` threads (workers must not oversubscribe)."""
    if not threads:
        return
    import torch

    torch.set_num_threads(threads)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # comes with scikit-learn, which mteb needs; keep going without it
        return
    threadpool_limits(limits=threads)


# --------------------------------------------------------------------------- SLURM workers

CLAIMS = "claims"


def claims_dir(results: str | Path, token: str) -> Path:
    """``<results>/logs/claims/<token>``: one submission's claims and its jobs file."""
    return Path(results) / "logs" / CLAIMS / token


def claim(results: str | Path, token: str, job_id: str) -> bool:
    """Claim job ``job_id`` for one submission: True for exactly one caller.

    The claim is a file, ``<results>/logs/claims/<token>/<job_id>``, created with
    ``O_EXCL`` (atomic on local and NFS file systems), holding the claimer's SLURM id.
    Claims are per submission (``token``), so a resubmission runs the job again; the
    per-task locks of :mod:`analysis.runs.locks` still keep two runs of one task apart.
    """
    folder = claims_dir(results, token)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(folder / job_id, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    try:
        os.write(
            fd, f"{_slurm_ids()['slurm_job_id']} {socket.gethostname()} {os.getpid()}".encode()
        )
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
    """One element of a SLURM job array: run the submission's jobs until none is left.

    Every element walks the same job list and runs each job it can :func:`claim`, so
    the jobs spread over however many elements SLURM starts, and each element pays the
    interpreter start and mteb imports once. A failing job is recorded (its record holds
    the error and traceback, :func:`run_job`) and the worker goes on. With a time limit,
    a worker claims no job it expects not to finish: not when less time is left than
    1.25 times its longest job so far (a job killed by the limit is reported failed and
    reruns with the plan). When nothing is left, it cancels the array's elements that
    SLURM has not started yet: they would only start to find nothing to do.

    Args:
        jobs: The submission's jobs in plan order, or the plan file that holds them (the
            array's elements then share one file instead of pickling every job each).
        token: The submission's claim namespace.
        batch_size: Encoding batch size.
        timeout_min: The array's time limit per element, in minutes (None: none).
        threads: Torch threads (default: ``$SLURM_CPUS_PER_TASK``).

    Returns:
        ``{"ran": [job ids], "failed": [job ids], "stopped": reason or None}``.
    """
    if isinstance(jobs, str | Path):
        jobs = read_plan(jobs).jobs
    start = time.monotonic()
    deadline = None if timeout_min is None else start + 60 * timeout_min
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
        except Exception as err:  # recorded by run_job; the other jobs go on
            logger.error("job %s failed: %s", job.job_id, err)
            failed.append(job.job_id)
        ran.append(job.job_id)
        longest = max(longest, time.monotonic() - began)
    if stopped is None:
        _cancel_pending_elements()
    else:
        logger.warning("worker stopped claiming jobs (%s); run the plan again", stopped)
    return {"ran": ran, "failed": failed, "stopped": stopped}


def _cancel_pending_elements() -> None:
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


# --------------------------------------------------------------------------- submissions


def log_submission(plan: Plan, entry: dict[str, Any]) -> None:
    """Append one submission to ``<results>/logs/submissions.jsonl`` (one ``write`` call)."""
    path = plan.logs_dir / SUBMISSIONS
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps({"time": time.time(), **entry}, default=str) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read_submissions(plan: Plan) -> list[dict[str, Any]]:
    """Every submission of the plan's results folder, oldest first."""
    path = plan.logs_dir / SUBMISSIONS
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue  # a line cut by a crash
    return entries


def check_executor(name: str) -> str:
    """Check that executor ``name`` exists and can run here.

    Args:
        name: ``local`` or ``slurm``.

    Returns:
        The name.

    Raises:
        ExecutorError: Unknown name, or ``slurm`` without ``sbatch`` on PATH; the message
            names ``--executor local``.
    """
    if name not in EXECUTORS:
        raise ExecutorError(
            f"Unknown executor {name!r}. Use --executor local (worker processes on this "
            "machine) or --executor slurm (a SLURM cluster, needs sbatch on PATH)."
        )
    if name == "slurm" and shutil.which("sbatch") is None:
        raise ExecutorError(
            "--executor slurm needs SLURM's sbatch on PATH, and there is none here. Run on "
            "this machine with --executor local, or run this command on a SLURM login node."
        )
    return name


# --------------------------------------------------------------------------- local


@dataclass(frozen=True)
class JobOutcome:
    """How a job ended in this process's view.

    Attributes:
        job_id: The job.
        ok: Whether it finished with every task done.
        error: The error when not ok.
    """

    job_id: str
    ok: bool
    error: str | None = None


def run_local(
    plan: Plan,
    jobs: Sequence[Job],
    *,
    workers: int | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
) -> list[JobOutcome]:
    """Run ``jobs`` in ``workers`` processes on this machine; a failing job does not stop others.

    Args:
        plan: The plan the jobs come from.
        jobs: The jobs to run.
        workers: Worker processes (default: the number of cores).
        batch_size: Encoding batch size.
        show_progress: Show one progress bar over jobs.

    Returns:
        One outcome per job, in completion order.

    Raises:
        ValueError: If ``workers`` is not positive.
    """
    cores = os.cpu_count() or 1
    workers = workers or cores
    if workers <= 0:
        raise ValueError(f"workers must be positive, got {workers}.")
    if not jobs:
        return []
    threads = max(1, cores // workers)
    log_submission(
        plan,
        {
            "executor": "local",
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "pid_start": process_start(os.getpid()),
            "jobs": {job.job_id: None for job in jobs},
            "options": {"workers": workers, "batch_size": batch_size},
        },
    )
    task = functools.partial(run_job, batch_size=batch_size, threads=threads)
    outcomes = []
    # fork: workers inherit the imported modules (mteb takes seconds to import)
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    bar = tqdm(total=len(jobs), desc="jobs", unit="job", disable=not show_progress)
    with ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)), mp_context=context, initializer=_quiet_worker
    ) as pool:
        futures = {pool.submit(task, job): job for job in jobs}
        for future in as_completed(futures):
            job = futures[future]
            try:
                future.result()
                outcomes.append(JobOutcome(job.job_id, True))
            except Exception as err:
                outcomes.append(JobOutcome(job.job_id, False, f"{type(err).__name__}: {err}"))
            bar.set_postfix_str(f"{job.name} {','.join(job.tasks)}"[:60])
            bar.update(1)
    bar.close()
    return outcomes


def _quiet_worker() -> None:
    """Switch off progress bars inside a worker.

    The parent shows one bar over jobs, and a forked worker of a Jupyter kernel cannot
    draw widgets.
    """
    try:
        import datasets

        datasets.disable_progress_bars()
    except ImportError:
        pass


def run_sequential(
    plan: Plan, jobs: Sequence[Job], *, batch_size: int = 32, show_progress: bool = True
) -> list[JobOutcome]:
    """Run ``jobs`` one after the other in this process (the baseline of the benchmark).

    Args:
        plan: The plan.
        jobs: The jobs.
        batch_size: Encoding batch size.
        show_progress: Show one progress bar over jobs.

    Returns:
        One outcome per job.
    """
    outcomes = []
    for job in tqdm(jobs, desc="jobs", unit="job", disable=not show_progress):
        try:
            run_job(job, batch_size=batch_size)
            outcomes.append(JobOutcome(job.job_id, True))
        except Exception as err:
            outcomes.append(JobOutcome(job.job_id, False, f"{type(err).__name__}: {err}"))
    return outcomes


# --------------------------------------------------------------------------- SLURM


@dataclass(frozen=True)
class SlurmOptions:
    """sbatch options of a submission.

    Attributes:
        partition: SLURM partition (None: the cluster's default).
        cpus_per_job: CPUs per array task (also the torch threads of the job).
        gpus_per_job: GPUs per array task.
        mem_gb: Memory per array task in GB (None: the cluster's default).
        timeout_min: Time limit per array task in minutes.
        max_parallel: At most this many array tasks run at once (None: no limit but SLURM's).
        workers: Array elements, each a worker that runs jobs until none is left (None:
            ``max_parallel``, else one per job; never more than the jobs).
        job_name: SLURM job name.
    """

    partition: str | None = None
    cpus_per_job: int = 1
    gpus_per_job: int = 0
    mem_gb: float | None = None
    timeout_min: int = 60
    max_parallel: int | None = None
    workers: int | None = None
    job_name: str = "static-rteb"

    def n_workers(self, n_jobs: int) -> int:
        """How many array elements a submission of ``n_jobs`` jobs gets."""
        return max(1, min(n_jobs, self.workers or self.max_parallel or n_jobs))

    def submitit_parameters(self, n_jobs: int) -> dict[str, Any]:
        """The ``AutoExecutor.update_parameters`` keywords for an array of ``n_jobs`` elements."""
        params: dict[str, Any] = {
            "name": self.job_name,
            "timeout_min": self.timeout_min,
            "cpus_per_task": self.cpus_per_job,
            "slurm_array_parallelism": self.max_parallel or n_jobs,
        }
        if self.partition:
            params["slurm_partition"] = self.partition
        if self.gpus_per_job:
            params["gpus_per_node"] = self.gpus_per_job
        if self.mem_gb:
            params["mem_gb"] = self.mem_gb
        return params


@dataclass(frozen=True)
class Submission:
    """A submitted job array of workers.

    Attributes:
        worker_ids: SLURM id (``<array>_<index>``) of each array element.
        job_ids: The plan jobs the workers share.
        token: The submission's claim namespace (``<results>/logs/claims/<token>/``).
        submitted: Submission time (Unix time).
    """

    worker_ids: tuple[str, ...]
    job_ids: tuple[str, ...]
    token: str
    submitted: float

    @property
    def array_ids(self) -> set[str]:
        """The SLURM array job ids."""
        return {slurm_id.split("_", 1)[0] for slurm_id in self.worker_ids}


def submit_slurm(
    plan: Plan, jobs: Sequence[Job], options: SlurmOptions, *, batch_size: int = 32
) -> Submission:
    """Submit ``jobs`` to SLURM as one submitit job array of workers (:func:`run_worker`).

    The array has ``options.n_workers(len(jobs))`` elements; logs go to
    ``<results>/logs/``. Each job's record names the element that ran it.

    Args:
        plan: The plan.
        jobs: The jobs to submit.
        options: sbatch options.
        batch_size: Encoding batch size.

    Returns:
        The submission (its workers' SLURM ids).

    Raises:
        ExecutorError: If sbatch is not on PATH.
        SubmissionError: If SLURM rejects the array (its message; also logged for status).
    """
    import submitit

    check_executor("slurm")
    started = time.time()
    token = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    n_workers = options.n_workers(len(jobs))
    executor = submitit.AutoExecutor(folder=plan.logs_dir, cluster="slurm")
    executor.update_parameters(**options.submitit_parameters(n_workers))
    entry: dict[str, Any] = {"executor": "slurm", "token": token, "options": asdict(options)}
    entry["options"]["batch_size"] = batch_size
    entry["jobs"] = {job.job_id: None for job in jobs}
    jobs_file = claims_dir(plan.results_dir, token) / "jobs.jsonl"
    write_plan(Plan(results_dir=plan.results_dir, jobs=tuple(jobs)), jobs_file)
    worker = functools.partial(
        run_worker, str(jobs_file), token, batch_size=batch_size, timeout_min=options.timeout_min
    )
    try:
        with executor.batch():
            submitted = [executor.submit(worker) for _ in range(n_workers)]
    except (submitit.core.utils.FailedJobError, subprocess.CalledProcessError) as err:
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
    )


def slurm_queue() -> dict[str, tuple[str, str]]:
    """SLURM's view of recent jobs: ``{job_id: (state, reason)}`` from ``squeue``.

    One entry per array task; finished jobs are included while SLURM remembers them
    (``MinJobAge``). Empty when SLURM is not installed or does not answer.
    """
    if shutil.which("squeue") is None:
        return {}
    try:
        out = subprocess.run(
            ["squeue", "-h", "-r", "-t", "all", "-o", "%i|%T|%r"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (subprocess.SubprocessError, OSError) as err:
        logger.warning("squeue failed (%s); SLURM states are unknown.", err)
        return {}
    queue = {}
    for line in out.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3:
            queue[parts[0]] = (parts[1], parts[2])
    return queue


def wait_slurm(
    submission: Submission,
    *,
    poll: float = 2.0,
    timeout: float | None = None,
    show_progress: bool = True,
) -> bool:
    """Wait until no worker of ``submission`` is pending or running in SLURM.

    Args:
        submission: The submission.
        poll: Seconds between ``squeue`` calls.
        timeout: Give up after this many seconds (None: wait).
        show_progress: Show a progress bar over the submission's workers.

    Returns:
        True when every worker left the queue, False on timeout.
    """
    wanted = set(submission.worker_ids)
    deadline = None if timeout is None else time.monotonic() + timeout
    bar = tqdm(total=len(wanted), desc="SLURM workers", unit="worker", disable=not show_progress)
    try:
        while True:
            queue = slurm_queue()
            active = {i for i in wanted if queue.get(i, ("", ""))[0] in ACTIVE_STATES}
            # an array task not listed yet is still pending inside its "<array>_[...]" line
            active |= {i for i in wanted if i not in queue and _array_pending(i, queue)}
            bar.n = len(wanted) - len(active)
            bar.refresh()
            if not active:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(poll)
    finally:
        bar.close()


def _array_pending(slurm_id: str, queue: dict[str, tuple[str, str]]) -> bool:
    array = slurm_id.split("_", 1)[0]
    return any(key.startswith(f"{array}_[") for key in queue)
