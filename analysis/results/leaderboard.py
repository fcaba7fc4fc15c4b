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
leaderboard computes it. A task with any missing entry has no score.

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
import hashlib
import json
import logging
import math
import os
import warnings
from collections import defaultdict
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


def _select_paths(
    inv: _Inventory, task_names: set[str], models: Sequence[str] | None
) -> list[Path]:
    wanted_models = {model_folder_name(m) for m in models} if models else None
    paths = []
    for rel, _, _ in inv.files:
        _, model, _, filename = rel.rsplit("/", 3)
        stem = filename[: -len(".json")]
        if stem == "model_meta" or stem not in task_names:
            continue
        if wanted_models is not None and model not in wanted_models:
            continue
        paths.append(inv.root / rel)
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


# --------------------------------------------------------------------------- parsing (mteb)


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


def _parse_files(paths: Sequence[Path], engine: Engine = "fast") -> tuple[Any, list[str]]:
    """Parse result files into a ``BenchmarkResults``; corrupt files are skipped.

    ``engine="mteb"`` reads every file with ``TaskResult.from_disk``; ``"fast"`` with
    :func:`analysis.results.fastparse.read_task_result`, which gives the same results.

    Model identity and experiment handling follow ``ResultCache.load_results`` (default
    arguments): the name and revision come from ``model_meta.json``, folders without
    one are skipped, and experiment variants are left out.
    """
    from mteb.results import BenchmarkResults, ModelResult, TaskResult

    read = fastparse.read_task_result if engine == "fast" else TaskResult.from_disk
    problems: list[str] = []
    by_model: dict[tuple[str, str], list[Any]] = defaultdict(list)
    metas: dict[tuple[str, str], Any] = {}
    folders: dict[Path, Any] = {}
    for path in paths:
        folder = path.parent
        if folder not in folders:
            if not (folder / "model_meta.json").is_file():
                folders[folder] = None
            else:
                try:
                    folders[folder] = compat.model_name_and_revision_from_folder(folder)
                except Exception as err:
                    problems.append(f"{folder / 'model_meta.json'}: {type(err).__name__}: {err}")
                    folders[folder] = None
        identity = folders[folder]
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
    return BenchmarkResults.model_construct(model_results=model_results, benchmark=None), problems


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
        gaps = sorted(gaps)
        more = f" and {len(gaps) - 5} more" if len(gaps) > 5 else ""
        return float("nan"), "missing " + ", ".join(gaps[:5]) + more
    if not count:
        return float("nan"), "no scores in the result file"
    return total / count, None


def _select_and_score(
    bench_results: Any, spec: BenchmarkSpec, engine: Engine
) -> tuple[Any, dict[int, tuple[float, int, list[str]]]]:
    """Restrict results to the spec's tasks; score each restricted result.

    Engine "mteb" uses ``BenchmarkResults.select_tasks`` and scores its entries. Engine
    "fast" scores each result with :func:`~analysis.results.fastparse.selected_score`
    and hands ``join_revisions`` a light stand-in per result (same task name, mteb
    version and, as after ``select_tasks``, one score list per evaluation split).

    Returns:
        The restricted ``BenchmarkResults`` and ``{id(task result): (sum, count, gaps)}``.
    """
    from mteb.results import BenchmarkResults, ModelResult

    task_objs = {t.task: t.to_mteb() for t in spec.tasks}
    if engine == "mteb":
        selected = bench_results.select_tasks(list(task_objs.values()))
        scored = {id(r): _entries_score(r) for m in selected for r in m.task_results}
        return selected, scored
    scored = {}
    model_results = []
    for m in bench_results.model_results:
        stand_ins = []
        for r in m.task_results:
            task = task_objs.get(r.task_name)
            if task is None:
                continue
            light = type(r).model_construct(
                task_name=r.task_name,
                mteb_version=r.mteb_version,
                scores={split: [] for split in task.eval_splits},
            )
            scored[id(light)] = fastparse.selected_score(r, task)
            stand_ins.append(light)
        fields = {k: getattr(m, k) for k in type(m).model_fields if hasattr(m, k)}
        model_results.append(ModelResult.model_construct(**{**fields, "task_results": stand_ins}))
    return BenchmarkResults.model_construct(model_results=model_results), scored


def _extract(
    bench_results: Any, spec: BenchmarkSpec, engine: Engine = "fast"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, task) scores of ``spec`` from parsed results, with mteb's filtering."""
    by_name = {t.task: t for t in spec.tasks}
    selected, scored = _select_and_score(bench_results, spec, engine)
    rows, missing = [], []
    for model_result in selected.join_revisions():
        for task_result in model_result.task_results:
            task: TaskSpec = by_name[task_result.task_name]
            score, reason = _score_or_reason(*scored[id(task_result)])
            base = (
                model_result.model_name,
                model_result.model_revision,
                task.task,
                task.type,
                task.is_public,
            )
            if reason is None:
                rows.append((*base, score))
            else:
                missing.append((*base, reason))
    return (
        pd.DataFrame(rows, columns=SCORE_COLUMNS),
        pd.DataFrame(missing, columns=MISSING_COLUMNS),
    )


def _load_chunk(
    paths: list[Path], specs: list[BenchmarkSpec], engine: Engine = "fast"
) -> tuple[list[pd.DataFrame], list[pd.DataFrame], list[str]]:
    with _quiet_mteb():
        bench_results, problems = _parse_files(paths, engine)
        frames = [_extract(bench_results, spec, engine) for spec in specs]
    return [f[0] for f in frames], [f[1] for f in frames], problems


def _chunks_by_model(paths: list[Path], n_chunks: int) -> list[list[Path]]:
    """Split paths into balanced chunks; one model never spans two (revisions join per model)."""
    by_model: dict[str, list[Path]] = defaultdict(list)
    for p in paths:
        by_model[p.parent.parent.name].append(p)
    chunks: list[list[Path]] = [[] for _ in range(n_chunks)]
    for _, group in sorted(by_model.items(), key=lambda kv: -len(kv[1])):
        min(chunks, key=len).extend(group)
    return [c for c in chunks if c]


def _parse_all(
    paths: list[Path], specs: list[BenchmarkSpec], workers: int, engine: Engine = "fast"
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
