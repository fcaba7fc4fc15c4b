"""A fast reader of MTEB result files that gives exactly what mteb's reader gives.

mteb reads a result file with ``TaskResult.from_disk`` (pydantic validation, and a
``json.dumps`` of every score entry to check it is serialisable), and restricts it to a
benchmark's splits and subsets with ``TaskResult.validate_and_filter_scores`` (a
``model_dump`` of the whole result). That costs about a millisecond per file, and a
leaderboard has tens of thousands of files.

This module does the same work with ``orjson`` and plain dictionaries:

* :func:`read_task_result` takes the fast route only for a file that ``from_disk``
  would return as is: every field of the type ``TaskResult`` declares (a string or
  null ``mteb_version``; ``evaluation_phases`` null or phases of exactly the declared
  keys and types), every score entry with ``main_score``, a string ``hf_subset`` and a
  list ``languages`` (so validation passes and no legacy conversion runs), and no
  pair-classification fix (mteb ≥ 1.12.48, or not a pair classification task). Any
  other file (legacy layouts, ``NaN`` tokens, unexpected types, old pair
  classification results) goes through ``TaskResult.from_disk`` itself, so legacy
  handling and errors stay mteb's.
* :func:`read_scores` is the loader's hot path: the same decision, but it returns only
  ``(task_name, mteb_version, scores)`` and builds no ``TaskResult`` on the fast route.
* :func:`select_task_scores` applies ``validate_and_filter_scores``'s rules: keep the
  task's evaluation splits and subsets (only ``default`` for aggregate tasks), and add
  a NaN entry for every missing subset and split. :func:`selected_score` scores that
  selection without building it.

``tests/results/test_fastparse.py`` proves both equal to mteb's, field by field, on every
result file of the shared results snapshot; ``load_leaderboards(engine="mteb")``
keeps mteb's own path as the reference.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from ..core import compat

#: Files written by an older mteb get legacy conversions in ``from_disk``.
_FIRST_PLAIN_VERSION = "1.12.48"
_NUMBER = (int, float)
#: ``mteb.timing.PhaseTiming``: the keys of one evaluation phase and whether each is a string.
_PHASE_KEYS = {"name": True, "start": False, "end": False, "split": True, "subset": True}


@lru_cache(maxsize=1024)
def _is_fixed_version(version: str) -> bool:
    """True when ``from_disk`` would fix pair-classification scores of this version."""
    from packaging.version import Version

    parsed = compat.parse_mteb_version_min(version)
    return parsed is not None and parsed < Version(_FIRST_PLAIN_VERSION)


@lru_cache(maxsize=4096)
def _pair_fix_unneeded(version: str, task_name: str) -> bool:
    """True when ``from_disk`` returns the validated file unchanged (no pair fix, no error)."""
    if not _is_fixed_version(version):
        return True
    task_type = compat.legacy_task_type(task_name)
    return task_type is not None and task_type != "PairClassification"


def _is_number_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, _NUMBER) and not isinstance(value, bool))


def _valid_scores(scores: Any) -> bool:
    """Every entry a dict with ``main_score``, a string ``hf_subset`` and a list ``languages``."""
    if not isinstance(scores, dict):
        return False
    for entries in scores.values():
        if type(entries) is not list:
            return False
        for e in entries:
            if (
                type(e) is not dict
                or "main_score" not in e
                or type(e.get("hf_subset")) is not str
                or type(e.get("languages")) is not list
            ):
                return False
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _valid_phases(phases: Any) -> bool:
    """``None``, or phases with exactly ``PhaseTiming``'s keys: strings, and numbers for times."""
    if phases is None:
        return True
    if type(phases) is not list:
        return False
    for phase in phases:
        if type(phase) is not dict or phase.keys() != _PHASE_KEYS.keys():
            return False
        for key, is_text in _PHASE_KEYS.items():
            if not (type(phase[key]) is str if is_text else _is_number(phase[key])):
                return False
    return True


def _current_format(data: Any) -> bool:
    """Whether ``from_disk`` would return ``data`` as is (plain pydantic validation).

    That holds when every field has the type ``TaskResult`` declares (so validation
    passes and no legacy conversion runs: ``mteb_version`` is present, a string or
    null) and no pair-classification fix applies (the file is from mteb ≥ 1.12.48,
    has a null or unparsable version, or is not a pair classification task).
    """
    if not isinstance(data, dict) or "mteb_version" not in data:
        return False
    version, task_name = data["mteb_version"], data.get("task_name")
    return (
        (version is None or isinstance(version, str))
        and isinstance(task_name, str)
        and isinstance(data.get("dataset_revision"), str)
        and "evaluation_time" in data
        and _is_number_or_none(data["evaluation_time"])
        and _is_number_or_none(data.get("kg_co2_emissions"))
        and _is_number_or_none(data.get("date"))
        and _valid_phases(data.get("evaluation_phases"))
        and _valid_scores(data.get("scores"))
        and (version is None or _pair_fix_unneeded(version, task_name))
    )


def _fast_result(data: dict[str, Any]) -> Any:
    """A ``TaskResult`` built without validation from data that passed :func:`_current_format`."""
    from mteb.results import TaskResult

    version = data["mteb_version"]
    if version is not None:  # TaskResult._backfill_per_subset_mteb_version
        for entries in data["scores"].values():
            for entry in entries:
                entry.setdefault("mteb_version", version)
    phases = data.get("evaluation_phases")
    return TaskResult.model_construct(
        dataset_revision=data["dataset_revision"],
        task_name=data["task_name"],
        mteb_version=version,
        scores=data["scores"],
        evaluation_time=_as_float(data["evaluation_time"]),
        kg_co2_emissions=_as_float(data.get("kg_co2_emissions")),
        date=_as_datetime(data.get("date")),
        evaluation_phases=None
        if phases is None
        else [
            {k: p[k] if is_text else float(p[k]) for k, is_text in _PHASE_KEYS.items()}
            for p in phases
        ],
    )


def _as_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _as_datetime(value: float | None) -> datetime.datetime | None:
    """A stored ``date`` number as pydantic reads it: UTC seconds (milliseconds if > 2e10)."""
    if value is None:
        return None
    seconds = value / 1000 if abs(value) > 2e10 else value
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)


def _load_current(path: str | Path) -> dict[str, Any] | None:
    """The parsed file when it takes the fast route (see :func:`_current_format`), else None."""
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # e.g. NaN tokens, which json accepts and orjson does not
    return data if _current_format(data) else None


def read_task_result(path: str | Path) -> Any:
    """Read one result file as ``mteb.results.TaskResult.from_disk`` would.

    Args:
        path: A ``<Task>.json`` result file.

    Returns:
        The ``TaskResult``.

    Raises:
        Exception: whatever ``TaskResult.from_disk`` raises for a file it cannot read.
    """
    data = _load_current(path)
    if data is not None:
        return _fast_result(data)
    from mteb.results import TaskResult

    return TaskResult.from_disk(Path(path))


def read_scores(path: str | Path) -> tuple[str, str | None, dict[str, list[Any]]]:
    """The task name, mteb version and scores of a result file, as :func:`read_task_result`.

    The loader needs nothing else, so the fast route builds no ``TaskResult`` (and does
    not backfill each entry's ``mteb_version``, which no score reads).

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


_NAN_ENTRIES: dict[tuple[str, tuple[str, ...]], dict[str, dict[str, Any]]] = {}


def _nan_entries(task: Any) -> dict[str, dict[str, Any]]:
    """Per subset of ``task``, the entry mteb adds when the subset is missing.

    Shared between results (never mutated), which saves building hundreds of thousands
    of identical dictionaries for the multilingual benchmarks. Keyed by name and subsets
    (hashing an mteb task serialises its whole metadata).
    """
    key = (task.metadata.name, tuple(task.hf_subsets))
    if key not in _NAN_ENTRIES:
        languages = task.metadata.hf_subsets_to_langscripts
        _NAN_ENTRIES[key] = {
            s: {"hf_subset": s, "main_score": math.nan, "languages": languages.get(s, [])}
            for s in task.hf_subsets
        }
    return _NAN_ENTRIES[key]


def select_task_scores(result: Any, task: Any) -> Any:
    """Restrict a result to a task's splits and subsets, as ``validate_and_filter_scores`` does.

    Args:
        result: A ``TaskResult``.
        task: The mteb task object (its ``eval_splits``, ``hf_subsets`` and
            ``is_aggregate`` define the selection).

    Returns:
        A new ``TaskResult`` (built without validation) whose ``scores`` hold exactly the
        task's splits; a missing subset or split is an entry with a NaN main score.
        Missing entries are added in sorted order (mteb adds them in set order).
    """
    splits = task.eval_splits
    subsets = set(task.hf_subsets)
    nan_entries = _nan_entries(task)
    aggregate = task.is_aggregate
    selected: dict[str, list[Any]] = {}
    for split, entries in result.scores.items():
        if split not in splits:
            continue
        if aggregate:
            kept = [e for e in entries if e["hf_subset"] == "default"]
            seen = {"default"}
        else:
            kept = [e for e in entries if e["hf_subset"] in subsets]
            seen = set()
        seen.update(e["hf_subset"] for e in kept)
        if seen != subsets and not (aggregate and "default" in seen):
            kept.extend(nan_entries[s] for s in sorted(subsets - seen))
        selected[split] = kept
    for split in sorted(set(splits) - set(selected)):
        selected[split] = [nan_entries[s] for s in sorted(subsets)]
    return type(result).model_construct(**{**_fields(result), "scores": selected})


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

    Equal to summing the finite main scores of ``select_task_scores(result, task)`` in
    order and listing its NaN entries (tested on every file of the snapshot), at a
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
    if len(seen_splits) < len(view.splits):
        for split in view.splits:
            if split not in seen_splits:
                gaps.extend(view.split_gaps[split])
    return total, count, gaps


def _fields(result: Any) -> dict[str, Any]:
    """A ``TaskResult``'s fields without a ``model_dump`` (which copies every score)."""
    names = type(result).model_fields
    return {name: getattr(result, name) for name in names if hasattr(result, name)}
