"""The ``static-rteb`` command line: one argument tree, every command under it.

The tree is built in :mod:`analysis.cli.build_cli` (the commands and what each does:
``docs/commands.md``), the options several commands share in :mod:`analysis.cli.options`;
every ``--help`` imports neither mteb nor torch. The entry points: the ``static-rteb``
console script (:func:`console`) and ``python -m analysis.cli``. Inside a command, messages
name options as flags (``--pin as-of-post``, :func:`analysis.core.errors.spell`).
"""

from __future__ import annotations

import difflib
import os
import signal
import sys
from collections.abc import Sequence

from ..core.errors import spoken_as
from ..core.interrupt import signal_of
from . import build_cli
from .build_cli import command_names

DESCRIPTION = (
    "Evaluate static embedding models on MTEB and RTEB: run models and plans, estimate a "
    "model's standing, print a leaderboard, submit results, run the notebooks.\n"
    "`static-rteb COMMAND --help` describes each command."
)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` with the one tree and run its command.

    Returns:
        The command's exit status; 0 for ``--help`` alone, 2 without a command or with an
        unknown one (named, with the closest command); 128 + the signal, with one line,
        when a command is stopped before its own handling of a stop (while it imports) or
        has none (a command that only reads). A command's own ``--help`` and usage errors
        raise ``SystemExit`` (0 and 2), as argparse does.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    parser = build_cli.build_cli(DESCRIPTION)
    if not args or args[0] in {"-h", "--help"}:
        parser.print_help()
        return 0 if args else 2
    commands = command_names(parser)
    if args[0] not in commands and not args[0].startswith("-"):
        print(parser.format_usage().rstrip(), file=sys.stderr)
        print(f"static-rteb: {unknown_command(args[0], commands)}", file=sys.stderr)
        return 2
    parsed = parser.parse_args(args)
    try:
        with spoken_as("cli"):  # messages name the flags
            return int(parsed.func(parsed, args[1:]) or 0)
    except KeyboardInterrupt as err:  # before a command's own stop (its imports), or a reader's
        name = signal.Signals(signal_of(err)).name
        print(f"static-rteb {args[0]}: interrupted ({name}).", file=sys.stderr)
        return 128 + signal_of(err)


def unknown_command(typed: str, commands: Sequence[str]) -> str:
    """``unknown command 'esimate'; did you mean 'estimate'?`` (or the list of commands)."""
    close = difflib.get_close_matches(typed, commands, n=1)
    if close:
        return f"unknown command {typed!r}; did you mean {close[0]!r}?"
    return f"unknown command {typed!r}; the commands are {', '.join(commands)}."


def console() -> None:
    """The ``static-rteb`` console script: :func:`main`, then exit with its status.

    A stopped command (status 128 + signal) exits at once: Python's shutdown would spend
    seconds freeing mteb's, torch's and pandas' objects (5 to 7 s measured on a busy
    machine), after the command has stopped and said so; nothing is left to write.
    """
    status = main(sys.argv[1:])
    if status >= 128:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)
