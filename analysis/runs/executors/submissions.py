"""The submissions log: ``<results>/logs/submissions.jsonl``, one line per submission.

Each line names the executor, the jobs, the options (so ``status --retry-failed``
resubmits with them), and for SLURM the token and the workers' SLURM ids, or SLURM's
message when it rejected the array.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from ..plan import Plan

SUBMISSIONS = "submissions.jsonl"


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


def last_submission(entries: list[dict[str, Any]], job_id: str) -> dict[str, Any] | None:
    """The latest of ``entries`` that submitted ``job_id``, or None."""
    return next((entry for entry in reversed(entries) if job_id in entry.get("jobs", {})), None)
