"""Public-vs-private gap per model, relative to the other models, and the rank shift."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ..core.errors import DroppedModelsWarning
from ._checks import (
    RngLike,
    _check_choice,
    _check_models,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    dropped_message,
    label_mismatch,
)
from ._resampling import _bootstrap_index_blocks, _percentile_interval
from ._results import TableResult
from .contrast import _welch_parts

_REFERENCES = ("mean", "median")


def _median_partners(gaps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each model j, the model(s) whose gap is the median of the others' gaps."""
    k = gaps.shape[-1]
    order = np.argsort(gaps, axis=-1, kind="stable")
    position = np.argsort(order, axis=-1, kind="stable")  # sorted position of each model
    h1, h2 = (k - 2) // 2, (k - 1) // 2  # middle indices in the list of the K - 1 others

    def model_at(h: int) -> np.ndarray:
        sorted_pos = np.where(h < position, h, h + 1)  # skip model j's own position
        return np.take_along_axis(order, sorted_pos, axis=-1)

    return model_at(h1), model_at(h2)


def _reference(x: np.ndarray, partners: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """Per task and model j: the mean of the other models (None) or of j's median partners."""
    if partners is None:
        return (x.sum(axis=-1, keepdims=True) - x) / (x.shape[-1] - 1)
    p1, p2 = (np.broadcast_to(p[..., None, :], x.shape) for p in partners)
    return (np.take_along_axis(x, p1, axis=-1) + np.take_along_axis(x, p2, axis=-1)) / 2.0


def relative_gap_welch(
    x_public: np.ndarray, x_private: np.ndarray, confidence_level: float, reference: str = "mean"
) -> dict[str, np.ndarray]:
    """Each model's gap minus a reference gap of the other models, with a Welch interval.

    ``x_public`` is (..., public tasks, models), ``x_private`` (..., private tasks, models); leading
    axes are batched. Reference ``"mean"``: the mean gap of the other models, i.e. ``y[t, j] = x[t,
    j] - mean_{k != j} x[t, k]`` (the task's difficulty cancels). Reference ``"median"``: the median
    of the other models' gaps, i.e. ``y[t, j] = x[t, j] - x[t, m]`` with m the model(s) whose gap is
    that median (the mean of the two middle ones for an even number of others): linear in the scores
    for fixed m. The relative gap is ``mean_private(y_j) - mean_public(y_j)``: a difference of two
    independent sample means, so its standard error is Welch's ``sqrt(s_priv^2 / n_priv
    + s_pub^2 / n_pub)`` with Welch-Satterthwaite degrees of freedom (for the median, m is
    taken as fixed: conservative when several models are close to the median, because
    the median then moves less than one model's gap). Returns estimate, se, df, low,
    high and a two-sided p-value.
    """
    partners = None
    if reference == "median":
        partners = _median_partners(x_private.mean(axis=-2) - x_public.mean(axis=-2))
    y_pub, y_priv = (x - _reference(x, partners) for x in (x_public, x_private))
    res = _welch_parts(y_priv, y_pub, confidence_level)
    return {key: res[key] for key in ("estimate", "se", "df", "low", "high", "pvalue")}


def _ranks(means: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis, 1 = highest mean."""
    return rankdata(-means, method="average", axis=-1)


@dataclass(frozen=True, repr=False)
class PublicPrivateGapResult(TableResult):
    """Result of :func:`public_private_gap`: one row per kept model in ``table``.

    Attributes:
        table: one row per kept model, sorted by ``rank_public`` then name: ``model``, ``n_public``,
            ``n_private``, ``mean_public``, ``mean_private``, ``gap``, ``relative_gap``,
            ``relative_gap_se``, ``relative_gap_df``, ``relative_gap_ci_low``,
            ``relative_gap_ci_high``, ``relative_gap_pvalue``, ``rank_public``, ``rank_private``,
            ``rank_shift``, ``rank_shift_ci_low``, ``rank_shift_ci_high``.
        reference: ``"mean"`` or ``"median"`` (of the other models' gaps).
        public_tasks: the public tasks used (sorted).
        private_tasks: the private tasks used (sorted).
        n_resamples: bootstrap resamples of the rank-shift range.
        confidence_level: level of the intervals.
        method: what was computed.
        dropped: models left out for missing scores -> their missing tasks.
    """

    table: pd.DataFrame
    reference: str
    public_tasks: list[str]
    private_tasks: list[str]
    n_resamples: int
    confidence_level: float
    method: str
    dropped: dict[str, list[str]] = field(default_factory=dict)

    def _summary_lines(self) -> list[str]:
        flagged = int((self.table["relative_gap_pvalue"] < 1 - self.confidence_level).sum())
        return [
            f"{len(self.table)} models, {len(self.public_tasks)} public / "
            f"{len(self.private_tasks)} private tasks, reference={self.reference!r}",
            f"{flagged} relative gap(s) with p < {1 - self.confidence_level:g} (unadjusted)",
            f"method: {self.method[:80]}",
            f"dropped={len(self.dropped)} model(s); .to_frame() has every model",
        ]


def _task_lists(public_tasks: Any, private_tasks: Any) -> tuple[list[str], list[str]]:
    lists = []
    for name, tasks in (("public_tasks", public_tasks), ("private_tasks", private_tasks)):
        if isinstance(tasks, str) or tasks is None:
            raise ValueError(f"`{name}` must be a list of task names (the benchmark's list)")
        lists.append(list(dict.fromkeys(tasks)))
        if len(lists[-1]) < 2:
            raise ValueError(f"`{name}` needs at least 2 tasks, got {len(lists[-1])}")
    public, private = lists
    both = sorted(set(public) & set(private))
    if both:
        raise ValueError(f"`public_tasks` and `private_tasks` share tasks {both}")
    return public, private


def _wide_scores(scores: Any, tasks: list[str]) -> pd.DataFrame:
    """The wide tasks x models table, its rows checked against the task lists."""
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(f"`scores` must be a pandas DataFrame, got {type(scores).__name__}")
    if {"task", "main_score"} <= set(scores.columns):
        raise ValueError(
            "`scores` looks like the long table (columns 'task', 'main_score'); pass the wide "
            "tasks x models table: `lb.wide(complete_only=False)`, or "
            "`scores.pivot(index='task', columns='model', values='main_score')`"
        )
    if scores.index.has_duplicates or scores.columns.has_duplicates:
        raise ValueError("`scores` has duplicate task rows or model columns")
    if set(scores.index) != set(tasks):
        raise label_mismatch("public_tasks + private_tasks", tasks, "scores", scores.index)
    bad = [c for c in scores.columns if not pd.api.types.is_numeric_dtype(scores[c])]
    if bad:
        raise ValueError(f"`scores` has non-numeric columns: {bad}")
    if np.isinf(scores.to_numpy(dtype=float, na_value=np.nan)).any():
        raise ValueError("`scores` contains inf")
    return scores


def public_private_gap(
    scores: pd.DataFrame,
    *,
    public_tasks: Sequence[str],
    private_tasks: Sequence[str],
    reference: Literal["mean", "median"] = "mean",
    models: Sequence[str] | None = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> PublicPrivateGapResult:
    """Per model: does it lose more on the private tasks than the other models do?

    Input is the wide tasks x models table (``Leaderboard.wide(complete_only=False)``):
    its rows must be exactly the benchmark's public and private tasks (from
    ``Leaderboard.spec``), never the union of what the loaded models have; otherwise
    :class:`~analysis.core.errors.LabelMismatchError` names the missing and extra rows.

    * **gap** = mean_private - mean_public. It includes the difficulty difference of
      the two task sets, which every model shares; it is descriptive (no interval).
    * **relative_gap** = the model's gap minus a reference gap of the *other* kept
      models: ``reference="mean"`` their mean gap, ``"median"`` their median gap. This answers "does
      this model lose more on private tasks than the others do?". With the mean, one outlying model
      moves every other model's relative gap by its own deviation / (K - 1): measured with K = 7 and
      one model losing 0.15 more on the private tasks, the other (null) models reach p < 0.05 far
      more often than 5%; the median does not move (``benchmarks/README_stats.md`` has both).
      Interval and p-value: Welch t over the tasks (public and private tasks are two independent
      samples; units = tasks, assumed independent within each side, unequal variances allowed; for
      the median the median model is taken as fixed, which is conservative). Coverage of the 95%
      interval at 7 public / 6 private and 17 / 13 tasks, measured by simulation in
      ``benchmarks/README_stats.md`` ("relative gap" rows): at least 0.93 with normal or t3 noise
      and under an outlier; *below* 0.93 for a model whose private losses are strongly skewed (a few
      large losses): with 6 to 13 private tasks the sample rarely shows the tail, and neither Welch
      nor a bootstrap-t interval (measured there too) can correct for what it does not see.
    * **Ranks**: ``rank_public`` / ``rank_private`` rank the kept models by their mean
      on each side (1 = best, ties get the average rank); ``rank_shift = rank_public
      - rank_private`` (positive = climbs on the private tasks). Its interval is a
      percentile interval over stratified bootstrap resamples of the tasks (public
      and private tasks resampled within their side; all models share every
      resample): approximate, a range of plausible shifts rather than a test.
    * **Missing**: a model without a score on every listed task (a NaN) is dropped with
      a :class:`DroppedModelsWarning` naming the first few (``dropped`` lists all);
      never averaged over a partial set.

    Rows are sorted by task name within each side first, so their order never changes the result.
    Draws from ``rng``: the public-task bootstrap indices, then the private ones.

    Args:
        scores: wide tasks x models table; rows = the public and private tasks.
        public_tasks: the benchmark's public tasks (at least 2).
        private_tasks: the benchmark's private tasks (at least 2).
        reference: ``"mean"`` or ``"median"`` of the other models' gaps.
        models: restrict to these models (an unknown name raises an error listing
            close names); None keeps all.
        n_resamples: bootstrap resamples for the rank-shift interval.
        confidence_level: confidence level of the intervals, in (0, 1).
        rng: seed or Generator for the resampling.

    Returns:
        PublicPrivateGapResult (``to_frame()``: the per-model table).

    Raises:
        ValueError: ``scores`` is not a wide table, a task is on both lists, holds inf
            or non-numbers, a side has fewer than 2 tasks, or fewer than 3 models are
            complete; or an option is invalid.
        LabelMismatchError: the rows of ``scores`` are not the listed tasks.
        UnknownModelError: a name in ``models`` is not in ``scores``.

    Examples:
        Six models on 6 public and 6 private tasks (synthetic); ``m0`` loses 0.15 on the
        private ones:

        >>> import numpy as np, pandas as pd
        >>> from analysis.stats import public_private_gap
        >>> rng = np.random.default_rng(0)
        >>> tasks = [f"t{i}" for i in range(12)]
        >>> scores = pd.DataFrame(
        ...     rng.normal(0.5, 0.05, (12, 1)) + rng.normal(0, 0.02, (12, 6)),
        ...     index=tasks, columns=[f"m{j}" for j in range(6)])
        >>> scores.loc[tasks[6:], "m0"] -= 0.15
        >>> res = public_private_gap(
        ...     scores, public_tasks=tasks[:6], private_tasks=tasks[6:], n_resamples=999, rng=0)
        >>> table = res.to_frame().set_index("model")
        >>> table["relative_gap"].idxmin(), bool(table.loc["m0", "relative_gap_ci_high"] < 0)
        ('m0', True)
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    reference, gen = _check_choice(reference, "reference", _REFERENCES), _check_rng(rng)
    public, private = _task_lists(public_tasks, private_tasks)
    wide = _wide_scores(scores, public + private)
    selected = _check_models(models, wide.columns, "models")
    public, private = sorted(public), sorted(private)
    wide = wide.reindex(index=public + private, columns=selected)
    holes = wide.isna()
    dropped = {str(m): [str(t) for t in wide.index[holes[m]]] for m in selected if holes[m].any()}
    kept = [m for m in selected if str(m) not in dropped]
    if dropped:
        warnings.warn(
            dropped_message("public_private_gap", dropped, "public and private tasks"),
            DroppedModelsWarning,
            stacklevel=2,
        )
    if len(kept) < 3:
        raise ValueError(
            f"`scores`: {len(kept)} model(s) have a score for every public and private task; "
            "the relative gap needs at least 3"
        )
    x_pub, x_priv = (wide.loc[side, kept].to_numpy(dtype=float) for side in (public, private))
    mean_pub, mean_priv = x_pub.mean(axis=0), x_priv.mean(axis=0)
    rel = relative_gap_welch(x_pub, x_priv, confidence_level, reference)
    rank_pub, rank_priv = _ranks(mean_pub), _ranks(mean_priv)
    # the rank shift over stratified resamples: the public tasks' draws, then the private
    boot_pub, boot_priv = (
        np.concatenate(
            [_ranks(x[i].mean(axis=1)) for i in _bootstrap_index_blocks(len(x), n_resamples, gen)]
        )
        for x in (x_pub, x_priv)
    )
    shift_low, shift_high = _percentile_interval(
        np.ascontiguousarray((boot_pub - boot_priv).T), confidence_level, "two-sided"
    )
    out = pd.DataFrame(
        {
            "model": kept,
            "n_public": len(public),
            "n_private": len(private),
            "mean_public": mean_pub,
            "mean_private": mean_priv,
            "gap": mean_priv - mean_pub,
            "relative_gap": rel["estimate"],
            "relative_gap_se": rel["se"],
            "relative_gap_df": rel["df"],
            "relative_gap_ci_low": rel["low"],
            "relative_gap_ci_high": rel["high"],
            "relative_gap_pvalue": rel["pvalue"],
            "rank_public": rank_pub,
            "rank_private": rank_priv,
            "rank_shift": rank_pub - rank_priv,
            "rank_shift_ci_low": shift_low,
            "rank_shift_ci_high": shift_high,
        }
    ).sort_values(["rank_public", "model"], kind="stable")
    return PublicPrivateGapResult(
        table=out.reset_index(drop=True),
        reference=reference,
        public_tasks=public,
        private_tasks=private,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=(
            f"relative gap (reference: {reference} of the other models' gaps): Welch t over "
            f"tasks (public vs private); rank shift: percentile interval over {n_resamples} "
            "stratified bootstrap resamples of the tasks"
        ),
        dropped=dropped,
    )
