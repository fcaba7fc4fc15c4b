"""Parse result files into per-(model, task) score rows, in forked worker processes.

Model identity and experiments follow ``ResultCache.load_results``: the name and revision
come from ``model_meta.json`` (mteb's own rule, through :mod:`analysis.core.compat`), folders
without one are skipped, experiment variants are left out. Revisions are merged by
mteb's ``BenchmarkResults.join_revisions``. ``engine="mteb"`` reads every file with
``TaskResult.from_disk`` and restricts it with ``select_tasks``; ``engine="fast"`` does
the same work on plain dictionaries (:mod:`analysis.results.fastparse`), and runs
``join_revisions`` only for models where it could change anything.
``tests/results/test_fastparse.py`` proves both engines equal.

Files come with the index of their results folder (several folders are read together):
each row records it (``source``), a file that cannot be read becomes an ``unreadable``
record (and a warning), and the same (model, revision, task) in two folders is either
the same scores (the first folder's file is kept) or a conflict (the caller raises).
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import logging
import math
import os
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from ..core import compat
from ..core.errors import model_name_from_folder
from . import fastparse
from .specs import BenchmarkSpec, TaskSpec

#: How result files are parsed: "fast" (orjson, proven equal) or "mteb" (the reference).
Engine = Literal["fast", "mteb"]
ENGINES: tuple[str, ...] = ("fast", "mteb")
SCORE_COLUMNS = ["model", "revision", "task", "task_type", "is_public", "main_score", "source"]
#: ``partial_score``: the mean over the entries a file does have, for a task some are
#: missing from (NaN otherwise); mteb's Borda count ranks a task by it (``summary.py``).
MISSING_COLUMNS = [*SCORE_COLUMNS[:5], "reason", "partial_score", "source"]

#: One file to parse: (absolute path, index of its results folder).
FileRef = tuple[str, int]
_ModelKey = tuple[str, str]
#: (model, revision, task) -> the folder index its result came from.
Sources = dict[tuple[Any, Any, str], int]


@dataclass
class Parsed:
    """What parsing a set of files gives, for every benchmark asked for.

    Attributes:
        scores: per benchmark, the rows of :data:`SCORE_COLUMNS` (``source`` a folder index).
        missing: per benchmark, the rows of :data:`MISSING_COLUMNS`.
        problems: ``(folder index, path, message)`` of every file that could not be read.
        unreadable: ``(model, revision, task, folder index, reason)`` of those files.
        conflicts: ``(path, path, why)``: one (model, revision, task), two folders,
            different scores.
    """

    scores: list[pd.DataFrame]
    missing: list[pd.DataFrame]
    problems: list[tuple[int, str, str]] = field(default_factory=list)
    unreadable: list[tuple[str, Any, str, int, str]] = field(default_factory=list)
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while parsing tens of thousands of files."""
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


def _error_text(err: BaseException) -> str:
    lines = str(err).splitlines()
    return f"{type(err).__name__}: {lines[0][:200] if lines else ''}"


def _folder_identity(folder: str, folders: dict[str, Any], problems: dict[str, str]) -> Any:
    """``(name, revision, experiment, meta)`` of a revision folder, None to skip it (memoised)."""
    if folder not in folders:
        folders[folder] = None
        if os.path.isfile(os.path.join(folder, "model_meta.json")):
            try:
                folders[folder] = compat.model_name_and_revision_from_folder(Path(folder))
            except Exception as err:  # reported: a warning and an "unreadable" row per file
                problems[folder] = _error_text(err)
    return folders[folder]


def _main_scores(scores: Any) -> tuple[tuple[str, str, str], ...]:
    """The main score of every (split, subset) entry: what the leaderboard reads of a file."""
    return tuple(
        sorted(
            (str(split), str(entry.get("hf_subset")), repr(entry.get("main_score")))
            for split, entries in (scores or {}).items()
            for entry in entries
        )
    )


class _Reader:
    """Reads files grouped by (model name, revision), tracking folders, failures, conflicts."""

    def __init__(self, read: Callable[[str], Any], task_of: Callable[[Any], str]) -> None:
        self.read, self.task_of = read, task_of
        self.by_model: dict[_ModelKey, list[Any]] = defaultdict(list)
        self.metas: dict[_ModelKey, Any] = {}
        self.sources: Sources = {}
        self.parsed = Parsed([], [])
        self._first: dict[tuple[Any, Any, str], tuple[int, str, Any]] = {}
        self._folders: dict[str, Any] = {}
        self._meta_problems: dict[str, str] = {}

    def _unreadable(self, path: str, source: int, name: str, revision: Any, message: str) -> None:
        stem = os.path.basename(path)[: -len(".json")]
        self.parsed.unreadable.append((name, revision, stem, source, f"unreadable: {message}"))

    def add(self, path: str, source: int) -> None:
        folder = os.path.dirname(path)
        new = folder not in self._folders
        identity = _folder_identity(folder, self._folders, self._meta_problems)
        if identity is None:
            if folder in self._meta_problems:  # one warning per folder, a row per file
                message = self._meta_problems[folder]
                if new:
                    meta_file = os.path.join(folder, "model_meta.json")
                    self.parsed.problems.append((source, meta_file, message))
                model_dir, revision = folder.rsplit("/", 2)[-2:]
                name = model_name_from_folder(model_dir)
                self._unreadable(path, source, name, revision, f"model_meta.json: {message}")
            return
        name, revision, experiment, meta = identity
        if experiment is not None:
            return
        try:
            result = self.read(path)
        except Exception as err:  # reported: a warning and an "unreadable" row, never dropped
            self.parsed.problems.append((source, path, _error_text(err)))
            self._unreadable(path, source, name, revision, _error_text(err))
            return
        key = (name, revision, self.task_of(result))
        first = self._first.get(key)
        if first is not None and first[0] != source:
            if _main_scores(first[2]) != _main_scores(self._scores_of(result)):
                self.parsed.conflicts.append((first[1], path, "different main scores"))
            return  # the same scores in two folders: the first folder's file is kept
        self._first.setdefault(key, (source, path, self._scores_of(result)))
        self.sources[key] = source
        self.by_model[(name, revision)].append(result)
        self.metas.setdefault((name, revision), meta)

    @staticmethod
    def _scores_of(result: Any) -> Any:
        return result[2] if isinstance(result, tuple) else result.scores


def _benchmark_results(by_model: dict[_ModelKey, list[Any]], metas: dict[_ModelKey, Any]) -> Any:
    """``BenchmarkResults`` of task results grouped by (model name, revision)."""
    from mteb.results import BenchmarkResults, ModelResult

    model_results = [
        ModelResult(
            model_name=name,
            model_revision=revision,
            task_results=results,
            model_meta=metas[(name, revision)],
        )
        for (name, revision), results in by_model.items()
    ]
    return BenchmarkResults(model_results=model_results)


def entries_score(task_result: Any) -> tuple[float, int, list[str]]:
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
    """Mean main score over a task's (split, subset) entries, or why there is none."""
    if gaps:
        more = f" and {len(gaps) - 5} more" if len(gaps) > 5 else ""
        return float("nan"), "missing " + ", ".join(heapq.nsmallest(5, gaps)) + more
    return (total / count, None) if count else (float("nan"), "no scores in the result file")


class _Rows:
    """Score rows and missing rows of one benchmark, as the frames want them."""

    def __init__(self, spec: BenchmarkSpec, sources: Sources) -> None:
        self.by_name = {t.task: t for t in spec.tasks}
        self.sources = sources
        self.scores: list[tuple[Any, ...]] = []
        self.missing: list[tuple[Any, ...]] = []

    def add(self, model: str, revision: Any, task_name: str, scored: tuple[Any, ...]) -> None:
        task: TaskSpec = self.by_name[task_name]
        score, reason = _score_or_reason(*scored)
        base = (model, revision, task.task, task.type, task.is_public)
        source = self.sources.get((model, revision, task_name))
        if reason is None:
            self.scores.append((*base, score, source))
        else:
            total, count, _ = scored
            self.missing.append((*base, reason, total / count if count else math.nan, source))

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
        scores = pd.DataFrame(self.scores, columns=SCORE_COLUMNS)
        missing = pd.DataFrame(self.missing, columns=MISSING_COLUMNS)
        for frame in (scores, missing):
            frame["source"] = frame["source"].astype("Int64")
        return scores, missing


def _extract_mteb(
    bench_results: Any, spec: BenchmarkSpec, sources: Sources
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, task) scores of ``spec`` through ``select_tasks`` and ``join_revisions``."""
    selected = bench_results.select_tasks([t.to_mteb() for t in spec.tasks])
    scored = {id(r): entries_score(r) for m in selected for r in m.task_results}
    rows = _Rows(spec, sources)
    rows.add_joined(selected.join_revisions(), scored)
    return rows.frames()


def _extract_fast(
    by_model: dict[_ModelKey, list[tuple[str, Any, Any]]],
    metas: dict[_ModelKey, Any],
    spec: BenchmarkSpec,
    sources: Sources,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, task) scores of ``spec`` from :func:`fastparse.read_scores` records."""
    views = {t.task: fastparse.TaskView.of(t.to_mteb()) for t in spec.tasks}
    kept = {key: [r for r in records if r[0] in views] for key, records in by_model.items()}
    selected = {key: records for key, records in kept.items() if records}
    name_counts = Counter(name for name, _ in selected)
    rows = _Rows(spec, sources)
    to_join: dict[_ModelKey, list[tuple[str, Any, Any]]] = {}
    for (name, revision), records in selected.items():
        names = [r[0] for r in records]
        splits = [bool(views[t].splits) for t in names]
        if not compat.join_passes_through(name_counts[name], revision, names, splits):
            to_join[(name, revision)] = records
            continue
        for task_name, _, scores in records:
            rows.add(name, revision, task_name, fastparse.selected_score(scores, views[task_name]))
    if to_join:
        bench = _stand_ins(to_join, metas, views)
        scored = {
            id(light): fastparse.selected_score(scores, views[task_name])
            for model_result, records in zip(bench.model_results, to_join.values(), strict=True)
            for light, (task_name, _, scores) in zip(
                model_result.task_results, records, strict=True
            )
        }
        rows.add_joined(bench.join_revisions(), scored)
    return rows.frames()


def _stand_ins(
    records: dict[_ModelKey, list[tuple[str, Any, Any]]],
    metas: dict[_ModelKey, Any],
    views: dict[str, fastparse.TaskView],
) -> Any:
    """``BenchmarkResults`` of light stand-ins, built by mteb's ``from_validated`` (unvalidated)."""
    from mteb.results import BenchmarkResults

    return BenchmarkResults.from_validated(
        model_results=[
            {
                "model_name": name,
                "model_revision": revision,
                "model_meta": metas[(name, revision)],
                "task_results": [
                    {"task_name": t, "mteb_version": v, "scores": {s: [] for s in views[t].splits}}
                    for t, v, _ in model_records
                ],
            }
            for (name, revision), model_records in records.items()
        ]
    )


def _from_disk(path: str) -> Any:
    from mteb.results import TaskResult

    return TaskResult.from_disk(Path(path))


def load_chunk(files: list[FileRef], specs: list[BenchmarkSpec], engine: Engine = "fast") -> Parsed:
    """Parse ``files`` once and extract every benchmark of ``specs`` from them.

    ``engine="mteb"`` reads every file with ``TaskResult.from_disk`` and filters with
    mteb; ``"fast"`` reads with :func:`analysis.results.fastparse.read_scores`, which
    gives the same results (and falls back to mteb's route when the installed mteb is not
    the one it was proven equal to: :func:`analysis.core.compat.fast_reader_in_step`).
    """
    with _quiet_mteb(), _gc_paused():
        if engine == "fast" and compat.fast_reader_in_step():
            reader = _Reader(fastparse.read_scores, lambda r: r[0])
            for path, source in files:
                reader.add(path, source)
            frames = [
                _extract_fast(reader.by_model, reader.metas, spec, reader.sources) for spec in specs
            ]
        else:
            reader = _Reader(_from_disk, lambda r: r.task_name)
            for path, source in files:
                reader.add(path, source)
            bench_results = _benchmark_results(reader.by_model, reader.metas)
            frames = [_extract_mteb(bench_results, spec, reader.sources) for spec in specs]
    parsed = reader.parsed
    parsed.scores, parsed.missing = [f[0] for f in frames], [f[1] for f in frames]
    return parsed


def _chunks_by_model(files: list[FileRef], n_chunks: int) -> list[list[FileRef]]:
    """Split files into balanced chunks; one model never spans two (revisions join per model)."""
    by_model: dict[str, list[FileRef]] = defaultdict(list)
    for ref in files:
        by_model[ref[0].rsplit("/", 3)[-3]].append(ref)
    chunks: list[list[FileRef]] = [[] for _ in range(n_chunks)]
    for _, group in sorted(by_model.items(), key=lambda kv: -len(kv[1])):
        min(chunks, key=len).extend(group)
    return [c for c in chunks if c]


def parse_all(
    files: list[FileRef], specs: Sequence[BenchmarkSpec], workers: int, engine: Engine = "fast"
) -> Parsed:
    """Parse ``files`` for every benchmark of ``specs``, in ``workers`` forked processes.

    Files of one model folder name stay in one process (their revisions are joined and their folders
    compared there). With one worker or under 200 files, this process parses them.
    """
    specs = list(specs)
    compat.fast_reader_in_step()  # checked (and warned about) once, before forking
    if workers <= 1 or len(files) < 200:
        return load_chunk(files, specs, engine)
    chunks = _chunks_by_model(files, workers * 4)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        parts = list(pool.map(load_chunk, chunks, [specs] * len(chunks), [engine] * len(chunks)))
    return Parsed(
        [pd.concat([p.scores[i] for p in parts], ignore_index=True) for i in range(len(specs))],
        [pd.concat([p.missing[i] for p in parts], ignore_index=True) for i in range(len(specs))],
        [x for p in parts for x in p.problems],
        [x for p in parts for x in p.unreadable],
        [x for p in parts for x in p.conflicts],
    )
