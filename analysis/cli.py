"""``static-rteb`` command: ``static-rteb batch ...`` and ``static-rteb run ...``.

* ``batch``: run every notebook with papermill (:mod:`analysis.batch`);
* ``run``: run models over MTEB tasks, like ``mteb run -m ... -t ...`` (:mod:`analysis.runs.cli`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

COMMANDS = {"batch": "analysis.batch", "run": "analysis.runs.cli"}


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a sub-command; returns its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"} or args[0] not in COMMANDS:
        print(__doc__.strip())
        print(f"\nusage: static-rteb {{{','.join(COMMANDS)}}} [--help | options]")
        return 0 if args and args[0] in {"-h", "--help"} else 2
    import importlib

    module = importlib.import_module(COMMANDS[args[0]])
    return int(module.main(args[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
