"""The local executor: worker processes on this machine, each running jobs until none is left.

``N`` workers (default: the number of cores), each with ``cores // N`` torch threads, run a
SLURM array element's loop (:func:`~.worker.run_worker`); this process draws one progress bar
from the job records. A fork server that imported mteb and the encoders once (``PRELOAD``)
forks the workers, never this process (a process that ran OpenMP code cannot be forked
safely: ``docs/running.md``). On ``KeyboardInterrupt`` the workers get the same signal and
record their jobs as interrupted; one alive after :data:`~analysis.core.interrupt.GRACE`
seconds is killed and recorded here (the rules: :mod:`analysis.core.interrupt`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import os
import socket
import time
from collections.abc import Sequence
from typing import Any, ClassVar

from tqdm.auto import tqdm

from ...core.errors import RunInterrupted
from ...core.interrupt import GRACE, signal_of, worker_signals
from ..locks import pid_alive
from ..plan import Job, Plan
from .base import Executor, JobOutcome, Submitted
from .records import ENDED, mark_interrupted, read_record, stop_counts, this_process
from .states import JobStatus, JobTraces, failed, interrupted, results_missing
from .submissions import log_submission
from .worker import new_token, run_worker

#: Seconds between looks at the job records while waiting.
POLL = 0.25
#: The fork server's one import: what its workers run, so that they start at once (see it).
PRELOAD = ("analysis.runs._preloaded",)


def coordinator_alive(entry: dict[str, Any]) -> bool:
    """Whether the process that made a local submission still runs (on this host)."""
    return entry.get("host") == socket.gethostname() and pid_alive(
        int(entry.get("pid", 0)), entry.get("pid_start")
    )


def local_job_status(traces: JobTraces) -> JobStatus:
    """A local job's state from its record: a running record whose worker is gone failed."""
    base, entry, record = traces.base, traces.entry, traces.record
    here = socket.gethostname()
    if record is None:
        detail = (
            "queued for a local worker" if coordinator_alive(entry) else "not run (the run ended)"
        )
        return JobStatus(**base, state="pending", detail=detail, executor="local")
    if record.get("state") == "failed":
        return failed(base, "local", None, record["error"], record.get("traceback"))
    if record.get("state") == "interrupted":
        return interrupted(base, "local", None, record)
    if record.get("state") == "running":
        if record.get("host") != here or pid_alive(int(record["pid"]), record.get("pid_start")):
            detail = f"pid {record['pid']} on {record.get('host')}"
            return JobStatus(**base, state="running", detail=detail, executor="local")
        died = f"worker pid {record['pid']} on {record.get('host')} died before finishing"
        return failed(base, "local", None, died, None)
    # a "done" record with incomplete results: files were removed since
    return results_missing(base, "local")


class LocalExecutor(Executor):
    """Worker processes on this machine.

    Args:
        workers: Worker processes (default: the number of cores).

    Raises:
        ValueError: If ``workers`` is not positive.
    """

    name: ClassVar[str] = "local"

    def __init__(self, workers: int | None = None, *, verbose: bool = False) -> None:
        cores = os.cpu_count() or 1
        self.workers = workers or cores
        if self.workers <= 0:
            raise ValueError(f"workers must be positive, got {self.workers}.")
        self.threads = max(1, cores // self.workers)
        self.verbose = verbose

    job_status = staticmethod(local_job_status)
    may_start = staticmethod(coordinator_alive)

    def submit(self, plan: Plan, jobs: Sequence[Job], *, batch_size: int = 32) -> LocalRun:
        """Start ``min(workers, len(jobs))`` worker processes on ``jobs``; log the submission."""
        token = new_token()
        entry = {
            "executor": "local",
            "token": token,
            **this_process(),
            "jobs": {job.job_id: None for job in jobs},
            "options": {"workers": self.workers, "batch_size": batch_size},
        }
        log_submission(plan, entry)
        submitted = time.time()
        return LocalRun(plan, tuple(jobs), token, self._start(jobs, token, batch_size), submitted)

    def _start(
        self, jobs: Sequence[Job], token: str, batch_size: int
    ) -> list[multiprocessing.process.BaseProcess]:
        if not jobs:
            return []
        context = _context()
        processes = [
            context.Process(
                target=_local_worker,
                args=(list(jobs), token, batch_size, self.threads, self.verbose),
                name=f"static-rteb worker {i}",
            )
            for i in range(min(self.workers, len(jobs)))
        ]
        for process in processes:
            process.start()
        return processes


class LocalRun(Submitted):
    """Local worker processes running a submission's jobs (wait on it)."""

    detached: ClassVar[bool] = False

    def __init__(
        self,
        plan: Plan,
        jobs: tuple[Job, ...],
        token: str,
        processes: list[multiprocessing.process.BaseProcess],
        submitted: float,
    ) -> None:
        self.plan = plan
        self.jobs = jobs
        self.job_ids = tuple(job.job_id for job in jobs)
        self.token = token
        self.processes = processes
        self.started = submitted

    def describe(self) -> str:
        """One line: how many jobs on how many local workers."""
        return f"Running {len(self.jobs)} job(s) on {len(self.processes)} local worker(s)."

    def wait(self, *, show_progress: bool = True) -> list[JobOutcome]:
        """Wait for the workers; one progress bar over jobs. See the module docstring.

        Raises:
            RunInterrupted: On ``KeyboardInterrupt``: the workers were stopped, their jobs
                recorded as interrupted; the counts say what finished.
        """
        ended: dict[str, dict[str, Any]] = {}
        bar = tqdm(total=len(self.jobs), desc="jobs", unit="job", disable=not show_progress)
        try:
            while live := [p for p in self.processes if p.is_alive()]:
                # a dead worker's sentinel is always ready: wait on the live ones only, and
                # join an ending one (its sentinel is ready a moment before it can be reaped)
                ready = multiprocessing.connection.wait([p.sentinel for p in live], POLL)
                for process in live:
                    if process.sentinel in ready:
                        process.join(POLL)
                self._collect(ended, bar)
            self._collect(ended, bar)
        except KeyboardInterrupt as err:
            killed = self._stop(signal_of(err))
            for job in self.jobs:
                if job.job_id not in ended:
                    mark_interrupted(self.plan, job, killed, "interrupted (worker killed)")
            self._collect(ended, bar)
            finished, interrupted, not_started = stop_counts(self.jobs, ended)
            raise RunInterrupted(
                signum=signal_of(err),
                finished=finished,
                interrupted=interrupted,
                not_started=not_started,
                unit="job",
                note="Run the plan again to resume",
            ) from None
        finally:
            bar.close()
        return [
            JobOutcome(job_id, record["state"] == "done", record.get("error"))
            for job_id, record in ended.items()
            if record.get("state") in {"done", "failed"}
        ]

    def _collect(self, ended: dict[str, dict[str, Any]], bar: tqdm) -> None:
        """Add the ended jobs to ``ended``, advance the bar, name the jobs running now in it."""
        running = []
        for job in self.jobs:
            record = None if job.job_id in ended else read_record(self.plan, job.job_id)
            if record is None or record.get("started", 0) < self.started - 1:
                continue
            if record.get("state") not in ENDED:
                running.append(f"{job.name} {','.join(job.tasks)}")
                continue
            ended[job.job_id] = record
            bar.update(record["state"] != "interrupted")
        postfix = f"now: {'; '.join(running)}"[:60] if running else ""
        if postfix != (getattr(bar, "postfix", None) or ""):  # redrawn only when it changes
            bar.set_postfix_str(postfix)

    def _stop(self, signum: int) -> set[int]:
        """Send ``signum`` to every worker, wait up to GRACE seconds, kill the rest; their pids."""
        deadline = time.monotonic() + GRACE
        for process in self.processes:
            if process.pid is not None and process.exitcode is None:  # not reaped: its pid
                os.kill(process.pid, signum)  # a Ctrl-C's SIGINT, not a SIGTERM racing it
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
        killed = {p.pid for p in self.processes if p.is_alive() and p.pid is not None}
        for process in self.processes:
            process.kill()
            process.join()
        return killed


def start_fork_server() -> None:
    """Start the fork server now, its imports beside this process's work (harmless if it runs).

    ``static-rteb run --plan`` calls it before reading the plan's status (importing mteb).
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    _context()
    multiprocessing.forkserver.ensure_running()


def _context() -> Any:
    """The fork server's context (preloading :data:`PRELOAD`); spawn where there is none."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return context


def _local_worker(
    jobs: list[Job], token: str, batch_size: int, threads: int, verbose: bool = False
) -> None:
    """A local worker process: quiet, stops on SIGINT/SIGTERM, runs jobs until none is left."""
    worker_signals()
    with contextlib.suppress(KeyboardInterrupt):  # its job is recorded as interrupted
        _quiet_worker(verbose)
        run_worker(jobs, token, batch_size=batch_size, threads=threads)


def _quiet_worker(verbose: bool) -> None:
    """No progress bars in a worker (the parent shows one), harmless warnings hidden."""
    import datasets

    from ...core.quiet import filter_harmless_warnings, quiet_command_line

    filter_harmless_warnings()
    quiet_command_line(verbose=verbose)
    datasets.disable_progress_bars()


def run_local(
    plan: Plan,
    jobs: Sequence[Job],
    *,
    workers: int | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
) -> list[JobOutcome]:
    """Run ``jobs`` in ``workers`` processes on this machine; a failing job does not stop others.

    As with any ``multiprocessing`` start method but fork, a script that calls this must
    keep its top-level code under ``if __name__ == "__main__":`` (workers import the
    script's module); notebooks and ``static-rteb run`` need nothing.

    Returns:
        One outcome per job that ended, in completion order.

    Raises:
        ValueError: If ``workers`` is not positive.
        RunInterrupted: On Ctrl-C / SIGTERM / a kernel interrupt (workers stopped within
            seconds, their jobs recorded as interrupted).
    """
    executor = LocalExecutor(workers)
    if not jobs:
        return []
    return executor.submit(plan, jobs, batch_size=batch_size).wait(show_progress=show_progress)
