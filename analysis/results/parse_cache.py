"""The parquet cache of parsed leaderboards, outside the results folders.

One entry per (results folders and their mtime fingerprints, task list, model filter,
engine, mteb version, loader version): ``<key>-scores.parquet``, ``<key>-missing.parquet``
and the manifest ``<key>.json`` (written last, so an entry counts only once complete).
A damaged entry is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..core.io import atomic_write_parquet, atomic_write_text
from .specs import BenchmarkSpec

#: Bump when the cached frames change meaning (3: ``source`` column, unreadable rows; 4:
#: the clashes settled by ``on_conflict="first"`` are kept with the entry; 5: ``missing``'s
#: ``partial_score``).
LOADER_VERSION = 5
#: The folder index of a "problem" that is a clash settled by keeping the first folder's
#: result (``on_conflict="first"``): its path is the task, its message names both files.
KEPT_FIRST = -1
#: A cached entry: scores, missing, and the problems ``(folder index, relative path, message)``
#: (:data:`KEPT_FIRST` entries: ``(KEPT_FIRST, task, clash)``).
Entry = tuple[pd.DataFrame, pd.DataFrame, list[tuple[int, str, str]]]
logger = logging.getLogger(__name__)


def cache_key(
    results: Mapping[str, Any],
    spec: BenchmarkSpec,
    models: Sequence[str] | None,
    engine: str,
    mteb_version: str,
    on_conflict: str = "error",
) -> str:
    """The entry's name: a hash of everything that changes the parsed frames.

    ``results`` is ``ResultsFolders.cache_identity()`` (real paths, mtime fingerprints);
    an entry made with ``on_conflict="first"`` must not serve a load asking for ``"error"``.
    """
    payload = {
        "loader": LOADER_VERSION,
        "mteb": mteb_version,
        "results": dict(results),
        "spec": spec.key(),
        "models": sorted(models) if models else None,
        "engine": engine,
        **({"on_conflict": on_conflict} if on_conflict != "error" else {}),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:24]


def read_cache(folder: Path, key: str) -> Entry | None:
    """The entry ``key`` in ``folder``; None when absent or damaged (then logged)."""
    manifest = folder / f"{key}.json"
    if not manifest.is_file():
        return None
    try:
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        scores = pd.read_parquet(folder / f"{key}-scores.parquet")
        missing = pd.read_parquet(folder / f"{key}-missing.parquet")
        problems = [(int(s), str(p), str(m)) for s, p, m in meta.get("problems", [])]
    except (OSError, ValueError, TypeError, AttributeError, pa.ArrowException) as err:
        logger.warning("Ignoring damaged cache entry %s (rebuilt): %s", manifest, err)
        return None
    return scores, missing, problems


def write_cache(folder: Path, key: str, entry: Entry) -> None:
    """Write the entry atomically; the manifest goes last."""
    scores, missing, problems = entry
    atomic_write_parquet(folder / f"{key}-scores.parquet", scores)
    atomic_write_parquet(folder / f"{key}-missing.parquet", missing)
    atomic_write_text(folder / f"{key}.json", json.dumps({"problems": problems}))
