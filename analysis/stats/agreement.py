"""Benchmark agreement where it matters: among the top models and over model subsets.

:func:`benchmark_agreement` (Benchmark Agreement Testing, Perlitz et al. 2024,
arXiv:2407.13696) reports the rank correlation among the k best models by the reference benchmark
``x`` (with :func:`analysis.stats.rank_correlation`'s p-value and interval) and its descriptive
distribution over random subsets of k models (not a confidence interval). Unit = model, taken as
given. Why and how to read it: ``docs/statistics.md``, "Do two benchmarks rank models alike?".
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ._checks import (
    RngLike,
    _check_choice,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    align_vectors,
)
from ._ranks import _rank_statistic
from ._results import StatsResult
from .correlation import RankCorrelationResult, rank_correlation

_METHODS = ("spearman", "kendall")
_SUBSET_QUANTILES = (0.025, 0.5, 0.975)


@dataclass(frozen=True, repr=False)
class BenchmarkAgreementResult(StatsResult):
    """Result of :func:`benchmark_agreement`.

    Attributes:
        overall: the rank correlation over all models (:class:`RankCorrelationResult`).
        top: one row per k in ``top_k``: ``k``, ``statistic``, ``ci_low``, ``ci_high``, ``pvalue``,
            ``min_pvalue``, ``subset_percentile`` (share of random subsets of the same size whose
            correlation is at most the top k's; NaN when that size is not in ``subset_sizes``) and
            ``models`` (the k best by ``x``, best first).
        subsets: one row per subset size: ``k`` (``n`` for "all"), ``n_subsets``, ``n_undefined``
            (subsets where x or y was constant: no correlation), ``mean``, ``sd``, ``q025``,
            ``median``, ``q975`` of the correlation over random subsets, and ``share_below_overall``
            (share of subsets whose correlation is below the overall one).
        distributions: subset size -> the correlations over the random subsets (NaN
            dropped), for plots.
        method: ``"spearman"`` or ``"kendall"``.
        n: models used (pairs without NaN).
    """

    overall: RankCorrelationResult
    top: pd.DataFrame
    subsets: pd.DataFrame
    distributions: dict[int, np.ndarray]
    method: str
    n: int

    @property
    def confidence_level(self) -> float:
        """Level of every interval here (the overall correlation's and the top-k ones)."""
        return self.overall.confidence_level

    def to_frame(self) -> pd.DataFrame:
        """One row per size k: the top-k correlation beside the random-subset summary."""
        top = self.top.drop(columns=["models"]).add_prefix("top_").rename(columns={"top_k": "k"})
        return (
            self.subsets.add_prefix("subset_")
            .rename(columns={"subset_k": "k"})
            .merge(top, on="k", how="outer")
        )

    def _summary_lines(self) -> list[str]:
        o = self.overall
        lines = [
            f"{self.method} over all {self.n} models: {o.statistic:.3f} "
            f"[{o.confidence_interval.low:.3f}, {o.confidence_interval.high:.3f}], "
            f"p={o.pvalue:.3g}"
        ]
        for row in self.top.itertuples():
            lines.append(
                f"top {row.k}: {row.statistic:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}], "
                f"subset percentile {row.subset_percentile:.2f}"
            )
        return lines[:6]


def _check_sizes(values: Any, name: str, n: int, allow_all: bool) -> list[int | None]:
    if isinstance(values, numbers.Integral) or values is None:
        values = [values]
    out: list[int | None] = []
    for v in values:
        if v is None and allow_all:
            out.append(None)
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 3 <= int(v) <= n:
            allowed = "an integer from 3 to the number of models" + (
                " or None" if allow_all else ""
            )
            raise ValueError(f"`{name}` entries must be {allowed} ({n}), got {v!r}")
        out.append(int(v))
    return out


def _aligned(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """X and y as float vectors over the same models; pairs with a NaN dropped."""
    xv, yv, labels = align_vectors(x, y, ("x", "y"))
    names = labels if labels is not None else list(range(len(xv)))
    keep = ~(np.isnan(xv) | np.isnan(yv))
    return xv[keep], yv[keep], [m for m, k in zip(names, keep, strict=True) if k]


def benchmark_agreement(
    x: Any,
    y: Any,
    *,
    top_k: Sequence[int] | int = (10, 20),
    subset_sizes: Sequence[int | None] | int | None = (10, 20, None),
    n_subsets: int = 2000,
    method: Literal["spearman", "kendall"] = "kendall",
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> BenchmarkAgreementResult:
    """Agreement of two benchmarks among the top models and over random model subsets.

    Args:
        x: scores of the models on the reference benchmark (the "top" is taken on x).
            Two Series are paired by label (model names; different labels raise
            :class:`~analysis.core.errors.LabelMismatchError`); pairs with a NaN are dropped.
        y: scores of the same models on the other benchmark.
        top_k: sizes of the top groups (each from 3 to the number of models).
        subset_sizes: sizes of the random subsets; ``None`` means all models.
        n_subsets: random subsets drawn per size.
        method: ``"kendall"`` (tau-b, default, as in BAT) or ``"spearman"``.
        n_resamples: permutation orderings and bootstrap resamples of
            :func:`rank_correlation` (overall and top k).
        confidence_level: confidence level of the intervals, in (0, 1).
        rng: seed or Generator. Draws: the overall correlation, each top k (in
            order), then per subset size ``rng.permuted`` orderings of the models.

    Raises:
        ValueError: x and y differ in length, a size is out of range, or an option is
            invalid (the message names the argument).
        LabelMismatchError: two Series with different labels.

    Examples:
        30 models' scores on two benchmarks (synthetic, strongly related):

        >>> import numpy as np
        >>> from analysis.stats import benchmark_agreement
        >>> rng = np.random.default_rng(0)
        >>> x = rng.normal(size=30)
        >>> y = x + rng.normal(0, 0.5, 30)
        >>> res = benchmark_agreement(
        ...     x, y, top_k=10, subset_sizes=(10, None), n_subsets=100, n_resamples=999, rng=0)
        >>> res.n, res.top["k"].tolist(), res.subsets["k"].tolist()
        (30, [10], [10, 30])
        >>> round(res.overall.statistic, 2)
        0.64
    """
    method = _check_choice(method, "method", _METHODS)
    n_subsets = _check_n_resamples(n_subsets, "n_subsets")
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level, gen = _check_open_unit(confidence_level, "confidence_level"), _check_rng(rng)
    xv, yv, names = _aligned(x, y)
    n = len(xv)
    tops = _check_sizes(top_k, "top_k", n, allow_all=False)
    sizes = _check_sizes(subset_sizes, "subset_sizes", n, allow_all=True)

    def correlate(sel: np.ndarray) -> RankCorrelationResult:
        return rank_correlation(
            xv[sel],
            yv[sel],
            method=method,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            rng=gen,
        )

    order = np.argsort(-xv, kind="stable")
    overall = correlate(np.arange(n))
    top = pd.DataFrame(
        [
            {
                "k": k,
                **correlate(order[:k]).to_frame().iloc[0],
                "models": [names[i] for i in order[:k]],
            }
            for k in tops
        ],
        columns=["k", "statistic", "ci_low", "ci_high", "pvalue", "min_pvalue", "models"],
    )
    subset_rows: list[dict[str, Any]] = []
    distributions: dict[int, np.ndarray] = {}
    for size in sizes:
        k = n if size is None else size
        if k == n:
            values = np.array([overall.statistic])
        else:
            idx = gen.permuted(np.broadcast_to(np.arange(n), (n_subsets, n)), axis=1)[:, :k]
            values = _rank_statistic(xv[idx], yv[idx], method)
        defined = values[~np.isnan(values)]
        distributions[k] = defined
        q = np.quantile(defined, _SUBSET_QUANTILES) if defined.size else [np.nan] * 3
        subset_rows.append(
            {
                "k": k,
                "n_subsets": len(values),
                "n_undefined": int(len(values) - defined.size),
                "mean": float(defined.mean()) if defined.size else np.nan,
                "sd": float(defined.std(ddof=1)) if defined.size > 1 else 0.0,
                "q025": q[0],
                "median": q[1],
                "q975": q[2],
                "share_below_overall": float((defined < overall.statistic - 1e-12).mean())
                if defined.size
                else np.nan,
            }
        )
    percentiles = []
    for k, stat in zip(top["k"], top["statistic"], strict=True):
        dist = distributions.get(k, np.empty(0))
        ok = dist.size > 0 and k < n
        percentiles.append(float((dist <= stat + 1e-12).mean()) if ok else np.nan)
    top.insert(6, "subset_percentile", percentiles)
    return BenchmarkAgreementResult(
        overall=overall,
        top=top,
        subsets=pd.DataFrame(subset_rows),
        distributions=distributions,
        method=method,
        n=n,
    )
