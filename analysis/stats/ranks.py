"""Rank intervals for a leaderboard: which ranks are real.

Every pair of models is compared by the paired sign-flip test over tasks (studentized),
all pairs adjusted together by the Westfall-Young step-down max-T on shared sign
patterns (:mod:`._maxt`). A model's interval is ``[1 + #significantly better, K -
#significantly worse]``; when no pairwise decision is wrong, which max-T guarantees with
probability at least ``confidence_level``, every interval holds at once (Klein, Wright and Wieczorek
2020; Mogstad, Romano, Shaikh and Wilhelm 2024). The null, the assumptions and why not a bootstrap
of ranks: the statistics guide (``docs/statistics.md``, "Which leaderboard ranks are real");
measured in ``benchmarks/results/rank_validation.md`` (``benchmarks/bench_rank_validation.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ._checks import (
    RngLike,
    _check_choice,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    complete_score_matrix,
    unit_clusters,
)
from ._maxt import maxt
from ._resampling import SignPatterns, _bootstrap_index_blocks, sign_patterns, unit_sums
from ._results import TableResult

_AGGREGATES = ("mean", "borda")
_INTERVALS = ("pairwise", "bootstrap")
_MIN_TASKS = 3


@dataclass(frozen=True, repr=False)
class RankIntervalsResult(TableResult):
    """Result of :func:`rank_intervals`.

    Attributes:
        table: one row per kept model (index ``model``), in rank order: ``score`` (mean
            score, or Borda points), ``rank`` (1 = best, ties share the best),
            ``rank_low`` / ``rank_high`` (the interval; NaN when there is none),
            ``n_better`` / ``n_worse`` (models significantly better / worse) and
            ``tied_with_leader`` (the pair with the rank-1 model is not rejected).
        pvalues: K x K adjusted p-values (row model vs column model, within the row
            model's family; NaN on the diagonal).
        groups: for each of the ``top`` best models, the models it cannot be told apart
            from at ``alpha`` (itself included), in rank order.
        aggregate: ``"mean"`` or ``"borda"``.
        interval: ``"pairwise"`` or ``"bootstrap"``.
        simultaneous: whether all pairs form one family (else one family per model).
        n_tasks: tasks used.
        n_units: independent units the signs flip: tasks, or clusters of tasks.
        n_models: models kept.
        confidence_level: confidence level of the rank intervals.
        alpha: ``1 - confidence_level``, the level of ``groups`` and ``tied_with_leader``.
        n_resamples: sign patterns (Monte-Carlo) or bootstrap resamples requested.
        exact: whether all 2**n sign patterns were enumerated.
        n_patterns: sign patterns used (2**n when exact).
        min_pvalue: smallest attainable adjusted p-value.
        method: a sentence describing what was computed.
        dropped: models left out (with missing scores) -> their missing tasks.
        caveat: why there is no interval (fewer than 3 tasks), else ``""``.
    """

    table: pd.DataFrame
    pvalues: pd.DataFrame
    groups: dict[str, list[str]]
    aggregate: str
    interval: str
    simultaneous: bool
    n_tasks: int
    n_units: int
    n_models: int
    confidence_level: float
    alpha: float
    n_resamples: int
    exact: bool
    n_patterns: int
    min_pvalue: float
    method: str
    dropped: dict[str, list[str]] = field(default_factory=dict)
    caveat: str = ""

    def _summary_lines(self) -> list[str]:
        lines = [
            f"{self.n_models} models over {self.n_tasks} tasks ({self.n_units} units), "
            f"aggregate={self.aggregate!r}, interval={self.interval!r}, "
            f"confidence_level={self.confidence_level:g}",
            f"method: {self.method[:80]}",
        ]
        if self.caveat:
            lines.append(f"caveat: {self.caveat[:80]}")
        else:
            head = self.table.head(3)
            tops = ", ".join(
                f"{m} [{lo:g}, {hi:g}]"
                for m, lo, hi in zip(head.index, head["rank_low"], head["rank_high"], strict=True)
            )
            lines.append(f"top: {tops[:100]}")
        lines.append(f"dropped={len(self.dropped)} model(s); .to_frame() has every model")
        return lines


# --------------------------------------------------------------------------- kernels


def _task_values(X: np.ndarray, aggregate: str) -> np.ndarray:
    """Per-task values whose mean over tasks is the aggregate: scores or Borda points."""
    if aggregate == "mean":
        return X.astype(float, copy=True)
    return X.shape[-1] - rankdata(-X, method="average", axis=-1)


def _point_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks of the aggregates along the last axis: 1 = highest, ties share the best."""
    return rankdata(-values, method="min", axis=-1).astype(np.int64)


def _families(k: int, simultaneous: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (ia, ib), shape (families, hypotheses): all pairs, or each model's K - 1."""
    if simultaneous:
        ia, ib = np.triu_indices(k, 1)
        return ia[None, :], ib[None, :]
    others = np.array([[j for j in range(k) if j != i] for i in range(k)], dtype=np.intp)
    return np.repeat(np.arange(k)[:, None], k - 1, axis=1), others.reshape(k, k - 1)


def _maxt_pvalues(
    U: np.ndarray,
    *,
    simultaneous: bool,
    n_resamples: int,
    rng: np.random.Generator,
    sizes: np.ndarray | None = None,
    patterns: SignPatterns | None = None,
) -> tuple[np.ndarray, bool, int]:
    """Step-down max-T adjusted p-values of all pairs, for a batch of data sets."""
    reps, g, k = U.shape
    ia, ib = _families(k, simultaneous)
    patterns = sign_patterns(g, n_resamples, rng) if patterns is None else patterns
    kernel = maxt(U, ia, ib, patterns, sizes=sizes, step_down=True)
    assert kernel.stepdown is not None
    n_fam, m = ia.shape
    P, r_idx = np.full((reps, k, k), np.nan), np.arange(reps)[:, None, None]
    sa, sb = np.broadcast_to(ia, (reps, n_fam, m)), np.broadcast_to(ib, (reps, n_fam, m))
    P[r_idx, sa, sb] = kernel.stepdown
    if simultaneous:
        P[r_idx, sb, sa] = kernel.stepdown
    return P, patterns.exact, patterns.total


def _pairwise_intervals(
    P: np.ndarray, values: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rank intervals from pairwise decisions at ``level``."""
    k = values.shape[-1]
    reject = np.nan_to_num(P, nan=1.0) <= level
    better = reject & (values[:, None, :] > values[:, :, None])  # column j better than i
    worse = reject & (values[:, None, :] < values[:, :, None])
    n_better, n_worse = better.sum(axis=2), worse.sum(axis=2)
    return 1 + n_better, k - n_worse, n_better, n_worse


def _min_ranks(values: np.ndarray) -> np.ndarray:
    """Like :func:`_point_ranks` (1 + number of strictly larger values), fast for few models."""
    if values.shape[-1] > 64:
        return _point_ranks(values)
    return 1 + (values[..., None, :] > values[..., :, None]).sum(axis=-1, dtype=np.int64)


def _bootstrap_rank_intervals(
    U: np.ndarray, *, n_resamples: int, confidence_level: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap intervals of ranks (tasks resampled), for a batch of data sets."""
    reps, n, k = U.shape
    tail = (1.0 - confidence_level) / 2.0
    hist = np.zeros(reps * k * k, dtype=np.int64)
    cell = (np.arange(reps)[:, None, None] * k + np.arange(k)[None, None, :]) * k
    for idx in _bootstrap_index_blocks(n, n_resamples, rng):
        rows = idx.shape[0]
        flat = (idx + (np.arange(rows) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(float)
        ranks = _min_ranks(np.matmul(counts, U))  # (reps, rows, models)
        hist += np.bincount((cell + ranks - 1).ravel(), minlength=hist.size)
    cum = np.cumsum(hist.reshape(reps, k, k), axis=2)
    positions = math.floor(tail * (n_resamples - 1)), math.ceil((1.0 - tail) * (n_resamples - 1))
    low, high = ((1 + (cum <= pos).sum(axis=2)).astype(float) for pos in positions)
    return low, high


# --------------------------------------------------------------------------- public API


def rank_intervals(
    scores: pd.DataFrame,
    *,
    clusters: Any = None,
    aggregate: Literal["mean", "borda"] = "mean",
    interval: Literal["pairwise", "bootstrap"] = "pairwise",
    simultaneous: bool = True,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    top: int = 10,
    rng: RngLike = None,
) -> RankIntervalsResult:
    """Rank of every model on a leaderboard, with a confidence interval for the rank.

    Pairwise sign-flip tests over tasks, adjusted together (Westfall-Young step-down
    max-T); a model's interval runs from 1 + the number of models significantly better to
    K - the number significantly worse. It covers the true ranks of all models at once with
    probability at least ``confidence_level`` (``simultaneous=True``), or each model's
    separately (``simultaneous=False``: one family of K - 1 pairs per model, narrower).

    **Null and assumptions** (the module notes and the statistics guide): tasks are
    independent units (``clusters=`` makes each cluster of near-duplicate tasks one unit);
    a pair's task-wise differences are symmetric about 0 under its null, jointly for the
    tied pairs. A model with any missing task is left out with a
    :class:`~analysis.core.errors.DroppedModelsWarning` (``dropped`` lists all); never a
    mean over a partial task set. With fewer than 3 units the ranks come without intervals
    (``caveat`` says why); with n tasks the smallest adjusted p-value is ``2/2**n``.

    Draws from ``rng``: the Monte-Carlo sign patterns (none when exact; the same as
    :func:`pairwise_significance` draws from the same seed), then, for
    ``interval="bootstrap"``, bootstrap indices.

    Args:
        scores: rows = tasks (the unit), columns = models, higher is better (the wide
            table of ``Leaderboard.wide()``).
        clusters: one cluster label per task (a Series indexed like the rows, a mapping
            task -> cluster, or a sequence in row order); None: independent tasks.
        aggregate: ``"mean"`` (Mean (Task)) or ``"borda"`` (mteb's Borda count, the
            ranks computed among the kept models).
        interval: ``"pairwise"`` (default, valid) or ``"bootstrap"`` (the percentile bootstrap of
            ranks; no guarantee, under-covers for close models; kept for comparison).
        simultaneous: one family of all pairs (True) or one per model (False).
        n_resamples: Monte-Carlo sign patterns (when not exact) and bootstrap resamples.
        confidence_level: coverage of the rank intervals, in (0, 1); ``groups`` and
            ``tied_with_leader`` are decided at ``1 - confidence_level`` by the same tests.
        top: how many of the best models get a group in ``groups``.
        rng: seed or Generator.

    Returns:
        RankIntervalsResult.

    Raises:
        ValueError: ``scores`` is not a DataFrame, has duplicate, non-numeric or
            infinite columns, or fewer than 2 complete models; or an option is invalid.
        LabelMismatchError: ``clusters`` does not name the rows of ``scores``.

    Examples:
        Four models on 8 tasks (synthetic; A best, then B, C, D):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> mean = rng.normal(0.5, 0.05, (8, 1)) + [0.1, 0.05, 0.0, -0.05]  # task + model
        >>> scores = pd.DataFrame(mean + rng.normal(0, 0.01, (8, 4)),
        ...     index=[f"task{i}" for i in range(8)], columns=["A", "B", "C", "D"])
        >>> from analysis.stats import rank_intervals
        >>> res = rank_intervals(scores)
        >>> res.to_frame()[["rank", "rank_low", "rank_high"]]
               rank  rank_low  rank_high
        model
        A         1         1          1
        B         2         2          2
        C         3         3          3
        D         4         4          4
    """
    aggregate = _check_choice(aggregate, "aggregate", _AGGREGATES)
    interval = _check_choice(interval, "interval", _INTERVALS)
    if not isinstance(simultaneous, bool):
        raise ValueError(f"`simultaneous` must be True or False, got {simultaneous!r}")
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level = _check_open_unit(confidence_level, "confidence_level")
    top, gen = _check_n_resamples(top, "top"), _check_rng(rng)
    X, names, dropped, rows = complete_score_matrix(scores, caller="rank_intervals", min_units=1)
    if len(names) < 2:
        raise ValueError(
            f"`scores` needs at least 2 models with a score on every task, got {len(names)}; "
            "drop tasks that few models have (rows) first"
        )
    codes = unit_clusters(clusters, rows, len(rows))
    g = len(rows) if codes is None else int(codes.max()) + 1
    return _rank_intervals(
        X,
        [str(c) for c in names],
        codes,
        sign_patterns(g, n_resamples, gen) if g >= _MIN_TASKS else None,
        aggregate=aggregate,
        interval=interval,
        simultaneous=simultaneous,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alpha=round(1.0 - confidence_level, 12),
        top=top,
        rng=gen,
        dropped={str(m): [str(t) for t in units] for m, units in dropped.items()},
    )


def _rank_intervals(
    X: np.ndarray,
    names: list[str],
    codes: np.ndarray | None,
    patterns: SignPatterns | None,
    *,
    aggregate: str,
    interval: str,
    simultaneous: bool,
    n_resamples: int,
    confidence_level: float,
    alpha: float,
    top: int,
    rng: np.random.Generator,
    dropped: dict[str, list[str]],
) -> RankIntervalsResult:
    """The computation behind :func:`rank_intervals` (and :func:`compare`)."""
    n, k = X.shape
    U = _task_values(X, aggregate)
    value = U.sum(axis=0) if aggregate == "borda" else U.mean(axis=0)
    units, sizes = unit_sums(U, codes)
    g = units.shape[0]
    rank = _point_ranks(value)
    table = pd.DataFrame({"score": value, "rank": rank}, index=pd.Index(names, name="model"))
    agg = "Borda points" if aggregate == "borda" else "mean score"
    over = f"{n} tasks" + (f" in {g} clusters (one sign per cluster)" if sizes is not None else "")
    common: dict[str, Any] = dict(
        aggregate=aggregate,
        interval=interval,
        simultaneous=simultaneous,
        n_tasks=n,
        n_units=g,
        n_models=k,
        confidence_level=confidence_level,
        alpha=alpha,
        n_resamples=n_resamples,
        dropped=dropped,
    )
    if patterns is None:
        for col in ("rank_low", "rank_high", "n_better", "n_worse"):
            table[col] = np.nan
        table["tied_with_leader"] = pd.array([pd.NA] * k, dtype="boolean")
        return RankIntervalsResult(
            table=table.sort_values("rank", kind="stable"),
            pvalues=pd.DataFrame(np.nan, index=names, columns=names),
            groups={},
            exact=False,
            n_patterns=0,
            min_pvalue=float("nan"),
            method=f"ranks by {agg} over {over}; no interval",
            caveat=(
                f"only {g} unit(s): fewer than {_MIN_TASKS} tasks (or clusters) give no interval "
                f"(a sign-flip test over {g} units can never reject, and a resample of {g} "
                "carries almost no information)"
            ),
            **common,
        )
    P, exact, total = _maxt_pvalues(
        units[None],
        simultaneous=simultaneous,
        n_resamples=n_resamples,
        rng=rng,
        sizes=sizes,
        patterns=patterns,
    )
    low, high, n_better, n_worse = _pairwise_intervals(P, value[None], 1.0 - confidence_level)
    if interval == "bootstrap":
        low, high = _bootstrap_rank_intervals(
            units[None], n_resamples=n_resamples, confidence_level=confidence_level, rng=rng
        )
    table["rank_low"], table["rank_high"] = low[0], high[0]
    table["n_better"], table["n_worse"] = n_better[0], n_worse[0]
    order = np.argsort(rank, kind="stable")
    indistinct = np.nan_to_num(P[0], nan=1.0) > alpha
    np.fill_diagonal(indistinct, True)
    table["tied_with_leader"] = indistinct[order[0]]
    groups = {names[i]: [names[j] for j in order if indistinct[i, j]] for i in order[:top]}
    family = "all pairs, one family" if simultaneous else "one family per model (its K - 1 pairs)"
    how = (
        "pairwise decisions"
        if interval == "pairwise"
        else f"percentile bootstrap of ranks ({n_resamples} resamples of {g} units)"
    )
    return RankIntervalsResult(
        table=table.iloc[order],
        pvalues=pd.DataFrame(P[0], index=names, columns=names),
        groups=groups,
        exact=exact,
        n_patterns=2 * total if exact else total,
        min_pvalue=patterns.min_pvalue,
        method=(
            f"ranks by {agg} over {over}; paired studentized sign-flip tests, Westfall-Young "
            f"step-down max-T ({family}; {patterns.describe()}); rank intervals from {how}"
        ),
        **common,
    )
