"""Where things are: the repository root and the results folder."""

from __future__ import annotations

import os
from pathlib import Path

RESULTS_ENV = "STATIC_RTEB_RESULTS"


def repo_root() -> Path:
    """The repository root (the folder holding ``pyproject.toml``)."""
    here = Path(__file__).resolve().parent
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file() and (folder / "analysis").is_dir():
            return folder
    return Path.cwd()


def from_root(path: str | Path) -> Path:
    """Resolve a relative path against the repository root (notebooks run from anywhere).

    The result is absolute and normalized, but symlinks are kept (``../shared`` may be
    a link), so headers name a folder the way it was given.
    """
    path = Path(path).expanduser()
    return Path(os.path.abspath(path if path.is_absolute() else repo_root() / path))


def results_location(results_dir: str | Path | None) -> str | None:
    """The results folder a notebook should read.

    Order: the ``results_dir`` parameter; else ``$STATIC_RTEB_RESULTS`` (what
    ``make figures RESULTS=...`` sets); else None, which means mteb's default cache,
    downloaded by mteb on a connected machine.
    """
    if results_dir:
        return str(from_root(results_dir))
    env = os.environ.get(RESULTS_ENV)
    return str(from_root(env)) if env else None
