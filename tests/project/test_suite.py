"""How the suite shares a machine (``tests/conftest.py``): threads per worker, file order."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests import conftest
from tests.conftest import FAST_TIER_FIRST, REPO, SLOW_TIER_FIRST


@pytest.mark.parametrize("named", [SLOW_TIER_FIRST, FAST_TIER_FIRST], ids=["slow", "fast"])
def test_every_file_named_first_exists_once(named: tuple[str, ...]) -> None:
    """A renamed or removed test file must leave the list, or the order silently decays."""
    missing = [path for path in named if not (REPO / "tests" / path).is_file()]
    assert not missing, f"tests/conftest.py names test files that do not exist: {missing}"
    assert len(set(named)) == len(named)


@pytest.mark.parametrize(
    ("workers", "preset", "expected"),
    [
        ("2", {}, {name: "1" for name in conftest.THREAD_VARIABLES}),  # 2 cores, 2 workers
        ("2", {"OMP_NUM_THREADS": "2"}, {"MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}),
        ("1", {}, {}),
        ("", {}, {}),
    ],
)
def test_each_worker_gets_its_share_of_the_cores(
    monkeypatch: pytest.MonkeyPatch, workers: str, preset: dict[str, str], expected: dict
) -> None:
    monkeypatch.setattr(conftest.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    for name in conftest.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in preset.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", workers)
    assert conftest.limit_threads() == expected
    for name in conftest.THREAD_VARIABLES:  # what was set before is kept
        assert conftest.os.environ.get(name) == {**preset, **expected}.get(name)


@dataclass
class _Item:
    path: Path
    slow: bool = False
    name: str = field(default="")

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "slow" and self.slow else None


def _order(items: list[_Item]) -> list[str]:
    conftest.pytest_collection_modifyitems(None, items)  # type: ignore[arg-type]
    return [f"{item.path.relative_to(REPO / 'tests')}:{item.name}" for item in items]


def test_the_longest_files_go_first_and_each_file_keeps_its_order() -> None:
    tests = REPO / "tests"
    first, second = (tests / SLOW_TIER_FIRST[i] for i in (0, 1))
    items = [
        _Item(tests / "a.py", name="1"),
        _Item(second, slow=True, name="1"),
        _Item(tests / "b.py", slow=True, name="1"),
        _Item(first, name="1"),
        _Item(first, name="2"),
        _Item(second, name="2"),
        _Item(tests / "a.py", name="2"),
    ]
    assert _order(items) == [
        f"{SLOW_TIER_FIRST[0]}:1",
        f"{SLOW_TIER_FIRST[0]}:2",
        f"{SLOW_TIER_FIRST[1]}:1",
        f"{SLOW_TIER_FIRST[1]}:2",
        "b.py:1",  # a file with a slow test before the others
        "a.py:1",
        "a.py:2",
    ]


def test_without_a_slow_test_the_fast_tier_order_is_used() -> None:
    tests = REPO / "tests"
    items = [_Item(tests / "a.py", name="1"), _Item(tests / FAST_TIER_FIRST[0], name="1")]
    assert _order(items) == [f"{FAST_TIER_FIRST[0]}:1", "a.py:1"]
