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
# # Public vs private: who loses more on the private tasks than the others?
#
# RTEB keeps part of its datasets private so that a model cannot be tuned to them. The
# private and public tasks differ in difficulty, which every model shares, so the plain
# gap (Mean (Private) − Mean (Public)) is not a verdict on any model. The question is:
# does a model lose more on the private tasks than the other models do? For every model
# with complete public and private results, `analysis.stats.public_private_gap`
# computes its gap minus the mean gap of the other complete models (the *relative gap*),
# with a Welch-type interval over tasks (its coverage at RTEB's numbers of tasks is
# measured in `benchmarks/README_stats.md`), and the rank shift from public to private
# (average ranks for ties) with a bootstrap range. Because one outlying model moves every
# other model's mean reference, the same gap relative to the *median* of the other
# models' gaps is shown beside it. Groups of models are compared with
# `analysis.stats.group_contrast`, Welch's t-test (valid when the groups' spreads differ).

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
benchmark: str = "RTEB(beta)"  # an RTEB benchmark (public and private tasks)
highlight: list = []  # models labelled in the plots; empty: the post's models (analysis.results.blog.post_models())
n_resamples: int = 10_000  # bootstrap draws (rank-shift range) and Monte-Carlo label arrangements
n_show: int = 10  # models listed as largest rank gains and losses
alpha: float = 0.05  # significance level; intervals have level 1 - alpha
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from analysis.core.io import pvalue_phrase
from analysis.notebook import OTHER_COLOR, model_palette, setup, short_name
from analysis.notebook.display import display_path
from analysis.results.blog import post_models
from analysis.results.groups import model_groups
from analysis.results.leaderboard import load_leaderboard
from analysis.stats import group_contrast, public_private_gap

nb = setup("public_private_gap.py")
labelled = list(highlight) or post_models()
rng = nb.rng("public_private_gap")  # the gap table, its figure and the rank-shift table
lb = load_leaderboard(benchmark, results=nb.results, pin=pin, cache_dir=cache_dir or None)
public_tasks = lb.spec.scope_tasks("public")
private_tasks = lb.spec.scope_tasks("private")
both = lb.complete_models("public", "private")
nb.md(
    f"{benchmark} ({lb.spec.source}): {len(public_tasks)} public and {len(private_tasks)} private tasks "
    f"(the benchmark's task list); {len(both)} of {len(lb.summary)} models have both sides complete and enter the analysis."
)

# %%
wide = lb.wide(complete_only=False)[both]  # tasks x models: every public and private task of the benchmark
with warnings.catch_warnings():
    warnings.simplefilter("error")  # every kept model is complete: nothing may be dropped silently
    result = public_private_gap(
        wide, public_tasks=public_tasks, private_tasks=private_tasks,
        n_resamples=n_resamples, confidence_level=1 - alpha, rng=rng,
    )
    robust = public_private_gap(
        wide, public_tasks=public_tasks, private_tasks=private_tasks, reference="median",
        n_resamples=n_resamples, confidence_level=1 - alpha, rng=rng,
    )
median_columns = {"relative_gap": "relative_gap_median", "relative_gap_pvalue": "relative_gap_median_pvalue"}
gaps = result.table.merge(robust.table[["model", *median_columns]].rename(columns=median_columns), on="model")
gaps = gaps.merge(model_groups(gaps["model"]), on="model")
columns = [
    "model", "family", "static_kind", "mean_public", "mean_private", "gap", "relative_gap", "relative_gap_ci_low",
    "relative_gap_ci_high", "relative_gap_pvalue", "relative_gap_median", "relative_gap_median_pvalue",
    "rank_public", "rank_private", "rank_shift", "rank_shift_ci_low", "rank_shift_ci_high",
]
gap_table = nb.table(
    gaps[columns], "public_private_gap", floatfmt=".3f", pvalue_columns=("relative_gap_pvalue", "relative_gap_median_pvalue"),
    title=f"Public vs private on {benchmark} (0-1 scale; gap = private − public; relative gap = gap − mean gap of the other models)",
    note=(
        f"relative gap interval: {1 - alpha:.0%} Welch t over tasks ({len(public_tasks)} public vs {len(private_tasks)} private); "
        "relative_gap_median: the gap minus the median of the other models' gaps (one outlier cannot move it), Welch p-value; "
        f"rank shift = rank_public − rank_private (> 0: climbs on private; average ranks for ties), range: "
        f"{1 - alpha:.0%} percentile interval over {n_resamples} stratified bootstrap resamples of the tasks."
    ),
    show=False,
)
shown = ["model", "relative_gap", "relative_gap_ci_low", "relative_gap_ci_high", "relative_gap_pvalue", "rank_public", "rank_private", "rank_shift"]
nb.show(gaps[shown].head(), floatfmt=".3f", pvalue_columns=("relative_gap_pvalue",))
nb.md(f"The first rows, the answer's columns only; all {len(columns)} columns, every model: `{display_path(gap_table)}`.")

# %% [markdown]
# ## Relative gap per model, and public vs private means

# %%
palette = model_palette(gaps["model"], post=labelled)
order = gaps.sort_values("relative_gap").reset_index(drop=True)
fig, axes = plt.subplots(1, 2, figsize=(13, 5.5), layout="constrained")
ax = axes[0]
colors = [palette.get(m, OTHER_COLOR) for m in order["model"]]
ax.hlines(range(len(order)), order["relative_gap_ci_low"] * 100, order["relative_gap_ci_high"] * 100, colors=colors, lw=1)
ax.scatter(order["relative_gap"] * 100, range(len(order)), c=colors, s=12, zorder=3)
ax.axvline(0, color="0.3", lw=0.8, ls="--")
for i, m in enumerate(order["model"]):
    if m in labelled:
        ax.annotate(short_name(m), (order.loc[i, "relative_gap_ci_high"] * 100, i), xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
ax.set(
    yticks=[], xlabel="relative gap ×100 (gap − mean gap of the others)", ylabel=f"{len(order)} models, sorted",
    title=f"{benchmark}: relative gap with {1 - alpha:.0%} Welch intervals",
)
ax = axes[1]
points = gaps.assign(public=gaps["mean_public"] * 100, private=gaps["mean_private"] * 100)
sns.scatterplot(data=points, x="public", y="private", style="family", color=OTHER_COLOR, s=18, ax=ax)
for m in labelled:
    if m in set(gaps["model"]):
        r = points.set_index("model").loc[m]
        ax.scatter(r["public"], r["private"], color=palette[m], s=40, zorder=3, label=short_name(m))
lim = [0, 100 * float(max(gaps["mean_public"].max(), gaps["mean_private"].max()))]
ax.plot(lim, lim, ls="--", color="0.3", lw=0.8, label="y = x")
ax.set(xlabel="Mean (Public) ×100", ylabel="Mean (Private) ×100", title="public vs private")
ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, frameon=False)
nb.figure(fig, "public_private_gap")

movers = pd.concat([gaps.nlargest(n_show, "rank_shift"), gaps.nsmallest(n_show, "rank_shift")])
nb.table(
    movers[["model", "family", "rank_public", "rank_private", "rank_shift", "rank_shift_ci_low", "rank_shift_ci_high", "relative_gap", "relative_gap_pvalue"]],
    "public_private_rank_shift", floatfmt=".3f", pvalue_columns=("relative_gap_pvalue",), parameters={"n_show": n_show},
    title=f"Largest rank gains (top) and losses (bottom) from public to private on {benchmark}",
)
top, bottom = gaps.loc[gaps["rank_shift"].idxmax()], gaps.loc[gaps["rank_shift"].idxmin()]
flagged = gaps[gaps["relative_gap_pvalue"] < alpha]
flagged_median = gaps[gaps["relative_gap_median_pvalue"] < alpha]
nb.md(
    f"Largest climb: **{top['model']}** from rank {top['rank_public']:g} (public) to {top['rank_private']:g} (private), "
    f"range of the shift [{top['rank_shift_ci_low']:g}, {top['rank_shift_ci_high']:g}]; largest fall: **{bottom['model']}** "
    f"from {bottom['rank_public']:g} to {bottom['rank_private']:g} (range [{bottom['rank_shift_ci_low']:g}, {bottom['rank_shift_ci_high']:g}]). "
    f"The median gap is {gaps['gap'].median() * 100:.2f} points, shared by all models; {len(flagged)} of {len(gaps)} models "
    f"have a relative gap whose {1 - alpha:.0%} interval excludes 0 (unadjusted, {len(gaps)} tests); against the median "
    f"of the other models' gaps instead of their mean, {len(flagged_median)} do."
)

# %% [markdown]
# ## Groups of models
# Static vs transformer models, and among static models the post's two ways of training
# one: supervised (a loss on paired data, static-*-mrl) vs distilled (knowledge
# distillation, potion). model2vec outputs, which the post sets aside as an initialization
# (its footnote 3), are a group of their own, compared with the distilled models trained
# from such an initialization. Families come from mteb's model metadata and kinds from the
# model cards (`analysis.results.groups.model_groups`; its docstring states the rules,
# `analysis/results/static_kinds.csv` cites each model's card). Each contrast is Welch's
# t-test of the difference of the group means (valid when the groups' spreads differ,
# which a permutation of group labels is not), with the Welch interval that inverts it; a
# group too small to estimate its spread gets neither a test nor an interval, and the
# table's note says so.

# %%
static_models = gaps[gaps["family"] == "static"].sort_values(["static_kind", "model"])
nb.md("Static models in the analysis, by kind: " + "; ".join(
    f"{kind} ({len(rows)}): {', '.join(short_name(m) for m in rows['model'])}"
    for kind, rows in static_models.groupby("static_kind", sort=False)
) + ".")
specs = [
    ("relative gap: static − transformer", "relative_gap", "family", "static", "transformer"),
    ("relative gap: supervised static − distilled static", "relative_gap", "static_kind", "supervised", "distilled"),
    ("rank shift: supervised static − distilled static", "rank_shift", "static_kind", "supervised", "distilled"),
    ("relative gap: distilled static − model2vec output", "relative_gap", "static_kind", "distilled", "model2vec"),
]
rows = []
for label, column, by, ga, gb in specs:
    values = gaps.set_index("model")[column]
    groups = gaps.set_index("model")[by]
    res = group_contrast(values, groups, group_a=ga, group_b=gb, confidence_level=1 - alpha)
    rows.append({
        "contrast": label, "n_a": res.n_a, "n_b": res.n_b, "sd_a": res.sd_a, "sd_b": res.sd_b, "difference": res.statistic,
        "ci_low": res.confidence_interval.low, "ci_high": res.confidence_interval.high, "t": res.t_statistic, "df": res.df,
        "p": res.pvalue, "note": res.caveat,
    })
contrasts = pd.DataFrame(rows)
nb.table(
    contrasts, "public_private_groups", floatfmt=".3f", pvalue_columns=("p",),
    shown_columns=["contrast", "difference", "ci_low", "ci_high", "p", "n_a", "n_b", "note"],
    title=f"Group contrasts on {benchmark} (difference of group means; Welch's t-test)",
    note=(
        f"interval: {1 - alpha:.0%} Welch interval (the inversion of the same test); p: Welch's t-test, unequal spreads allowed; "
        "no test and no interval for a group too small to estimate its spread (note)."
    ),
)
for row in contrasts.itertuples():
    if np.isnan(row.p):
        nb.md(f"- **{row.contrast}** ({row.n_a} vs {row.n_b} models): {row.difference:+.3f}. {row.note}")
    else:
        nb.md(
            f"- **{row.contrast}** ({row.n_a} vs {row.n_b} models, SD {row.sd_a:.3f} vs {row.sd_b:.3f}): {row.difference:+.3f}; "
            f"{1 - alpha:.0%} CI [{row.ci_low:.3f}, {row.ci_high:.3f}]; Welch t = {row.t:.2f} (df {row.df:.1f}), p {pvalue_phrase(row.p)}."
        )
