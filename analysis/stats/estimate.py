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
leave-one-out error, 0 = least squares included); the tasks it has run enter the mean
as measured (:mod:`._target`). Least squares was as accurate as a low-rank factor
model, a Gaussian process, Huber regression and quadratic terms on the snapshot's
MTEB(eng, v2) (``benchmarks/results/estimate.md``).

**The interval.** Conformal, calibrated for a *new* model by leave-one-model-out:
normalized jackknife+ (Barber et al. 2021) over the reference models, the errors
scaled by ``sqrt(1 + gamma * leverage)`` (gamma from a Theil-Sen line of squared errors
on leverage) so that a model far from the reference models in its observed tasks gets a
wider interval (:mod:`._conformal`). When the tasks were
chosen by :func:`select_tasks` on the same reference models, pass its result as
``selection=``: the interval is then calibrated on the nested errors of the whole
procedure, so choosing tasks that happen to fit these models well is paid for.

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

import numpy as np
import pandas as pd

from ..errors import ExtrapolationWarning, LeakageWarning
from ._checks import RngLike, _check_open_unit, _check_rng
from ._conformal import jackknife_plus, sigma, split_interval, variance_slope
from ._estimate_checks import _leaked, _observed, _reference, _require_frame, _task_list
from ._results import StatsResult
from ._target import fit_target
from .selection import TaskSelectionResult

__all__ = ["BenchmarkPrediction", "next_tasks", "predict_benchmark"]


@dataclass(frozen=True, repr=False)
class BenchmarkPrediction(StatsResult):
    """Result of :func:`predict_benchmark` (means on the 0-1 scale of ``main_score``).

    Attributes:
        mean, low, high: predicted target mean and its prediction interval (clipped to
            0-1).
        rank, rank_low, rank_high: the rank (1 = best) the predicted mean and the
            interval's ends would take among the reference models (``n_reference + 1``
            = below all of them).
        tasks: observed tasks used.
        target_tasks: tasks whose mean is predicted.
        n_reference: reference models used.
        known_share: share of the target mean that was measured (observed target tasks).
        leverage: the model's leverage on the observed tasks; ``extrapolating`` is True
            when it exceeds every reference model's (the model is unlike all of them).
        confidence_level: level of the interval.
        method: estimator and interval, in one sentence.
    """

    mean: float
    low: float
    high: float
    rank: int
    rank_low: int
    rank_high: int
    tasks: tuple[str, ...]
    target_tasks: tuple[str, ...]
    n_reference: int
    known_share: float
    leverage: float
    extrapolating: bool
    confidence_level: float
    method: str

    def to_frame(self) -> pd.DataFrame:
        """One row: the headline numbers."""
        return pd.DataFrame(
            [
                {
                    "mean": self.mean,
                    "low": self.low,
                    "high": self.high,
                    "rank": self.rank,
                    "rank_low": self.rank_low,
                    "rank_high": self.rank_high,
                    "n_tasks": len(self.tasks),
                    "n_target_tasks": len(self.target_tasks),
                    "n_reference": self.n_reference,
                    "known_share": self.known_share,
                    "extrapolating": self.extrapolating,
                }
            ]
        )

    def _summary_lines(self) -> list[str]:
        level = f"{self.confidence_level:.0%}"
        return [
            f"mean={self.mean:.4f}, {level} interval=({self.low:.4f}, {self.high:.4f})",
            f"rank={self.rank} ({self.rank_low} to {self.rank_high}) among "
            f"{self.n_reference} reference models",
            f"from {len(self.tasks)} observed task(s) of {len(self.target_tasks)} target "
            f"task(s); extrapolating={self.extrapolating}",
            self.method[:86],
        ]


def _rank(value: float, means: np.ndarray) -> int:
    return int(1 + np.sum(means > value))


def predict_benchmark(
    reference: pd.DataFrame,
    observed: Mapping[str, float] | pd.Series,
    *,
    target_tasks: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    selection: TaskSelectionResult | None = None,
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
            this same reference; the interval is then calibrated on its nested
            held-out errors (and only its tasks are used). Without it, the observed
            tasks are taken as chosen independently of the reference scores.
        model: the new model's name, to check it is not among the references.
        rng: accepted for the common signature; the method is deterministic.

    Returns:
        BenchmarkPrediction.

    Warns:
        LeakageWarning: the observed model is among the reference models (by ``model``
            or by identical scores on every observed task); it is left out.
        ExtrapolationWarning: the model's observed scores lie outside the reference
            models' range (its leverage exceeds every reference model's).

    Raises:
        UnknownTaskError: an observed or target task is not in ``reference``.
        ValueError: fewer than 10 complete reference models, scores above 1, an empty
            or non-finite ``observed``, or a ``selection`` made on other models or
            targets, or whose tasks were not all observed.
    """
    level = _check_open_unit(confidence_level, "confidence_level")
    _check_rng(rng)
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
        obs = obs.loc[list(selection.tasks)]
    leaked, why = _leaked(reference, obs, model)
    if leaked and selection is not None:
        raise ValueError(
            f"the observed model is among the reference models ({', '.join(map(str, leaked))}, "
            f"{why}) that `selection` was made on: select tasks on a reference without it"
        )
    if leaked:
        warnings.warn(
            f"predict_benchmark: the observed model is among the reference models "
            f"({', '.join(map(str, leaked))}, {why}); it was left out of the reference, "
            "since predicting a model from itself would understate the error",
            LeakageWarning,
            stacklevel=2,
        )
        reference = reference.drop(columns=leaked)
    rows = list(dict.fromkeys([*obs.index, *target]))
    scores, models, tasks = _reference(reference, rows, caller="predict_benchmark")
    if selection is not None and (
        set(selection.models) != set(models) or list(selection.target_tasks) != target
    ):
        raise ValueError(
            "`selection` was made on other reference models or target tasks: run "
            "select_tasks on this reference (or leave `selection` out)"
        )
    feats = list(obs.index)
    fitted = fit_target(scores, tasks, feats, target)
    x = obs.to_numpy(dtype=float)
    means = scores[[tasks.index(t) for t in target]].mean(axis=0)
    prediction = fitted.predict(x)
    if fitted.fit is None:
        low = high = prediction
        lev, extrapolating = 0.0, False
        how = "every target task was observed: the mean is exact"
    else:
        lev = fitted.leverage(x)
        if selection is None:
            errors, ref_lev = fitted.loo_errors(), fitted.fit.loo_leverage
        else:
            held = selection.heldout.set_index("model").loc[models]
            errors, ref_lev = held["error"].to_numpy(), held["leverage"].to_numpy()
        gamma = variance_slope(errors, ref_lev)
        scores_r = np.abs(errors) / sigma(ref_lev, gamma)
        sig_x = float(sigma(lev, gamma))
        if selection is None:
            low, high = jackknife_plus(fitted.loo_predict(x), scores_r, sig_x, level)
            calib = "normalized jackknife+ over the reference models"
        else:
            low, high = split_interval(prediction, scores_r, sig_x, level)
            calib = "nested leave-one-model-out errors of select_tasks (selection redone)"
        extrapolating = bool(lev > np.max(ref_lev))
        if extrapolating:
            warnings.warn(
                f"predict_benchmark: on the observed tasks the model is unlike every reference "
                f"model (leverage {lev:.3g}, the largest among them {np.max(ref_lev):.3g}); "
                "the interval is widened by its leverage but rests on extrapolation",
                ExtrapolationWarning,
                stacklevel=2,
            )
        how = (
            f"ridge (lambda={fitted.fit.lam:.3g}) of the mean of the "
            f"{len(target) - len(fitted.known)} unobserved target task(s) on {len(feats)} "
            f"observed task z-score(s) over {len(models)} reference models; "
            f"{level:.0%} interval from {calib}, errors scaled by sqrt(1 + {gamma:.3g} * "
            "leverage); assumes the new model resembles the reference models"
        )
    mean, low, high = (float(np.clip(v, 0.0, 1.0)) for v in (prediction, low, high))
    return BenchmarkPrediction(
        mean=mean,
        low=low,
        high=high,
        rank=_rank(mean, means),
        rank_low=_rank(high, means),
        rank_high=_rank(low, means),
        tasks=tuple(feats),
        target_tasks=tuple(target),
        n_reference=len(models),
        known_share=fitted.w_known,
        leverage=lev,
        extrapolating=extrapolating,
        confidence_level=level,
        method=how,
    )


def next_tasks(
    reference: pd.DataFrame,
    observed: Mapping[str, float] | pd.Series,
    *,
    target_tasks: Sequence[str] | None = None,
    candidates: Sequence[str] | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
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
        One row per candidate, narrowest first: ``task``, ``half_width`` (0-1 scale),
        ``narrower_by`` (the current typical half-width minus it).
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
    return out.sort_values(["half_width", "task"], ignore_index=True)
