"""Benchmark: how long each ``static-rteb ... --help`` takes, in a fresh interpreter.

Every command's ``--help`` is built from ``analysis/cli/`` alone (no mteb, no torch, no
pandas), so it should answer well under a second. Each command line runs ``--repeats``
times as ``python -m analysis.cli <command> --help``, in the order of the commands,
round after round; the table gives the median and the slowest wall time, with the
machine's load average before and after (a shared machine is slower).

Usage (from the repository root):

    python benchmarks/bench_cli_help.py --repeats 5
    python benchmarks/bench_cli_help.py --repeats 5 --out benchmarks/results/cli_help.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = ("", "batch", "run", "plan", "status", "distill", "estimate", "submit")


def time_help(command: str, repeats: int) -> list[float]:
    """Wall times of ``python -m analysis.cli [command] --help``, one per repeat."""
    argv = [sys.executable, "-m", "analysis.cli", *([command] if command else []), "--help"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, cwd=REPO, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return times


def table(repeats: int) -> str:
    """A markdown table: one row per command, median and slowest seconds."""
    load_before = os.getloadavg()[0]
    rows = [(c, time_help(c, repeats)) for c in COMMANDS]
    load_after = os.getloadavg()[0]
    lines = [
        f"`static-rteb ... --help`, {repeats} runs each, {os.cpu_count()} cores, load average "
        f"{load_before:.1f} before, {load_after:.1f} after.",
        "",
        "| command | median (s) | slowest (s) |",
        "|---|---|---|",
    ]
    lines += [
        f"| `static-rteb {c + ' ' if c else ''}--help` | {statistics.median(t):.2f} | "
        f"{max(t):.2f} |"
        for c, t in rows
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Print the table (and write it with ``--out``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    text = table(args.repeats)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
