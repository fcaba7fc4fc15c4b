r"""``static-rteb estimate``: where a model stands on a benchmark after a few of its tasks.

Example::

    static-rteb estimate --results ../shared/mteb-cache data/runs \
        --model local/minilm-m2v -b "MTEB(eng, v2)"

It reads the model's scores from the results folders, merged into one leaderboard (the
leaderboard's folder and your own runs; where two folders hold different results for one
(model, revision, task), e.g. your rerun of a leaderboard model, the first folder's is
kept with a note, or ``--on-conflict error`` refuses), every task of the benchmark it
has. It predicts the benchmark mean with a 95% prediction interval and the rank interval
that implies among the leaderboard's complete models
(:func:`analysis.stats.predict_benchmark`), and lists the tasks that would narrow the
interval most if run next (:func:`analysis.stats.next_tasks`). For a benchmark with
closed tasks (RTEB) it predicts the public and the private mean from the public scores.

When the model's tasks are exactly a committed lite list (``analysis/results/lite.py``)
and :func:`analysis.stats.select_tasks` picks the same tasks on this reference, the
interval is calibrated on the selection's nested errors (``selection=``); otherwise the
tasks are taken as chosen independently of the reference scores.

Exit status: 0 on success, 2 on a usage error (unknown model or benchmark, no task of
the benchmark, too few reference models).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from analysis.results.leaderboard import Leaderboard
    from analysis.stats import BenchmarkPrediction


@dataclass(frozen=True)
class Estimate:
    """One scope's estimate: the prediction, the tasks to run next, and notes."""

    scope: str
    prediction: BenchmarkPrediction
    next_tasks: pd.DataFrame
    now_half_width: float
    notes: tuple[str, ...]


def observed_scores(board: Leaderboard, model: str) -> pd.Series:
    """The model's score per task of the benchmark (0-1)."""
    from analysis.core.errors import UnknownModelError, close_names

    rows = board.scores[board.scores["model"] == model]
    if rows.empty:
        known = sorted(set(board.scores["model"]) | set(board.missing["model"]))
        raise UnknownModelError(
            f"`--model`: {model!r} has no score on any task of {board.name} in "
            f"{board.provenance.get('results', 'the results folders')} (close names with "
            f"scores: {close_names(model, known)}). Check the name as filed (org/name) and "
            "that the folder with your runs is among --results."
        )
    series = rows.groupby("task")["main_score"].first()
    order = [t.task for t in board.spec.tasks if t.task in series.index]
    return series.loc[order]


def _scopes(board: Leaderboard, target: str) -> list[tuple[str, list[str]]]:
    all_tasks = [t.task for t in board.spec.tasks]
    public = [t.task for t in board.spec.tasks if t.is_public]
    private = [t.task for t in board.spec.tasks if not t.is_public]
    named = {"all": all_tasks, "public": public, "private": private}
    if target == "auto":
        chosen = ["public", "private"] if private else ["all"]
    else:
        chosen = [target]
    return [(scope, named[scope]) for scope in chosen if named[scope]]


def _reference(board: Leaderboard, rows: list[str], model: str) -> pd.DataFrame:
    wide = board.wide(complete_only=False).reindex(rows)
    wide = wide.drop(columns=[model], errors="ignore")
    return wide.loc[:, wide.notna().all(axis=0)]


def _lite_selection(board: Leaderboard, scope: str, ref: pd.DataFrame, tasks: list[str]) -> Any:
    from analysis.results.lite import matching_lite_list
    from analysis.stats import select_tasks

    lite = matching_lite_list(board.name, tasks)
    if lite is None or lite.target != scope:
        return None, None
    types = {t.task: t.type for t in board.spec.tasks} if lite.types_covered else None
    sel = select_tasks(ref, lite.k, task_types=types, **lite.options_for_select())
    if set(sel.tasks) != set(lite.tasks):
        return None, (
            f"your tasks are the {lite.label} list, but select_tasks picks other tasks on this "
            "reference: the interval does not account for how the list was chosen"
        )
    return sel, f"tasks = the {lite.label} list: interval calibrated on its nested selection"


def estimate(
    board: Leaderboard,
    model: str,
    *,
    target: str = "auto",
    level: float = 0.95,
    n_next: int = 5,
    released: Any = None,
) -> list[Estimate]:
    """Estimates for every scope of ``target`` (``static-rteb estimate --help``)."""
    from analysis.core.errors import LeakageWarning
    from analysis.results.groups import release_dates
    from analysis.stats import next_tasks, predict_benchmark

    usable = observed_scores(board, model)
    # A model newer than the leaderboard (an own model) gets an interval calibrated forward
    # in time; a registered model keeps its own release date.
    if released is None:
        released = release_dates([model]).dropna().get(model)
    public = {t.task for t in board.spec.tasks if t.is_public}
    out = []
    for scope, target_tasks in _scopes(board, target):
        rows = list(dict.fromkeys([*usable.index, *target_tasks]))
        ref = _reference(board, rows, model)
        notes = []
        sel, note = (None, None)
        if scope in ("all", "public") and set(usable.index) <= set(target_tasks):
            sel, note = _lite_selection(board, scope, ref.loc[target_tasks], list(usable.index))
        if note:
            notes.append(note)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LeakageWarning)
            dates = release_dates(ref.columns)
            if sel is not None:
                pred = predict_benchmark(
                    ref.loc[target_tasks], usable, confidence_level=level, selection=sel,
                    reference_dates=dates, released=released,
                )  # fmt: skip
            else:
                pred = predict_benchmark(
                    ref, usable, target_tasks=target_tasks, confidence_level=level, model=model,
                    reference_dates=dates, released=released,
                )  # fmt: skip
        notes += [str(w.message) for w in caught]
        # tasks a user can run: public ones (RTEB's closed tasks only help through the public)
        pool = [t for t in (public if scope == "private" else target_tasks) if t in public]
        pool = [t for t in pool if t not in usable.index]
        pool_rows = list(dict.fromkeys([*rows, *pool]))
        ref_next = _reference(board, pool_rows, model)
        following = (
            next_tasks(ref_next, usable, target_tasks=target_tasks, candidates=pool).to_frame()
            if pool
            else None
        )
        now = (
            float(following["half_width"].iloc[0] + following["narrower_by"].iloc[0])
            if following is not None and len(following)
            else float("nan")
        )
        out.append(
            Estimate(
                scope=scope,
                prediction=pred,
                next_tasks=following.head(n_next) if following is not None else _empty(),
                now_half_width=float(now),
                notes=tuple(notes),
            )
        )
    return out


def _empty() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(columns=["task", "half_width", "narrower_by"])


def report(
    board: Leaderboard, model: str, estimates: list[Estimate], notes: Sequence[str] = ()
) -> str:
    """The text ``static-rteb estimate`` prints (``notes``: what loading the results said)."""
    observed = observed_scores(board, model)
    sources = board.scores.loc[board.scores["model"] == model, "source"].dropna().unique()
    lines = [
        f"{model} on {board.name} ({board.provenance.get('task_list', '')}): "
        f"{len(observed)} of {len(board.spec.tasks)} tasks: {', '.join(observed.index)}",
        f"  scores from {' + '.join(map(str, sources))}; leaderboard: "
        f"{board.provenance.get('results', '')}",
    ]
    lines += [f"  note: {n}" for n in notes]
    for est in estimates:
        p = est.prediction
        label = {"all": "mean", "public": "public mean", "private": "private mean"}[est.scope]
        level = f"{p.confidence_level:.0%}"
        low, high = p.confidence_interval
        lines += [
            "",
            f"{board.name} {label}: {100 * p.mean:.2f} ({level} interval {100 * low:.2f} "
            f"to {100 * high:.2f}); rank {p.rank} ({p.rank_low} to {p.rank_high}) among "
            f"{p.n_reference} leaderboard models complete on these tasks",
            f"  from {len(p.tasks)} task(s); "
            + (
                "every task of the mean measured"
                if p.known_share == 1
                else f"{100 * p.known_share:.0f}% of the mean measured, the rest predicted"
            ),
            f"  method: {p.method}",
        ]
        lines += [f"  note: {n}" for n in est.notes]
        if len(est.next_tasks):
            lines.append(
                f"  run next (typical {level} half-width with the task added; now "
                f"{100 * est.now_half_width:.2f} points):"
            )
            lines += [
                f"    {i}. {row.task}: {100 * row.half_width:.2f}"
                for i, row in enumerate(est.next_tasks.itertuples(), 1)
            ]
    return "\n".join(lines)


def estimate_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``static-rteb estimate``, parsed by :mod:`analysis.cli`; returns the exit status.

    Args:
        args: The parsed arguments (:func:`analysis.cli.build_cli.add_estimate_parser`).
        argv: The command's own arguments (unused).
    """
    from analysis.core.errors import AnalysisError, AnalysisWarning
    from analysis.results.leaderboard import load_leaderboard

    results: Any = list(args.results) if args.results else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AnalysisWarning)
        try:
            board = load_leaderboard(
                args.benchmark,
                results=results,
                pin=args.pin,
                exclude_tasks=args.exclude_tasks,
                cache_dir=args.cache_dir,
                on_conflict=args.on_conflict,
            )
            estimates = estimate(
                board,
                args.model,
                target=args.target,
                level=args.confidence_level,
                n_next=args.next,
                released=args.released,
            )
        except (AnalysisError, ValueError) as exc:
            notes = "".join(f"\n  note: {n}" for n in _notes(caught))
            print(f"static-rteb estimate: error: {exc}{notes}", file=sys.stderr)
            return 2
    print(report(board, args.model, estimates, _notes(caught)))
    return 0


def _notes(caught: list[warnings.WarningMessage]) -> list[str]:
    """The package's warnings as notes; any other warning is shown as Python shows it."""
    from analysis.core.errors import AnalysisWarning

    notes = []
    for w in caught:
        if issubclass(w.category, AnalysisWarning):
            notes.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return list(dict.fromkeys(notes))
