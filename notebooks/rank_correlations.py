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
# # Does MTEB predict RTEB's private datasets? Rank correlations over the leaderboard
#
# The post's Goodhart question, asked of every leaderboard model with complete results:
# how well does the MTEB(eng, v2) average rank models the way RTEB(eng) public and
# private rank them, and how well does RTEB public predict RTEB private? The same
# question per MTEB task type against RTEB private. Spearman and Kendall (tau-b) with
# permutation p-values and paired-bootstrap intervals (`analysis.stats.rank_correlation`);
# the unit is the model.
#
# A correlation over the whole leaderboard mixes strong and weak models, and the easy
# part of the ranking (a large model beats a tiny one anywhere) inflates it. So the
# agreement is also measured where users choose, following Benchmark Agreement Testing
# (Perlitz et al. 2024, arXiv:2407.13696; `analysis.stats.benchmark_agreement`): among
# the top k models of the predictor (`top_k`), and over random subsets of k models
# (`subset_sizes`) and all models.

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
mteb_benchmark: str = "MTEB(eng, v2)"  # the MTEB benchmark whose Mean (Task) is the predictor
rteb_benchmark: str = "RTEB(eng, beta)"  # the RTEB benchmark with public and private tasks
highlight: list = []  # models labelled in the plots; empty: the post's models (analysis.results.blog.post_models())
n_resamples: int = 9_999  # permutation and bootstrap draws
agreement_method: str = "kendall"  # rank correlation of the agreement analysis (kendall as in BAT, or spearman)
top_k: list = [10, 20]  # agreement among the top k models of the predictor
subset_sizes: list = [10, 20]  # random model subsets of these sizes (plus all models)
n_subsets: int = 2000  # random subsets per size
confidence_level: float = 0.95  # interval coverage
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from analysis.notebook import OTHER_COLOR, model_palette, setup, short_name
from analysis.results.blog import post_models
from analysis.results.leaderboard import load_leaderboards
from analysis.stats import benchmark_agreement, rank_correlation

nb = setup("rank_correlations.py")
rng = nb.rng("rank_correlations")
highlighted = list(highlight) or post_models()
palette = model_palette(highlighted, post=highlighted)
boards = load_leaderboards([mteb_benchmark, rteb_benchmark], results=nb.results, pin=pin, cache_dir=cache_dir or None)
mteb_lb, rteb_lb = boards[mteb_benchmark], boards[rteb_benchmark]

# %% [markdown]
# ## Models with complete results on both benchmarks
# A model enters only with every task of MTEB and every public and private RTEB task —
# no partial means.

# %%
m, r = mteb_lb.summary, rteb_lb.summary
rteb_complete = rteb_lb.complete_models("public", "private")
keep = pd.Index(mteb_lb.complete_models()).intersection(pd.Index(rteb_complete))
data = pd.DataFrame({
    "mteb": m.loc[keep, "mean_task"],
    "rteb_public": r.loc[keep, "mean_public"],
    "rteb_private": r.loc[keep, "mean_private"],
})
types = mteb_lb.scores[mteb_lb.scores["model"].isin(keep)].groupby(["model", "task_type"])["main_score"].mean().unstack()
for t in types.columns:
    data[f"mteb_{t}"] = types[t]
nb.md(
    f"{len(keep)} models are complete on both {mteb_benchmark} ({len(mteb_lb.spec.tasks)} tasks) and "
    f"{rteb_benchmark} ({sum(t.is_public for t in rteb_lb.spec.tasks)} public, "
    f"{sum(not t.is_public for t in rteb_lb.spec.tasks)} private tasks); "
    f"{len(mteb_lb.complete_models())} are complete on MTEB alone and "
    f"{len(rteb_complete)} on RTEB alone."
)

# %% [markdown]
# ## Correlations

# %%
questions = [
    ("MTEB Mean (Task)", "mteb", "RTEB public", "rteb_public"),
    ("MTEB Mean (Task)", "mteb", "RTEB private", "rteb_private"),
    ("RTEB public", "rteb_public", "RTEB private", "rteb_private"),
] + [(f"MTEB {t}", f"mteb_{t}", "RTEB private", "rteb_private") for t in types.columns]
rows = []
for x_label, x, y_label, y in questions:
    for method in ("spearman", "kendall"):
        res = rank_correlation(data[x], data[y], method=method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
        rows.append({
            "predictor": x_label, "target": y_label, "method": method, "statistic": res.statistic,
            "ci_low": res.confidence_interval.low, "ci_high": res.confidence_interval.high,
            "pvalue": res.pvalue, "n": res.n,
        })
corr = pd.DataFrame(rows)
nb.table(
    corr, "rank_correlations", floatfmt=".3f", pvalue_columns=("pvalue",),
    title=f"Rank correlations across leaderboard models ({mteb_benchmark} vs {rteb_benchmark}, task lists {pin})",
    note=f"Permutation p-values ({n_resamples} draws), {confidence_level:.0%} percentile-bootstrap intervals over models; Kendall is tau-b.",
)

# %%
def rho(x, y, method="spearman"):
    row = corr[(corr["predictor"] == x) & (corr["target"] == y) & (corr["method"] == method)].iloc[0]
    return f"{row['statistic']:.2f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}] (n={row['n']})"

by_type = corr[(corr["target"] == "RTEB private") & (corr["method"] == "spearman") & corr["predictor"].str.startswith("MTEB ") & (corr["predictor"] != "MTEB Mean (Task)")]
best = by_type.sort_values("statistic", ascending=False).iloc[0]
worst = by_type.sort_values("statistic").iloc[0]
nb.md(
    f"Across {len(keep)} models, Spearman's rho between the MTEB average and RTEB public is {rho('MTEB Mean (Task)', 'RTEB public')}, "
    f"and against RTEB private {rho('MTEB Mean (Task)', 'RTEB private')}. RTEB public predicts private with "
    f"{rho('RTEB public', 'RTEB private')}. Among MTEB task types, {best['predictor']} tracks RTEB private best "
    f"(rho {best['statistic']:.2f}) and {worst['predictor']} worst (rho {worst['statistic']:.2f})."
)

# %% [markdown]
# ## Rank–rank plots
# Rank 1 = best. The post's models are labelled where they are complete on both benchmarks.

# %%
ranks = data[["mteb", "rteb_public", "rteb_private"]].rank(ascending=False, method="min")
pairs = [("mteb", "rteb_public"), ("mteb", "rteb_private"), ("rteb_public", "rteb_private")]
labels = {"mteb": f"{mteb_benchmark} rank", "rteb_public": f"{rteb_benchmark} public rank", "rteb_private": f"{rteb_benchmark} private rank"}
fig, axes = plt.subplots(1, 3, figsize=(15, 5.4))
for ax, (x, y) in zip(axes, pairs, strict=True):
    ax.scatter(ranks[x], ranks[y], s=12, color=OTHER_COLOR)
    for name in highlighted:
        if name in ranks.index:
            ax.scatter(ranks.loc[name, x], ranks.loc[name, y], s=45, color=palette[name], label=short_name(name), zorder=3)
    n = len(ranks)
    ax.plot([1, n], [1, n], ls="--", color="0.4", lw=0.8)
    ax.set(xlabel=labels[x], ylabel=labels[y], title=f"Spearman {rho({'mteb': 'MTEB Mean (Task)', 'rteb_public': 'RTEB public'}[x], {'rteb_public': 'RTEB public', 'rteb_private': 'RTEB private'}[y])}")
    ax.invert_xaxis()
    ax.invert_yaxis()
handles, names = axes[0].get_legend_handles_labels()
if handles:
    fig.legend(handles, names, loc="outside lower center", ncols=len(handles), frameon=False)
nb.figure(fig, "rank_correlations")

# %% [markdown]
# ## Agreement where it matters: the top models and random model subsets
# For each question, Kendall's tau (or the chosen statistic) among the top k models of
# the predictor, with its permutation p-value and bootstrap interval over those k
# models, and the distribution of the statistic over random subsets of k models
# (median and 2.5-97.5% range: how much the agreement a user sees depends on which k
# models are compared). `subset_percentile`: share of random k-subsets agreeing at most
# as much as the top k; a small value means agreement is worse among the best models
# than among random models.

# %%
rng = nb.rng("rank_correlations_agreement")  # both agreement tables and their figure
agreement_questions = questions[:3]
top_rows, subset_rows, dists = [], [], []
for x_label, x, y_label, y in agreement_questions:
    res = benchmark_agreement(data[x], data[y], top_k=tuple(top_k), subset_sizes=(*subset_sizes, None), n_subsets=n_subsets, method=agreement_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    question = f"{x_label} -> {y_label}"
    top_rows.append({"question": question, "k": res.n, "statistic": res.overall.statistic, "ci_low": res.overall.confidence_interval.low, "ci_high": res.overall.confidence_interval.high, "pvalue": res.overall.pvalue, "subset_percentile": np.nan})
    for _, row in res.top.iterrows():
        top_rows.append({"question": question, "k": int(row["k"]), "statistic": row["statistic"], "ci_low": row["ci_low"], "ci_high": row["ci_high"], "pvalue": row["pvalue"], "subset_percentile": row["subset_percentile"]})
    sub = res.subsets.assign(question=question)
    subset_rows.append(sub)
    for k, values in res.distributions.items():
        if k < res.n:
            dists.append(pd.DataFrame({"question": question, "k": f"random {k}", "statistic": values}))
top_table = pd.DataFrame(top_rows)
top_table["models"] = np.where(top_table["k"] == len(keep), "all", "top " + top_table["k"].astype(str))
top_table = top_table[["question", "models", "k", "statistic", "ci_low", "ci_high", "pvalue", "subset_percentile"]]
subset_table = pd.concat(subset_rows, ignore_index=True)[["question", "k", "n_subsets", "n_undefined", "mean", "sd", "q025", "median", "q975", "share_below_overall"]]
nb.table(
    top_table, "rank_correlations_agreement_top", floatfmt=".3f", pvalue_columns=("pvalue",),
    title=f"Agreement among the top models ({agreement_method}; top by the predictor; {mteb_benchmark} vs {rteb_benchmark}, task lists {pin})",
    note=f"Permutation p-values and {confidence_level:.0%} percentile-bootstrap intervals over the k models ({n_resamples} draws); subset_percentile: share of {n_subsets} random subsets of k models with a statistic at most the top k's.",
)
nb.table(
    subset_table, "rank_correlations_agreement_subsets", floatfmt=".3f",
    title=f"Agreement over random model subsets ({agreement_method}, {n_subsets} subsets per size)",
    note="Distribution of the statistic over random subsets of k models (uniform, without replacement); k = all models is the single overall value. A description of this leaderboard, not a confidence interval.",
)

# %%
def agreement_sentence(question):
    t = top_table[top_table["question"] == question].set_index("models")
    parts = [f"{idx}: {row['statistic']:.2f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}]" for idx, row in t.iterrows()]
    s = subset_table[subset_table["question"] == question].set_index("k")
    ranges = [f"random {k}: median {row['median']:.2f} (2.5-97.5%: {row['q025']:.2f} to {row['q975']:.2f})" for k, row in s.iterrows() if k < len(keep)]
    return f"- **{question}** ({agreement_method}) {'; '.join(parts)}. Over random subsets, {'; '.join(ranges)}."


nb.md("\n".join(agreement_sentence(q) for q in top_table["question"].unique()))

# %%
dist_frame = pd.concat(dists, ignore_index=True)
order = [f"random {k}" for k in subset_sizes]
fig, axes = plt.subplots(1, len(agreement_questions), figsize=(15, 4.6), sharey=True)
for ax, question in zip(np.atleast_1d(axes), top_table["question"].unique(), strict=True):
    sub = dist_frame[dist_frame["question"] == question]
    sns.violinplot(data=sub, x="k", y="statistic", order=order, ax=ax, color="0.85", inner="quartile", cut=0, linewidth=0.8)
    t = top_table[top_table["question"] == question]
    overall = t.loc[t["models"] == "all", "statistic"].iloc[0]
    ax.axhline(overall, color="0.3", ls="--", lw=1, label=f"all {len(keep)} models")
    for i, k in enumerate(top_k):
        row = t[t["models"] == f"top {k}"].iloc[0]
        pos = order.index(f"random {k}") if f"random {k}" in order else i
        ax.errorbar(pos + 0.28, row["statistic"], yerr=[[row["statistic"] - row["ci_low"]], [row["ci_high"] - row["statistic"]]], fmt="D", color="#d55e00", ms=6, capsize=3, label="top k of the predictor" if i == 0 else None)
    ax.set(title=question, xlabel="models compared", ylabel=f"{agreement_method.capitalize()} rank correlation")
handles, names = np.atleast_1d(axes)[0].get_legend_handles_labels()
fig.legend(handles, names, loc="outside lower center", ncols=len(handles), frameon=False)
nb.figure(fig, "rank_correlations_agreement")
