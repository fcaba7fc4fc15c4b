"""Sequential runs: every job in this process, one after the other (the benchmark's baseline)."""

from __future__ import annotations

from collections.abc import Sequence

from tqdm.auto import tqdm

from ...core.errors import RunInterrupted
from ...core.interrupt import signal_of
from ..plan import Job, Plan
from .base import JobOutcome
from .job import run_job


def run_sequential(
    plan: Plan, jobs: Sequence[Job], *, batch_size: int = 32, show_progress: bool = True
) -> list[JobOutcome]:
    """Run ``jobs`` one after the other in this process.

    Args:
        plan: The plan.
        jobs: The jobs.
        batch_size: Encoding batch size.
        show_progress: Show one progress bar over jobs.

    Returns:
        One outcome per job.

    Raises:
        RunInterrupted: On ``KeyboardInterrupt``; the running job is recorded as interrupted.
    """
    outcomes = []
    bar = tqdm(total=len(jobs), desc="jobs", unit="job", disable=not show_progress)
    try:
        for job in jobs:
            try:
                run_job(job, batch_size=batch_size)
                outcomes.append(JobOutcome(job.job_id, True))
            except Exception as err:  # recorded by run_job; reported in the outcome
                outcomes.append(JobOutcome(job.job_id, False, f"{type(err).__name__}: {err}"))
            bar.update(1)
    except KeyboardInterrupt as err:
        raise RunInterrupted(
            signum=signal_of(err),
            finished=len(outcomes),
            interrupted=1,
            not_started=len(jobs) - len(outcomes) - 1,
            note="Run the plan again to resume",
        ) from None
    finally:
        bar.close()
    return outcomes
