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
# # The Goodhart audit: does RTEB's private split catch what the public one rewards?
#
# MTEB is public and can be hill-climbed; RTEB keeps part of its datasets private to
# resist that. Whether the closed data is the better proxy for generalization is an open
# question (mteb#3095), one vendor's lead on RTEB has been attributed to its access to the
# private datasets (mteb#3902), and the leaderboard dropped the private column in January
# 2026 (mteb#3933) while the private results stay in the results repository. This
# notebook asks, of every model with complete public and private results:
#
# * **who gains on the public tasks beyond chance**: each model's *public advantage* (how
#   much better it does, relative to the other models, on the public tasks than on the
#   private ones) with simultaneous intervals over all the models
#   (`analysis.stats.public_advantage`), on the benchmark and on each sub-benchmark with
#   enough tasks on both sides;
# * **what each model trained on**, by mteb's own rules (`ModelMeta.get_training_datasets`,
#   `zero_shot_percentage`; `analysis.results.training`): unknown stays unknown;
# * **what goes with a public advantage**: within models, the public tasks they trained
#   on (`analysis.stats.trained_task_effect`); between models, training overlap, zero-shot
#   %, rank on MTEB, release date, size, organisation and static kind
#   (`analysis.stats.advantage_predictors`, Holm across them, with the smallest effect
#   each could have detected);
# * **does the private split rank differently, and better**: rank agreement, and whether
#   the MTEB mean predicts a model's private mean better or worse than its public mean
#   does (`analysis.stats.predictive_comparison`).
#
# The tests' type-I error and coverage at these sizes, with departures, are measured in
# `benchmarks/results/goodhart_validation.md`, and on these scores split at random in
# `benchmarks/results/goodhart_placebo.md` (where t alone was liberal for a predictor);
# the methods are in the statistics guide.

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
benchmark: str = "RTEB(beta)"  # the RTEB benchmark with public and private tasks
reference: str = "MTEB(eng, v2)"  # the public benchmark a model may have climbed
sub_benchmarks: list = ["RTEB(eng, beta)", "RTEB(Code, beta)", "RTEB(fin, beta)", "RTEB(Law, beta)", "RTEB(Health, beta)", "RTEB(deu, beta)", "RTEB(fra, beta)"]  # RTEB's sub-benchmarks (mteb's current task lists, within the benchmark's tasks)
organisation: str = "voyageai"  # the organisation whose private-data access mteb#3902 discusses
cluster_tasks: bool = True  # flip each cluster of strongly related tasks (analysis/results/clusters.json) as one unit
n_resamples: int = 10_000  # sign patterns (max-T, paired tests), bootstrap draws, shuffles of a predictor
confidence_level: float = 0.95  # simultaneous intervals; decisions at 1 - confidence_level
power: float = 0.8  # power of the smallest detectable effect
n_show: int = 12  # rows shown inline (the files hold every row)
top_k: int = 10  # top-k overlap of the public and private rankings
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.stats import t as t_dist

from analysis.core.io import pvalue_phrase
from analysis.notebook import OTHER_COLOR, model_palette, setup, short_name
from analysis.notebook.explorer import rank_explorer
from analysis.results.blog import post_models
from analysis.results.clusters import cluster_details, task_clusters
from analysis.results.columns import PARAMETER_DIGITS, leaderboard_columns, shown_parameters
from analysis.results.groups import model_groups, organisations, release_dates
from analysis.results.leaderboard import load_leaderboards
from analysis.results.specs import resolve_spec
from analysis.results.training import (
    overlap_table,
    task_sources,
    trained_differently,
    trained_on,
    zero_shot,
)
from analysis.stats import (
    advantage_predictors,
    predictive_comparison,
    public_advantage,
    public_private_gap,
    rank_correlation,
    rank_intervals,
    trained_task_effect,
)
from analysis.stats.advantage import MIN_FAMILIES, MIN_TASKS_PER_SIDE

nb = setup("goodhart_audit.py")
boards = load_leaderboards([benchmark, reference], results=nb.results, pin=pin, cache_dir=cache_dir or None)
board, ref = boards[benchmark], boards[reference]
public, private = board.spec.scope_tasks("public"), board.spec.scope_tasks("private")
both = board.complete_models("public", "private")
wide = board.wide(complete_only=False)[both]
groups = model_groups(both).set_index("model")
post = [m for m in post_models() if m in both]
palette = model_palette(both, post=post)
alpha = 1 - confidence_level
clusters = task_clusters(benchmark) if cluster_tasks else None
nb.md(
    f"{benchmark} ({board.spec.source}): {len(public)} public and {len(private)} private tasks; "
    f"{len(both)} of {len(board.summary)} models have every task of both sides and enter the audit. "
    f"{reference}: {len(ref.spec.task_names)} tasks, {len(ref.complete_models())} complete models."
)

# %% [markdown]
# ## The leaderboard's own columns
# mteb's table for the benchmark (its Borda rank among the audited models, zero-shot %,
# sizes, Mean (Task), Mean (TaskType)), with the public and private means the leaderboard
# no longer shows; the zero-shot % of each side is mteb's on that side's tasks.

# %%
table = leaderboard_columns(board, models=both)
table.insert(2, "Zero-shot (public)", zero_shot(both, public))
table.insert(3, "Zero-shot (private)", zero_shot(both, private))
for column in ("Mean (Task)", "Mean (TaskType)", "Mean (Public)", "Mean (Private)"):
    table[column] = table[column] * 100
task_types = sorted({task.type for task in board.spec.tasks})
nb.table(
    shown_parameters(table.drop(columns="complete")).reset_index(), "goodhart_leaderboard", floatfmt=".2f",
    title=f"{benchmark}: mteb's columns for the {len(both)} audited models (scores ×100)",
    note="Zero-shot: mteb's ModelMeta.zero_shot_percentage on the benchmark's tasks (and on each side's); — = mteb records no training data "
         f"(parameters: none recorded; to {PARAMETER_DIGITS} significant figures). "
         + (f"Every task of {benchmark} is of one type ({task_types[0]}), so Mean (TaskType) equals Mean (Task)." if len(task_types) == 1
            else f"Mean (TaskType): the mean of the {len(task_types)} task types' means ({', '.join(task_types)})."),
    shown_columns=["model", "Rank (Borda)", "Zero-shot", "Zero-shot (public)", "Total Parameters (B)", "Mean (Task)", "Mean (Public)", "Mean (Private)"],
    show=False,
)
nb.show(table.reset_index()[["model", "Rank (Borda)", "Zero-shot (public)", "Mean (Public)", "Mean (Private)"]].head(n_show), floatfmt=".2f",
        caption=f"The first {min(n_show, len(table))} of {len(table)} models (all: {nb.output('goodhart_leaderboard.md')})")

sized = table.assign(params=groups["n_parameters"]).dropna(subset=["params"])
n_zero = int(table["Total Parameters (B)"].eq(0).sum())  # mteb records 0 (the baselines), groups none
sized = sized[sized["params"] > 0]
fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
for side, marker in (("Mean (Public)", "o"), ("Mean (Private)", "s")):
    ax.scatter(sized["params"], sized[side], marker=marker, s=16, color=OTHER_COLOR if side == "Mean (Public)" else "0.25", alpha=0.7, label=side)
for m in post:
    if m in sized.index:  # filled: private; hollow: public
        ax.scatter(sized.loc[m, "params"], sized.loc[m, "Mean (Private)"], color=palette[m], s=50, zorder=3, label=short_name(m))
        ax.scatter(sized.loc[m, "params"], sized.loc[m, "Mean (Public)"], facecolors="none", edgecolors=palette[m], s=50, zorder=3)
ax.set(xscale="log", xlabel="parameters (mteb's ModelMeta.n_parameters)", ylabel="mean score ×100",
       title=f"{benchmark}: score against size\n{len(sized)} of {len(both)} models; {len(both) - len(sized) - n_zero} (API models among them) record no parameter count"
             + (f", {n_zero} record zero" if n_zero else ""))
ax.legend(title="the post's models: filled private, hollow public", title_fontsize=7, fontsize=7, frameon=False)
nb.figure(fig, "goodhart_score_vs_size")

# %% [markdown]
# ## What each model trained on, by mteb's rules
# `get_training_datasets()` follows a model's declared datasets, its parent model's and
# mteb's similar-task graph (a task's sources and the tasks it supersedes), so a model
# trained on a source of a task counts as trained on the task; `via source` counts those
# reached through a source. A model without recorded training data is unknown, never 0.

# %%
scopes = {"public": public, "private": private, reference: ref.spec.task_names}
overlap = overlap_table(both, scopes)
known = overlap["known"]
sources = {t: s for t, s in task_sources(public).items() if s}
nb.table(
    overlap.reset_index(), "goodhart_overlap", floatfmt=".0f",
    title=f"Training-data overlap with {benchmark}'s public and private tasks and with {reference}",
    note="trained: tasks of the list in ModelMeta.get_training_datasets(); zero-shot %: ModelMeta.zero_shot_percentage; via source: trained on a task's TaskMetadata.adapted_from; — = unknown.",
    show=False,
)
touched = overlap[overlap["public trained"].fillna(0) > 0]
nb.show(touched.reset_index()[["model", "public trained", "public zero-shot %", "public via source", "private zero-shot %",
                                 f"{reference} zero-shot %"]].head(n_show), floatfmt=".0f",
        caption=f"The first {min(n_show, len(touched))} of the {len(touched)} models trained on a public task (all models: {nb.output('goodhart_overlap.md')})")
trained_public = trained_on(both, public)  # tasks x models; <NA>: unknown
per_task = trained_public.sum(axis=1)
per_task = per_task[per_task > 0].sort_values(ascending=False)
nb.md(
    f"mteb records training data for {int(known.sum())} of the {len(both)} models ({int((~known).sum())} unknown). "
    f"Zero-shot % on the public tasks ranges from {overlap['public zero-shot %'].min()} to {overlap['public zero-shot %'].max()} "
    f"({len(touched)} models trained on at least one public task); on the private tasks from "
    f"{overlap['private zero-shot %'].min()} to {overlap['private zero-shot %'].max()}; on {reference} from "
    f"{overlap[f'{reference} zero-shot %'].min()} to {overlap[f'{reference} zero-shot %'].max()}. "
    "The public tasks trained on: " + ", ".join(f"{t} ({n} models)" for t, n in per_task.items()) + ". "
    + ("Public tasks with a recorded source: " + ", ".join(f"{t} ← {', '.join(s)}" for t, s in sources.items())
       + f"; {int(overlap['public via source'].fillna(0).gt(0).sum())} models trained on such a source." if sources else "No public task records a source.")
)

# %% [markdown]
# ## Who gains on the public tasks beyond chance
# Each model's public advantage with **simultaneous** intervals: all of them cover their
# model's true advantage at once with probability `confidence_level` (studentized max-T
# over sign flips of the tasks; with `cluster_tasks`, the tasks of one related-task
# cluster of `analysis/results/clusters.json` flip together, so that a pair of related
# tasks counts once). A model is beyond chance when the step-down max-T over the
# residuals with zero advantage (the null) imposed rejects it (`pvalue_adjusted` under α): `public` (it
# gains on the public tasks) or `private`. Every interval that excludes 0 is among them;
# the test may add a model whose interval still contains zero, coloured in the figure too.

# %%
advantage = public_advantage(wide, public_tasks=public, private_tasks=private, clusters=clusters, power=power, n_resamples=n_resamples,
                             confidence_level=confidence_level, rng=nb.rng("goodhart_advantage"))
adv = advantage.to_frame().set_index("model")
adv["family"] = groups["family"]
adv["public zero-shot %"] = overlap["public zero-shot %"]
nb.table(
    adv.reset_index().replace({"beyond_chance": {"": "no"}}), "goodhart_advantage", floatfmt=".3f", pvalue_columns=("pvalue", "pvalue_adjusted"),
    title=f"Public advantage on {benchmark} (relative public mean − relative private mean, 0-1 scale)",
    note=f"{advantage.method}. mean_public/mean_private: the model's own means (the leaderboard's); advantage and its interval: of the relative scores (a task's score minus the other models' mean on it). ci_low/ci_high: {confidence_level:.0%} simultaneous over the {len(adv)} models; pvalue: Welch per model (unadjusted; its tasks taken as independent, so conservative where a cluster pairs a public task with a private one); pvalue_adjusted: family-wise (step-down); beyond_chance: pvalue_adjusted < {alpha:g} (public or private; no: not beyond chance); detectable: the advantage found with {power:.0%} power at the simultaneous critical value, (critical value + t quantile at {power:g}) × se (single-step: the step-down finds at least as much), the standard error and the critical value taken as estimated (a plug-in: fresh data sets find it somewhat less often, measured in the validation report).",
    shown_columns=["model", "advantage", "ci_low", "ci_high", "pvalue_adjusted", "beyond_chance"], show=False,
)
order = adv.sort_values("advantage").reset_index()
fig, ax = plt.subplots(figsize=(8, 12), layout="constrained")
kinds_of = {"public": "#d55e00", "private": "#0072b2", "": "0.35"}  # beyond chance: public, private; not
colors = order["beyond_chance"].map(kinds_of).to_numpy()
ax.hlines(range(len(order)), order["ci_low"] * 100, order["ci_high"] * 100, colors=colors, lw=1)
ax.scatter(order["advantage"] * 100, range(len(order)), c=colors, s=12, zorder=3)
ax.axvline(0, color="0.3", lw=0.8, ls="--")
for kind, label in (("public", "beyond chance: gains on public"), ("private", "beyond chance: gains on private"), ("", "not beyond chance")):
    ax.plot([], [], color=kinds_of[kind], marker="o", ms=4, lw=1, label=label)
ax.legend(title="bold names: the post's models", title_fontsize=7, fontsize=7, frameon=False, loc="upper left")
ax.set(yticks=range(len(order)), xlabel="public advantage ×100 (relative to the other models)",
       title=f"{benchmark}: public advantage, {confidence_level:.0%} simultaneous intervals")
ax.set_yticklabels([short_name(m) for m in order["model"]], fontsize=7)
for label, model in zip(ax.get_yticklabels(), order["model"], strict=True):
    if model in post:  # the post's models (in black: the colours say beyond chance)
        label.set(fontweight="bold")
nb.figure(fig, "goodhart_advantage")
beyond = adv[adv["beyond_chance"] != ""]
unadjusted = int((adv["pvalue"] < alpha).sum())
nb.md(
    ("Beyond chance after the multiplicity: " + "; ".join(f"**{m}** ({r.beyond_chance}, {100 * r.advantage:+.1f} points, [{100 * r.ci_low:+.1f}, {100 * r.ci_high:+.1f}], adjusted p {pvalue_phrase(r.pvalue_adjusted)})" for m, r in beyond.iterrows()) + "."
     if len(beyond) else f"**No model** gains on the public (or the private) tasks beyond chance once the {len(adv)} comparisons are accounted for.")
    + f" Each interval is ±{advantage.critical_value:.2f} standard errors (one model alone would take "
    f"{t_dist.ppf(1 - alpha / 2, adv['df'].median()):.2f} at the median degrees of freedom); "
    f"without the adjustment {unadjusted} of {len(adv)} models would have p < {alpha:g}, about the {alpha * len(adv):.1f} expected by chance. "
    f"The largest advantages: " + ", ".join(f"{short_name(m)} ({100 * a:+.1f})" for m, a in adv["advantage"].head(3).items())
    + "; the largest private gains: " + ", ".join(f"{short_name(m)} ({100 * a:+.1f})" for m, a in adv["advantage"].tail(3).items()) + ". "
    f"With these tasks, one model's advantage is found with about {power:.0%} power (its standard error taken as estimated) from {100 * adv['detectable'].min():.1f} to {100 * adv['detectable'].max():.1f} points "
    f"(median {100 * adv['detectable'].median():.1f}; `detectable` in the table), and {int((adv['advantage'].abs() >= adv['detectable']).sum())} of the "
    f"{len(adv)} observed advantages reach their model's (the largest is {100 * adv['advantage'].abs().max():.1f})"
    + (": no model's advantage reaches the effect its own data could detect, so a model not found beyond chance is not thereby cleared."
       if not (adv["advantage"].abs() >= adv["detectable"]).any() else ".")
    + "".join(f" The leaderboard's baselines stay in as models ({', '.join(short_name(m) for m in baselines)}): built without "
              "training on any labelled task, so no fit to the public tasks is in their advantages. Near the floor they show the relative score's own "
              "lean instead: the field scores higher on the private tasks, so a model near zero on both sides has a public advantage by construction (a zero-shot % shown "
              "unknown is mteb's record, which leaves some baselines' training data unset)."
              for baselines in [[m for m in adv.index if short_name(m).startswith("baseline-")]] if baselines)
)

# %% [markdown]
# ## The sub-benchmarks
# Each sub-benchmark's tasks (mteb's current lists, kept within the benchmark's tasks so
# the same models are complete) are tested when both sides reach the rule's minimum
# number of tasks, or of task clusters where tasks are clustered (`MIN_TASKS_PER_SIDE`,
# where the simulations show the family-wise error held); the others say what they
# cannot say.

# %%
rows = []
def slug(name: str) -> str:  # "RTEB(eng, beta)" -> "rteb_eng_beta"
    return "_".join("".join(c if c.isalnum() else " " for c in name.lower()).split())

for name in sub_benchmarks:
    spec = resolve_spec(name)
    sub_public = [t for t in spec.scope_tasks("public") if t in set(public)]
    sub_private = [t for t in spec.scope_tasks("private") if t in set(private)]
    row = {"benchmark": name, "public tasks": len(sub_public), "private tasks": len(sub_private),
           "left out (not in the benchmark)": len(spec.task_names) - len(sub_public) - len(sub_private)}
    if min(len(sub_public), len(sub_private)) >= 2:
        res = public_advantage(wide.loc[sub_public + sub_private], public_tasks=sub_public, private_tasks=sub_private,
                               clusters=clusters, power=power, n_resamples=n_resamples, confidence_level=confidence_level, rng=nb.rng("goodhart_sub", name))
        found = res.to_frame()
        top = found.loc[found["advantage"].idxmax()]
        row.update({"tested": res.testable, "gain on public": int((found["beyond_chance"] == "public").sum()) if res.testable else pd.NA,
                    "gain on private": int((found["beyond_chance"] == "private").sum()) if res.testable else pd.NA,
                    "largest advantage (×100)": 100 * top["advantage"], "of": top["model"], "what it cannot say": res.caveat})
        if res.testable:  # every model's advantage and simultaneous interval, as for the benchmark
            nb.table(found.replace({"beyond_chance": {"": "no"}}), f"goodhart_advantage_{slug(name)}", floatfmt=".3f", pvalue_columns=("pvalue", "pvalue_adjusted"), show=False,
                     title=f"Public advantage on {name} ({len(sub_public)} public / {len(sub_private)} private tasks; 0-1 scale)",
                     note=f"{res.method}. ci_low/ci_high: {confidence_level:.0%} simultaneous over the {len(found)} models; beyond_chance: public or private (no: not beyond chance).")
    else:
        row.update({"tested": False, "what it cannot say": f"{len(sub_public)} public / {len(sub_private)} private tasks: a side under 2 tasks has no spread; nothing can be said beyond the descriptive means."})
    rows.append(row)
subs = pd.DataFrame(rows)
nb.table(subs, "goodhart_sub_benchmarks", floatfmt=".1f",
         title=f"Sub-benchmarks: tested when both sides have at least {MIN_TASKS_PER_SIDE} tasks (task clusters, where tasks are clustered)",
         shown_columns=["benchmark", "public tasks", "private tasks", "tested", "gain on public", "gain on private"])
for row in subs.to_dict("records"):
    if row["tested"]:
        nb.md(f"- **{row['benchmark']}** ({row['public tasks']} public / {row['private tasks']} private): "
              f"{int(row['gain on public'])} model(s) gain on public and {int(row['gain on private'])} on private beyond chance "
              f"(every model: `{nb.output('goodhart_advantage_' + slug(row['benchmark']) + '.md')}`).")
    else:
        nb.md(f"- **{row['benchmark']}**: {row['what it cannot say']}")

# %% [markdown]
# ## Within models: the public tasks a model trained on
# For each model that trained on some public tasks but not all (by mteb's rules), its
# mean relative score on the tasks it trained on minus on the others; the test is over
# models: the training patterns are reassigned among the models of one organisation (its
# models share training and errors, so only they are exchangeable under the null).

# %%
org_of = organisations(both)  # the name before /
within = trained_task_effect(wide.loc[public], trained_public, families=org_of, n_resamples=n_resamples,
                             confidence_level=confidence_level, rng=nb.rng("goodhart_within"))
mixed = trained_differently(trained_public, org_of)  # organisations whose models differ
via_source = trained_on(both, public, sources=True)
varying_sources = int((via_source.any() & ~via_source.all()).fillna(False).sum())
def span(ci) -> str:  # an interval in points; one without a finite end said so
    ends = [f"{100 * v:+.1f}" if np.isfinite(v) else None for v in (ci.low, ci.high)]
    if ends[0] is None and ends[1] is None:
        return "without a finite bound"
    return "[" + ", ".join(e or ("−∞" if i == 0 else "+∞") for i, e in enumerate(ends)) + "]"
per_model = within.to_frame().assign(**{c: lambda f, c=c: 100 * f[c] for c in ("trained", "untrained", "difference")})
nb.table(per_model, "goodhart_within", floatfmt=".1f",
         title="Relative score on the public tasks a model trained on, minus on those it did not (×100)",
         note=f"{within.method}. Mean difference {100 * within.statistic:+.1f} points, p {pvalue_phrase(within.pvalue)}; one common shift of the trained cells "
              f"{100 * within.shift:+.1f} points, {confidence_level:.0%} CI {span(within.confidence_interval)}.", show=False)
nb.show(per_model.head(n_show), floatfmt=".1f",
        caption=f"The first {min(n_show, len(per_model))} of {len(per_model)} models (all: {nb.output('goodhart_within.md')})")
carriers = per_model[per_model["model"].map(org_of).isin(mixed[mixed].index)]  # their patterns move
fixed = per_model.drop(index=carriers.index)  # an organisation trained alike: the same in every draw
top_task = per_task.index[0]  # the public task most models trained on, and the test without it
n_top = int(trained_public.loc[top_task, per_model["model"]].sum())
rest = [t for t in public if t != top_task]
without = trained_task_effect(wide.loc[rest], trained_public.loc[rest], families=org_of, n_resamples=n_resamples,
                              confidence_level=confidence_level, rng=nb.rng("goodhart_within", "without"))

nb.md(
    f"{within.n_models} models trained on some but not all public tasks; the trained tasks vary over {within.n_tasks_varying} task(s). "
    f"Mean difference {100 * within.statistic:+.1f} points relative to the other models, p {pvalue_phrase(within.pvalue)}. "
    f"Read as one shift in score common to every cell where a model trained on a task (an association, as below): {100 * within.shift:+.1f} points "
    f"({confidence_level:.0%} CI {span(within.confidence_interval)}). It exceeds the relative difference because each relative score "
    "subtracts the other models' mean on the task, which rises too where many of them trained on it. The interval assumes the same gain "
    f"for every model and task, and none for the {int((~known).sum())} models without training records: if the gains differ between "
    "models it is too narrow, and if the unrecorded models trained on these tasks the gain is larger than shown (its coverage, on the data's "
    "own design and with gains differing by model, is in `benchmarks/results/goodhart_validation.md`). "
    f"{n_top} of these {within.n_models} models trained on **{top_task}**; without that task "
    f"{without.n_models} model(s) remain, {100 * without.statistic:+.1f} points (a shift of {100 * without.shift:+.1f}, CI {span(without.confidence_interval)}), "
    f"p {pvalue_phrase(without.pvalue)}. "
    + f"The patterns move only within an organisation: {int(mixed.sum())} of the {len(mixed)} organisations with known training data "
    f"({', '.join(mixed[mixed].index)}) have models trained on different public tasks, and only they carry the test: "
    f"the {len(fixed)} models of the other organisations keep their differences under every reassignment, so they move the mean "
    f"({fixed['difference'].sum() / within.n_models:+.1f} of its {100 * within.statistic:+.1f} points) but not the p-value; "
    f"the {len(carriers)} models that carry it differ by {carriers['difference'].mean():+.1f} points on average. "
    + (f"{within.caveat} " if within.caveat else "")
    + f"Through a source only: {varying_sources} model(s) trained on a public task's source, and mteb's rules already count them as trained on the task, "
    "so no separate test is made. The tasks trained on are chosen by the model's makers (a multilingual model trains on a multilingual task): "
    "a difference is an association, not the effect of training."
)

# %% [markdown]
# ## Between models: what goes with a public advantage
# One test per predictor (ranks of a number, or two groups), its variance counting the
# tasks and the models as samples, its t also referred to shuffles of the predictor over
# the models (the larger p decides); Holm across the predictors. `detectable` is the smallest effect the design
# finds with probability `power` at the family-wise level.

# %%
kinds = groups["static_kind"].where(groups["family"] == "static")
predictors = pd.DataFrame(index=both)
predictors["public tasks trained on"] = overlap["public trained"].astype(float)
predictors[f"zero-shot % on {reference}"] = overlap[f"{reference} zero-shot %"].astype(float)
predictors[f"rank on {reference}"] = -ref.summary["rank_complete"].reindex(both).astype(float)  # higher = better
predictors["release date"] = release_dates(both).map(lambda d: d.toordinal() if pd.notna(d) else np.nan)
predictors["parameters"] = groups["n_parameters"].where(groups["n_parameters"] > 0)
predictors[f"made by {organisation}"] = org_of.reindex(both).eq(organisation)
predictors["static"] = groups["family"].eq("static")
for kind in sorted(kinds.dropna().unique()):
    if 2 <= (kinds == kind).sum() <= kinds.notna().sum() - 2:
        predictors[f"static: {kind} (vs other static)"] = (kinds == kind).where(kinds.notna()).astype("boolean")
drivers = advantage_predictors(wide, predictors, public_tasks=public, private_tasks=private, families=org_of, power=power,
                               n_resamples=n_resamples, confidence_level=confidence_level,
                               rng=nb.rng("goodhart_predictors"))
found = drivers.to_frame()
points = ["effect", "se_tasks", "se_models", "se", "ci_low", "ci_high", "detectable"]  # x100, as the prose
nb.table(found.assign(**{c: found[c] * 100 for c in points}), "goodhart_predictors", floatfmt=".2f",
         pvalue_columns=("pvalue_t", "pvalue_permutation", "pvalue", "pvalue_adjusted"),
         title=f"What goes with the public advantage on {benchmark} ({len(found)} predictors; effects ×100)",
         note=f"{drivers.method}. effect (×100, as its interval, standard errors and detectable): points of advantage per SD of the predictor's ranks (rank on {reference}: higher = better ranked), or group difference (True − False). kind: rank (a number, by its ranks) or groups (True/False); n_a/n_b: models in the True/False group; "
              "n_families: their organisations; one_family: the group is one organisation's models (its own shared effect is what it tests); se_tasks/se_models: the standard error's parts from the tasks and from the models; pvalue_t/pvalue_permutation: "
              "the t test's and the shuffles' (pvalue: the larger); spearman: rank correlation of the predictor with the advantage (descriptive); "
              "family_share: the share of the contrast between organisations; detectable: the effect found with "
              f"{power:.0%} power after the adjustment.",
         shown_columns=["predictor", "n_models", "n_families", "family_share", "effect", "ci_low", "ci_high", "pvalue_adjusted", "detectable"])
hits, untested = found[found["pvalue_adjusted"] < alpha], found[found["pvalue"].isna()]
unit = lambda r: "points per SD of its ranks" if r.kind == "rank" else "points"  # noqa: E731
pooled = found[found["pvalue"].notna() & (found["n_families"].lt(MIN_FAMILIES) | found["n_families"].eq(found["n_models"]))]  # under 3 organisations: no shared part
tested, aligned_share = len(found) - len(untested), 0.5  # flag a per-model predictor this much between organisations
aligned = found[found["pvalue"].notna() & found["family_share"].ge(aligned_share) & ~found["one_family"]]
org, n_org = found.set_index("predictor").loc[f"made by {organisation}"], int(predictors[f"made by {organisation}"].sum())
n_orgs = int(org["n_families"])
nb.md(
    (("Related beyond chance after Holm: " + "; ".join(f"**{r.predictor}** ({100 * r.effect:+.2f} {unit(r)}, p {pvalue_phrase(r.pvalue_adjusted)})" for r in hits.itertuples()) + ". ")
     if len(hits) else f"**No predictor** is related to the public advantage after Holm's adjustment across the {tested} predictors tested. ")
    + "Where nothing is found, the effects this design would have detected with "
    f"{power:.0%} power: " + "; ".join(f"{r.predictor}: " + (f"{100 * r.detectable:.2f} {unit(r)}" if pd.notna(r.detectable) else "none (too few models for the shuffles to reach the level)") for r in found[found["pvalue_adjusted"] >= alpha].itertuples()) + ". "
    f"Every predictor is tested per model; where its models come from {MIN_FAMILIES} organisations or more, its variance counts a part of the advantage "
    "shared by each organisation's models, since models of one organisation share their training (estimated from the data, net of the task "
    "noise those models share)"
    + ("; " + ", ".join(f"**{r.predictor}** ({r.n_models} models of {r.n_families:.0f} organisations)" for r in pooled.itertuples())
       + " take the models' pooled spread instead, which assumes the organisations share nothing. " if len(pooled) else ". ")
    + "".join(f"Not tested: **{r.predictor}**, " + (f"whose {r.n_models} models split exactly along their {r.n_families:.0f} organisations "
              "(one is all True, the other all False): it cannot be told from its makers. " if r.n_families < MIN_FAMILIES and r.n_models > r.n_families
              else "with too few models with a value. ") for r in untested.itertuples())
    + (f"At least {aligned_share:.0%} of the contrast lies between organisations for "
       + "; ".join(f"**{r.predictor}** ({r.family_share:.0%})" for r in aligned.itertuples())
       + ". For these the shared part weighs most; it is estimated without bias, and where that estimate is not positive the organisations are taken to share nothing. Where neither the organisations nor their models differ in truth, such a test can still be conservative "
       "(the statistics guide measures it for a group lying between organisations, as the static models do, not for a ranked predictor; its t's reference, a parametric bootstrap, removes most of it). " if len(aligned) else "")
    + f"On the mteb#3902 claim: the {n_org} {organisation} model{'s' if n_org != 1 else ''} audited here ("
    + ", ".join(short_name(m) for m in predictors.index[predictors[f"made by {organisation}"]]) + f"), against the other {n_orgs - 1} organisations: "
    f"{100 * org['effect']:+.2f} points of public advantage ({confidence_level:.0%} CI [{100 * org['ci_low']:+.2f}, {100 * org['ci_high']:+.2f}]; "
    f"a private edge is a negative value), p {pvalue_phrase(org['pvalue'])}, adjusted p {pvalue_phrase(org['pvalue_adjusted'])}; "
    + (f"an edge of {100 * org['detectable']:.2f} points would have been found with {power:.0%} power. " if pd.notna(org["detectable"]) else "no edge reaches the level with these shuffles. ")
    + f"The test asks whether the {organisation} models' public advantage differs from the other models': the other organisations' "
    f"shared effects count as chance (taken as normal), {organisation}'s own is the effect tested. A difference would say that "
    f"{organisation}'s models differ, not why: access to the private data (the claim), or anything else its models share "
    "(architecture, training data and recipe, the tasks they were tuned on)."
)

shown_x = {name: predictors[name] for name in found["predictor"]}  # what each panel plots (the test uses ranks)
shown_x[f"rank on {reference}"] = -predictors[f"rank on {reference}"]
shown_x["release date"] = release_dates(both)
x_labels = {"public tasks trained on": "public tasks trained on (count)", f"zero-shot % on {reference}": "zero-shot % (mteb's rules)",
            f"rank on {reference}": "rank (1 = best; right is better)", "release date": "release date", "parameters": "parameters (log scale)"}
fig, axes = plt.subplots(2, (len(shown_x) + 1) // 2, figsize=(3 * ((len(shown_x) + 1) // 2), 7), layout="constrained", squeeze=False)
jitter = pd.Series(np.random.default_rng(0).uniform(-0.15, 0.15, len(both)), index=both)  # the two groups, spread
for ax, (name, x) in zip(axes.flat, shown_x.items(), strict=False):
    if predictors[name].dtype in (bool, "boolean"):
        x = x.astype(float) + jitter
        ax.set(xticks=[0, 1], xticklabels=["no", "yes"], xlim=(-0.5, 1.5))
    keep = x.notna()
    ax.scatter(x[keep], 100 * adv.loc[keep[keep].index, "advantage"], s=12, color=OTHER_COLOR)
    for m in post:
        if keep.get(m, False):
            ax.scatter(x[m], 100 * adv.loc[m, "advantage"], s=40, color=palette[m], zorder=3, label=short_name(m))
    ax.axhline(0, color="0.3", lw=0.8, ls="--")
    row = found.set_index("predictor").loc[name]
    tested_p = f"p_adj {pvalue_phrase(row['pvalue_adjusted'])}" if pd.notna(row["pvalue"]) else "not tested"
    ax.set_title(f"{name}\n{tested_p}", fontsize=8)
    ax.set(xlabel=x_labels.get(name, ""), ylabel="public advantage ×100")
    if name == f"rank on {reference}":
        ax.invert_xaxis()
    if name == "parameters":
        ax.set_xscale("log")
    if name == "release date":
        ax.tick_params(axis="x", labelrotation=30)
for ax in axes.flat[len(shown_x):]:
    ax.set_visible(False)
handles = {}  # the post's models, once, from every panel
for ax in axes.flat:
    handles.update(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=len(handles), fontsize=7, frameon=False)
nb.figure(fig, "goodhart_predictors")

# %% [markdown]
# ## Does the private split rank differently, and better?
# Rank agreement of the public and private means (Kendall and Spearman with permutation
# p-values and bootstrap intervals, the top-k overlap, rank shifts), then the paired
# question: does the MTEB mean predict a model's private mean better or worse than its
# public mean does? Each predictor gets its least-squares line; each model its
# leave-one-out error under both; the test is over models.

# %%
summary = board.summary.loc[both]
agreement = []
for method in ("kendall", "spearman"):
    res = rank_correlation(summary["mean_public"], summary["mean_private"], method=method, n_resamples=n_resamples,
                           confidence_level=confidence_level, rng=nb.rng("goodhart_agreement", method))
    agreement.append({"method": method, "statistic": res.statistic, "ci_low": res.confidence_interval.low,
                      "ci_high": res.confidence_interval.high, "pvalue": res.pvalue, "n": res.n})
agreement = pd.DataFrame(agreement)
top_public = set(summary["mean_public"].nlargest(top_k).index)
top_private = set(summary["mean_private"].nlargest(top_k).index)
shifts = public_private_gap(wide, public_tasks=public, private_tasks=private, n_resamples=n_resamples,
                            confidence_level=confidence_level, rng=nb.rng("goodhart_shifts")).to_frame()
nb.table(agreement, "goodhart_agreement", floatfmt=".3f", pvalue_columns=("pvalue",),
         title=f"Public vs private rankings on {benchmark}", parameters={"top_k": top_k},
         note=f"ci_low/ci_high: {confidence_level:.0%} percentile bootstrap over resampled models ({res.n_resamples} resamples); pvalue: {res.pvalue_method}. Top {top_k}: {len(top_public & top_private)} of the {top_k} models with the highest public mean are among the {top_k} with the highest private mean.")
shifts[f"top {top_k} public"] = shifts["model"].isin(top_public)
shifts[f"top {top_k} private"] = shifts["model"].isin(top_private)
nb.table(shifts[["model", "mean_public", "mean_private", "rank_public", "rank_private", "rank_shift", "rank_shift_ci_low",
                 "rank_shift_ci_high", f"top {top_k} public", f"top {top_k} private"]].assign(mean_public=lambda f: 100 * f["mean_public"],
                                                                                          mean_private=lambda f: 100 * f["mean_private"])
         .transform(lambda c: c.astype("Int64") if c.name.startswith("rank") and c.dropna().mod(1).eq(0).all() else c),
         "goodhart_rank_shifts", floatfmt=".1f", show=False,
         title=f"Ranks by the public and the private mean on {benchmark} (means ×100; rank_shift = public − private rank, > 0: climbs on private)",
         note="rank_shift_ci_low/high: percentile interval over stratified bootstrap resamples of the tasks (approximate, not a test).")
moved = shifts.reindex(shifts["rank_shift"].abs().sort_values(ascending=False).index).head(3)
nb.md(
    f"Kendall's tau {agreement.loc[0, 'statistic']:.2f} and Spearman's rho {agreement.loc[1, 'statistic']:.2f} over {len(both)} models; "
    f"{len(top_public & top_private)} of the top {top_k} by the public mean are in the top {top_k} by the private mean. Largest rank shifts (public → private): "
    + "; ".join(f"{short_name(r.model)} {r.rank_public:g} → {r.rank_private:g}" for r in moved.itertuples()) + f" (every model: `{nb.output('goodhart_rank_shifts.md')}`)."
)

common = [m for m in both if pd.notna(ref.summary["mean_task"].get(m, np.nan))]
compared = predictive_comparison(summary.loc[common, "mean_private"], summary.loc[common, "mean_public"],
                                 ref.summary.loc[common, "mean_task"], confidence_level=confidence_level,
                                 n_resamples=n_resamples, rng=nb.rng("goodhart_prediction"))
errors = compared.to_frame().rename(columns={"target": "private mean", "a": "public mean", "b": f"{reference} mean"})
nb.table(errors, "goodhart_prediction", floatfmt=".4f",
         title=f"Predicting the private mean: public mean (a) vs {reference} mean (b), leave-one-out errors (0-1 scale)",
         note=f"{compared.method}. error_a, error_b: the private mean minus its leave-one-out prediction (> 0: the model does better on private than predicted); difference: |error_b| − |error_a| (> 0: the public mean predicts it better). "
              f"Mean absolute error {100 * compared.mae_a:.2f} (a) vs {100 * compared.mae_b:.2f} (b) points; difference (jackknife bias-corrected) "
              f"{100 * compared.statistic:+.2f}, {confidence_level:.0%} CI [{100 * compared.confidence_interval.low:+.2f}, {100 * compared.confidence_interval.high:+.2f}], "
              f"p {pvalue_phrase(compared.pvalue)}.", show=False)
nb.md(
    f"On the {compared.n} models complete on both benchmarks, the public mean predicts the private mean with a mean absolute "
    f"leave-one-out error of {100 * compared.mae_a:.2f} points and {reference}'s mean with {100 * compared.mae_b:.2f}; the difference "
    f"({reference} − public), bias-corrected by the jackknife, is {100 * compared.statistic:+.2f} points ({confidence_level:.0%} CI [{100 * compared.confidence_interval.low:+.2f}, "
    f"{100 * compared.confidence_interval.high:+.2f}], p {pvalue_phrase(compared.pvalue)}; Pearson r {compared.r_a:.2f} vs {compared.r_b:.2f})."
)

# private tasks whose results track a public task's (one cluster of clusters.json): the same comparisons without them
near = [(c, [t for t in c["tasks"] if t in set(private)]) for c in cluster_details(benchmark)
        if set(c["tasks"]) & set(public) and set(c["tasks"]) & set(private)]
copies = [t for _, ts in near for t in ts]
if copies:
    kept_private = wide.loc[[t for t in private if t not in copies]].mean()
    tau_without = rank_correlation(summary["mean_public"], kept_private, method="kendall", n_resamples=n_resamples,
                                   confidence_level=confidence_level, rng=nb.rng("goodhart_agreement", "without copies"))
    compared_without = predictive_comparison(kept_private[common], summary.loc[common, "mean_public"], ref.summary.loc[common, "mean_task"],
                                             confidence_level=confidence_level, n_resamples=n_resamples,
                                             rng=nb.rng("goodhart_prediction", "without copies"))
    nb.md(
        f"{len(copies)} private task(s) share a cluster with public ones (their residual scores correlate closely over the models; "
        "the clusters' rule, not a check of the data, so the same data or only the same kind of task): "
        + "; ".join(" ~ ".join(c["tasks"]) + f" (residuals correlated at {c['min_correlation']:.2f} over the models)" for c, _ in near)
        + " (`analysis/results/clusters.json`). Without them, on the other "
        f"{len(private) - len(copies)} private tasks: Kendall's tau {tau_without.statistic:.2f} (with them {agreement.loc[0, 'statistic']:.2f}); "
        f"leave-one-out error {100 * compared_without.mae_a:.2f} points for the public mean (with them {100 * compared.mae_a:.2f}) and "
        f"{100 * compared_without.mae_b:.2f} for {reference}'s ({100 * compared.mae_b:.2f}), difference {100 * compared_without.statistic:+.2f} "
        f"(CI [{100 * compared_without.confidence_interval.low:+.2f}, {100 * compared_without.confidence_interval.high:+.2f}]). "
        + ("The rankings agree less without them (no interval is given for the drop)." if tau_without.statistic < agreement.loc[0, "statistic"]
           else "The rankings agree as much without them.")
    )

fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
for ax, column, label in ((axes[0], "a", "Mean (Public)"), (axes[1], "b", f"{reference} Mean (Task)")):
    ax.scatter(100 * errors["public mean" if column == "a" else f"{reference} mean"], 100 * errors["private mean"], s=14, color=OTHER_COLOR)
    for m in post:
        if m in set(errors["model"]):
            r = errors.set_index("model").loc[m]
            ax.scatter(100 * r["public mean" if column == "a" else f"{reference} mean"], 100 * r["private mean"], s=45, color=palette[m], zorder=3, label=short_name(m))
    mae = compared.mae_a if column == "a" else compared.mae_b
    ax.set(xlabel=f"{label} ×100", ylabel="Mean (Private) ×100", title=f"{label}: leave-one-out MAE {100 * mae:.2f}")
axes[1].legend(fontsize=7, frameon=False)
nb.figure(fig, "goodhart_prediction")

# %% [markdown]
# ## Every model, interactive
# The public and private rankings of the audited models with their simultaneous rank
# intervals; the zero-shot % on each side's tasks shows on hover and filters the rows.

# %%
ranks = {f"{benchmark} {side}": rank_intervals(wide.loc[tasks], n_resamples=n_resamples, confidence_level=confidence_level,
                                                rng=nb.rng("goodhart_explorer", side))
         for side, tasks in (("public", public), ("private", private))}
explorer = rank_explorer(
    ranks, groups=groups.reset_index(), post=post, title=f"{benchmark}: public and private ranks, with zero-shot %",
    score_label="Mean ×100", score_scale=100,
    zero_shot={f"{benchmark} public": zero_shot(both, public).to_dict(), f"{benchmark} private": zero_shot(both, private).to_dict()},
)
nb.interactive(explorer, "goodhart_explorer")

# %% [markdown]
# ## What this can and cannot establish

# %%
verdict = "better" if compared.statistic < 0 else "worse"
harder = summary["mean_private"] - summary["mean_public"]
nb.md(
    f"Across {len(both)} models, {len(beyond)} gain on {benchmark}'s public tasks (or private ones) beyond chance once the multiplicity is counted "
    f"(one model's gain is found with about {power:.0%} power from {100 * adv['detectable'].min():.1f} to {100 * adv['detectable'].max():.1f} points, "
    f"median {100 * adv['detectable'].median():.1f}); "
    f"within models, the public tasks a model trained on score {100 * within.statistic:+.1f} points above those it did not, relative to the other "
    f"models (p {pvalue_phrase(within.pvalue)}{'' if within.pvalue < alpha else ': not beyond chance'}; an estimated common shift of the trained cells' scores of {100 * within.shift:+.1f} points, "
    f"{confidence_level:.0%} CI {span(within.confidence_interval)}), "
    f"{n_top} of those {within.n_models} models trained on {top_task}, and without that task {without.n_models} remain: "
    f"{100 * without.statistic:+.1f} points (a shift of {100 * without.shift:+.1f}, CI {span(without.confidence_interval)}, p {pvalue_phrase(without.pvalue)}); "
    f"{len(hits)} of the {len(found) - len(untested)} model properties tested go with the public advantage after Holm, and {reference}'s mean predicts the private mean "
    f"{verdict} than the public mean does (p {pvalue_phrase(compared.pvalue)}"
    f"{'' if compared.pvalue < alpha else ': not beyond chance'}). "
    f"The public advantage is relative: it sums to 0 over the {len(both)} models, so a fit to the public tasks that the whole field shares "
    f"cannot show here ({int((harder > 0).sum())} of the {len(both)} models score higher on the private tasks than on the public ones, by "
    f"{100 * harder.mean():.1f} points on average, which reflects the sides' tasks as much as any fit). "
    "Nor can these data say that the private ranking is *better*: that needs a criterion outside both; they measure how it differs and how well "
    f"{reference} predicts it. "
    "This is an observational comparison of published results. It cannot establish that training on a task (or access to the private data) "
    "*causes* a gain: the models were not assigned their training data, their makers chose it with the benchmark in view, and "
    "organisation, size, date and data travel together. mteb's training-data records are self-declared and incomplete (unknown is not zero-shot), "
    "the public and private tasks differ in domain and language as well as in access (and some private tasks' results track public tasks' closely), "
    "and a model's results can be re-run or re-filed. "
    "Nor can a null result clear a model: an effect as large as `detectable` would have been found with about "
    f"{power:.0%} power, and smaller ones may be there. "
    f"What it does show is where the public and private views disagree by more than the tasks' noise (for {len(beyond) or 'no'} model{'' if len(beyond) == 1 else 's'} here), and which models "
    "such claims can and cannot be tested on."
)
