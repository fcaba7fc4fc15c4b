"""``static-rteb submit``: own runs -> a branch of a results-repository checkout, CI-checked.

Examples::

    static-rteb submit --results data/runs/results/local__my-model/local-1a2b... --model
        my-org/my-model --revision 0123...cdef --checkout ../results
    static-rteb submit --checkout ../results --check-only     # the checkout's branch vs main
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...errors import LeaderboardSubmitError, PreflightError, UnregisteredModelError

if TYPE_CHECKING:
    from .submission import SubmitOutcome


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``static-rteb submit``."""
    parser = argparse.ArgumentParser(
        prog="static-rteb submit",
        description=(
            "Re-file own runs under the model's hub name and commit SHA, check them with the "
            "MTEB results repository's CI checks, write mteb's model card, and commit them on a "
            "new branch of a local checkout of embeddings-benchmark/results (through mteb's "
            "ResultCache.submit_results). A model mteb does not know is refused, with its "
            "ModelMeta registry entry written for a pull request to mteb."
        ),
    )
    parser.add_argument(
        "--results",
        nargs="+",
        metavar="FOLDER",
        help="run folders (revision folders of data/runs/results, or folders holding them)",
    )
    parser.add_argument("--model", metavar="ORG/NAME", help="the model's Hugging Face hub id")
    parser.add_argument(
        "--revision",
        metavar="SHA",
        help=(
            "40-character commit SHA of the weights on the hub (default: the runs' SHA, the "
            "model folder's git commit, or mteb's registered revision)"
        ),
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
        help=(
            "push to your fork and open the pull request (mteb's path: network, PyGithub, "
            "GitHub token; untested here)"
        ),
    )
    parser.add_argument("--message", help="title of the commit and pull request")
    parser.add_argument(
        "--check-only",
        action="store_true",
        help=(
            "run the pre-flight (and write the card) but commit nothing; without --results, "
            "check the checkout's current branch against main"
        ),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``static-rteb submit``; returns the exit code (0 done, 1 refused or failed checks)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.check_only and not args.results:
            from .preflight import preflight

            report = preflight(args.checkout)
            print(report)
            return 0 if report.ok else 1
        if not args.results or not args.model:
            parser.error("--results and --model are required (or --check-only alone)")
        from .submission import submit

        outcome = submit(
            args.results,
            args.model,
            checkout=args.checkout,
            revision=args.revision,
            model_dir=args.model_dir,
            out=args.out,
            create_pr=args.create_pr,
            message=args.message,
            check_only=args.check_only,
        )
    except UnregisteredModelError as err:
        print(f"refused: {err}", file=sys.stderr)
        return 1
    except PreflightError as err:
        print(
            f"refused: the results repository's CI would fail; nothing was committed.\n{err}",
            file=sys.stderr,
        )
        return 1
    except LeaderboardSubmitError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return _report(outcome)


def _report(outcome: SubmitOutcome) -> int:
    for note in outcome.notes:
        print(note)
    if outcome.status == "no_changes":
        print(f"nothing to submit: {outcome.checkout} already has every score of {outcome.folder}")
        return 0
    print(outcome.before)
    if outcome.card is not None:
        print(
            f"model card: {outcome.card} (paste it at the top of the model's README.md on the hub)"
        )
    files = "\n".join(f"  {path}" for path in outcome.files)
    if outcome.status == "checked":
        print(f"check only: would commit {len(outcome.files)} file(s):\n{files}")
        return 0
    if outcome.status == "pr_created":
        print(f"pull request: {outcome.response.get('pr_url')}")
        return 0
    print(
        f"committed {len(outcome.files)} file(s) on branch {outcome.branch} of "
        f"{outcome.checkout}:\n{files}"
    )
    if outcome.after is not None:
        print(f"branch {outcome.after}")
        if not outcome.after.ok:
            return 1
    print("next:\n" + "\n".join(f"  {command}" for command in outcome.next_commands()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
