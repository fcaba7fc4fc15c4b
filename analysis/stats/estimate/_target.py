"""The predictor of :mod:`analysis.stats.estimate`: a benchmark mean from some of its tasks.

The target is the mean over the target tasks ``T``. The observed tasks ``S`` may overlap
``T`` (``K = S & T``, known exactly) or not (RTEB's public tasks predicting its private
mean). Only the rest, ``U = T - S``, is predicted::

    mean_T = |K|/|T| mean_K(x) + |U|/|T| mean_U,   mean_U ~ ridge(scores on S)

so shrinkage never touches what was measured. Errors of the target are ``|U|/|T|`` times
the errors of ``mean_U``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._ridge import RidgeFit, fit_ridge


@dataclass(frozen=True)
class TargetModel:
    """Prediction of the target mean from the observed tasks (see the module docstring).

    Attributes:
        features: the observed tasks (order of the feature vector).
        known: positions in ``features`` of observed tasks that are target tasks.
        w_known, w_unknown: ``|K|/|T|`` and ``|U|/|T|``.
        fit: ridge of ``mean_U`` on the features (None when ``U`` is empty).
    """

    features: tuple[str, ...]
    known: np.ndarray
    w_known: float
    w_unknown: float
    fit: RidgeFit | None

    def predict(self, x: np.ndarray) -> float:
        """Predicted target mean of a model with feature vector ``x``."""
        base = self.w_known * float(np.mean(x[self.known])) if len(self.known) else 0.0
        return base if self.fit is None else base + self.w_unknown * float(self.fit.predict(x)[0])

    def loo_errors(self) -> np.ndarray:
        """Leave-one-out errors (predicted - actual) of the reference models' target means."""
        assert self.fit is not None
        return -self.w_unknown * self.fit.loo_residuals

    def leverage(self, x: np.ndarray) -> float:
        """Leverage of a new model with feature vector ``x``."""
        return 0.0 if self.fit is None else float(self.fit.leverage(x)[0])


def fit_target(
    scores: np.ndarray, tasks: Sequence[str], features: Sequence[str], target: Sequence[str]
) -> TargetModel:
    """Fit the predictor on a complete tasks x models matrix of the reference models.

    Args:
        scores: tasks x models, rows in the order of ``tasks``.
        tasks: the row names.
        features: observed tasks (rows used as features).
        target: target tasks.
    """
    row = {t: i for i, t in enumerate(tasks)}
    feats = list(features)
    target_set = set(target)
    known = np.array([j for j, t in enumerate(feats) if t in target_set], dtype=int)
    unknown = [t for t in target if t not in set(feats)]
    n_target = len(list(target))
    fit = None
    if unknown:
        X = scores[[row[t] for t in feats]].T
        fit = fit_ridge(X, scores[[row[t] for t in unknown]].mean(axis=0))
    return TargetModel(
        features=tuple(feats),
        known=known,
        w_known=len(known) / n_target,
        w_unknown=len(unknown) / n_target,
        fit=fit,
    )
