"""Which few tasks best predict a benchmark's mean? :func:`select_tasks`.

Greedy forward selection on the leave-one-model-out interval width (default), or MMTEB's
backward elimination of the most predictable task (``method="mmteb"``; mteb PR #1100).
Every step's error is measured on held-out models (the selection redone without each,
:mod:`._nested`); those errors also calibrate :func:`predict_benchmark` with
``selection=``. The statistics guide, "Selection"; measured in ``benchmarks/results/estimate.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._checks import _check_choice, _check_open_unit
from .._results import StatsResult
from ._checks import _check_k, _reference, _require_frame, _task_list, _type_codes
from ._conformal import leave_one_out_widths
from ._nested import nested_errors
from ._select import CRITERIA, forward_path, mmteb_path

_METHODS = ("forward", "mmteb")


@dataclass(frozen=True, repr=False)
class TaskSelectionResult(StatsResult):
    """Result of :func:`select_tasks`.

    Attributes:
        tasks: the k selected tasks (forward: in order of choice).
        steps: one row per step: ``step``, ``n_tasks`` (after the step), ``added``
            (forward) or ``dropped`` (MMTEB) task and its ``task_type``, ``criterion``
            (in-sample leave-one-out value; MMTEB: the dropped task's Spearman
            predictability) and the held-out measures after that step (NaN without
            validation): ``mae``, ``median_abs_error``, ``rmse``, ``q95_abs_error`` and
            ``half_width`` (median over held-out models of the interval calibrated on the
            others' errors). No coverage: on the same errors it is ``confidence_level``
            by construction (measure it on other models: ``tools/lite_tasks.py``).
        heldout: per reference model at the final step: ``model``, ``actual``,
            ``predicted``, ``error``, ``leverage``, ``half_width``.
        target_tasks: the tasks whose mean is predicted.
        models: the reference models used.
        method: what was done, in one sentence.
        confidence_level: level of the intervals.
        half_width: median held-out half-width at the final step (0-1 scale).
        candidates: the tasks the selection could choose from.
        options: the :func:`select_tasks` options it was made with, so it can be redone.
    """

    tasks: tuple[str, ...]
    steps: pd.DataFrame
    heldout: pd.DataFrame
    target_tasks: tuple[str, ...]
    models: tuple[str, ...]
    method: str
    confidence_level: float
    half_width: float
    candidates: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def k(self) -> int:
        """Number of selected tasks."""
        return len(self.tasks)

    def to_frame(self) -> pd.DataFrame:
        """The steps table."""
        return self.steps.copy()

    def chooser(self) -> Callable[[np.ndarray, np.ndarray], list[int]]:
        """The selection as a procedure: ``(X, y) -> chosen columns`` of the candidates."""
        options = dict(self.options)
        types, _ = _type_codes(options.get("task_types"), list(self.candidates))
        select = _selector(
            options["method"], int(options["k"]), options["criterion"], self.confidence_level, types
        )
        return lambda X, y: select(X, y)[-1]

    def redo(self, reference: pd.DataFrame, **changes: Any) -> TaskSelectionResult:
        """The same selection made on another reference (e.g. without a leaked model).

        Args:
            reference: the reference to select on.
            **changes: options to change (e.g. ``k``).
        """
        return select_tasks(
            reference,
            target_tasks=list(self.target_tasks),
            candidates=list(self.candidates),
            confidence_level=self.confidence_level,
            **{**self.options, **changes},
        )

    def _summary_lines(self) -> list[str]:
        return [
            f"k={self.k}, models={len(self.models)}, targets={len(self.target_tasks)}",
            "tasks=" + ", ".join(self.tasks),
            f"held-out: median half-width={100 * self.half_width:.2f} points",
            self.method[:86],
        ]


def _heldout_row(errors: np.ndarray, leverage: np.ndarray, level: float) -> dict[str, float]:
    ok = ~np.isnan(errors)
    e, lev = errors[ok], leverage[ok]
    if len(e) < 2:
        return dict.fromkeys(
            ("mae", "median_abs_error", "rmse", "q95_abs_error", "half_width"), np.nan
        )
    _, half, _ = leave_one_out_widths(e, lev, level)
    return {
        "mae": float(np.mean(np.abs(e))),
        "median_abs_error": float(np.median(np.abs(e))),
        "rmse": float(np.sqrt(np.mean(e**2))),
        "q95_abs_error": float(np.quantile(np.abs(e), 0.95)),
        "half_width": float(np.median(half)),
    }


def _selector(
    method: str, k: int, criterion: str, level: float, types: np.ndarray | None
) -> Callable[[np.ndarray, np.ndarray], list[list[int]]]:
    """The selection path ``(X, y) -> task sets after each step`` of the given options."""

    def select(X: np.ndarray, y: np.ndarray) -> list[list[int]]:
        if method == "forward":
            return forward_path(X, y, k, criterion=criterion, level=level, types=types)[0]
        return mmteb_path(X, k, types=types)[0]

    return select


def select_tasks(
    reference: pd.DataFrame,
    k: int,
    *,
    target_tasks: Sequence[str] | None = None,
    candidates: Sequence[str] | None = None,
    task_types: Mapping[str, str] | None = None,
    method: Literal["forward", "mmteb"] = "forward",
    criterion: Literal["width", "mse"] = "width",
    confidence_level: float = 0.95,
    validate: bool = True,
) -> TaskSelectionResult:
    """Choose k tasks that best predict a benchmark's mean, with held-out errors.

    Args:
        reference: tasks x models, scores 0-1 (as ``Leaderboard.wide()``). Models with
            a missing score on the tasks used are dropped with a ``DroppedModelsWarning``.
        k: number of tasks to choose.
        target_tasks: tasks whose mean is to be predicted (default: all rows).
        candidates: tasks that may be chosen (default: all rows; e.g. only the public
            tasks of RTEB).
        task_types: task -> type. When given, every type among the candidates keeps a
            task (as MMTEB never dropped the last task of a type); with k below the
            number of types, the k tasks are of distinct types.
        method: ``"forward"``: greedy forward selection, each step adding the task
            that minimizes ``criterion`` for least squares predicting the target mean,
            leave-one-model-out. ``"mmteb"``: MMTEB's backward elimination (drop the
            task best predicted from the others; Spearman, leave-one-model-out).
        criterion: ``"width"`` (the conformal half-width of the leave-one-out errors at
            ``confidence_level``: the interval a new model would get) or ``"mse"``.
        confidence_level: level of the intervals (criterion and held-out measures).
        validate: measure every step's error on held-out models: for each reference
            model the selection is redone without it (nested leave-one-model-out).

    Returns:
        TaskSelectionResult; pass it to :func:`predict_benchmark` as ``selection=`` to
        calibrate a new model's interval on these nested errors.

    Raises:
        UnknownTaskError: a target or candidate task is not in ``reference``.
        ValueError: fewer than 10 complete reference models, values above 1, k out of
            range, a candidate without a type, or an invalid option.

    Examples:
        A reference leaderboard of 30 models on 12 tasks (synthetic, as in
        :func:`predict_benchmark`'s example):

        >>> import numpy as np, pandas as pd
        >>> rng = np.random.default_rng(0)
        >>> scores = np.clip(rng.normal(0.6, 0.05, 30) + rng.normal(0, 0.02, (12, 30)), 0, 1)
        >>> reference = pd.DataFrame(scores, index=[f"task{i}" for i in range(12)],
        ...                          columns=[f"model{j}" for j in range(30)])
        >>> from analysis.stats import select_tasks
        >>> sel = select_tasks(reference, 3)
        >>> len(sel.tasks), set(sel.tasks) <= set(reference.index), len(sel.models)
        (3, True, 30)
    """
    method = _check_choice(method, "method", _METHODS)
    criterion = _check_choice(criterion, "criterion", CRITERIA)
    level = _check_open_unit(confidence_level, "confidence_level")
    _require_frame(reference)
    tasks_all = [str(t) for t in reference.index]
    target = _task_list(target_tasks, tasks_all, "target_tasks")
    cands = _task_list(candidates, tasks_all, "candidates")
    k = _check_k(k, len(cands))
    rows = list(dict.fromkeys([*cands, *target]))
    scores, models, tasks = _reference(reference, rows, caller="select_tasks")
    types, type_names = _type_codes(task_types, cands)
    cand_rows = [tasks.index(t) for t in cands]
    n = len(models)
    if method == "mmteb" and k == len(cands):
        raise ValueError("`k` must be below the number of candidates for method='mmteb'")
    if method == "mmteb" and types is not None and k < len(set(type_names)):
        raise ValueError(
            f"method='mmteb' never drops the last task of a type: `k` must be at least the "
            f"number of task types ({len(set(type_names))})"
        )
    if method == "mmteb" and len(cands) >= n - 1:
        raise ValueError(
            f"method='mmteb' regresses each of {len(cands)} candidates on the others: it "
            f"needs more reference models than candidates (got {n})"
        )

    select = _selector(method, k, criterion, level, types)
    y, X = scores[[tasks.index(t) for t in target]].mean(axis=0), scores[cand_rows].T
    if method == "forward":
        path, values = forward_path(X, y, k, criterion=criterion, level=level, types=types)
        moved = [p[-1] for p in path]
    else:
        path, values = mmteb_path(X, k, types=types)
        before = [list(range(len(cands))), *path[:-1]]
        moved = [next(c for c in b if c not in set(p)) for b, p in zip(before, path, strict=True)]
    if validate:
        err, lev = nested_errors(scores, tasks, cand_rows, target, select, len(path))
    else:
        err = lev = np.full((n, len(path)), np.nan)
    steps = pd.DataFrame(
        [
            {
                "step": i + 1,
                "n_tasks": len(p),
                "added": cands[moved[i]] if method == "forward" else "",
                "dropped": "" if method == "forward" else cands[moved[i]],
                "task_type": type_names[moved[i]],
                "criterion": values[i],
                **_heldout_row(err[:, i], lev[:, i], level),
            }
            for i, p in enumerate(path)
        ]
    )
    final = [cands[c] for c in path[-1]] if path else []
    heldout = pd.DataFrame(
        {"model": models, "actual": y, "predicted": y + err[:, -1], "error": err[:, -1]}
    )
    heldout["leverage"] = lev[:, -1]
    heldout["half_width"] = (
        leave_one_out_widths(err[:, -1], lev[:, -1], level)[1] if validate and path else np.nan
    )
    how = (
        f"greedy forward selection minimizing the leave-one-model-out {criterion} of least "
        "squares for the target mean"
        if method == "forward"
        else "MMTEB's backward elimination of the task best predicted from the others "
        "(leave-one-model-out least squares, Spearman)"
    )
    return TaskSelectionResult(
        tasks=tuple(final),
        steps=steps,
        heldout=heldout,
        target_tasks=tuple(target),
        models=tuple(models),
        method=(
            f"{k} of {len(cands)} tasks by {how}"
            + ("; task types covered" if types is not None else "")
            + (
                f"; held-out errors by nested leave-one-model-out over {n} models"
                if validate
                else "; not validated"
            )
        ),
        confidence_level=level,
        half_width=float(steps["half_width"].iloc[-1]) if len(steps) else np.nan,
        candidates=tuple(cands),
        options={
            "k": k,
            "method": method,
            "criterion": criterion,
            "task_types": None if task_types is None else {t: str(task_types[t]) for t in cands},
        },
    )
