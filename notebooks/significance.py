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
# # Are the post's differences significant?
#
# The post concludes that the supervised static models beat their distilled
# counterparts on RTEB, above all on the private datasets, while the MTEB averages are
# close. Here each claim is tested over the benchmark's tasks: the unit is the task, the
# statistic the mean score difference, the p-value an exact (or Monte-Carlo) sign-flip
# permutation test and the interval a paired bootstrap (`analysis.stats.paired_bootstrap`).
# With 6 private tasks in RTEB(eng, beta) and 13 in RTEB(beta), the number of tasks — not
# the size of the differences — limits what can be shown; the table says how far.

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
comparisons: list = [["sentence-transformers/static-retrieval-mrl-en-v1", "minishlab/potion-base-8M", "english"], ["sentence-transformers/static-similarity-mrl-multilingual-v1", "minishlab/potion-multilingual-128M", "multilingual"]]  # [supervised, distilled, subset]
mteb_benchmarks: dict = {"english": "MTEB(eng, v2)", "multilingual": "MTEB(Multilingual, v2)"}  # subset -> MTEB benchmark
rteb_benchmarks: dict = {"english": "RTEB(eng, beta)", "multilingual": "RTEB(beta)"}  # subset -> RTEB benchmark
alpha: float = 0.05  # significance level
n_resamples: int = 10_000  # bootstrap draws and Monte-Carlo permutations
seed: int = 20251006  # random seed
heatmap_benchmark: str = "RTEB(beta)"  # benchmark of the pairwise heatmap (private tasks)
top_n: int = 15  # models in the heatmap (best Mean (Private))
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
from analysis.stats import paired_bootstrap, pairwise_significance

NOTEBOOK = "significance.py"
out = from_root(output_dir)
rng = np.random.default_rng(seed)
params = {"pin": pin, "alpha": alpha, "n_resamples": n_resamples, "seed": seed}
names = sorted(set(mteb_benchmarks.values()) | set(rteb_benchmarks.values()) | {heatmap_benchmark})
boards = load_leaderboards(names, results=results_location(results_dir), pin=pin, cache_dir=cache_dir or None)

# %% [markdown]
# ## The post's claims, task by task
# Units are the tasks of the benchmark (side) on which both models have a complete
# score; `n` says how many that is out of the benchmark's tasks. A positive difference
# means the supervised model scores higher.

# %%
rows = []
for supervised, distilled, subset in comparisons:
    for bench, side in [(rteb_benchmarks[subset], False), (rteb_benchmarks[subset], True), (mteb_benchmarks[subset], None)]:
        lb = boards[bench]
        wide = lb.wide(is_public=side, complete_only=False)
        expected = len(wide)
        pair = wide.reindex(columns=[supervised, distilled]).dropna()
        res = paired_bootstrap(pair[supervised].to_numpy() * 100, pair[distilled].to_numpy() * 100, n_resamples=n_resamples, rng=rng)
        rows.append({
            "supervised": supervised.split("/")[-1], "distilled": distilled.split("/")[-1],
            "benchmark": bench, "tasks": {False: "private", True: "public", None: "all"}[side],
            "n": res.n, "n_expected": expected,
            "wins": int((pair[supervised] > pair[distilled]).sum()),
            "difference": res.statistic, "ci_low": res.confidence_interval.low, "ci_high": res.confidence_interval.high,
            "pvalue": res.pvalue, "min_pvalue": res.min_pvalue, "test": res.method,
            "dropped": ", ".join(sorted(set(wide.index) - set(pair.index))),
        })
claims = pd.DataFrame(rows)
claims["significant"] = claims["pvalue"] < alpha
write_markdown_table(
    out / "significance_claims.md", claims.drop(columns=["test"]), notebook=NOTEBOOK, parameters=params, floatfmt=".3f",
    title="Supervised vs distilled static models, paired over tasks (score ×100)",
    note="p: two-sided sign-flip permutation test over tasks (exact enumeration of the 2^n sign patterns when 2^n ≤ n_resamples, else Monte-Carlo); interval: 95% percentile bootstrap over tasks; min_pvalue: the smallest p-value the test can give with n tasks; wins: tasks where the supervised model scores higher.",
)
display(claims)

# %% [markdown]
# ## What the data support

# %%
lines = []
for row in claims.itertuples():
    verdict = "significant" if row.significant else "not significant"
    power = (
        f" With n={row.n}, the smallest attainable p-value is {row.min_pvalue:.2g}"
        + (": no outcome could reach α." if row.min_pvalue >= alpha else ".")
    )
    dropped = f" (not in both: {row.dropped})" if row.dropped else ""
    lines.append(
        f"- **{row.supervised} − {row.distilled}**, {row.benchmark} {row.tasks} tasks "
        f"(n={row.n} of {row.n_expected}{dropped}): {row.difference:+.2f} points, 95% CI "
        f"[{row.ci_low:.2f}, {row.ci_high:.2f}], wins {row.wins}/{row.n}, p = {row.pvalue:.4f} → {verdict} at α={alpha}.{power}"
    )
display(Markdown("\n".join(lines)))
private = claims[claims["tasks"] == "private"]
mteb_rows = claims[claims["tasks"] == "all"]
display(Markdown(
    f"The post's main claim — supervised beats distilled on RTEB private — is significant at α={alpha} in "
    f"{int(private['significant'].sum())} of {len(private)} comparisons; on the MTEB averages, "
    f"{int(mteb_rows['significant'].sum())} of {len(mteb_rows)} differences are significant. "
    "A non-significant result with few tasks is absence of evidence, not evidence of no difference: "
    "the intervals show how large a difference the data still allow."
))

# %% [markdown]
# ## Pairwise significance among the top models on RTEB private
# Every pair is tested on the same bootstrap indices and sign-flip patterns; p-values
# are Holm-adjusted over all pairs.

# %%
lb = boards[heatmap_benchmark]
priv = lb.wide(is_public=False)
top = lb.summary.loc[priv.columns].sort_values("mean_private", ascending=False).index[:top_n]
table = pairwise_significance(priv[top] * 100, n_resamples=n_resamples, correction="holm", alpha=alpha, rng=rng)
write_markdown_table(
    out / "significance_pairwise.md", table, notebook=NOTEBOOK, parameters={**params, "heatmap_benchmark": heatmap_benchmark, "top_n": top_n}, floatfmt=".3f",
    title=f"Pairwise differences on {heatmap_benchmark} private tasks (n={len(priv)}), Holm-adjusted",
)
short = [m.split("/")[-1] for m in top]
diff = pd.DataFrame(np.nan, index=short, columns=short)
sig = pd.DataFrame("", index=short, columns=short)
for r in table.itertuples():
    a, b = r.model_a.split("/")[-1], r.model_b.split("/")[-1]
    diff.loc[a, b], diff.loc[b, a] = r.difference, -r.difference
    sig.loc[a, b] = sig.loc[b, a] = "*" if r.significant else ""
fig, ax = plt.subplots(figsize=(0.6 * len(short) + 3, 0.6 * len(short) + 2))
lim = np.nanmax(np.abs(diff.to_numpy())) if len(short) > 1 else 1.0
im = ax.imshow(diff.to_numpy(dtype=float), cmap="RdBu", vmin=-lim, vmax=lim)
for i in range(len(short)):
    for j in range(len(short)):
        if sig.iat[i, j]:
            ax.text(j, i, "*", ha="center", va="center", fontsize=12)
ax.set_xticks(range(len(short)), short, rotation=90, fontsize=7)
ax.set_yticks(range(len(short)), short, fontsize=7)
ax.set_title(f"{heatmap_benchmark} private: row − column (×100); * Holm-adjusted p < {alpha}", fontsize=9)
fig.colorbar(im, ax=ax, shrink=0.7)
fig.tight_layout()
save_figure(fig, out / "significance_pairwise_heatmap")
plt.show()
plt.close(fig)
display(Markdown(
    f"{int(table['significant'].sum())} of {len(table)} pairs among the top {len(top)} models differ significantly "
    f"on the {len(priv)} private tasks of {heatmap_benchmark} after Holm's correction."
))
