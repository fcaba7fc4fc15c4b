"""Benchmark: how soon a mistyped benchmark or task name is refused.

The command line keeps the names of the installed mteb's tasks and benchmarks in its cache
(``analysis.core.compat``, ``<cache>/mteb-names/<version>.json``) the first time it looks
them up, and refuses a typo from that file before importing mteb. The obvious alternative is
what the first look-up does, and what a command without the file would do every time: import
mteb and ask its registry. Each command line runs ``--repeats`` times as ``python -m
analysis.cli ...`` in a fresh interpreter: *first time* with an empty cache folder each run
(mteb imported, its lists kept), *names kept* with the cache the first run left. Both must
exit 2 with the same message; the table gives medians, their ratio, and the machine's load
average before and after (a shared machine is slower).

Usage (from the repository root):

    python benchmarks/bench_refusal.py --repeats 3 --out benchmarks/results/refusal.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = (
    ("run", "-m", "x", "-t", "STSBenchmarkk"),
    ("leaderboard", "-b", "RTEB(betaa)"),
    ("leaderboard", "-b", "RTEB(betaa)", "--pin", "as-of-post"),
)


def refuse(argv: tuple[str, ...], cache: Path) -> tuple[float, str]:
    """Wall time of one refused command line, and its message (it must exit 2)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    env["STATIC_RTEB_CACHE"] = str(cache)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "analysis.cli", *argv],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - start
    if done.returncode != 2:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}, not 2:\n{done.stderr}")
    return took, done.stderr


def measure(argv: tuple[str, ...], repeats: int) -> tuple[list[float], list[float]]:
    """``repeats`` first-time runs (each in an empty cache) and as many with the names kept."""
    first, kept = [], []
    with tempfile.TemporaryDirectory() as root:
        for i in range(repeats):
            took, message = refuse(argv, Path(root, f"cold{i}"))
            first.append(took)
        for _ in range(repeats):
            took, again = refuse(argv, Path(root, "cold0"))
            if again != message:
                raise SystemExit(f"{' '.join(argv)}: the kept names refuse it in other words")
            kept.append(took)
    return first, kept


def table(repeats: int) -> str:
    """A markdown table: one row per command line, the two medians and their ratio."""
    load_before = os.getloadavg()[0]
    rows = [(argv, *measure(argv, repeats)) for argv in COMMANDS]
    load_after = os.getloadavg()[0]
    lines = [
        f"A mistyped name refused (exit 2, the same message both ways), {repeats} runs each, "
        f"{platform.machine()}, {os.cpu_count()} cores, load average {load_before:.1f} before, "
        f"{load_after:.1f} after. *First time*: an empty cache, mteb imported and its names "
        "kept; *names kept*: the cache that run left. A pinned benchmark is checked against "
        "its pin's file either way (no mteb): the last row is the control.",
        "",
        "| command line | first time, median (s) | names kept, median (s) | ratio |",
        "|---|---|---|---|",
    ]
    for argv, first, kept in rows:
        a, b = statistics.median(first), statistics.median(kept)
        lines.append(f"| `static-rteb {' '.join(argv)}` | {a:.2f} | {b:.2f} | {a / b:.0f}× |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Print the table (and write it with ``--out``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per case (default 3)")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    text = table(args.repeats)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
