"""Friedman's test and Nemenyi's post-hoc test: the usual CD-diagram statistics, as a reference.

Nemenyi's test compares two models through their *mean ranks*, and a model's rank on a
task depends on every other model in the pool: whether A and B "differ" can change when
an unrelated model is added (Benavoli, Corani and Mangili 2016, JMLR 17(5)). This
package's decisions (:func:`pairwise_significance`, :func:`rank_intervals`,
:func:`compare`) judge each pair on its own task-wise differences; this module is kept
so results can be compared with the literature (Demšar 2006; scikit-posthocs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import f, friedmanchisquare, rankdata, studentized_range

from ._checks import _check_open_unit, complete_score_matrix
from ._results import StatsResult

CAVEAT = (
    "Nemenyi's test compares mean ranks, which depend on the other models in the pool "
    "(Benavoli, Corani & Mangili, JMLR 2016): a reference only; this package's decisions "
    "use each pair's own task-wise differences (max-T)."
)


@dataclass(frozen=True, repr=False)
class FriedmanNemenyiResult(StatsResult):
    """Result of :func:`friedman_nemenyi` (a labelled reference; see the module notes).

    Attributes:
        statistic: Friedman's chi-square (tie-corrected, as scipy).
        pvalue: its p-value (chi-square with K - 1 degrees of freedom).
        df: K - 1.
        iman_davenport: Iman-Davenport's F, ``(N - 1) chi2 / (N (K - 1) - chi2)``.
        iman_davenport_pvalue: its p-value (F with K - 1 and (K - 1)(N - 1) df).
        mean_ranks: each model's mean rank over the tasks (1 = best; ties averaged).
        pvalues: Nemenyi's K x K p-values.
        critical_difference: the mean-rank difference Nemenyi's test needs at ``alpha``.
        alpha: level of ``critical_difference``.
        n_tasks: tasks (blocks).
        n_models: models.
        caveat: the Benavoli-Corani-Mangili caveat.
        dropped: models left out for missing scores -> their missing tasks.
    """

    statistic: float
    pvalue: float
    df: int
    iman_davenport: float
    iman_davenport_pvalue: float
    mean_ranks: pd.Series
    pvalues: pd.DataFrame
    critical_difference: float
    alpha: float
    n_tasks: int
    n_models: int
    caveat: str = CAVEAT
    dropped: dict[Any, list[Any]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per model: its mean rank (best first)."""
        return self.mean_ranks.sort_values().rename("mean_rank").to_frame()

    def _summary_lines(self) -> list[str]:
        return [
            f"REFERENCE ONLY (mean-rank test): Friedman chi2={self.statistic:.4g} "
            f"(df={self.df}), p={self.pvalue:.3g}; Iman-Davenport F={self.iman_davenport:.4g}, "
            f"p={self.iman_davenport_pvalue:.3g}",
            f"{self.n_models} models over {self.n_tasks} tasks; Nemenyi critical difference "
            f"{self.critical_difference:.3g} mean ranks at alpha={self.alpha:g}",
            f"caveat: {self.caveat[:90]}",
        ]


def friedman_nemenyi(scores: pd.DataFrame, *, alpha: float = 0.05) -> FriedmanNemenyiResult:
    """Friedman's test and Nemenyi's post-hoc p-values over tasks: a labelled *reference*.

    Per task the models are ranked (1 = best, ties averaged); Friedman's chi-square
    (``scipy.stats.friedmanchisquare``) tests equal expected ranks, Nemenyi's p-values are
    ``scikit_posthocs.posthoc_nemenyi_friedman``'s; this adds the mean ranks,
    Iman-Davenport's F and the critical difference. Tasks are independent blocks. **Caveat
    (Benavoli, Corani & Mangili 2016):** mean ranks depend on the pool (module notes); use
    :func:`pairwise_significance` or :func:`compare` for decisions.

    Args:
        scores: tasks x models (``Leaderboard.wide()``), higher is better. Models with a
            missing task are dropped with a warning.
        alpha: level of ``critical_difference``.

    Raises:
        ValueError: fewer than 2 tasks or 3 complete models, or a bad option.

    Examples:
        Four models on 8 tasks (synthetic; A best, then B, C, D):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> mean = rng.normal(0.5, 0.05, (8, 1)) + [0.1, 0.05, 0.0, -0.05]  # task + model
        >>> scores = pd.DataFrame(mean + rng.normal(0, 0.01, (8, 4)),
        ...     index=[f"task{i}" for i in range(8)], columns=["A", "B", "C", "D"])
        >>> from analysis.stats import friedman_nemenyi
        >>> res = friedman_nemenyi(scores)
        >>> res.mean_ranks.tolist(), round(res.critical_difference, 2), bool(res.pvalue < 0.001)
        ([1.0, 2.0, 3.0, 4.0], 1.66, True)
    """
    alpha = _check_open_unit(alpha, "alpha")
    X, names, dropped, _ = complete_score_matrix(scores, caller="friedman_nemenyi")
    n, k = X.shape
    if k < 3:
        raise ValueError(f"`scores` needs at least 3 models with every task, got {k}")
    import scikit_posthocs

    chi, pvalue = friedmanchisquare(*X.T)  # tie-corrected
    mean_ranks = rankdata(-X, method="average", axis=1).mean(axis=0)
    df = k - 1
    iman = (n - 1) * chi / (n * df - chi) if n * df > chi else math.inf
    p = scikit_posthocs.posthoc_nemenyi_friedman(X).to_numpy()
    q = float(studentized_range.ppf(1.0 - alpha, k, np.inf))
    return FriedmanNemenyiResult(
        statistic=float(chi),
        pvalue=float(pvalue),
        df=df,
        iman_davenport=float(iman),
        iman_davenport_pvalue=float(f.sf(iman, df, df * (n - 1))),
        mean_ranks=pd.Series(mean_ranks, index=names, name="mean_rank"),
        pvalues=pd.DataFrame(p, index=names, columns=names),
        critical_difference=q / math.sqrt(2.0) * math.sqrt(k * (k + 1) / (6.0 * n)),
        alpha=alpha,
        n_tasks=n,
        n_models=k,
        dropped=dropped,
    )
