"""A run plan: models x tasks expanded into independent jobs, written as JSON lines.

``static-rteb plan`` writes one header line and one line per job (one model on one or more tasks,
``tasks_per_job``). A job's id hashes the model name, revision and tasks, so planning again gives
the same ids; jobs whose results are complete are written ``"done": true``. The header pins the
results folder and each job its model's revision (a local folder's content hash): :func:`check_plan`
refuses a plan used with another results folder or a local model whose files changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.choices import Encoder
from ..core.errors import PlanError, PlanMismatchError
from ..core.io import atomic_write_text
from ..core.layout import ModelFolder

if TYPE_CHECKING:
    from mteb.abstasks import AbsTask

PLAN_VERSION = 1


@dataclass(frozen=True)
class Job:
    """One unit of work: one model on one or more tasks.

    Attributes:
        job_id: Stable id (hash of name, revision and tasks).
        model: Model source: hub id or absolute local folder.
        name: Name the results are filed under (``org/name``).
        revision: Revision the results are filed under.
        content: Content hash of a local model folder at planning time (re-checked before
            running), or None for a hub model.
        name_override: The ``--name`` given for a local folder, or None.
        tasks: mteb task names, in run order.
        results_dir: Absolute results folder.
        local_tasks_dir: Absolute folder of local task folders (symlinks kept as typed), or None.
        public_only: Skip private tasks.
        done: Whether every task's result was complete when the plan was written.
        experiment: mteb's experiment name the results are filed under
            (``ModelMeta.experiment_name``), or None (the model's default settings).
        encoder: The encoder the model runs with (``load_model(encoder=...)``).
    """

    job_id: str
    model: str
    name: str
    revision: str
    content: str | None
    name_override: str | None
    tasks: tuple[str, ...]
    results_dir: str
    local_tasks_dir: str | None = None
    public_only: bool = False
    done: bool = False
    experiment: str | None = None
    encoder: Encoder = "mteb"

    @property
    def folder(self) -> ModelFolder:
        """The folder levels of this job's model (:mod:`analysis.core.layout`)."""
        return ModelFolder(self.name, self.revision, self.experiment)

    def result_files(self) -> list[Path]:
        """Where this job's result files land, one per task, in task order."""
        return [self.folder.result_file(self.results_dir, task) for task in self.tasks]

    def lock_files(self) -> list[Path]:
        """The lock file of each of this job's tasks, in task order."""
        return [self.folder.lock_file(self.results_dir, task) for task in self.tasks]


@dataclass(frozen=True)
class Plan:
    """A run plan: its results folder and jobs.

    Attributes:
        results_dir: Absolute results folder every job writes to.
        jobs: The jobs, in plan order.
        created: When the plan was made (Unix time).
        path: The file the plan was read from or written to, if any.
    """

    results_dir: str
    jobs: tuple[Job, ...]
    created: float = field(default_factory=time.time)
    path: str | None = None

    @property
    def pending(self) -> list[Job]:
        """Jobs not marked done at planning time."""
        return [job for job in self.jobs if not job.done]

    @property
    def logs_dir(self) -> Path:
        """``<results>/logs``: SLURM logs, job records and the submission log."""
        return Path(self.results_dir) / "logs"

    def job(self, job_id: str) -> Job:
        """The job with id ``job_id`` (a KeyError when none has it)."""
        for job in self.jobs:
            if job.job_id == job_id:
                return job
        raise KeyError(f"no job {job_id!r} in the plan")


# --------------------------------------------------------------------------- making a plan


def job_id(name: str, revision: str, tasks: Sequence[str], experiment: str | None = None) -> str:
    """Stable id of a job: the first 12 hex digits of a hash of name, revision and tasks.

    An experiment name, when there is one, is hashed too (ids without one are unchanged).
    """
    key = [name, revision, list(tasks), *([experiment] if experiment else [])]
    return hashlib.sha256(json.dumps(key).encode("utf-8")).hexdigest()[:12]


def make_plan(
    models: Sequence[str | Path],
    tasks: Sequence[str],
    *,
    results_dir: str | Path,
    names: Sequence[str | None] | None = None,
    local_tasks_dir: str | Path | None = None,
    public_only: bool = False,
    tasks_per_job: int = 1,
    encoder: Encoder = "mteb",
) -> Plan:
    """Expand models x tasks into jobs; mark those whose results are complete as done.

    ``names`` name local folders' results (None: the default); ``tasks_per_job`` tasks of
    one model make one job. The plan is not yet written (:func:`write_plan`).

    Raises:
        ValueError: If ``tasks_per_job`` is not positive or ``names`` is longer than ``models``.
        UnknownTaskError: If a task name is unknown.
        ModelLoadError: If a model cannot be found.
    """
    from .models import model_identity
    from .runner import resolve_tasks

    if tasks_per_job <= 0:
        raise ValueError(f"tasks_per_job must be positive, got {tasks_per_job}.")
    names = list(names or [])
    if len(names) > len(models):
        raise ValueError(f"{len(names)} names for {len(models)} models; give one per model.")
    names += [None] * (len(models) - len(names))
    results = str(Path(results_dir).expanduser().resolve())
    # absolute, so that workers anywhere find it, but as typed: a symlink is kept, not resolved
    local = os.path.abspath(Path(local_tasks_dir).expanduser()) if local_tasks_dir else None
    task_objects = resolve_tasks(tasks, local)
    if public_only:
        task_objects = [task for task in task_objects if task.metadata.is_public]
    by_name = {task.metadata.name: task for task in task_objects}
    order = list(by_name)
    groups = [order[i : i + tasks_per_job] for i in range(0, len(order), tasks_per_job)]
    jobs: list[Job] = []
    for source, name in zip(models, names, strict=True):
        identity = model_identity(source, name=name, encoder=encoder)
        for group in groups:
            job = Job(
                job_id=job_id(identity.name, identity.revision, group, identity.experiment),
                model=identity.source,
                name=identity.name,
                revision=identity.revision,
                content=identity.content,
                name_override=identity.name_override,
                tasks=tuple(group),
                results_dir=results,
                local_tasks_dir=local,
                public_only=public_only,
                experiment=identity.experiment,
                encoder=encoder,
            )
            jobs.append(replace(job, done=job_complete(job, [by_name[t] for t in group])))
    return Plan(results_dir=results, jobs=tuple(jobs))


def job_complete(job: Job, tasks: Sequence[AbsTask] | None = None) -> bool:
    """Whether every task of ``job`` has a complete result file (all splits and subsets).

    ``tasks`` are its task objects (resolved from ``job.tasks`` when None).
    """
    if not all(path.is_file() for path in job.result_files()):
        return False  # without importing mteb: a plan's status before its run is quick
    from .runner import read_valid_result, resolve_tasks

    if tasks is None:
        tasks = resolve_tasks(job.tasks, job.local_tasks_dir)
    return all(
        (result := read_valid_result(path)) is not None and not result.get_missing_evaluations(task)
        for task, path in zip(tasks, job.result_files(), strict=True)
    )


# --------------------------------------------------------------------------- reading/writing


def write_plan(plan: Plan, path: str | Path) -> Plan:
    """Write ``plan`` atomically as JSON lines (a header, then a line per job); set its path."""
    path = Path(path)
    header = {"plan": PLAN_VERSION, "results_dir": plan.results_dir, "created": plan.created}
    lines = [json.dumps(header)]
    lines += [json.dumps({**asdict(job), "tasks": list(job.tasks)}) for job in plan.jobs]
    atomic_write_text(path, "\n".join(lines) + "\n")
    return replace(plan, path=str(path.resolve()))


def read_plan(path: str | Path) -> Plan:
    """Read a plan written by :func:`write_plan`.

    Raises:
        PlanError: If the file is missing or not a plan.
    """
    path = Path(path)
    if not path.is_file():
        raise PlanError(f"Plan file {path} does not exist; make one with `static-rteb plan`.")
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        header = json.loads(lines[0]) if lines else {}
        if header.get("plan") != PLAN_VERSION:
            raise PlanError(
                f"{path} is not a plan (version {PLAN_VERSION}) written by static-rteb."
            )
        jobs = tuple(_job(json.loads(line)) for line in lines[1:])
    except (ValueError, TypeError, KeyError) as err:
        if isinstance(err, PlanError):
            raise
        raise PlanError(f"{path} is not a valid plan file ({err}); make it again.") from err
    created = float(header.get("created", 0.0))
    return Plan(header["results_dir"], jobs, created, path=str(path.resolve()))


def _job(data: dict[str, Any]) -> Job:
    return Job(**{**data, "tasks": tuple(data["tasks"])})


def check_plan(plan: Plan, *, results_dir: str | Path | None = None) -> None:
    """Refuse a plan that does not fit: another results folder, or changed local models.

    Raises:
        PlanMismatchError: Naming the mismatch and how to fix it.
    """
    if results_dir is not None:
        wanted = Path(results_dir).expanduser().resolve()
        if wanted != Path(plan.results_dir):
            raise PlanMismatchError(
                f"The plan {plan.path or ''} was written for the results folder "
                f"{plan.results_dir}, not {wanted}. Make a new plan with "
                f"`static-rteb plan ... --results {wanted}`."
            )
    from ..core.layout import content_revision

    current: dict[str, str] = {}
    for job in plan.jobs:
        if job.content is None:
            continue
        if job.model not in current:
            if not Path(job.model).is_dir():
                raise PlanMismatchError(
                    f"The model folder {job.model} of job {job.job_id} no longer exists; "
                    "restore it or make a new plan."
                )
            current[job.model] = content_revision(job.model)
        if current[job.model] != job.content:
            raise PlanMismatchError(
                f"The local model {job.model} ({job.name}) changed since planning: its content "
                f"hash was {job.content} and is now {current[job.model]}. Make a new plan with "
                "`static-rteb plan` (a changed static model files its results under a new "
                "revision)."
            )
