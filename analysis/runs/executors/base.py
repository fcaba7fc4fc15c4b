"""The executor interface: ``submit`` a plan's jobs, get a handle, ``wait`` on it.

Two executors implement it around the same worker loop and job function (:mod:`.worker`,
:mod:`.job`): :class:`~.local.LocalExecutor` (worker processes on this machine, waited
on) and :class:`~.slurm.SlurmExecutor` (a submitit job array; its handle is detached).
A stop while waiting (:mod:`analysis.core.interrupt`) raises
:class:`~analysis.core.errors.RunInterrupted`: local workers are stopped and their jobs
recorded as interrupted; a SLURM array keeps running, and the message says how to follow
or cancel it.
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
    """A handle on submitted jobs (:meth:`Executor.submit`).

    Attributes:
        job_ids: The plan jobs submitted.
        detached: True when the jobs run on without this process (SLURM).
    """

    job_ids: tuple[str, ...]
    detached: ClassVar[bool] = False

    @abc.abstractmethod
    def describe(self) -> str:
        """One line: what was submitted where."""

    @abc.abstractmethod
    def wait(self, *, show_progress: bool = True) -> list[JobOutcome]:
        """Block until every job has ended; one outcome per job that ended (one bar shown).

        Raises:
            RunInterrupted: On a stop (see the module docstring).
        """


class Executor(abc.ABC):
    """Runs a plan's jobs somewhere: :meth:`submit` returns a :class:`Submitted` handle."""

    name: ClassVar[str]

    @staticmethod
    @abc.abstractmethod
    def job_status(traces: JobTraces) -> JobStatus:
        """The state of an unfinished job this executor was last given, from its traces."""

    @staticmethod
    def may_start(entry: dict[str, Any]) -> bool:
        """Whether a submission may still start the jobs it has not started (default True)."""
        return True

    @abc.abstractmethod
    def submit(self, plan: Plan, jobs: Sequence[Job], *, batch_size: int = 32) -> Submitted:
        """Start ``jobs`` of ``plan``, log the submission, return its handle."""


def check_executor(name: str) -> str:
    """Check that executor ``name`` exists and can run here.

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
    return [
        JobOutcome(job_id, record["state"] == "done", record.get("error"))
        for job_id, record in {job_id: read_record(plan, job_id) for job_id in job_ids}.items()
        if record is not None
        and record.get("started", 0) >= since - 1
        and record.get("state") in {"done", "failed"}
    ]
