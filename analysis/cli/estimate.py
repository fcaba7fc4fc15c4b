r"""``static-rteb estimate``: where a model stands on a benchmark after a few of its tasks.

Example::

    static-rteb estimate --results ../shared/mteb-cache data/runs \
        --model local/minilm-m2v -b "MTEB(eng, v2)"

This module prints what :func:`analysis.notebook.estimate.estimate` decides (shared with
the notebooks and the benchmarks): the predicted mean with its interval and rank
interval, and the tasks that would narrow it most; for RTEB the public and the private
mean. The method: ``docs/statistics.md``, "Where a model stands after a few tasks".
Exit status: 0 on success, 2 on a usage error (unknown model or benchmark, no task of
the benchmark, too few reference models).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analysis.notebook.estimate import Estimate
    from analysis.results.leaderboard import Leaderboard


def report(
    board: Leaderboard, model: str, estimates: list[Estimate], notes: Sequence[str] = ()
) -> str:
    """The text ``static-rteb estimate`` prints (``notes``: what loading the results said)."""
    from analysis.notebook.estimate import observed_scores

    observed = observed_scores(board, model)
    sources = board.scores.loc[board.scores["model"] == model, "source"].dropna().unique()
    lines = [
        f"{model} on {board.name} ({board.provenance.get('task_list', '')}): "
        f"{len(observed)} of {len(board.spec.tasks)} tasks: {', '.join(observed.index)}",
        f"  scores from {' + '.join(map(str, sources))}; leaderboard: "
        f"{board.provenance.get('results', '')}",
    ]
    lines += [f"  note: {n}" for n in notes]
    for est in estimates:
        p = est.prediction
        label = {"all": "mean", "public": "public mean", "private": "private mean"}[est.scope]
        level = f"{p.confidence_level:.0%}"
        low, high = p.confidence_interval
        interval = (  # every task of the mean measured: the mean itself, no interval
            "measured, no interval"
            if p.known_share == 1 and low == high
            else f"{level} interval {100 * low:.2f} to {100 * high:.2f}"
        )
        lines += [
            "",
            f"{board.name} {label}: {100 * p.mean:.2f} ({interval}); "
            f"rank {p.rank} ({p.rank_low} to {p.rank_high}) among "
            f"{p.n_reference} leaderboard models complete on these tasks",
            f"  from the model's {len(p.tasks)} task(s); "
            + (
                "every task of the mean measured"
                if p.known_share == 1
                else f"{100 * p.known_share:.0f}% of the mean measured, the rest predicted"
            ),
            f"  method: {p.method}",
        ]
        lines += [f"  note: {n}" for n in est.notes]
        if len(est.next_tasks):
            lines.append(
                f"  run next (typical {level} half-width with the task added; now "
                f"{100 * est.now_half_width:.2f} points):"
            )
            lines += [
                f"    {i}. {row.task}: {100 * row.half_width:.2f}"
                for i, row in enumerate(est.next_tasks.itertuples(), 1)
            ]
    return "\n".join(lines)


def estimate_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``static-rteb estimate``, parsed by :mod:`analysis.cli`; returns the exit status."""
    from analysis.core.errors import AnalysisError, AnalysisWarning
    from analysis.notebook.estimate import estimate
    from analysis.results.leaderboard import load_leaderboard

    results: Any = list(args.results) if args.results else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AnalysisWarning)
        try:
            board = load_leaderboard(
                args.benchmark,
                results=results,
                pin=args.pin,
                exclude_tasks=args.exclude_tasks,
                cache_dir=args.cache_dir,
                on_conflict=args.on_conflict,
            )
            estimates = estimate(
                board,
                args.model,
                target=args.target,
                level=args.confidence_level,
                n_next=args.next,
                released=args.released,
            )
        except (AnalysisError, ValueError) as exc:
            notes = "".join(f"\n  note: {n}" for n in _notes(caught))
            print(f"static-rteb estimate: error: {exc}{notes}", file=sys.stderr)
            return 2
    print(report(board, args.model, estimates, _notes(caught)))
    return 0


def _notes(caught: list[warnings.WarningMessage]) -> list[str]:
    """The package's warnings as notes; any other warning is shown as Python shows it."""
    from analysis.core.errors import AnalysisWarning

    notes = []
    for w in caught:
        if issubclass(w.category, AnalysisWarning):
            notes.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return list(dict.fromkeys(notes))
