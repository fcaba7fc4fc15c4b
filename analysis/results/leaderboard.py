"""Leaderboard results as a tidy table, through ``mteb.ResultCache``'s rules.

:func:`load_leaderboard` turns results folders (the MTEB results repository, plus your own
runs) into a :class:`Leaderboard` (``scores``, ``missing``, ``summary``, ``provenance``).
Aggregation is mteb's own (:mod:`analysis.results.parsing`); a mean over a partial set of tasks is
NaN unless ``allow_partial_means=True``, and the completeness flags stay False. The folders are only
read (:mod:`analysis.results.folder`). What each table holds: ``docs/leaderboard.md``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.choices import OnConflict
from ..core.errors import (
    IncompleteBenchmarkWarning,
    ResultFileWarning,
    ResultsConflictWarning,
    UnknownNameError,
    UnknownTaskError,
    check_names,
)
from ..core.paths import default_cache_dir
from . import assemble
from .folder import ResultsFolders
from .parse_cache import KEPT_FIRST, Entry, cache_key, read_cache, write_cache
from .parsing import ENGINES, Engine
from .specs import NOW, BenchmarkSpec, available_pins, resolve_spec
from .summary import (
    blocking_message,
    blocking_tasks,
    complete_models,
    completeness_message,
    summarize,
)

#: What ``results=`` accepts: a folder, several, or a ready :class:`ResultsFolders`.
Results = str | Path | Sequence[str | Path] | ResultsFolders | None


@dataclass(frozen=True)
class Leaderboard:
    """Tidy leaderboard results for one benchmark (see the module docstring)."""

    spec: BenchmarkSpec
    scores: pd.DataFrame
    missing: pd.DataFrame
    summary: pd.DataFrame
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The benchmark name."""
        return self.spec.name

    def wide(
        self,
        *,
        is_public: bool | None = None,
        complete_only: bool = True,
        tasks: Sequence[str] | None = None,
    ) -> pd.DataFrame:
        """Scores as a tasks x models matrix (the unit of a paired test is the task).

        ``is_public`` keeps public (True) or private (False) tasks; ``complete_only`` drops
        models that miss a task of the selection (else gaps are NaN); ``tasks`` keeps only
        these tasks (in this order), so a model that has them all is compared even when
        it misses the benchmark's others.

        Raises:
            UnknownTaskError: a task of ``tasks`` is not in the benchmark.
        """
        scope = "all" if is_public is None else "public" if is_public else "private"
        names = self.spec.scope_tasks(scope)
        if tasks is not None:
            wanted = check_names(
                tasks,
                self.spec.task_names,
                argname=f"tasks (not in {self.name})",
                kind="task",
                error=UnknownTaskError,
            )
            names = [t for t in wanted if t in set(names)]
        wide = self.scores[self.scores["task"].isin(names)].pivot_table(
            index="task", columns="model", values="main_score", aggfunc="first"
        )
        wide = wide.reindex(names)
        if complete_only:
            wide = wide.dropna(axis=1, how="any")
        wide.columns.name = None
        return wide

    def complete_models(self, *scopes: str) -> list[str]:
        """Models with a score on every task of each scope (default ``"all"``), in summary order.

        ``complete_models("public", "private")`` is "complete on both sides"; an unknown
        scope is a ValueError.
        """
        columns = {"all": "complete", "public": "complete_public", "private": "complete_private"}
        unknown = [s for s in scopes if s not in columns]
        if unknown:
            raise ValueError(f"`scopes`: unknown scope(s) {unknown}; use {sorted(columns)}")
        wanted = [columns[scope] for scope in scopes or ("all",)]
        return list(self.summary.index[self.summary[wanted].astype(bool).all(axis=1)])


# --------------------------------------------------------------------------- loading


def _other_pins(spec: BenchmarkSpec, pin: str, options: dict[str, Any]) -> dict[str, BenchmarkSpec]:
    """The same benchmark under every other pin that defines it."""
    others = {}
    lists = {key: options.get(key) for key in ("include_tasks", "exclude_tasks")}
    for other in (p for p in available_pins() if p != pin):
        try:
            others[other] = resolve_spec(spec.name, pin=other, **lists)
        except UnknownNameError:  # the benchmark, or an excluded task, is not in that pin
            continue
    return others


def _warn_incomplete(
    boards: Sequence[Leaderboard], pins: Sequence[str | None], options: dict[str, Any]
) -> None:
    """Warn for each benchmark on which fewer than a quarter of the models are complete."""
    pending: list[tuple[Leaderboard, str, dict[str, BenchmarkSpec]]] = []
    for board, pin in zip(boards, pins, strict=True):
        if board.summary.empty:  # no model has any task of it: nothing to complete
            continue
        n_models, n_complete = len(board.summary), int(board.summary["complete"].sum())
        if pin is None or completeness_message(board.name, pin, n_complete, n_models, {}) is None:
            continue
        pending.append((board, pin, _other_pins(board.spec, pin, options)))
    # parse only the tasks (or task definitions) that the loaded boards do not hold
    held = [set(board.spec.tasks) for board, _, _ in pending]
    extra_specs = [
        BenchmarkSpec(
            f"{spec.name} ({other})", tuple(t for t in spec.tasks if t not in have), spec.source
        )
        for (_, _, others), have in zip(pending, held, strict=True)
        for other, spec in others.items()
    ]
    wanted = [s for s in extra_specs if s.tasks]
    with warnings.catch_warnings():  # files of tasks the caller did not ask for
        warnings.simplefilter("ignore", ResultFileWarning)
        warnings.simplefilter("ignore", ResultsConflictWarning)
        extra = iter(_load(wanted, [None] * len(wanted), **options) if wanted else [])
    specs = iter(extra_specs)
    for (board, pin, others), have in zip(pending, held, strict=True):
        counts = {}
        for other, spec in others.items():
            shared = {t.task for t in spec.tasks if t in have}
            parts = [board.scores[board.scores["task"].isin(shared)]]
            if next(specs).tasks:
                parts.append(next(extra).scores)
            counts[other] = len(complete_models(pd.concat(parts, ignore_index=True), spec))
        n_models, n_complete = len(board.summary), int(board.summary["complete"].sum())
        blocking = blocking_message(*blocking_tasks(board.scores, board.spec))
        message = completeness_message(board.name, pin, n_complete, n_models, counts, blocking)
        if message:
            warnings.warn(message, IncompleteBenchmarkWarning, stacklevel=4)


def _load(
    specs: Sequence[BenchmarkSpec],
    pins: Sequence[str | None],
    *,
    results: Results,
    models: Sequence[str] | None,
    allow_partial_means: bool,
    cache_dir: str | Path | None,
    use_cache: bool,
    download: bool | None,
    workers: int | None,
    engine: Engine,
    results_revision: str | None,
    results_remote: str | None,
    on_conflict: OnConflict = "error",
    include_tasks: Sequence[str] | None = None,
    exclude_tasks: Sequence[str] | None = None,
) -> list[Leaderboard]:
    """Load ``specs``; ``pins[i]`` (None for a ready spec) drives the completeness warning."""
    import mteb

    if engine not in ENGINES:
        raise ValueError(f"`engine` must be one of {ENGINES}, got {engine!r}")
    if on_conflict not in ("error", "first"):
        raise ValueError(f"`on_conflict` must be 'error' or 'first', got {on_conflict!r}")
    folders = ResultsFolders.resolve(
        results, download=download, revision=results_revision, remote=results_remote
    )
    inventories = folders.inventory()
    assemble.check_models(models, folders, inventories)
    models = sorted(set(models)) if models else None
    cache = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    identity = folders.cache_identity(inventories)
    keys = [
        cache_key(identity, spec, models, engine, mteb.__version__, on_conflict) for spec in specs
    ]
    hits = [read_cache(cache, key) if use_cache else None for key in keys]
    loaded: dict[int, Entry] = {i: hit for i, hit in enumerate(hits) if hit is not None}
    todo = [i for i in range(len(specs)) if i not in loaded]
    if todo:
        entries = assemble.parse_frames(
            folders, inventories, [specs[i] for i in todo], models, workers, engine, on_conflict
        )
        for i, entry in zip(todo, entries, strict=True):
            loaded[i] = entry
            if use_cache:
                write_cache(cache, keys[i], entry)
    results_info = folders.provenance(inventories)
    out: list[Leaderboard] = []
    for i, spec in enumerate(specs):
        scores, missing, noted = loaded[i]
        problems = [p for p in noted if p[0] != KEPT_FIRST]
        kept = [message for source, _, message in noted if source == KEPT_FIRST]
        if kept:  # also on a cache hit: the entry keeps which result it kept
            warnings.warn(
                assemble.kept_first_message(kept, folders), ResultsConflictWarning, stacklevel=3
            )
        for source, rel, message in problems:
            warnings.warn(
                f"Skipped unreadable result file {folders.label(source)}/{rel}: {message}",
                ResultFileWarning,
                stacklevel=3,
            )
        provenance = {
            "benchmark": spec.name,
            "task_list": spec.source,
            "n_tasks": len(spec.tasks),
            **results_info,
            "mteb_version": mteb.__version__,
            "models_filter": models,
            "engine": engine,
            "allow_partial_means": allow_partial_means,
            "cache": "hit" if i not in todo else "miss",
            "skipped_files": len(problems),
        }
        scores, missing = assemble.labelled(scores, folders), assemble.labelled(missing, folders)
        summary = summarize(scores, missing, spec, allow_partial_means=allow_partial_means)
        out.append(Leaderboard(spec, scores, missing, summary, provenance))
    if any(p is not None for p in pins):
        options = dict(
            results=folders,
            models=models,
            allow_partial_means=allow_partial_means,
            cache_dir=cache_dir,
            use_cache=use_cache,
            download=False,
            workers=workers,
            engine=engine,
            results_revision=None,
            results_remote=None,
            on_conflict=on_conflict,
            include_tasks=include_tasks,
            exclude_tasks=exclude_tasks,
        )
        _warn_incomplete(out, pins, options)
    return out


def load_leaderboards(
    benchmarks: Sequence[str | BenchmarkSpec],
    *,
    results: Results = None,
    models: Sequence[str] | None = None,
    pin: str = NOW,
    include_tasks: Sequence[str] | None = None,
    exclude_tasks: Sequence[str] | None = None,
    allow_partial_means: bool = False,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    download: bool | None = None,
    workers: int | None = None,
    engine: Engine = "fast",
    results_revision: str | None = None,
    results_remote: str | None = None,
    on_conflict: OnConflict = "error",
) -> dict[str, Leaderboard]:
    """Load several benchmarks in one pass over the results folders.

    Each result file is parsed once even when several benchmarks use its task.
    Arguments are those of :func:`load_leaderboard`; ``benchmarks`` may also hold
    ready :class:`~analysis.results.specs.BenchmarkSpec` objects (e.g. custom task lists).

    Returns:
        ``{benchmark name: Leaderboard}`` in the order given.

    Raises:
        ValueError: two benchmarks of the same name (custom task lists are all named
            ``"custom"``: name each, as in the example).

    Examples:
        ``tiny_results`` is a results folder of two models (``org/A``, ``org/B``) on three
        tasks, written by the tests (``tests/project/test_doctests.py``):

        >>> from dataclasses import replace
        >>> from analysis import load_leaderboards, resolve_spec
        >>> sts = replace(resolve_spec(tasks=["STSBenchmark"]), name="STS")
        >>> retrieval = replace(resolve_spec(tasks=["SciFact", "AILAStatutes"]), name="retrieval")
        >>> boards = load_leaderboards([sts, retrieval], results=tiny_results, use_cache=False,
        ...                            workers=1)
        >>> {name: board.wide().shape for name, board in boards.items()}
        {'STS': (1, 2), 'retrieval': (2, 2)}
    """
    specs = [
        b
        if isinstance(b, BenchmarkSpec)
        else resolve_spec(b, pin=pin, include_tasks=include_tasks, exclude_tasks=exclude_tasks)
        for b in benchmarks
    ]
    names = [spec.name for spec in specs]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(
            f"`benchmarks` holds {twice} more than once: each board is returned under its "
            "name, so one would be lost; give each custom task list its own name "
            "(dataclasses.replace(spec, name=...))"
        )
    boards = _load(
        specs,
        [None if isinstance(b, BenchmarkSpec) else pin for b in benchmarks],
        results=results,
        models=models,
        allow_partial_means=allow_partial_means,
        cache_dir=cache_dir,
        use_cache=use_cache,
        download=download,
        workers=workers,
        engine=engine,
        results_revision=results_revision,
        results_remote=results_remote,
        on_conflict=on_conflict,
        include_tasks=include_tasks,
        exclude_tasks=exclude_tasks,
    )
    return {board.name: board for board in boards}


def load_leaderboard(
    benchmark: str | None = None,
    *,
    tasks: Sequence[str] | None = None,
    results: Results = None,
    models: Sequence[str] | None = None,
    pin: str = NOW,
    include_tasks: Sequence[str] | None = None,
    exclude_tasks: Sequence[str] | None = None,
    allow_partial_means: bool = False,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    download: bool | None = None,
    workers: int | None = None,
    engine: Engine = "fast",
    results_revision: str | None = None,
    results_remote: str | None = None,
    on_conflict: OnConflict = "error",
) -> Leaderboard:
    """Load one benchmark's results as a :class:`Leaderboard`.

    Args:
        benchmark: mteb benchmark name, e.g. ``"RTEB(beta)"``; or pass ``tasks``.
        tasks: explicit task names instead of a benchmark.
        results: a results folder (an mteb ``ResultCache`` folder, a checkout of the
            results repository, or your own runs such as ``data/runs``), several folders
            to merge (a list, or one string with ``os.pathsep``), or a
            :class:`~analysis.results.folder.ResultsFolders`. None/"":
            ``$STATIC_RTEB_RESULTS``, else mteb's default cache, downloaded by mteb when
            empty. Offline, pass a local copy (e.g. ``../shared/mteb-cache``). Merged
            folders must not hold different results for one (model, revision, task).
        models: restrict to these model names (``org/name``); unknown names raise with
            the closest names.
        pin: ``"now"`` (installed mteb's task lists) or a pin such as ``"as-of-post"``.
        include_tasks: tasks added to the benchmark's list.
        exclude_tasks: tasks removed from it.
        allow_partial_means: opt in, by name, to means over incomplete task sets.
        cache_dir: where the parquet cache lives (never inside ``results``).
        use_cache: read and write the parquet cache.
        download: clone, pin or update the results repository; see
            :meth:`~analysis.results.folder.ResultsFolders.resolve`.
        workers: parsing processes (default: up to 2). 1 parses in this process.
        engine: ``"fast"`` (default) reads files with
            :mod:`analysis.results.fastparse`, proven equal to mteb's reader on every
            file of the results snapshot; ``"mteb"`` uses ``TaskResult.from_disk`` and
            ``BenchmarkResults.select_tasks`` (the reference, several times slower).
        results_revision: the results repository commit to read (a full SHA or a tag):
            mteb's default cache is fetched and checked out at it (network); a folder
            you give must be at it, or pass ``download=True``. Recorded in provenance.
        results_remote: the results repository URL to download from (default mteb's).
        on_conflict: merged folders holding different results for one (model, revision,
            task): ``"error"`` (default) raises :class:`ResultsConflictError` naming both
            files; ``"first"`` keeps the first folder's result with a
            :class:`ResultsConflictWarning` (e.g. your own rerun of a leaderboard model,
            equal up to float noise, beside the published results).

    Raises:
        ValueError: unknown benchmark, task or model (with the closest valid names).
        ResultsNotFoundError: missing or empty results folder.
        ResultsConflictError: two folders hold different results for one (model, revision, task).

    Examples:
        ``tiny_results`` is a results folder of two models (``org/A``, ``org/B``) on three
        tasks, written by the tests (``tests/project/test_doctests.py``); use your own folder or
        ``../shared/mteb-cache`` instead:

        >>> from analysis import load_leaderboard
        >>> lb = load_leaderboard(
        ...     tasks=["STSBenchmark", "SciFact", "AILAStatutes"], results=tiny_results,
        ...     use_cache=False, workers=1)
        >>> lb.wide()
                      org/A  org/B
        task
        STSBenchmark    0.8    0.7
        SciFact         0.6    0.5
        AILAStatutes    0.2    0.3
        >>> lb.complete_models()
        ['org/A', 'org/B']

        A benchmark by name: ``load_leaderboard("RTEB(beta)", results="../shared/mteb-cache")``.
    """
    spec = resolve_spec(
        benchmark, tasks=tasks, pin=pin, include_tasks=include_tasks, exclude_tasks=exclude_tasks
    )
    boards = _load(
        [spec],
        [pin if benchmark is not None else None],
        results=results,
        models=models,
        allow_partial_means=allow_partial_means,
        cache_dir=cache_dir,
        use_cache=use_cache,
        download=download,
        workers=workers,
        engine=engine,
        results_revision=results_revision,
        results_remote=results_remote,
        on_conflict=on_conflict,
        include_tasks=include_tasks,
        exclude_tasks=exclude_tasks,
    )
    return boards[0]
