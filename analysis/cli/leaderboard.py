r"""``static-rteb leaderboard``: a benchmark's table with mteb's columns and rank intervals.

Example::

    static-rteb leaderboard -b "RTEB(beta)" --pin as-of-post --results ../shared/mteb-cache \
        --min-zero-shot 100 --top 20

The columns are :func:`analysis.results.columns.leaderboard_columns`'s (mteb's table, scores ×100),
then each complete model's 95% simultaneous rank interval (:func:`analysis.stats.rank_intervals`)
among the complete models shown (``docs/leaderboard.md``), headed by their provenance (for a CSV
file, beside it as CSV on the Web metadata). Exit status 0, or 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote

#: Columns of mteb's 0-1 scale that are shown ×100.
SCALED = ("Mean (Task)", "Mean (TaskType)", "Mean (Public)", "Mean (Private)")


#: What a table's provenance records: the options, then of the results read.
RECORDED = "benchmark pin exclude_tasks public_only min_zero_shot keep_unknown top".split()
RECORDED += ["confidence_level", "n_resamples", "seed", "on_conflict"]
READ = "task_list n_tasks results results_fingerprint result_files results_commit".split()


def leaderboard_frame(args: argparse.Namespace) -> tuple[Any, str, dict[str, Any]]:
    """The table the command prints, a one-line caption (what was ranked, how), its provenance."""
    import pandas as pd

    from analysis.results.columns import leaderboard_columns
    from analysis.results.leaderboard import load_leaderboard
    from analysis.results.specs import resolve_spec
    from analysis.stats import rank_intervals

    exclude = list(args.exclude_tasks or [])
    full = resolve_spec(args.benchmark, pin=args.pin, exclude_tasks=exclude or None)
    if args.public_only:  # as mteb's website ranks RTEB
        exclude += full.scope_tasks("private")
    board = load_leaderboard(
        args.benchmark,
        results=list(args.results) if args.results else None,
        pin=args.pin,
        exclude_tasks=exclude or None,
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
    source = full.source  # what was asked: the private tasks left out are no hand exclusion
    if args.public_only:
        source += f"; public tasks only ({len(board.spec.task_names)})"
    caption = f"{board.name} ({source}): {len(table)} models, {len(complete)} complete"
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
    elif complete:  # one model: its rank is 1 of 1, said rather than left out
        for column in ("Rank (Mean)", "Rank low", "Rank high"):
            table[column] = pd.array([1 if m in complete else pd.NA for m in table.index], "Int64")
        caption += "; rank by Mean (Task): the one complete model is 1 of 1"
    if args.top:
        table = table.head(args.top)
    recorded = {k: getattr(args, k) for k in RECORDED}
    recorded |= {k: board.provenance[k] for k in READ if k in board.provenance}
    return table.drop(columns="complete").reset_index(), caption, recorded


def csv_metadata(table: Any, csv_name: str, caption: str, provenance: dict[str, Any]) -> str:
    """CSV on the Web (W3C) metadata: caption, columns, provenance (notes: label/value pairs)."""
    kinds = {"i": "integer", "u": "integer", "f": "number", "b": "boolean"}
    columns = [{"name": f"c{i}", "titles": str(c)} for i, c in enumerate(table.columns)]
    for column, c in zip(columns, table.columns, strict=True):
        column["datatype"] = kinds.get(table[c].dtype.kind, "string")
    run = {"@type": "prov:Activity", "rdfs:label": provenance["command"]}
    meta: dict[str, Any] = {"@context": "http://www.w3.org/ns/csvw", "url": quote(csv_name)}
    meta |= {"dc:title": caption, "dc:creator": provenance["version"], "prov:wasGeneratedBy": run}
    meta["notes"] = [{"rdfs:label": k, "rdf:value": v} for k, v in provenance.items()]
    return json.dumps(meta | {"tableSchema": {"columns": columns}}, indent=2, default=str) + "\n"


def leaderboard_command(args: argparse.Namespace, argv: list[str]) -> int:
    """``static-rteb leaderboard``, parsed by :mod:`analysis.cli`; returns the exit status."""
    from analysis.core.errors import AnalysisError, AnalysisWarning
    from analysis.results.specs import check_benchmark

    if args.keep_unknown and args.min_zero_shot is None:
        args.command_parser.error(
            "--keep-unknown keeps models through --min-zero-shot PCT: give both"
        )
    try:  # a typo refused before pandas, scipy and mteb are imported
        check_benchmark(args.benchmark, pin=args.pin)
    except AnalysisError as exc:
        print(f"static-rteb leaderboard: error: {exc}", file=sys.stderr)
        return 2
    from analysis.cli.build_cli import versions
    from analysis.core.io import atomic_write_text, generated_line, markdown_table
    from analysis.results.columns import shown_parameters

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AnalysisWarning)
        try:
            table, caption, recorded = leaderboard_frame(args)
        except (AnalysisError, ValueError) as exc:
            print(f"static-rteb leaderboard: error: {exc}", file=sys.stderr)
            return 2
    notes = [str(w.message) for w in caught if issubclass(w.category, AnalysisWarning)]
    if (
        args.min_zero_shot is not None
    ):  # the notes count the benchmark's models, the caption the kept
        notes = [f"(every model, before the zero-shot filter) {note}" for note in notes]
    command = shlex.join(["static-rteb", "leaderboard", *argv])
    provenance = {"command": command, **recorded, "version": versions()}
    if args.format == "csv":
        text = table.to_csv(index=False, float_format="%.4g")
    else:
        head = generated_line("static-rteb leaderboard", provenance)
        shown = markdown_table(shown_parameters(table), floatfmt=".2f")
        text = f"{head}\n{caption}\n\n{shown}\n"
    if args.output:  # a CSV's caption and provenance beside it (CSVW metadata), once it is
        wrote, sidecar = [args.output], Path(f"{args.output}-metadata.json")
        sidecar.unlink(missing_ok=True)  # never left describing another file
        atomic_write_text(args.output, text)
        if args.format == "csv":
            meta = csv_metadata(table, os.path.basename(args.output), caption, provenance)
            wrote.append(atomic_write_text(sidecar, meta))
        print(f"Wrote {' and '.join(map(str, wrote))} ({len(table)} models)")
    else:
        sys.stdout.write(text)
        if args.format == "csv":  # the table alone on stdout; what it is, on stderr
            print(f"note: {caption}", file=sys.stderr)
    for note in dict.fromkeys(notes):
        print(f"note: {note}", file=sys.stderr)
    return 0
