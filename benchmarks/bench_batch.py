"""Benchmark: how long `make figures` and `make runs` take from a fresh clone's state.

Runs a batch profile (``params/<profile>.yaml``, as the make target does) from a fresh
state: an empty parquet cache of parsed results (``$STATIC_RTEB_CACHE`` in a temporary
folder) and, for the model-running notebooks, no own runs and no distilled student
(``runs_dir``, ``student_dir`` and my_model's ``model`` point into the temporary folder). Outputs go there too
(``output_dir``), so ``figures/``, ``data/runs`` and ``build/models`` are not touched. With
``--warm`` the profile runs a second time in the same state: what a rerun costs (parsed
results cached, runs finished). Each notebook's time is papermill's wall time for it.
``--jobs 1 2`` measures each number of notebooks at once (``static-rteb batch --jobs``)
from its own fresh state, in one run, and gives the wall-time ratio against the first.

``--busy N`` starts N CPU-bound processes beside the measurement: "2 busy cores" made
reproducible. The section for the profile in the output file is replaced; it records the
machine's cores, the hogs, the niceness and the load average before and after, so a
measurement on a busy machine says so.

Usage (from the repository root):

    python benchmarks/bench_batch.py --profile figures --results ../shared/mteb-cache --warm --busy 2
    python benchmarks/bench_batch.py --profile figures --results ../shared/mteb-cache --jobs 1 2
    python benchmarks/bench_batch.py --profile runs --results ../shared/mteb-cache --warm
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _busy import cpu_hogs

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from analysis.core.io import atomic_write_text
from analysis.core.paths import CACHE_ENV, repo_root
from analysis.notebook import batch
from analysis.notebook.params import declared_parameters

#: Parameters pointed into the temporary folder when a notebook declares them.
#: (``model`` is my_model's: the student it distils when missing, as ``student_dir`` elsewhere.)
FRESH = {
    "output_dir": "figures",
    "runs_dir": "runs",
    "student_dir": "models/minilm-m2v",
    "model": "models/minilm-m2v",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--profile", default="figures", help="figures, runs or full")
    parser.add_argument(
        "--results", default=None, help="results folder (as --results of the batch)"
    )
    parser.add_argument("--warm", action="store_true", help="run a second time in the same state")
    parser.add_argument("--busy", type=int, default=0, help="CPU-bound processes beside the run")
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[1], help="notebooks at once, each measured"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/batch.md"))
    return parser.parse_args(argv)


def fresh_parameters(profile: str, state: Path) -> dict[str, str]:
    """The FRESH parameters that some notebook of the profile declares, pointed into ``state``."""
    root = repo_root()
    names = batch.load_profile(profile, root).notebooks
    declared: set[str] = set()
    for source in batch.notebook_sources(root, names):
        declared |= set(declared_parameters(source))
    return {k: str(state / v) for k, v in FRESH.items() if k in declared}


def run_once(
    profile: str, results: str | None, state: Path, label: str, jobs: int = 1
) -> list[batch.NotebookRun]:
    print(f"--- {profile}, {label} (state in {state})", flush=True)
    os.environ[CACHE_ENV] = str(state / "cache")
    return batch.run_batch(
        profile,
        results=results,
        parameters=fresh_parameters(profile, state),
        build_dir=state / "notebooks" / label.replace(" ", "").replace(",", "-"),
        jobs=jobs,
    )


def section(
    profile: str,
    passes: dict[str, tuple[list[batch.NotebookRun], float]],
    loads: list[tuple[float, ...]],
    command: str,
    busy: int = 0,
) -> str:
    names = [r.name for r in next(iter(passes.values()))[0]]
    header = "| notebook | " + " | ".join(f"{label} (s)" for label in passes) + " |"
    lines = [header, "|---|" + "---|" * len(passes)]
    for i, name in enumerate(names):
        cells = []
        for runs, _ in passes.values():
            run = runs[i]
            cells.append(f"{run.seconds:.0f}" + ("" if run.ok else " (failed)"))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    notebook_total = [sum(r.seconds for r in runs) for runs, _ in passes.values()]
    lines.append(
        "| **notebook time** | " + " | ".join(f"**{t:.0f}**" for t in notebook_total) + " |"
    )
    lines.append(
        "| wall time of the batch | " + " | ".join(f"{w:.0f}" for _, w in passes.values()) + " |"
    )
    walls = [w for _, w in passes.values()]
    ratios = [
        f"{label}: {w / walls[0]:.2f}"
        for label, (_, w) in list(passes.items())[1:]
        if "fresh" in label
    ]
    if ratios and len({label.split(", ")[-1] for label in passes}) > 1:
        lines.append("")
        lines.append(f"Wall time against `{next(iter(passes))}`: " + "; ".join(ratios) + ".")
    load_text = "; ".join(f"{a:.1f} / {b:.1f} / {c:.1f}" for a, b, c in loads)
    loaded = max(load[0] for load in loads) > (os.cpu_count() or 1)
    return "\n".join(
        [
            f"## {profile}",
            "",
            f"`{command}` — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, niceness {os.nice(0)}, "
            f"{busy} CPU-bound process(es) started beside the run.",
            f"Load average (1/5/15 min) before and after each pass: {load_text}"
            + (" — **measured on a busy shared machine**." if loaded else "."),
            "",
            "fresh: empty parquet cache, no own runs, no distilled student (a fresh clone's "
            "state). warm: the same again right after (cache filled, runs finished).",
            "",
            *lines,
            "",
        ]
    )


def write_section(path: Path, profile: str, text: str) -> None:
    old = (
        path.read_text(encoding="utf-8")
        if path.is_file()
        else (
            "# Batch times: `make figures`, `make runs`\n\nWritten by `benchmarks/bench_batch.py`; one "
            "section per profile, replaced when that profile is measured again.\n\n"
        )
    )
    pattern = re.compile(rf"^## {re.escape(profile)}\n.*?(?=^## |\Z)", re.S | re.M)
    new = (
        pattern.sub(lambda _: text + "\n", old)
        if pattern.search(old)
        else old.rstrip() + "\n\n" + text
    )
    atomic_write_text(path, new.rstrip() + "\n")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    root = repo_root()
    (root / "build").mkdir(exist_ok=True)
    states: list[Path] = []
    passes: dict[str, tuple[list[batch.NotebookRun], float]] = {}
    loads = []
    try:
        with cpu_hogs(args.busy):
            for jobs in args.jobs:  # each from its own fresh state
                state = Path(tempfile.mkdtemp(prefix="bench-batch-", dir=root / "build"))
                states.append(state)
                for kind in ["fresh", "warm"] if args.warm else ["fresh"]:
                    label = kind if args.jobs == [1] else f"{kind}, jobs {jobs}"
                    before = os.getloadavg()
                    start = time.perf_counter()
                    runs = run_once(args.profile, args.results, state, label, jobs)
                    passes[label] = (runs, time.perf_counter() - start)
                    loads += [before, os.getloadavg()]
        command = "python " + shlex.join(
            ["benchmarks/bench_batch.py", *(argv if argv is not None else sys.argv[1:])]
        )
        write_section(
            args.out, args.profile, section(args.profile, passes, loads, command, args.busy)
        )
        print(f"wrote {args.out}")
    finally:
        if not args.keep:
            for state in states:
                shutil.rmtree(state, ignore_errors=True)
    failed = [r.name for runs, _ in passes.values() for r in runs if not r.ok]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
