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
failed, 2 on a usage error, 128 + the signal number when stopped: one line, no traceback,
no partial result file, and the next run resumes (``docs/running.md``). Known third-party
warnings are hidden unless ``--verbose`` (:mod:`analysis.core.quiet`).
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from analysis.core.errors import RunInterrupted
from analysis.core.interrupt import stoppable_command
from analysis.core.paths import DEFAULT_RUNS, display_path
from analysis.core.quiet import setup_output

if TYPE_CHECKING:
    import pandas as pd

    from analysis.runs.plan import Job, Plan
    from analysis.runs.status import JobStatus

#: The worker options of ``--executor`` (:func:`analysis.cli.options.add_executor_options`).
WORKER_OPTIONS = (
    "workers partition cpus_per_worker gpus_per_worker mem_gb_per_worker timeout_min max_parallel"
).split()


def run_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``static-rteb run``, parsed by :mod:`analysis.cli`.

    Returns:
        The exit status: 0 all done (or submitted), 1 something failed, 2 usage error,
        128 + the signal number when stopped (130 for Ctrl-C).
    """
    parser = args.command_parser  # usage first: setup_output imports torch and mteb
    if args.plan and (args.model or args.tasks):
        parser.error("give either --plan or -m/-t, not both")
    if not args.plan and (not args.model or not args.tasks):
        parser.error("give -m/--model and -t/--tasks, or --plan PLAN.jsonl")
    _check_names(args)
    if (unknown := _unknown_task(args)) is not None:
        print(f"error: {unknown}", file=sys.stderr)
        return 2
    setup_output(verbose=args.verbose, libraries=not args.plan)  # plans: the workers load
    run = (lambda: _run_plan(args)) if args.plan else (lambda: _run_direct(args))
    return stoppable_command(run, resume=_resume_command(argv, args))


def _run_direct(args: argparse.Namespace) -> int:
    from analysis.core.errors import UnknownTaskError
    from analysis.runs.models import ModelLoadError, load_model, model_source
    from analysis.runs.runner import resolve_tasks, run_evaluation

    try:
        tasks = resolve_tasks(args.tasks, args.local_tasks)
        args.resolved = [task.metadata.name for task in tasks]  # for the resume command
        models = [
            load_model(model_source(source), name=name, encoder=args.encoder)
            for source, name in zip(args.model, _names(args), strict=True)
        ]
    except (ModelLoadError, UnknownTaskError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    summary = run_evaluation(
        models,
        tasks,
        results_dir=args.results or DEFAULT_RUNS,
        batch_size=args.batch_size,
        overwrite=args.overwrite,
        save_predictions=not args.no_predictions,
        public_only=args.public_only,
        show_progress=not args.quiet,
    )
    _print_summary(summary)
    return 1 if (summary["status"] == "failed").any() else 0


def _names(args: Any) -> list[str | None]:
    """The ``--name`` of each ``--model``, in order; None where fewer names were given."""
    return [*args.name, *[None] * (len(args.model) - len(args.name))]


def _check_names(args: argparse.Namespace) -> None:
    """Refuse more ``--name`` than ``--model`` (a usage error, exit status 2)."""
    if len(args.name) > len(args.model or []):
        args.command_parser.error(
            f"{len(args.name)} --name for {len(args.model or [])} --model; give one per model."
        )


def _unknown_task(args: argparse.Namespace) -> str | None:
    """The message for a ``-t`` name unknown to this mteb, known before torch and mteb load.

    Against the names last seen with its version (:func:`analysis.core.compat.seen_names`);
    None if every name is known, or nothing was seen yet, or local task folders may name
    their own (then the run's own look-up decides, after mteb's import).
    """
    from analysis.core.compat import seen_names
    from analysis.core.errors import unknown_task_message

    tasks, benchmarks = seen_names("tasks"), seen_names("benchmarks")
    if args.local_tasks or tasks is None or benchmarks is None:
        return None
    known = tasks | benchmarks
    unknown = [name for name in args.tasks or [] if name not in known]
    return unknown_task_message(unknown[0], known) if unknown else None


def _split_run_argv(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """``run``'s ``-m``, ``--name``, ``-t``, ``--overwrite`` and the other words, in order.

    argparse reads them as ``run`` does, in every spelling (``-mX``, ``--model=X``, ``--nam``).
    """
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("-m", "--model", action="append", default=[])
    parser.add_argument("--name", action="append", default=[])
    parser.add_argument("-t", "--tasks", nargs="+", action="extend", default=[])
    parser.add_argument("--overwrite")
    return parser.parse_known_args(list(argv))


def _resume_command(argv: Sequence[str], args: Any = None) -> Callable[[RunInterrupted], str]:
    """The command that resumes a stopped ``run``: the same, or ``always`` over the rest only.

    With ``--overwrite always``, once an evaluation finished, the run's order (model by model,
    task by task) gives the rest: that model's other tasks (by name when ``-t`` named tasks;
    all of ``-t`` again when it named a benchmark, whose tasks may differ from those by name),
    then the models after it. ``args.resolved`` names the tasks ``-t`` gave; without it, or
    with nothing left, the command drops ``always`` (what was not reached keeps its results).
    """

    def resume(stop: RunInterrupted) -> str:
        known, rest = _split_run_argv(argv)
        if known.overwrite != "always" or not stop.finished:
            return "static-rteb run " + shlex.join(argv)
        models, names, tasks = known.model, _names(known), getattr(args, "resolved", None)

        def command(first: int, last: int, task_words: list[str], always: bool = True) -> str:
            pick = [w for k in range(first, last) for w in ("-m", models[k])]
            pick += [w for name in names[first:last] if name for w in ("--name", name)]
            words = [*pick, "-t", *task_words, *rest, *(["--overwrite", "always"] * always)]
            return "static-rteb run " + shlex.join(words)

        if not tasks or stop.finished >= len(models) * len(tasks):
            return command(0, len(models), known.tasks, always=False)
        (i, j), named = divmod(stop.finished, len(tasks)), all(t in tasks for t in known.tasks)
        parts = [command(i, i + 1, tasks[j:] if named else known.tasks)] if j else []
        if i + bool(j) < len(models):  # the models after it (or from it), every task
            parts.append(command(i + bool(j), len(models), known.tasks))
        return " && ".join(parts)

    return resume


def _run_plan(args: argparse.Namespace) -> int:
    from analysis.runs.executors import ExecutorError, check_executor
    from analysis.runs.plan import PlanError, check_plan, read_plan
    from analysis.runs.status import jobs_to_run, plan_status

    try:
        check_executor(args.executor)
        plan = read_plan(args.plan)
        check_plan(plan, results_dir=args.results)
    except (ExecutorError, PlanError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.executor == "local":
        from analysis.runs.executors.local import start_fork_server

        start_fork_server()  # its imports overlap with plan_status (mteb once results exist)
    started = time.time()  # corrupt results are set aside from here on (plan_status, jobs)
    statuses = plan_status(plan)
    # unfinished and not already queued or running somewhere
    todo = jobs_to_run(plan, statuses)
    busy = [s for s in statuses if s.state != "done" and plan.job(s.job_id) not in todo]
    done = sum(s.state == "done" for s in statuses)
    print(f"{len(todo)} job(s) to run; {done} done, {len(busy)} running or queued elsewhere.")
    for s in statuses:
        if s.held_by is not None:  # another process runs it: shown, and waited for
            print(f"{s.job_id} ({', '.join(s.tasks)}): running elsewhere, {s.held_by}; "
                  "its worker here waits for it")  # fmt: skip
    return _execute(plan, todo, args, options={}, show_progress=not args.quiet, since=started)


def _execute(
    plan: Plan,
    jobs: list[Job],
    args: argparse.Namespace,
    *,
    options: dict[str, Any],
    show_progress: bool,
    since: float | None = None,
) -> int:
    """Run ``jobs`` with ``args.executor`` (``options``: an earlier submission's defaults)."""
    import dataclasses

    from analysis.runs.executors import Submission, SubmissionError, make_executor

    started = since if since is not None else time.time()
    if not jobs:
        return _report(plan, quiet=True, since=started)
    batch_size = getattr(args, "batch_size", None) or options.get("batch_size", 32)
    given = {k: getattr(args, k) for k in WORKER_OPTIONS}
    merged = {k: v if v is not None else options.get(k) for k, v in given.items()}
    executor = make_executor(args.executor, {**merged, "verbose": args.verbose})
    try:
        submitted = executor.submit(plan, jobs, batch_size=batch_size)
    except SubmissionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if submitted.detached:
        print(f"{submitted.describe()} Logs in {plan.logs_dir}.")
        if not args.wait:
            print(f"Follow with: static-rteb status --plan {args.plan}")
            return 0
    if isinstance(submitted, Submission):  # name the plan as it was typed when interrupted
        submitted = dataclasses.replace(submitted, plan_path=args.plan)
    submitted.wait(show_progress=show_progress)
    return _report(plan, quiet=not show_progress, since=started)


def _report(plan: Plan, *, quiet: bool, since: float | None = None) -> int:
    """Print the plan's status; ``since``: also note the corrupt results set aside since then."""
    from analysis.runs.runner import set_aside_note
    from analysis.runs.status import plan_status, set_aside_since

    statuses = plan_status(plan)
    _print_status(statuses, tracebacks=not quiet, plan_label=plan.path or "PLAN.jsonl")
    note = set_aside_note(set_aside_since(plan, since)) if since is not None else None
    if note:
        print(f"note: {note}")
    return 1 if any(s.state == "failed" for s in statuses) else 0


def plan_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``static-rteb plan``: write a plan file (parsed by :mod:`analysis.cli`).

    Returns:
        0, 2 on a usage error, 128 + the signal number when stopped.
    """
    _check_names(args)
    if (unknown := _unknown_task(args)) is not None:
        print(f"error: {unknown}", file=sys.stderr)
        return 2
    setup_output(verbose=args.verbose, libraries=False)  # it loads no model, no data set
    return stoppable_command(lambda: _plan(args), resume="static-rteb plan " + shlex.join(argv))


def _plan(args: argparse.Namespace) -> int:
    from analysis.core.errors import UnknownTaskError
    from analysis.runs.models import ModelLoadError, model_source
    from analysis.runs.plan import make_plan, write_plan

    try:
        plan = make_plan(
            [model_source(m) for m in args.model],
            args.tasks,
            results_dir=args.results,
            names=args.name,
            local_tasks_dir=args.local_tasks,
            public_only=args.public_only,
            tasks_per_job=args.tasks_per_job,
            encoder=args.encoder,
        )
    except (ModelLoadError, UnknownTaskError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    plan = write_plan(plan, args.output)
    n_tasks = sum(len(job.tasks) for job in plan.jobs)
    print(
        f"Wrote {args.output}: {len(plan.jobs)} job(s), {n_tasks} (model, task) pair(s), "
        f"{len(plan.jobs) - len(plan.pending)} already done; "
        f"results in {display_path(plan.results_dir)}."
    )
    return 0


def status_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``static-rteb status``: report (and optionally retry) the jobs of a plan.

    Returns:
        0 when nothing has failed, 1 while something has failed (after a retry: when the
        retried jobs failed again or were rejected), 2 on a usage error, 128 + the
        signal number when a retry was stopped.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return stoppable_command(lambda: _status(args), resume=f"static-rteb run --plan {args.plan}")


def _status(args: argparse.Namespace) -> int:
    from analysis.runs.executors import ExecutorError, check_executor, read_submissions
    from analysis.runs.executors.submissions import last_submission
    from analysis.runs.plan import PlanError, check_plan, read_plan
    from analysis.runs.status import plan_status

    try:
        plan = read_plan(args.plan)
    except PlanError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    statuses = plan_status(plan)
    _print_status(statuses, tracebacks=not args.quiet, plan_label=args.plan)
    failed = [s for s in statuses if s.state == "failed"]
    if not args.retry_failed or not failed:
        return 1 if failed else 0
    setup_output(verbose=args.verbose)
    last = last_submission(read_submissions(plan), failed[0].job_id) or {}
    args.executor = args.executor or last.get("executor") or "local"
    try:
        check_executor(args.executor)
        check_plan(plan)
    except (ExecutorError, PlanError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    options = dict(last.get("options") or {}) if last.get("executor") == args.executor else {}
    print(f"Retrying {len(failed)} failed job(s) with --executor {args.executor}.")
    jobs = [plan.job(s.job_id) for s in failed]
    return _execute(plan, jobs, args, options=options, show_progress=not args.quiet)


def _print_status(statuses: Sequence[JobStatus], *, tracebacks: bool, plan_label: str) -> None:
    import pandas as pd

    from analysis.runs.status import state_counts, status_table

    with pd.option_context("display.max_colwidth", 70, "display.width", 250):
        print(status_table(statuses).to_string(index=False))
    counts = state_counts(statuses)
    print("\n" + ", ".join(f"{n} {state}" for state, n in counts.items()))
    if counts.get("interrupted"):
        print(f"Interrupted jobs run again with: static-rteb run --plan {plan_label}")
    for status in statuses:
        if status.state == "failed":
            print(f"\n--- {status.job_id} ({status.model}: {','.join(status.tasks)}) failed:")
            print(status.error)
            if tracebacks and status.traceback and status.traceback.strip() != status.error:
                print(status.traceback.rstrip())


def _print_summary(summary: pd.DataFrame) -> None:
    import pandas as pd

    from analysis.runs.runner import set_aside_note

    with pd.option_context("display.max_colwidth", 80, "display.width", 200):
        print(summary.to_string(index=False))
    note = set_aside_note(summary.attrs.get("set_aside", []))
    if note:
        print(f"note: {note}")
    failed = summary[summary["status"] == "failed"]
    if not failed.empty:
        print(f"\n{len(failed)} evaluation(s) failed; see the error column.", file=sys.stderr)
    hub = "Couldn't reach .* on the Hub|OfflineModeIsEnabled"  # datasets: a task's data
    if failed["error"].astype(str).str.contains(hub, regex=True).any():
        print(
            "Offline? mteb loads task data from the Hugging Face Hub: give local copies of "
            "the tasks with --local-tasks FOLDER (e.g. ../shared/tasks).",
            file=sys.stderr,
        )
