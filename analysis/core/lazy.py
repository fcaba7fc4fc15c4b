"""A package's public names listed once, loaded on first use, and seen by type checkers.

The one listing is the package's ``if TYPE_CHECKING:`` block of ``from ... import``
statements: type checkers read it as they read any import; at run time the block does not
run, and :class:`LazyNames` reads the same statements from the package's source (its
syntax tree, once, about a millisecond) to know which module holds each name.
``__all__`` is those names; a name's module is imported when the name is first used, so
``import analysis`` (and every ``--help`` of the command line) imports neither pandas nor
mteb.

The block holds the public names and nothing else (an import there for annotations only
would become public).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path
from typing import Any


class LazyNames:
    """The public names of a package, from its ``if TYPE_CHECKING:`` imports.

    Args:
        package: The package's ``__name__``.
        init_file: The package's ``__file__`` (its ``__init__.py``).
        submodules: Also give the package's submodules by attribute (``analysis.stats``).

    Raises:
        ImportError: If the source holds no such block (e.g. installed without sources).
    """

    def __init__(self, package: str, init_file: str, *, submodules: bool = False) -> None:
        self.package = package
        self.submodules = submodules
        self.modules = type_checking_imports(Path(init_file), package)

    @property
    def names(self) -> list[str]:
        """The public names, in the order the block lists them (the package's ``__all__``)."""
        return list(self.modules)

    def bind_shadowed(self, namespace: dict[str, Any]) -> None:
        """Load now the names their own module is named after (``stats.compare``).

        Importing a submodule binds it on its package under its own name, which would
        hide a public function of the same name from ``__getattr__``; bound first, the
        function stays (the import system binds a submodule only when it first loads it).
        """
        for name, module in self.modules.items():
            if module == f"{self.package}.{name}":
                self.load(name, namespace)

    def load(self, name: str, namespace: dict[str, Any]) -> Any:
        """The package attribute ``name``: imported from its module and kept in ``namespace``.

        Args:
            name: The attribute asked for (the package's module-level ``__getattr__``).
            namespace: The package's ``globals()``; the value is stored there, so the next
                look-up does not come back here.

        Raises:
            AttributeError: For a name that is neither public nor (with ``submodules``) a
                submodule.
        """
        if name in self.modules:
            value = getattr(importlib.import_module(self.modules[name]), name)
            namespace[name] = value
            return value
        if (
            self.submodules
            and not name.startswith("_")
            and importlib.util.find_spec(f"{self.package}.{name}") is not None
        ):
            return importlib.import_module(f"{self.package}.{name}")
        raise AttributeError(f"module {self.package!r} has no attribute {name!r}")


def type_checking_imports(init_file: Path, package: str) -> dict[str, str]:
    """Name -> absolute module of each ``from ... import`` in ``init_file``'s TYPE_CHECKING block.

    Args:
        init_file: A package's ``__init__.py``.
        package: The package's name, to resolve relative imports.

    Returns:
        The names in the order written.

    Raises:
        ImportError: If there is no such block or the file cannot be read.
    """
    try:
        tree = ast.parse(init_file.read_text(encoding="utf-8"), str(init_file))
    except OSError as err:
        raise ImportError(
            f"{package} lists its public names in the source of {init_file}, which cannot be "
            f"read ({err}); install the package with its .py files (pip install -e .)."
        ) from err
    modules: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom):
                    relative = "." * statement.level + (statement.module or "")
                    module = importlib.util.resolve_name(relative, package)
                    modules.update(
                        {alias.asname or alias.name: module for alias in statement.names}
                    )
    if not modules:
        raise ImportError(
            f"{init_file} has no `if TYPE_CHECKING:` block of `from ... import` statements: "
            "its public names are listed there (analysis.core.lazy)."
        )
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )
