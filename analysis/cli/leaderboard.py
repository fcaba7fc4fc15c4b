r"""``static-rteb leaderboard``: a benchmark's table with mteb's columns and rank intervals.

Example::

    static-rteb leaderboard -b "RTEB(beta)" --pin as-of-post --results ../shared/mteb-cache \
        --min-zero-shot 100 --top 20

The columns are :func:`analysis.results.columns.leaderboard_columns`'s (mteb's table,
scores ×100), then each complete model's 95% simultaneous rank interval
(:func:`analysis.stats.rank_intervals`) among the complete models shown
(``docs/leaderboard.md``). Exit status 0, or 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

#: Columns of mteb's 0-1 scale that are shown ×100.
SCALED = ("Mean (Task)", "Mean (TaskType)", "Mean (Public)", "Mean (Private)")


def leaderboard_frame(args: argparse.Namespace) -> tuple[Any, str]:
    """The table the command prints and a one-line caption (what was ranked, how)."""
    from analysis.results.columns import leaderboard_columns
    from analysis.results.leaderboard import load_leaderboard
    from analysis.stats import rank_intervals

    board = load_leaderboard(
        args.benchmark,
        results=list(args.results) if args.results else None,
        pin=args.pin,
        exclude_tasks=args.exclude_tasks,
        cache_dir=args.cache_dir,
        on_conflict=args.on_conflict,
    )
    table = leaderboard_columns(
        board, min_zero_shot=args.min_zero_shot, keep_unknown=args.keep_unknown
    )
    kinds = [c for c in table.columns if c in {t.type for t in board.spec.tasks}]
    for column in (*SCALED, *kinds):
        if column in table:
            table[column] = table[column] * 100
    complete = [m for m in table.index if table.loc[m, "complete"]]
    caption = f"{board.name} ({board.spec.source}): {len(table)} models, {len(complete)} complete"
    if args.min_zero_shot is not None:  # the filter the table is of
        unknown = "kept" if args.keep_unknown else "left out"
        caption += f" with zero-shot >= {args.min_zero_shot:g}% (unknown training data {unknown})"
    if len(complete) >= 2:
        ranks = rank_intervals(
            board.wide()[complete],
            n_resamples=args.n_resamples,
            confidence_level=args.confidence_level,
            rng=args.seed,
        )
        got = ranks.table
        table["Rank (Mean)"] = got["rank"].reindex(table.index).astype("Int64")
        table["Rank low"] = got["rank_low"].reindex(table.index).astype("Int64")
        table["Rank high"] = got["rank_high"].reindex(table.index).astype("Int64")
        caption += (
            f"; rank by Mean (Task) among them with {ranks.confidence_level:.0%} "
            f"{'simultaneous ' if ranks.simultaneous else ''}rank intervals "
            f"({ranks.n_tasks} tasks, {ranks.method.split(';')[0]})"
        )
    if args.top:
        table = table.head(args.top)
    return table.drop(columns="complete").reset_index(), caption


def leaderboard_command(args: argparse.Namespace, argv: list[str]) -> int:
    """``static-rteb leaderboard``, parsed by :mod:`analysis.cli`; returns the exit status."""
    from analysis.core.errors import AnalysisError, AnalysisWarning
    from analysis.core.io import atomic_write_text, markdown_table

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AnalysisWarning)
        try:
            table, caption = leaderboard_frame(args)
        except (AnalysisError, ValueError) as exc:
            print(f"static-rteb leaderboard: error: {exc}", file=sys.stderr)
            return 2
    notes = [str(w.message) for w in caught if issubclass(w.category, AnalysisWarning)]
    if args.format == "csv":
        text = table.to_csv(index=False, float_format="%.4g")
    else:
        text = f"{caption}\n\n{markdown_table(table, floatfmt='.2f')}\n"
    if args.output:
        atomic_write_text(args.output, text)
        print(f"Wrote {args.output} ({len(table)} models)")
    else:
        sys.stdout.write(text)
    for note in dict.fromkeys(notes):
        print(f"note: {note}", file=sys.stderr)
    return 0
