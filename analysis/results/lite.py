"""Lite task lists: a few tasks that predict a benchmark's mean, with measured errors.

The lists live in ``analysis/results/lite_tasks.json``, written by ``tools/lite_tasks.py`` (never by
hand): for MTEB(eng, v2) at k = 4, 8 and 12 (free, and with every task type covered) and for
RTEB(beta)'s public tasks. Each list records how it was chosen (:func:`analysis.stats.select_tasks`
options), the reference it was chosen on (results fingerprint, task-list pin, number of models) and
what was measured on models the selection never saw (``cross_fit_selection``,
``benchmarks/_sim/held_out.py``): coverage of the 95% interval (all models and static models),
median half-width, median and 95th-percentile absolute error, in points (0-100).

Usage::

    from analysis.results.lite import lite_list
    lite = lite_list("MTEB(eng, v2)", 8)
    lite.tasks, lite.measured["median_half_width"]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import UnknownNameError, close_names

#: The committed lists.
LITE_PATH = Path(__file__).with_name("lite_tasks.json")


@dataclass(frozen=True)
class LiteList:
    """One lite task list.

    Attributes:
        benchmark: the benchmark (mteb name).
        target: ``"all"`` (the benchmark mean) or ``"public"`` (RTEB's public mean).
        k: number of tasks.
        types_covered: every task type of the benchmark keeps a task (or, with k below
            the number of types, the k tasks are of distinct types).
        tasks: the tasks, in order of choice.
        task_types: type of each task.
        options: the :func:`analysis.stats.select_tasks` options used.
        measured: held-out measurements (see the module docstring).
        n_models: reference models the list was selected on.
    """

    benchmark: str
    target: str
    k: int
    types_covered: bool
    tasks: tuple[str, ...]
    task_types: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    measured: dict[str, Any] = field(default_factory=dict)
    n_models: int = 0

    def options_for_select(self) -> dict[str, Any]:
        """The :func:`analysis.stats.select_tasks` options other than ``task_types``."""
        return {key: v for key, v in self.options.items() if key != "task_types"}

    @property
    def label(self) -> str:
        """``"MTEB(eng, v2) lite-8"`` (``"... public lite-4"``, ``"... lite-8 types"``)."""
        scope = " public" if self.target == "public" else ""
        return f"{self.benchmark}{scope} lite-{self.k}" + (" types" if self.types_covered else "")


def read_lite_file(path: str | Path | None = None) -> dict[str, Any]:
    """The whole JSON document (header and lists)."""
    return dict(json.loads(Path(path or LITE_PATH).read_text(encoding="utf-8")))


def lite_lists(path: str | Path | None = None) -> list[LiteList]:
    """Every committed lite list."""
    lists = read_lite_file(path)["lists"]
    return [LiteList(**{**entry, "tasks": tuple(entry["tasks"])}) for entry in lists]


def lite_list(
    benchmark: str,
    k: int,
    *,
    types_covered: bool = False,
    target: str = "all",
    path: str | Path | None = None,
) -> LiteList:
    """The committed list for a benchmark and k.

    Raises:
        UnknownNameError: no such list; the message names the lists there are.
    """
    lists, key = lite_lists(path), (benchmark, k, types_covered, target)
    for lite in lists:
        if (lite.benchmark, lite.k, lite.types_covered, lite.target) == key:
            return lite
    wanted = LiteList(benchmark, target, k, types_covered, ()).label
    raise UnknownNameError(
        f"no lite list {wanted!r}; there are: {', '.join(repr(x.label) for x in lists)} "
        f"(closest: {close_names(wanted, [x.label for x in lists])})"
    )


def matching_lite_list(
    benchmark: str, tasks: Sequence[str], *, path: str | Path | None = None
) -> LiteList | None:
    """The committed list of ``benchmark`` whose tasks are exactly ``tasks``, if any."""
    wanted = set(tasks)
    found = (x for x in lite_lists(path) if x.benchmark == benchmark and set(x.tasks) == wanted)
    return next(found, None)
