"""Public-vs-private gap per model."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import DroppedModelsWarning
from ._checks import RngLike, _check_models, _check_n_resamples, _check_open_unit, _check_rng
from ._resampling import _bootstrap_means, _percentile_interval

_GAP_COLUMNS = ("model", "task", "is_public", "main_score")


def public_private_gap(
    scores: pd.DataFrame,
    *,
    models: Sequence[str] | None = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> pd.DataFrame:
    """Per model: private minus public mean score, with a stratified bootstrap CI.

    Input is the leaderboard loader's long table (columns ``model``, ``task``,
    ``is_public``, ``main_score``; other columns are ignored), one row per
    (model, task).

    Assumptions and conventions:

    * **Task sets**: the public (private) tasks are all tasks with
      ``is_public`` True (False) among the selected models' rows. Every kept model
      must have a score for every one of them, so all models are compared on the
      same tasks; a model missing any task (or with a NaN score) is dropped with a
      :class:`DroppedModelsWarning` naming it, and listed in
      ``attrs["dropped_models"]``. Each side needs at least 2 tasks.
    * **gap** = mean_private - mean_public (positive = better on private tasks).
    * **CI**: percentile bootstrap that resamples tasks *within* each side,
      independently (stratified: the numbers of public and private tasks are
      fixed). The same resampled task sets are used for every model. With few
      tasks per side the interval is rough and too narrow (see the module notes).
      No p-value is given: the two sides hold different tasks, so there is no
      exchangeability to test under.
    * **Ranks**: ``rank_public`` / ``rank_private`` rank the kept models by their
      mean on each side (1 = best, ties share the best rank, pandas "min");
      ``rank_shift = rank_public - rank_private`` (positive = the model climbs on
      the private tasks).

    Draws from ``rng``: the public-task bootstrap indices, then the private ones.

    Args:
        scores: long table with columns ``model``, ``task``, ``is_public`` (bool),
            ``main_score`` (finite numbers; NaN counts as missing).
        models: restrict to these models (an unknown name raises an error listing
            close names); None keeps all.
        n_resamples: bootstrap resamples.
        confidence_level: confidence level of the intervals, in (0, 1).
        rng: seed or Generator for the resampling.

    Returns:
        DataFrame, one row per kept model, sorted by ``rank_public`` then name, with
        columns ``model``, ``n_public``, ``n_private``, ``mean_public``,
        ``mean_private``, ``gap``, ``gap_ci_low``, ``gap_ci_high``, ``rank_public``,
        ``rank_private``, ``rank_shift``. ``attrs`` holds ``dropped_models``,
        ``public_tasks``, ``private_tasks``, ``n_resamples`` and
        ``confidence_level``.

    Raises:
        ValueError: a required column is missing, a (model, task) pair is repeated,
            a task is both public and private, ``main_score`` holds inf or
            non-numbers, a side has fewer than 2 tasks, or no model is complete; or
            an option is invalid.
        UnknownModelError: a name in ``models`` is not in ``scores``.
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    gen = _check_rng(rng)
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(f"`scores` must be a pandas DataFrame, got {type(scores).__name__}")
    absent = [c for c in _GAP_COLUMNS if c not in scores.columns]
    if absent:
        raise ValueError(f"`scores` lacks the column(s) {absent}; expected {list(_GAP_COLUMNS)}")
    df = scores.loc[:, list(_GAP_COLUMNS)].copy()
    if df["is_public"].isna().any() or not df["is_public"].isin([True, False]).all():
        raise ValueError("`scores` column 'is_public' must hold only True/False")
    df["is_public"] = df["is_public"].astype(bool)
    try:
        df["main_score"] = pd.to_numeric(df["main_score"]).astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError("`scores` column 'main_score' must hold numbers") from exc
    if np.isinf(df["main_score"].to_numpy()).any():
        raise ValueError("`scores` column 'main_score' contains inf")
    dup = df.duplicated(["model", "task"])
    if dup.any():
        pairs = df.loc[dup, ["model", "task"]].head(5).to_records(index=False).tolist()
        raise ValueError(f"`scores` has repeated (model, task) rows, e.g. {pairs}")
    sides = df.groupby("task")["is_public"].nunique()
    if (sides > 1).any():
        raise ValueError(
            f"`scores`: tasks marked both public and private: {sorted(sides.index[sides > 1])}"
        )
    selected = _check_models(models, df["model"].unique(), "models")
    df = df[df["model"].isin(selected)]
    public = sorted(df.loc[df["is_public"], "task"].unique())
    private = sorted(df.loc[~df["is_public"], "task"].unique())
    if len(public) < 2 or len(private) < 2:
        raise ValueError(
            f"`scores` needs at least 2 public and 2 private tasks, got {len(public)} public "
            f"and {len(private)} private"
        )
    wide = df.pivot(index="task", columns="model", values="main_score")
    wide = wide.reindex(index=public + private, columns=selected)
    missing = wide.isna().sum(axis=0)
    dropped = [m for m in selected if missing[m] > 0]
    kept = [m for m in selected if missing[m] == 0]
    if dropped:
        detail = ", ".join(f"{m!r} ({missing[m]} missing)" for m in dropped)
        warnings.warn(
            f"public_private_gap: dropped {len(dropped)} model(s) without a score on every "
            f"one of the {len(public)} public and {len(private)} private tasks: {detail}",
            DroppedModelsWarning,
            stacklevel=2,
        )
    if not kept:
        raise ValueError("`scores`: no model has a score for every public and private task")
    x_pub = wide.loc[public, kept].to_numpy(dtype=float)
    x_priv = wide.loc[private, kept].to_numpy(dtype=float)
    mean_pub, mean_priv = x_pub.mean(axis=0), x_priv.mean(axis=0)
    boot_gap = -_bootstrap_means(x_pub, n_resamples, gen)
    boot_gap += _bootstrap_means(x_priv, n_resamples, gen)
    low, high = _percentile_interval(boot_gap, confidence_level, "two-sided")
    out = pd.DataFrame(
        {
            "model": kept,
            "n_public": len(public),
            "n_private": len(private),
            "mean_public": mean_pub,
            "mean_private": mean_priv,
            "gap": mean_priv - mean_pub,
            "gap_ci_low": low,
            "gap_ci_high": high,
        }
    )
    out["rank_public"] = out["mean_public"].rank(method="min", ascending=False).astype("int64")
    out["rank_private"] = out["mean_private"].rank(method="min", ascending=False).astype("int64")
    out["rank_shift"] = out["rank_public"] - out["rank_private"]
    out = out.sort_values(["rank_public", "model"], kind="stable").reset_index(drop=True)
    out.attrs.update(
        dropped_models=dropped,
        public_tasks=public,
        private_tasks=private,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
    )
    return out
