"""One comparison report for many models over many tasks, and its critical-difference diagram.

:func:`compare` runs :func:`pairwise_significance` (max-T) and :func:`rank_intervals` on
the same sign patterns and returns a :class:`ComparisonReport` (in the spirit of ranx's
``Report``), with a critical-difference diagram of the max-T decisions drawn by
scikit-posthocs (not Nemenyi's mean-rank test: :mod:`analysis.stats.friedman` says why).
"""

from __future__ import annotations

import dataclasses
import itertools
import string
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from ._checks import (
    RngLike,
    _check_choice,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    complete_score_matrix,
    unit_clusters,
)
from ._resampling import unit_sums
from ._results import StatsResult
from .pairwise import PairwiseResult, _pairwise, draw_patterns
from .ranks import _MIN_TASKS, RankIntervalsResult, _rank_intervals

_AGGREGATES = ("mean", "borda")
#: LaTeX escapes of a table cell or caption.
_LATEX = str.maketrans({"\\": r"\textbackslash{}", **{c: "\\" + c for c in "_&%#${}"}})


def _letters(k: int) -> list[str]:
    """a, b, ..., z, aa, ab, ... (ranx's model keys, extended past 26)."""
    letters = string.ascii_lowercase
    keys = (map("".join, itertools.product(letters, repeat=n)) for n in itertools.count(1))
    return list(itertools.islice(itertools.chain.from_iterable(keys), k))


@dataclass(frozen=True, repr=False)
class ComparisonReport(StatsResult):
    """Result of :func:`compare`: everything about many models over the same tasks.

    Attributes:
        models: one row per model in rank order (index ``model``): ``key`` (a letter),
            ``score`` (mean score or Borda points), ``rank``, ``rank_low``, ``rank_high``,
            ``better_than`` (keys of the models it is significantly better than: the
            step-down max-T decisions of ``ranks``, which also give the rank interval),
            ``wins``, ``ties``, ``losses`` (over all tasks and opponents).
        pairwise: the max-T pairwise result (simultaneous intervals).
        ranks: the rank intervals (same sign patterns).
        wins: K x K matrix: tasks on which the row model scores higher than the column.
        ties: K x K matrix of tied tasks.
        aggregate: ``"mean"`` or ``"borda"`` (what ``score`` and the ranks are).
        alpha: level of the decisions (intervals: ``1 - alpha``, simultaneous).
        n_tasks: tasks used.
        n_units: independent units (tasks, or clusters of tasks).
        dropped: models left out for missing scores -> their missing tasks.
    """

    models: pd.DataFrame
    pairwise: PairwiseResult
    ranks: RankIntervalsResult
    wins: pd.DataFrame
    ties: pd.DataFrame
    aggregate: str
    alpha: float
    n_tasks: int
    n_units: int
    dropped: dict[Any, list[Any]] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The per-model table (a copy)."""
        return self.models.copy()

    def _summary_lines(self) -> list[str]:
        head = ", ".join(
            f"{m} [{lo:g}, {hi:g}]"
            for m, lo, hi in zip(
                self.models.index[:3],
                self.models["rank_low"][:3],
                self.models["rank_high"][:3],
                strict=True,
            )
        )
        return [
            f"{len(self.models)} models over {self.n_tasks} tasks ({self.n_units} units); "
            f"aggregate={self.aggregate!r}, alpha={self.alpha:g}",
            f"{int(self.pairwise.table['significant'].sum())} of {len(self.pairwise.table)} "
            "pairs significant (max-T, simultaneous intervals)",
            f"top: {head[:100]}",
            "to_markdown(), to_latex(), plot_cd(); .pairwise, .ranks",
        ]

    def caption(self) -> str:
        """What the model table shows, in a sentence (for a table's note or a caption)."""
        what = "mean score" if self.aggregate == "mean" else "Borda points"
        units = (
            f"{self.n_tasks} tasks"
            if self.n_units == self.n_tasks
            else f"{self.n_tasks} tasks in {self.n_units} clusters (signs flipped per cluster)"
        )
        return (
            f"{what} over {units}; letters: the models it is significantly better than "
            f"(paired studentized sign-flip tests, step-down max-T, alpha = {self.alpha:g}); "
            f"rank interval: {1 - self.alpha:.0%} simultaneous, from the same decisions; "
            "W/T/L: wins/ties/losses over all tasks and opponents. "
            + (
                "Pairs table: single-step max-T p-values with simultaneous intervals (a pair "
                "starred there is always among the letters; step-down can separate a few more)."
                if self.aggregate == "mean"
                else "Pairs table: mean-score differences (single-step max-T, simultaneous "
                "intervals); the letters compare Borda points."
            )
        )

    def _model_rows(self, digits: int, superscript: str) -> list[list[str]]:
        return [
            [
                r["key"],
                str(model),
                f"{r['score']:.{digits}f}"
                + (superscript.format(r["better_than"]) if r["better_than"] else ""),
                f"{int(r['rank'])}",
                f"[{int(r['rank_low'])}, {int(r['rank_high'])}]",
                f"{int(r['wins'])}/{int(r['ties'])}/{int(r['losses'])}",
            ]
            for model, r in self.models.iterrows()
        ]

    def to_markdown(self, *, digits: int = 3, pairs: bool = True) -> str:
        """Markdown: the model table (ranx style) and, with ``pairs``, the pairs table."""
        head = ["#", "model", "score", "rank", "rank interval", "W/T/L"]
        lines = [
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
            *("| " + " | ".join(r) + " |" for r in self._model_rows(digits, "<sup>{}</sup>")),
            "",
            self.caption(),
        ]
        if pairs:
            t = self.pairwise.table
            keys = self.models["key"]
            lines += [
                "",
                "| a | b | difference | simultaneous interval | p (max-T) | W/T/L |",
                "|---|---|---|---|---|---|",
            ]
            for r in t.itertuples():
                p = "<0.001" if r.pvalue_maxT < 0.001 else f"{r.pvalue_maxT:.3f}"
                star = " *" if r.significant else ""
                lines.append(
                    f"| {keys[r.model_a]} | {keys[r.model_b]} | {r.difference:.{digits}f}{star} | "
                    f"[{r.ci_low:.{digits}f}, {r.ci_high:.{digits}f}] | {p} | "
                    f"{r.wins}/{r.ties}/{r.losses} |"
                )
        return "\n".join(lines) + "\n"

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str = "") -> str:
        """A booktabs LaTeX table of the models (superscripts: models significantly beaten)."""
        rows = self._model_rows(digits, "$^{{\\mathrm{{{}}}}}$")
        body = [" & ".join([r[0], r[1].translate(_LATEX), *r[2:]]) + r" \\" for r in rows]
        cap = (caption if caption is not None else self.caption()).translate(_LATEX)
        return (
            "\n".join(
                [
                    r"\begin{table}[t]",
                    r"\centering",
                    r"\begin{tabular}{llrrcc}",
                    r"\toprule",
                    r"\# & Model & Score & Rank & Rank interval & W/T/L \\",
                    r"\midrule",
                    *body,
                    r"\bottomrule",
                    r"\end{tabular}",
                    rf"\caption{{{cap}}}",
                    *([rf"\label{{{label}}}"] if label else []),
                    r"\end{table}",
                ]
            )
            + "\n"
        )

    def plot_cd(self, ax: Any = None, **kwargs: Any) -> Any:
        """Critical-difference diagram of this report's step-down max-T decisions.

        scikit-posthocs' ``critical_difference_diagram``: models at their score (for
        ``aggregate="borda"``, their mean rank per task), crossbars joining the pairs *not*
        significant at ``alpha``. Keyword arguments go to scikit-posthocs. Returns the Axes.
        """
        import matplotlib.pyplot as plt
        import scikit_posthocs as sp

        if ax is None:
            _, ax = plt.subplots(figsize=(9, 0.28 * len(self.models) + 1.5))
        if self.aggregate == "borda":
            position = len(self.models) - self.models["score"] / self.n_tasks
        else:
            position = self.models["score"]
        better = _decisions(self.ranks)
        differ = better | better.T
        # This package's decisions as a 0/1 matrix: 0 (< alpha) = significant, 1 = not.
        sig = pd.DataFrame(np.where(differ, 0.0, 1.0), index=differ.index, columns=differ.columns)
        fmt = "{label} ({rank:.4g})"
        options = {"label_fmt_left": fmt, "label_fmt_right": "({rank:.4g}) {label}", **kwargs}
        sp.critical_difference_diagram(
            position.astype(float), sig, alpha=self.alpha, ax=ax, **options
        )
        ax.grid(False)
        return ax


def _decisions(ranks: RankIntervalsResult) -> pd.DataFrame:
    """Models x models: True where the row model is significantly better (step-down max-T)."""
    order = list(ranks.table.index)
    p, value = ranks.pvalues.loc[order, order].to_numpy(), ranks.table["score"].to_numpy()
    reject = np.nan_to_num(p, nan=1.0) <= ranks.alpha
    return pd.DataFrame(reject & (value[:, None] > value[None, :]), index=order, columns=order)


def compare(
    scores: pd.DataFrame,
    *,
    clusters: Any = None,
    aggregate: Literal["mean", "borda"] = "mean",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    top: int = 10,
    rng: RngLike = None,
) -> ComparisonReport:
    """Compare many models over the same tasks: one report (tables, intervals, CD diagram).

    Runs :func:`pairwise_significance` (``adjustment="maxT"``: single-step p-values and
    simultaneous intervals) and :func:`rank_intervals` (step-down max-T) on one set of sign
    patterns, and collects wins/ties/losses; their nulls, assumptions and measured
    behaviour are theirs. ``better_than``, the rank intervals and the diagram use the
    step-down decisions, which include every pair the single-step table calls significant
    (``aggregate="mean"``). :func:`friedman_nemenyi` is the labelled mean-rank reference.

    Args:
        scores: tasks x models (``Leaderboard.wide()``), higher is better.
        clusters: one cluster label per task (Series, mapping or sequence); None: independent tasks.
        aggregate: what ranks the models: ``"mean"`` score or ``"borda"`` points.
        alpha: level of the decisions; intervals are simultaneous at ``1 - alpha``.
        n_resamples: Monte-Carlo sign patterns when not exact.
        top: groups kept in ``ranks.groups``.
        rng: seed or Generator (the Monte-Carlo patterns).

    Raises:
        ValueError: as :func:`pairwise_significance`, or fewer than 3 units.
        LabelMismatchError: ``clusters`` does not name the rows of ``scores``.

    Examples:
        Four models on 8 tasks (synthetic; A best, then B, C, D):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> mean = rng.normal(0.5, 0.05, (8, 1)) + [0.1, 0.05, 0.0, -0.05]  # task + model
        >>> scores = pd.DataFrame(mean + rng.normal(0, 0.01, (8, 4)),
        ...     index=[f"task{i}" for i in range(8)], columns=["A", "B", "C", "D"])
        >>> from analysis.stats import compare
        >>> report = compare(scores)
        >>> report.models[["rank", "better_than"]]
               rank better_than
        model
        A         1         bcd
        B         2          cd
        C         3           d
        D         4
        >>> bool(report.pairwise.table["significant"].all())
        True
    """
    aggregate = _check_choice(aggregate, "aggregate", _AGGREGATES)
    alpha, n_resamples = _check_open_unit(alpha, "alpha"), _check_n_resamples(n_resamples)
    top, gen = _check_n_resamples(top, "top"), _check_rng(rng)
    X, names, dropped, rows = complete_score_matrix(scores, caller="compare")
    if len(names) < 2:
        raise ValueError(f"`scores` needs at least 2 models with every task, got {len(names)}")
    codes = unit_clusters(clusters, rows, len(rows))
    U, sizes = unit_sums(X, codes)
    g = U.shape[0]
    if g < _MIN_TASKS:
        raise ValueError(f"`scores` needs at least {_MIN_TASKS} units (tasks or clusters), got {g}")
    patterns, bits, pair_exact = draw_patterns(g, len(names), n_resamples, gen)
    pairwise = _pairwise(
        X, names, U, sizes, patterns, bits, pair_exact, "maxT", alpha, n_resamples, dropped
    )
    labels = [str(c) for c in names]
    str_dropped = {str(m): [str(t) for t in u] for m, u in dropped.items()}
    ranks = _rank_intervals(
        X,
        labels,
        codes,
        patterns,
        aggregate=aggregate,
        interval="pairwise",
        simultaneous=True,
        n_resamples=n_resamples,
        confidence_level=1.0 - alpha,
        alpha=alpha,
        top=top,
        rng=gen,
        dropped=str_dropped,
    )
    wins = (X[:, :, None] > X[:, None, :]).sum(axis=0)
    ties = (X[:, :, None] == X[:, None, :]).sum(axis=0)
    np.fill_diagonal(ties, 0)
    order = list(ranks.table.index)
    wins_df = pd.DataFrame(wins, index=labels, columns=labels).loc[order, order]
    ties_df = pd.DataFrame(ties, index=labels, columns=labels).loc[order, order]
    keys = dict(zip(order, _letters(len(order)), strict=True))
    table = pairwise.table.assign(
        model_a=pairwise.table["model_a"].astype(str), model_b=pairwise.table["model_b"].astype(str)
    )
    better = _decisions(ranks)
    models = ranks.table[["score", "rank", "rank_low", "rank_high"]].copy()
    models.insert(0, "key", [keys[m] for m in order])
    models["better_than"] = ["".join(keys[x] for x in order if better.loc[m, x]) for m in order]
    models["wins"] = wins_df.sum(axis=1).to_numpy()
    models["ties"] = ties_df.sum(axis=1).to_numpy()
    models["losses"] = wins_df.sum(axis=0).to_numpy()
    return ComparisonReport(
        models=models,
        pairwise=dataclasses.replace(pairwise, table=table),
        ranks=ranks,
        wins=wins_df,
        ties=ties_df,
        aggregate=aggregate,
        alpha=alpha,
        n_tasks=len(rows),
        n_units=g,
        dropped=str_dropped,
    )
