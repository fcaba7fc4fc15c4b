"""Sequential runs: every job in this process, one after the other (the benchmark's baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from ...core.errors import RunInterrupted
from ...core.interrupt import signal_of
from ..plan import Job, Plan
from .base import JobOutcome
from .job import run_job
from .records import ENDED, read_record, stop_counts


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
        ended: dict[str, dict[str, Any]] = {
            o.job_id: {"state": "done" if o.ok else "failed"} for o in outcomes
        }
        if len(outcomes) < len(jobs):  # the job that was running: its record says how it ended
            current = jobs[len(outcomes)].job_id
            record = read_record(plan, current)
            if record is not None and record.get("state") in ENDED:
                ended[current] = record
        finished, interrupted, not_started = stop_counts(jobs, ended)
        raise RunInterrupted(
            signum=signal_of(err),
            finished=finished,
            interrupted=interrupted,
            not_started=not_started,
            note="Run the plan again to resume",
        ) from None
    finally:
        bar.close()
    return outcomes
