"""Each package's public names are listed once: the imports of its ``__init__.pyi`` stub.

Type checkers read the stub, and at run time ``lazy_loader.attach_stub`` (scientific
Python's SPEC 1) reads the same imports to give ``__all__`` and load each name on first use;
so a name added there is public, typed and lazily loaded at once. A second listing (an
``__all__`` literal, a name -> module map, an import in ``__init__.py``) is what this test
refuses.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGES = {
    "analysis": REPO / "analysis",
    "analysis.notebook": REPO / "analysis" / "notebook",
    "analysis.stats": REPO / "analysis" / "stats",
}


def stub_imports(folder: Path, package: str) -> dict[str, str]:
    """Name -> absolute module of each ``from .x import name`` of ``folder/__init__.pyi``."""
    tree = ast.parse((folder / "__init__.pyi").read_text(encoding="utf-8"))
    return {
        alias.name: importlib.util.resolve_name("." * node.level + (node.module or ""), package)
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def _listings(folder: Path) -> list[str]:
    """Every name the package's ``__init__.py`` and stub list: imported, or a string literal."""
    names = []
    for path in (folder / "__init__.py", folder / "__init__.pyi"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.append(node.value)
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_each_public_name_is_listed_once(package: str) -> None:
    module = importlib.import_module(package)
    listed = _listings(PACKAGES[package])
    again = {name: listed.count(name) for name in module.__all__ if listed.count(name) != 1}
    assert not again, f"{package}: these names are listed more than once: {again}"


def test_a_name_listed_twice_is_seen(tmp_path: Path) -> None:
    """The count sees a second listing (an ``__all__`` literal beside the stub): it can fail."""
    (tmp_path / "__init__.py").write_text("__all__ = ['f']\n")
    (tmp_path / "__init__.pyi").write_text("from .a import f as f\n")
    assert _listings(tmp_path).count("f") == 2


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_loads_from_the_module_the_stub_names(package: str) -> None:
    module = importlib.import_module(package)
    stub = stub_imports(PACKAGES[package], package)
    assert sorted(module.__all__) == sorted(stub)
    assert not [n for n in module.__all__ if n.startswith("_")], "public names have no underscore"
    for name, source in stub.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name)
    with pytest.raises(AttributeError, match="not_a_name"):
        module.not_a_name  # noqa: B018


def test_a_function_named_as_its_module_stays_the_function() -> None:
    """``analysis.stats.compare`` is the function, even after its module was imported."""
    code = (
        "import importlib, analysis.stats\n"
        "module = importlib.import_module('analysis.stats.compare')\n"
        "from analysis.stats import compare\n"
        "print(compare is module.compare, analysis.stats.compare is module.compare)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout
    assert out.split() == ["True", "True"], out


def test_importing_the_packages_loads_none_of_their_names() -> None:
    code = (
        "import sys, analysis, analysis.notebook\n"
        "heavy = [m for m in ('pandas', 'mteb', 'torch', 'matplotlib') if m in sys.modules]\n"
        "print(analysis.__all__[:1], analysis.notebook.__all__[:1], heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout
    assert out.strip().endswith("[]"), out


def test_an_installed_package_ships_its_stubs() -> None:
    """The stubs are package data: without them an installed package would list no name."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = set(data["package-data"]["analysis"])
    stubs = {
        p.relative_to(REPO / "analysis").as_posix() for p in PACKAGES["analysis"].rglob("*.pyi")
    }
    assert stubs == {
        (f.relative_to(REPO / "analysis") / "__init__.pyi").as_posix() for f in PACKAGES.values()
    }
    assert stubs <= shipped, f"add {sorted(stubs - shipped)} to [tool.setuptools.package-data]"
