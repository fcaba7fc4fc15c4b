"""Task lists: which tasks, splits and subsets a benchmark score is computed over.

A :class:`BenchmarkSpec` is resolved from mteb's current benchmark definition, from a
*pin* (the definition of an older mteb release, stored in ``analysis/results/pins/*.json`` by
``tools/pin_benchmarks.py``), or from an explicit task list. Callers can include or
exclude tasks; everything that changes the answer is part of :meth:`BenchmarkSpec.key`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core import compat
from ..core.errors import UnknownNameError, UnknownTaskError, close_names, spell

PINS_DIR = Path(__file__).parent / "pins"
NOW = "now"


@dataclass(frozen=True)
class TaskSpec:
    """One task of a benchmark and the part of it that counts.

    Attributes:
        task: mteb task name.
        type: mteb task type (e.g. ``"Retrieval"``), from mteb's current registry.
        is_public: False for RTEB's closed datasets.
        eval_splits: splits averaged into the task score.
        hf_subsets: subsets averaged into the task score.

    Examples:
        >>> from analysis import TaskSpec
        >>> task = TaskSpec("SciFact", "Retrieval", True, ("test",), ("default",))
        >>> task.task, task.is_public
        ('SciFact', True)
    """

    task: str
    type: str
    is_public: bool
    eval_splits: tuple[str, ...]
    hf_subsets: tuple[str, ...]

    def to_mteb(self) -> Any:
        """Return the mteb task object restricted to these splits and subsets (memoised)."""
        return _mteb_task(self)


#: The task scopes of a benchmark (:meth:`BenchmarkSpec.scope_tasks`).
SCOPES = ("all", "public", "private")


@dataclass(frozen=True)
class BenchmarkSpec:
    """A named task list with its provenance.

    Attributes:
        name: benchmark name (or ``"custom"`` for an explicit task list).
        tasks: the tasks, in benchmark order.
        source: where the definition came from, e.g. ``"mteb 2.26.24"`` or
            ``"pin as-of-post (mteb 1.39.2)"``.
        excluded: tasks removed by the caller.

    Examples:
        Usually made by :func:`resolve_spec`; by hand:

        >>> from analysis import BenchmarkSpec, TaskSpec
        >>> a = TaskSpec("A", "Retrieval", True, ("test",), ("default",))
        >>> spec = BenchmarkSpec("toy", (a,), "by hand")
        >>> spec.task_names, spec.excluded
        (['A'], ())
    """

    name: str
    tasks: tuple[TaskSpec, ...]
    source: str
    excluded: tuple[str, ...] = field(default=())

    @property
    def task_names(self) -> list[str]:
        """Task names in benchmark order."""
        return [t.task for t in self.tasks]

    def scope_tasks(self, scope: str = "all") -> list[str]:
        """The task names of one scope, in benchmark order: the one owner of these lists.

        Raises:
            ValueError: another scope.

        Examples:
            >>> from analysis.results.specs import BenchmarkSpec, TaskSpec
            >>> a = TaskSpec("A", "Retrieval", True, ("test",), ("default",))
            >>> b = TaskSpec("B", "Retrieval", False, ("test",), ("default",))
            >>> spec = BenchmarkSpec("toy", (a, b), "by hand")
            >>> spec.scope_tasks("public"), spec.scope_tasks("private"), spec.scope_tasks()
            (['A'], ['B'], ['A', 'B'])
        """
        if scope not in SCOPES:
            raise ValueError(f"`scope` must be one of {list(SCOPES)}, got {scope!r}")
        wanted = {"all": None, "public": True, "private": False}[scope]
        return [t.task for t in self.tasks if wanted is None or t.is_public == wanted]

    def key(self) -> dict[str, Any]:
        """Everything about the spec that changes a loaded result (for cache keys)."""
        return {
            "name": self.name,
            "source": self.source,
            "tasks": [
                [t.task, t.type, t.is_public, list(t.eval_splits), list(t.hf_subsets)]
                for t in self.tasks
            ],
        }


@lru_cache(maxsize=4096)
def _mteb_task(spec: TaskSpec) -> Any:
    import mteb

    full = tuple(sorted(compat.task_registry()[spec.task].metadata.hf_subsets or ["default"]))
    # no subset filter when every subset counts: mteb's filter is slow
    subsets = None if tuple(sorted(spec.hf_subsets)) == full else list(spec.hf_subsets)
    return mteb.get_task(spec.task, eval_splits=list(spec.eval_splits), hf_subsets=subsets)


def available_pins() -> list[str]:
    """Names accepted by ``pin=``: ``"now"`` and the files in ``analysis/results/pins``.

    Examples:
        >>> from analysis import available_pins
        >>> available_pins()[:2]
        ['now', 'as-of-post']
    """
    return [NOW, *sorted(p.stem for p in PINS_DIR.glob("*.json"))]


@lru_cache(maxsize=16)
def _read_pin(pin: str) -> dict[str, Any]:
    path = Path(pin)
    if not path.suffix == ".json":
        path = PINS_DIR / f"{pin}.json"
    if not path.exists():
        raise UnknownNameError(
            f"Unknown pin {pin!r}. Closest: {close_names(pin, available_pins())}. "
            f"Valid pins: {available_pins()} or a path to a pin JSON written by "
            "tools/pin_benchmarks.py."
        )
    return json.loads(path.read_text(encoding="utf-8"))


def _task_spec(
    task_name: str, eval_splits: Sequence[str] | None, hf_subsets: Sequence[str] | None
) -> TaskSpec:
    registry = compat.task_registry()  # imported here anyway: a seen-names check buys nothing
    if task_name not in registry:
        raise UnknownTaskError(
            f"Unknown task {task_name!r}. Closest mteb task names: "
            f"{close_names(task_name, list(registry))}."
        )
    meta = registry[task_name].metadata
    splits = tuple(eval_splits) if eval_splits else tuple(meta.eval_splits)
    subsets = tuple(hf_subsets) if hf_subsets else tuple(meta.hf_subsets or ["default"])
    return TaskSpec(task_name, meta.type, bool(meta.is_public), splits, subsets)


def _spec_from_mteb(name: str) -> BenchmarkSpec:
    check_benchmark(name)
    import mteb

    tasks = tuple(
        TaskSpec(
            t.metadata.name,
            t.metadata.type,
            bool(t.metadata.is_public),
            tuple(t.eval_splits),
            tuple(sorted(t.hf_subsets)) if t.hf_subsets else ("default",),
        )
        for t in mteb.get_benchmark(name).tasks
    )
    return BenchmarkSpec(name, tasks, f"mteb {mteb.__version__}")


def check_benchmark(name: str, *, pin: str = NOW) -> None:
    """Refuse a benchmark that ``pin`` does not know, with the closest names.

    Imports no mteb where its names were seen with this version
    (:func:`analysis.core.compat.seen_names`).

    Raises:
        UnknownTaskError: not an mteb benchmark (``pin="now"``).
        UnknownNameError: not in the pin (or an unknown pin).
    """
    if pin == NOW:
        if (names := compat.seen_names("benchmarks")) is None:
            names = compat.benchmark_names()
        if name not in names:
            raise UnknownTaskError(
                f"Unknown benchmark {name!r}. Closest mteb benchmark names: "
                f"{close_names(name, sorted(names))}."
            )
        return
    benchmarks = _read_pin(pin)["benchmarks"]
    if name not in benchmarks:
        raise UnknownNameError(
            f"Benchmark {name!r} is not in pin {pin!r}. Closest: "
            f"{close_names(name, list(benchmarks))}. Pinned benchmarks: {sorted(benchmarks)}."
        )


def _spec_from_pin(name: str, pin: str) -> BenchmarkSpec:
    check_benchmark(name, pin=pin)
    data = _read_pin(pin)
    benchmarks = data["benchmarks"]
    tasks = tuple(
        _task_spec(r["task"], r["eval_splits"], r["hf_subsets"]) for r in benchmarks[name]
    )
    return BenchmarkSpec(name, tasks, f"pin {data['label']} (mteb {data['mteb_version']})")


def resolve_spec(
    benchmark: str | None = None,
    *,
    tasks: Sequence[str] | None = None,
    pin: str = NOW,
    include_tasks: Sequence[str] | None = None,
    exclude_tasks: Sequence[str] | None = None,
) -> BenchmarkSpec:
    """Resolve a benchmark name (or an explicit task list) to a :class:`BenchmarkSpec`.

    Args:
        benchmark: mteb benchmark name, e.g. ``"RTEB(beta)"``. Mutually exclusive with ``tasks``.
        tasks: explicit task names; each counts over mteb's default splits and subsets.
        pin: ``"now"`` for the installed mteb's definition, or a pin name/path for an
            older one (see :func:`available_pins`).
        include_tasks: tasks appended to the list (mteb's default splits and subsets).
        exclude_tasks: tasks removed from the list.

    Raises:
        ValueError: unknown benchmark, pin or task (with the closest valid names), or
            an exclusion that names a task not in the list.

    Examples:
        >>> from analysis import resolve_spec
        >>> spec = resolve_spec(tasks=["SciFact", "STSBenchmark"])
        >>> spec.name, spec.task_names, [t.type for t in spec.tasks]
        ('custom', ['SciFact', 'STSBenchmark'], ['Retrieval', 'STS'])
        >>> rteb = resolve_spec("RTEB(beta)", pin="as-of-post")
        >>> rteb.name, len(rteb.scope_tasks("public")) > 0, len(rteb.scope_tasks("private")) > 0
        ('RTEB(beta)', True, True)
    """
    if (benchmark is None) == (tasks is None):
        raise ValueError(
            "Pass exactly one of `benchmark` (a name) or `tasks` (a list of task names)."
        )
    if tasks is not None:
        if isinstance(tasks, str):
            raise ValueError("`tasks` must be a list of task names, not a string.")
        spec = BenchmarkSpec(
            "custom", tuple(_task_spec(t, None, None) for t in tasks), "explicit task list"
        )
    elif pin == NOW:
        spec = _spec_from_mteb(str(benchmark))
    else:
        spec = _spec_from_pin(str(benchmark), pin)
    added = [_task_spec(n, None, None) for n in include_tasks or [] if n not in spec.task_names]
    excluded = tuple(exclude_tasks or [])
    for name in excluded:
        if name not in spec.task_names:
            raise UnknownTaskError(
                f"`{spell('exclude_tasks').rstrip('=')}` names {name!r}, which is not in "
                f"{spec.name}. Closest: {close_names(name, spec.task_names)}."
            )
    task_list = [t for t in (*spec.tasks, *added) if t.task not in excluded]
    source = spec.source
    if include_tasks:
        source += f" + include {sorted(include_tasks)}"
    if excluded:
        source += f" - exclude {sorted(excluded)}"
    return BenchmarkSpec(spec.name, tuple(task_list), source, excluded)
