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
