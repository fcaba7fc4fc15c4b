"""tools/docs_notebooks.py: which executed copies can become the site's notebook pages.

A copy is stale when missing, older than its source or the profile, or failed; stale
copies are refused with the command that refreshes them, fresh ones copied unchanged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO, load_file


def _tool() -> ModuleType:
    return load_file(REPO / "tools" / "docs_notebooks.py", "docs_notebooks")


tool = _tool()


def _notebook(*outputs: list[dict]) -> str:
    cells = [{"cell_type": "markdown", "source": "# T", "metadata": {}}]
    cells += [
        {"cell_type": "code", "source": "", "metadata": {}, "outputs": o, "execution_count": 1}
        for o in outputs
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _set_age(path: Path, seconds_ago: float) -> None:
    stamp = path.stat().st_mtime - seconds_ago
    os.utime(path, (stamp, stamp))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with two notebooks in the figures profile (second one first) and one not."""
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "figures.yaml").write_text("_notebooks: [second, first]\n")
    (tmp_path / "notebooks").mkdir()
    for name in ("first", "second", "other"):
        (tmp_path / "notebooks" / f"{name}.py").write_text("# %%\n1\n")
        _set_age(tmp_path / "notebooks" / f"{name}.py", 100)
    _set_age(tmp_path / "params" / "figures.yaml", 100)
    copies = tmp_path / "build" / "notebooks" / "figures"
    copies.mkdir(parents=True)
    for name in ("first", "second"):
        (copies / f"{name}.ipynb").write_text(_notebook([]))
    return tmp_path


def test_pages_follow_the_profile_order(project: Path) -> None:
    assert tool.page_names(project) == ["second", "first"]


def test_fresh_copies_are_not_stale(project: Path) -> None:
    assert tool.stale(project / "build" / "notebooks" / "figures", project) == {}


def test_a_missing_copy_is_stale(project: Path) -> None:
    copies = project / "build" / "notebooks" / "figures"
    (copies / "first.ipynb").unlink()
    assert tool.stale(copies, project) == {"first": f"no executed copy {copies / 'first.ipynb'}"}


def test_a_copy_older_than_its_source_or_the_profile_is_stale(project: Path) -> None:
    copies = project / "build" / "notebooks" / "figures"
    (project / "notebooks" / "second.py").write_text("# %%\n2\n")
    assert "older than notebooks/second.py" in tool.stale(copies, project)["second"]
    (copies / "second.ipynb").write_text(_notebook([]))  # run again: fresh
    assert tool.stale(copies, project) == {}
    (project / "params" / "figures.yaml").write_text("_notebooks: [second, first]\n# edit\n")
    assert set(tool.stale(copies, project)) == {"first", "second"}


def test_a_failed_copy_is_stale_and_names_the_cell(project: Path) -> None:
    copies = project / "build" / "notebooks" / "figures"
    error = {"output_type": "error", "ename": "ValueError", "evalue": "x", "traceback": []}
    (copies / "first.ipynb").write_text(_notebook([], [error]))
    assert tool.stale(copies, project) == {
        "first": f"{copies / 'first.ipynb'} failed in code cell 2"
    }


def test_copy_pages_refuses_stale_copies_and_names_the_fix(project: Path) -> None:
    copies = project / "build" / "notebooks" / "figures"
    (copies / "second.ipynb").unlink()
    with pytest.raises(tool.StaleCopiesError) as err:
        tool.copy_pages(project / "docs" / "notebooks", copies, project)
    assert "second: no executed copy" in str(err.value)
    assert "make docs RESULTS=../shared/mteb-cache" in str(err.value)
    assert not (project / "docs" / "notebooks").exists()


def test_copy_pages_copies_fresh_ones_and_drops_others(project: Path) -> None:
    copies = project / "build" / "notebooks" / "figures"
    dest = project / "docs" / "notebooks"
    dest.mkdir(parents=True)
    (dest / "removed_from_profile.ipynb").write_text(_notebook([]))
    assert tool.copy_pages(dest, copies, project) == ["second", "first"]
    assert sorted(p.name for p in dest.iterdir()) == ["first.ipynb", "second.ipynb"]
    _set_age(dest / "first.ipynb", 50)
    before = (dest / "first.ipynb").stat().st_mtime
    (copies / "second.ipynb").write_text(
        _notebook([{"output_type": "stream", "name": "stdout", "text": "new"}])
    )
    tool.copy_pages(dest, copies, project)
    assert (dest / "first.ipynb").stat().st_mtime == before, "an unchanged page was rewritten"
    assert "new" in (dest / "second.ipynb").read_text()


def test_the_environment_names_another_folder_of_copies(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(tool.COPIES_ENV, raising=False)
    assert tool.copies_dir(project) == project / "build" / "notebooks" / "figures"
    monkeypatch.setenv(tool.COPIES_ENV, str(tmp_path / "elsewhere"))
    assert tool.copies_dir(project) == tmp_path / "elsewhere"
