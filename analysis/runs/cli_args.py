"""The argument parsers of ``static-rteb run``, ``plan`` and ``status`` (:mod:`.cli`).

Kept apart from the commands so that ``--help`` imports neither mteb nor torch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ..paths import DEFAULT_PLAN

# kept here (not imported from analysis.runs.runner) so that --help does not import mteb
OVERWRITE_STRATEGIES = ("only-missing", "always", "never")
EXECUTORS = ("local", "slurm")
#: Own runs go here unless --results says otherwise (mteb ResultCache layout).
DEFAULT_RESULTS = "data/runs"


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
    add_verbose(parser)
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
        "--cpus-per-worker", type=_positive_int, help="slurm: CPUs per worker (default 1)"
    )
    group.add_argument(
        "--gpus-per-worker", type=_non_negative_int, help="slurm: GPUs per worker (default 0)"
    )
    group.add_argument(
        "--mem-gb-per-worker", type=_positive_float, help="slurm: memory per worker in GB"
    )
    for old, new, kind in DEPRECATED_OPTIONS:
        group.add_argument(
            old,
            dest=new.lstrip("-").replace("-", "_"),
            type=kind,
            action=_Deprecated,
            replacement=new,
            help=argparse.SUPPRESS,
        )
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
    parser.add_argument(
        "-o",
        "--output",
        default=DEFAULT_PLAN,
        metavar="PLAN.jsonl",
        help=f"plan file (default: {DEFAULT_PLAN})",
    )
    add_verbose(parser)
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
    add_verbose(parser)
    _add_executor_options(parser, defaults=False)
    return parser


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """``--verbose``: every third-party warning and log line (:mod:`analysis.quiet`)."""
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="show every third-party warning and log line (known harmless ones are hidden)",
    )


class _Deprecated(argparse.Action):
    """An old option name: stores into the new option's destination, with a short notice."""

    def __init__(self, option_strings: list[str], dest: str, replacement: str, **kwargs: Any):
        self.replacement = replacement
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"warning: {option_string} is deprecated and will be removed in the next release; "
            f"use {self.replacement} (the resource was always per worker).",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


#: Old option names kept for one release: (old, new, type).
DEPRECATED_OPTIONS: tuple[tuple[str, str, Callable[[str], Any]], ...] = (
    ("--cpus-per-job", "--cpus-per-worker", _positive_int),
    ("--gpus-per-job", "--gpus-per-worker", _non_negative_int),
    ("--mem-gb", "--mem-gb-per-worker", _positive_float),
)
