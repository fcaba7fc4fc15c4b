"""Nested leave-one-model-out validation of a task selection.

For every reference model m, the selection and the fit of :mod:`._target` are rerun on
the other models, and m's target mean is predicted from the tasks chosen without it at
every step of the path; the leverages let :mod:`._conformal` scale the errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ._target import fit_target

#: ``select(X, y) -> path``: task sets (column indices of X) after each step.
Selector = Callable[[np.ndarray, np.ndarray], list[list[int]]]


def nested_errors(
    scores: np.ndarray,
    tasks: Sequence[str],
    candidates: Sequence[int],
    target: Sequence[str],
    select: Selector,
    n_steps: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Held-out errors and leverages per model and step.

    Args:
        scores: complete tasks x models matrix.
        tasks: row names of ``scores``.
        candidates: rows that may be selected (the columns of ``X`` given to ``select``).
        target: target tasks (their mean is predicted).
        select: the selection procedure (see :data:`Selector`).
        n_steps: length of the path the procedure returns on the full data.

    Returns:
        ``errors`` and ``leverage``, both models x steps (predicted - actual; NaN where
        a held-out run's path was shorter).
    """
    n = scores.shape[1]
    rows = {t: i for i, t in enumerate(tasks)}
    y_all, X_all = scores[[rows[t] for t in target]].mean(axis=0), scores[list(candidates)].T
    errors, leverage = np.full((n, n_steps), np.nan), np.full((n, n_steps), np.nan)
    names = [tasks[i] for i in candidates]
    for m in range(n):
        keep = np.arange(n) != m
        for step, chosen in enumerate(select(X_all[keep], y_all[keep])[:n_steps]):
            feats = [names[c] for c in chosen]
            model = fit_target(scores[:, keep], tasks, feats, target)
            x = scores[[rows[t] for t in feats], m]
            errors[m, step] = model.predict(x) - y_all[m]
            leverage[m, step] = model.leverage(x)
    return errors, leverage
