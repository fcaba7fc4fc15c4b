"""Imports point down: the core imports no room, the results room only the core.

And the results room and the core import with every import moved to the top of its file:
no import is kept inside a function to dodge a cycle (as ``io.results_provenance`` once
imported ``results.leaderboard``). The check copies the package, hoists every nested
import of those files to module level, and imports every module of the copy.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "analysis"
CORE = ("errors.py", "compat.py", "io.py", "paths.py")  # in analysis/core/
ROOMS = ("results", "stats", "runs")
ABOVE = ("notebook", "cli")


def _files() -> list[Path]:
    return [PACKAGE / "core" / name for name in CORE] + sorted((PACKAGE / "results").glob("*.py"))


def _imported(path: Path) -> list[str]:
    """Absolute names of the package modules a file imports (at any depth)."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = module[:-1]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names += [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("analysis"):
            names += [str(node.module)] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names if a.name.startswith("analysis")]
    return names


def test_core_imports_no_room_and_results_only_the_core():
    for path in _files():  # (the layers overall: tests/project/test_layers.py)
        inside_results = path.parent.name == "results"
        forbidden = [f"analysis.{r}" for r in ROOMS if not (inside_results and r == "results")]
        forbidden += [f"analysis.{a}" for a in ABOVE]
        bad = [
            n for n in _imported(path) if any(n == f or n.startswith(f + ".") for f in forbidden)
        ]
        assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {bad}"


def _hoisted(source: str) -> str:
    """``source`` with a copy of every nested import at the top (after __future__)."""
    tree = ast.parse(source)
    nested = []
    for top in tree.body:
        if isinstance(top, ast.Import | ast.ImportFrom):
            continue
        for node in ast.walk(top):
            if isinstance(node, ast.Import | ast.ImportFrom):
                nested.append(ast.unparse(node))
    lines = source.splitlines()
    at = next(
        (
            n.end_lineno
            for n in tree.body
            if isinstance(n, ast.ImportFrom) and n.module == "__future__"
        ),
        0,
    )
    return "\n".join([*lines[:at], *nested, *lines[at:]]) + "\n"


def test_imports_hoisted_to_the_top_still_import(tmp_path):
    copy = tmp_path / "analysis"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    hoisted = 0
    for path in _files():
        target = copy / path.relative_to(PACKAGE)
        text = path.read_text(encoding="utf-8")
        new = _hoisted(text)
        hoisted += new.count("\n") - text.count("\n")
        target.write_text(new, encoding="utf-8")
    assert hoisted > 10  # the check moves real imports
    modules = [
        ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        for p in _files()
    ]
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)\n"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_executor_interface_imports_no_executor():
    """``executors/base.py`` (the interface) imports neither implementation, nor the factory."""
    base = PACKAGE / "runs" / "executors" / "base.py"
    implementations = [f"analysis.runs.executors.{m}" for m in ("local", "slurm", "factory")]
    bad = [
        n for n in _imported(base) if any(n == f or n.startswith(f + ".") for f in implementations)
    ]
    assert not bad, f"base.py imports {bad}"
