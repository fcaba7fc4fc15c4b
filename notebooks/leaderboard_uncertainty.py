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
# # Which leaderboard ranks are real?
#
# A leaderboard ranks models by their average over a few dozen tasks (the tables below
# give each benchmark's count). Users keep asking which rank differences
# are real (mteb issues #5208, #5117, #4825), and the official leaderboard no longer
# shows RTEB's private column (mteb #3934). Here every model with a score on every task
# gets a rank *interval* (`analysis.stats.rank_intervals`): each pair of models is
# compared by a paired sign-flip test over the tasks, all pairs are adjusted together
# (Westfall–Young step-down max-T), and a model's interval runs from 1 + the number of
# models significantly better to K − the number significantly worse. With
# `simultaneous=True` (the default) all intervals hold at once with probability at
# least the confidence level; the unit is the task and tasks are assumed exchangeable
# (`benchmarks/README_stats.md` has the measured coverage). Near-duplicate tasks are not
# independent: tasks whose residual scores correlate strongly over the leaderboard's
# models (the rule and its threshold: `analysis/results/clusters.json`, derived by
# `tools/task_clusters.py`) are one unit (`clusters=`: their signs flip together). Models
# that cannot be told apart from the leader form the "leader group".

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
mteb_benchmark: str = "MTEB(eng, v2)"  # MTEB benchmark: ranked over all its tasks
rteb_benchmark: str = "RTEB(beta)"  # RTEB benchmark: ranked on its public and on its private tasks
aggregate: str = "mean"  # mean (Mean (Task), as the post) or borda (the leaderboard's Borda count)
simultaneous: bool = True  # intervals hold for all models at once (else per model)
n_resamples: int = 10_000  # Monte-Carlo sign patterns when 2**n_tasks is larger
confidence_level: float = 0.95  # coverage of the rank intervals
alpha: float = 0.05  # family-wise level of the leader group and the top groups: 1 - confidence_level (one level drives both)
top_n: int = 40  # models shown in the figure
top_groups: int = 10  # best models whose group of indistinguishable models is listed
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.notebook import OTHER_COLOR, model_palette, setup, short_name
from analysis.notebook.explorer import rank_explorer, unranked_models
from analysis.results.blog import post_models
from analysis.results.clusters import task_clusters
from analysis.results.leaderboard import load_leaderboards
from analysis.results.placement import own_models
from analysis.stats import rank_intervals

nb = setup("leaderboard_uncertainty.py")
if abs(alpha - (1 - confidence_level)) > 1e-9:  # the groups come from the intervals' own decisions
    raise ValueError(f"`alpha` ({alpha}) must be 1 - confidence_level ({1 - confidence_level:g}): one level drives the rank intervals and the groups; set both together")
rng = nb.rng("leaderboard_uncertainty")  # the intervals, the groups and the figure
boards = load_leaderboards([mteb_benchmark, rteb_benchmark], results=nb.results, pin=pin, cache_dir=cache_dir or None)
post = post_models()
palette = model_palette(post)
views = {  # leaderboard label -> (board, public side or None for all tasks, completeness scope)
    mteb_benchmark: (boards[mteb_benchmark], None, "all"),
    f"{rteb_benchmark} public": (boards[rteb_benchmark], True, "public"),
    f"{rteb_benchmark} private": (boards[rteb_benchmark], False, "private"),
}

# %% [markdown]
# ## Rank intervals
# Only models with a score on every task of a leaderboard are ranked there (no partial
# means); the count of models left out is given per leaderboard.

# %%
results, rows, notes = {}, [], []
for label, (board, side, scope) in views.items():
    complete = board.complete_models(scope)
    wide = board.wide(is_public=side).reindex(columns=complete)
    clusters = task_clusters(board.name)
    res = rank_intervals(wide, clusters=clusters, aggregate=aggregate, simultaneous=simultaneous, n_resamples=n_resamples, confidence_level=confidence_level, top=top_groups, rng=rng)
    results[label] = res
    t = res.table.reset_index()
    t.insert(0, "leaderboard", label)
    t["post_model"] = t["model"].isin(post)
    rows.append(t)
    notes.append(f"{label}: {res.n_models} complete models over {res.n_tasks} tasks in {res.n_units} units ({len(board.summary) - len(complete)} models left out); {res.method}")
table = pd.concat(rows, ignore_index=True)
if aggregate == "mean":
    table["score"] = table["score"] * 100
shown = table[["leaderboard", "model", "score", "rank", "rank_low", "rank_high", "n_better", "n_worse", "tied_with_leader", "post_model"]]
nb.table(
    shown, "leaderboard_uncertainty", floatfmt=".2f",
    title=f"Rank intervals ({confidence_level:.0%}, {'simultaneous' if simultaneous else 'per model'}) on {mteb_benchmark} and {rteb_benchmark} public / private (task lists {pin})",
    note=("score: " + ("Mean (Task) x 100" if aggregate == "mean" else "Borda points") + ". rank: 1 = best, ties share the best rank. "
          "rank_low..rank_high: 1 + models significantly better .. K - models significantly worse (paired sign-flip tests over tasks, "
          "one sign per cluster of near-duplicate tasks, Westfall-Young step-down max-T). tied_with_leader: not distinguishable from rank 1 at alpha={alpha}. " + " | ".join(notes)),
    show=False,
)
nb.show(shown[shown["rank"] <= 10], floatfmt=".2f")

# %%
def summary_sentence(label):
    res = results[label]
    t = res.table
    width = (t["rank_high"] - t["rank_low"] + 1)
    leader = t.index[0]
    group = int(t["tied_with_leader"].sum())
    exact = "all sign patterns enumerated" if res.exact else f"{res.n_patterns} random sign patterns"
    return (
        f"**{label}**: {res.n_models} models over {res.n_tasks} tasks, {res.n_units} independent units "
        f"({res.n_tasks - res.n_units} task(s) joined near-duplicates; {exact}). The leader, {short_name(leader)}, "
        f"cannot be told apart from {group - 1} other model(s) at α = {alpha}. The median interval spans "
        f"{width.median():.0f} ranks; {int((width == 1).sum())} model(s) have an exact rank."
    )


def post_sentence(label):
    t = results[label].table
    parts = [f"{short_name(m)} rank {int(t.loc[m, 'rank'])} [{int(t.loc[m, 'rank_low'])}, {int(t.loc[m, 'rank_high'])}]" for m in post if m in t.index]
    absent = [short_name(m) for m in post if m not in t.index]
    return f"{label}: " + ("; ".join(parts) if parts else "none of the post's models is complete") + (f" (not complete: {', '.join(absent)})" if absent else "")


nb.md("\n\n".join(summary_sentence(label) for label in results))
nb.md("The post's models (rank [interval]):\n\n" + "\n\n".join(f"- {post_sentence(label)}" for label in results))

# %% [markdown]
# ## Who is indistinguishable from the best?
# For each of the best models, the models it cannot be told apart from at α with the
# family-wise adjustment (the same tests as the intervals).

# %%
group_rows, shown = [], 8  # models named per group
for label, res in results.items():
    for model, group in res.groups.items():
        group_rows.append({"leaderboard": label, "model": model, "rank": int(res.table.loc[model, "rank"]), "group_size": len(group), "group": ", ".join(short_name(m) for m in group[:shown]) + (" ..." if len(group) > shown else "")})
groups = pd.DataFrame(group_rows)
nb.table(
    groups, "leaderboard_uncertainty_groups",
    title=f"Models that cannot be told apart from each of the {top_groups} best (alpha={alpha}, family-wise; task lists {pin})",
    note=f"group: the model itself and every model whose pair with it is not rejected by the max-T adjusted sign-flip test (first {shown} shown, in rank order); group_size counts all.",
)

# %% [markdown]
# ## The top of each leaderboard, with rank intervals
# Each line is a model's rank interval, the dot its rank. The post's models are
# colored (added below the top when they rank lower, after a gap).

# %%
fig, axes = plt.subplots(1, len(results), figsize=(6.2 * len(results), 0.26 * (top_n + len(post) + 2) + 1.2), layout="constrained")
for ax, (label, res) in zip(np.atleast_1d(axes), results.items(), strict=True):
    t = res.table
    top = list(t.index[:top_n])
    extra = [m for m in post if m in t.index and m not in top]
    models = top + extra
    ypos = np.arange(len(top)).tolist() + [len(top) + 1 + i for i in range(len(extra))]
    for y, m in zip(ypos, models, strict=True):
        color = palette.get(m, OTHER_COLOR)
        is_post = m in post
        ax.hlines(y, t.loc[m, "rank_low"], t.loc[m, "rank_high"], color=color if is_post else "0.45", lw=2.4 if is_post else 1.4)
        ax.plot(t.loc[m, "rank"], y, "o", color=color if is_post else "0.15", ms=5 if is_post else 3.5, zorder=3)
    ax.set_yticks(ypos, [short_name(m) for m in models], fontsize=7)
    for tick, m in zip(ax.get_yticklabels(), models, strict=True):
        if m in post:
            tick.set_color(palette[m])
            tick.set_fontweight("bold")
    ax.set_ylim(max(ypos) + 0.8, -0.8)
    ax.set_xlim(0, res.n_models + 1)
    ax.set_xlabel(f"rank (1 = best) of {res.n_models} models")
    ax.set_title(f"{label}\n{res.n_tasks} tasks, {confidence_level:.0%} {'simultaneous' if simultaneous else 'per-model'} rank intervals", fontsize=9)
    ax.grid(axis="y", visible=False)
nb.figure(fig, "leaderboard_uncertainty")


# %% [markdown]
# ## Every model, interactive
# The figure above shows the top of each leaderboard; the explorer below has every ranked
# model of each leaderboard (a tab each). Type part of a model's name to find it (Enter: the next
# match), untick a group to hide it (`analysis.results.groups.model_groups`: static models
# by how their cards say they were trained, model2vec outputs, distilled, supervised,
# hybrid or unknown; transformers, mteb's baselines, models mteb does not register),
# and hover a row for its score, rank interval and group. Own runs are marked when the
# results include them: models read from a folder after the leaderboard's
# (`RESULTS=../shared/mteb-cache:data/runs`), ranked when they have every task. The same
# page, self-contained, is written beside the figure.

# %%
explorer = rank_explorer(
    results,
    own=sorted({m for board, _, _ in views.values() for m in own_models(board, nb.results.label(0))}),
    post=post,
    unranked={label: unranked_models(board.summary, scope) for label, (board, _, scope) in views.items()},
    title=f"{confidence_level:.0%} {'simultaneous' if simultaneous else 'per-model'} rank intervals of every ranked model (task lists {pin})",
    score_label="Mean (Task) ×100" if aggregate == "mean" else "Borda points",
    score_scale=100 if aggregate == "mean" else 1,
)
nb.interactive(explorer, "leaderboard_uncertainty_explorer")
