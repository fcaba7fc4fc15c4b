"""Section 6d of the estimate benchmark (``benchmarks/_estimate_limits.py``).

What the issue's targets ask of any interval: hindsight widths and scaled widths checked
against independent computations, and the frontier signal against boards where the
newer models do and do not jump the frontier in the tasks not observed.
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from scipy import stats

# the ridge's penalty grid and floor (units of n): the definition's constants, not its code
from analysis.stats.estimate._ridge import LAMBDA_FLOOR, LAMBDA_GRID
from tests.conftest import REPO, load_file


@pytest.fixture(scope="module")
def limits() -> ModuleType:
    return load_file(REPO / "benchmarks" / "_estimate_limits.py", "_estimate_limits")


def _frame(seed: int = 0, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = rng.uniform(0, 700, n)
    error = rng.normal(0, 0.01 * (1 + days / 365), n)  # spread grows with the distance
    half = np.full(n, 0.02)
    return pd.DataFrame(
        {
            "cut": rng.choice(["2024-06-01", "2024-07-01", "2024-08-01"], n),
            "error": error,
            "half_width": half,
            "covered": np.abs(error) <= half,
            "days_after_newest": days,
        }
    )


def test_hindsight_width_is_the_conformal_order_statistic_of_each_bin(limits: ModuleType):
    frame = _frame()
    table, median = limits.hindsight_widths(frame)
    col = "hindsight half-width (pts, 95% of the bin)"
    edges = [(-np.inf, 90), (90, 180), (180, 365), (365, np.inf)]
    widths = np.empty(len(frame))
    for (lo, hi), need in zip(edges, table[col], strict=True):
        inside = (frame["days_after_newest"] > lo) & (frame["days_after_newest"] <= hi)
        errors = np.sort(100 * frame.loc[inside, "error"].abs().to_numpy())
        rank = int(np.ceil(0.95 * (len(errors) + 1)))  # split conformal's rank
        assert need == pytest.approx(errors[rank - 1])
        assert np.mean(errors <= need) >= 0.95  # it covers 95% of its bin
        assert np.mean(errors < need) < 0.95 + 1 / len(errors)  # and is no wider
        widths[inside.to_numpy()] = need
    assert median == pytest.approx(np.median(widths))
    assert table["predictions"].sum() == len(frame)
    assert table[col].iloc[0] < table[col].iloc[-1]  # the planted growth with distance


def test_scaled_widths_read_coverage_from_the_same_errors(limits: ModuleType):
    frame = _frame(1)
    table = limits.scaled_widths(frame, factors=(0.5, 1.0, 2.0)).set_index("factor")
    assert table.loc[1.0, "coverage"] == pytest.approx(frame["covered"].mean())
    for factor in (0.5, 2.0):
        covered = frame["error"].abs() <= factor * frame["half_width"]
        assert table.loc[factor, "coverage"] == pytest.approx(covered.mean())
        worst = covered.groupby(frame["cut"]).mean().min()
        assert table.loc[factor, "worst cut"].startswith(f"{worst:.3f}")
        assert table.loc[factor, "median half-width (pts)"] == pytest.approx(100 * factor * 0.02)
    assert table["coverage"].is_monotonic_increasing


def _board(jump: float, seed: int = 3) -> tuple[pd.DataFrame, pd.Series]:
    """60 older models, 30 newer ones that are better; ``jump`` lifts the unseen tasks.

    Tasks 0-3 are the ones a selection may choose from; the newer models' score on the
    other tasks rises by ``jump`` times how far their skill lies
    above the older models' best, as a frontier jump in the tasks not observed would.
    """
    rng = np.random.default_rng(seed)
    n_old, n_new, n_tasks = 60, 30, 10
    skill = np.r_[rng.normal(0.5, 0.05, n_old), rng.normal(0.6, 0.05, n_new)]
    scores = skill + rng.normal(0, 0.01, (n_tasks, n_old + n_new))
    beyond = np.clip(skill - skill[:n_old].max(), 0, None)
    scores[4:, n_old:] += jump * beyond[n_old:]
    models = [f"m{i:02d}" for i in range(n_old + n_new)]
    wide = pd.DataFrame(scores, index=[f"t{i}" for i in range(n_tasks)], columns=models)
    dates = pd.Series(
        pd.to_datetime("2023-01-01") + pd.to_timedelta(np.arange(n_old + n_new) * 7, "D"),
        index=models,
    )
    return wide, dates


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_frontier_signal_sees_a_planted_jump_only_in_the_newer_models(
    limits: ModuleType, seed: int
):
    """The same older models, newer ones with and without a jump on the unseen tasks."""
    rows = {}
    for jump in (0.0, 1.5):
        wide, dates = _board(jump, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows[jump] = limits.frontier_signal(
                wide, dates, dates.iloc[60], 3, candidates=["t0", "t1", "t2", "t3"]
            )
    flat, jumped = rows[0.0], rows[1.5]
    assert flat["newer models"] == 30 and flat["cut"] == str(dates.iloc[60].date())
    for key in ("forward predictions", "forward rho", "forward above frontier"):
        assert flat[key] == jumped[key]  # the older models' history is the same
    assert jumped["newer above frontier"] == flat["newer above frontier"] >= 1
    drop = jumped["newer median error above (pts)"] - flat["newer median error above (pts)"]
    assert drop < -1.0  # under-predicted by the planted jump (1.5 x 0.6 x how far above)
    assert jumped["newer rho"] <= flat["newer rho"] + 1e-12


#: Days in a year: gaps are in years.
YEAR = 365.25


def _ridge(z: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """Intercept and slope of ridge on one feature, the intercept unpenalized."""
    a = np.column_stack([np.ones(len(z)), z])
    return np.linalg.solve(a.T @ a + np.diag([0.0, lam]), a.T @ y)


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, np.ndarray]:
    """Mean, sd, penalty and the inverse penalized Gram matrix of the fit on (x, y).

    The penalty is the grid's by brute-force leave-one-out error (each model refitted
    without it, the z-scores kept), the smallest of ties, raised to the floor.
    """
    n = len(x)
    mu, sd = x.mean(), x.std()
    z = (x - mu) / sd
    best, best_mse = 0.0, np.inf
    for lam in np.asarray(LAMBDA_GRID) * n:
        loo = []
        for i in range(n):
            keep = np.arange(n) != i
            b = _ridge(z[keep], y[keep], lam)
            loo.append(y[i] - b[0] - b[1] * z[i])
        mse = float(np.mean(np.square(loo)))
        if mse < best_mse:
            best, best_mse = lam, mse
    lam = max(best, LAMBDA_FLOOR * n)
    a = np.column_stack([np.ones(n), z])
    return mu, sd, lam, np.linalg.inv(a.T @ a + np.diag([0.0, lam]))


def _predict(wide: pd.DataFrame, task: str, train: list[str], model: str) -> tuple[float, float]:
    """Error (predicted - actual target mean) and leverage of ``model`` from ``train``.

    The target is every task; ``task`` is known, the rest's mean is predicted by ridge
    on ``task``'s z-score: ``mean = x/T + (T - 1)/T * ridge(x)``.
    """
    n_tasks = len(wide.index)
    rest = [t for t in wide.index if t != task]
    x, y = wide.loc[task, train].to_numpy(), wide.loc[rest, train].mean().to_numpy()
    mu, sd, lam, g_inv = _fit(x, y)
    z = (x - mu) / sd
    beta = _ridge(z, y, lam)
    point = np.array([1.0, (wide.loc[task, model] - mu) / sd])
    predicted = wide.loc[task, model] / n_tasks + (n_tasks - 1) / n_tasks * (point @ beta)
    return float(predicted - wide[model].mean()), float(point @ g_inv @ point)


def _variance_slope(errors: np.ndarray, x: np.ndarray) -> float:
    """``gamma`` of ``e**2 = s**2 (1 + gamma x)`` from scipy's Theil-Sen line, 0 if not positive."""
    slope, intercept, *_ = stats.theilslopes(np.square(errors), x)
    return slope / intercept if slope > 0 and intercept > 0 else 0.0


def _order_statistic(values: np.ndarray, level: float) -> float:
    """The ``ceil(level (n + 1))``-th smallest value (split conformal's quantile)."""
    rank = int(np.ceil(level * (len(values) + 1) - 1e-9))
    return float(np.sort(values)[rank - 1]) if rank <= len(values) else np.inf


def _independent_parts(
    wide: pd.DataFrame, dates: pd.Series, cut: pd.Timestamp, task: str, level: float = 0.95
) -> dict[str, float]:
    """The interval's two parts for every model released on or after ``cut``, from their
    definitions (docs/statistics.md, "A model newer than the leaderboard"), one observed
    task, numpy and scipy only:

    * exchangeable: each older model predicted from the others (leave one out, the
      penalty chosen again), ``gamma`` from the Theil-Sen line of the squared errors on
      the leverages, the conformal quantile of ``|e| / sqrt(1 + gamma lev)``, times
      ``sqrt(1 + gamma lev)`` at the newer model's leverage;
    * forward in time: each older model predicted from the models released at least 0,
      90 and 180 days before it (a third of them at least, 10 or more), the drift (the
      Theil-Sen slope of the errors on the gap in years, never above 0) taken out, the
      growth of the spread with the gap as ``gamma`` is, the conformal quantile of the
      scaled residuals, times ``sqrt(1 + growth gap)`` at the newer model's gap.
    """
    older = list(dates.index[dates < cut])
    days = (dates - pd.Timestamp("1970-01-01")).dt.days.astype(float)
    nested = [_predict(wide, task, [m for m in older if m != held], held) for held in older]
    err, lev = np.array(nested).T
    gamma = _variance_slope(err, lev)
    q_exch = _order_statistic(np.abs(err) / np.sqrt(1 + gamma * lev), level)
    min_train = max(10, len(older) // 3)
    forward, gaps = [], []
    for lag in (0.0, 90.0, 180.0):
        for model in sorted(older, key=lambda m: days[m]):
            train = [m for m in older if days[m] < days[model] - lag]
            if len(train) >= min_train:
                forward.append(_predict(wide, task, train, model)[0])
                gaps.append((days[model] - days[train].max()) / YEAR)
    e, g = np.array(forward), np.array(gaps)
    drift = min(stats.theilslopes(e, g).slope, 0.0)
    resid = e - drift * g
    growth = _variance_slope(resid, g)
    q_fwd = _order_statistic(np.abs(resid) / np.sqrt(1 + growth * g), level)
    newest = days[older].max()
    exch, fwd = [], []
    for model in dates.index[dates >= cut]:
        exch.append(100 * q_exch * np.sqrt(1 + gamma * _predict(wide, task, older, model)[1]))
        fwd.append(100 * q_fwd * np.sqrt(1 + growth * max(days[model] - newest, 0) / YEAR))
    exch_a, fwd_a = np.array(exch), np.array(fwd)
    return {
        "exchangeable half-width (pts)": float(np.median(exch_a)),
        "forward half-width (pts)": float(np.median(fwd_a)),
        "forward sets it": float(np.mean(fwd_a >= exch_a)),
        "half-width (pts)": float(np.median(np.fmax(fwd_a, exch_a))),
        "gamma": gamma,
        "growth (per year)": growth,
    }


def test_width_parts_equal_the_interval_computed_from_its_definition(limits: ModuleType):
    """Both parts, which one sets the width, and the width, against numpy and scipy.

    30 older models and the next 10 (drawn like them), one observed task: the forward part
    sets 9 of the 10 widths and the exchangeable part one, so a swap of the parts, a wrong
    maximum or a part computed on other errors all fail here.
    """
    wide, dates = _board(0.0)
    wide, dates = wide.iloc[:, :40], dates.iloc[:40]
    cut = dates.iloc[30]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = limits.width_parts(wide, dates, cut, None, candidates=["t0"])
    want = _independent_parts(wide, dates, cut, "t0")
    assert parts["tasks used"] == 1
    for key, value in want.items():
        assert parts[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    assert 0 < want["forward sets it"] < 1  # each part sets some model's width


def test_the_verdict_follows_the_figures(limits: ModuleType):
    quiet = pd.DataFrame({"forward rho": [-0.1, 0.05]})
    loud = pd.DataFrame({"forward rho": [-0.1, -0.5]})
    assert "not in the data" in limits._verdict(quiet)
    assert "do show part of it" in limits._verdict(loud)
    assert limits._verdict(quiet.iloc[:0]) == "."
