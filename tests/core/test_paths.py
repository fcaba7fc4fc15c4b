"""Paths: the repository root, the shared folder, relative paths in notebook parameters."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis.core.paths import from_root, repo_root, shared_dir


def test_shared_paths_follow_shared_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A notebook parameter's ``../shared/...`` (the post, task copies) is in ``$SHARED_DIR``
    when it is set (``make docs`` failed with the shared folder elsewhere), else beside the
    repository; other relative paths stay under the root."""
    monkeypatch.delenv("SHARED_DIR", raising=False)
    beside = Path(os.path.abspath(repo_root() / ".." / "shared" / "tasks"))
    assert from_root("../shared/tasks") == beside
    assert shared_dir() == repo_root().parent / "shared"
    monkeypatch.setenv("SHARED_DIR", str(tmp_path / "elsewhere"))
    assert (
        from_root("../shared/reference/post.md") == tmp_path / "elsewhere" / "reference" / "post.md"
    )
    assert from_root("data/runs") == repo_root() / "data" / "runs"
    assert from_root("../sharedx/a") == repo_root().parent / "sharedx" / "a"
    assert from_root(tmp_path / "abs") == tmp_path / "abs"


def test_a_folder_in_shared_dir_is_named_as_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headers name a folder of ``$SHARED_DIR`` as ``../shared/...``, the spelling
    :func:`from_root` reads it by, so the committed headers do not change on a machine whose
    shared folder is elsewhere; other folders keep their own names, and links are kept."""
    from analysis.core.paths import display_path

    monkeypatch.setenv("SHARED_DIR", str(tmp_path / "elsewhere"))
    cache = tmp_path / "elsewhere" / "mteb-cache"
    assert display_path(cache) == "../shared/mteb-cache"
    assert display_path(from_root("../shared/mteb-cache")) == "../shared/mteb-cache"
    assert display_path(tmp_path / "elsewhere") == "../shared"
    assert display_path(tmp_path / "elsewhere2" / "x") == (tmp_path / "elsewhere2" / "x").as_posix()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    assert (
        display_path(tmp_path / "link" / "mteb-cache") == (tmp_path / "link/mteb-cache").as_posix()
    )


def test_the_repository_first_then_shared_dir_then_a_sibling_that_is_not_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SHARED_DIR above the repository does not rename its folders; a relative one is read
    from the root, as from_root reads it; a sibling folder keeps its ``../`` name (the way a
    user beside the repository types it: the getting-started walk)."""
    from analysis.core.paths import display_path

    root = repo_root()
    monkeypatch.setenv("SHARED_DIR", str(root.parent))
    assert display_path(root / "data" / "runs") == "data/runs"
    monkeypatch.setenv("SHARED_DIR", "build/rel-shared")
    assert display_path(root / "build" / "rel-shared" / "x") == "build/rel-shared/x"  # in the repo
    monkeypatch.setenv("SHARED_DIR", "../rel-shared")
    assert display_path(from_root("../shared/mteb-cache")) == "../shared/mteb-cache"
    monkeypatch.setenv("SHARED_DIR", str(tmp_path / "elsewhere"))
    assert display_path(root.parent / "shared" / "mteb-cache") == "../shared/mteb-cache"
    assert display_path(root.parent / "other" / "x") == "../other/x"
