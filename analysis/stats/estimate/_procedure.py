"""The whole estimation procedure, rerun on subsets of the reference models.

A prediction is a procedure: choose the feature tasks on the training models, fit the predictor of
:mod:`._target`, predict the held-out model. Its errors are measured by rerunning all of it without
the held-out model: leave one model out (:meth:`Procedure.nested`, a new model drawn like the
references), or forward in time (:meth:`Procedure.forward`, each model predicted from those released
before it: rolling origin, Tashman 2000). Each held-out model also gets the :class:`Beyond` flags
against its own training models.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ._target import TargetModel, fit_target

#: ``select(X, y) -> chosen``: the chosen columns of ``X`` (models x candidate tasks).
ChooseTasks = Callable[[np.ndarray, np.ndarray], list[int]]

#: Observed tasks beyond the reference range that make a model "beyond" (with the joint
#: leverage and the prediction checks of :class:`Beyond`).
MIN_TASKS_BEYOND = 2


@dataclass(frozen=True)
class Beyond:
    """Where a model lies against the models it is predicted from.

    Attributes:
        n_tasks: observed tasks on which it lies outside every training model's score.
        n_observed: observed tasks checked.
        leverage_beyond: its leverage exceeds every training model's own (jointly
            unusual on the feature tasks).
        prediction_beyond: its predicted target mean lies outside the training models'.
    """

    n_tasks: int
    n_observed: int
    leverage_beyond: bool
    prediction_beyond: bool

    @property
    def flagged(self) -> bool:
        """Beyond on several tasks, jointly, or in its prediction."""
        return self.n_tasks >= MIN_TASKS_BEYOND or self.leverage_beyond or self.prediction_beyond

    def reason(self) -> str:
        """Why it is flagged, in words ("" when it is not)."""
        parts = []
        if self.n_tasks:
            parts.append(
                f"beyond every reference model on {self.n_tasks} of {self.n_observed} tasks"
            )
        if self.leverage_beyond:
            parts.append("unlike every reference model on the observed tasks jointly")
        if self.prediction_beyond:
            parts.append("its predicted mean lies beyond every reference model's")
        return "; ".join(parts) if self.flagged else ""


@dataclass(frozen=True)
class HeldOut:
    """Errors of the procedure on held-out models (predicted - actual), one per model.

    ``gaps``: for forward-in-time predictions, days between the held-out model's release
    and the newest model it was predicted from; ``lags``: the horizon each was made at
    (both empty otherwise).
    """

    models: np.ndarray
    errors: np.ndarray
    leverage: np.ndarray
    flagged: np.ndarray
    gaps: np.ndarray = field(default_factory=lambda: np.empty(0))
    lags: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __len__(self) -> int:
        return len(self.models)


@dataclass(frozen=True)
class Procedure:
    """Choose tasks, fit, predict; rerunnable on any subset of the reference models.

    Attributes:
        scores: complete tasks x models matrix of the reference models.
        tasks: its row names.
        observed: the tasks the new model has scores on (rows of its observed vector).
        candidates: the observed tasks the procedure may use as features.
        target: the target tasks.
        choose: the task choice on the training models (None: use every candidate).
    """

    scores: np.ndarray
    tasks: tuple[str, ...]
    observed: tuple[str, ...]
    candidates: tuple[str, ...]
    target: tuple[str, ...]
    choose: ChooseTasks | None

    def _rows(self, names: Sequence[str]) -> list[int]:
        position = {t: i for i, t in enumerate(self.tasks)}
        return [position[t] for t in names]

    def features(self, train: np.ndarray) -> list[str]:
        """The tasks the procedure uses when trained on the models ``train``."""
        if self.choose is None:
            return list(self.candidates)
        sub = self.scores[:, train]
        X, y = sub[self._rows(self.candidates)].T, sub[self._rows(self.target)].mean(axis=0)
        return [self.candidates[c] for c in self.choose(X, y)]

    def fit(self, train: np.ndarray, features: Sequence[str] | None = None) -> TargetModel:
        """The predictor trained on the models ``train`` (on ``features`` when given)."""
        feats = self.features(train) if features is None else list(features)
        return fit_target(self.scores[:, train], self.tasks, feats, self.target)

    def predict(
        self, train: np.ndarray, x: np.ndarray, features: Sequence[str] | None = None
    ) -> tuple[float, float, Beyond, TargetModel]:
        """Prediction, leverage and flags of a model trained on the models ``train``.

        Args:
            train: column indices of the training models.
            x: the model's scores over every row of ``scores`` (NaN where it has none;
                the chosen features and the observed tasks must be scored).
            features: fixed feature tasks (the tasks a user ran), instead of the choice
                made on ``train``.
        """
        fitted = self.fit(train, features)
        feats = x[self._rows(fitted.features)]
        prediction, lev = fitted.predict(feats), fitted.leverage(feats)
        rows = self._rows(self.observed)
        train_obs = self.scores[rows][:, train]
        means = self.scores[self._rows(self.target)][:, train].mean(axis=0)
        seen = x[rows]
        outside = (seen > train_obs.max(axis=1)) | (seen < train_obs.min(axis=1))
        flags = Beyond(
            n_tasks=int(outside.sum()),
            n_observed=len(rows),
            leverage_beyond=bool(fitted.fit is not None and lev > np.max(fitted.fit.loo_leverage)),
            prediction_beyond=bool(prediction > means.max() or prediction < means.min()),
        )
        return prediction, lev, flags, fitted

    def _held_out(self, pairs: list[tuple[np.ndarray, int]]) -> HeldOut:
        target_rows = self._rows(self.target)
        models, errors, leverage, flagged = [], [], [], []
        for train, m in pairs:
            prediction, lev, flags, _ = self.predict(train, self.scores[:, m])
            models.append(m)
            errors.append(prediction - float(self.scores[target_rows, m].mean()))
            leverage.append(lev)
            flagged.append(flags.flagged)
        return HeldOut(
            models=np.asarray(models, dtype=int),
            errors=np.asarray(errors, dtype=float),
            leverage=np.asarray(leverage, dtype=float),
            flagged=np.asarray(flagged, dtype=bool),
        )

    def nested(self) -> HeldOut:
        """Leave one model out: every model predicted by the procedure rerun without it."""
        n = self.scores.shape[1]
        every = np.arange(n)
        return self._held_out([(every[every != m], m) for m in range(n)])

    def forward(
        self, dates: np.ndarray, *, min_train: int, lags: Sequence[float] = (0.0,)
    ) -> HeldOut:
        """Forward chaining: each dated model predicted from the models released before it.

        With several ``lags``, each model is predicted once per lag from the models released
        at least ``lag`` days before it; ``gaps`` holds each prediction's distance in time.

        Args:
            dates: release date of each reference model as a number (days), NaN when
                unknown (such models are neither trained on nor predicted here).
            min_train: fewest earlier models a prediction is made from.
            lags: horizons in days (0: every earlier model).
        """
        dated = np.flatnonzero(~np.isnan(dates))
        pairs, gaps, horizons = [], [], []
        for lag in lags:
            for m in dated[np.argsort(dates[dated], kind="stable")]:
                train = dated[dates[dated] < dates[m] - lag]
                if len(train) >= min_train:
                    pairs.append((train, int(m)))
                    gaps.append(float(dates[m] - dates[train].max()))
                    horizons.append(float(lag))
        return replace(
            self._held_out(pairs),
            gaps=np.asarray(gaps, dtype=float),
            lags=np.asarray(horizons, dtype=float),
        )
