"""From parsed result files to a benchmark's frames: which files, merged folders, gaps.

Files are selected folder by folder (:func:`select_files`), parsed once into each
benchmark's ``scores`` and ``missing`` frames (:func:`parse_frames`), checked for the same
(model, revision, task) with different results in two folders (:func:`check_conflicts`),
and labelled with their folder as it was given (:func:`labelled`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.errors import (
    ResultsConflictError,
    check_names,
    model_folder_name,
    model_name_from_folder,
    spell,
)
from .folder import Inventory, ResultsFolders
from .parse_cache import KEPT_FIRST, Entry
from .parsing import MISSING_COLUMNS, Engine, FileRef, Parsed, parse_all
from .specs import BenchmarkSpec


def select_files(
    folders: ResultsFolders,
    inventories: Sequence[Inventory],
    task_names: set[str],
    models: Sequence[str] | None,
) -> list[FileRef]:
    """The files of these tasks (and models), folder by folder in order."""
    wanted = {model_folder_name(m) for m in models} if models else None
    files: list[FileRef] = []
    for source, (folder, inv) in enumerate(zip(folders.folders, inventories, strict=True)):
        root = folder.as_posix()
        for rel, _, _ in inv.files:
            _, model, _, filename = rel.rsplit("/", 3)
            stem = filename[: -len(".json")]
            if stem in task_names and stem != "model_meta" and (wanted is None or model in wanted):
                files.append((f"{root}/{rel}", source))
    return files


def check_models(
    models: Sequence[str] | None, folders: ResultsFolders, inventories: Sequence[Inventory]
) -> None:
    """Raise :class:`~analysis.core.errors.UnknownModelError` for models without results."""
    if not models:
        return
    if isinstance(models, str):
        raise ValueError("`models` must be a list of model names, not a string.")
    dirs = frozenset().union(*(inv.model_dirs for inv in inventories))
    missing = [m for m in models if model_folder_name(m) not in dirs]
    if missing:
        available = [model_name_from_folder(d) for d in sorted(dirs)]
        check_names(missing, available, argname=f"models (no results in {folders.display()})")


def fill_never_loaded(
    missing: pd.DataFrame,
    scores: pd.DataFrame,
    spec: BenchmarkSpec,
    models: Sequence[str] | None,
    unreadable: Sequence[tuple[str, Any, str, int, str]],
) -> pd.DataFrame:
    """Add a row for every expected (model, task) with neither score nor reason.

    The reason is "unreadable: <error>" when a file for it could not be read, else "no result file".
    """
    s_model, s_task, s_rev = (scores[c].tolist() for c in ("model", "task", "revision"))
    m_model, m_task, m_rev = (missing[c].tolist() for c in ("model", "task", "revision"))
    seen = set(zip(s_model, s_task, strict=True)) | set(zip(m_model, m_task, strict=True))
    tasks = {t.task for t in spec.tasks}
    broken: dict[tuple[str, str], tuple[Any, int | None, str]] = {}
    for model, revision, task, source, reason in sorted(unreadable, key=lambda r: (r[3], r[4])):
        if task in tasks:
            broken.setdefault((model, task), (revision, source, reason))
    all_models = sorted(set(s_model) | set(m_model) | set(models or []) | {m for m, _ in broken})
    revision = {
        **{m: r for (m, _), (r, _, _) in broken.items()},
        **dict(zip(m_model, m_rev, strict=True)),
        **dict(zip(s_model, s_rev, strict=True)),
    }
    extra = []
    for m in all_models:
        for t in spec.tasks:
            if (m, t.task) in seen:
                continue
            rev, source, reason = broken.get((m, t.task), (revision.get(m), None, "no result file"))
            extra.append((m, rev, t.task, t.type, t.is_public, reason, float("nan"), source))
    if not extra:
        return missing
    added = pd.DataFrame(extra, columns=MISSING_COLUMNS)
    added["source"] = added["source"].astype("Int64")
    return pd.concat([missing, added], ignore_index=True)


def check_conflicts(
    parsed: Parsed, folders: ResultsFolders, on_conflict: str = "error"
) -> list[tuple[str, str]]:
    """Raise :class:`ResultsConflictError` naming every clash between two folders.

    With ``on_conflict="first"`` the first folder's result was kept (the parser keeps it
    either way) and the clashes are returned instead, for :func:`kept_first_message`.

    Clashes within a worker are found while reading (both files named); one model
    identity filed under two model folder names can meet only here, in the frames.

    Returns:
        ``(task, "kept <first>, not <second> (why)")`` per clash (none unless ``"first"``).
    """
    # (task, what, the first folder's file, the other's, why)
    found = [
        (Path(a).stem, "", shown_path(a, folders), shown_path(b, folders), f" ({why})")
        for a, b, why in parsed.conflicts
    ]
    for frame in parsed.scores:
        rows = frame.drop_duplicates(["model", "revision", "task", "source"])
        clash = rows[rows.duplicated(["model", "revision", "task"], keep=False)]
        for (model, revision, task), group in clash.groupby(["model", "revision", "task"]):
            first, *others = [folders.label(int(s)) for s in sorted(group["source"])]
            found.append(
                (str(task), f"{model} {revision} {task} in ", first, " and ".join(others), "")
            )
    if found and on_conflict != "first":
        shown = sorted({f"{what}{a} and {b}{why}" for _, what, a, b, why in found})
        listed = "; ".join(shown[:10])
        more = f" (and {len(shown) - 10} more)" if len(shown) > 10 else ""
        raise ResultsConflictError(
            f"The same (model, revision, task) has different results in two results folders: "
            f"{listed}{more}. To keep the first folder's result (e.g. your own rerun of a "
            f"leaderboard model beside the published one), pass {spell('on_conflict', 'first')}; "
            "else remove or rename one of each pair, or load the folders separately. Identical "
            "results (same main scores) are merged silently."
        )
    return sorted({(task, f"{what}kept {a}, not {b}{why}") for task, what, a, b, why in found})


def kept_first_message(clashes: Sequence[str], folders: ResultsFolders) -> str:
    """The note for clashes settled by ``on_conflict="first"``: which result was kept."""
    shown = sorted(set(clashes))
    more = f" (and {len(shown) - 3} more)" if len(shown) > 3 else ""
    return (
        f"Kept the first folder's result where the merged folders ({folders.display()}) differ "
        f"on {len(shown)} (model, revision, task): {'; '.join(shown[:3])}{more}."
    )


def shown_path(path: str, folders: ResultsFolders) -> str:
    """A file path under one of the folders, shown with that folder as the user gave it."""
    for i, folder in enumerate(folders.folders):
        if path.startswith(folder.as_posix() + "/"):
            return f"{folders.label(i)}/{path[len(folder.as_posix()) + 1 :]}"
    return path


def parse_frames(
    folders: ResultsFolders,
    inventories: Sequence[Inventory],
    specs: Sequence[BenchmarkSpec],
    models: Sequence[str] | None,
    workers: int | None,
    engine: Engine,
    on_conflict: str = "error",
) -> list[Entry]:
    """Parse the files of ``specs`` once; one (scores, missing, problems) per spec."""
    files = select_files(folders, inventories, {t for s in specs for t in s.task_names}, models)
    # two forked parsers: measured faster than one, idle and beside two CPU-bound
    # processes alike (benchmarks/results/loader.md)
    n_workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    for spec in specs:  # build mteb task objects once, before forking workers
        for task in spec.tasks:
            task.to_mteb()
    parsed = parse_all(files, specs, n_workers, engine)
    clashes = check_conflicts(parsed, folders, on_conflict)
    entries = []
    for j, spec in enumerate(specs):
        stems = {*spec.task_names, "model_meta"}
        own = [
            (s, os.path.relpath(p, folders.folders[s]), m)
            for s, p, m in parsed.problems
            if Path(p).stem in stems
        ]
        scores = parsed.scores[j].sort_values(["model", "task"], ignore_index=True)
        missing = fill_never_loaded(parsed.missing[j], scores, spec, models, parsed.unreadable)
        missing = missing.sort_values(["model", "task"], ignore_index=True)
        missing["revision"] = missing["revision"].astype("string")
        kept = [(KEPT_FIRST, task, text) for task, text in clashes if task in stems]
        entries.append((_typed(scores), _typed(missing), sorted(own) + kept))
    return entries


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns in the dtypes a parquet round trip gives back (``str``, ``bool``)."""
    for column in ("model", "task", "task_type", "reason"):
        if column in frame.columns:
            frame[column] = frame[column].astype("str")
    frame["is_public"] = frame["is_public"].astype(bool)
    if "partial_score" in frame.columns:
        frame["partial_score"] = frame["partial_score"].astype(float)
    return frame


def labelled(frame: pd.DataFrame, folders: ResultsFolders) -> pd.DataFrame:
    """``source`` as the folder's display form (e.g. ``../shared/mteb-cache``)."""
    out = frame.copy()
    labels = {i: folders.label(i) for i in range(len(folders))}
    out["source"] = frame["source"].astype("Int64").map(labels).astype("string")
    return out
