"""The fast result reader equals mteb's on every file of the snapshot.

``analysis.results.fastparse`` replaces ``TaskResult.from_disk`` and
``TaskResult.validate_and_filter_scores`` on the loader's hot path. These tests are
the proof that it may: every result file of the shared snapshot is read both ways and
compared, every (file, task) selection of the benchmarks the notebooks use is scored both
ways (mteb's own functions are the reference), and whole leaderboards are loaded with both
engines.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

from analysis.core import compat
from analysis.results import fastparse
from analysis.results.leaderboard import load_leaderboards
from analysis.results.parsing import entries_score as _entries_score
from analysis.results.specs import resolve_spec

BENCHMARKS = ["RTEB(beta)", "RTEB(eng, beta)", "MTEB(eng, v2)", "MTEB(Multilingual, v2)"]


#: ``json.dumps(value, sort_keys=True, default=str, allow_nan=True)`` with its encoder made
#: once: ``json.dumps`` builds one per call, and the all-files proof calls it ten million times.
_CANONICAL = json.JSONEncoder(sort_keys=True, default=str, allow_nan=True)


def _canon(value: Any) -> str:
    """JSON text with NaN spelled out, so NaN == NaN and key order does not matter."""
    return _CANONICAL.encode(value)


def _read_both(path: Path) -> tuple[Any, Any]:
    """``(read_scores, TaskResult.from_disk)`` of a file; an exception's type if one raised."""
    from mteb.results import TaskResult

    outcomes = []
    for read in (fastparse.read_scores, TaskResult.from_disk):
        try:
            outcomes.append(read(path))
        except Exception as err:  # the readers must fail on the same files
            outcomes.append(type(err))
    light, ref = outcomes
    if isinstance(ref, type):
        assert light is ref, f"{path}: mteb raised {ref.__name__}, read_scores gave {light!r}"
    else:  # the same task, version and scores, without the per-entry backfill
        assert not isinstance(light, type), f"{path}: read_scores raised {light.__name__}"
        assert light[:2] == (ref.task_name, ref.mteb_version), path
        assert _canon(_without_backfill(light[2], ref.mteb_version)) == _canon(
            _without_backfill(ref.scores, ref.mteb_version)
        ), path
    return light, ref


def _without_backfill(scores: Any, version: str | None) -> Any:
    """Scores without the ``mteb_version`` that ``TaskResult`` backfills into each entry."""
    return {
        split: [
            {k: v for k, v in e.items() if not (k == "mteb_version" and v == version)}
            for e in entries
        ]
        for split, entries in scores.items()
    }


def _takes_fast_route(path: Path) -> bool:
    try:
        return compat.stored_as_is(orjson.loads(path.read_bytes()))
    except orjson.JSONDecodeError:
        return False


def _scored_as_mteb(light_scores: Any, ref: Any, task: Any) -> None:
    """``selected_score`` of the fast scores == the score of mteb's own restriction."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ref.validate_and_filter_scores(task)
    total, count, gaps = _entries_score(want)
    fused = fastparse.selected_score(light_scores, task)
    assert (fused[0], fused[1], sorted(fused[2])) == (total, count, sorted(gaps)), task


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize(
    "every",
    [
        pytest.param(7, id="every-7th-file"),  # make test: a seventh of every model's files
        pytest.param(1, id="every-file", marks=pytest.mark.xslow),  # make test-all
    ],
)
def test_every_file_reads_and_filters_as_mteb(shared_results, every):
    """Every file (make test-all), or every ``every``-th of the sorted list (make test).

    On the snapshot the seventh files are 6,038 of 42,262: every task's file name (210),
    and a file of every model folder with more than six files (432 of the 474 folders).
    """
    tasks_by_name: dict[str, list[Any]] = {}
    for bench in BENCHMARKS:
        for pin in ("now", "as-of-post"):
            for spec in resolve_spec(bench, pin=pin).tasks:
                tasks_by_name.setdefault(spec.task, []).append(spec.to_mteb())
    files = sorted((shared_results / "remote" / "results").rglob("*.json"))
    files = [f for f in files if f.name != "model_meta.json"]
    assert len(files) > 40_000
    files = files[::every]
    fast_route = read = filtered = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            light, ref = _read_both(path)
            if isinstance(ref, type):
                continue
            read += 1
            fast_route += _takes_fast_route(path)
            for task in tasks_by_name.get(ref.task_name, []):
                _scored_as_mteb(light[2], ref, task)
                filtered += 1
    # the proof must cover the fast route, not only the fallback
    assert fast_route > 0.75 * read, (fast_route, read)  # 82% on the snapshot
    assert filtered > 30_000 / every


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("pin", ["as-of-post", pytest.param("now", marks=pytest.mark.xslow)])
def test_leaderboards_equal_with_both_engines(shared_results, pin):
    kw = dict(results=shared_results, use_cache=False, pin=pin, workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = load_leaderboards(BENCHMARKS, engine="fast", **kw)
        ref = load_leaderboards(BENCHMARKS, engine="mteb", **kw)
    for bench in BENCHMARKS:
        for attr in ("scores", "missing", "summary"):
            pd.testing.assert_frame_equal(getattr(fast[bench], attr), getattr(ref[bench], attr))
        assert fast[bench].provenance["engine"] == "fast"


_PHASE = {"name": "encode", "start": 1.0, "end": 2.5, "split": "test", "subset": "default"}


def _payload(**overrides: Any) -> dict[str, Any]:
    payload = {
        "dataset_revision": "r",
        "task_name": "STSBenchmark",
        "mteb_version": "2.26.24",
        "evaluation_time": 1.5,
        "scores": {
            "test": [{"main_score": 0.5, "hf_subset": "default", "languages": ["eng-Latn"]}]
        },
    }
    payload.update(overrides)
    return payload


@pytest.mark.parametrize(
    ("overrides", "fast"),
    [
        ({}, True),
        ({"mteb_version": "1.12.47"}, True),  # old, but not pair classification
        ({"mteb_version": "1.2.0"}, True),  # validates as is: no legacy conversion
        ({"mteb_version": "1.2.0", "task_name": "SprintDuplicateQuestions"}, False),
        ({"mteb_version": "1.2.0", "task_name": "NoSuchTask"}, False),  # mteb raises
        ({"mteb_version": "2.1.0-2.3.0"}, True),  # a range: its minimum counts
        ({"mteb_version": "not a version"}, True),
        ({"mteb_version": None}, True),  # validates as is, nothing to backfill
        ({"date": 1700000000.5}, True),
        ({"date": "2024-01-01"}, False),
        ({"evaluation_phases": []}, True),
        ({"evaluation_phases": [_PHASE]}, True),
        ({"evaluation_phases": [{**_PHASE, "start": 3}]}, True),  # an int time: a float
        ({"evaluation_phases": [{**_PHASE, "start": "3"}]}, False),
        ({"evaluation_phases": [{**_PHASE, "end": True}]}, False),
        ({"evaluation_phases": [{**_PHASE, "extra": 1}]}, False),
        ({"evaluation_phases": [{k: v for k, v in _PHASE.items() if k != "name"}]}, False),
        ({"evaluation_phases": {"name": "x"}}, False),
        ({"evaluation_time": "1.5"}, False),
        ({"evaluation_time": True}, False),
        ({"scores": {"test": [{"main_score": 0.5, "hf_subset": 1, "languages": []}]}}, False),
        ({"scores": {"test": [{"hf_subset": "default", "languages": []}]}}, False),
        ({"scores": {"test": {"main_score": 0.5}}}, False),
    ],
)
def test_fast_route_only_for_the_current_format(overrides, fast, tmp_path):
    payload = _payload(**overrides)
    assert compat.stored_as_is(payload) is fast
    path = tmp_path / "STSBenchmark.json"
    path.write_text(json.dumps(payload))
    _, ref = _read_both(path)  # equal to mteb's, or the same error
    assert not (fast and isinstance(ref, type)), "the fast route took a file mteb rejects"


def test_nan_tokens_and_missing_fields_fall_back_to_mteb(tmp_path):
    nan_file = tmp_path / "nan.json"
    nan_file.write_text(json.dumps(_payload(evaluation_time=math.nan)))
    assert "NaN" in nan_file.read_text()
    light, ref = _read_both(nan_file)
    assert light[0] == "STSBenchmark" and math.isnan(ref.evaluation_time)

    no_time = _payload()
    del no_time["evaluation_time"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(no_time))
    light, ref = _read_both(bad)
    assert isinstance(ref, type) and light is ref


def test_missing_subsets_and_splits_are_gaps_as_mteb_fills_them(tmp_path):
    import mteb
    from mteb.results import TaskResult

    task = mteb.get_task("STS17", hf_subsets=["en-en", "en-de"])
    scores = {
        "test": [
            {"main_score": 0.9, "hf_subset": "en-en", "languages": ["eng-Latn"]},
            {"main_score": 0.1, "hf_subset": "ko-ko", "languages": ["kor-Hang"]},
        ],
        "dev": [{"main_score": 0.2, "hf_subset": "en-en", "languages": ["eng-Latn"]}],
    }
    path = tmp_path / "STS17.json"
    path.write_text(json.dumps(_payload(task_name="STS17", scores=scores)))
    assert fastparse.selected_score(scores, task) == (0.9, 1, ["test/en-de"])
    _scored_as_mteb(fastparse.read_scores(path)[2], TaskResult.from_disk(path), task)
    no_test = {"dev": scores["dev"]}
    assert sorted(fastparse.selected_score(no_test, task)[2]) == ["test/en-de", "test/en-en"]
    path.write_text(json.dumps(_payload(task_name="STS17", scores=no_test)))
    _scored_as_mteb(no_test, TaskResult.from_disk(path), task)


def test_a_changed_mteb_turns_the_fast_reader_off(monkeypatch, tmp_path, caplog):
    """Another digest of mteb's code: a warning, and the loader reads with mteb's functions."""
    from analysis.results import parsing

    monkeypatch.setattr(compat, "_reader_state", [])
    monkeypatch.setattr(compat, "_reader_notes", [])
    changed = {**compat.RESULT_READER_SOURCES, "TaskResult.from_disk": "0" * 16}
    monkeypatch.setattr(compat, "RESULT_READER_SOURCES", changed)
    with caplog.at_level("WARNING"):
        assert compat.fast_reader_in_step() is False
    assert "TaskResult.from_disk" in caplog.text and "mteb's own" in caplog.text
    monkeypatch.setattr(fastparse, "read_scores", _fails)
    folder = tmp_path / "org__m" / "r1"
    folder.mkdir(parents=True)
    (folder / "model_meta.json").write_text(json.dumps({"name": "org/m", "revision": "r1"}))
    (folder / "STSBenchmark.json").write_text(json.dumps(_payload()))
    spec = resolve_spec("MTEB(eng, v2)", pin="now")
    parsed = parsing.load_chunk([(str(folder / "STSBenchmark.json"), 0)], [spec], "fast")
    assert parsed.scores[0]["main_score"].tolist() == [0.5]


def _fails(path: Any) -> Any:
    raise AssertionError("the fast reader ran")
