"""A benchmark's leaderboard table with mteb's columns: zero-shot %, sizes, Mean (TaskType).

:func:`leaderboard_columns` lays out a loaded :class:`~analysis.results.leaderboard.Leaderboard`
as mteb's leaderboard table does (``mteb.benchmarks._create_table``):

* ``Rank (Borda)`` (mteb's, over the models shown), ``Zero-shot`` (mteb's
  ``ModelMeta.zero_shot_percentage`` on the benchmark's tasks: :mod:`.training`; unknown
  stays ``<NA>``, where mteb's table writes -1), then mteb's own formatting of the model
  metadata (``Active Parameters (B)``, ``Total Parameters (B)``, ``Embedding
  Dimensions``, ``Max Tokens``, ``Release Date``;
  :func:`analysis.core.compat.leaderboard_model_columns`);
* ``Mean (Task)``; ``Mean (TaskType)``, the mean of the per-task-type means; one column per
  task type (benchmarks of more than one type); ``Mean (Public)`` and ``Mean (Private)``
  on a benchmark with closed tasks (RTEB: the view mteb's leaderboard dropped in January
  2026, mteb#3933). Every mean is NaN unless the model has every task it averages, as
  mteb's (``skipna=False``). Scores on mteb's 0-1 scale.

Unlike mteb's table, a model that mteb does not register is kept, with empty metadata.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..core.compat import leaderboard_model_columns, registered_meta
from .leaderboard import Leaderboard
from .summary import mteb_borda_rank
from .training import zero_shot

INTEGERS = ("Embedding Dimensions", "Max Tokens")
#: mteb's metadata columns, in its order (``_STANDARD_META_COLS`` without ``Zero-shot``).
META_COLUMNS = ("Active Parameters (B)", "Total Parameters (B)", *INTEGERS)
#: Significant figures of the parameter counts as shown (potion-base-2M: 0.002, not 0.00).
PARAMETER_DIGITS = 3


def type_means(board: Leaderboard) -> pd.DataFrame:
    """Per model: the mean of each task type's tasks and ``Mean (TaskType)``, their mean.

    Returns:
        One row per model of ``board.summary`` (same order), one column per task type (in
        the order the types first appear in the benchmark) and ``Mean (TaskType)``; NaN
        where a model lacks a task the mean needs.
    """
    wide = board.wide(complete_only=False).reindex(columns=board.summary.index)
    types = pd.Series({t.task: t.type for t in board.spec.tasks})
    per_type = {
        kind: wide.loc[list(tasks.index)].mean(axis=0, skipna=False)
        for kind, tasks in types.groupby(types, sort=False)
    }
    out = pd.DataFrame(per_type, index=board.summary.index)
    out["Mean (TaskType)"] = out.mean(axis=1, skipna=False)
    return out


def leaderboard_columns(
    board: Leaderboard,
    *,
    models: Sequence[str] | None = None,
    min_zero_shot: float | None = None,
    keep_unknown: bool = False,
) -> pd.DataFrame:
    """The benchmark's leaderboard table with mteb's columns (see the module notes).

    Args:
        board: A loaded benchmark (``load_leaderboard(...)``).
        models: Only these models of the board (e.g. the complete ones), the Borda rank
            among them; None: every model.
        min_zero_shot: Keep only models whose zero-shot % on the benchmark is at least this (100:
            trained on none of its tasks); None keeps every model. The Borda rank is then among the
            models kept, as mteb's leaderboard ranks what its filters leave.
        keep_unknown: With ``min_zero_shot``, also keep the models whose training data
            mteb does not record (they are dropped otherwise, as mteb's "Remove Unknown").

    Returns:
        One row per model (index ``model``), sorted by ``Rank (Borda)``; ``complete``
        says whether the model has every task.

    Examples:
        ``tiny_results`` holds two models that mteb does not register (tests'
        ``tests/project/test_doctests.py``), so their zero-shot % is unknown:

        >>> from analysis import load_leaderboard
        >>> lb = load_leaderboard(tasks=["STSBenchmark", "SciFact", "AILAStatutes"],
        ...                       results=tiny_results, use_cache=False, workers=1)
        >>> table = leaderboard_columns(lb)
        >>> table[["Rank (Borda)", "Zero-shot", "Mean (Task)", "Mean (TaskType)"]]
               Rank (Borda)  Zero-shot  Mean (Task)  Mean (TaskType)
        model
        org/A             1       <NA>     0.533333             0.60
        org/B             2       <NA>     0.500000             0.55
        >>> len(leaderboard_columns(lb, min_zero_shot=100))  # unknown is not zero-shot
        0
    """
    summary = board.summary if models is None else board.summary.loc[list(models)]
    shot = zero_shot(summary.index, board.spec.task_names)
    if min_zero_shot is not None:
        keep = shot.ge(min_zero_shot).fillna(keep_unknown).astype(bool)
        summary, shot = summary[keep.to_numpy()], shot[keep]
    out = pd.DataFrame(index=summary.index)
    rank = mteb_borda_rank(board.scores, board.missing, summary.index)
    out["Rank (Borda)"] = pd.array([rank.get(m, pd.NA) for m in summary.index], dtype="Int64")
    out["Zero-shot"] = shot
    rows = [_meta_row(m) for m in summary.index]
    for column in (*META_COLUMNS, "Release Date"):
        values = [row.get(column) for row in rows]
        out[column] = pd.array(values, dtype="Int64" if column in INTEGERS else None)
    out["Mean (Task)"] = summary["mean_task"]
    types = type_means(board).reindex(summary.index)
    out["Mean (TaskType)"] = types.pop("Mean (TaskType)")
    if types.shape[1] > 1:
        out = out.join(types)
    if board.spec.scope_tasks("private"):
        out["Mean (Public)"] = summary["mean_public"]
        out["Mean (Private)"] = summary["mean_private"]
    out["complete"] = summary["complete"]
    out["Release Date"] = out.pop("Release Date")
    return out.sort_values(["Rank (Borda)"], kind="stable")


def shown_parameters(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its parameter counts as text, :data:`PARAMETER_DIGITS` figures (a display)."""
    out = table.copy()
    for column in META_COLUMNS[:2]:
        if column in out:
            out[column] = out[column].map(
                lambda v: pd.NA if pd.isna(v) else f"{v:.{PARAMETER_DIGITS}g}"
            )
    return out


def _meta_row(model: str) -> Mapping[str, Any]:
    """Mteb's formatted metadata of ``model`` (a renamed model followed), or an empty row."""
    found = registered_meta(model, follow_renames=True)
    return leaderboard_model_columns().get(found.name if found is not None else model, {})
