"""Loader speed: ``load_leaderboards`` vs mteb's own loading and its own cache, cold and warm.

All models, benchmarks RTEB(beta), MTEB(eng, v2), MTEB(Multilingual, v2), side by side:

1. mteb: per benchmark, ``ResultCache(path).load_results(tasks=benchmark).to_dataframe()``;
2. the same with ``tools/mteb_patches.py``'s loader patch applied to a copy of mteb (the
   frames must be identical to 1's);
3. mteb's own cache, cold: ``load_results(tasks=[the three], only_main_score=True)`` once,
   a long per-subset frame per benchmark (``select_tasks(...).to_dataframe(...)``), saved
   with ``BenchmarkResults.save_leaderboard_cache`` (the parquet file mteb's leaderboard
   app keeps); warm: ``BenchmarkResults.load_leaderboard_cache`` of it;
4. ours, cold: ``load_leaderboards([...])`` with an empty parquet cache (fast parse with
   orjson, proven equal to mteb's reader by tests/results/test_fastparse.py; writes the cache);
5. ours, warm: the same call again (reads the parquet cache; the folder is not scanned
   again in this process, only its folders re-stated);
6. 4 and 5 with the package as it was at ``--before`` (``git archive`` of its ``analysis/``);
7. the provenance of a table header (``ResultsFolders.provenance()``): the first call
   scans the folder, later calls in the process re-stat its folders.

1-6 each run in a fresh process, timed after importing mteb and the package.

``--busy N`` starts N CPU-bound processes beside the measurement (a busy machine);
``--repeat`` alternates the runs and reports the median of each, and the median of the
paired ratios now / ``--before`` (each pair run back to back: "no slower" is a ratio
<= 1); ``--mteb-repeat`` runs mteb's settings (1-3, minutes each) fewer times. Every result
file is read once before timing so every run starts from the OS page cache. Writes a
markdown table to benchmarks/results/loader.md (one section per --busy setting).

    python benchmarks/bench_loader.py --results ../shared/mteb-cache --busy 0 --before d58da1b
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _busy import busy_arguments, cpu_hogs

BENCHMARKS = ["RTEB(beta)", "MTEB(eng, v2)", "MTEB(Multilingual, v2)"]
GOALS = {"cold": 3.0, "warm": 30.0}


#: mteb's reference run, in a fresh process: seconds after the import, and a digest of the frames.
MTEB_RUN = """
import hashlib, logging, sys, time, warnings
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
import mteb
t0 = time.perf_counter()
cache = mteb.ResultCache(sys.argv[1])
frames = [cache.load_results(tasks=mteb.get_benchmark(b)).to_dataframe() for b in sys.argv[2:]]
seconds = time.perf_counter() - t0
print(seconds, hashlib.sha256("".join(f.to_csv() for f in frames).encode()).hexdigest())
"""
#: mteb's own cache, in a fresh process: cold (load, frames, parquet) and warm seconds.
MTEB_CACHE_RUN = """
import logging, sys, time, warnings
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
import mteb
import polars as pl
t0 = time.perf_counter()
benchmarks = [mteb.get_benchmark(b) for b in sys.argv[3:]]
results = mteb.ResultCache(sys.argv[1]).load_results(tasks=benchmarks, only_main_score=True)
frames = {
    b.name: pl.from_pandas(
        results.select_tasks(b.tasks).to_dataframe(aggregation_level="subset", format="long")
    )
    for b in benchmarks
}
mteb.BenchmarkResults.save_leaderboard_cache(frames, sys.argv[2])
cold = time.perf_counter() - t0
t0 = time.perf_counter()
loaded = mteb.BenchmarkResults.load_leaderboard_cache(sys.argv[2])
assert all(name in loaded for name in frames)
print(cold, time.perf_counter() - t0)
"""
#: ours (the package found first on the path), in a fresh process: cold and warm seconds.
OURS_RUN = """
import logging, sys, time, warnings
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
import mteb
import analysis
from analysis.results.leaderboard import load_leaderboards
t0 = time.perf_counter()
load_leaderboards(sys.argv[3:], results=sys.argv[1], cache_dir=sys.argv[2])
cold = time.perf_counter() - t0
t0 = time.perf_counter()
warm = load_leaderboards(sys.argv[3:], results=sys.argv[1], cache_dir=sys.argv[2])
seconds = time.perf_counter() - t0
assert all(w.provenance["cache"] == "hit" for w in warm.values())
print(analysis.__file__, cold, seconds)
"""
REPO = Path(__file__).resolve().parents[1]


def _package_at(ref: str, folder: Path) -> Path:
    """``analysis/`` as it was at ``ref``, unpacked into ``folder``; the folder."""
    folder.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref, "analysis"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def _patched_mteb(folder: Path) -> Path:
    """A copy of the installed mteb with tools/mteb_patches.py's loader patch; its parent."""
    path = Path(__file__).resolve().parents[1] / "tools" / "mteb_patches.py"
    spec = importlib.util.spec_from_file_location("mteb_patches", path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    shutil.copytree(tool.mteb_folder(), folder / "mteb", ignore=shutil.ignore_patterns("*.pyc"))
    for rel, (_, text) in tool.patched_files("loader-speed").items():
        (folder / "mteb" / rel).write_text(text, encoding="utf-8")
    return folder


def _fresh(script: str, args: list[str], first: Path | None = None) -> list[str]:
    """Run ``script`` in a new Python process (``first`` first on its path); its last line's words."""
    env = dict(os.environ)
    path = [str(first)] if first is not None else []
    env["PYTHONPATH"] = os.pathsep.join([*path, str(REPO), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-P", "-c", script, *args],  # -P: not the working folder's package
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1].split()


def _measure(
    root: Path, repeat: int, patched: Path, old: Path, mteb_repeat: int
) -> tuple[dict[str, float], bool, dict[str, list[float]]]:
    from analysis.results import folder

    names = ["mteb", "mteb_patched", "mteb_cache_cold", "mteb_cache_warm", "cold", "warm"]
    names += ["before_cold", "before_warm"]
    times: dict[str, list[float]] = {k: [] for k in [*names, "header_first", "header_again"]}
    same = True
    for round_ in range(repeat):
        folder._SCANS.clear()
        for key in ("header_first", "header_again"):
            t0 = time.perf_counter()
            folder.ResultsFolders.resolve(root).provenance()
            times[key].append(time.perf_counter() - t0)
        folder._SCANS.clear()
        if round_ < mteb_repeat:
            same = _measure_mteb(root, patched, times) and same
        for key, first in (("", None), ("before_", old)):
            with tempfile.TemporaryDirectory() as tmp:
                package, cold, warm = _fresh(OURS_RUN, [str(root), tmp, *BENCHMARKS], first)
                assert Path(package).is_relative_to(first or REPO), package
                times[f"{key}cold"].append(float(cold))
                times[f"{key}warm"].append(float(warm))
    paired = {
        k: [a / b for a, b in zip(times[k], times[f"before_{k}"], strict=True)]
        for k in ("cold", "warm")
    }
    return {k: statistics.median(v) for k, v in times.items()}, same, paired


def _measure_mteb(root: Path, patched: Path, times: dict[str, list[float]]) -> bool:
    """mteb's loading, patched and with its own cache, once; whether the patch's frames agree."""
    seconds, digest = _fresh(MTEB_RUN, [str(root), *BENCHMARKS])
    times["mteb"].append(float(seconds))
    seconds, patched_digest = _fresh(MTEB_RUN, [str(root), *BENCHMARKS], patched)
    times["mteb_patched"].append(float(seconds))
    with tempfile.TemporaryDirectory() as tmp:
        cold, warm = _fresh(MTEB_CACHE_RUN, [str(root), f"{tmp}/lb.parquet", *BENCHMARKS])
        times["mteb_cache_cold"].append(float(cold))
        times["mteb_cache_warm"].append(float(warm))
    return patched_digest == digest


def _section(
    busy: int,
    t: dict[str, float],
    load: tuple[float, float],
    same: bool,
    before: str,
    paired: dict[str, list[float]],
) -> list[str]:
    cold, warm = t["mteb"] / t["cold"], t["mteb"] / t["warm"]
    ok = {"cold": cold >= GOALS["cold"], "warm": warm >= GOALS["warm"]}

    def row(what: str, key: str, goal: str = "") -> str:
        return f"| {what} | {t[key]:.2f} | {t['mteb'] / t[key]:.1f} | {goal} |"

    return [
        f"**{busy} CPU-bound process(es) beside the measurement** (1-minute load average of "
        f"the machine: {load[0]:.1f} before, {load[1]:.1f} after; {os.cpu_count()} cores)",
        "",
        "| run | seconds | ratio (mteb / run) | goal |",
        "|---|---|---|---|",
        row("mteb `load_results(...).to_dataframe()` x 3 benchmarks", "mteb"),
        row(
            "the same, mteb with the loader patch (docs/mteb-patches/loader-speed.diff; frames "
            f"{'identical' if same else '**DIFFERENT**'})",
            "mteb_patched",
        ),
        row("mteb's own cache, cold (load once, frames, `save_leaderboard_cache`)", "mteb_cache_cold"),
        row("mteb's own cache, warm (`load_leaderboard_cache`)", "mteb_cache_warm"),
        row(
            "`load_leaderboards` cold (fast parse + write parquet cache)", "cold",
            f"≥ {GOALS['cold']:.0f}× {'met' if ok['cold'] else 'NOT met'}",
        ),
        row(
            "`load_leaderboards` warm (parquet cache)", "warm",
            f"≥ {GOALS['warm']:.0f}× {'met' if ok['warm'] else 'NOT met'}",
        ),
        row(f"`load_leaderboards` cold, the package at {before}", "before_cold"),
        row(f"`load_leaderboards` warm, the package at {before}", "before_warm"),
        *(
            f"| `load_leaderboards` {k}: now / at {before}, median of {len(r)} paired runs "
            f"(range {min(r):.2f}–{max(r):.2f}) | {statistics.median(r):.2f} | | ≤ 1 "
            f"{'met' if statistics.median(r) <= 1 else 'NOT met'} |"
            for k, r in paired.items()
        ),
        f"| table header provenance, first in the process (scan) | {t['header_first']:.2f} | | |",
        f"| table header provenance, again (re-stat folders only) | {t['header_again']:.3f} | | |",
        "",
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="../shared/mteb-cache", help="ResultCache folder")
    busy_arguments(parser)
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting (median)")
    parser.add_argument(
        "--mteb-repeat", type=int, default=None, help="runs of mteb's settings (default: --repeat)"
    )
    parser.add_argument("--before", default="d58da1b", help="the commit to compare ours with")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "loader.md"))
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
        f"{f'--mteb-repeat {args.mteb_repeat} ' if args.mteb_repeat else ''}"
        f"--before {args.before} "
        f"(mteb {mteb.__version__}, {platform.machine()}, {os.cpu_count()} cores); "
        "do not edit by hand -->",
        "",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        patched = _patched_mteb(Path(tmp) / "patched")
        old = _package_at(args.before, Path(tmp) / "before")
        for busy in args.busy:
            with cpu_hogs(busy):
                load = os.getloadavg()[0]
                mteb_repeat = min(args.repeat, args.mteb_repeat or args.repeat)
                measured, same, paired = _measure(root, args.repeat, patched, old, mteb_repeat)
                after = os.getloadavg()[0]
                lines += _section(busy, measured, (load, after), same, args.before, paired)
            print("\n".join(lines), flush=True)
    if args.note:
        lines.append(f"Measured on {args.note}.\n")
    lines.append(
        "The cold load parses with orjson in two forked processes (files that mteb would "
        "convert or reject go through mteb's own `TaskResult.from_disk`); "
        "tests/results/test_fastparse.py proves it equal to mteb's reader on every file. "
        "mteb's own cache holds per-subset scores without the leaderboard's per-task rows, "
        "missing-task reasons or source folders, and is not invalidated when the results "
        "change (its app rebuilds it on request); ours is keyed on the folders' fingerprints. "
        f"The rows 'the package at {args.before}' run the same calls with the package as it "
        "was at that commit, before issue 42 moved mteb's rules into compat and slimmed the "
        "reader; every run of mteb's and ours is a fresh process, timed after its imports."
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
