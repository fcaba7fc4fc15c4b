"""The executor interface: ``submit`` a plan's jobs, get a handle, ``wait`` on it.

Two executors implement it, both around the same worker loop and job function
(:mod:`.worker`, :mod:`.job`):

* :class:`~.local.LocalExecutor`: worker processes on this machine; its handle must be
  waited on (the workers are this process's children);
* :class:`~.slurm.SlurmExecutor`: one submitit job array of workers; its handle is
  detached (the array runs on without this process).

A ``KeyboardInterrupt`` (Ctrl-C, a kernel interrupt, or SIGTERM under
:func:`analysis.core.interrupt.stop_on_signals`) during ``wait`` raises
:class:`~analysis.core.errors.RunInterrupted`: local workers are stopped and their jobs
recorded as interrupted; a SLURM array keeps running, and the message says how to
follow or cancel it.
"""

from __future__ import annotations

import abc
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...core.choices import EXECUTORS
from ...core.errors import ExecutorError
from ..plan import Job, Plan
from .records import read_record
from .states import JobStatus, JobTraces


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


class Submitted(abc.ABC):
    """A handle on submitted jobs: what :meth:`Executor.submit` returns.

    Attributes:
        job_ids: The plan jobs submitted.
        detached: True when the jobs run on without this process (SLURM), False when this
            process must :meth:`wait` for them (local workers are its children).
    """

    job_ids: tuple[str, ...]
    detached: ClassVar[bool] = False

    @abc.abstractmethod
    def describe(self) -> str:
        """One line: what was submitted where."""

    @abc.abstractmethod
    def wait(self, *, show_progress: bool = True) -> list[JobOutcome]:
        """Block until every job has ended.

        Args:
            show_progress: Show one progress bar.

        Returns:
            One outcome per job that ended, in completion order where known.

        Raises:
            RunInterrupted: On Ctrl-C / SIGTERM (see the module docstring).
        """


class Executor(abc.ABC):
    """Runs a plan's jobs somewhere: :meth:`submit` returns a :class:`Submitted` handle."""

    name: ClassVar[str]

    @staticmethod
    @abc.abstractmethod
    def job_status(traces: JobTraces) -> JobStatus:
        """The state of a job this executor was last given, from its own traces.

        :func:`analysis.runs.status.plan_status` has found the job unfinished, neither
        rejected at submission nor running elsewhere.

        Args:
            traces: What was found of the job (its submission, record, SLURM's queue).

        Returns:
            The job's state.
        """

    @staticmethod
    def may_start(entry: dict[str, Any]) -> bool:
        """Whether a submission may still start the jobs it has not started.

        True by default (a detached submission: its queue decides); the local executor's
        workers end with the process that made the submission.
        """
        return True

    @abc.abstractmethod
    def submit(self, plan: Plan, jobs: Sequence[Job], *, batch_size: int = 32) -> Submitted:
        """Start ``jobs`` of ``plan``; log the submission; return its handle.

        Args:
            plan: The plan the jobs come from.
            jobs: The jobs to run.
            batch_size: Encoding batch size.

        Returns:
            The handle.
        """


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


def outcomes_from_records(plan: Plan, job_ids: Sequence[str], since: float) -> list[JobOutcome]:
    """Outcomes of the jobs whose records say they ended (done or failed) after ``since``."""
    outcomes = []
    for job_id in job_ids:
        record = read_record(plan, job_id)
        if record is None or record.get("started", 0) < since - 1:
            continue
        if record.get("state") == "done":
            outcomes.append(JobOutcome(job_id, True))
        elif record.get("state") == "failed":
            outcomes.append(JobOutcome(job_id, False, record.get("error")))
    return outcomes
