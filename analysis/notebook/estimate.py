"""What ``static-rteb estimate`` decides, below the command line.

Which means to predict (:func:`scopes`: all tasks, or RTEB's public and private), whether a
committed lite list's selection applies (:func:`lite_selection`), which tasks a user can run next
(:func:`runnable_tasks`), and the estimate itself (:func:`estimate`). The command line
(:mod:`analysis.cli.estimate`) prints it; the notebooks and the benchmarks call the same functions.
"""

from __future__ import annotations

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
    from analysis.core.errors import UnknownModelError, close_names, spell

    rows = board.scores[board.scores["model"] == model]
    if rows.empty:
        known = sorted(set(board.scores["model"]) | set(board.missing["model"]))
        raise UnknownModelError(
            f"`{spell('model')}`: {model!r} has no score on any task of {board.name} in "
            f"{board.provenance.get('results', 'the results folders')} (close names with "
            f"scores: {close_names(model, known)}). Check the name as filed (org/name) and "
            f"that the folder with your runs is among {spell('results')}."
        )
    series = rows.groupby("task")["main_score"].first()
    return series.loc[[t.task for t in board.spec.tasks if t.task in series.index]]


def scopes(board: Leaderboard, target: str = "auto") -> list[tuple[str, list[str]]]:
    """The means to predict: ``(scope, its tasks)`` for ``target``.

    ``"auto"``: the public and the private mean of a benchmark with closed tasks (RTEB),
    else the mean of all tasks; a named scope with no task is left out.
    """
    from analysis.results.specs import SCOPES

    lists = {scope: board.spec.scope_tasks(scope) for scope in SCOPES}
    auto = ["public", "private"] if lists["private"] else ["all"]
    chosen = auto if target == "auto" else [target]
    return [(scope, lists[scope]) for scope in chosen if lists[scope]]


def runnable_tasks(board: Leaderboard, scope: str, target_tasks: Sequence[str]) -> list[str]:
    """The tasks a user can run to narrow ``scope``'s interval: public ones only.

    RTEB's closed tasks help the private mean only through the public ones.
    """
    public = set(board.spec.scope_tasks("public"))
    pool = board.spec.scope_tasks("public") if scope == "private" else list(target_tasks)
    return [t for t in pool if t in public]


def _reference(board: Leaderboard, rows: list[str], model: str) -> pd.DataFrame:
    wide = board.wide(complete_only=False).reindex(rows)
    wide = wide.drop(columns=[model], errors="ignore")
    return wide.loc[:, wide.notna().all(axis=0)]


def lite_selection(board: Leaderboard, scope: str, ref: pd.DataFrame, tasks: list[str]) -> Any:
    """``(selection, note)`` for a model whose ``tasks`` may be a committed lite list.

    The :func:`analysis.stats.select_tasks` result to pass as ``selection=`` when ``tasks``
    are a lite list of this benchmark and scope and ``select_tasks`` picks the same tasks on
    ``ref`` (else None), and a sentence for the user (None when the tasks are no lite list).
    """
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
    """A model's estimate on every scope of ``target``, from the tasks it has run.

    What ``static-rteb estimate`` prints: each scope's
    :func:`analysis.stats.predict_benchmark` (with the registry's release dates, and a lite
    list's selection when the model's tasks are one), the tasks to run next
    (:func:`analysis.stats.next_tasks` among :func:`runnable_tasks`), the warnings as notes.

    Args:
        board: the leaderboard (the model's own runs merged in).
        model: the model's name as filed.
        target: ``"auto"``, ``"all"``, ``"public"`` or ``"private"`` (:func:`scopes`).
        level: confidence level of the intervals.
        n_next: how many next tasks to list.
        released: the model's release date (default: mteb's date of a registered model,
            else just after the newest reference).
    """
    import pandas as pd

    from analysis.core.errors import LeakageWarning, spell
    from analysis.results.groups import release_dates
    from analysis.stats import next_tasks, predict_benchmark
    from analysis.stats.estimate._checks import MIN_REFERENCE_MODELS

    usable = observed_scores(board, model)
    # A model newer than the leaderboard (an own model) gets an interval calibrated forward
    # in time; a registered model keeps its own release date.
    if released is None:
        released = release_dates([model]).dropna().get(model)
    out = []
    for scope, target_tasks in scopes(board, target):
        rows = list(dict.fromkeys([*usable.index, *target_tasks]))
        ref = _reference(board, rows, model)
        if ref.shape[1] < MIN_REFERENCE_MODELS:  # the stats' check, in the caller's words
            raise ValueError(
                f"{board.name}: {ref.shape[1]} other model(s) have every task used ({scope} "
                f"scope); at least {MIN_REFERENCE_MODELS} are needed to calibrate the "
                f"interval: choose a pin under which more are complete (e.g. "
                f"{spell('pin', 'as-of-post')}) or leave tasks out "
                f"(`{spell('exclude_tasks').rstrip('=')}`)"
            )
        sel, note = (None, None)
        if scope in ("all", "public") and set(usable.index) <= set(target_tasks):
            sel, note = lite_selection(board, scope, ref.loc[target_tasks], list(usable.index))
        notes = [note] if note else []
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
        pool = [t for t in runnable_tasks(board, scope, target_tasks) if t not in usable.index]
        following = pd.DataFrame(columns=["task", "half_width", "narrower_by"])
        if pool:
            ref_next = _reference(board, list(dict.fromkeys([*rows, *pool])), model)
            following = next_tasks(
                ref_next, usable, target_tasks=target_tasks, candidates=pool
            ).to_frame()
        out.append(
            Estimate(
                scope=scope,
                prediction=pred,
                next_tasks=following.head(n_next),
                now_half_width=(
                    float(following["half_width"].iloc[0] + following["narrower_by"].iloc[0])
                    if len(following)
                    else float("nan")
                ),
                notes=tuple(notes),
            )
        )
    return out
