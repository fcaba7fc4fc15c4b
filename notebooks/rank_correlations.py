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
# # Does MTEB predict RTEB's private datasets? Rank correlations over the leaderboard
#
# The post's Goodhart question, asked of every leaderboard model with complete results:
# how well does the MTEB(eng, v2) average rank models the way RTEB(eng) public and
# private rank them, and how well does RTEB public predict RTEB private? The same
# question per MTEB task type against RTEB private. Spearman and Kendall (tau-b) with
# permutation p-values and paired-bootstrap intervals (`analysis.stats.rank_correlation`);
# the unit is the model.

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
mteb_benchmark: str = "MTEB(eng, v2)"  # the MTEB benchmark whose Mean (Task) is the predictor
rteb_benchmark: str = "RTEB(eng, beta)"  # the RTEB benchmark with public and private tasks
highlight: list = ["minishlab/potion-base-8M", "sentence-transformers/static-retrieval-mrl-en-v1", "minishlab/potion-multilingual-128M", "sentence-transformers/static-similarity-mrl-multilingual-v1"]  # models labelled in the plots
n_resamples: int = 9_999  # permutation and bootstrap draws
confidence_level: float = 0.95  # interval coverage
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from analysis.io import save_figure, write_markdown_table
from analysis.paths import from_root, results_location
from analysis.results.leaderboard import load_leaderboards
from analysis.stats import rank_correlation

NOTEBOOK = "rank_correlations.py"
out = from_root(output_dir)
rng = np.random.default_rng(seed)
params = {"pin": pin, "mteb_benchmark": mteb_benchmark, "rteb_benchmark": rteb_benchmark, "n_resamples": n_resamples, "seed": seed}
boards = load_leaderboards([mteb_benchmark, rteb_benchmark], results=results_location(results_dir), pin=pin, cache_dir=cache_dir or None)
mteb_lb, rteb_lb = boards[mteb_benchmark], boards[rteb_benchmark]

# %% [markdown]
# ## Models with complete results on both benchmarks
# A model enters only with every task of MTEB and every public and private RTEB task —
# no partial means.

# %%
m, r = mteb_lb.summary, rteb_lb.summary
keep = m.index[m["complete"]].intersection(r.index[r["complete_public"] & r["complete_private"]])
data = pd.DataFrame({
    "mteb": m.loc[keep, "mean_task"],
    "rteb_public": r.loc[keep, "mean_public"],
    "rteb_private": r.loc[keep, "mean_private"],
})
types = mteb_lb.scores[mteb_lb.scores["model"].isin(keep)].groupby(["model", "task_type"])["main_score"].mean().unstack()
for t in types.columns:
    data[f"mteb_{t}"] = types[t]
display(Markdown(
    f"{len(keep)} models are complete on both {mteb_benchmark} ({len(mteb_lb.spec.tasks)} tasks) and "
    f"{rteb_benchmark} ({sum(t.is_public for t in rteb_lb.spec.tasks)} public, "
    f"{sum(not t.is_public for t in rteb_lb.spec.tasks)} private tasks); "
    f"{int(m['complete'].sum())} are complete on MTEB alone and "
    f"{int((r['complete_public'] & r['complete_private']).sum())} on RTEB alone."
))

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
write_markdown_table(
    out / "rank_correlations.md", corr, notebook=NOTEBOOK, parameters=params, floatfmt=".3f",
    title=f"Rank correlations across leaderboard models ({mteb_benchmark} vs {rteb_benchmark}, task lists {pin})",
    note=f"Permutation p-values ({n_resamples} draws), {confidence_level:.0%} percentile-bootstrap intervals over models; Kendall is tau-b.",
)
display(corr)

# %%
def rho(x, y, method="spearman"):
    row = corr[(corr["predictor"] == x) & (corr["target"] == y) & (corr["method"] == method)].iloc[0]
    return f"{row['statistic']:.2f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}] (n={row['n']})"

by_type = corr[(corr["target"] == "RTEB private") & (corr["method"] == "spearman") & corr["predictor"].str.startswith("MTEB ") & (corr["predictor"] != "MTEB Mean (Task)")]
best = by_type.sort_values("statistic", ascending=False).iloc[0]
worst = by_type.sort_values("statistic").iloc[0]
display(Markdown(
    f"Across {len(keep)} models, Spearman's rho between the MTEB average and RTEB public is {rho('MTEB Mean (Task)', 'RTEB public')}, "
    f"and against RTEB private {rho('MTEB Mean (Task)', 'RTEB private')}. RTEB public predicts private with "
    f"{rho('RTEB public', 'RTEB private')}. Among MTEB task types, {best['predictor']} tracks RTEB private best "
    f"(rho {best['statistic']:.2f}) and {worst['predictor']} worst (rho {worst['statistic']:.2f})."
))

# %% [markdown]
# ## Rank–rank plots
# Rank 1 = best. The post's models are labelled where they are complete on both benchmarks.

# %%
ranks = data[["mteb", "rteb_public", "rteb_private"]].rank(ascending=False, method="min")
pairs = [("mteb", "rteb_public"), ("mteb", "rteb_private"), ("rteb_public", "rteb_private")]
labels = {"mteb": f"{mteb_benchmark} rank", "rteb_public": f"{rteb_benchmark} public rank", "rteb_private": f"{rteb_benchmark} private rank"}
fig, axes = plt.subplots(1, 3, figsize=(15, 5))
for ax, (x, y) in zip(axes, pairs, strict=True):
    ax.scatter(ranks[x], ranks[y], s=12, color="0.6")
    for name in highlight:
        if name in ranks.index:
            ax.scatter(ranks.loc[name, x], ranks.loc[name, y], s=40)
            ax.annotate(name.split("/")[-1], (ranks.loc[name, x], ranks.loc[name, y]), xytext=(4, 4), textcoords="offset points", fontsize=8)
    n = len(ranks)
    ax.plot([1, n], [1, n], ls="--", color="0.4", lw=0.8)
    ax.set(xlabel=labels[x], ylabel=labels[y], title=f"Spearman {rho({'mteb': 'MTEB Mean (Task)', 'rteb_public': 'RTEB public'}[x], {'rteb_public': 'RTEB public', 'rteb_private': 'RTEB private'}[y])}")
    ax.invert_xaxis()
    ax.invert_yaxis()
fig.tight_layout()
save_figure(fig, out / "rank_correlations")
plt.show()
plt.close(fig)
