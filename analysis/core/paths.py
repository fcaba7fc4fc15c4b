"""Where things are: the repository root, paths relative to it, and how a folder is named."""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable naming the results folder(s) (``make figures RESULTS=...`` sets
#: it); several folders are separated by ``os.pathsep`` (":").
RESULTS_ENV = "STATIC_RTEB_RESULTS"
#: Own runs go here unless ``--results`` says otherwise (mteb ResultCache layout).
DEFAULT_RUNS = "data/runs"
#: Where ``static-rteb plan`` writes its plan unless ``-o`` says otherwise (relative to the
#: working folder, like the default results folder ``data/runs``; ``data/`` is not committed).
DEFAULT_PLAN = "data/plan.jsonl"
#: The environment variable naming the cache folder (:func:`default_cache_dir`).
CACHE_ENV = "STATIC_RTEB_CACHE"


def default_cache_dir() -> Path:
    """``$STATIC_RTEB_CACHE`` or ``~/.cache/static-rteb``: the cache of derived data.

    Parsed leaderboards (:mod:`analysis.results.parse_cache`), distillation teachers'
    token embeddings (:mod:`analysis.runs.distill`) and the installed mteb's task and
    benchmark names (:func:`analysis.core.compat.seen_names`) are kept here, each in its
    own way; any of it can be deleted and is rebuilt.
    """
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "static-rteb"


def repo_root() -> Path:
    """The repository root (the folder holding ``pyproject.toml``)."""
    here = Path(__file__).resolve().parent
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file() and (folder / "analysis").is_dir():
            return folder
    return Path.cwd()


def shared_dir() -> Path:
    """The shared folder (the post, tasks, results): ``$SHARED_DIR``, else ``../shared``."""
    env = os.environ.get("SHARED_DIR")
    return Path(env).expanduser() if env else repo_root().parent / "shared"


def from_root(path: str | Path) -> Path:
    """Resolve a relative path against the repository root (notebooks run from anywhere).

    ``../shared/...`` is in :func:`shared_dir` (``$SHARED_DIR`` moves it). The result is
    absolute and normalized, but symlinks are kept (``../shared`` may be a link), so
    headers name a folder the way it was given.
    """
    path = Path(path).expanduser()
    if path.parts[:2] == ("..", "shared"):
        path = shared_dir().joinpath(*path.parts[2:])
    return Path(os.path.abspath(path if path.is_absolute() else repo_root() / path))


def display_path(path: str | Path) -> str:
    """How a folder is named in headers and messages: the same on every machine.

    Relative to the repository root when the folder is inside it or beside it (e.g.
    ``../shared/mteb-cache``; under :func:`shared_dir` too, as :func:`from_root` reads it),
    ``~/...`` under the home folder, else absolute. Symlinks are kept: a folder is named the
    way it was given, never through a resolved link.
    """
    absolute, root = Path(os.path.abspath(Path(path).expanduser())), repo_root()
    within = lambda folder: absolute == folder or folder in absolute.parents  # noqa: E731
    shared = from_root(shared_dir())
    if within(root) or (root.parent in absolute.parents and not within(shared)):
        return os.path.relpath(absolute, root)
    if within(shared):
        return Path("..", "shared", absolute.relative_to(shared)).as_posix()
    home = Path(os.path.abspath(Path.home()))
    if home in absolute.parents:
        return "~/" + absolute.relative_to(home).as_posix()
    return absolute.as_posix()
