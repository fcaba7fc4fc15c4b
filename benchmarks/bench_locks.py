"""Task locks: ours (``analysis.runs.locks``), before and now, beside plain ``filelock``.

Four locks on the same folder, one after the other, in one run:

* **before**: the lock of ``analysis/runs/locks.py`` at ``--before`` (d58da1b, read from
  git): an ``O_CREAT | O_EXCL`` file holding host, pid, pid start time and token as JSON,
  fsynced, a heartbeat thread per hold, stale-lock breaking;
* **now**: :func:`analysis.runs.locks.file_lock`, ``filelock.FileLock`` that writes its
  holder (host, pid) into the file once it holds it;
* **filelock.FileLock**: an ``flock`` on the file (released by the kernel when the holder
  dies; no record of who holds it);
* **filelock.SoftFileLock**: an ``O_EXCL`` marker (pid and host), no heartbeat.

Measured:

1. **uncontended**: one process takes and gives back the lock ``--rounds`` times
   (acquire/release pairs per second);
2. **contended**: ``--processes`` processes each take the lock ``--rounds-each`` times
   and, while holding it for ``--hold`` seconds, append ``start``/``end`` lines to a
   shared log; wall time from a common start (after every process has imported its
   lock) to the last one's last release, holds per second, and a check that no two
   holders overlapped (the log alternates).

Every lock polls every ``--poll`` seconds while waiting (the same for all four), so the
contended figures compare the locks, not their default poll intervals. Writes
benchmarks/results/locks.md.

    python benchmarks/bench_locks.py
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "benchmarks" / "results" / "locks.md"
KINDS = ("before", "now", "filelock.FileLock", "filelock.SoftFileLock")
BEFORE = "d58da1b"

WORKER = """
import os, sys, time
sys.path.insert(0, sys.argv[5])
kind, path, log, rounds, _, poll, go, hold, before = sys.argv[1:10]
rounds, poll, hold = int(rounds), float(poll), float(hold)
from bench_locks import _make
make = lambda: _make(kind, path, poll, before)
pid = os.getpid()
open(go + f".ready.{pid}", "w").close()
while not os.path.exists(go):  # start together, imports done
    time.sleep(0.001)
for _ in range(rounds):
    with make():
        with open(log, "a") as f:
            f.write(f"start {pid}\\n")
            f.flush()
            time.sleep(hold)
            f.write(f"end {pid}\\n")
print(time.time())
"""


@functools.cache
def _load_before(before: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("locks_before", before)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["locks_before"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _make(kind: str, path: str | Path, poll: float, before: str) -> object:
    if kind == "before":
        return _load_before(before).FileLock(path, poll=poll)
    if kind == "now":
        from analysis.runs.locks import file_lock

        return file_lock(path, poll_interval=poll)
    import filelock

    cls = filelock.SoftFileLock if kind == "filelock.SoftFileLock" else filelock.FileLock
    return cls(str(path), poll_interval=poll)


def _before(commit: str, folder: Path) -> Path:
    """The lock module at ``commit``, runnable alone: its two package imports replaced."""
    source = subprocess.run(
        ["git", "show", f"{commit}:analysis/runs/locks.py"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    source = source.replace(
        "from ..core.interrupt import signals_blocked",
        "import contextlib\nsignals_blocked = contextlib.nullcontext",
    ).replace(
        "from ..core.layout import ModelFolder", "from analysis.core.layout import ModelFolder"
    )
    path = folder / "locks_before.py"
    path.write_text(source)
    return path


def uncontended(kind: str, folder: Path, rounds: int, poll: float, before: str) -> float:
    """Acquire/release pairs per second in one process, one lock object per round."""
    path = folder / f"{kind}.uncontended.lock"
    start = time.perf_counter()
    for _ in range(rounds):
        lock = _make(kind, path, poll, before)
        lock.acquire()  # type: ignore[attr-defined]
        lock.release()  # type: ignore[attr-defined]
    return rounds / (time.perf_counter() - start)


def contended(
    kind: str, folder: Path, processes: int, rounds: int, poll: float, hold: float, before: str
) -> tuple[float, int]:
    """``(wall seconds, overlapping holds)`` of ``processes`` workers taking one lock."""
    path, log = folder / f"{kind}.contended.lock", folder / f"{kind}.log"
    go = folder / f"{kind}.go"
    log.write_text("")
    args = [kind, str(path), str(log), str(rounds), str(REPO), str(poll), str(go), str(hold)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "benchmarks")])}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, *args, before],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(processes)
    ]
    while len(list(folder.glob(f"{go.name}.ready.*"))) < processes:
        if any(w.poll() is not None for w in workers):
            raise RuntimeError(f"a {kind} worker stopped before starting")
        time.sleep(0.01)
    start = time.time()
    go.touch()
    ends = []
    for worker in workers:
        out, _ = worker.communicate(timeout=600)
        if worker.returncode != 0:
            raise RuntimeError(f"a {kind} worker failed (exit {worker.returncode})")
        ends.append(float(out.split()[-1]))
    wall = max(ends) - start
    lines = log.read_text().split()
    pairs = list(zip(lines[0::2], lines[1::2], strict=True))
    events = [tuple(pairs[i : i + 2]) for i in range(0, len(pairs), 2)]
    overlaps = sum(1 for (s, sp), (e, ep) in events if s != "start" or e != "end" or sp != ep)
    if len(events) != processes * rounds:
        raise RuntimeError(f"{kind}: {len(events)} holds logged, expected {processes * rounds}")
    return wall, overlaps


def _filesystem(folder: Path) -> str:
    try:
        out = subprocess.run(
            ["stat", "-f", "-c", "%T", str(folder)], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and write benchmarks/results/locks.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="uncontended rounds per lock")
    parser.add_argument("--processes", type=int, default=4, help="contending processes")
    parser.add_argument("--rounds-each", type=int, default=100, help="holds per process")
    parser.add_argument("--poll", type=float, default=0.005, help="poll interval (s), all locks")
    parser.add_argument("--hold", type=float, default=0.001, help="seconds each hold lasts")
    parser.add_argument("--folder", type=Path, default=None, help="lock folder (default: tmp)")
    parser.add_argument("--out", type=Path, default=OUT, help="markdown file to write")
    parser.add_argument("--before", default=BEFORE, help="commit of the lock measured as before")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    import filelock

    load_before = os.getloadavg()[0]
    rows_u, rows_c = [], []
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        folder = Path(tmp)
        fs = _filesystem(folder)
        before = str(_before(args.before, folder))
        for kind in KINDS:
            rate = uncontended(kind, folder, args.rounds, args.poll, before)
            rows_u.append((kind, rate))
            print(f"uncontended {kind}: {rate:,.0f} acquire/release per s", flush=True)
        for kind in KINDS:
            wall, overlaps = contended(
                kind, folder, args.processes, args.rounds_each, args.poll, args.hold, before
            )
            rows_c.append((kind, wall, overlaps))
            print(f"contended {kind}: {wall:.2f} s, {overlaps} overlaps", flush=True)
    ours_u = rows_u[1][1]
    ours_c = rows_c[1][1]
    holds = args.processes * args.rounds_each
    lines = [
        "# Task locks: ours before and now, and filelock",
        "",
        f"Generated by `python benchmarks/bench_locks.py` on {time.strftime('%Y-%m-%d')}: "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"filelock {filelock.__version__}, lock folder on `{fs}`, load average "
        f"{load_before:.1f} before the run (other work on the machine); poll interval "
        f"{args.poll} s for every lock. before: analysis/runs/locks.py at {args.before}; now: "
        "analysis.runs.locks.file_lock. Ratios are now / this (below 1: now is slower).",
        "",
        f"## Uncontended: one process, {args.rounds} acquire/release pairs",
        "",
        "| lock | pairs per s | now / this |",
        "|---|---:|---:|",
        *[f"| {kind} | {rate:,.0f} | {ours_u / rate:.2f} |" for kind, rate in rows_u],
        "",
        f"## Contended: {args.processes} processes × {args.rounds_each} holds of "
        f"{args.hold * 1000:g} ms each",
        "",
        "| lock | wall (s) | holds per s | overlapping holds | now / this (holds per s) |",
        "|---|---:|---:|---:|---:|",
        *[
            f"| {kind} | {wall:.2f} | {holds / wall:,.0f} | {overlaps} | {wall / ours_c:.2f} |"
            for kind, wall, overlaps in rows_c
        ],
        "",
        "A task holds its lock for seconds to hours, so milliseconds per acquire do not",
        'matter; what does: "now" and filelock.FileLock are released by the kernel when',
        'their holder dies (no stale-lock rule), "now" also names its holder for status.',
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
