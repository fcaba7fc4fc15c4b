"""Leaderboard results as a tidy table, through ``mteb.ResultCache``.

:func:`load_leaderboard` turns a results folder (the MTEB results repository, plus
your own runs) into a :class:`Leaderboard`:

* ``scores``: one row per (model, task) with a complete score: model, revision, task,
  task_type, is_public, main_score (mteb's 0-1 scale);
* ``missing``: one row per (model, task) that the benchmark expects but that has no
  complete score, with the reason (no result file, missing subsets or splits);
* ``summary``: per model, Mean (Task), Mean (Public), Mean (Private), the Borda rank
  and explicit completeness flags;
* ``provenance``: results folder, its git commit or content fingerprint, mteb version,
  task-list source.

Aggregation is mteb's own: results are parsed by ``TaskResult.from_disk``, restricted
to the benchmark's splits and subsets by ``BenchmarkResults.select_tasks`` (which marks
missing subsets as NaN), revisions are merged by ``BenchmarkResults.join_revisions``,
and a task's score is the mean main score over its (split, subset) entries, as the
leaderboard computes it. A task with any missing entry has no score. The default
``engine="fast"`` does the same work on plain dictionaries
(:mod:`analysis.results.fastparse`, and ``join_revisions`` only where it could change
anything); ``tests/test_fastparse.py`` proves it equal to ``engine="mteb"``.

**Partial means are never reported as complete.** A mean over the public (private, all)
tasks is NaN unless the model has a score for every such task of the benchmark. Pass
``allow_partial_means=True`` to average whatever is there; the completeness columns
stay False so the result can't pass for a complete one.

**The results folder is only read.** The loader never writes into it; a parquet
cache keyed by the folder's content fingerprint, the task list, the model filter and
the mteb version lives in ``cache_dir`` (default ``$STATIC_RTEB_CACHE`` or
``~/.cache/static-rteb``).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import heapq
import json
import logging
import math
import os
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from .. import compat
from ..errors import (
    ResultFileWarning,
    ResultsNotFoundError,
    check_names,
    model_folder_name,
    model_name_from_folder,
)
from ..io import atomic_write_parquet, atomic_write_text
from . import fastparse
from .specs import NOW, BenchmarkSpec, TaskSpec, resolve_spec

LOADER_VERSION = 2  # bump when the cached frames change meaning
#: How result files are parsed: "fast" (orjson, proven equal) or "mteb" (the reference).
Engine = Literal["fast", "mteb"]
ENGINES: tuple[str, ...] = ("fast", "mteb")
SCORE_COLUMNS = ["model", "revision", "task", "task_type", "is_public", "main_score"]
MISSING_COLUMNS = ["model", "revision", "task", "task_type", "is_public", "reason"]
logger = logging.getLogger(__name__)


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

    def wide(self, *, is_public: bool | None = None, complete_only: bool = True) -> pd.DataFrame:
        """Scores as a tasks x models matrix (the unit of a paired test is the task).

        Args:
            is_public: keep only public (True) or private (False) tasks; None keeps both.
            complete_only: drop models that miss any task of the selection (so no
                column has a gap). With False, gaps are NaN.
        """
        tasks = [t for t in self.spec.tasks if is_public is None or t.is_public == is_public]
        names = [t.task for t in tasks]
        frame = self.scores[self.scores["task"].isin(names)]
        wide = frame.pivot_table(
            index="task", columns="model", values="main_score", aggfunc="first"
        )
        wide = wide.reindex(names)
        if complete_only:
            wide = wide.dropna(axis=1, how="any")
        wide.columns.name = None
        return wide

    def complete_models(self, *scopes: str) -> list[str]:
        """Models with a score on every task of each scope, in summary order.

        Args:
            *scopes: ``"all"``, ``"public"``, ``"private"``; none means ``"all"``.
                ``complete_models("public", "private")`` is "complete on both sides".

        Returns:
            Model names.

        Raises:
            ValueError: an unknown scope.
        """
        columns = {"all": "complete", "public": "complete_public", "private": "complete_private"}
        unknown = [s for s in scopes if s not in columns]
        if unknown:
            raise ValueError(f"`scopes`: unknown scope(s) {unknown}; use {sorted(columns)}")
        mask = pd.Series(True, index=self.summary.index)
        for scope in scopes or ("all",):
            mask &= self.summary[columns[scope]].astype(bool)
        return list(self.summary.index[mask])


# --------------------------------------------------------------------------- results folder


def resolve_results_dir(results: str | Path | None, *, download: bool | None = None) -> Path:
    """Return the mteb ``ResultCache`` folder to read, downloading it only when asked to.

    Args:
        results: a ``ResultCache`` folder (holding ``remote/results/...`` and/or
            ``results/...``). None or ``""`` means mteb's default cache
            (``$MTEB_CACHE`` or ``~/.cache/mteb``).
        download: with the default cache, download the results repository (mteb's own
            ``ResultCache.download_from_remote``, needs git and network) when it is not
            there yet. None means "yes for the default cache".

    Raises:
        ResultsNotFoundError: the folder is missing or holds no results; the message
            says how to get them online and offline.
    """
    if results is None or str(results) == "":
        import mteb

        default = mteb.ResultCache().cache_path
        if not (default / "remote" / "results").is_dir() and download is not False:
            logger.info("Downloading the MTEB results repository into %s", default)
            try:
                mteb.ResultCache(default).download_from_remote()
            except Exception as err:
                raise ResultsNotFoundError(
                    f"Could not download the MTEB results repository into {default} "
                    f"({type(err).__name__}: {err}). Offline? Point the results option at a local "
                    "copy of a ResultCache folder instead, e.g. `make figures "
                    "RESULTS=../shared/mteb-cache` or load_leaderboard(..., "
                    "results='../shared/mteb-cache')."
                ) from err
        path = default
    else:
        path = Path(results).expanduser()
    path = path.resolve()
    hint = (
        "Online: leave the results option empty and mteb downloads the results repository "
        "(mteb.ResultCache().download_from_remote(); `make figures`). Offline: point it at a "
        "local copy of a ResultCache folder, e.g. `make figures RESULTS=../shared/mteb-cache` "
        "or load_leaderboard(..., results='../shared/mteb-cache')."
    )
    if not path.is_dir():
        raise ResultsNotFoundError(f"Results folder {path} does not exist. {hint}")
    if (
        path.name in {"results", "remote"}
        and (path / "results").is_dir() is False
        and any(p.is_dir() and "__" in p.name for p in path.iterdir())
    ):
        raise ResultsNotFoundError(
            f"{path} looks like the inside of a results repository; pass the ResultCache "
            f"folder that contains remote/results/ instead (two levels up). {hint}"
        )
    if not _result_roots(path):
        raise ResultsNotFoundError(
            f"No MTEB results in {path}: expected remote/results/<org>__<model>/<revision>/"
            f"<Task>.json (the results repository) or results/... (your own runs). {hint}"
        )
    return path


def _result_roots(path: Path) -> list[Path]:
    roots = [path / "results", path / "remote" / "results"]
    return [r for r in roots if r.is_dir() and any(r.iterdir())]


def _git_commit(repo: Path) -> str | None:
    """The commit checked out in ``repo`` (read from .git without running git)."""
    head = repo / ".git" / "HEAD"
    if not head.is_file():
        return None
    ref = head.read_text().strip()
    if not ref.startswith("ref:"):
        return ref
    ref_path = repo / ".git" / ref.split(" ", 1)[1]
    if ref_path.is_file():
        return ref_path.read_text().strip()
    packed = repo / ".git" / "packed-refs"
    if packed.is_file():
        for line in packed.read_text().splitlines():
            if line.endswith(ref.split(" ", 1)[1]):
                return line.split(" ", 1)[0]
    return None


@dataclass(frozen=True)
class _Inventory:
    """Every result JSON under a ResultCache folder with its size and mtime."""

    root: Path
    files: tuple[tuple[str, int, int], ...]  # (relative path, size, mtime_ns)

    @cached_property
    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        for rel, size, mtime in self.files:
            digest.update(f"{rel}\0{size}\0{mtime}\n".encode())
        return digest.hexdigest()[:16]

    @cached_property
    def stable_fingerprint(self) -> str:
        """Relative paths and sizes only: equal on every machine holding the same files.

        Mtimes change with every copy or checkout, so provenance headers use this one;
        the parse cache keys on :attr:`fingerprint` (mtimes catch in-place edits).
        """
        digest = hashlib.sha256()
        for rel, size, _ in self.files:
            digest.update(f"{rel}\0{size}\n".encode())
        return digest.hexdigest()[:16]

    @cached_property
    def model_dirs(self) -> frozenset[str]:
        return frozenset(rel.rsplit("/", 3)[-3] for rel, _, _ in self.files)


def _scan(root: Path) -> _Inventory:
    """List ``<root>/{results,remote/results}/<model>/<revision>/<file>.json`` with stat info."""
    entries: list[tuple[str, int, int]] = []
    for base in _result_roots(root):
        prefix = base.relative_to(root).as_posix()
        with os.scandir(base) as models:
            for model in models:
                if not model.is_dir():
                    continue
                with os.scandir(model.path) as revisions:
                    for revision in revisions:
                        if not revision.is_dir():
                            continue
                        with os.scandir(revision.path) as files:
                            for f in files:
                                if f.name.endswith(".json") and f.is_file():
                                    st = f.stat()
                                    rel = f"{prefix}/{model.name}/{revision.name}/{f.name}"
                                    entries.append((rel, st.st_size, st.st_mtime_ns))
    entries.sort()
    return _Inventory(root, tuple(entries))


def results_fingerprint(results: str | Path) -> tuple[str, int]:
    """A ResultCache folder's stable fingerprint (relative paths and sizes) and file count."""
    inv = _scan(Path(results).expanduser().resolve())
    return inv.stable_fingerprint, len(inv.files)


def _select_paths(inv: _Inventory, task_names: set[str], models: Sequence[str] | None) -> list[str]:
    wanted_models = {model_folder_name(m) for m in models} if models else None
    root = inv.root.as_posix()
    paths = []
    for rel, _, _ in inv.files:
        _, model, _, filename = rel.rsplit("/", 3)
        stem = filename[: -len(".json")]
        if stem == "model_meta" or stem not in task_names:
            continue
        if wanted_models is not None and model not in wanted_models:
            continue
        paths.append(f"{root}/{rel}")
    return paths


def _check_models(models: Sequence[str] | None, inv: _Inventory) -> None:
    """Raise :class:`~analysis.errors.UnknownModelError` for models without results."""
    if not models:
        return
    if isinstance(models, str):
        raise ValueError("`models` must be a list of model names, not a string.")
    missing = [m for m in models if model_folder_name(m) not in inv.model_dirs]
    if missing:
        available = [model_name_from_folder(d) for d in sorted(inv.model_dirs)]
        check_names(missing, available, argname=f"models (no results in {inv.root})")


# --------------------------------------------------------------------------- parsing


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while parsing tens of thousands of files.

    Parsing allocates millions of dicts and lists that all stay alive, so each collection
    finds nothing to free yet rescans everything already built: about half of a cold
    load's CPU time (benchmarks/results/loader.md). Reference counting still frees
    everything else as usual, and the previous state is restored afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def _quiet_mteb() -> Iterator[None]:
    """Silence mteb's per-file 'Missing subsets' logging; we report them as `missing` rows."""
    loggers = [logging.getLogger(n) for n in ("mteb", "mteb.results", "mteb._log_once")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


_ModelKey = tuple[str, str]


def _folder_identity(folder: str, folders: dict[str, Any], problems: list[str]) -> Any:
    """``(name, revision, experiment, meta)`` of a revision folder, None to skip it (memoised)."""
    if folder not in folders:
        meta_file = os.path.join(folder, "model_meta.json")
        if not os.path.isfile(meta_file):
            folders[folder] = None
        else:
            try:
                folders[folder] = compat.model_name_and_revision_from_folder(Path(folder))
            except Exception as err:
                problems.append(f"{meta_file}: {type(err).__name__}: {err}")
                folders[folder] = None
    return folders[folder]


def _read_files(
    paths: Sequence[str], read: Any
) -> tuple[dict[_ModelKey, list[Any]], dict[_ModelKey, Any], list[str]]:
    """Read result files with ``read``, grouped by model; unreadable files become problems.

    Model identity and experiment handling follow ``ResultCache.load_results`` (default
    arguments): the name and revision come from ``model_meta.json``, folders without
    one are skipped, and experiment variants are left out.
    """
    problems: list[str] = []
    by_model: dict[_ModelKey, list[Any]] = defaultdict(list)
    metas: dict[_ModelKey, Any] = {}
    folders: dict[str, Any] = {}
    for path in paths:
        identity = _folder_identity(os.path.dirname(path), folders, problems)
        if identity is None or identity[2] is not None:
            continue
        try:
            result = read(path)
        except Exception as err:
            problems.append(f"{path}: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
            continue
        key = (identity[0], identity[1])
        by_model[key].append(result)
        metas.setdefault(key, identity[3])
    return by_model, metas, problems


def _benchmark_results(by_model: dict[_ModelKey, list[Any]], metas: dict[_ModelKey, Any]) -> Any:
    """``BenchmarkResults`` of task results grouped by (model name, revision)."""
    from mteb.results import BenchmarkResults, ModelResult

    model_results = [
        ModelResult.model_construct(
            model_name=name,
            model_revision=revision,
            task_results=results,
            experiment_name=None,
            model_meta=metas[(name, revision)],
            exceptions=None,
        )
        for (name, revision), results in by_model.items()
    ]
    return BenchmarkResults.model_construct(model_results=model_results, benchmark=None)


def _entries_score(task_result: Any) -> tuple[float, int, list[str]]:
    """Sum and count of the finite main scores of a restricted result, and its gaps."""
    total, count, gaps = 0.0, 0, []
    for split, entries in task_result.scores.items():
        if not entries:
            gaps.append(f"split {split!r} has no scores")
        for entry in entries:
            score = entry.get("main_score")
            if score is None or not math.isfinite(score):
                gaps.append(f"{split}/{entry.get('hf_subset', 'default')}")
            else:
                total += score
                count += 1
    return total, count, gaps


def _score_or_reason(total: float, count: int, gaps: list[str]) -> tuple[float, str | None]:
    """Mean main score over a task's (split, subset) entries, or why there is none.

    The reason names at most five gaps, in sorted order (so it does not depend on the
    order in which a reader added the missing entries).
    """
    if gaps:
        more = f" and {len(gaps) - 5} more" if len(gaps) > 5 else ""
        return float("nan"), "missing " + ", ".join(heapq.nsmallest(5, gaps)) + more
    if not count:
        return float("nan"), "no scores in the result file"
    return total / count, None


class _Rows:
    """Score rows and missing rows of one benchmark, as the frames want them."""

    def __init__(self, spec: BenchmarkSpec) -> None:
        self.by_name = {t.task: t for t in spec.tasks}
        self.scores: list[tuple[Any, ...]] = []
        self.missing: list[tuple[Any, ...]] = []

    def add(self, model: str, revision: Any, task_name: str, scored: tuple[Any, ...]) -> None:
        task: TaskSpec = self.by_name[task_name]
        score, reason = _score_or_reason(*scored)
        base = (model, revision, task.task, task.type, task.is_public)
        if reason is None:
            self.scores.append((*base, score))
        else:
            self.missing.append((*base, reason))

    def add_joined(self, joined: Any, scored: dict[int, tuple[float, int, list[str]]]) -> None:
        """Rows of ``BenchmarkResults.join_revisions()``'s output; ``scored`` by result id."""
        for model_result in joined:
            for task_result in model_result.task_results:
                self.add(
                    model_result.model_name,
                    model_result.model_revision,
                    task_result.task_name,
                    scored[id(task_result)],
                )

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        return (
            pd.DataFrame(self.scores, columns=SCORE_COLUMNS),
            pd.DataFrame(self.missing, columns=MISSING_COLUMNS),
        )


def _extract_mteb(bench_results: Any, spec: BenchmarkSpec) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, task) scores of ``spec`` through ``select_tasks`` and ``join_revisions``."""
    selected = bench_results.select_tasks([t.to_mteb() for t in spec.tasks])
    scored = {id(r): _entries_score(r) for m in selected for r in m.task_results}
    rows = _Rows(spec)
    rows.add_joined(selected.join_revisions(), scored)
    return rows.frames()


def _needs_join(
    name_count: int, revision: Any, task_names: list[str], views: dict[str, Any]
) -> bool:
    """Whether ``join_revisions`` could do more for a model than pass its results through.

    It passes them through unchanged when the model name has one revision among the
    selected results, the revision is a string (a None revision is dropped by its
    ``groupby``), no task appears twice (no conflict to settle), and every task has
    evaluation splits (a result without selected scores is dropped).
    """
    return (
        name_count > 1
        or not isinstance(revision, str)
        or len(set(task_names)) != len(task_names)
        or not all(views[t].splits for t in task_names)
    )


def _extract_fast(
    by_model: dict[_ModelKey, list[tuple[str, Any, Any]]],
    metas: dict[_ModelKey, Any],
    spec: BenchmarkSpec,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, task) scores of ``spec`` from :func:`fastparse.read_scores` records.

    Each record is scored with :func:`~analysis.results.fastparse.selected_score`.
    Models for which ``join_revisions`` could change anything (:func:`_needs_join`)
    go through it, with a light stand-in per result (same task name and mteb version
    and, as after ``select_tasks``, one score list per evaluation split); the others
    skip it. ``tests/test_fastparse.py`` proves the frames equal to the mteb engine's.
    """
    from mteb.results import TaskResult

    views = {t.task: fastparse.TaskView.of(t.to_mteb()) for t in spec.tasks}
    selected = {}
    for key, records in by_model.items():
        kept = [r for r in records if r[0] in views]
        if kept:
            selected[key] = kept
    name_counts = Counter(name for name, _ in selected)
    rows = _Rows(spec)
    to_join: dict[_ModelKey, list[Any]] = {}
    scored: dict[int, tuple[float, int, list[str]]] = {}
    for (name, revision), records in selected.items():
        names = [r[0] for r in records]
        if not _needs_join(name_counts[name], revision, names, views):
            for task_name, _, scores in records:
                scored_here = fastparse.selected_score(scores, views[task_name])
                rows.add(name, revision, task_name, scored_here)
            continue
        stand_ins = []
        for task_name, version, scores in records:
            light = TaskResult.model_construct(
                task_name=task_name,
                mteb_version=version,
                scores={split: [] for split in views[task_name].splits},
            )
            scored[id(light)] = fastparse.selected_score(scores, views[task_name])
            stand_ins.append(light)
        to_join[(name, revision)] = stand_ins
    if to_join:
        rows.add_joined(_benchmark_results(to_join, metas).join_revisions(), scored)
    return rows.frames()


def _load_chunk(
    paths: list[str], specs: list[BenchmarkSpec], engine: Engine = "fast"
) -> tuple[list[pd.DataFrame], list[pd.DataFrame], list[str]]:
    """Parse ``paths`` once and extract every benchmark of ``specs`` from them.

    ``engine="mteb"`` reads every file with ``TaskResult.from_disk`` and filters with
    mteb; ``"fast"`` reads with :func:`analysis.results.fastparse.read_scores`, which
    gives the same results.
    """
    from mteb.results import TaskResult

    with _quiet_mteb(), _gc_paused():
        if engine == "fast":
            by_model, metas, problems = _read_files(paths, fastparse.read_scores)
            frames = [_extract_fast(by_model, metas, spec) for spec in specs]
        else:
            by_model, metas, problems = _read_files(paths, lambda p: TaskResult.from_disk(Path(p)))
            bench_results = _benchmark_results(by_model, metas)
            frames = [_extract_mteb(bench_results, spec) for spec in specs]
    return [f[0] for f in frames], [f[1] for f in frames], problems


def _chunks_by_model(paths: list[str], n_chunks: int) -> list[list[str]]:
    """Split paths into balanced chunks; one model never spans two (revisions join per model)."""
    by_model: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        by_model[p.rsplit("/", 3)[-3]].append(p)
    chunks: list[list[str]] = [[] for _ in range(n_chunks)]
    for _, group in sorted(by_model.items(), key=lambda kv: -len(kv[1])):
        min(chunks, key=len).extend(group)
    return [c for c in chunks if c]


def _parse_all(
    paths: list[str], specs: list[BenchmarkSpec], workers: int, engine: Engine = "fast"
) -> tuple[list[pd.DataFrame], list[pd.DataFrame], list[str]]:
    if workers <= 1 or len(paths) < 200:
        return _load_chunk(paths, specs, engine)
    chunks = _chunks_by_model(paths, workers * 4)
    scores: list[list[pd.DataFrame]] = [[] for _ in specs]
    missing: list[list[pd.DataFrame]] = [[] for _ in specs]
    problems: list[str] = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        for s, m, p in pool.map(_load_chunk, chunks, [specs] * len(chunks), [engine] * len(chunks)):
            for i in range(len(specs)):
                scores[i].append(s[i])
                missing[i].append(m[i])
            problems.extend(p)
    return (
        [pd.concat(s, ignore_index=True) for s in scores],
        [pd.concat(m, ignore_index=True) for m in missing],
        problems,
    )


# --------------------------------------------------------------------------- summary


def _borda_rank(scores: pd.DataFrame, models: Sequence[str]) -> pd.Series:
    """Borda rank as mteb's leaderboard computes it (``_borda_rank_from_long``).

    Per task, models with a score are ranked (higher is better, ties get the average
    rank) and earn ``n_models - rank`` points; a missing task earns 0. Points are
    summed and ranked with ties sharing the best ("min") rank.
    """
    n_models = len(models)
    if scores.empty:
        return pd.Series(1, index=pd.Index(models, name="model"), dtype="int64")
    ranks = scores.groupby("task")["main_score"].rank(method="average", ascending=False)
    points = (n_models - ranks).groupby(scores["model"]).sum().reindex(models, fill_value=0.0)
    return points.rank(method="min", ascending=False).astype("int64")


def _mean(have: dict[str, float], tasks: set[str], allow_partial: bool) -> float:
    """Mean of ``have`` over ``tasks``; NaN if one is missing, unless partial means are allowed."""
    vals = [have[t] for t in tasks if t in have]
    if not tasks or not vals or (len(vals) < len(tasks) and not allow_partial):
        return float("nan")
    return float(np.mean(vals))


def summarize(
    scores: pd.DataFrame,
    missing: pd.DataFrame,
    spec: BenchmarkSpec,
    *,
    allow_partial_means: bool = False,
) -> pd.DataFrame:
    """Per-model summary: means, Borda rank and explicit completeness.

    Args:
        scores: the loader's long table.
        missing: the loader's missing table.
        spec: the benchmark's task list (defines what "complete" means).
        allow_partial_means: average over the available tasks when some are missing.
            Off by default: a mean over a partial set of tasks is NaN.

    Returns:
        One row per model (sorted by Borda rank) with columns ``revision``,
        ``n_tasks``/``n_expected``, ``n_public``/``n_public_expected``,
        ``n_private``/``n_private_expected``, ``complete``, ``complete_public``,
        ``complete_private``, ``missing_tasks``, ``mean_task``, ``mean_public``,
        ``mean_private``, ``borda_rank``, ``partial_means``.
    """
    public = {t.task for t in spec.tasks if t.is_public}
    private = {t.task for t in spec.tasks if not t.is_public}
    expected = public | private
    # plain Python over the columns: per-model pandas indexing costs seconds at 400 models
    have_by_model: dict[str, dict[str, float]] = defaultdict(dict)
    revisions_by_model: dict[str, set[str]] = defaultdict(set)
    for model, revision, task, score in zip(
        scores["model"].tolist(),
        scores["revision"].tolist(),
        scores["task"].tolist(),
        scores["main_score"].tolist(),
        strict=True,
    ):
        have_by_model[model][task] = score
        revisions_by_model[model].add(str(revision))
    missing_revisions: dict[str, set[str]] = defaultdict(set)
    for model, revision in zip(
        missing["model"].tolist(), missing["revision"].tolist(), strict=True
    ):
        missing_revisions[model].add(str(revision))
    models = sorted(set(have_by_model) | set(missing_revisions))
    out = []
    for model in models:
        have = have_by_model.get(model, {})
        revisions = sorted(revisions_by_model.get(model, set())) or sorted(
            missing_revisions.get(model, set())
        )

        n_pub = len(public & have.keys())
        n_priv = len(private & have.keys())
        out.append(
            {
                "model": model,
                "revision": ";".join(revisions),
                "n_tasks": n_pub + n_priv,
                "n_expected": len(expected),
                "n_public": n_pub,
                "n_public_expected": len(public),
                "n_private": n_priv,
                "n_private_expected": len(private),
                "complete": n_pub + n_priv == len(expected),
                "complete_public": n_pub == len(public),
                "complete_private": n_priv == len(private),
                "missing_tasks": ";".join(t for t in spec.task_names if t not in have),
                "mean_task": _mean(have, expected, allow_partial_means),
                "mean_public": _mean(have, public, allow_partial_means),
                "mean_private": _mean(have, private, allow_partial_means),
                "partial_means": bool(allow_partial_means),
            }
        )
    summary = pd.DataFrame(out)
    if summary.empty:
        return summary
    summary["borda_rank"] = _borda_rank(scores, models).to_numpy()
    return summary.sort_values(["borda_rank", "model"]).set_index("model")


# --------------------------------------------------------------------------- public API


def default_cache_dir() -> Path:
    """``$STATIC_RTEB_CACHE`` or ``~/.cache/static-rteb``: where parsed results are cached."""
    env = os.environ.get("STATIC_RTEB_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "static-rteb"


def _cache_key(
    inv: _Inventory, spec: BenchmarkSpec, models: Sequence[str] | None, engine: Engine
) -> str:
    import mteb

    payload = {
        "loader": LOADER_VERSION,
        "mteb": mteb.__version__,
        "results": str(inv.root),
        "fingerprint": inv.fingerprint,
        "spec": spec.key(),
        "models": sorted(models) if models else None,
        "engine": engine,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:24]


def _read_cache(folder: Path, key: str) -> tuple[pd.DataFrame, pd.DataFrame, list[str]] | None:
    manifest = folder / f"{key}.json"
    if not manifest.is_file():
        return None
    try:
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        scores = pd.read_parquet(folder / f"{key}-scores.parquet")
        missing = pd.read_parquet(folder / f"{key}-missing.parquet")
    except Exception as err:  # a damaged cache entry is rebuilt, never trusted
        logger.warning("Ignoring damaged cache entry %s: %s", manifest, err)
        return None
    return scores, missing, list(meta.get("problems", []))


def _write_cache(
    folder: Path, key: str, scores: pd.DataFrame, missing: pd.DataFrame, problems: list[str]
) -> None:
    atomic_write_parquet(folder / f"{key}-scores.parquet", scores)
    atomic_write_parquet(folder / f"{key}-missing.parquet", missing)
    # The manifest goes last: an entry counts only once all its files are in place.
    atomic_write_text(folder / f"{key}.json", json.dumps({"problems": problems}))


def _fill_never_loaded(
    missing: pd.DataFrame, scores: pd.DataFrame, spec: BenchmarkSpec, models: Sequence[str] | None
) -> pd.DataFrame:
    """Add 'no result file' rows for every expected (model, task) with neither score nor reason."""
    seen = set(zip(scores["model"], scores["task"], strict=True)) | set(
        zip(missing["model"], missing["task"], strict=True)
    )
    all_models = sorted(set(scores["model"]) | set(missing["model"]) | set(models or []))
    revision = {
        **dict(zip(missing["model"], missing["revision"], strict=True)),
        **dict(zip(scores["model"], scores["revision"], strict=True)),
    }
    extra = [
        (m, revision.get(m), t.task, t.type, t.is_public, "no result file")
        for m in all_models
        for t in spec.tasks
        if (m, t.task) not in seen
    ]
    if not extra:
        return missing
    return pd.concat([missing, pd.DataFrame(extra, columns=MISSING_COLUMNS)], ignore_index=True)


def load_leaderboards(
    benchmarks: Sequence[str | BenchmarkSpec],
    *,
    results: str | Path | None = None,
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
) -> dict[str, Leaderboard]:
    """Load several benchmarks in one pass over the results folder.

    Each result file is parsed once even when several benchmarks use its task.
    Arguments are those of :func:`load_leaderboard`; ``benchmarks`` may also hold
    ready :class:`~analysis.results.specs.BenchmarkSpec` objects (e.g. custom task lists).

    Returns:
        ``{benchmark name: Leaderboard}`` in the order given.
    """
    specs = [
        b
        if isinstance(b, BenchmarkSpec)
        else resolve_spec(b, pin=pin, include_tasks=include_tasks, exclude_tasks=exclude_tasks)
        for b in benchmarks
    ]
    if engine not in ENGINES:
        raise ValueError(f"`engine` must be one of {ENGINES}, got {engine!r}")
    root = resolve_results_dir(results, download=download)
    inv = _scan(root)
    _check_models(models, inv)
    models = sorted(set(models)) if models else None
    folder = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    keys = [_cache_key(inv, spec, models, engine) for spec in specs]
    loaded: dict[int, tuple[pd.DataFrame, pd.DataFrame, list[str]]] = {}
    if use_cache:
        for i, key in enumerate(keys):
            hit = _read_cache(folder, key)
            if hit is not None:
                loaded[i] = hit
    todo = [i for i in range(len(specs)) if i not in loaded]
    if todo:
        task_names = {t for i in todo for t in specs[i].task_names}
        paths = _select_paths(inv, task_names, models)
        # two forked parsers: measured faster than one, idle and beside two CPU-bound
        # processes alike (benchmarks/results/loader.md)
        n_workers = workers if workers is not None else min(2, os.cpu_count() or 1)
        for i in todo:  # build mteb task objects once, before forking workers
            for task in specs[i].tasks:
                task.to_mteb()
        scores_l, missing_l, problems = _parse_all(
            paths, [specs[i] for i in todo], n_workers, engine
        )
        for j, i in enumerate(todo):
            stems = {*specs[i].task_names, "model_meta"}
            own = [p for p in problems if Path(p.split(":", 1)[0]).stem in stems]
            sc = scores_l[j].sort_values(["model", "task"], ignore_index=True)
            mi = _fill_never_loaded(missing_l[j], sc, specs[i], models)
            mi = mi.sort_values(["model", "task"], ignore_index=True)
            mi["revision"] = mi["revision"].astype("string")
            loaded[i] = (sc, mi, own)
            if use_cache:
                _write_cache(folder, keys[i], sc, mi, own)
    import mteb

    out: dict[str, Leaderboard] = {}
    for i, spec in enumerate(specs):
        scores, missing, problems = loaded[i]
        for problem in problems:
            warnings.warn(
                f"Skipped unreadable result file {problem}", ResultFileWarning, stacklevel=2
            )
        provenance = {
            "benchmark": spec.name,
            "task_list": spec.source,
            "n_tasks": len(spec.tasks),
            "results_dir": str(root),
            "results_git_commit": _git_commit(root / "remote"),
            "results_fingerprint": inv.stable_fingerprint,
            "n_result_files": len(inv.files),
            "mteb_version": mteb.__version__,
            "models_filter": models,
            "engine": engine,
            "allow_partial_means": allow_partial_means,
            "cache": "hit" if i not in todo else "miss",
            "skipped_files": len(problems),
        }
        summary = summarize(scores, missing, spec, allow_partial_means=allow_partial_means)
        out[spec.name] = Leaderboard(spec, scores, missing, summary, provenance)
    return out


def load_leaderboard(
    benchmark: str | None = None,
    *,
    tasks: Sequence[str] | None = None,
    results: str | Path | None = None,
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
) -> Leaderboard:
    """Load one benchmark's results as a :class:`Leaderboard`.

    Args:
        benchmark: mteb benchmark name, e.g. ``"RTEB(beta)"``; or pass ``tasks``.
        tasks: explicit task names instead of a benchmark.
        results: mteb ``ResultCache`` folder; None/"" = mteb's default cache, downloaded
            by mteb when missing. Offline, pass a local copy (e.g. ``../shared/mteb-cache``).
        models: restrict to these model names (``org/name``); unknown names raise with
            the closest names.
        pin: ``"now"`` (installed mteb's task lists) or a pin such as ``"as-of-post"``.
        include_tasks: tasks added to the benchmark's list.
        exclude_tasks: tasks removed from it.
        allow_partial_means: opt in, by name, to means over incomplete task sets.
        cache_dir: where the parquet cache lives (never inside ``results``).
        use_cache: read and write the parquet cache.
        download: see :func:`resolve_results_dir`.
        workers: parsing processes (default: up to 2). 1 parses in this process.
        engine: ``"fast"`` (default) reads files with
            :mod:`analysis.results.fastparse`, proven equal to mteb's reader on every
            file of the results snapshot; ``"mteb"`` uses ``TaskResult.from_disk`` and
            ``BenchmarkResults.select_tasks`` (the reference, several times slower).

    Returns:
        The benchmark's :class:`Leaderboard`.

    Raises:
        ValueError: unknown benchmark, task or model (with the closest valid names).
        ResultsNotFoundError: missing or empty results folder.
    """
    spec = resolve_spec(
        benchmark, tasks=tasks, pin=pin, include_tasks=include_tasks, exclude_tasks=exclude_tasks
    )
    return next(
        iter(
            load_leaderboards(
                [spec],
                results=results,
                models=models,
                allow_partial_means=allow_partial_means,
                cache_dir=cache_dir,
                use_cache=use_cache,
                download=download,
                workers=workers,
                engine=engine,
            ).values()
        )
    )
