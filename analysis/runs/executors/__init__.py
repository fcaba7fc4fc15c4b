"""Run a plan's jobs: on this machine (worker processes) or on SLURM (submitit job arrays).

Behind one small interface (:mod:`.base`: ``Executor.submit`` returns a ``Submitted``
handle to ``wait`` on; :mod:`.factory`: ``make_executor`` by name): the core shared by every
executor (:mod:`.records`, a job's record; :mod:`.job`, the job function; :mod:`.worker`,
claims and the worker loop; :mod:`.submissions`), :mod:`.local` (worker processes on this
machine) and :mod:`.slurm` (one submitit job array per submission).
:mod:`analysis.runs.status` reads the records to tell what is done, running, failed,
interrupted or pending.
"""

from ...core.errors import ExecutorError, SubmissionError
from .base import JobOutcome, check_executor
from .factory import make_executor
from .job import run_job
from .local import run_local
from .records import read_record, write_record
from .slurm import SlurmOptions, Submission, submit_slurm, wait_slurm
from .submissions import log_submission, read_submissions
from .worker import claim, claims_dir, run_worker

__all__ = [
    "ExecutorError",
    "JobOutcome",
    "SlurmOptions",
    "Submission",
    "SubmissionError",
    "check_executor",
    "claim",
    "claims_dir",
    "log_submission",
    "make_executor",
    "read_record",
    "read_submissions",
    "run_job",
    "run_local",
    "run_worker",
    "submit_slurm",
    "wait_slurm",
    "write_record",
]
