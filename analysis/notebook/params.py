"""A notebook's parameters, read from its own ``parameters`` cell: no list typed twice.

The names come from the notebook's source (``notebooks/<name>.py``, a jupytext file), parsed
by papermill's own parameter inspection (``PythonTranslator.inspect``, what
``papermill.inspect_notebook`` and ``papermill --help-notebook`` use). The values come from
the kernel's globals, where the parameters cell, and under papermill the injected
parameters cell after it, have put them. So the same call works in a papermill batch run,
in the plain ``jupytext | papermill`` route and in an interactive JupyterLab kernel, where
``__file__`` is not set: the notebook is found by the name it passes to ``setup``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.errors import NotebookError
from ..core.paths import repo_root

#: Parameters that say where outputs and caches go, not what a table holds: left out of
#: table headers (the same table has the same header whether it went to ``figures/`` or to
#: a test's folder). ``results_dir`` is replaced by the results folder's provenance.
NOT_IN_HEADERS = frozenset({"output_dir", "cache_dir"})


def find_source(notebook: str | Path) -> Path:
    """The jupytext source of a notebook named ``notebook`` (e.g. ``"significance.py"``).

    Looks, in order, at the path itself when it is absolute, ``notebooks/<name>`` under the
    repository root, ``notebooks/<name>`` under the working directory (a batch run's
    project root) and ``<name>`` in the working directory (JupyterLab starts a kernel in
    the notebook's folder). A name without ``.py`` gets it.

    Raises:
        NotebookError: No such file; the message lists where it looked.
    """
    name = Path(notebook)
    if not name.suffix:
        name = name.with_suffix(".py")
    if name.is_absolute():
        candidates = [name]
    else:
        cwd = Path(os.getcwd())
        candidates = [repo_root() / "notebooks" / name, cwd / "notebooks" / name, cwd / name]
    for path in candidates:
        if path.is_file():
            return path
    raise NotebookError(
        f"Cannot find the notebook {str(notebook)!r} to read its parameters cell; looked at "
        f"{', '.join(str(p) for p in dict.fromkeys(candidates))}. Pass the notebook's file "
        'name as it is in notebooks/ (setup("significance.py")).'
    )


def declared_parameters(source: str | Path) -> list[str]:
    """The parameter names of a notebook's ``parameters`` cell, in order.

    Parsed by papermill's ``PythonTranslator.inspect``, so they are exactly the names
    papermill accepts with ``-p``.

    Raises:
        NotebookError: The notebook has no cell tagged ``parameters``, or several.
    """
    import jupytext
    from papermill.translators import PythonTranslator

    path = Path(source)
    cells = [c for c in jupytext.read(path).cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise NotebookError(
            f"{path} has {len(cells)} cells tagged 'parameters'; it needs exactly one "
            '(jupytext: a cell starting with `# %% tags=["parameters"]`).'
        )
    return [p.name for p in PythonTranslator.inspect(cells[0])]


def read_parameters(notebook: str | Path, namespace: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of ``notebook`` with its current value in ``namespace``.

    Returns:
        ``{name: value}`` in the order of the parameters cell.

    Raises:
        NotebookError: The source cannot be found, or a parameter has no value in
            ``namespace`` (the parameters cell has not run).
    """
    source = find_source(notebook)
    names = declared_parameters(source)
    missing = [n for n in names if n not in namespace]
    if missing:
        raise NotebookError(
            f"Parameters {missing} of {source.name} have no value yet: run the parameters "
            "cell first (Run › Run All Cells)."
        )
    return {n: namespace[n] for n in names}


def header_parameters(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters a table header shows: all but ``results_dir`` and :data:`NOT_IN_HEADERS`."""
    return {k: v for k, v in parameters.items() if k != "results_dir" and k not in NOT_IN_HEADERS}
