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
# # Are the post's differences significant?
#
# The post concludes that the supervised static models beat their distilled
# counterparts on RTEB, above all on the private datasets, while the MTEB averages are
# close. Here each claim is tested over the benchmark's tasks: the unit is the task, the
# statistic the mean score difference, the p-value an exact (or Monte-Carlo) sign-flip
# permutation test, and the interval the one obtained by inverting that test
# (`analysis.stats.paired_bootstrap`): it excludes 0 exactly when p < α. The test's null
# is that the two models' scores on a task are exchangeable (symmetric differences);
# `benchmarks/README_stats.md` gives its measured coverage and type-I error at these
# numbers of tasks. With RTEB's few private tasks (the tables below count them), the
# number of tasks, not the size of the differences, limits what can be shown.
#
# Tasks are assumed independent. Near-duplicate tasks are not: tasks whose residual scores
# correlate strongly over the leaderboard's models (the rule and its threshold:
# `analysis/results/clusters.json`, derived from the results by `tools/task_clusters.py`)
# count as one unit: every test here gets `clusters=`, so their signs flip together
# (`units` says how many independent units remain).

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
comparisons: list = []  # [supervised, distilled, subset] triples; empty: the post's (analysis.results.blog.post_comparisons())
mteb_benchmarks: dict = {"english": "MTEB(eng, v2)", "multilingual": "MTEB(Multilingual, v2)"}  # subset -> MTEB benchmark
rteb_benchmarks: dict = {"english": "RTEB(eng, beta)", "multilingual": "RTEB(beta)"}  # subset -> RTEB benchmark
alpha: float = 0.05  # significance level; intervals have level 1 - alpha
adjustment: str = "maxT"  # pairwise table: maxT (simultaneous intervals), holm, bonferroni, bh or none
n_resamples: int = 10_000  # Monte-Carlo sign patterns when a test is not exact
seed: int = 20251006  # random seed
heatmap_benchmark: str = "RTEB(beta)"  # benchmark of the pairwise heatmap (private tasks)
top_n: int = 15  # models in the heatmap (best Mean (Private))
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from analysis.core.io import pvalue_phrase
from analysis.notebook import setup, short_name
from analysis.results.blog import post_comparisons
from analysis.results.clusters import task_clusters
from analysis.results.leaderboard import load_leaderboards
from analysis.stats import (
    adjust_pvalues,
    compare,
    friedman_nemenyi,
    paired_bootstrap,
    pairwise_significance,
)

nb = setup("significance.py")
pairs_to_test = [tuple(c) for c in comparisons] or post_comparisons()
rng = nb.rng("significance_claims")
names = sorted(set(mteb_benchmarks.values()) | set(rteb_benchmarks.values()) | {heatmap_benchmark})
boards = load_leaderboards(names, results=nb.results, pin=pin, cache_dir=cache_dir or None)

# %% [markdown]
# ## The post's claims, task by task
# Units are the tasks of the benchmark (side) on which both models have a complete
# score; `n` says how many that is out of the benchmark's tasks. A positive difference
# means the supervised model scores higher. `p_holm` adjusts the claims' p-values over
# the claims in this table (Holm).

# %%
rows = []
for supervised, distilled, subset in pairs_to_test:
    for bench, side in [(rteb_benchmarks[subset], False), (rteb_benchmarks[subset], True), (mteb_benchmarks[subset], None)]:
        wide = boards[bench].wide(is_public=side, complete_only=False)
        pair = wide.reindex(columns=[supervised, distilled]).dropna()
        res = paired_bootstrap(pair[supervised] * 100, pair[distilled] * 100, clusters=task_clusters(bench), confidence_level=1 - alpha, n_resamples=n_resamples, rng=rng)
        d = pair[supervised] - pair[distilled]
        rows.append({
            "supervised": short_name(supervised), "distilled": short_name(distilled),
            "benchmark": bench, "tasks": {False: "private", True: "public", None: "all"}[side],
            "n": res.n, "units": res.n_units, "n_expected": len(wide),
            "wins": int((d > 0).sum()), "ties": int((d == 0).sum()), "losses": int((d < 0).sum()),
            "difference": res.statistic, "ci_low": res.confidence_interval.low, "ci_high": res.confidence_interval.high,
            "d_z": res.effect_size, "p": res.pvalue, "exact": res.exact, "p_ttest": res.ttest_pvalue, "min_p": res.min_pvalue,
            "dropped": ", ".join(sorted(set(wide.index) - set(pair.index))),
        })
claims = pd.DataFrame(rows)
claims["p_holm"] = adjust_pvalues(claims["p"].to_numpy(), adjustment="holm")
claims["significant"] = claims["p"] < alpha  # per claim: the interval excludes 0
claims["significant_holm"] = claims["p_holm"] < alpha  # over this table's claims
nb.table(
    claims, "significance_claims", floatfmt=".3f", pvalue_columns=("p", "p_ttest", "min_p", "p_holm"),
    shown_columns=["supervised", "distilled", "benchmark", "difference", "ci_low", "ci_high", "p_holm", "significant_holm"],
    title="Supervised vs distilled static models, paired over tasks (score ×100)",
    note=(
        f"p: two-sided sign-flip permutation test over tasks (exact: over all 2^n sign patterns of the n units, else {n_resamples} random ones), one sign per "
        "cluster of near-duplicate tasks (units: clusters and single tasks; analysis/results/clusters.json); "
        f"interval: {1 - alpha:.0%} interval inverting that test (excludes 0 exactly when p < {alpha}); "
        "p_ttest: paired t-test over the units (reference); d_z: Cohen's d_z; min_p: the smallest p-value the test can give with these units; "
        "wins/ties/losses: tasks where the supervised model scores higher/equal/lower; p_holm: Holm over this table's claims; "
        f"significant: p < {alpha} for this claim alone (the interval excludes 0); significant_holm: p_holm < {alpha} "
        "(the claims as one family; the per-claim intervals are not adjusted)."
    ),
)

# %% [markdown]
# ## What the data support

# %%
lines = []
for row in claims.itertuples():
    verdict = "significant" if row.significant else "not significant"
    power = (
        f" With {row.units} independent units, the smallest attainable p-value is {row.min_p:.2g}"
        + (": no outcome could reach α, and the interval is unbounded." if row.min_p >= alpha else ".")
    )
    dropped = f" (not in both: {row.dropped})" if row.dropped else ""
    lines.append(
        f"- **{row.supervised} − {row.distilled}**, {row.benchmark} {row.tasks} tasks "
        f"(n={row.n} of {row.n_expected}{dropped}): {row.difference:+.2f} points, {1 - alpha:.0%} CI "
        f"[{row.ci_low:.2f}, {row.ci_high:.2f}], wins/ties/losses {row.wins}/{row.ties}/{row.losses}, "
        f"d_z = {row.d_z:.2f}, p {pvalue_phrase(row.p)} → {verdict} at α={alpha}.{power}"
    )
nb.md("\n".join(lines))
private = claims[claims["tasks"] == "private"]
mteb_rows = claims[claims["tasks"] == "all"]
nb.md(
    f"The post's main claim (supervised beats distilled on RTEB private) is significant at α={alpha} in "
    f"{int(private['significant'].sum())} of {len(private)} comparisons "
    f"({int((private['p_holm'] < alpha).sum())} after Holm over the {len(claims)} claims); on the MTEB averages, "
    f"{int(mteb_rows['significant'].sum())} of {len(mteb_rows)} differences are significant. "
    "A non-significant result with few tasks is absence of evidence, not evidence of no difference: "
    "the intervals show how large a difference the data still allow."
)

# %% [markdown]
# ## Pairwise significance among the top models on RTEB private
# Every pair of the top models is tested on the private tasks. The adjustment for the
# many pairs is Westfall–Young max-T by default: one sign pattern is applied to all
# pairs at once, so the adjustment uses the correlation between pairs; the intervals
# are the simultaneous intervals that invert its critical value, so a cell is starred
# exactly when its interval excludes 0. Holm and Benjamini–Hochberg p-values are in
# the table too.

# %%
rng = nb.rng("significance_pairwise")  # the table and its heatmap
lb = boards[heatmap_benchmark]
priv = lb.wide(is_public=False)
top = lb.summary.loc[priv.columns].sort_values("mean_private", ascending=False).index[:top_n]
pairwise = pairwise_significance(priv[top] * 100, clusters=task_clusters(heatmap_benchmark), adjustment=adjustment, alpha=alpha, n_resamples=n_resamples, rng=rng)
table = pairwise.table
nb.table(
    table, "significance_pairwise", floatfmt=".3f",
    pvalue_columns=("pvalue", "ttest_pvalue", "pvalue_maxT", "pvalue_holm", "pvalue_bh", "pvalue_adjusted"),
    parameters={"heatmap_benchmark": heatmap_benchmark, "top_n": top_n},
    title=f"Pairwise differences on {heatmap_benchmark} private tasks (n={len(priv)}, {pairwise.n_units} units, ×100), {adjustment}-adjusted",
    note=f"{pairwise.method}; interval: {pairwise.interval}; significant: pvalue_adjusted < {alpha}.",
    show=False,
)
short = [short_name(m) for m in top]
diff = pd.DataFrame(np.nan, index=short, columns=short)
stars = pd.DataFrame("", index=short, columns=short)
for r in table.itertuples():
    a, b = short_name(r.model_a), short_name(r.model_b)
    diff.loc[a, b], diff.loc[b, a] = r.difference, -r.difference
    stars.loc[a, b] = stars.loc[b, a] = "*" if r.significant else ""
size = 0.45 * len(short) + 3
fig, ax = plt.subplots(figsize=(size + 1, size))
lim = float(np.nanmax(np.abs(diff.to_numpy()))) if len(short) > 1 else 1.0
sns.heatmap(
    diff.astype(float), ax=ax, cmap="RdBu", vmin=-lim, vmax=lim, center=0, square=True,
    annot=stars, fmt="", annot_kws={"fontsize": 11}, cbar_kws={"label": "row − column (score ×100)", "shrink": 0.7},
)
ax.set(xlabel="", ylabel="", title=f"{heatmap_benchmark} private (n={len(priv)}): * {adjustment}-adjusted p < {alpha}")
ax.tick_params(labelsize=7)
ax.grid(False)
nb.figure(fig, "significance_pairwise_heatmap")
nb.md(
    f"{int(table['significant'].sum())} of {len(table)} pairs among the top {len(top)} models differ significantly "
    f"on the {len(priv)} private tasks of {heatmap_benchmark} after the {adjustment} adjustment "
    f"(Holm: {int((table['pvalue_holm'] < alpha).sum())}; Benjamini–Hochberg, for screening: {int((table['pvalue_bh'] < alpha).sum())}). "
    f"Each starred cell's {1 - alpha:.0%} {pairwise.interval.split(':')[0]} interval excludes 0."
)

# %% [markdown]
# ## Critical-difference diagrams: RTEB private and MTEB
# `analysis.stats.compare` puts the top models of a leaderboard side into one report: each
# model's mean score, its simultaneous rank interval, the models it is significantly
# better than (letters; paired studentized sign-flip tests over the tasks, one sign per
# cluster of near-duplicate tasks, step-down max-T) and wins/ties/losses. The diagram
# (drawn with scikit-posthocs) places the models at their mean score and joins the ones
# that these tests cannot tell apart. It is **not** the usual Nemenyi diagram: Nemenyi's
# test compares mean ranks, which depend on which other models are in the pool (Benavoli,
# Corani & Mangili, JMLR 2016); Friedman + Nemenyi is shown below each diagram as a
# labelled reference only.

# %%
cd_views = [(heatmap_benchmark, False, "private"), (mteb_benchmarks["english"], None, "all tasks")]
for bench, side, side_label in cd_views:
    board = boards[bench]
    wide = board.wide(is_public=side)
    mean_col = {False: "mean_private", True: "mean_public", None: "mean_task"}[side]
    best = board.summary.loc[wide.columns].sort_values(mean_col, ascending=False).index[:top_n]
    shorts = [short_name(m) for m in best]
    scores = (wide[best].set_axis(shorts, axis=1) if len(set(shorts)) == len(shorts) else wide[best]) * 100
    slug = "rteb_private" if side is False else "mteb"
    report = compare(scores, clusters=task_clusters(bench), alpha=alpha, n_resamples=n_resamples, rng=nb.rng(f"significance_compare_{slug}"))
    nb.table(
        report.to_frame().reset_index(), f"significance_compare_{slug}", floatfmt=".2f",
        parameters={"top_n": top_n},
        title=f"{bench} {side_label}: top {len(best)} models compared (score ×100; {report.n_tasks} tasks, {report.n_units} units)",
        note=report.caption(),
    )
    fig, ax = plt.subplots(figsize=(10, 0.3 * len(best) + 1.6))
    report.plot_cd(ax=ax)
    ax.set_title(f"{bench} {side_label} (×100): models joined by a bar are not significantly different (max-T, α={alpha})", fontsize=9, pad=18)
    nb.figure(fig, f"significance_cd_{slug}")
    reference = friedman_nemenyi(scores, alpha=alpha)
    nemenyi_pairs = int((reference.pvalues.to_numpy()[np.triu_indices(len(best), 1)] < alpha).sum())
    ours = int(report.models["better_than"].str.len().sum())
    nb.md(
        f"**{bench} {side_label}**: of {len(best) * (len(best) - 1) // 2} pairs among the top {len(best)} models, "
        f"{ours} differ significantly under max-T ({report.n_units} independent units of {report.n_tasks} tasks). "
        f"*Reference only* (mean-rank tests; see the caveat above): Friedman χ² = {reference.statistic:.1f} "
        f"(p {pvalue_phrase(reference.pvalue)}), Nemenyi critical difference {reference.critical_difference:.2f} mean ranks, "
        f"{nemenyi_pairs} pairs separated by Nemenyi."
    )
