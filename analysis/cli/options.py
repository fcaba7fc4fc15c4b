"""Options that several ``static-rteb`` commands share, each defined once.

``--results``, ``--on-conflict``, ``--verbose``, ``--quiet``, ``--local-tasks``, the model and task
options (``run``, ``plan``) and the executor options (``run``, ``status``), with the value types
they check. Imports nothing heavy: every ``--help`` is built from here and
:mod:`analysis.cli.build_cli` alone.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.choices import ENCODERS, EXECUTORS, ON_CONFLICT


def positive_int(text: str) -> int:
    """An argparse type: an integer above 0."""
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def percentage(text: str) -> float:
    """An argparse type: a number from 0 to 100, a trailing ``%`` allowed."""
    value = float(text.removesuffix("%"))
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be a percentage from 0 to 100, got {text}")
    return value


def fraction(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1 (a level such as 0.95)."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"must be a fraction between 0 and 1, e.g. 0.95, got {text}"
        )
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an integer of 0 or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number above 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def add_results(
    parser: argparse.ArgumentParser, *, help: str, several: bool = True, default: Any = None
) -> None:
    """``--results FOLDER [FOLDER ...]``: results folder(s) in mteb's ResultCache layout."""
    parser.add_argument(
        "--results", nargs="+" if several else None, default=default, metavar="FOLDER", help=help
    )


def add_on_conflict(parser: argparse.ArgumentParser, *, default: str = "first") -> None:
    """``--on-conflict {first,error}``: how merged ``--results`` folders settle a clash.

    The flag of ``load_leaderboard(on_conflict=...)``; a command that reads several
    results folders into one leaderboard takes it.
    """
    parser.add_argument(
        "--on-conflict",
        choices=ON_CONFLICT,
        default=default,
        help="two folders with different results for one (model, revision, task), such as "
        "your rerun of a leaderboard model: keep the first folder's (with a note naming the "
        "file kept) or refuse"
        + (" (default: first)" if default == "first" else f" (default: {default})"),
    )


def add_verbose(parser: argparse.ArgumentParser) -> None:
    """``--verbose``: every third-party warning and log line (:mod:`analysis.core.quiet`)."""
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="show every third-party warning and log line (known harmless ones are hidden)",
    )


def add_quiet(parser: argparse.ArgumentParser, *, help: str = "no progress bars") -> None:
    """``--quiet``: no progress bars (and what else ``help`` says the command leaves out)."""
    parser.add_argument("--quiet", action="store_true", help=help)


def add_pin(parser: argparse.ArgumentParser) -> None:
    """``--pin``: which task lists a benchmark name means."""
    parser.add_argument(
        "--pin",
        default="now",
        help="task lists: now (mteb's current, default) or as-of-post (as the post used them)",
    )


def add_public_only(parser: argparse.ArgumentParser, *, help: str = "skip private tasks") -> None:
    """``--public-only``: leave the private tasks out (and what ``help`` says that gives)."""
    parser.add_argument("--public-only", action="store_true", help=help)


def add_local_tasks(parser: argparse.ArgumentParser) -> None:
    """``--local-tasks FOLDER``: local task folders (task.json + data), run offline."""
    parser.add_argument(
        "--local-tasks",
        metavar="FOLDER",
        help="folder of local task folders (task.json + data); tasks found there run offline",
    )


def add_model_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    """``-m``, ``--name``, ``--encoder``, ``-t``, ``--local-tasks``, ``--public-only``."""
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
        "--encoder",
        choices=ENCODERS,
        default="mteb",
        help="mteb: as mteb runs each model (its registered loader, else sentence-transformers; "
        "a model2vec model through StaticEmbedding; default); model2vec: model2vec's own "
        "StaticModel.encode, results under the experiment encoder_model2vec",
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
    add_local_tasks(parser)
    add_public_only(parser)


def add_executor_options(parser: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    """``--executor`` and the worker options of the local and SLURM executors.

    Args:
        parser: The command's parser.
        defaults: ``--executor`` defaults to ``local`` (``run``); else to None (``status
            --retry-failed`` then takes the last submission's executor).
    """
    group = parser.add_argument_group(
        "executor (with --plan)" if defaults else "executor (with --retry-failed)"
    )
    group.add_argument(
        "--executor",
        default="local" if defaults else None,
        metavar="{" + ",".join(EXECUTORS) + "}",
        help="local: worker processes on this machine (default); slurm: one submitit job "
        "array of workers on a SLURM cluster",
    )
    group.add_argument(
        "--workers",
        type=positive_int,
        help="local: worker processes (default: the cores); slurm: array elements, each "
        "running jobs until none is left (default: --max-parallel, else one per job)",
    )
    group.add_argument("--partition", help="slurm: partition (default: the cluster's)")
    group.add_argument(
        "--cpus-per-worker", type=positive_int, help="slurm: CPUs per worker (default 1)"
    )
    group.add_argument(
        "--gpus-per-worker", type=non_negative_int, help="slurm: GPUs per worker (default 0)"
    )
    group.add_argument(
        "--mem-gb-per-worker", type=positive_float, help="slurm: memory per worker in GB"
    )
    group.add_argument(
        "--timeout-min",
        type=positive_int,
        help="slurm: time limit per worker (default 60); a worker takes no job it "
        "expects not to finish in time",
    )
    group.add_argument(
        "--max-parallel", type=positive_int, help="slurm: at most this many workers at once"
    )
