"""Ridge regression on standardized task scores, with exact leave-one-out quantities.

Features are z-scores of each task among the reference models; the intercept is not
penalized. The penalty is chosen by exact leave-one-out error over a grid that includes
0 (least squares), then raised to :data:`LAMBDA_FLOOR`. Leave-one-out quantities are
closed form: residuals ``e_i / (1 - h_i)``, leverage against the others ``h_i / (1 - h_i)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Penalties tried, in units of the number of models (features are z-scores, so the
#: unpenalized Gram matrix has n on its diagonal). 0 is ordinary least squares.
LAMBDA_GRID: tuple[float, ...] = (0.0, *np.logspace(-4, 1, 16).tolist())

#: Least penalty of a fit whose penalty is chosen (in units of n): leave-one-out error
#: often prefers least squares among models like the references, but a new model lies
#: beyond them, where unshrunk coefficients of correlated tasks extrapolate worst.
#: Measured against least squares, no floor and a floor of n (which widens the intervals
#: of models like the references) in ``benchmarks/results/estimate.md``, sections 2, 5, 6.
LAMBDA_FLOOR = 0.1


@dataclass(frozen=True)
class RidgeFit:
    """A ridge fit with its leave-one-out residuals and leverages.

    Attributes:
        mu, sd: feature means and standard deviations (sd 1 for a constant feature).
        lam: the chosen penalty (absolute, not per model).
        beta: intercept first, then one coefficient per standardized feature.
        gram_inv: inverse of the penalized Gram matrix of the design ``[1, Z]``.
        design: the design matrix ``[1, Z]`` of the reference models.
        loo_residuals: ``y_i`` minus the prediction of the fit without model i.
        loo_leverage: model i's leverage against the other models, ``h_i / (1 - h_i)``
            (the leverage a new point at ``x_i`` would have in the fit without i).
    """

    mu: np.ndarray
    sd: np.ndarray
    lam: float
    beta: np.ndarray
    gram_inv: np.ndarray
    design: np.ndarray
    loo_residuals: np.ndarray

    @property
    def n(self) -> int:
        """Number of reference models."""
        return int(self.design.shape[0])

    @property
    def hat(self) -> np.ndarray:
        """Diagonal of the hat matrix (in-sample leverages)."""
        return np.einsum("np,pq,nq->n", self.design, self.gram_inv, self.design)

    @property
    def loo_leverage(self) -> np.ndarray:
        """Leverage of each reference model against the others: ``h / (1 - h)``."""
        h = self.hat
        return h / (1.0 - h)

    def point(self, x: np.ndarray) -> np.ndarray:
        """Design row(s) ``[1, z]`` of feature vector(s) ``x``."""
        z = (np.atleast_2d(x) - self.mu) / self.sd
        return np.column_stack([np.ones(len(z)), z])

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predictions at the rows of ``x``."""
        return self.point(x) @ self.beta

    def leverage(self, x: np.ndarray) -> np.ndarray:
        """Leverage of new point(s) ``x``: ``a' (A'A + P)^-1 a``."""
        a = self.point(x)
        return np.einsum("np,pq,nq->n", a, self.gram_inv, a)


def _standardize(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    return (X - mu) / sd, mu, sd


def _loo_mse_grid(Z: np.ndarray, y: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """Leave-one-out mean squared error of ridge (unpenalized intercept) per penalty."""
    n = len(y)
    Zc, yc = Z - Z.mean(axis=0), y - y.mean()
    U, s, _ = np.linalg.svd(Zc, full_matrices=False)
    s2 = s**2
    keep = s2 > 1e-10 * max(float(s2.max(initial=0.0)), 1.0)
    U, s2 = U[:, keep], s2[keep]
    lam = np.asarray(lams, dtype=float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = np.where(lam > 0, s2 / (s2 + lam), 1.0)  # penalties x components
    fitted = (U * (U.T @ yc)) @ shrink.T  # n x penalties
    h = 1.0 / n + (U**2) @ shrink.T
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (yc[:, None] - fitted) / (1.0 - h)
    return np.where(np.all(h < 1 - 1e-9, axis=0), np.mean(r**2, axis=0), np.inf)


def fit_ridge(
    X: np.ndarray, y: np.ndarray, *, lam: float | None = None, floor: float = LAMBDA_FLOOR
) -> RidgeFit:
    """Ridge of ``y`` on the z-scored columns of ``X`` (models x features).

    Args:
        X: features, one row per reference model.
        y: response per reference model.
        lam: the penalty; None chooses it from :data:`LAMBDA_GRID` (times n) by exact leave-one-out
            mean squared error (ties: the smallest penalty), then raises it to ``floor`` times n.
        floor: least chosen penalty in units of n (:data:`LAMBDA_FLOOR`; 0 for none).
            Ignored when ``lam`` is given.

    Returns:
        The fit, with leave-one-out residuals.
    """
    n, p = X.shape
    Z, mu, sd = _standardize(X)
    if lam is None:
        grid = np.asarray(LAMBDA_GRID) * n
        if p >= n - 1:  # least squares would interpolate
            grid = grid[grid > 0]
        lam = max(float(grid[int(np.argmin(_loo_mse_grid(Z, y, grid)))]), floor * n)
    A, P = np.column_stack([np.ones(n), Z]), np.eye(p + 1) * lam
    P[0, 0] = 0.0
    G = A.T @ A + P
    try:
        G_inv = np.linalg.inv(G)
    except np.linalg.LinAlgError:  # collinear features and no penalty
        G_inv = np.linalg.pinv(G, hermitian=True)
    beta, h = G_inv @ (A.T @ y), np.einsum("np,pq,nq->n", A, G_inv, A)
    loo = (y - A @ beta) / np.maximum(1.0 - h, 1e-12)
    return RidgeFit(mu=mu, sd=sd, lam=lam, beta=beta, gram_inv=G_inv, design=A, loo_residuals=loo)
