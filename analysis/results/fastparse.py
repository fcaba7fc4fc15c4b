"""A fast reader of MTEB result files that gives what mteb's reader gives.

mteb reads a result file with ``TaskResult.from_disk`` (pydantic validation, and a ``json.dumps`` of
every score entry to check it is serialisable), and restricts it to a benchmark's splits and subsets
with ``TaskResult.validate_and_filter_scores`` (a ``model_dump`` of the whole result). That costs
about a millisecond per file, and a leaderboard has tens of thousands of files. The loader needs
only the task, the mteb version and the main scores, so:

* :func:`read_scores` parses a file with ``orjson`` and keeps it as plain dictionaries
  when ``from_disk`` would return it unchanged (:func:`analysis.core.compat.stored_as_is`,
  where mteb's rules are kept); any other file (legacy layouts, ``NaN`` tokens, unexpected
  types, old pair classification results) goes through ``TaskResult.from_disk`` itself,
  so legacy handling and errors stay mteb's.
* :func:`selected_score` scores a result restricted to a task as
  ``validate_and_filter_scores`` would restrict it, without building the restriction.

``tests/results/test_fastparse.py`` proves both equal to mteb's on every result file of the shared
results snapshot, and ``load_leaderboards(engine="mteb")`` keeps mteb's own path as the reference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..core import compat


def _load_current(path: str | Path) -> dict[str, Any] | None:
    """The parsed file when ``from_disk`` would return it unchanged, else None."""
    try:
        with open(path, "rb") as file:  # not Path(path): building one per file costs 10 us
            data = orjson.loads(file.read())
    except orjson.JSONDecodeError:
        return None  # e.g. NaN tokens, which json accepts and orjson does not
    return data if compat.stored_as_is(data) else None


def read_scores(path: str | Path) -> tuple[str, str | None, dict[str, list[Any]]]:
    """The task name, mteb version and scores of a result file, as ``TaskResult.from_disk``.

    Builds no ``TaskResult`` for a file ``from_disk`` would return unchanged (and so does
    not copy the ``mteb_version`` into each entry, which no score reads).

    Args:
        path: A ``<Task>.json`` result file.

    Returns:
        ``(task_name, mteb_version, scores)``.

    Raises:
        Exception: whatever ``TaskResult.from_disk`` raises for a file it cannot read.
    """
    data = _load_current(path)
    if data is not None:
        return data["task_name"], data["mteb_version"], data["scores"]
    from mteb.results import TaskResult

    result = TaskResult.from_disk(Path(path))
    return result.task_name, result.mteb_version, result.scores


@dataclass(frozen=True)
class TaskView:
    """What scoring needs of an mteb task, computed once per task.

    Attributes:
        splits: The evaluation splits.
        subsets: The task's subsets.
        aggregate: Whether the task aggregates others (only ``default`` counts).
        split_gaps: Per evaluation split, the sorted gap labels of a split without any of
            the task's subsets (shared, so such a split costs no string formatting).
    """

    splits: tuple[str, ...]
    subsets: frozenset[str]
    aggregate: bool
    split_gaps: dict[str, tuple[str, ...]]

    @classmethod
    def of(cls, task: Any) -> TaskView:
        """The view of an mteb task object."""
        splits = tuple(dict.fromkeys(task.eval_splits))
        subsets = sorted(set(task.hf_subsets))
        gaps = {
            split: tuple(f"{split}/{subset}" for subset in subsets)
            if subsets
            else (f"split {split!r} has no scores",)
            for split in splits
        }
        return cls(splits, frozenset(subsets), bool(task.is_aggregate), gaps)


def selected_score(scores: dict[str, list[Any]], task: Any) -> tuple[float, int, list[str]]:
    """Score a result restricted to a task, without building the restricted result.

    Equal to summing the finite main scores of ``result.validate_and_filter_scores(task)``
    in order and listing its NaN entries (tested on every file of the snapshot), at a
    fraction of the cost: no NaN entries are built for missing subsets.

    Args:
        scores: A result's ``scores`` (``TaskResult.scores``, or :func:`read_scores`'s).
        task: The mteb task object (its evaluation splits, subsets and
            ``is_aggregate`` define the selection), or its :class:`TaskView`.

    Returns:
        ``(sum of finite main scores, their count, gap labels)``; a gap label is
        ``"<split>/<subset>"`` for a missing or non-finite entry, or
        ``"split '<split>' has no scores"`` for a selected split without entries.
    """
    view = task if isinstance(task, TaskView) else TaskView.of(task)
    subsets, aggregate = view.subsets, view.aggregate
    total, count, gaps = 0.0, 0, []
    seen_splits = set()
    for split, entries in scores.items():
        if split not in view.split_gaps:
            continue
        seen_splits.add(split)
        seen = {"default"} if aggregate else set()
        kept = 0
        for entry in entries:
            subset = entry["hf_subset"]
            if not (subset == "default" if aggregate else subset in subsets):
                continue
            kept += 1
            seen.add(subset)
            score = entry.get("main_score")
            if score is None or not math.isfinite(score):
                gaps.append(f"{split}/{subset}")
            else:
                total += score
                count += 1
        if not kept and not aggregate:  # every subset absent (or none to have)
            gaps.extend(view.split_gaps[split])
            continue
        absent = subsets - seen if not (aggregate and "default" in seen) else set()
        gaps.extend(f"{split}/{subset}" for subset in absent)
        if not kept and not absent:
            gaps.append(f"split {split!r} has no scores")
    for split in view.splits:
        if split not in seen_splits:
            gaps.extend(view.split_gaps[split])
    return total, count, gaps
