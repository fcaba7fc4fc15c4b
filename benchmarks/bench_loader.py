"""Loader speed: ``load_leaderboards`` vs mteb's ``ResultCache.load_results(...).to_dataframe()``.

All models, benchmarks RTEB(beta), MTEB(eng, v2), MTEB(Multilingual, v2), in one process
and one run, side by side:

1. mteb: per benchmark, ``ResultCache(path).load_results(tasks=benchmark).to_dataframe()``;
2. ours, cold: ``load_leaderboards([...])`` with an empty parquet cache (fast parse with
   orjson, proven equal to mteb's reader by tests/results/test_fastparse.py; writes the cache);
3. ours, warm: the same call again (reads the parquet cache; the folder is not scanned
   again in this process, only its folders re-stated);
4. the provenance of a table header (``ResultsFolders.provenance()``): the first call
   scans the folder, later calls in the process re-stat its folders.

The cold run starts with the process's scan memo emptied, as in a new process.

``--busy N`` starts N CPU-bound processes beside the measurement (a busy machine);
``--repeat`` alternates the three runs and reports the median of each. Every result
file is read once before timing so both sides start from the OS page cache. Writes a
markdown table to benchmarks/results/loader.md (one section per --busy setting).

    python benchmarks/bench_loader.py --results ../shared/mteb-cache --busy 0 2
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from _busy import cpu_hogs

BENCHMARKS = ["RTEB(beta)", "MTEB(eng, v2)", "MTEB(Multilingual, v2)"]
GOALS = {"cold": 3.0, "warm": 30.0}


def _measure(root: Path, repeat: int) -> dict[str, float]:
    import mteb

    from analysis.results import folder
    from analysis.results.leaderboard import load_leaderboards

    times: dict[str, list[float]] = {
        "mteb": [],
        "cold": [],
        "warm": [],
        "header_first": [],
        "header_again": [],
    }
    for _ in range(repeat):
        folder._SCANS.clear()
        for key in ("header_first", "header_again"):
            t0 = time.perf_counter()
            folder.ResultsFolders.resolve(root).provenance()
            times[key].append(time.perf_counter() - t0)
        folder._SCANS.clear()
        t0 = time.perf_counter()
        cache = mteb.ResultCache(root)
        for b in BENCHMARKS:
            cache.load_results(tasks=mteb.get_benchmark(b)).to_dataframe()
        times["mteb"].append(time.perf_counter() - t0)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            load_leaderboards(BENCHMARKS, results=root, cache_dir=tmp)
            times["cold"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            warm = load_leaderboards(BENCHMARKS, results=root, cache_dir=tmp)
            times["warm"].append(time.perf_counter() - t0)
        assert all(w.provenance["cache"] == "hit" for w in warm.values())
    return {k: statistics.median(v) for k, v in times.items()}


def _section(busy: int, t: dict[str, float], load: tuple[float, float]) -> list[str]:
    cold, warm = t["mteb"] / t["cold"], t["mteb"] / t["warm"]
    ok = {"cold": cold >= GOALS["cold"], "warm": warm >= GOALS["warm"]}
    return [
        f"**{busy} CPU-bound process(es) beside the measurement** (1-minute load average of "
        f"the machine: {load[0]:.1f} before, {load[1]:.1f} after; {os.cpu_count()} cores)",
        "",
        "| run | seconds | ratio (mteb / run) | goal |",
        "|---|---|---|---|",
        f"| mteb `load_results(...).to_dataframe()` x 3 benchmarks | {t['mteb']:.1f} | 1.0 | |",
        f"| `load_leaderboards` cold (fast parse + write parquet cache) | {t['cold']:.1f} | "
        f"{cold:.1f} | ≥ {GOALS['cold']:.0f}× {'met' if ok['cold'] else 'NOT met'} |",
        f"| `load_leaderboards` warm (parquet cache) | {t['warm']:.2f} | {warm:.0f} | "
        f"≥ {GOALS['warm']:.0f}× {'met' if ok['warm'] else 'NOT met'} |",
        f"| table header provenance, first in the process (scan) | {t['header_first']:.2f} | | |",
        f"| table header provenance, again (re-stat folders only) | {t['header_again']:.3f} | | |",
        "",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="../shared/mteb-cache", help="ResultCache folder")
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 2], help="CPU hogs beside")
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting (median)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "loader.md"))
    parser.add_argument(
        "--note", default="", help="a line about the machine's state, e.g. 'a busy shared machine'"
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import mteb

    root = Path(args.results).resolve()
    for f in root.rglob("*.json"):  # warm the page cache for both sides
        f.read_bytes()
    lines = [
        "<!-- generated by: python benchmarks/bench_loader.py --results "
        f"{args.results} --busy {' '.join(map(str, args.busy))} --repeat {args.repeat} "
        f"(mteb {mteb.__version__}, {platform.machine()}, {os.cpu_count()} cores); "
        "do not edit by hand -->",
        "",
    ]
    for busy in args.busy:
        with cpu_hogs(busy):
            before = os.getloadavg()[0]
            measured = _measure(root, args.repeat)
            lines += _section(busy, measured, (before, os.getloadavg()[0]))
        print("\n".join(lines), flush=True)
    if args.note:
        lines.append(f"Measured on {args.note}.\n")
    lines.append(
        "The cold load parses with orjson in two forked processes (files that mteb would "
        "convert or reject go through mteb's own `TaskResult.from_disk`); "
        "tests/results/test_fastparse.py proves it equal to mteb's reader on every file."
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
