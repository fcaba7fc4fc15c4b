"""The README's map of the code ("What is where") names every module of ``analysis/``.

A module added without a line in the map, or a map entry left behind after a rename, is
what a maintainer taking over trips on first.
"""

from __future__ import annotations

import re

from tests.conftest import REPO


def _map_section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("## What is where")
    return text[start : text.index("\n## ", start + 1)]


def test_every_module_is_in_the_readme_map() -> None:
    section = _map_section()
    unnamed = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "analysis").rglob("*.py"))
        if path.name != "__init__.py" and path.name not in section
    ]
    assert not unnamed, f"add these to README.md's 'What is where' table: {unnamed}"


def test_every_module_the_map_names_exists() -> None:
    names = set(re.findall(r"`([A-Za-z_]\w*\.py)`", _map_section()))
    existing = {path.name for path in (REPO / "analysis").rglob("*.py")}
    existing |= {path.name for path in (REPO / "tools").glob("*.py")}
    gone = sorted(names - existing)
    assert not gone, f"README.md's 'What is where' names modules that do not exist: {gone}"
