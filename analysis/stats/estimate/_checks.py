"""Input checks of :mod:`analysis.stats.estimate` and :mod:`analysis.stats.estimate.selection`.

Errors name the argument and the fix; pandas inputs align by label (tasks by the
reference's row names, models by its column names).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import UnknownTaskError, check_names
from .._checks import complete_score_matrix

#: Fewest reference models accepted.
MIN_REFERENCE_MODELS = 10


def _require_frame(reference: Any) -> None:
    if not isinstance(reference, pd.DataFrame):
        raise ValueError(
            "`reference` must be a pandas DataFrame of tasks x models (as "
            f"Leaderboard.wide() returns), got {type(reference).__name__}"
        )
    if reference.index.has_duplicates:
        raise ValueError("`reference` has duplicate task rows")


def _reference(
    reference: pd.DataFrame, rows: Sequence[str], *, caller: str
) -> tuple[np.ndarray, list[str], list[str]]:
    """Complete float matrix over ``rows`` (tasks) x kept models; checks scale and size."""
    matrix, models, _, order = complete_score_matrix(
        reference.loc[list(rows)], argname="reference", caller=caller, min_units=1, stacklevel=4
    )
    position = {label: i for i, label in enumerate(order)}  # rows come back sorted by label
    matrix = matrix[[position[row] for row in rows]]
    if np.abs(matrix).max(initial=0.0) > 1.0:
        raise ValueError(
            "`reference` holds values above 1: scores must be on the 0-1 scale of "
            "main_score (divide percentages by 100)"
        )
    if len(models) < MIN_REFERENCE_MODELS:
        raise ValueError(
            f"`reference` has {len(models)} complete model(s) on the tasks used; at least "
            f"{MIN_REFERENCE_MODELS} are needed to calibrate an interval"
        )
    return matrix, models, list(rows)


def _task_list(values: Any, available: Sequence[str], argname: str) -> list[str]:
    names = check_names(values, available, argname=argname, kind="task", error=UnknownTaskError)
    if not names:
        raise ValueError(f"`{argname}` must name at least one task")
    return names


def _observed(observed: Any, tasks: Sequence[str]) -> pd.Series:
    if isinstance(observed, pd.DataFrame) or not isinstance(observed, Mapping | pd.Series):
        raise ValueError(
            "`observed` must map task names to scores (a dict or a pandas Series indexed "
            f"by task), got {type(observed).__name__}"
        )
    series = pd.Series(observed, dtype=float)
    if series.index.has_duplicates:
        raise ValueError("`observed` names a task twice")
    if series.empty:
        raise ValueError("`observed` is empty: give the model's score on at least one task")
    unknown = [t for t in series.index if t not in set(tasks)]
    if unknown:
        check_names(unknown, tasks, argname="observed", kind="task", error=UnknownTaskError)
    bad = series.index[~np.isfinite(series.to_numpy())].tolist()
    if bad:
        raise ValueError(f"`observed` has no finite score for task(s) {bad}; leave them out")
    if (series.abs() > 1).any():
        raise ValueError(
            "`observed` holds values above 1: scores must be on the 0-1 scale of "
            "main_score (divide percentages by 100)"
        )
    return series


def _check_k(k: Any, n_candidates: int) -> int:
    integer = isinstance(k, numbers.Integral) and not isinstance(k, bool)
    if not integer or not 1 <= int(k) <= n_candidates:
        raise ValueError(f"`k` must be an integer from 1 to {n_candidates} (the candidate tasks)")
    return int(k)


def _type_codes(task_types: Any, tasks: Sequence[str]) -> tuple[np.ndarray | None, list[str]]:
    """Integer type codes of ``tasks`` and their type names ("" without types)."""
    if task_types is None:
        return None, [""] * len(tasks)
    if not isinstance(task_types, Mapping | pd.Series):
        raise ValueError("`task_types` must map task names to task types (dict or Series)")
    lookup = dict(task_types.items())
    missing = [t for t in tasks if t not in lookup]
    if missing:
        raise ValueError(f"`task_types` has no type for task(s) {missing}")
    names = [str(lookup[t]) for t in tasks]
    return np.unique(names, return_inverse=True)[1], names


def _leaked(reference: pd.DataFrame, obs: pd.Series, model: str | None) -> tuple[list[Any], str]:
    """Reference models that are the observed model, by name or by identical scores."""
    same_name = [model] if model is not None and model in reference.columns else []
    block = reference.loc[list(obs.index)]
    equal = (block.sub(obs, axis=0).abs() <= 1e-12).all(axis=0) & block.notna().all(axis=0)
    same_scores = [c for c in reference.columns[equal.to_numpy()] if c not in same_name]
    why = "by name" if same_name else "with identical scores on every observed task"
    return same_name + same_scores, why
