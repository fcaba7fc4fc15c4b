"""Shared test fixtures: the shared data folder and hand-made results folders."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared")).resolve()
SHARED_RESULTS = SHARED / "mteb-cache"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def shared_results() -> Path:
    """The read-only MTEB results snapshot; skips the test when it is absent."""
    if not (SHARED_RESULTS / "remote" / "results").is_dir():
        pytest.skip(f"needs the shared MTEB results snapshot at {SHARED_RESULTS} (set SHARED_DIR)")
    return SHARED_RESULTS


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder (reference documents, task data); skips when absent."""
    if not SHARED.is_dir():
        pytest.skip(f"needs the shared folder at {SHARED} (set SHARED_DIR)")
    return SHARED


def write_result(
    root: Path,
    model: str,
    revision: str,
    task: str,
    scores: dict[str, list[tuple[str, float]]] | float,
    *,
    languages: list[str] | None = None,
) -> Path:
    """Write one mteb TaskResult JSON (and model_meta.json) under ``root/remote/results``.

    ``scores`` is either one main score (split ``test``, subset ``default``) or
    ``{split: [(subset, main_score), ...]}``.
    """
    folder = root / "remote" / "results" / model.replace("/", "__") / revision
    folder.mkdir(parents=True, exist_ok=True)
    meta = folder / "model_meta.json"
    if not meta.exists():
        meta.write_text(json.dumps({"name": model, "revision": revision}))
    if not isinstance(scores, dict):
        scores = {"test": [("default", float(scores))]}
    payload = {
        "dataset_revision": "x",
        "task_name": task,
        "mteb_version": "2.26.24",
        "evaluation_time": 1.0,
        "kg_co2_emissions": None,
        "scores": {
            split: [
                {"main_score": s, "hf_subset": sub, "languages": languages or ["eng-Latn"]}
                for sub, s in entries
            ]
            for split, entries in scores.items()
        },
    }
    path = folder / f"{task}.json"
    path.write_text(json.dumps(payload))
    return path


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files that hold a selected slow test run first; each file's own order is kept.

    pytest-xdist (``make test``, ``make test-fast``: ``--dist loadfile
    --no-loadscope-reorder``) hands each worker a whole file at a time in this order, so
    the long files start at once and the short ones fill in at the end, and two workers
    end together instead of one waiting for a long file handed out last. Runs after
    ``-m`` has deselected (``trylast``), on every worker alike (the order is a function of
    the collection).
    """
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: files stay contiguous
