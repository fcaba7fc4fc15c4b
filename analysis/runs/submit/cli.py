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

from ...core.errors import LeaderboardSubmitError, PreflightError, UnregisteredModelError

if TYPE_CHECKING:
    from .submission import SubmitOutcome


def submit_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``static-rteb submit`` (parsed by :mod:`analysis.cli`).

    Args:
        args: The parsed arguments.
        argv: The command's own arguments (unused).

    Returns:
        The exit code: 0 done, 1 refused or failed checks, 2 usage error.
    """
    parser = args.command_parser
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
    if outcome.unchecked:
        print(
            "mteb's commit differs from what the pre-flight checked in: "
            + ", ".join(outcome.unchecked)
            + f"; check the branch with `static-rteb submit --checkout {outcome.checkout} "
            "--check-only` before pushing it",
            file=sys.stderr,
        )
        return 1
    print("next:\n" + "\n".join(f"  {command}" for command in outcome.next_commands()))
    return 0
