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
# # Public vs private: who gains, who loses
#
# RTEB keeps part of its datasets private so that a model cannot be tuned to them. For
# every model with complete public and private results, the gap is Mean (Private) −
# Mean (Public), with a bootstrap interval that resamples tasks within each side
# (`analysis.stats.public_private_gap`). Private and public tasks differ in difficulty,
# so the *level* of the gap is not a verdict on any model; the comparison *between*
# models and groups, and the rank shifts, are what speak to Goodhart's law.

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
benchmark: str = "RTEB(beta)"  # an RTEB benchmark (public and private tasks)
highlight: list = ["minishlab/potion-base-8M", "sentence-transformers/static-retrieval-mrl-en-v1", "minishlab/potion-multilingual-128M", "sentence-transformers/static-similarity-mrl-multilingual-v1"]  # models labelled in the plots
n_resamples: int = 10_000  # bootstrap draws
n_show: int = 10  # models listed as largest rank gains and losses
seed: int = 20251006  # random seed
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from analysis.io import save_figure, write_markdown_table
from analysis.paths import from_root, results_location
from analysis.results.groups import model_groups
from analysis.results.leaderboard import load_leaderboard
from analysis.stats import public_private_gap

NOTEBOOK = "public_private_gap.py"
out = from_root(output_dir)
rng = np.random.default_rng(seed)
params = {"pin": pin, "benchmark": benchmark, "n_resamples": n_resamples, "seed": seed}
lb = load_leaderboard(benchmark, results=results_location(results_dir), pin=pin, cache_dir=cache_dir or None)
both = lb.summary.index[lb.summary["complete_public"] & lb.summary["complete_private"]]
display(Markdown(
    f"{benchmark} ({lb.spec.source}): {sum(t.is_public for t in lb.spec.tasks)} public and "
    f"{sum(not t.is_public for t in lb.spec.tasks)} private tasks; {len(both)} of {len(lb.summary)} "
    "models have both sides complete and enter the analysis."
))

# %%
with warnings.catch_warnings():
    warnings.simplefilter("error")  # every kept model is complete: nothing may be dropped silently
    gaps = public_private_gap(lb.scores[lb.scores["model"].isin(both)], n_resamples=n_resamples, rng=rng)
gaps = gaps.merge(model_groups(gaps["model"]), on="model")
write_markdown_table(
    out / "public_private_gap.md",
    gaps[["model", "family", "static_kind", "mean_public", "mean_private", "gap", "gap_ci_low", "gap_ci_high", "rank_public", "rank_private", "rank_shift"]],
    notebook=NOTEBOOK, parameters=params, floatfmt=".3f",
    title=f"Public vs private on {benchmark} (0-1 scale; gap = private − public; rank_shift > 0: climbs on private)",
)
display(gaps.head())

# %% [markdown]
# ## Distribution of the gap, and who moves most in rank

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 5))
axes[0].hist(gaps["gap"] * 100, bins=25, color="0.7")
for name in highlight:
    if name in set(gaps["model"]):
        g = gaps.set_index("model").loc[name, "gap"] * 100
        axes[0].axvline(g, ls="--", lw=1)
        axes[0].annotate(name.split("/")[-1], (g, axes[0].get_ylim()[1] * 0.9), rotation=90, fontsize=7, ha="right")
axes[0].set(xlabel="gap: Mean (Private) − Mean (Public), ×100", ylabel="models", title=f"{benchmark}: gap over {len(gaps)} models")
ax = axes[1]
colors = {"static": "tab:orange", "transformer": "0.6", "baseline": "black", "unknown": "tab:purple"}
for fam, grp in gaps.groupby("family"):
    ax.scatter(grp["mean_public"] * 100, grp["mean_private"] * 100, s=14, color=colors.get(fam, "0.3"), label=f"{fam} (n={len(grp)})")
for name in highlight:
    if name in set(gaps["model"]):
        r = gaps.set_index("model").loc[name]
        ax.annotate(name.split("/")[-1], (r["mean_public"] * 100, r["mean_private"] * 100), xytext=(4, 4), textcoords="offset points", fontsize=7)
lim = [0, 100 * float(max(gaps["mean_public"].max(), gaps["mean_private"].max()))]
ax.plot(lim, lim, ls="--", color="0.3", lw=0.8, label="y = x")
ax.set(xlabel="Mean (Public) ×100", ylabel="Mean (Private) ×100", title="public vs private")
ax.legend(fontsize=8)
fig.tight_layout()
save_figure(fig, out / "public_private_gap")
plt.show()
plt.close(fig)

movers = pd.concat([gaps.nlargest(n_show, "rank_shift"), gaps.nsmallest(n_show, "rank_shift")])
write_markdown_table(
    out / "public_private_rank_shift.md", movers[["model", "family", "rank_public", "rank_private", "rank_shift", "gap"]],
    notebook=NOTEBOOK, parameters={**params, "n_show": n_show}, floatfmt=".3f",
    title=f"Largest rank gains (top) and losses (bottom) from public to private on {benchmark}",
)
top, bottom = movers.iloc[0], movers.iloc[-1]
display(Markdown(
    f"Largest climb: **{top['model']}** from rank {top['rank_public']} (public) to {top['rank_private']} (private); "
    f"largest fall: **{bottom['model']}** from {bottom['rank_public']} to {bottom['rank_private']}. "
    f"The median gap is {gaps['gap'].median() * 100:.2f} points (IQR {gaps['gap'].quantile(0.25) * 100:.2f} to {gaps['gap'].quantile(0.75) * 100:.2f})."
))

# %% [markdown]
# ## Groups from model metadata
# Static vs transformer models, and among static models distilled (model2vec) vs
# supervised; groups are read by `analysis.results.groups.model_groups` (its docstring states the
# rules). The difference of group mean gaps gets a bootstrap interval over models
# (models resampled within each group).

# %%
def group_contrast(a: pd.Series, b: pd.Series, label: str) -> dict:
    if len(a) < 2 or len(b) < 2:
        return {"contrast": label, "n_a": len(a), "n_b": len(b), "difference": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    ia = rng.integers(0, len(a), (n_resamples, len(a)))
    ib = rng.integers(0, len(b), (n_resamples, len(b)))
    boot = a.to_numpy()[ia].mean(1) - b.to_numpy()[ib].mean(1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return {"contrast": label, "n_a": len(a), "n_b": len(b), "difference": a.mean() - b.mean(), "ci_low": lo, "ci_high": hi}

fam = gaps.set_index("model")
contrasts = pd.DataFrame([
    group_contrast(fam.loc[fam["family"] == "static", "gap"], fam.loc[fam["family"] == "transformer", "gap"], "gap: static − transformer"),
    group_contrast(fam.loc[fam["static_kind"] == "supervised", "gap"], fam.loc[fam["static_kind"] == "distilled", "gap"], "gap: supervised static − distilled static"),
    group_contrast(fam.loc[fam["static_kind"] == "supervised", "rank_shift"].astype(float), fam.loc[fam["static_kind"] == "distilled", "rank_shift"].astype(float), "rank shift: supervised static − distilled static"),
])
write_markdown_table(out / "public_private_groups.md", contrasts, notebook=NOTEBOOK, parameters=params, floatfmt=".3f",
                     title=f"Group contrasts on {benchmark} (95% bootstrap over models within groups)")
display(contrasts)
summary = gaps.groupby(["family", "static_kind"])[["gap", "rank_shift"]].agg(["count", "mean", "median"])
display(summary)
c = contrasts.set_index("contrast")
row = c.loc["gap: supervised static − distilled static"]
display(Markdown(
    f"Supervised static models ({int(row['n_a'])}) vs distilled static models ({int(row['n_b'])}): the gap differs by "
    f"{row['difference'] * 100:+.2f} points (95% CI {row['ci_low'] * 100:.2f} to {row['ci_high'] * 100:.2f}). "
    + ("With so few supervised static models this interval is rough; treat it as descriptive." if row["n_a"] < 5 else "")
))
