"""Where does a model stand after a few tasks? Calibrated estimates of a benchmark mean.

On a tasks x models table of *complete* reference models (as
:meth:`analysis.results.leaderboard.Leaderboard.wide` returns it, scores 0-1):

* :func:`predict_benchmark`: a new model's benchmark mean, with a prediction interval
  and the rank interval it implies among the reference models, from its scores on any
  tasks of the reference (RTEB's private mean from its public scores, too);
* :func:`next_tasks`: which task to run next to narrow the interval most.

Which tasks to run in the first place: :func:`analysis.stats.select_tasks`
(:mod:`analysis.stats.selection`).

**The estimator.** The mean of the target tasks the model has not run is predicted by
ridge regression on the z-scores of the tasks it has run (penalty chosen by exact
leave-one-out error, 0 = least squares included, then raised to a floor of 0.1 n: the
floor keeps a newer model's interval as narrow at 12 tasks while least squares, chosen
for models like the references, extrapolates worst beyond them; measured in
:data:`._ridge.LAMBDA_FLOOR`); the tasks it has run enter the mean as measured
(:mod:`._target`). Least squares was as accurate as a low-rank factor
model, a Gaussian process, Huber regression and quadratic terms on the snapshot's
MTEB(eng, v2) (``benchmarks/results/estimate.md``).

**The interval.** Split conformal on held-out errors of the whole procedure (the choice
of feature tasks and the fit, :mod:`._procedure`): rerun without each reference model
(exchangeable models), errors scaled by ``sqrt(1 + gamma * leverage)`` (gamma from a
Theil-Sen line of squared errors on leverage, :mod:`._conformal`), so that a model far
from the references in its observed tasks gets a wider interval; or, for a model newer
than every dated reference (``reference_dates=``), rerun on the models released before
each reference model (forward in time), never narrower than the exchangeable interval.
When the tasks were chosen by :func:`select_tasks` on the same reference models, pass
its result as ``selection=``: its selection is the procedure rerun, so choosing tasks
that happen to fit these models well is paid for. Alternatives measured for a newer
model (MTEB(eng, v2), 12 tasks, release-date splits, before the penalty floor; this
interval: median half-width 2.59 points, coverage 0.956, lowest cut date 0.918):
centring on the median forward error (a time trend; that median is about 0) 2.60;
forward errors scaled by leverage 2.30 (coverage 0.922, lowest cut 0.86), with a gamma
of their own 2.10 (0.928, 0.84); flagged and unflagged models calibrated apart
(Mondrian) 2.59 (0.931, 0.81). None narrows it while keeping the coverage.

**Assumptions, and what it cannot promise.** The new model is exchangeable with the
reference models (drawn from the same population, in particular not trained on the
benchmark's tasks more than they were), and the tasks and their scoring are fixed.
Coverage is then marginal, over new models: about 95% of models get an interval that
holds, not each model with probability 95%. A model unlike every reference model
(a new family, a model tuned on the observed tasks, a model that fails some task type
it was not run on) can be far outside its interval: no interval computed from a few
tasks can see what those tasks do not measure. Leverage widens the interval of
models that look unusual *on the observed tasks* (``extrapolating`` flags one outside
the reference range); it cannot detect unusual behaviour elsewhere. Measured: see
``benchmarks/results/estimate.md`` (coverage overall and on static models).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import DroppedModelsWarning, ExtrapolationWarning, LeakageWarning
from ._checks import RngLike, _check_open_unit, _check_rng, deprecated_attribute
from ._conformal import sigma, split_interval, upper_order_statistic, variance_slope
from ._estimate_checks import (
    MIN_REFERENCE_MODELS,
    _leaked,
    _observed,
    _reference,
    _require_frame,
    _task_list,
)
from ._procedure import Procedure
from ._results import ConfidenceInterval, StatsResult
from ._target import fit_target
from .selection import TaskSelectionResult, select_tasks

__all__ = ["BenchmarkPrediction", "NextTasksResult", "next_tasks", "predict_benchmark"]


@dataclass(frozen=True, repr=False)
class BenchmarkPrediction(StatsResult):
    """Result of :func:`predict_benchmark` (means on the 0-1 scale of ``main_score``).

    Attributes:
        mean: predicted target mean (0-1).
        confidence_interval: its prediction interval (clipped to 0-1); ``low`` and
            ``high``, deprecated, are the old names of its ends.
        rank, rank_low, rank_high: the rank (1 = best) the predicted mean and the
            interval's ends would take among the reference models (``n_reference + 1``
            = below all of them).
        tasks: observed tasks used.
        features: the observed tasks the predictor regresses on (the selection's, or
            the best forward-selected subset of the observed tasks).
        target_tasks: tasks whose mean is predicted.
        n_reference: reference models used.
        known_share: share of the target mean that was measured (observed target tasks).
        leverage: the model's leverage on the feature tasks.
        extrapolating: the model lies beyond the reference models (``caveat`` says how).
        caveat: in words, where it lies beyond them ("" when it does not): outside
            their range on two or more observed tasks, jointly (leverage above every
            reference model's), or in its predicted mean (``beyond``, deprecated, is
            the old name).
        calibration: ``"newer"`` (calibrated forward in time: the model is newer than
            every dated reference), ``"exchangeable"`` (leave one model out), or
            ``"none"`` (every target task observed).
        n_calibration: held-out predictions the interval was calibrated on.
        confidence_level: level of the interval.
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

    @property
    def low(self) -> float:
        """Deprecated: ``confidence_interval.low``."""
        deprecated_attribute("BenchmarkPrediction", "low", "confidence_interval.low")
        return self.confidence_interval.low

    @property
    def high(self) -> float:
        """Deprecated: ``confidence_interval.high``."""
        deprecated_attribute("BenchmarkPrediction", "high", "confidence_interval.high")
        return self.confidence_interval.high

    @property
    def beyond(self) -> str:
        """Deprecated: the old name of :attr:`caveat`."""
        deprecated_attribute("BenchmarkPrediction", "beyond", "caveat")
        return self.caveat

    def to_frame(self) -> pd.DataFrame:
        """One row: the headline numbers."""
        return pd.DataFrame(
            [
                {
                    "mean": self.mean,
                    "ci_low": self.confidence_interval.low,
                    "ci_high": self.confidence_interval.high,
                    "rank": self.rank,
                    "rank_low": self.rank_low,
                    "rank_high": self.rank_high,
                    "n_tasks": len(self.tasks),
                    "n_target_tasks": len(self.target_tasks),
                    "n_reference": self.n_reference,
                    "known_share": self.known_share,
                    "extrapolating": self.extrapolating,
                    "calibration": self.calibration,
                }
            ]
        )

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
    """The forward selection among the observed tasks, cut at its narrowest nested width.

    :func:`select_tasks` runs over every observed task (as many steps as the reference
    allows) with its nested leave-one-model-out validation, and the step whose held-out
    half-width is smallest is kept. Forward selection is greedy, so its first k steps are
    the k-task selection: observing more tasks can never give a wider (exchangeable)
    interval than the best subset would. The choice of the step is made on the same
    nested errors that calibrate it (not nested again): slightly optimistic, measured in
    ``benchmarks/results/estimate.md``. None when no step can be validated.

    Measured and rejected (release-date splits of RTEB(beta), section 6b, and its
    section 5): cutting the path where the interval *for the new model* (at its own
    leverage) is narrowest gave 7.68 points with all public tasks, but coverage 0.929
    in section 5 (target 0.93-0.97) and 0.82 at one cut date (choosing the narrowest of
    several intervals on the errors that calibrate them is optimistic); nesting that
    choice once more and widening by it overcorrected (11.66 points, section 5 0.971).
    """
    limit = min(len(observed), max(reference.shape[1] - 3, 1))
    unknown = [t for t in target if t not in set(observed)]
    if not unknown:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedModelsWarning)  # said once by the caller
        path = select_tasks(
            reference, limit, target_tasks=list(target), candidates=list(observed),
            confidence_level=level,
        )  # fmt: skip
    widths = path.steps["half_width"].to_numpy()
    if not np.isfinite(widths).any():
        return None
    k = int(path.steps["n_tasks"].iloc[int(np.nanargmin(widths))])
    return path if k == path.k else path.redo(reference, k=k)


def _day_numbers(dates: Mapping[str, Any] | pd.Series, models: Sequence[str]) -> np.ndarray:
    """Release dates of ``models`` as day numbers (NaN when unknown), aligned by name."""
    if not isinstance(dates, Mapping | pd.Series):
        raise ValueError(
            "`reference_dates` must map model names to release dates (a dict or a pandas "
            f"Series indexed by model), got {type(dates).__name__}"
        )
    series = pd.Series(dict(dates.items()), dtype=object)
    parsed = pd.to_datetime(series.reindex(list(models)), errors="coerce")
    days = (parsed - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)
    return days.to_numpy(dtype=float)


def _released_day(released: Any) -> float | None:
    if released is None:
        return None
    stamp = pd.to_datetime(released, errors="coerce")
    if pd.isna(stamp):
        raise ValueError(f"`released` is not a date: {released!r} (give e.g. '2026-11-25')")
    return float((stamp - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1))


def _drop_leaked(
    reference: pd.DataFrame,
    obs: pd.Series,
    model: str | None,
    selection: TaskSelectionResult | None,
) -> tuple[pd.DataFrame, TaskSelectionResult | None]:
    leaked, why = _leaked(reference, obs, model)
    if not leaked:
        return reference, selection
    names = ", ".join(map(str, leaked))
    redo = selection is not None and bool(set(map(str, leaked)) & set(selection.models))
    warnings.warn(
        f"predict_benchmark: the observed model is among the reference models ({names}, "
        f"{why}); it was left out of the reference"
        + (" and the task selection redone without it" if redo else "")
        + ", since predicting a model from itself would understate the error",
        LeakageWarning,
        stacklevel=3,
    )
    reference = reference.drop(columns=leaked)
    if redo:
        assert selection is not None
        selection = selection.redo(reference)
    return reference, selection


def _quantile(errors: np.ndarray, level: float) -> float:
    return upper_order_statistic(np.abs(errors), level)


def predict_benchmark(
    reference: pd.DataFrame,
    observed: Mapping[str, float] | pd.Series,
    *,
    target_tasks: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    selection: TaskSelectionResult | None = None,
    reference_dates: Mapping[str, Any] | pd.Series | None = None,
    released: Any = None,
    model: str | None = None,
    rng: RngLike = None,
) -> BenchmarkPrediction:
    """Predict a new model's benchmark mean from its scores on some tasks.

    Args:
        reference: tasks x models of complete reference models, scores 0-1 (as
            ``Leaderboard.wide()``). Models missing a task used are dropped with a
            ``DroppedModelsWarning``.
        observed: task -> score (0-1) of the new model, over any tasks of
            ``reference`` (aligned by task name).
        target_tasks: tasks whose mean is predicted (default: all rows of
            ``reference``); RTEB's private tasks to predict its private mean from
            public scores.
        confidence_level: level of the prediction interval.
        selection: the :func:`select_tasks` result that chose the observed tasks on
            this same reference; the interval is then calibrated on the selection
            procedure rerun without each calibration model. Without it, the predictor
            chooses its features among the observed tasks itself (forward selection,
            rerun likewise).
        reference_dates: model -> release date of the reference models (aligned by
            name; models without one are counted and left out of the calibration in
            time). With it, a model newer than every reference model (``released``
            None or later than all of them) gets an interval calibrated *forward in
            time*: each reference model predicted from the models released before it.
            Without it, the new model is taken as exchangeable with the references.
        released: the new model's release date (default: newer than every reference;
            a date inside the references' range calibrates as exchangeable).
        model: the new model's name, to check it is not among the references.
        rng: accepted for the common signature; the method is deterministic.

    Returns:
        BenchmarkPrediction.

    Warns:
        LeakageWarning: the observed model is among the reference models (by ``model``
            or by identical scores on every observed task, a near twin): it is left out
            (and ``selection`` redone without it) and the prediction made.
        ExtrapolationWarning: the model lies beyond the reference models: outside their
            range on two or more observed tasks, jointly (its leverage exceeds every
            reference model's), or in its predicted mean. The message says which.

    Raises:
        UnknownTaskError: an observed or target task is not in ``reference``.
        ValueError: fewer than 10 complete reference models, scores above 1, an empty
            or non-finite ``observed``, a ``selection`` made on other models or
            targets or whose tasks were not all observed, or dates that do not parse.
    """
    level = _check_open_unit(confidence_level, "confidence_level")
    _check_rng(rng)
    _require_frame(reference)
    tasks_all = [str(t) for t in reference.index]
    obs = _observed(observed, tasks_all)
    target = _task_list(target_tasks, tasks_all, "target_tasks")
    released_day = _released_day(released)
    if selection is not None:
        missing = [t for t in selection.tasks if t not in obs.index]
        if missing:
            raise ValueError(f"`observed` lacks the selected task(s) {missing} of `selection`")
        if selection.heldout["error"].isna().any():
            raise ValueError("`selection` was not validated: run select_tasks with validate=True")
        obs = obs.loc[list(selection.tasks)]
    reference, selection = _drop_leaked(reference, obs, model, selection)
    chosen = (
        selection if selection is not None else _best_k(reference, list(obs.index), target, level)
    )
    candidates = list(selection.candidates) if selection is not None else list(obs.index)
    rows = list(dict.fromkeys([*obs.index, *candidates, *target]))
    scores, models, tasks = _reference(reference, rows, caller="predict_benchmark")
    if selection is not None and (
        set(selection.models) != set(models) or list(selection.target_tasks) != target
    ):
        raise ValueError(
            "`selection` was made on other reference models or target tasks: run "
            "select_tasks on this reference (or leave `selection` out)"
        )
    procedure = Procedure(
        scores=scores,
        tasks=tuple(tasks),
        observed=tuple(obs.index),
        candidates=tuple(candidates),
        target=tuple(target),
        choose=chosen.chooser() if chosen is not None else None,
    )
    x = np.full(len(tasks), np.nan)
    x[[tasks.index(t) for t in obs.index]] = obs.to_numpy(dtype=float)
    every = np.arange(len(models))
    prediction, lev, flags, fitted = procedure.predict(every, x)
    days = None if reference_dates is None else _day_numbers(reference_dates, models)
    newer = days is not None and (released_day is None or released_day > np.nanmax(days))
    means = scores[[tasks.index(t) for t in target]].mean(axis=0)
    n_undated = int(np.isnan(days).sum()) if days is not None else len(models)
    n_calibration, widened = 0, 1.0
    if fitted.fit is None:
        low = high = prediction
        calibration = "none"
        how = "every target task was observed: the mean is exact"
    else:
        nested = procedure.nested()
        gamma = variance_slope(nested.errors, nested.leverage)
        sig_x = float(sigma(lev, gamma))
        half_exch = sig_x * _quantile(nested.errors / sigma(nested.leverage, gamma), level)
        half, n_calibration = half_exch, len(nested)
        calibration = "exchangeable"
        chose = "select_tasks' selection" if selection is not None else "the task choice"
        calib = (
            f"nested leave-one-model-out errors ({chose} and fit redone without each of the "
            f"{len(models)} reference models), scaled by sqrt(1 + {gamma:.3g} * leverage)"
        )
        forward = None
        if newer:
            assert days is not None
            forward = procedure.forward(days, min_train=_min_train(int(np.sum(~np.isnan(days)))))
            if len(forward) < _min_forward(level):
                calib += (
                    f"; only {len(forward)} forward-in-time predictions (at least "
                    f"{_min_forward(level)} needed), so not calibrated forward in time"
                )
                forward = None
        if forward is not None:
            half_time = _quantile(forward.errors, level)
            half, n_calibration = max(half_time, half_exch), len(forward)
            widened = half / half_exch if half_exch > 0 else 1.0
            calibration = "newer"
            calib = (
                f"each of {len(forward)} reference models predicted from those released "
                f"before it (forward in time; {n_undated} undated left out), never narrower "
                "than the exchangeable interval"
            )
        low, high = prediction - half, prediction + half
        how = (
            f"ridge (lambda={fitted.fit.lam:.3g}) of the mean of the "
            f"{len(target) - len(fitted.known)} unobserved target task(s) on "
            f"{len(fitted.features)} of {len(obs)} observed task z-score(s) over "
            f"{len(models)} reference models; {level:.0%} interval from {calib}"
        )
    if flags.flagged and fitted.fit is not None:
        remedy = (
            f"the interval is widened for that (x{widened:.2f}): calibrated on how far each "
            "reference model missed when predicted from the models released before it"
            if calibration == "newer"
            else "the interval is widened by its leverage only; pass reference_dates= to "
            "calibrate it on how far newer models missed"
        )
        warnings.warn(
            f"predict_benchmark: {flags.reason()}: {remedy}", ExtrapolationWarning, stacklevel=2
        )
    mean, low, high = (float(np.clip(v, 0.0, 1.0)) for v in (prediction, low, high))
    return BenchmarkPrediction(
        mean=mean,
        confidence_interval=ConfidenceInterval(low, high),
        rank=_rank(mean, means),
        rank_low=_rank(high, means),
        rank_high=_rank(low, means),
        tasks=tuple(obs.index),
        features=tuple(fitted.features),
        target_tasks=tuple(target),
        n_reference=len(models),
        known_share=fitted.w_known,
        leverage=float(lev),
        extrapolating=flags.flagged,
        caveat=flags.reason(),
        calibration=calibration,
        n_calibration=n_calibration,
        confidence_level=level,
        method=how,
    )


def _min_train(n_dated: int) -> int:
    """Fewest earlier models a forward-in-time calibration prediction is made from.

    A third of the dated models: predictions from fewer models miss by more than the
    final fit (on all of them) will, and widen the interval for nothing. Measured on the
    release-date splits (``benchmarks/bench_estimate.py``, section 6) against a quarter
    and a half: a third kept the lowest per-date coverage highest at similar widths.
    Fractions 0.4, 0.45 and 0.5 (MTEB(eng, v2), 12 tasks, before the penalty floor)
    gave median half-widths of 2.83, 2.83 and 2.88 points against 2.59, and weighting
    the forward errors by recency (weighted conformal, weights exp(-age / tau)) 2.83,
    2.88 and 11.96 points at tau = 365, 180 and 90 days: the older forward predictions
    are not the ones that widen it.
    """
    return max(MIN_REFERENCE_MODELS, n_dated // 3)


def _min_forward(level: float) -> int:
    """Fewest forward-in-time predictions the calibration in time is made from.

    ``2 / (1 - level)`` (40 at 95%): with fewer, the conformal quantile is the largest
    error or next to it, one unusual model then sets the width (RTEB(beta) has only 46
    such predictions with all 70 models). Below it, the exchangeable calibration is used
    and ``method`` says so.
    """
    return int(np.ceil(2 / (1 - level)))


@dataclass(frozen=True, repr=False)
class NextTasksResult(StatsResult):
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

    def to_frame(self) -> pd.DataFrame:
        """The candidates table (a copy), narrowest first."""
        return self.table.copy()

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

    For each candidate task not yet observed, the typical half-width of the interval
    with that task added: the conformal quantile of the leave-one-model-out errors of
    the predictor on the observed tasks plus the candidate (before leverage scaling,
    which depends on the unknown score).

    Args:
        reference: as :func:`predict_benchmark`.
        observed: as :func:`predict_benchmark`.
        target_tasks: as :func:`predict_benchmark`.
        confidence_level: as :func:`predict_benchmark`.
        candidates: tasks that could be run (default: every reference task not
            observed; RTEB's public tasks when its private mean is the target).

    Returns:
        NextTasksResult; its ``to_frame()`` has one row per candidate, narrowest first:
        ``task``, ``half_width`` (0-1 scale), ``narrower_by`` (the current typical
        half-width minus it).
    """
    level = _check_open_unit(confidence_level, "confidence_level")
    _require_frame(reference)
    tasks_all = [str(t) for t in reference.index]
    obs = _observed(observed, tasks_all)
    target = _task_list(target_tasks, tasks_all, "target_tasks")
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
