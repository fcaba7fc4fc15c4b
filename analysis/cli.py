"""``static-rteb`` command: ``batch``, ``run``, ``plan``, ``status``, ``distill`` and ``submit``.

* ``batch``: run every notebook with papermill (:mod:`analysis.batch`);
* ``run``: run models over MTEB tasks, like ``mteb run -m ... -t ...``, or the jobs of a
  plan with ``--plan plan.jsonl --executor local|slurm`` (:mod:`analysis.runs.cli`);
* ``plan``: expand models x tasks into independent jobs, written to a plan file;
* ``status``: report a plan's jobs as done / running / failed / interrupted / pending;
  ``--retry-failed``;
* ``distill``: a static model2vec model from a sentence-transformers teacher
  (:mod:`analysis.runs.distill`);
* ``estimate``: a model's benchmark mean and rank, with intervals, from the tasks it has
  run, and which task to run next (:mod:`analysis.estimate_cli`);
* ``submit``: own runs -> a checked branch of a results-repository checkout
  (:mod:`analysis.runs.submit`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: sub-command -> "module" (its ``main``) or "module:function"
COMMANDS = {
    "batch": "analysis.batch",
    "run": "analysis.runs.cli",
    "plan": "analysis.runs.cli:plan_main",
    "status": "analysis.runs.cli:status_main",
    "distill": "analysis.runs.distill",
    "estimate": "analysis.estimate_cli",
    "submit": "analysis.runs.submit.cli",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a sub-command; returns its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"} or args[0] not in COMMANDS:
        print(__doc__.strip())
        print(f"\nusage: static-rteb {{{','.join(COMMANDS)}}} [--help | options]")
        return 0 if args and args[0] in {"-h", "--help"} else 2
    import importlib

    module_name, _, function = COMMANDS[args[0]].partition(":")
    module = importlib.import_module(module_name)
    return int(getattr(module, function or "main")(args[1:]) or 0)


def console() -> None:
    """The ``static-rteb`` console script: :func:`main`, then exit with its status.

    A stopped run (status 128 + signal) ends at once, without Python's slow shutdown
    (:func:`analysis.runs.interrupt.end_if_stopped`).
    """
    status = main()
    if status >= 128:
        from analysis.runs.interrupt import end_if_stopped

        end_if_stopped(status)
    sys.exit(status)


if __name__ == "__main__":
    console()
