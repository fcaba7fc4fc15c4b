"""The fast result reader equals mteb's, field by field, on every file of the snapshot.

``analysis.results.fastparse`` replaces ``TaskResult.from_disk`` and
``TaskResult.validate_and_filter_scores`` on the loader's hot path. These tests are
the proof that it may: every result file of the shared snapshot is read both ways and
compared field by field; every (file, task) selection of the benchmarks the notebooks
use is filtered both ways; and whole leaderboards are loaded with both engines.
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

from analysis.results import fastparse
from analysis.results.leaderboard import load_leaderboards
from analysis.results.parsing import entries_score as _entries_score
from analysis.results.specs import resolve_spec

BENCHMARKS = ["RTEB(beta)", "RTEB(eng, beta)", "MTEB(eng, v2)", "MTEB(Multilingual, v2)"]
FIELDS = ["dataset_revision", "task_name", "mteb_version", "scores", "evaluation_time"]


#: ``json.dumps(value, sort_keys=True, default=str, allow_nan=True)`` with its encoder made
#: once: ``json.dumps`` builds one per call, and the all-files proof calls it ten million times.
_CANONICAL = json.JSONEncoder(sort_keys=True, default=str, allow_nan=True)


def _canon(value: Any) -> str:
    """JSON text with NaN spelled out, so NaN == NaN and key order does not matter."""
    return _CANONICAL.encode(value)


def _read_both(path: Path) -> tuple[Any, Any]:
    from mteb.results import TaskResult

    outcomes = []
    for read in (fastparse.read_task_result, TaskResult.from_disk, fastparse.read_scores):
        try:
            outcomes.append(read(path))
        except Exception as err:  # the readers must fail on the same files
            outcomes.append(type(err))
    fast, ref, light = outcomes
    if isinstance(ref, type):
        assert light is ref, f"{path}: mteb raised {ref.__name__}, read_scores gave {light!r}"
    else:  # read_scores: the same task, version and scores, without the per-entry backfill
        assert not isinstance(light, type), f"{path}: read_scores raised {light.__name__}"
        assert light[:2] == (ref.task_name, ref.mteb_version), path
        assert _canon(_without_backfill(light[2], ref.mteb_version)) == _canon(
            _without_backfill(ref.scores, ref.mteb_version)
        ), path
    return fast, ref


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
        return fastparse._current_format(orjson.loads(path.read_bytes()))
    except orjson.JSONDecodeError:
        return False


def _selection(result: Any) -> dict[str, list[str]]:
    """Scores per split as sorted canonical entries (missing entries' order is free)."""
    return {split: sorted(_canon(e) for e in entries) for split, entries in result.scores.items()}


@pytest.mark.slow
@pytest.mark.shared
def test_every_file_reads_and_filters_as_mteb(shared_results):
    tasks_by_name: dict[str, list[Any]] = {}
    for bench in BENCHMARKS:
        for pin in ("now", "as-of-post"):
            for spec in resolve_spec(bench, pin=pin).tasks:
                tasks_by_name.setdefault(spec.task, []).append(spec.to_mteb())
    files = sorted((shared_results / "remote" / "results").rglob("*.json"))
    files = [f for f in files if f.name != "model_meta.json"]
    assert len(files) > 40_000
    fast_route = read = filtered = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            fast, ref = _read_both(path)
            if isinstance(ref, type):
                assert fast is ref, f"{path}: mteb raised {ref.__name__}, fast gave {fast!r}"
                continue
            assert not isinstance(fast, type), f"{path}: fast raised {fast.__name__}"
            read += 1
            fast_route += _takes_fast_route(path)
            for name in [*FIELDS, "kg_co2_emissions", "date", "evaluation_phases"]:
                got, want = getattr(fast, name, None), getattr(ref, name, None)
                assert _canon(got) == _canon(want), f"{path}: field {name} differs"
            for task in tasks_by_name.get(ref.task_name, []):
                got = fastparse.select_task_scores(fast, task)
                want = ref.validate_and_filter_scores(task)
                assert _selection(got) == _selection(want), f"{path}: {task.metadata.name}"
                total, count, gaps = _entries_score(want)
                fused = fastparse.selected_score(fast.scores, task)
                assert (fused[0], fused[1], sorted(fused[2])) == (total, count, sorted(gaps))
                filtered += 1
    # the proof must cover the fast route, not only the fallback
    assert fast_route > 0.75 * read, (fast_route, read)  # 82% on the snapshot
    assert filtered > 30_000


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("pin", ["now", "as-of-post"])
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
    from mteb.results import TaskResult

    payload = _payload(**overrides)
    assert fastparse._current_format(payload) is fast
    path = tmp_path / "STSBenchmark.json"
    path.write_text(json.dumps(payload))
    try:
        want = TaskResult.from_disk(path)
    except Exception as err:
        with pytest.raises(type(err)):
            fastparse.read_task_result(path)
        return
    got = fastparse.read_task_result(path)
    for name in [*FIELDS, "kg_co2_emissions", "date", "evaluation_phases"]:
        assert _canon(getattr(got, name)) == _canon(getattr(want, name)), name
    task_name, version, scores = fastparse.read_scores(path)
    assert (task_name, version) == (want.task_name, want.mteb_version)
    assert _canon(_without_backfill(scores, version)) == _canon(
        _without_backfill(want.scores, version)
    )


def test_nan_tokens_and_missing_fields_fall_back_to_mteb(tmp_path):
    from mteb.results import TaskResult

    nan_file = tmp_path / "nan.json"
    nan_file.write_text(json.dumps(_payload(evaluation_time=math.nan)))
    assert "NaN" in nan_file.read_text()
    got, want = fastparse.read_task_result(nan_file), TaskResult.from_disk(nan_file)
    assert math.isnan(got.evaluation_time) and math.isnan(want.evaluation_time)

    no_time = _payload()
    del no_time["evaluation_time"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(no_time))
    with pytest.raises(Exception) as fast_err:
        fastparse.read_task_result(bad)
    with pytest.raises(Exception) as mteb_err:
        TaskResult.from_disk(bad)
    assert type(fast_err.value) is type(mteb_err.value)


def test_missing_subsets_and_splits_become_nan_entries():
    import mteb

    task = mteb.get_task("STS17", hf_subsets=["en-en", "en-de"])
    result = fastparse._fast_result(
        _payload(
            task_name="STS17",
            scores={
                "test": [
                    {"main_score": 0.9, "hf_subset": "en-en", "languages": ["eng-Latn"]},
                    {"main_score": 0.1, "hf_subset": "ko-ko", "languages": ["kor-Hang"]},
                ],
                "dev": [{"main_score": 0.2, "hf_subset": "en-en", "languages": ["eng-Latn"]}],
            },
        )
    )
    got = fastparse.select_task_scores(result, task).scores
    assert list(got) == ["test"]
    assert [e["hf_subset"] for e in got["test"]] == ["en-en", "en-de"]
    assert math.isnan(got["test"][1]["main_score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = result.validate_and_filter_scores(task).scores
    assert _selection(fastparse.select_task_scores(result, task)) == {
        s: sorted(_canon(e) for e in v) for s, v in want.items()
    }
