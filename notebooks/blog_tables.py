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
# # The blog's two tables, regenerated from the MTEB results repository
#
# "Evaluating static models on RTEB" (2025-10-06) reports, for its static models, the
# MTEB average (Mean (Task) of MTEB(eng, v2) or MTEB(Multilingual, v2)) and the RTEB
# public and private means (RTEB(eng, beta) for the English models, RTEB(beta) for the
# multilingual ones). This notebook recomputes every cell from result files through
# `analysis.load_leaderboards`, under two task-list definitions:
#
# * `as-of-post`: the benchmarks as mteb 1.39.2 defined them, the last mteb release
#   before the post (pinned by `tools/pin_benchmarks.py` in `analysis/results/pins/`);
# * `now`: the benchmarks as the installed mteb defines them.
#
# The post's own values are read from the post's markdown, never typed here.

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache (downloaded online)
blog_path: str = "../shared/reference/blog-evaluating-static-models-on-rteb.md"  # the post, relative to the repo root
pins: list = ["as-of-post", "now"]  # task-list definitions to regenerate the tables under
mteb_benchmarks: dict = {"english": "MTEB(eng, v2)", "multilingual": "MTEB(Multilingual, v2)"}  # MTEB subset -> benchmark
rteb_benchmarks: dict = {"english": "RTEB(eng, beta)", "multilingual": "RTEB(beta)"}  # MTEB subset -> RTEB benchmark
include_tasks: list = []  # tasks added to every benchmark's list
exclude_tasks: list = []  # tasks removed from every benchmark's list
all_models_in_figure: bool = True  # show every leaderboard model with both RTEB sides as context
output_dir: str = "figures"  # where tables and figures go, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: $STATIC_RTEB_CACHE or ~/.cache/static-rteb

# %%
import matplotlib.pyplot as plt
import pandas as pd

from analysis.core.paths import from_root
from analysis.notebook import OTHER_COLOR, model_palette, setup, short_name
from analysis.results import blog as blogmod
from analysis.results.leaderboard import load_leaderboards

nb = setup("blog_tables.py")
post = blogmod.parse_blog_tables(from_root(blog_path))
benchmarks = sorted(set(mteb_benchmarks.values()) | set(rteb_benchmarks.values()))
palette = model_palette(post.rteb["model"])
nb.md("The post's tables, as read from the post:")
nb.show(post.mteb[["model", "name", "mteb_avg", "subset"]])
nb.show(post.rteb[["model", "name", "public", "private"]])

# %% [markdown]
# ## Load every benchmark under each task-list definition
# All leaderboard models are loaded (the Borda rank and the figure's context need them);
# each result file is parsed once per definition.

# %%
boards = {
    pin: load_leaderboards(
        benchmarks,
        results=nb.results,
        pin=pin,
        include_tasks=include_tasks or None,
        exclude_tasks=exclude_tasks or None,
        cache_dir=cache_dir or None,
    )
    for pin in pins
}
first = boards[pins[0]][benchmarks[0]].provenance
nb.md(
    f"Results: `{first['results']}` (git commit: {first.get('results_commit') or 'not a git checkout'}; "
    f"fingerprint `{first['results_fingerprint']}`, {first['result_files']} files); "
    f"mteb {first['mteb_version']}."
)
nb.show(pd.DataFrame(
    [
        {"task list": pin, "benchmark": name, "source": lb.spec.source, "tasks": len(lb.spec.tasks)}
        for pin in pins
        for name, lb in boards[pin].items()
    ]
))

# %% [markdown]
# ## The tables

# %%
checks = {}
note = (
    "Scores ×100. MTEB avg = Mean (Task); RTEB = Mean (Public), Mean (Private). "
    "— = the model misses a task of that benchmark under this task list (no partial means)."
)
for pin in pins:
    mteb_table, rteb_table = blogmod.regenerate(
        post, boards[pin], mteb_benchmarks=mteb_benchmarks, rteb_benchmarks=rteb_benchmarks
    )
    nb.md(f"### Task lists `{pin}`")
    nb.table(
        mteb_table[["Name", "MTEB avg score", "MTEB subset"]], f"blog_mteb_table.{pin}",
        note=note, parameters={"pin": pin},
    )
    nb.table(
        rteb_table[["Name", "RTEB public score", "RTEB private score"]], f"blog_rteb_table.{pin}",
        note=note, parameters={"pin": pin},
    )
    checks[pin] = blogmod.compare_cells(post, mteb_table, rteb_table)

# %% [markdown]
# ## The post's cells: post vs data

# %%
cells = pd.concat({pin: c for pin, c in checks.items()}, names=["pin"]).reset_index(level=0)
summary = cells.pivot_table(index=["model", "cell"], columns="pin", values=["regenerated", "match"], aggfunc="first")
summary.columns = [f"{a} ({b})" for a, b in summary.columns]
summary = summary.reset_index().merge(
    cells[cells["pin"] == pins[0]][["model", "cell", "blog"]], on=["model", "cell"]
)
ordered = ["model", "cell", "blog"] + [f"regenerated ({p})" for p in pins] + [f"match ({p})" for p in pins]
summary = summary[ordered]
nb.table(
    summary, "blog_cells_check", parameters={"pins": pins},
    note="A cell matches when the regenerated value, rounded to the decimals the post printed, equals it.",
)
n_match = {p: int(checks[p]["match"].sum()) for p in pins}
nb.md(", ".join(f"`{p}`: **{n_match[p]} of {len(checks[p])}** cells reproduced" for p in pins) + ".")

# %% [markdown]
# ## Why a cell differs
# Each explanation below is computed from the result files: the tasks the model misses
# (and why), the mean over what is there, and how the task lists differ between the
# definitions.

# %%
for pin in pins:
    other = next((p for p in pins if p != pin), None)
    for cell in checks[pin][~checks[pin]["match"]].to_dict("records"):
        lb = boards[pin][cell["benchmark"]]
        ref = boards[other][cell["benchmark"]] if other else None
        nb.md(f"`{pin}` — " + blogmod.explain_cell(pd.Series(cell), lb, reference=ref))

# %% [markdown]
# What the results folder itself says about the tasks that are missing:

# %%
absent = {
    task
    for pin in pins
    for cell in checks[pin][~checks[pin]["match"]].to_dict("records")
    for task in boards[pin][cell["benchmark"]].missing.query("model == @cell['model']")["task"]
}
for line in blogmod.readme_mentions(first["results"], absent):
    nb.md(f"> {line}")

# %% [markdown]
# ## RTEB public vs private
# The post's models on their RTEB benchmark (colored, the same colors in every notebook),
# over every other leaderboard model that has both sides complete on that benchmark
# (grey). Points above the line score higher on the private (held-out) datasets than on
# the public ones. A post model missing a task of the benchmark has no point; its legend
# entry says how many tasks it misses.

# %%
highlighted = set(post.rteb["model"])
for pin in pins:
    fig, axes = plt.subplots(1, 2, figsize=(11, 6))
    for ax, subset in zip(axes, ["english", "multilingual"], strict=True):
        lb = boards[pin][rteb_benchmarks[subset]]
        s = lb.summary
        both = s[s["complete_public"] & s["complete_private"] & ~s.index.isin(highlighted)]
        if all_models_in_figure and len(both):
            ax.scatter(both["mean_public"] * 100, both["mean_private"] * 100, s=14, color=OTHER_COLOR,
                       label=f"other leaderboard models (n={len(both)})")
        for model in post.mteb.loc[post.mteb["subset"] == subset, "model"]:
            row = s.loc[model] if model in s.index else None
            if row is not None and row["complete_public"] and row["complete_private"]:
                ax.scatter([row["mean_public"] * 100], [row["mean_private"] * 100], s=70, zorder=3,
                           color=palette[model], edgecolor="black", linewidth=0.6, label=short_name(model))
            else:
                n_missing = 0 if row is None else int(row["n_expected"] - row["n_tasks"])
                why = "no results" if row is None else f"misses {n_missing} task{'s' * (n_missing != 1)}"
                ax.scatter([], [], s=70, facecolor="none", edgecolor=palette[model],
                           label=f"{short_name(model)} ({why}, not shown)")
        top = 100 * max(0.01, float(pd.concat([s["mean_public"], s["mean_private"]]).max()))
        ax.axline((0, 0), slope=1, ls="--", color="0.4", lw=0.8, label="y = x")
        ax.set(xlim=(0, top * 1.05), ylim=(0, top * 1.05), title=lb.name,
               xlabel="Mean (Public) ×100", ylabel="Mean (Private) ×100")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.13))  # below the axes: never over points
    fig.suptitle(f"RTEB public vs private means, task list {pin}")
    nb.figure(fig, f"rteb_public_vs_private.{pin}")
