"""Lite task lists with measured held-out error: writes analysis/results/lite_tasks.json.

For MTEB(eng, v2) at k = 4, 8 and 12 (free, and with every task type covered) and for
RTEB(beta)'s public tasks at k = 4 and 8 (target: the public mean), each list is chosen
by :func:`analysis.stats.select_tasks` (greedy forward selection on the width of the 95%
interval) on every complete model of the results snapshot, and measured on models the
selection never saw: ``cross_fit_selection`` (``benchmarks/_sim/held_out.py``) reselects
without each model (or group of identical twins), calibrates the interval on those models only, and
predicts the held-out model. Static models (``analysis.results.groups.model_groups``)
are reported separately. Beside leave-one-out, ``ten_fold`` gives coverage and median
half-width over random 10-fold splits (tasks selected on nine tenths of the models): the
width-greedy selection changes with the models it sees, and so do its numbers. Numbers in
the file are points (0-100).

Usage (from the repository root; about 40 minutes on 2 busy cores)::

    python tools/lite_tasks.py --results ../shared/mteb-cache
    python tools/lite_tasks.py --results ../shared/mteb-cache --folds 10 --out /tmp/lite.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PIN = "as-of-post"
#: Random 10-fold splits measured beside leave-one-out (``ten_fold`` in the file).
REPEATS = 5
#: (benchmark, target, k, types covered)
LISTS: tuple[tuple[str, str, int, bool], ...] = (
    *(("MTEB(eng, v2)", "all", k, typed) for k in (4, 8, 12) for typed in (False, True)),
    ("RTEB(beta)", "public", 4, False),
    ("RTEB(beta)", "public", 8, False),
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="../shared/mteb-cache", help="results folder")
    parser.add_argument("--pin", default=PIN, help="task-list pin (default: as-of-post)")
    parser.add_argument(
        "--folds", type=int, default=None, help="cross-fitting folds (default: leave one out)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "analysis/results/lite_tasks.json")
    return parser.parse_args(argv)


def measure(
    wide: Any, k: int, types: dict[str, str] | None, static: set[str], folds: int | None
) -> dict[str, Any]:
    from analysis.core.errors import ExtrapolationWarning

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from _sim.held_out import cross_fit_selection  # the validation helpers (benchmarks/_sim)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        held = cross_fit_selection(wide, k, n_folds=folds, rng=0, task_types=types).to_frame()
        repeats = [
            cross_fit_selection(wide, k, n_folds=10, rng=seed, task_types=types).to_frame()
            for seed in range(REPEATS)
        ]
    is_static = held["model"].isin(static)
    return {
        "scheme": "leave one model out" if folds is None else f"{folds}-fold cross-fitting",
        "n_models": len(held),
        "coverage": round(float(held["covered"].mean()), 4),
        "coverage_static": round(float(held.loc[is_static, "covered"].mean()), 4),
        "n_static": int(is_static.sum()),
        "median_half_width": round(100 * float(held["half_width"].median()), 3),
        "median_abs_error": round(100 * float(held["error"].abs().median()), 3),
        "q95_abs_error": round(100 * float(held["error"].abs().quantile(0.95)), 3),
        "outside": sorted(held.loc[~held["covered"], "model"]),
        "ten_fold": {  # selected on nine tenths of the models: how much the numbers move
            "splits": REPEATS,
            "coverage": [round(float(r["covered"].mean()), 4) for r in repeats],
            "median_half_width": [round(100 * float(r["half_width"].median()), 3) for r in repeats],
        },
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from analysis.core.io import atomic_write_text
    from analysis.core.paths import display_path
    from analysis.results.groups import model_groups
    from analysis.results.leaderboard import load_leaderboard
    from analysis.stats import select_tasks

    started = time.time()
    entries, provenance = [], {}
    for benchmark in dict.fromkeys(b for b, *_ in LISTS):
        board = load_leaderboard(benchmark, results=args.results, pin=args.pin)
        provenance[benchmark] = {
            key: board.provenance.get(key)
            for key in ("task_list", "n_tasks", "results_fingerprint", "mteb_version")
        }
        types = {t.task: t.type for t in board.spec.tasks}
        public = board.spec.scope_tasks("public")
        for _, target, k, typed in (x for x in LISTS if x[0] == benchmark):
            wide = board.wide(is_public=True if target == "public" else None)
            groups = model_groups(list(wide.columns))
            static = set(groups.loc[groups["family"] == "static", "model"])
            task_types = types if typed else None
            options: dict[str, Any] = {"method": "forward", "criterion": "width"}
            if target == "public":
                wide = wide.loc[public]
            sel = select_tasks(wide, k, task_types=task_types, **options)
            entries.append(
                {
                    "benchmark": benchmark,
                    "target": target,
                    "k": k,
                    "types_covered": typed,
                    "tasks": list(sel.tasks),
                    "task_types": {t: types[t] for t in sel.tasks},
                    "options": {**options, "task_types": "benchmark task types" if typed else None},
                    "n_models": len(sel.models),
                    "measured": {
                        "nested_half_width": round(100 * sel.half_width, 3),
                        **measure(wide, k, task_types, static, args.folds),
                    },
                }
            )
            print(f"{benchmark} {target} k={k} types={typed}: {entries[-1]['measured']}")
    document = {
        "generated_by": "python tools/lite_tasks.py "
        + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)),
        "generated_at": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "results": display_path(args.results),
        "pin": args.pin,
        "confidence_level": 0.95,
        "units": "points (0-100) for half-widths and errors; coverage as a share",
        "provenance": provenance,
        "lists": entries,
    }
    atomic_write_text(args.out, json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.out} in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
