r"""Command lines: ``static-rteb run``, ``static-rteb plan`` and ``static-rteb status``.

Examples::

    # one process, like `mteb run -m ... -t ...`
    static-rteb run -m ./models/potion -t STSBenchmark SciFact --local-tasks ../shared/tasks

    # plan -> submit -> status -> retry
    static-rteb plan -m ./models/potion -m ./models/other -t "MTEB(eng, v2)" \\
        --public-only --tasks-per-job 4 -o plan.jsonl
    static-rteb run --plan plan.jsonl --executor slurm --partition cpu --max-parallel 50
    static-rteb status --plan plan.jsonl
    static-rteb status --plan plan.jsonl --retry-failed

Exit status: 0 when everything ran or was cached (or was submitted), 1 when something
failed (``status``: while anything has failed), 2 on a usage error (unknown model, task,
executor or option; a plan that does not fit).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from analysis.runs.plan import Job, Plan
    from analysis.runs.status import JobStatus

# kept here (not imported from analysis.runs.runner) so that --help does not import mteb
OVERWRITE_STRATEGIES = ("only-missing", "always", "never")
EXECUTORS = ("local", "slurm")
#: Own runs go here unless --results says otherwise (mteb ResultCache layout).
DEFAULT_RESULTS = "data/runs"


# --------------------------------------------------------------------------- parsers


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``static-rteb run``.

    Returns:
        The parser.
    """
    parser = argparse.ArgumentParser(
        prog="static-rteb run",
        description="Run models over MTEB tasks (hub or local folders) with mteb.evaluate; "
        "resumable, with one results file per model and task in mteb's layout. Either "
        "-m/-t (one process) or --plan with --executor local|slurm.",
    )
    _add_model_options(parser, required=False)
    parser.add_argument(
        "--plan",
        metavar="PLAN.jsonl",
        help="run the unfinished jobs of a plan from `static-rteb plan` (instead of -m/-t)",
    )
    parser.add_argument(
        "--results",
        default=None,
        metavar="FOLDER",
        help=f"results folder, mteb ResultCache layout (default: {DEFAULT_RESULTS}; with "
        "--plan: the plan's, and another folder is refused)",
    )
    parser.add_argument("--batch-size", type=_positive_int, default=32, help="encoding batch size")
    parser.add_argument(
        "--overwrite",
        choices=OVERWRITE_STRATEGIES,
        default="only-missing",
        help="only-missing (default): resume; always: re-run; never: keep files",
    )
    parser.add_argument(
        "--no-predictions", action="store_true", help="do not save predictions (retrieval rankings)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    _add_executor_options(parser)
    parser.add_argument(
        "--wait",
        action="store_true",
        help="slurm: wait until every submitted job has left the queue, then print the status",
    )
    return parser


def _add_model_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument(
        "-m",
        "--model",
        action="append",
        required=required,
        metavar="ID_OR_FOLDER",
        help="hub id (org/name) or local model folder (model2vec or sentence-transformers); "
        "repeat for several models",
    )
    parser.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="ORG/NAME",
        help="name for the i-th --model (a name registered in mteb brings its metadata and "
        "revision, e.g. sentence-transformers/all-MiniLM-L6-v2); repeat in model order",
    )
    parser.add_argument(
        "-t",
        "--tasks",
        nargs="+",
        action="extend",
        required=required,
        metavar="TASK",
        help="mteb task or benchmark names, e.g. STSBenchmark or 'MTEB(eng, v2)'",
    )
    parser.add_argument(
        "--local-tasks",
        metavar="FOLDER",
        help="folder of local task folders (task.json + data); tasks found there run offline",
    )
    parser.add_argument("--public-only", action="store_true", help="skip private tasks")


def _add_executor_options(parser: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    group = parser.add_argument_group("executor (with --plan)")
    group.add_argument(
        "--executor",
        default="local" if defaults else None,
        metavar="{local,slurm}",
        help="local: worker processes on this machine (default); slurm: one submitit job "
        "array of workers on a SLURM cluster",
    )
    group.add_argument(
        "--workers",
        type=_positive_int,
        help="local: worker processes (default: the cores); slurm: array elements, each "
        "running jobs until none is left (default: --max-parallel, else one per job)",
    )
    group.add_argument("--partition", help="slurm: partition (default: the cluster's)")
    group.add_argument(
        "--cpus-per-job", type=_positive_int, help="slurm: CPUs per worker (default 1)"
    )
    group.add_argument("--gpus-per-job", type=int, help="slurm: GPUs per worker (default 0)")
    group.add_argument("--mem-gb", type=float, help="slurm: memory per worker in GB")
    group.add_argument(
        "--timeout-min",
        type=_positive_int,
        help="slurm: time limit per worker (default 60); a worker takes no job it "
        "expects not to finish in time",
    )
    group.add_argument(
        "--max-parallel", type=_positive_int, help="slurm: at most this many workers at once"
    )


def build_plan_parser() -> argparse.ArgumentParser:
    """The argument parser of ``static-rteb plan``."""
    parser = argparse.ArgumentParser(
        prog="static-rteb plan",
        description="Expand models x tasks (benchmarks expand to their tasks) into independent "
        "jobs, written as JSON lines; jobs whose results are complete are marked done.",
    )
    _add_model_options(parser, required=True)
    parser.add_argument(
        "--tasks-per-job",
        type=_positive_int,
        default=1,
        help="group this many tasks of one model into one job (static models load fast)",
    )
    parser.add_argument(
        "--results",
        default=DEFAULT_RESULTS,
        metavar="FOLDER",
        help=f"results folder the jobs write to (default: {DEFAULT_RESULTS})",
    )
    parser.add_argument("-o", "--output", required=True, metavar="PLAN.jsonl", help="plan file")
    return parser


def build_status_parser() -> argparse.ArgumentParser:
    """The argument parser of ``static-rteb status``."""
    parser = argparse.ArgumentParser(
        prog="static-rteb status",
        description="Report each job of a plan as done, running, failed (with its error) or "
        "pending, from the results folder, SLURM's queue and the job logs. Exits 1 while "
        "anything has failed.",
    )
    parser.add_argument("--plan", required=True, metavar="PLAN.jsonl", help="the plan file")
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="resubmit the failed jobs (with their last executor and options, unless given)",
    )
    parser.add_argument("--wait", action="store_true", help="slurm retry: wait for the jobs")
    parser.add_argument("--quiet", action="store_true", help="no tracebacks, no progress bars")
    _add_executor_options(parser, defaults=False)
    return parser


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


# --------------------------------------------------------------------------- run


def main(argv: Sequence[str] | None = None) -> int:
    """``static-rteb run``.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 all done (or submitted), 1 something failed, 2 usage error.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.plan:
        if args.model or args.tasks:
            parser.error("give either --plan or -m/-t, not both")
        return _run_plan(args)
    if not args.model or not args.tasks:
        parser.error("give -m/--model and -t/--tasks, or --plan PLAN.jsonl")
    if len(args.name) > len(args.model):
        parser.error(f"{len(args.name)} --name for {len(args.model)} --model; give one per model.")
    from analysis.errors import UnknownTaskError
    from analysis.runs.models import ModelLoadError, load_model
    from analysis.runs.runner import resolve_tasks, run_evaluation

    try:
        tasks = resolve_tasks(args.tasks, args.local_tasks)
        names = [*args.name, *[None] * (len(args.model) - len(args.name))]
        models = [
            load_model(source, name=name) for source, name in zip(args.model, names, strict=True)
        ]
    except (ModelLoadError, UnknownTaskError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    summary = run_evaluation(
        models,
        tasks,
        results_dir=args.results or DEFAULT_RESULTS,
        batch_size=args.batch_size,
        overwrite=args.overwrite,
        save_predictions=not args.no_predictions,
        public_only=args.public_only,
        show_progress=not args.quiet,
    )
    _print_summary(summary)
    return 1 if (summary["status"] == "failed").any() else 0


def _run_plan(args: argparse.Namespace) -> int:
    from analysis.runs.executors import ExecutorError, check_executor
    from analysis.runs.plan import PlanError, check_plan, read_plan
    from analysis.runs.status import plan_status

    try:
        check_executor(args.executor)
        plan = read_plan(args.plan)
        check_plan(plan, results_dir=args.results)
    except (ExecutorError, PlanError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    statuses = plan_status(plan)
    # unfinished and not already queued or running somewhere
    busy = [s for s in statuses if s.state == "running" or s.detail.startswith("queued")]
    todo = [
        plan.job(s.job_id) for s in statuses if s.state in ("failed", "pending") and s not in busy
    ]
    done = sum(s.state == "done" for s in statuses)
    print(f"{len(todo)} job(s) to run; {done} done, {len(busy)} running or queued elsewhere.")
    return _execute(plan, todo, args, options={}, show_progress=not args.quiet)


def _execute(
    plan: Plan,
    jobs: list[Job],
    args: argparse.Namespace,
    *,
    options: dict[str, Any],
    show_progress: bool,
) -> int:
    """Run ``jobs`` with ``args.executor``; ``options`` are defaults from an earlier submission."""
    from analysis.runs.executors import (
        SlurmOptions,
        SubmissionError,
        run_local,
        submit_slurm,
        wait_slurm,
    )

    if not jobs:
        return _report(plan, quiet=True)
    batch_size = getattr(args, "batch_size", None) or options.get("batch_size", 32)
    if args.executor == "local":
        workers = args.workers or options.get("workers")
        run_local(plan, jobs, workers=workers, batch_size=batch_size, show_progress=show_progress)
        return _report(plan, quiet=not show_progress)
    fields = {
        "partition": args.partition,
        "cpus_per_job": args.cpus_per_job,
        "gpus_per_job": args.gpus_per_job,
        "mem_gb": args.mem_gb,
        "timeout_min": args.timeout_min,
        "max_parallel": args.max_parallel,
        "workers": args.workers,
    }
    merged = {k: v if v is not None else options.get(k) for k, v in fields.items()}
    slurm = SlurmOptions(**{k: v for k, v in merged.items() if v is not None})
    try:
        submission = submit_slurm(plan, jobs, slurm, batch_size=batch_size)
    except SubmissionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    arrays = ", ".join(sorted(submission.array_ids))
    print(
        f"Submitted {len(jobs)} job(s) to {len(submission.worker_ids)} worker(s), SLURM "
        f"array {arrays}; logs in {plan.logs_dir}."
    )
    if not args.wait:
        print(f"Follow with: static-rteb status --plan {plan.path}")
        return 0
    wait_slurm(submission, show_progress=show_progress)
    return _report(plan, quiet=not show_progress)


def _report(plan: Plan, *, quiet: bool) -> int:
    from analysis.runs.status import plan_status

    statuses = plan_status(plan)
    _print_status(statuses, tracebacks=not quiet)
    return 1 if any(s.state == "failed" for s in statuses) else 0


# --------------------------------------------------------------------------- plan


def plan_main(argv: Sequence[str] | None = None) -> int:
    """``static-rteb plan``: write a plan file.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).

    Returns:
        0, or 2 on a usage error.
    """
    parser = build_plan_parser()
    args = parser.parse_args(argv)
    if len(args.name) > len(args.model):
        parser.error(f"{len(args.name)} --name for {len(args.model)} --model; give one per model.")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from analysis.errors import UnknownTaskError
    from analysis.runs.models import ModelLoadError
    from analysis.runs.plan import make_plan, write_plan

    try:
        plan = make_plan(
            args.model,
            args.tasks,
            results_dir=args.results,
            names=args.name,
            local_tasks_dir=args.local_tasks,
            public_only=args.public_only,
            tasks_per_job=args.tasks_per_job,
        )
    except (ModelLoadError, UnknownTaskError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    plan = write_plan(plan, args.output)
    n_tasks = sum(len(job.tasks) for job in plan.jobs)
    print(
        f"Wrote {args.output}: {len(plan.jobs)} job(s), {n_tasks} (model, task) pair(s), "
        f"{len(plan.jobs) - len(plan.pending)} already done; results in {plan.results_dir}."
    )
    return 0


# --------------------------------------------------------------------------- status


def status_main(argv: Sequence[str] | None = None) -> int:
    """``static-rteb status``: report (and optionally retry) the jobs of a plan.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).

    Returns:
        0 when nothing has failed, 1 while something has failed (after a retry: when the
        retried jobs failed again or were rejected), 2 on a usage error.
    """
    args = build_status_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from analysis.runs.executors import ExecutorError, check_executor, read_submissions
    from analysis.runs.plan import PlanError, check_plan, read_plan
    from analysis.runs.status import plan_status

    try:
        plan = read_plan(args.plan)
    except PlanError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    statuses = plan_status(plan)
    _print_status(statuses, tracebacks=not args.quiet)
    failed = [s for s in statuses if s.state == "failed"]
    if not args.retry_failed or not failed:
        return 1 if failed else 0
    last = _last_submission(read_submissions(plan), failed[0].job_id)
    args.executor = args.executor or (last or {}).get("executor") or "local"
    try:
        check_executor(args.executor)
        check_plan(plan)
    except (ExecutorError, PlanError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    options = dict((last or {}).get("options") or {})
    if (last or {}).get("executor") != args.executor:
        options = {}
    print(f"Retrying {len(failed)} failed job(s) with --executor {args.executor}.")
    jobs = [plan.job(s.job_id) for s in failed]
    return _execute(plan, jobs, args, options=options, show_progress=not args.quiet)


def _last_submission(entries: list[dict[str, Any]], job_id: str) -> dict[str, Any] | None:
    found = None
    for entry in entries:
        if job_id in entry.get("jobs", {}):
            found = entry
    return found


def _print_status(statuses: Sequence[JobStatus], *, tracebacks: bool) -> None:
    import pandas as pd

    from analysis.runs.status import state_counts, status_table

    with pd.option_context("display.max_colwidth", 70, "display.width", 250):
        print(status_table(statuses).to_string(index=False))
    counts = state_counts(statuses)
    print("\n" + ", ".join(f"{n} {state}" for state, n in counts.items()))
    for status in statuses:
        if status.state == "failed":
            print(f"\n--- {status.job_id} ({status.model}: {','.join(status.tasks)}) failed:")
            print(status.error)
            if tracebacks and status.traceback and status.traceback.strip() != status.error:
                print(status.traceback.rstrip())


def _print_summary(summary: pd.DataFrame) -> None:
    import pandas as pd

    with pd.option_context("display.max_colwidth", 80, "display.width", 200):
        print(summary.to_string(index=False))
    failed = summary[summary["status"] == "failed"]
    if not failed.empty:
        print(f"\n{len(failed)} evaluation(s) failed; see the error column.", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
