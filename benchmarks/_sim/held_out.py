"""Held-out validation of the benchmark-mean estimator on a real leaderboard.

* :func:`cross_fit_selection`: select on some models, predict the others (random
  folds, or leave one model out): the check for a model *exchangeable* with the
  references;
* :func:`validate_by_release_date`: fit (and select) on the models released before a
  date, predict every model released after it: the check for the model a user brings,
  which is newer than every model it is compared with.

The estimator's measured behaviour (``benchmarks/bench_estimate*.py``, ``tools/lite_tasks.py``)
comes from these; users call :func:`analysis.stats.predict_benchmark` and
:func:`analysis.stats.select_tasks`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.core.errors import CalibrationWarning, ExtrapolationWarning, LeakageWarning
from analysis.stats._checks import RngLike, _check_rng
from analysis.stats._results import StatsResult
from analysis.stats.estimate._checks import _leaked, _reference, _require_frame, _task_list
from analysis.stats.estimate.predict import (
    BenchmarkPrediction,
    _calibrate,
    _Calibrated,
    _day_numbers,
    _days,
    _narrowest_prefix,
    _predict,
    _release_stamps,
    _released_day,
    predict_benchmark,
)
from analysis.stats.estimate.selection import TaskSelectionResult, select_tasks

__all__ = [
    "CrossFitResult",
    "ReleaseDateValidation",
    "cross_fit_selection",
    "validate_by_release_date",
]


@dataclass(frozen=True, repr=False)
class _HeldOutResult(StatsResult):
    """What every held-out check holds: one row per prediction, and its coverage."""

    table: pd.DataFrame
    confidence_level: float

    @property
    def coverage(self) -> float:
        """Share of the held-out predictions whose interval holds the actual mean."""
        return float(self.table["covered"].mean()) if len(self.table) else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """The per-prediction table (a copy)."""
        return self.table.copy()


@dataclass(frozen=True, repr=False)
class CrossFitResult(_HeldOutResult):
    """Result of :func:`cross_fit_selection`.

    Attributes:
        table: one row per model: ``model``, ``fold``, ``actual``, ``predicted``,
            ``ci_low``, ``ci_high`` (its interval), ``error``, ``half_width``,
            ``covered``, ``extrapolating``, ``level`` (the interval's),
            ``tasks`` (the tasks chosen without it,
            joined by ``", "``).
        confidence_level: level of the intervals.
        k: tasks selected per fold.
        n_folds: folds used.
    """

    k: int
    n_folds: int

    def _summary_lines(self) -> list[str]:
        return [
            f"{len(self.table)} held-out model(s) in {self.n_folds} fold(s), k={self.k}: "
            f"coverage {self.coverage:.3f} at {self.confidence_level:.0%}, median half-width "
            f"{float(self.table['half_width'].median()) if len(self.table) else float('nan'):.4f}"
        ]


@dataclass(frozen=True, repr=False)
class ReleaseDateValidation(_HeldOutResult):
    """Result of :func:`validate_by_release_date`.

    Attributes:
        table: one row per (cut, newer model): ``cut``, ``model``, ``actual``,
            ``predicted``, ``ci_low``, ``ci_high`` (its interval), ``error``,
            ``half_width``, ``covered``, ``extrapolating``, ``level`` (the interval's
            level: below ``confidence_level`` when a cut has too few forward-in-time
            predictions for it, see :func:`predict_benchmark`), ``above_all_older`` (its
            actual mean exceeds every older model's), ``calibration``, ``n_older``,
            ``n_undated``, ``days_after_newest`` (its release after the newest older
            model's).
        confidence_level: level of the intervals.
        cuts: the split dates (as ``YYYY-MM-DD``).
        k: tasks selected per cut (None: every candidate observed).
    """

    cuts: tuple[str, ...]
    k: int | None

    def _summary_lines(self) -> list[str]:
        return [
            f"{len(self.table)} newer-model prediction(s) over {len(self.cuts)} cut(s), "
            f"k={self.k}: coverage {self.coverage:.3f} at {self.confidence_level:.0%}"
        ]


def _held_out_row(res: BenchmarkPrediction, actual: float) -> dict[str, Any]:
    """The columns every held-out check reports for one prediction."""
    low, high = res.confidence_interval
    return {
        "actual": actual,
        "predicted": res.mean,
        "ci_low": low,
        "ci_high": high,
        "error": res.mean - actual,
        "half_width": (high - low) / 2,
        "covered": low <= actual <= high,
        "extrapolating": res.extrapolating,
        "level": res.confidence_level,
    }


def _twin_groups(scores: np.ndarray, share: float = 0.9) -> list[list[int]]:
    """Groups of models (columns) identical on at least ``share`` of the tasks.

    Connected components: the same model under two names ends up in one group.
    """
    n = scores.shape[1]
    same = (np.abs(scores[:, :, None] - scores[:, None, :]) <= 1e-12).mean(axis=0) >= share
    label = list(range(n))
    for i in range(n):
        for j in np.flatnonzero(same[i]):
            a, b = label[i], label[int(j)]
            if a != b:
                label = [a if v == b else v for v in label]
    groups: dict[int, list[int]] = {}
    for i, v in enumerate(label):
        groups.setdefault(v, []).append(i)
    return list(groups.values())


def cross_fit_selection(
    reference: pd.DataFrame,
    k: int,
    *,
    n_folds: int | None = None,
    rng: RngLike = None,
    target_tasks: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    **options: Any,
) -> CrossFitResult:
    """Measure a selection on models outside it: select on some models, predict the rest.

    The models are split into folds (``n_folds=None``: leave one model out); for each
    fold :func:`select_tasks` runs on the other models only (its nested validation
    calibrates the interval), and every held-out model is predicted from its scores on
    the tasks chosen without it by :func:`analysis.stats.predict_benchmark` with
    ``selection=``. Models identical on at least 90% of the tasks (one model under two
    names) are held out together, so a twin never leaks into the selection.

    Args:
        reference: tasks x models of complete models (0-1).
        k: tasks to select.
        n_folds: number of folds (None: one per model, or per group of twins).
        rng: seed or Generator for the split into folds.
        target_tasks: tasks whose mean is predicted (default: all rows).
        confidence_level: level of the intervals.
        **options: further :func:`select_tasks` options (``candidates``,
            ``task_types``, ``method``, ``criterion``).

    Returns:
        CrossFitResult; its ``to_frame()`` has one row per model (see there).

    Examples:
        A reference leaderboard of 30 models on 12 tasks (synthetic, as in
        :func:`predict_benchmark`'s example):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> skill = rng.normal(0.6, 0.05, 30)
        >>> scores = np.clip(skill + rng.normal(0, 0.02, (12, 30)), 0, 1)
        >>> reference = pd.DataFrame(
        ...     scores, index=[f"task{i}" for i in range(12)],
        ...     columns=[f"model{j}" for j in range(30)])
        >>> from _sim.held_out import cross_fit_selection
        >>> res = cross_fit_selection(reference, 2, n_folds=3, rng=0)
        >>> table = res.to_frame()
        >>> len(table), sorted(table["fold"].unique().tolist()), bool(table["covered"].mean() > 0.8)
        (30, [0, 1, 2], True)
    """
    _require_frame(reference)
    gen = _check_rng(rng)
    tasks_all = [str(t) for t in reference.index]
    target = _task_list(target_tasks, tasks_all, "target_tasks")
    scores, models, tasks = _reference(reference, tasks_all, caller="cross_fit_selection")
    frame = pd.DataFrame(scores, index=tasks, columns=models)
    groups = _twin_groups(scores)
    order = gen.permutation(len(groups))
    n_split = len(groups) if n_folds is None else min(int(n_folds), len(groups))
    rows = []
    for fold, part in enumerate(np.array_split(order, n_split)):
        held = [models[i] for g in part for i in groups[int(g)]]
        ref = frame.drop(columns=held)
        sel = select_tasks(
            ref, k, target_tasks=target, confidence_level=confidence_level, **options
        )
        for model in held:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExtrapolationWarning)  # reported per row
                res = predict_benchmark(
                    ref,
                    frame.loc[list(sel.tasks), model],
                    target_tasks=target,
                    confidence_level=confidence_level,
                    selection=sel,
                    calibration="exchangeable",
                )
            actual = float(frame.loc[target, model].mean())
            rows.append(
                {"model": model, "fold": fold, **_held_out_row(res, actual),
                 "tasks": ", ".join(sel.tasks)}
            )  # fmt: skip
    return CrossFitResult(
        table=pd.DataFrame(rows).set_index("model").loc[models].reset_index(),
        k=int(k),
        n_folds=n_split,
        confidence_level=confidence_level,
    )


def _calibrate_cut(
    ref: pd.DataFrame,
    sel: TaskSelectionResult | None,
    cands: list[str],
    target: list[str],
    dates: pd.Series,
    level: float,
) -> tuple[_Calibrated, list[str]]:
    """One cut's calibration on its older models ``ref``, and the tasks a newer model runs.

    The selection (when tasks are selected) is cut at its longest step within one
    standard error of the narrowest (:func:`._narrowest_prefix`), as
    :func:`predict_benchmark` cuts a ``selection=``; without one, every candidate is
    observed.
    """
    chosen = _narrowest_prefix(sel) if sel is not None else None
    observed = list(sel.tasks) if sel is not None else cands
    return _calibrate(ref, observed, target, chosen, dates, level), observed


def _predict_newer(
    frame: pd.DataFrame,
    ref: pd.DataFrame,
    newer: list[str],
    sel: TaskSelectionResult | None,
    cands: list[str],
    target: list[str],
    stamps: pd.Series,
    older: list[str],
    level: float,
    cut: str,
) -> list[dict[str, Any]]:
    """Every newer model predicted from one calibration on the older models.

    The calibration does not depend on the predicted model, so it is made once per cut
    (:func:`._calibrate`); a newer model with a twin among the older ones goes through
    :func:`predict_benchmark`, which leaves the twin out.
    """
    cal, observed = _calibrate_cut(ref, sel, cands, target, stamps[older], level)
    best_older = float(ref.loc[target].mean().max())
    rows = []
    for model in newer:
        obs = frame.loc[observed, model]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)  # reported per row
            warnings.simplefilter("ignore", LeakageWarning)  # the twin is left out
            warnings.simplefilter("ignore", CalibrationWarning)  # its level: per row
            if _leaked(ref, obs, None)[0]:
                res = predict_benchmark(
                    ref, obs,
                    target_tasks=target, confidence_level=level, selection=sel,
                    reference_dates=stamps[older], released=stamps[model],
                )  # fmt: skip
            else:
                res = _predict(cal, obs, _released_day(stamps[model]), "auto")
        actual = float(frame.loc[target, model].mean())
        rows.append(
            {
                "cut": cut,
                "model": model,
                **_held_out_row(res, actual),
                "above_all_older": actual > best_older,
                "calibration": res.calibration,
                "n_older": len(older),
                "n_undated": int(stamps.isna().sum()),
                "days_after_newest": float(_days(stamps[model]) - _days(stamps[older].max())),
            }
        )
    return rows


def validate_by_release_date(
    reference: pd.DataFrame,
    reference_dates: Mapping[str, Any] | pd.Series,
    cuts: Sequence[Any],
    *,
    k: int | None,
    target_tasks: Sequence[str] | None = None,
    candidates: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    **options: Any,
) -> ReleaseDateValidation:
    """Fit on the models released before each cut date; predict those released after.

    For every cut, the models released before it are the reference: with ``k`` the
    tasks are selected on them (:func:`select_tasks` over ``candidates``), else every
    candidate task is observed; each model released on or after the cut is predicted
    by :func:`predict_benchmark` with ``reference_dates`` (so its interval is
    calibrated forward in time, as a user's new model's is). Models without a release
    date are never predicted, and are counted in the ``n_undated`` column.

    Args:
        reference: tasks x models of complete models (0-1).
        reference_dates: model -> release date (aligned by name).
        cuts: the split dates.
        k: tasks to select, or None to observe every candidate.
        target_tasks: tasks whose mean is predicted (default: all rows).
        candidates: tasks that may be observed (default: all rows).
        confidence_level: level of the intervals.
        **options: further :func:`select_tasks` options (``task_types``, ``criterion``).

    Returns:
        ReleaseDateValidation; its ``to_frame()`` has one row per (cut, newer model)
        (see there).

    Examples:
        A reference leaderboard of 30 models on 12 tasks (synthetic, as in
        :func:`predict_benchmark`'s example):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> skill = rng.normal(0.6, 0.05, 30)
        >>> scores = np.clip(skill + rng.normal(0, 0.02, (12, 30)), 0, 1)
        >>> reference = pd.DataFrame(
        ...     scores, index=[f"task{i}" for i in range(12)],
        ...     columns=[f"model{j}" for j in range(30)])

        One model released a month, from January 2024; those from June 2025 on are predicted
        from the older ones' scores on three tasks:

        >>> from _sim.held_out import validate_by_release_date
        >>> dates = pd.Series(pd.date_range("2024-01-01", periods=30, freq="MS"),
        ...                   index=reference.columns)
        >>> res = validate_by_release_date(
        ...     reference, dates, ["2025-06-01"], k=None, candidates=["task0", "task1", "task2"])
        >>> table = res.to_frame()
        >>> len(table), int(table["n_older"].iloc[0]), table["model"].iloc[0]
        (13, 17, 'model17')
    """
    _require_frame(reference)
    tasks_all = [str(t) for t in reference.index]
    target = _task_list(target_tasks, tasks_all, "target_tasks")
    cands = _task_list(candidates, tasks_all, "candidates")
    scores, models, tasks = _reference(reference, tasks_all, caller="validate_by_release_date")
    frame = pd.DataFrame(scores, index=tasks, columns=models)
    stamps = _release_stamps(reference_dates, models)
    dates = pd.Series(_days(stamps).to_numpy(dtype=float), index=models)
    rows = []
    for cut in cuts:
        cut_day = float(_day_numbers({"cut": cut}, ["cut"])[0])
        if np.isnan(cut_day):
            raise ValueError(f"`cuts` holds {cut!r}, which is not a date")
        cut = str(pd.Timestamp(cut).date())
        older = [m for m in models if dates[m] < cut_day]
        newer = [m for m in models if dates[m] >= cut_day]
        ref = frame[older]
        sel = None
        if k is not None:
            sel = select_tasks(
                ref,
                k,
                target_tasks=target,
                candidates=cands,
                confidence_level=confidence_level,
                **options,
            )
        rows += _predict_newer(
            frame, ref, newer, sel, cands, target, stamps, older, confidence_level, cut
        )
    return ReleaseDateValidation(
        table=pd.DataFrame(rows),
        cuts=tuple(str(pd.Timestamp(cut).date()) for cut in cuts),
        k=k,
        confidence_level=confidence_level,
    )
