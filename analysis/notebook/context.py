"""One call at the top of every notebook: quiet warnings, inline figures, one style, results.

Usage (the first code cell after the ``parameters`` cell)::

    from analysis.notebook import setup
    nb = setup("significance.py")             # reads the parameters cell itself
    board = load_leaderboard("RTEB(beta)", results=nb.results)
    rng = nb.rng("significance_claims")       # this table's own seed stream
    nb.table(frame, "significance_claims", pvalue_columns=("p",))   # .md + inline view
    nb.figure(fig, "significance_pairwise_heatmap")                  # PNG + SVG + inline

Every parameter goes into every table header; the results folder is resolved by
:meth:`analysis.results.folder.ResultsFolders.resolve` (``docs/notebooks_guide.md``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import NotebookError
from ..core.io import provenance_line, save_figure, write_markdown_table
from ..core.paths import from_root
from ..core.quiet import filter_harmless_warnings
from ..core.seeds import seed_stream
from ..results.folder import ResultsFolders
from .display import (
    QuietList,
    QuietPath,
    check_columns,
    display_path,
    pvalues_as_text,
    show_package_warnings_as_notes,
    styled,
)
from .params import find_source, header_parameters, read_parameters
from .style import apply_style

# --------------------------------------------------------------------------- results folder


def resolve_results(
    results_dir: str | Path | Sequence[str | Path] | None, runs_dir: str | Path | None = None
) -> ResultsFolders:
    """The results folder(s) a notebook reads: parameter > ``$STATIC_RTEB_RESULTS`` > mteb default.

    :meth:`analysis.results.folder.ResultsFolders.resolve` decides; ``runs_dir`` (relative
    to the repository root) is the notebook's own runs folder, left out while it holds no
    results (the notebook runs into it and merges it itself).

    Raises:
        ResultsNotFoundError: A given folder holds no results, or none was given while
            offline and mteb's default cache is empty.
    """
    own = from_root(runs_dir) if runs_dir else None
    return ResultsFolders.resolve(results_dir or None, own_runs=own)


# --------------------------------------------------------------------------- the context


@dataclass
class NotebookContext:
    """What :func:`setup` returns: parameters, output and results folders, display helpers.

    Attributes:
        notebook: The notebook's file name (``significance.py``), named in table headers.
        parameters: The notebook's parameters (all of its parameters cell, by default),
            written into every table header.
        out: Output folder for tables and figures.
        results: The results folders the loaders read (a ``ResultsFolders``).
        in_kernel: Running inside a Jupyter kernel (figures and tables are displayed).
    """

    notebook: str
    parameters: dict[str, Any]
    out: Path
    results: ResultsFolders | None
    in_kernel: bool = False
    _written: list[Path] = field(default_factory=list, repr=False)
    _results_provenance: Callable[[], dict[str, Any]] = field(default=dict, repr=False)

    def provenance(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A table header's entries: the parameters, then ``extra``, the results folder, ``mteb``.

        ``results_dir`` is replaced by the folder actually read, its fingerprint and file
        count (the same whichever way the folder was given); ``output_dir`` and
        ``cache_dir`` are left out (see :data:`analysis.notebook.params.NOT_IN_HEADERS`).
        ``mteb`` is the installed mteb's version (its task lists and training-data records).
        """
        return {**header_parameters(self.parameters), **(extra or {}), **self._results_provenance()}

    def output(self, name: str) -> str:
        """Where a file of this notebook's is written, as prose names it: ``figures/x.md``.

        Under ``output_dir``, relative to the repository root (:func:`display_path`), so a
        link follows the folder the run writes to, not the committed ``figures/``.
        """
        return Path(display_path(self.out / name)).as_posix()

    def rng(self, *key: str) -> np.random.Generator:
        """A generator of its own for one table or figure: ``nb.rng("significance_claims")``.

        Derived from the notebook's ``seed`` parameter and the name
        (:func:`analysis.core.seeds.seed_stream`), so adding or reordering other tables never
        changes its draws. Each call starts the stream afresh.

        Raises:
            NotebookError: The notebook has no ``seed`` parameter.
        """
        if "seed" not in self.parameters:
            raise NotebookError(
                f"{self.notebook} has no `seed` parameter; add `seed: int = 20251006  # random "
                "seed` to its parameters cell."
            )
        return seed_stream(self.parameters["seed"], *key)

    def table(
        self,
        frame: pd.DataFrame,
        name: str,
        *,
        title: str | None = None,
        note: str | None = None,
        floatfmt: str = ".2f",
        pvalue_columns: Sequence[str] = (),
        parameters: Mapping[str, Any] | None = None,
        show: bool = True,
        shown_columns: Sequence[str] | None = None,
    ) -> Path:
        """Write ``<out>/<name>.md`` (provenance header) and display a rounded view inline.

        The index is not written (reset it first if it matters). ``title`` is a bold line
        above, ``note`` text below; ``pvalue_columns`` show as ``"<0.001"``, never
        ``"0.000"``; ``parameters`` are extra header entries (e.g. the pin of a loop);
        ``shown_columns`` are displayed inline, the answer first (the file holds every
        column, and the line below the table names the others). Returns the path written.
        """
        check_columns(frame, pvalue_columns)
        if shown_columns is not None:
            check_columns(frame, shown_columns, "shown_columns")
        path = write_markdown_table(
            self.out / f"{name}.md",
            pvalues_as_text(frame, pvalue_columns),
            notebook=self.notebook,
            parameters=self.provenance(parameters),
            title=title,
            note=note,
            floatfmt=floatfmt,
        )
        path = QuietPath(path)
        self._written.append(path)
        if show:
            if title:
                self.md(f"**{title}**")
            shown = list(frame.columns) if shown_columns is None else list(shown_columns)
            self.show(
                frame[shown],
                floatfmt=floatfmt,
                pvalue_columns=[c for c in pvalue_columns if c in shown],
            )
            hidden = [str(c) for c in frame.columns if c not in shown]
            more = f" (with {len(hidden)} more columns: {', '.join(hidden)})" if hidden else ""
            self.md(f"Wrote `{display_path(path)}`{more}.")
        return path

    def figure(self, fig: Any, name: str, *, show: bool = True, close: bool = True) -> list[Path]:
        """Save ``fig`` as ``<out>/<name>.png`` and ``.svg``, show it inline, say what was written.

        ``name`` may contain dots (``plot.as-of-post``); ``close`` closes the figure afterwards,
        so the inline backend does not show it twice. Returns the PNG and SVG paths.
        """
        paths: list[Path] = QuietList(QuietPath(p) for p in save_figure(fig, self.out / name))
        self._written.extend(paths)
        if show and self.in_kernel:
            from IPython.display import display

            display(fig)
        if close:
            import matplotlib.pyplot as plt

            plt.close(fig)
        print("Wrote " + ", ".join(display_path(p) for p in paths))
        return paths

    def interactive(self, page: Any, name: str, *, show: bool = True) -> Path:
        """Write ``<out>/<name>.html``, a self-contained page, and show it inline; return its path.

        ``page`` is what :func:`analysis.notebook.explorer.rank_explorer` returns (``write(path,
        comment=...)`` and an HTML repr); the comment names the notebook, its parameters and
        the results, as a table's header does.
        """
        header = provenance_line(self.notebook, self.provenance())
        path = QuietPath(page.write(self.out / f"{name}.html", comment=header))
        self._written.append(path)
        if show and self.in_kernel:
            from IPython.display import display

            display(page)
        print(f"Wrote {display_path(path)}")
        return path

    def show(
        self,
        frame: pd.DataFrame,
        *,
        floatfmt: str = ".2f",
        pvalue_columns: Sequence[str] = (),
        index: bool = False,
        caption: str = "",
    ) -> None:
        """Display ``frame`` rounded (a pandas Styler), p-values as ``"<0.001"``.

        ``caption`` goes above it (e.g. that it is the first rows of a longer table).
        Returns None, so a call ending a cell does not show the table twice; use
        :func:`styled` for the Styler itself.
        """
        check_columns(frame, pvalue_columns)
        styler = styled(frame, floatfmt=floatfmt, pvalue_columns=pvalue_columns, index=index)
        styler = styler.set_caption(caption) if caption else styler
        if self.in_kernel:
            from IPython.display import display

            display(styler)

    def md(self, text: str) -> None:
        """Display Markdown (prose with numbers rendered from variables)."""
        if self.in_kernel:
            from IPython.display import Markdown, display

            display(Markdown(text))
        else:
            print(text)

    @property
    def written(self) -> list[Path]:
        """Every file this context wrote, in order."""
        return list(self._written)


def setup(
    notebook: str,
    *,
    parameters: Mapping[str, Any] | None = None,
    output_dir: str | Path | None = None,
    resolve: bool = True,
    namespace: Mapping[str, Any] | None = None,
) -> NotebookContext:
    """Prepare a notebook: parameters, warnings, inline figures, style, output and results.

    Args:
        notebook: The notebook's file name, e.g. ``"significance.py"`` (its source in
            ``notebooks/`` is read for the names of its parameters).
        parameters: The parameters to record, instead of reading them (scripts and tests
            without a notebook file); its ``results_dir`` chooses the results folder.
        output_dir: Output folder, relative to the repository root (default: the
            ``output_dir`` parameter, else ``figures``).
        resolve: Resolve the results folder now (False for notebooks that read none).
        namespace: Where the parameters cell ran (default: the caller's globals, i.e. the kernel's).

    Raises:
        NotebookError: The notebook's source cannot be found, or its parameters cell has not run.
        ResultsNotFoundError: See :func:`resolve_results`.
    """
    if parameters is None:
        name = find_source(notebook).name
        caller = getattr(inspect.currentframe(), "f_back", None)  # the kernel's, in a notebook
        params = read_parameters(notebook, namespace or getattr(caller, "f_globals", {}))
    else:
        name, params = Path(notebook).name, dict(parameters)
    filter_harmless_warnings()
    from IPython import get_ipython

    shell = get_ipython()
    if getattr(shell, "kernel", None) is None:  # not in a Jupyter kernel (lab or papermill)
        shell = None
    if shell is not None:  # the inline backend even when MPLBACKEND=Agg (batch runs)
        shell.run_line_magic("matplotlib", "inline")
    apply_style()
    pd.set_option("display.precision", 3, "display.max_columns", 30)
    results = (
        resolve_results(params.get("results_dir"), params.get("runs_dir")) if resolve else None
    )
    # the table headers' results entries (computed once, on first use) and the mteb reading them
    provenance = functools.cache(
        lambda: {**(results.provenance() if results is not None else {}), "mteb": version("mteb")}
    )
    out = from_root(output_dir or params.get("output_dir") or "figures")
    out.mkdir(parents=True, exist_ok=True)
    context = NotebookContext(
        name, params, out, results, in_kernel=shell is not None, _results_provenance=provenance
    )
    if shell is not None:
        show_package_warnings_as_notes()
    if shell is not None and results is not None:
        info = provenance()
        shown = f"{info['results']} (fingerprint {info['results_fingerprint']}, "
        context.md(
            f"Results: `{shown}{info['result_files']} files)` · outputs: `{display_path(out)}/`"
        )
    return context
