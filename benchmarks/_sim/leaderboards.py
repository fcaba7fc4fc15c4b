"""Leaderboards drawn from a factor model with realistic departures.

For validating :func:`analysis.stats.predict_benchmark` and
:func:`analysis.stats.select_tasks`.

``score[t, m] = mu_t + sum_r L[t, r] f[m, r] + s_m e[t, m]``, clipped to 0-1:

* correlated tasks: a general-ability factor loading positively on every task, with
  unequal loadings (unequal spreads of the tasks), plus ``n_factors - 1`` signed factors;
* skew: the general ability is left-skewed (a long tail of weak models, like static
  models at the bottom of MTEB), ``-(Gamma(2) - 2) / sqrt(2)``;
* heavy tails: the idiosyncratic errors are Student t with 3 degrees of freedom,
  task-specific scale;
* unusual models: a share of models has ``unusual_scale`` times the idiosyncratic noise
  (the models no few tasks can place well).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def simulate_scores(
    rng: np.random.Generator,
    n_models: int,
    n_tasks: int,
    *,
    n_factors: int = 3,
    unusual_share: float = 0.1,
    unusual_scale: float = 3.0,
) -> pd.DataFrame:
    """A tasks x models table of scores (0-1) from the model in the module docstring."""
    mu = rng.uniform(0.35, 0.75, n_tasks)
    loadings = np.column_stack(
        [rng.uniform(0.03, 0.12, n_tasks), rng.normal(0.0, 0.025, (n_tasks, n_factors - 1))]
    )
    general = -(rng.gamma(2.0, 1.0, n_models) - 2.0) / np.sqrt(2.0)
    factors = np.column_stack([general, rng.standard_normal((n_models, n_factors - 1))])
    task_noise = rng.uniform(0.004, 0.015, n_tasks)
    model_noise = np.where(rng.random(n_models) < unusual_share, unusual_scale, 1.0)
    noise = rng.standard_t(3, (n_tasks, n_models)) / np.sqrt(3.0)
    scores = mu[:, None] + loadings @ factors.T + task_noise[:, None] * model_noise * noise
    return pd.DataFrame(
        np.clip(scores, 0.0, 1.0),
        index=[f"task{t:02d}" for t in range(n_tasks)],
        columns=[f"org/model-{m:03d}" for m in range(n_models)],
    )


def simulate_scores_over_time(
    rng: np.random.Generator,
    n_models: int,
    n_tasks: int,
    *,
    n_static: int = 4,
    trend: float = 0.04,
    drift: float = 0.6,
) -> tuple[pd.DataFrame, pd.Series]:
    """A leaderboard whose frontier moves: scores and release dates.

    :func:`simulate_scores`, with each model released at a uniform time ``u`` in 0-1
    (dates 2020-01-01 plus ``6 u`` years) and two kinds of progress:

    * the general ability rises with ``u`` (``drift`` standard deviations over the whole
      period), so newer models lie beyond the older ones;
    * the tasks after the first ``n_static`` gain ``trend * u`` on top (newer training
      data helps some task types more), so the relation between the first tasks and the
      rest shifts with time: a model newer than the reference is under-predicted from
      its scores on the first tasks, as the newest MTEB models are.

    Returns:
        The tasks x models scores (0-1) and each model's release date.
    """
    scores = simulate_scores(rng, n_models, n_tasks)
    u = rng.random(n_models)
    gain = np.where(np.arange(n_tasks) < n_static, 0.0, trend)
    lift = 0.08 * drift * u  # about drift sd of the general factor (loadings ~0.08)
    shifted = scores.to_numpy() + lift[None, :] + gain[:, None] * u[None, :]
    dates = pd.Series(
        pd.Timestamp("2020-01-01") + pd.to_timedelta(u * 6 * 365.25, unit="D"),
        index=scores.columns,
    )
    return pd.DataFrame(
        np.clip(shifted, 0.0, 1.0), index=scores.index, columns=scores.columns
    ), dates
