"""Where does a model stand after a few tasks? Calibrated estimates of a benchmark mean.

On a tasks x models table of complete reference models (``Leaderboard.wide()``, 0-1):
:func:`predict_benchmark` predicts a new model's benchmark mean with a prediction
interval and the rank interval it implies; :func:`next_tasks` says which task to run
next (which tasks to run first: :func:`analysis.stats.select_tasks`).

The estimator (ridge on the observed tasks' z-scores, :mod:`._ridge`, :mod:`._target`), its interval
(split conformal on the whole procedure rerun without each reference model, scaled by leverage,
:mod:`._procedure`, :mod:`._conformal`), the calibration forward in time for a model newer than the
references (``reference_dates=``), the assumptions and what it cannot promise: the statistics guide
(``docs/statistics.md``, "Where a model stands after a few tasks"). Every choice is measured, with
its rejected alternatives, in ``benchmarks/results/estimate.md``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ...core.errors import (
    CalibrationWarning,
    DroppedModelsWarning,
    ExtrapolationWarning,
    LeakageWarning,
)
from .._checks import RngLike, _check_open_unit, _check_rng
from .._results import ConfidenceInterval, StatsResult, TableResult
from ._checks import (
    MIN_REFERENCE_MODELS,
    _leaked,
    _observed,
    _reference,
    _require_frame,
    _task_list,
)
from ._conformal import (
    TimeDrift,
    sigma,
    split_interval,
    time_drift,
    upper_order_statistic,
    variance_slope,
)
from ._procedure import Procedure
from ._target import fit_target
from .selection import TaskSelectionResult, select_tasks


@dataclass(frozen=True, repr=False)
class BenchmarkPrediction(StatsResult):
    """Result of :func:`predict_benchmark` (means on the 0-1 scale of ``main_score``).

    Attributes:
        mean: predicted target mean (0-1).
        confidence_interval: its prediction interval (clipped to 0-1).
        rank, rank_low, rank_high: the rank (1 = best) the predicted mean and the
            interval's ends would take among the reference models.
        tasks: observed tasks used.
        features: the observed tasks the predictor regresses on.
        target_tasks: tasks whose mean is predicted.
        n_reference: reference models used.
        known_share: share of the target mean that was measured (observed target tasks).
        leverage: the model's leverage on the feature tasks.
        extrapolating: the model lies beyond the reference models.
        caveat: in words, where it lies beyond them ("" when it does not).
        calibration: ``"newer"`` (forward in time), ``"exchangeable"`` (leave one model
            out) or ``"none"`` (every target task observed).
        n_calibration: held-out predictions the interval was calibrated on.
        confidence_level: level of the interval: the one asked for, or the lower one
            reached with too few forward-in-time predictions.
        method: estimator and interval, in one sentence.
    """

    mean: float
    confidence_interval: ConfidenceInterval
    rank: int
    rank_low: int
    rank_high: int
    tasks: tuple[str, ...]
    features: tuple[str, ...]
    target_tasks: tuple[str, ...]
    n_reference: int
    known_share: float
    leverage: float
    extrapolating: bool
    caveat: str
    calibration: str
    n_calibration: int
    confidence_level: float
    method: str

    def to_frame(self) -> pd.DataFrame:
        """One row: the headline numbers."""
        frame = self._one_row(
            "mean ci_low=confidence_interval.low ci_high=confidence_interval.high rank rank_low "
            "rank_high n_reference known_share extrapolating calibration"
        )
        frame.insert(6, "n_tasks", len(self.tasks))
        frame.insert(7, "n_target_tasks", len(self.target_tasks))
        return frame

    def _summary_lines(self) -> list[str]:
        level = f"{self.confidence_level:.0%}"
        low, high = self.confidence_interval
        return [
            f"mean={self.mean:.4f}, {level} interval=({low:.4f}, {high:.4f})",
            f"rank={self.rank} ({self.rank_low} to {self.rank_high}) among "
            f"{self.n_reference} reference models",
            f"from {len(self.tasks)} observed task(s) of {len(self.target_tasks)} target "
            f"task(s); extrapolating={self.extrapolating}; calibration={self.calibration}",
            self.method[:86],
        ]


def _rank(value: float, means: np.ndarray) -> int:
    return int(1 + np.sum(means > value))


def _best_k(
    reference: pd.DataFrame, observed: Sequence[str], target: Sequence[str], level: float
) -> TaskSelectionResult | None:
    """The forward selection among the observed tasks, cut as :func:`_narrowest_prefix` cuts."""
    limit = min(len(observed), max(reference.shape[1] - 3, 1))
    if set(target) <= set(observed):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedModelsWarning)  # said once by the caller
        path = select_tasks(
            reference, limit, target_tasks=list(target), candidates=list(observed),
            confidence_level=level,
        )  # fmt: skip
    if not np.isfinite(path.steps["half_width"].to_numpy(dtype=float)).any():
        return None
    return _narrowest_prefix(path)


def _release_stamps(dates: Mapping[str, Any] | pd.Series, models: Sequence[str]) -> pd.Series:
    """Release dates of ``models`` as timestamps (NaT when unknown), aligned by name."""
    if not isinstance(dates, Mapping | pd.Series):
        raise ValueError(
            "`reference_dates` must map model names to release dates (a dict or a pandas "
            f"Series indexed by model), got {type(dates).__name__}"
        )
    series = pd.Series(dict(dates.items()), dtype=object)
    return pd.to_datetime(series.reindex(list(models)), errors="coerce")


def _days(stamps: Any) -> Any:
    """Timestamps as day numbers (days since 1970-01-01; NaN for NaT)."""
    return (stamps - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)


def _day_numbers(dates: Mapping[str, Any] | pd.Series, models: Sequence[str]) -> np.ndarray:
    """Release dates of ``models`` as day numbers (NaN when unknown), aligned by name."""
    return _days(_release_stamps(dates, models)).to_numpy(dtype=float)


def _released_day(released: Any) -> float | None:
    if released is None:
        return None
    stamp = pd.to_datetime(released, errors="coerce")
    if pd.isna(stamp):
        raise ValueError(f"`released` is not a date: {released!r} (give e.g. '2026-11-25')")
    return float(_days(stamp))


def _drop_leaked(
    reference: pd.DataFrame,
    obs: pd.Series,
    model: str | None,
    selection: TaskSelectionResult | None,
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The reference without the observed model's twins (by name or identical scores)."""
    leaked, why = _leaked(reference, obs, model)
    if not leaked:
        return reference, ()
    names = ", ".join(map(str, leaked))
    warnings.warn(
        f"predict_benchmark: the observed model is among the reference models ({names}, "
        f"{why}); it was left out of the reference (fit and calibration redone without "
        "it, the observed tasks kept), since predicting a model from itself would "
        "understate the error",
        LeakageWarning,
        stacklevel=3,
    )
    return reference.drop(columns=leaked), tuple(map(str, leaked))


def _quantile_rse(n: int, level: float) -> float:
    """Relative standard error of a ``level`` quantile of ``n`` normal absolute errors."""
    p = float(level)
    q = float(stats.halfnorm.ppf(p))
    return float(np.sqrt(p * (1 - p) / n) / (stats.halfnorm.pdf(q) * q))


def _narrowest_prefix(selection: TaskSelectionResult) -> TaskSelectionResult:
    """The selection cut at its longest step within one standard error of the narrowest."""
    steps = selection.steps
    if selection.options.get("method", "forward") != "forward" or "half_width" not in steps:
        return selection
    widths = steps["half_width"].to_numpy(dtype=float)
    if not np.isfinite(widths).any():
        return selection
    bound = np.nanmin(widths) * (
        1 + _quantile_rse(len(selection.models), selection.confidence_level)
    )
    within = np.flatnonzero(widths <= bound)
    j = int(steps["n_tasks"].iloc[int(within.max())])
    if j >= selection.k:
        return selection
    return replace(
        selection,
        tasks=selection.tasks[:j],
        options={**selection.options, "k": j},
        half_width=float(widths[int(within.max())]),
    )


_CALIBRATIONS = ("auto", "newer", "exchangeable")


@dataclass(frozen=True)
class _Calibrated:
    """Everything of a prediction that does not depend on the new model's scores."""

    procedure: Procedure
    models: list[str]
    tasks: list[str]
    target: list[str]
    means: np.ndarray
    level: float
    features: tuple[str, ...] | None
    gamma: float
    exch_quantile: float
    n_nested: int
    drift: TimeDrift | None
    newest: float
    n_undated: int
    why_not_newer: str

    def exchangeable_half_width(self, leverage: float) -> float:
        """The exchangeable half-width at a model's leverage on the feature tasks."""
        return float(sigma(leverage, self.gamma)) * self.exch_quantile

    def newer_half_width(self, gap_days: float) -> float:
        """The forward-in-time half-width ``gap_days`` after the newest reference.

        NaN without a forward-in-time calibration. A newer model's interval is the larger
        of this and :meth:`exchangeable_half_width`.
        """
        return self.drift.half_width(gap_days) if self.drift is not None else float("nan")


def _calibrate(
    reference: pd.DataFrame,
    observed_tasks: list[str],
    target: list[str],
    selection: TaskSelectionResult | None,
    days_of: Mapping[str, Any] | pd.Series | None,
    level: float,
) -> _Calibrated:
    """The procedure, its nested (and forward-in-time) calibration on ``reference``."""
    chosen = (
        selection if selection is not None else _best_k(reference, observed_tasks, target, level)
    )
    candidates = list(selection.candidates) if selection is not None else observed_tasks
    rows = list(dict.fromkeys([*observed_tasks, *candidates, *target]))
    scores, models, tasks = _reference(reference, rows, caller="predict_benchmark")
    procedure = Procedure(
        scores=scores,
        tasks=tuple(tasks),
        observed=tuple(observed_tasks),
        candidates=tuple(candidates),
        target=tuple(target),
        choose=chosen.chooser() if chosen is not None else None,
    )
    means = scores[[tasks.index(t) for t in target]].mean(axis=0)
    gamma, exch, n_nested = 0.0, 0.0, 0
    drift, why_not, newest = None, "", float("nan")
    days = None if days_of is None else _day_numbers(days_of, models)
    n_undated = int(np.isnan(days).sum()) if days is not None else len(models)
    if any(t not in set(observed_tasks) for t in target):
        nested = procedure.nested()
        gamma = variance_slope(nested.errors, nested.leverage)
        exch = upper_order_statistic(np.abs(nested.errors / sigma(nested.leverage, gamma)), level)
        n_nested = len(nested)
        if days is not None and np.isfinite(days).any():
            newest = float(np.nanmax(days))
            forward = procedure.forward(
                days, min_train=_min_train(int(np.sum(~np.isnan(days)))), lags=FORWARD_LAGS
            )
            if len(forward) < _min_forward(level):
                why_not = (
                    f"only {len(forward)} forward-in-time predictions (at least "
                    f"{_min_forward(level)} needed), so not calibrated forward in time"
                )
            else:
                drift = time_drift(forward.errors, forward.gaps, level)
    return _Calibrated(
        procedure=procedure,
        models=models,
        tasks=tasks,
        target=target,
        means=means,
        level=level,
        features=tuple(selection.tasks) if selection is not None else None,
        gamma=gamma,
        exch_quantile=exch,
        n_nested=n_nested,
        drift=drift,
        newest=newest,
        n_undated=n_undated,
        why_not_newer=why_not,
    )


def _predict(
    cal: _Calibrated, obs: pd.Series, released_day: float | None, calibration: str
) -> BenchmarkPrediction:
    """One model's prediction from a calibration (see :func:`predict_benchmark`)."""
    procedure, level, tasks = cal.procedure, cal.level, cal.tasks
    x = np.full(len(tasks), np.nan)
    x[[tasks.index(t) for t in obs.index]] = obs.to_numpy(dtype=float)
    every = np.arange(len(cal.models))
    prediction, lev, flags, fitted = procedure.predict(every, x, features=cal.features)
    if not np.isfinite(prediction):
        raise FloatingPointError(
            "predict_benchmark: the prediction is not finite (scores on the feature tasks "
            f"{list(fitted.features)}: {x[[tasks.index(t) for t in fitted.features]].tolist()})"
        )
    gap = 0.0 if released_day is None else max(released_day - cal.newest, 0.0)
    newer = (
        calibration != "exchangeable"
        and np.isfinite(cal.newest)
        and (released_day is None or released_day > cal.newest)
    )
    n_calibration, shift, widened, reached = 0, 0.0, False, level
    if fitted.fit is None:
        low = high = prediction
        used, how = "none", "every target task was observed: the mean is exact"
    else:
        half_exch = cal.exchangeable_half_width(lev)
        half, n_calibration, used = half_exch, cal.n_nested, "exchangeable"
        chose = "select_tasks' selection" if cal.features is not None else "the task choice"
        calib = (
            f"nested leave-one-model-out errors ({chose} and fit redone without each of the "
            f"{len(cal.models)} reference models), scaled by sqrt(1 + {cal.gamma:.3g} * "
            "leverage)"
        )
        if newer and cal.drift is None:
            calib += f"; {cal.why_not_newer}"
        elif newer and cal.drift is not None:
            d = cal.drift
            shift = d.shift(gap)
            half_time = cal.newer_half_width(gap)
            widened = half_time > half_exch
            half, n_calibration, used = max(half_time, half_exch), d.n, "newer"
            reached = min(level, d.level)
            calib = (
                f"{d.n} forward-in-time predictions (reference models predicted from those "
                f"released before it, and 90 and 180 days before; {cal.n_undated} undated "
                "left out) "
                f"at {gap:.0f} days from the newest reference: drift "
                f"{100 * -d.drift:+.2f} points a year added, variance growing "
                f"{100 * d.growth:.0f}% a year; never narrower than the exchangeable interval"
            )
            if reached < level:
                calib += f"; {_too_few(d.n, level, reached)}"
        prediction = prediction + shift
        low, high = prediction - half, prediction + half
        how = (
            f"ridge (lambda={fitted.fit.lam:.3g}) of the mean of the "
            f"{len(cal.target) - len(fitted.known)} unobserved target task(s) on "
            f"{len(fitted.features)} of {len(obs)} observed task z-score(s) over "
            f"{len(cal.models)} reference models; {level:.0%} interval from {calib}"
        )
    if reached < level:
        warnings.warn(
            f"predict_benchmark: {_too_few(n_calibration, level, reached)}",
            CalibrationWarning,
            stacklevel=3,
        )
    caveat = flags.reason()
    beyond_time = used == "newer" and gap > FORWARD_LAGS[-1]
    if beyond_time:
        late = (
            f"released {gap:.0f} days after the newest reference model (the calibration in "
            f"time measured up to {FORWARD_LAGS[-1]:.0f})"
        )
        caveat = f"{caveat}; {late}" if caveat else late
    flagged = flags.flagged or beyond_time
    if flagged and fitted.fit is not None:
        if used == "newer":
            remedy = (
                "the interval is widened for that: calibrated on how far reference models "
                "missed when predicted from older models"
                if widened
                else "the interval calibrated on how far reference models missed when "
                "predicted from older models is no wider than the exchangeable one"
            )
        else:
            remedy = (
                "the interval is widened by its leverage only; pass reference_dates= to "
                "calibrate it on how far newer models missed"
            )
        warnings.warn(f"predict_benchmark: {caveat}: {remedy}", ExtrapolationWarning, stacklevel=3)
    mean, low, high = (float(np.clip(v, 0.0, 1.0)) for v in (prediction, low, high))
    return BenchmarkPrediction(
        mean=mean,
        confidence_interval=ConfidenceInterval(low, high),
        rank=_rank(mean, cal.means),
        rank_low=_rank(high, cal.means),
        rank_high=_rank(low, cal.means),
        tasks=tuple(obs.index),
        features=tuple(fitted.features),
        target_tasks=tuple(cal.target),
        n_reference=len(cal.models),
        known_share=fitted.w_known,
        leverage=float(lev),
        extrapolating=flagged,
        caveat=caveat,
        calibration=used,
        n_calibration=n_calibration,
        confidence_level=reached,
        method=how,
    )


def _too_few(n: int, level: float, reached: float) -> str:
    """Why the interval's level is below the one asked for."""
    return (
        f"{n} forward-in-time predictions are too few for a {level:.0%} interval: the "
        f"interval is their largest error, a {reached:.1%} interval (confidence_level)"
    )


def _check_calibration(
    calibration: str, reference_dates: Mapping[str, Any] | pd.Series | None
) -> None:
    if calibration not in _CALIBRATIONS:
        raise ValueError(f"`calibration` must be one of {list(_CALIBRATIONS)}, got {calibration!r}")
    if calibration == "newer" and reference_dates is None:
        raise ValueError(
            "`calibration='newer'` needs `reference_dates=` (e.g. "
            "analysis.results.groups.release_dates(reference.columns))"
        )
    if calibration == "auto" and reference_dates is None:
        warnings.warn(
            "predict_benchmark: no reference_dates, so the interval assumes a model like the "
            "references; for a newer model pass reference_dates=release_dates(reference."
            "columns) (analysis.results.groups), or calibration='exchangeable' to silence this",
            CalibrationWarning,
            stacklevel=3,
        )


def _prepare(
    reference: pd.DataFrame,
    observed: Mapping[str, float] | pd.Series,
    target_tasks: Sequence[str] | None,
    selection: TaskSelectionResult | None,
) -> tuple[pd.Series, list[str]]:
    """The observed scores (the selection's tasks when given) and the target tasks."""
    _require_frame(reference)
    tasks_all = [str(t) for t in reference.index]
    obs = _observed(observed, tasks_all)
    target = _task_list(target_tasks, tasks_all, "target_tasks")
    if selection is not None:
        missing = [t for t in selection.tasks if t not in obs.index]
        if missing:
            raise ValueError(f"`observed` lacks the selected task(s) {missing} of `selection`")
        if selection.heldout["error"].isna().any():
            raise ValueError("`selection` was not validated: run select_tasks with validate=True")
        if list(selection.target_tasks) != target:
            raise ValueError(
                "`selection` was made for other target tasks: run select_tasks with these "
                "target_tasks (or leave `selection` out)"
            )
        obs = obs.loc[list(selection.tasks)]
    return obs, target


def predict_benchmark(
    reference: pd.DataFrame,
    observed: Mapping[str, float] | pd.Series,
    *,
    target_tasks: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    selection: TaskSelectionResult | None = None,
    reference_dates: Mapping[str, Any] | pd.Series | None = None,
    released: Any = None,
    calibration: str = "auto",
    model: str | None = None,
    rng: RngLike = None,
) -> BenchmarkPrediction:
    """Predict a new model's benchmark mean from its scores on some tasks.

    Assumes the new model is exchangeable with the references (or, with ``reference_dates``, newer
    than them); coverage is marginal over new models. Method and caveats: the module notes.

    Args:
        reference: tasks x models of complete reference models, scores 0-1 (as
            ``Leaderboard.wide()``). Models missing a task used are dropped with a
            ``DroppedModelsWarning``.
        observed: task -> score (0-1) of the new model, over any tasks of
            ``reference`` (aligned by task name).
        target_tasks: tasks whose mean is predicted (default: all rows of ``reference``); RTEB's
            private tasks to predict its private mean from public scores.
        confidence_level: level of the prediction interval.
        selection: the :func:`select_tasks` result that chose the observed tasks on this
            same reference; the interval is then calibrated on the selection rerun without
            each reference model, using its first j tasks (j its longest step within one
            standard error of the narrowest held-out half-width). Without it, the
            predictor chooses its features among the observed tasks the same way.
        reference_dates: model -> release date of the reference models (aligned by
            name; undated models are left out of the calibration in time). With it, a
            model newer than every reference gets an interval calibrated *forward in
            time*: the trend of the errors with the distance in time is added to the
            prediction, and the interval widens with that distance.
        released: the new model's release date. Default: just after the newest
            reference (distance 0); pass the real date when the references are older.
        calibration: ``"auto"`` (forward in time with ``reference_dates``, else
            exchangeable with a one-line ``CalibrationWarning``), ``"newer"`` (requires
            ``reference_dates``) or ``"exchangeable"`` (no warning).
        model: the new model's name, to check it is not among the references.
        rng: accepted for the common signature; the method is deterministic.

    Returns:
        BenchmarkPrediction, always with a finite mean and interval.

    Warns:
        LeakageWarning: the observed model is among the reference models (by ``model``
            or by identical scores on every observed task): it is left out, the fit and
            calibration are redone without it on the same observed tasks.
        ExtrapolationWarning: the model lies beyond the reference models (the message says how).
        CalibrationWarning: ``calibration="auto"`` without ``reference_dates``; or too few
            forward-in-time predictions for ``confidence_level`` (the result's
            ``confidence_level`` is the one reached).

    Raises:
        UnknownTaskError: an observed or target task is not in ``reference``.
        ValueError: fewer than 10 complete reference models, scores above 1, an empty
            or non-finite ``observed``, a ``selection`` made on other models or
            targets or whose tasks were not all observed, or dates that do not parse.

    Examples:
        >>> import numpy as np, pandas as pd
        >>> from analysis.stats import predict_benchmark
        >>> rng = np.random.default_rng(0)
        >>> scores = np.clip(rng.normal(0.6, 0.05, 30) + rng.normal(0, 0.02, (12, 30)), 0, 1)
        >>> reference = pd.DataFrame(scores, index=[f"task{i}" for i in range(12)],
        ...                          columns=[f"model{j}" for j in range(30)])
        >>> mine = {"task0": 0.62, "task1": 0.60, "task2": 0.63}
        >>> res = predict_benchmark(reference, mine, calibration="exchangeable")
        >>> bool(res.confidence_interval.low < res.mean < res.confidence_interval.high)
        True
    """
    level = _check_open_unit(confidence_level, "confidence_level")
    _check_rng(rng)
    _check_calibration(calibration, reference_dates)
    obs, target = _prepare(reference, observed, target_tasks, selection)
    released_day = _released_day(released)
    reference, leaked = _drop_leaked(reference, obs, model, selection)
    if selection is not None:
        selection = _narrowest_prefix(selection)
    dates = None if calibration == "exchangeable" else reference_dates
    cal = _calibrate(reference, list(obs.index), target, selection, dates, level)
    if selection is not None and set(selection.models) - set(leaked) != set(cal.models):
        raise ValueError(
            "`selection` was made on other reference models: run select_tasks on this "
            "reference (or leave `selection` out)"
        )
    return _predict(cal, obs, released_day, calibration)


#: Horizons (days) of the forward-in-time calibration: each reference model is predicted
#: from the models released at least this long before it, so that the trend and spread of
#: the errors with the distance in time can be fitted (:func:`._conformal.time_drift`).
#: Longer horizons leave too few predictions with a third of the models to train on.
FORWARD_LAGS = (0.0, 90.0, 180.0)


def _min_train(n_dated: int) -> int:
    """Fewest earlier models a forward-in-time prediction is made from: a third of the dated."""
    return max(MIN_REFERENCE_MODELS, n_dated // 3)


#: The lowest level a forward-in-time interval may fall to when there are too few
#: forward predictions for the level asked: below it, the exchangeable interval is used.
MIN_FORWARD_LEVEL = 0.9


def _min_forward(level: float) -> int:
    """Fewest forward-in-time predictions (every horizon) calibrated on."""
    floor = min(float(level), MIN_FORWARD_LEVEL)
    return int(np.ceil(floor / (1 - floor) - 1e-9))


@dataclass(frozen=True, repr=False)
class NextTasksResult(TableResult):
    """Result of :func:`next_tasks`.

    Attributes:
        table: one row per candidate, narrowest first: ``task``, ``half_width`` (0-1
            scale), ``narrower_by`` (the current typical half-width minus it).
        half_width: the typical half-width with the observed tasks alone.
        n_observed: observed tasks.
        confidence_level: level of the intervals.
    """

    table: pd.DataFrame
    half_width: float
    n_observed: int
    confidence_level: float

    def _summary_lines(self) -> list[str]:
        best = ", ".join(
            f"{t} ({w:.4f})"
            for t, w in zip(self.table["task"][:3], self.table["half_width"][:3], strict=True)
        )
        return [
            f"{len(self.table)} candidate(s) after {self.n_observed} observed task(s); "
            f"typical half-width now {self.half_width:.4f} at {self.confidence_level:.0%}",
            f"narrowest: {best[:100]}",
        ]


def next_tasks(
    reference: pd.DataFrame,
    observed: Mapping[str, float] | pd.Series,
    *,
    target_tasks: Sequence[str] | None = None,
    candidates: Sequence[str] | None = None,
    confidence_level: float = 0.95,
) -> NextTasksResult:
    """Which task to run next to narrow the interval most.

    For each candidate task not yet observed, the typical half-width of the interval with that task
    added: the conformal quantile of the leave-one-model-out errors of the predictor on the observed
    tasks plus the candidate (before leverage scaling, which depends on the unknown score).

    Args:
        reference: as :func:`predict_benchmark`.
        observed: as :func:`predict_benchmark`.
        target_tasks: as :func:`predict_benchmark`.
        confidence_level: as :func:`predict_benchmark`.
        candidates: tasks that could be run (default: every reference task not
            observed; RTEB's public tasks when its private mean is the target).

    Returns:
        NextTasksResult; its ``to_frame()`` has one row per candidate, narrowest first: ``task``,
        ``half_width`` (0-1 scale), ``narrower_by`` (the current typical half-width minus it).

    Examples:
        A reference leaderboard of 30 models on 12 tasks (synthetic, as in
        :func:`predict_benchmark`'s example):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> scores = np.clip(rng.normal(0.6, 0.05, 30) + rng.normal(0, 0.02, (12, 30)), 0, 1)
        >>> reference = pd.DataFrame(scores, index=[f"task{i}" for i in range(12)],
        ...                          columns=[f"model{j}" for j in range(30)])
        >>> from analysis.stats import next_tasks
        >>> res = next_tasks(reference, {"task0": 0.62, "task1": 0.60, "task2": 0.63})
        >>> table = res.to_frame()
        >>> len(table), bool(table["half_width"].is_monotonic_increasing)
        (9, True)
        >>> table.columns.tolist()
        ['task', 'half_width', 'narrower_by']
    """
    level = _check_open_unit(confidence_level, "confidence_level")
    obs, target = _prepare(reference, observed, target_tasks, None)
    tasks_all = [str(t) for t in reference.index]
    pool = [t for t in (_task_list(candidates, tasks_all, "candidates")) if t not in obs.index]
    rows = list(dict.fromkeys([*obs.index, *target, *pool]))
    scores, _, tasks = _reference(reference, rows, caller="next_tasks")

    def typical(feats: list[str]) -> float:
        fitted = fit_target(scores, tasks, feats, target)
        if fitted.fit is None:
            return 0.0
        return float(split_interval(0.0, np.abs(fitted.loo_errors()), 1.0, level)[1])

    now = typical(list(obs.index))
    out = pd.DataFrame(
        [{"task": t, "half_width": typical([*obs.index, t])} for t in pool],
        columns=["task", "half_width"],
    )
    out["narrower_by"] = now - out["half_width"]
    return NextTasksResult(
        table=out.sort_values(["half_width", "task"], ignore_index=True),
        half_width=now,
        n_observed=len(obs),
        confidence_level=level,
    )
