"""Shared test fixtures: the shared data folder and hand-made results folders.

Also how a pytest-xdist session shares the cores: each worker's threads
(:func:`limit_threads`) and the order the files are handed out in
(:func:`pytest_collection_modifyitems`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared")).resolve()
SHARED_RESULTS = SHARED / "mteb-cache"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

#: The thread-pool sizes torch (OpenMP, MKL) and numpy/scipy (OpenBLAS) read when they load.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def limit_threads() -> dict[str, str]:
    """Give each pytest-xdist worker its share of the cores; the variables it set.

    Two workers on two cores, each with torch's and OpenBLAS's default of one thread per
    core, oversubscribe the machine: a pool's threads spin while they wait for a core.
    Measured in a fresh clone on an idle 2-core machine, ``make test`` took 890 s with the
    defaults and 706 s with one thread per worker; the ``distill_and_place`` smoke run
    went from 185 s to 71 s (``docs/development.md``). With ``-n N`` every worker, and
    every process it starts (inherited environment), gets ``cores // N`` threads. Runs
    at import, before torch or numpy is loaded; a variable already set is kept, and
    ``pytest`` without ``-n`` (or with ``-n 1``) changes nothing.
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if workers < 2:
        return {}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    share = str(max(1, (cores or 1) // workers))
    limited = {name: share for name in THREAD_VARIABLES if name not in os.environ}
    os.environ.update(limited)
    return limited


#: What :func:`limit_threads` set in this process (a test that needs the machine's own
#: defaults, as a user's command gets them, unsets these in its subprocess).
THREAD_LIMITS = limit_threads()


def load_file(path: Path, name: str) -> ModuleType:
    """A script that is not in a package (``tools/``, ``benchmarks/``, ``docs/_ext/``), imported.

    Registered in ``sys.modules`` under ``name`` before it runs, as an import would be
    (dataclasses and pickling look their module up there).
    """
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


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


#: The files of ``make test`` that take 10 s or more, longest first (a per-test profile of
#: one fresh-clone ``make test``, 2026-11-29), so that the short files fill in at the end. The first
#: two start at once on the two workers: in a fresh checkout test_interrupt distils the
#: session's test model (which later files wait for) while test_docs runs the figures
#: batch for the site, whose last notebook (my_model) distils the same teacher and by then
#: finds its token embeddings kept (``analysis/runs/token_cache.py``).
SLOW_TIER_FIRST = (
    "core/test_interrupt.py",
    "site/test_docs.py",
    "site/test_getting_started.py",
    "notebook/test_notebooks.py",
    "runs/test_slurm.py",
    "results/test_mteb_table.py",
    "project/test_reproducible.py",
    "stats/estimate/test_estimate_acceptance.py",
    "stats/estimate/test_estimate_newer.py",
    "site/test_lab.py",
    "runs/test_reproduction.py",
    "results/test_fastparse.py",
    "runs/submit/test_submit.py",
    "project/test_mteb_patches.py",
    "core/test_quiet.py",
    "runs/test_runner.py",
    "stats/test_simulation.py",
    "runs/test_distill.py",
    "project/test_scripts.py",
    "core/test_interrupt_rules.py",
    "runs/test_locks.py",
)
#: The longest files of ``make test-fast`` (its slow tests left out), longest first.
FAST_TIER_FIRST = (
    "project/test_doctests.py",
    "project/test_reproducible.py",
    "stats/estimate/test_estimate.py",
    "stats/estimate/test_estimate_newer.py",
    "runs/submit/test_meta.py",
    "results/test_imports.py",
    "stats/test_simulation.py",
)


def pytest_itemcollected(item: pytest.Item) -> None:
    """An ``xslow`` test is ``slow`` too: ``make test-fast`` leaves it out with the others."""
    if item.get_closest_marker("xslow") is not None:
        item.add_marker(pytest.mark.slow)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first, then the other files with a slow test; each file's order kept.

    pytest-xdist (``make test``, ``make test-fast``: ``--dist loadfile
    --no-loadscope-reorder``) hands each worker a whole file at a time in this order
    (longest processing time first), so the long files start at once and the short ones
    fill in at the end, and two workers end together instead of one waiting for a long
    file handed out last. The longest files are named, in measured order, for each tier
    (:data:`SLOW_TIER_FIRST` when a slow test is selected, else :data:`FAST_TIER_FIRST`);
    a file not named keeps its place in the collection, the files with a selected slow
    test before the others. Runs after ``-m`` has deselected (``trylast``), on every
    worker alike (the order is a function of the collection).
    """
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    named = SLOW_TIER_FIRST if slow_files else FAST_TIER_FIRST
    rank = {REPO / "tests" / path: i for i, path in enumerate(named)}
    # stable: the items of one file stay contiguous and in their order
    items.sort(key=lambda item: (rank.get(item.path, len(rank)), item.path not in slow_files))
