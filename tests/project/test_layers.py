"""The three layers you can see in the folder tree, and imports that point down only.

Floors, from the ground up: ``analysis/core`` (imports no room); the rooms
``analysis/results``, ``analysis/stats`` and ``analysis/runs``; the notebook layer
``analysis/notebook``; the command line ``analysis/cli`` on top. Every import counts,
function-level ones included (read from the syntax tree, nothing is imported).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "analysis"
FLOORS = {"core": 0, "results": 1, "stats": 1, "runs": 1, "notebook": 2, "cli": 3}


def _module(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``, relative ones resolved."""
    package = _module(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    text = path.read_text() if source is None else source
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            if node.module is None:  # from .. import a, b: each may be a module
                found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, module))
    return [(line, name) for line, name in found if name.startswith("analysis.")]


def _floor(module: str) -> int | None:
    parts = module.split(".")
    return FLOORS.get(parts[1]) if len(parts) > 1 else None


def _files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE)


def test_the_top_of_the_package_holds_only_the_layers() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert loose == [], f"modules outside a layer: {loose}"
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(FLOORS)


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_imports_point_down(path: Path) -> None:
    here = _floor(_module(path))
    assert here is not None, f"{path} is in no layer"
    upward = [
        f"line {line}: {name}"
        for line, name in _imports(path)
        if (floor := _floor(name)) is not None and floor > here
    ]
    assert not upward, f"{path.relative_to(REPO)} imports a higher floor: {upward}"


def test_the_ground_floor_imports_no_room() -> None:
    rooms = {
        f"{path.relative_to(REPO)} line {line}: {name}"
        for path in (PACKAGE / "core").glob("*.py")
        for line, name in _imports(path)
        if _floor(name) != 0
    }
    assert not rooms


def test_the_check_sees_function_level_and_relative_imports() -> None:
    """The checker itself finds an upward import inside a function (the test can fail)."""
    source = "def f():\n    from ..cli import main\n    from .. import stats\n"
    found = _imports(PACKAGE / "core" / "errors.py", source)
    assert found == [(2, "analysis.cli"), (3, "analysis.stats")]
    assert [_floor(name) for _, name in found] == [3, 1]


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (module and function level, resolved).

    ``from pkg import name`` counts as importing ``pkg.name`` when that is a module, else
    ``pkg``; a module importing its own package's ``__init__`` counts (it runs it).
    """
    files = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = set()
        for _, name in _imports(path):
            while name not in files and "." in name:  # an attribute: its module
                name = name.rsplit(".", 1)[0]
            if name in files and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    """No module imports, directly or through others, a module that imports it."""
    cycles = _cycles(_import_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
