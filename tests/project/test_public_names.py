"""Each package's public names are listed once: its ``if TYPE_CHECKING:`` imports.

``__all__`` and the lazy look-up are read from that block (:mod:`analysis.core.lazy`), so
a name added there is public, typed and lazily loaded at once; a second listing (an
``__all__`` literal, a name -> module map, a stub) is what this test refuses.
"""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import tokenize
from collections import Counter
from pathlib import Path

import pytest

from analysis.core.lazy import type_checking_imports
from tests.conftest import REPO

PACKAGES = {
    "analysis": REPO / "analysis",
    "analysis.notebook": REPO / "analysis" / "notebook",
    "analysis.stats": REPO / "analysis" / "stats",
}


def _mentions(folder: Path) -> Counter[str]:
    """How often each name is listed in the package's ``__init__`` (and stubs).

    A listing is a name imported (after ``import``; not the module path before it, so a
    function named as its module, ``stats.compare``, counts once) or a string literal.
    """
    counts: Counter[str] = Counter()
    for path in [folder / "__init__.py", *folder.glob("*.pyi")]:
        source = path.read_text(encoding="utf-8")
        importing = False
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                importing = False
            elif token.type == tokenize.NAME and token.string == "import":
                importing = True
            elif token.type == tokenize.NAME and importing and token.string != "as":
                counts[token.string] += 1
            elif token.type == tokenize.STRING and token.string[:1] in "\"'":
                counts[token.string.strip("\"'")] += 1
    return counts


@pytest.mark.parametrize("package", PACKAGES)
def test_each_public_name_is_listed_once(package: str) -> None:
    module = importlib.import_module(package)
    counts = _mentions(PACKAGES[package])
    again = {name: counts[name] for name in module.__all__ if counts[name] != 1}
    assert not again, f"{package}/__init__.py lists these names more than once: {again}"


def test_a_name_listed_twice_is_seen(tmp_path: Path) -> None:
    """The count sees the old layout (import, lazy map, ``__all__``): the test can fail."""
    (tmp_path / "__init__.py").write_text(
        "if TYPE_CHECKING:\n    from .a import f\n_LAZY = {'f': 'pkg.a'}\n__all__ = ['f']\n"
    )
    assert _mentions(tmp_path)["f"] == 3


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_loads_from_the_module_the_block_names(package: str) -> None:
    module = importlib.import_module(package)
    block = type_checking_imports(PACKAGES[package] / "__init__.py", package)
    assert module.__all__ == list(block)
    for name, source in block.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        module.not_a_name  # noqa: B018


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


def test_a_package_without_the_block_says_where_names_go(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("__all__ = ['f']\n")
    with pytest.raises(ImportError, match="TYPE_CHECKING"):
        type_checking_imports(tmp_path / "__init__.py", "pkg")
