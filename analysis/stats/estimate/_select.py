"""Task-selection kernels: greedy forward selection and MMTEB's backward elimination.

Both take a models x candidate-tasks matrix ``X`` and return a *path*: the task sets
after each step (column indices into ``X``).

* :func:`forward_path`: add, at each step, the task giving the smallest
  leave-one-model-out criterion (``"width"``, the split-conformal half-width at
  ``level``, or ``"mse"``) for least squares of the target mean ``y``. Every candidate
  is scored at once: adding column ``x`` to an orthonormal basis ``Q`` of ``[1, X_S]``
  adds ``q = (x - QQ'x) / |x - QQ'x|``, so residuals become ``e - q (q'y)``, leverages
  ``h + q**2``, leave-one-out residuals ``(e - q q'y) / (1 - h - q**2)``.
* :func:`mmteb_path`: MMTEB's method (mteb PR #1100): drop, at each step, the task best
  predicted from the others (leave-one-model-out least squares, Spearman), never the
  last of its type; all tasks' leave-one-out residuals from one inverse ``G^-1`` of the
  Gram matrix: ``(A G^-1)[:, t] / G^-1[t, t]``.

Type coverage (``types``, an integer code per candidate): with at least as many steps
as types every type keeps a task (forward: the last steps are restricted to uncovered
types when just enough remain); with fewer, forward selection takes distinct types.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.stats import rankdata

CRITERIA = ("width", "mse")


def conformal_rank(n: int, level: float) -> int:
    """1-based rank of the split-conformal quantile of n scores: ``ceil(level (n + 1))``."""
    return int(np.ceil(level * (n + 1) - 1e-9))


def _criterion(loo: np.ndarray, criterion: str, level: float) -> np.ndarray:
    """Criterion per column of leave-one-out residuals (n x C): smaller is better."""
    if criterion == "mse":
        return np.mean(loo**2, axis=0)
    n = loo.shape[0]
    rank = min(conformal_rank(n, level), n) - 1
    return np.partition(np.abs(loo), rank, axis=0)[rank]


def _allowed(
    chosen: list[int], n_candidates: int, k: int, step: int, types: np.ndarray | None
) -> np.ndarray:
    """Candidate columns allowed at ``step`` (0-based) of a k-step forward selection."""
    free = np.ones(n_candidates, dtype=bool)
    free[chosen] = False
    if types is None:
        return np.flatnonzero(free)
    n_types = int(types.max()) + 1
    covered = np.zeros(n_types, dtype=bool)
    covered[types[chosen]] = True
    if k < n_types or k - step <= n_types - int(covered.sum()):
        return np.flatnonzero(free & ~covered[types])
    return np.flatnonzero(free)


def forward_path(
    X: np.ndarray,
    y: np.ndarray,
    k: int,
    *,
    criterion: str = "width",
    level: float = 0.95,
    types: np.ndarray | None = None,
) -> tuple[list[list[int]], list[float]]:
    """Greedy forward selection of k columns of ``X`` to predict ``y``.

    Returns:
        The path (the chosen columns after each step, in order of choice) and the
        criterion value after each step.
    """
    n = len(y)
    if types is not None:
        types = np.unique(types, return_inverse=True)[1]
    Q = np.full((n, 1), 1.0 / np.sqrt(n))
    e, h = y - y.mean(), np.full(n, 1.0 / n)
    Xc = X - X.mean(axis=0)
    chosen: list[int] = []
    path, values = [], []
    for step in range(k):
        cand = _allowed(chosen, X.shape[1], k, step, types)
        U = Xc[:, cand] - Q @ (Q.T @ Xc[:, cand])
        U -= Q @ (Q.T @ U)  # second pass: Gram-Schmidt is then stable
        norms = np.linalg.norm(U, axis=0)
        ok = norms > 1e-9 * np.maximum(np.linalg.norm(Xc[:, cand], axis=0), 1e-300)
        q = U / np.where(ok, norms, 1.0)
        e_new, h_new = e[:, None] - q * (q.T @ y)[None, :], h[:, None] + q**2
        with np.errstate(divide="ignore", invalid="ignore"):
            loo = e_new / (1.0 - h_new)
        score = _criterion(loo, criterion, level)
        score = np.where(ok & np.all(h_new < 1 - 1e-9, axis=0), score, np.inf)
        if not np.isfinite(score).any():
            break
        best = int(np.argmin(score))
        chosen.append(int(cand[best]))
        Q = np.column_stack([Q, q[:, best]])
        e, h = e_new[:, best], h_new[:, best]
        path.append(list(chosen))
        values.append(float(score[best]))
    return path, values


def _spearman_columns(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ra, rb = rankdata(a, axis=0), rankdata(b, axis=0)
    ra -= ra.mean(axis=0)
    rb -= rb.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ra * rb).sum(axis=0) / np.sqrt((ra**2).sum(axis=0) * (rb**2).sum(axis=0))


def task_predictability(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column predicted from the others by leave-one-model-out least squares.

    Returns:
        The leave-one-out predictions (n x C) and their Spearman correlation with the
        column (MMTEB's predictability, higher = more predictable).
    """
    A = np.column_stack([np.ones(X.shape[0]), X - X.mean(axis=0)])
    G_inv = np.linalg.pinv(A.T @ A, hermitian=True)
    AG = A @ G_inv
    h = np.einsum("np,np->n", AG, A)
    diag = np.diag(G_inv)[1:]
    resid, h_minus = AG[:, 1:] / diag, h[:, None] - AG[:, 1:] ** 2 / diag
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = resid / (1.0 - h_minus)
    pred = X - loo
    return pred, _spearman_columns(X, pred)


def mmteb_path(
    X: np.ndarray, k: int, *, types: np.ndarray | None = None
) -> tuple[list[list[int]], list[float]]:
    """MMTEB's backward elimination of the most predictable task, down to k columns.

    Returns:
        The path (the remaining columns after each elimination, in column order) and
        the Spearman predictability of each dropped task.
    """
    current = list(range(X.shape[1]))
    path, values = [], []
    while len(current) > k:
        _, rho = task_predictability(X[:, current])
        rho = np.nan_to_num(rho, nan=-np.inf)
        counts = Counter(types[current].tolist() if types is not None else [])
        order = np.argsort(-rho, kind="stable")
        removable = [
            int(i) for i in order if types is None or counts[int(types[current[int(i)]])] > 1
        ]
        if not removable:
            break
        drop = removable[0]
        values.append(float(rho[drop]))
        del current[drop]
        path.append(list(current))
    return path, values
