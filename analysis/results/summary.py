"""Per-model summary of a leaderboard: means, two ranks, and explicit completeness.

``borda_rank`` is mteb's leaderboard rank (``_borda_rank_from_long``, as
``Benchmark._create_summary_table`` calls it, partial tasks by their mean); ``rank_complete`` the
same Borda count among the complete models only, the rank to quote "on the benchmark" (what
``rank_intervals(aggregate="borda")`` computes). Both equal mteb's own table on every benchmark of
the snapshot (``tests/results/test_mteb_table.py``); ``docs/leaderboard.md``. A mean is NaN unless
the model has every task of its scope, unless partial means are asked for by name.
"""

from __future__ import annotations

import shlex
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..core.errors import spell, spelling
from .specs import BenchmarkSpec

#: Loading warns when fewer than this share of the models are complete.
COMPLETE_SHARE_WARNING = 0.25


def borda_rank(
    scores: pd.DataFrame, models: Sequence[str], *, n_models: int | None = None
) -> pd.Series:
    """Borda rank as mteb's leaderboard computes it (``_borda_rank_from_long``).

    Per task, the models with a score on it are ranked (higher is better, ties get the
    average rank) and earn ``n_models - rank`` points; a missing task earns 0. Points are
    summed and ranked with ties sharing the best ("min") rank, among ``models`` and every
    model of ``scores`` (a NaN score: the model is in the ranking, the task earns it
    nothing), as mteb ranks every model of its long table.

    Args:
        scores: long table with ``model``, ``task``, ``main_score``.
        models: the models whose rank is returned.
        n_models: the points' offset; ``len(models)`` by default. mteb's table passes the
            number of models with a complete score on some task, fewer than it ranks.

    Returns:
        The rank per model of ``models`` (index ``model``).

    Examples:
        >>> import pandas as pd
        >>> from analysis.results.summary import borda_rank
        >>> long = pd.DataFrame({"model": ["a", "b", "a", "b", "c"],
        ...                      "task": ["t1", "t1", "t2", "t2", "t2"],
        ...                      "main_score": [0.9, 0.8, 0.5, 0.5, 0.7]})
        >>> borda_rank(long, ["a", "b", "c"]).to_dict()  # a: 2 + 0.5, b: 1 + 0.5, c: 2
        {'a': 1, 'b': 3, 'c': 2}
    """
    n = len(models) if n_models is None else n_models
    if scores.empty:
        return pd.Series(1, index=pd.Index(models, name="model"), dtype="int64")
    ranks = scores.groupby("task")["main_score"].rank(method="average", ascending=False)
    everyone = list(dict.fromkeys([*models, *scores["model"].tolist()]))
    points = (n - ranks).groupby(scores["model"]).sum().reindex(everyone, fill_value=0.0)
    return points.rank(method="min", ascending=False).astype("int64").loc[list(models)]


def mteb_borda_rank(
    scores: pd.DataFrame, missing: pd.DataFrame, models: Sequence[str] | None = None
) -> pd.Series:
    """The leaderboard rank mteb gives ``models`` (None: all), by the Borda count of its table.

    Its table counts a model's partial score on a task it lacks (``missing``'s
    ``partial_score``) and ranks the models with a score, with their number as the points'
    offset. Returns the rank of each model it ranks (a model without a score has none).
    """
    if models is not None:
        scores, missing = (f[f["model"].isin(set(models))] for f in (scores, missing))
    partial = missing.loc[
        missing["reason"].str.startswith("missing "), ["model", "task", "partial_score"]
    ]
    seen = pd.concat(
        [scores[["model", "task", "main_score"]],
         partial.rename(columns={"partial_score": "main_score"})],
        ignore_index=True,
    )  # fmt: skip
    ranked = sorted(set(scores["model"].tolist()))  # tolist: Arrow strings one by one are slow
    return borda_rank(seen, ranked, n_models=len(ranked))


def _mean(have: dict[str, float], tasks: list[str], allow_partial: bool) -> float:
    """Mean of ``have`` over ``tasks``; NaN if one is missing, unless partial means are allowed.

    Summed in the order of ``tasks`` (the benchmark's), never a set's: a set's order changes
    with Python's hash seed, and with it the last bit of the sum and a rounded digit.
    """
    vals = [have[t] for t in tasks if t in have]
    if not tasks or not vals or (len(vals) < len(tasks) and not allow_partial):
        return float("nan")
    return float(np.mean(vals))


def complete_models(scores: pd.DataFrame, spec: BenchmarkSpec) -> list[str]:
    """Models with a score on every task of ``spec``, sorted."""
    expected = set(spec.task_names)
    tasks = scores[scores["task"].isin(expected)].groupby("model")["task"].nunique()
    return sorted(tasks.index[tasks == len(expected)]) if expected else []


def summarize(
    scores: pd.DataFrame,
    missing: pd.DataFrame,
    spec: BenchmarkSpec,
    *,
    allow_partial_means: bool = False,
) -> pd.DataFrame:
    """Per-model summary: means, Borda ranks and explicit completeness.

    Args:
        scores: the loader's long table.
        missing: the loader's missing table.
        spec: the benchmark's task list (defines what "complete" means).
        allow_partial_means: average over the available tasks when some are missing.
            Off by default: a mean over a partial set of tasks is NaN.

    Returns:
        One row per model (sorted by Borda rank) with columns ``revision``,
        ``n_tasks``/``n_expected``, ``n_public``/``n_public_expected``,
        ``n_private``/``n_private_expected``, ``complete``, ``complete_public``,
        ``complete_private``, ``missing_tasks``, ``mean_task``, ``mean_public``, ``mean_private``,
        ``partial_means``, ``borda_rank`` (mteb's, over every model with a complete task score; <NA>
        for the others) and ``rank_complete`` (Borda among complete models; <NA> otherwise).
    """
    ordered = {scope: spec.scope_tasks(scope) for scope in ("all", "public", "private")}
    public, private = set(ordered["public"]), set(ordered["private"])
    expected = public | private
    # plain Python over the columns: per-model pandas indexing costs seconds at 400 models
    have_by_model: dict[str, dict[str, float]] = defaultdict(dict)
    revisions_by_model: dict[str, set[str]] = defaultdict(set)
    columns = [scores[c].tolist() for c in ("model", "revision", "task", "main_score")]
    for model, revision, task, score in zip(*columns, strict=True):
        have_by_model[model][task] = score
        revisions_by_model[model].add(str(revision))
    missing_revisions: dict[str, set[str]] = defaultdict(set)
    # tolist, not itertuples: iterating the loader's Arrow columns row by row costs 0.1 s a table
    for model, revision in zip(
        missing["model"].tolist(), missing["revision"].tolist(), strict=True
    ):
        missing_revisions[model].add(str(revision))
    models = sorted(set(have_by_model) | set(missing_revisions))
    out = []
    for model in models:
        have = have_by_model.get(model, {})
        revisions = sorted(revisions_by_model.get(model) or missing_revisions.get(model) or ())
        n_pub, n_priv = len(public & have.keys()), len(private & have.keys())
        out.append(
            {
                "model": model,
                "revision": ";".join(revisions),
                "n_tasks": n_pub + n_priv,
                "n_expected": len(expected),
                "n_public": n_pub,
                "n_public_expected": len(public),
                "n_private": n_priv,
                "n_private_expected": len(private),
                "complete": n_pub + n_priv == len(expected),
                "complete_public": n_pub == len(public),
                "complete_private": n_priv == len(private),
                "missing_tasks": ";".join(t for t in spec.task_names if t not in have),
                **{
                    f"mean_{name}": _mean(have, ordered[scope], allow_partial_means)
                    for name, scope in (
                        ("task", "all"),
                        ("public", "public"),
                        ("private", "private"),
                    )
                },
                "partial_means": bool(allow_partial_means),
            }
        )
    summary = pd.DataFrame(out)
    if summary.empty:
        return summary
    mteb_rank = mteb_borda_rank(scores, missing)
    summary["borda_rank"] = pd.array([mteb_rank.get(m, pd.NA) for m in models], dtype="Int64")
    complete = [m for m, ok in zip(models, summary["complete"], strict=True) if ok]
    among = borda_rank(scores[scores["model"].isin(complete)], complete)
    summary["rank_complete"] = pd.array(
        [among.get(m) if m in among.index else pd.NA for m in models], dtype="Int64"
    )
    return summary.sort_values(["borda_rank", "model"]).set_index("model")


def blocking_tasks(scores: pd.DataFrame, spec: BenchmarkSpec) -> tuple[list[str], list[str]]:
    """The tasks that keep models from being complete on ``spec``.

    Returns:
        The tasks no model has a score on, and (when there are none) the tasks the
        incomplete models lack most often: up to three, each lacked by at least half of
        the incomplete models (ties in the benchmark's order: the same hint every run).
    """
    expected = list(spec.task_names)
    have = scores[scores["task"].isin(expected)].groupby("task")["model"].nunique()
    absent = [t for t in expected if t not in have.index]
    if absent:
        return absent, []
    per_model = scores[scores["task"].isin(expected)].groupby("model")["task"].apply(set)
    lacking = [set(expected) - got for got in per_model if len(got) < len(expected)]
    if not lacking:
        return [], []
    counts = pd.Series([t for lacks in lacking for t in lacks]).value_counts()
    often = [t for t in expected if counts.get(t, 0) >= len(lacking) / 2]  # ties: spec order
    return [], sorted(often, key=lambda t: -counts[t])[:3]  # a stable sort


def exclude_hint(tasks: Sequence[str]) -> str:
    """How the caller leaves ``tasks`` out: ``exclude_tasks=[...]`` or ``--exclude-tasks ...``."""
    if spelling() == "cli":
        return "--exclude-tasks " + " ".join(shlex.quote(t) for t in tasks)
    return f"exclude_tasks={list(tasks)!r}"


def blocking_message(absent: Sequence[str], common: Sequence[str]) -> str:
    """The sentence naming what blocks completeness, and how to leave it out ("" if none)."""
    if absent:
        names = ", ".join(absent)
        return (
            f" No model has {names}: leave {'it' if len(absent) == 1 else 'them'} out with "
            f"{exclude_hint(absent)}."
        )
    if common:
        return (
            f" Most incomplete models lack {', '.join(common)} (leave out with "
            f"{exclude_hint(common)})."
        )
    return ""


def completeness_message(
    name: str, pin: str, n_complete: int, n_models: int, others: dict[str, int], blocking: str = ""
) -> str | None:
    """The warning for a benchmark on which fewer than a quarter of the models are complete.

    Returns:
        A short message naming the pin under which most models are complete, or None
        when at least a quarter are complete. The pins are spelled as the caller types
        them (:func:`analysis.core.errors.spell`): ``pin='as-of-post'`` in Python,
        ``--pin as-of-post`` on the command line.
    """
    if not n_models or n_complete >= COMPLETE_SHARE_WARNING * n_models:
        return None
    better = {p: n for p, n in others.items() if n > n_complete}
    if better:
        best = max(better, key=lambda p: better[p])
        where = f"under {spell('pin', best)}, {better[best]} are"
    else:
        where = "no other pin has more"
    ranks = "Rank (Mean)" if spelling() == "cli" else "rank_complete"  # the caller's column
    return (
        f"{name} ({spell('pin', pin)}): only {n_complete} of {n_models} models are complete; "
        f"{where}. Means and {ranks} cover complete models only.{blocking}"
    )
