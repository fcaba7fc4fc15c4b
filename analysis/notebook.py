"""One call at the top of every notebook: quiet warnings, inline figures, one style, results.

Usage (the first code cell after the ``parameters`` cell)::

    from analysis.notebook import setup
    nb = setup("significance.py", parameters=dict(results_dir=results_dir, pin=pin),
               output_dir=output_dir)
    board = load_leaderboard("RTEB(beta)", results=nb.results)
    nb.table(frame, "significance_claims", pvalue_columns=("p",))   # .md + inline view
    nb.figure(fig, "significance_pairwise_heatmap")                  # PNG + SVG + inline

:func:`setup` filters the known harmless library warnings (:mod:`analysis.quiet`),
turns on inline figures inside a Jupyter kernel (also under papermill, whose executed
copies then keep the images), applies the project's seaborn style, and resolves the
results folder (parameter > ``$STATIC_RTEB_RESULTS`` > mteb's default cache). Offline
with none of them, it raises :class:`~analysis.errors.ResultsNotFoundError` saying
exactly what to type.
"""

from __future__ import annotations

import functools
import html
import os
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import ResultsNotFoundError
from .io import format_pvalue, results_label, save_figure, write_markdown_table
from .paths import RESULTS_ENV, from_root, repo_root, results_location
from .quiet import HARMLESS_WARNINGS, filter_harmless_warnings, widget_progress

#: The color of every model that is not one of the post's four.
OTHER_COLOR = "#b0b0b0"
#: Colors of the post's models, in the order of the post's RTEB table (colorblind-safe).
POST_COLORS = ("#0173b2", "#de8f05", "#029e73", "#cc78bc")


def _kernel_shell() -> Any | None:
    """The IPython shell when running inside a Jupyter kernel (lab or papermill), else None."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return None
    shell = get_ipython()
    return shell if shell is not None and getattr(shell, "kernel", None) is not None else None


def apply_style() -> None:
    """The project's one plotting style: seaborn whitegrid, readable fonts, tight layouts."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook", font_scale=0.95)
    mpl.rcParams.update(
        {
            "figure.dpi": 100,
            "figure.constrained_layout.use": True,
            "axes.titlesize": "medium",
            "axes.titleweight": "bold",
            "legend.fontsize": "small",
            "legend.frameon": False,
        }
    )


def _inline_figures(shell: Any | None) -> None:
    """Inside a kernel, use the inline backend even when ``MPLBACKEND=Agg`` (batch runs)."""
    if shell is not None:
        shell.run_line_magic("matplotlib", "inline")


@functools.cache
def _post_models() -> tuple[str, ...]:
    from .results.blog import post_models

    return tuple(post_models())


def model_palette(models: Iterable[str], *, post: Sequence[str] | None = None) -> dict[str, str]:
    """Colors for models: the post's four always get the same color, every other model grey.

    Args:
        models: Model ids (``org/name``).
        post: The highlighted models (default: :func:`analysis.results.blog.post_models`,
            read from the post); at most ``len(POST_COLORS)``.

    Returns:
        ``{model: hex color}`` for every model in ``models``.

    Raises:
        ValueError: If ``post`` names more models than there are highlight colors.
    """
    highlighted = tuple(post) if post is not None else _post_models()
    if len(highlighted) > len(POST_COLORS):
        raise ValueError(
            f"post names {len(highlighted)} models; there are {len(POST_COLORS)} highlight colors."
        )
    colors = dict(zip(highlighted, POST_COLORS, strict=False))
    return {m: colors.get(m, OTHER_COLOR) for m in models}


def is_post_model(model: str) -> bool:
    """True for one of the post's models (those :func:`model_palette` highlights)."""
    return model in _post_models()


def short_name(model: str) -> str:
    """A label for plots: ``"minishlab/potion-base-8M"`` -> ``"potion-base-8M"``.

    Results-folder names (``org__name``) are shortened the same way.
    """
    return model.split("/")[-1].split("__")[-1]


def _offline() -> bool:
    """True when downloads cannot work (HF offline flag set, or github.com unreachable)."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in {"1", "true", "yes"}:
        return True
    try:
        socket.create_connection(("github.com", 443), timeout=3).close()
    except OSError:
        return True
    return False


def _suggested_results() -> str:
    """The results folder to suggest: the shared copy beside the repo when there is one."""
    shared = Path(os.environ.get("SHARED_DIR") or repo_root().parent / "shared") / "mteb-cache"
    if shared.is_dir():
        return os.path.relpath(shared.resolve(), repo_root())
    return "/path/to/mteb-cache"


def resolve_results(results_dir: str | Path | None) -> str | None:
    """The results folder a notebook reads: parameter > ``$STATIC_RTEB_RESULTS`` > mteb default.

    Returns:
        The resolved folder; None when mteb's default cache is empty and will be
        downloaded by the loader (online).

    Raises:
        ResultsNotFoundError: A given folder holds no results, or none was given while
            offline and mteb's default cache is empty; the message says what to type.
    """
    from .results.leaderboard import resolve_results_dir

    given = results_location(results_dir)
    if given is not None:
        resolve_results_dir(given, download=False)  # checks it holds results
        return given  # absolute, symlinks kept: headers name the folder as given
    import mteb

    default = Path(os.path.abspath(mteb.ResultCache().cache_path))
    if (default / "remote" / "results").is_dir():
        resolve_results_dir(default, download=False)
        return str(default)
    if not _offline():
        return None  # the loader downloads mteb's results repository into ``default``
    folder = _suggested_results()
    raise ResultsNotFoundError(
        f"No results folder: the notebook's results_dir is empty, ${RESULTS_ENV} is not set, "
        f"and mteb's default cache {default} is empty and cannot be downloaded offline. "
        f"Restart JupyterLab from the repository root with `make lab RESULTS={folder}`, "
        f'or set results_dir = "{folder}" in the parameters cell '
        f"(batch: `make figures RESULTS={folder}`)."
    )


class _QuietPath(type(Path())):  # type: ignore[misc]
    """A Path that a cell's last line does not echo (the helper already said what it wrote)."""

    def _ipython_display_(self) -> None:
        """Display nothing."""


class _QuietList(list):
    """A list of paths that a cell's last line does not echo."""

    def _ipython_display_(self) -> None:
        """Display nothing."""


@dataclass
class NotebookContext:
    """What :func:`setup` returns: output folder, results folder and display helpers.

    Attributes:
        notebook: The notebook's file name (``significance.py``), named in table headers.
        parameters: The notebook's parameters, written into every table header.
        out: Output folder for tables and figures.
        results: Resolved results folder to pass to the loader (None: mteb downloads it).
        in_kernel: Running inside a Jupyter kernel (figures and tables are displayed).
    """

    notebook: str
    parameters: dict[str, Any]
    out: Path
    results: str | None
    in_kernel: bool = False
    _written: list[Path] = field(default_factory=list, repr=False)

    def provenance(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The parameters for a table header: the notebook's, then ``extra``.

        ``results_dir`` is left out: :func:`~analysis.io.write_markdown_table` records the
        resolved folder and its fingerprint instead, whichever way it was given.
        """
        params = {k: v for k, v in self.parameters.items() if k != "results_dir"}
        params.update(extra or {})
        return params

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
    ) -> Path:
        """Write ``<out>/<name>.md`` (provenance header) and display a rounded view inline.

        Args:
            frame: The table (its index is not written; reset it first if it matters).
            name: File name without ``.md``.
            title: Bold line above the table.
            note: Text below the table.
            floatfmt: Format of float cells, e.g. ``".2f"``.
            pvalue_columns: Columns shown as p-values (``"<0.001"``, never ``"0.000"``).
            parameters: Extra header parameters for this table (e.g. the task list).
            show: Display the table inline.

        Returns:
            The path written.
        """
        _check_columns(frame, pvalue_columns)
        path = write_markdown_table(
            self.out / f"{name}.md",
            _pvalues_as_text(frame, pvalue_columns),
            notebook=self.notebook,
            parameters=self.provenance(parameters),
            title=title,
            note=note,
            floatfmt=floatfmt,
            results=self.results,
        )
        path = _QuietPath(path)
        self._written.append(path)
        if show:
            if title:
                self.md(f"**{title}**")
            self.show(frame, floatfmt=floatfmt, pvalue_columns=pvalue_columns)
            self.md(f"Wrote `{_display_path(path)}`.")
        return path

    def figure(self, fig: Any, name: str, *, show: bool = True, close: bool = True) -> list[Path]:
        """Save ``fig`` as ``<out>/<name>.png`` and ``.svg``, show it inline, say what was written.

        Args:
            fig: A matplotlib figure.
            name: File stem (may contain dots, e.g. ``plot.as-of-post``).
            show: Display the figure inline (inside a kernel).
            close: Close the figure afterwards, so the inline backend does not show it twice.

        Returns:
            The PNG and SVG paths.
        """
        paths: list[Path] = _QuietList(_QuietPath(p) for p in save_figure(fig, self.out / name))
        self._written.extend(paths)
        if show and self.in_kernel:
            from IPython.display import display

            display(fig)
        if close:
            import matplotlib.pyplot as plt

            plt.close(fig)
        print("Wrote " + ", ".join(_display_path(p) for p in paths))
        return paths

    def show(
        self,
        frame: pd.DataFrame,
        *,
        floatfmt: str = ".2f",
        pvalue_columns: Sequence[str] = (),
        index: bool = False,
    ) -> None:
        """Display ``frame`` rounded (a pandas Styler), p-values as ``"<0.001"``.

        Returns None, so a call ending a cell does not show the table twice; use
        :func:`styled` for the Styler itself.
        """
        _check_columns(frame, pvalue_columns)
        styler = styled(frame, floatfmt=floatfmt, pvalue_columns=pvalue_columns, index=index)
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


def _check_columns(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(
            f"pvalue_columns {missing} are not columns of the table; it has {list(frame.columns)}."
        )


def _pvalues_as_text(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    if not columns:
        return frame
    out = frame.copy()
    for column in columns:
        out[column] = [format_pvalue(p) for p in frame[column]]
    return out


def styled(
    frame: pd.DataFrame,
    *,
    floatfmt: str = ".2f",
    pvalue_columns: Sequence[str] = (),
    index: bool = False,
) -> Any:
    """A pandas Styler: floats as ``floatfmt``, p-values as text, missing as "—", compact."""
    floats = [
        c
        for c in frame.columns
        if pd.api.types.is_float_dtype(frame[c]) and c not in pvalue_columns
    ]
    styler = frame.style.format({c: f"{{:{floatfmt}}}" for c in floats}, na_rep="—").format(
        lambda p: html.escape(format_pvalue(p)), subset=list(pvalue_columns)
    )
    styler = styler.set_table_styles(
        [
            {"selector": "th", "props": "white-space: normal; max-width: 14em; font-size: 0.9em;"},
            {"selector": "td", "props": "font-size: 0.9em; padding: 0.2em 0.6em;"},
        ]
    )
    return styler if index else styler.hide(axis="index")


def _display_path(path: Path) -> str:
    try:
        return path.resolve().relative_to(repo_root()).as_posix()
    except ValueError:
        return str(path)


def setup(
    notebook: str,
    *,
    parameters: Mapping[str, Any] | None = None,
    output_dir: str | Path = "figures",
    resolve: bool = True,
) -> NotebookContext:
    """Prepare a notebook: warnings, inline figures, style, output folder, results folder.

    Args:
        notebook: The notebook's file name, e.g. ``"significance.py"``.
        parameters: The notebook's parameters (written into every table header). Its
            ``results_dir`` entry, if any, chooses the results folder.
        output_dir: Output folder, relative to the repository root.
        resolve: Resolve the results folder now (False for notebooks that read none).

    Returns:
        A :class:`NotebookContext`.

    Raises:
        ResultsNotFoundError: See :func:`resolve_results`.
    """
    params = dict(parameters or {})
    filter_harmless_warnings()
    shell = _kernel_shell()
    _inline_figures(shell)
    apply_style()
    pd.set_option("display.precision", 3)
    pd.set_option("display.max_columns", 30)
    results = resolve_results(params.get("results_dir") or None) if resolve else None
    out = from_root(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    context = NotebookContext(notebook, params, out, results, in_kernel=shell is not None)
    if shell is not None and resolve:
        context.md(
            f"Results: `{results_label(results) if results else 'mteb default cache (download)'}`"
            f" · outputs: `{_display_path(out)}/`"
        )
    return context


__all__ = [
    "HARMLESS_WARNINGS",
    "OTHER_COLOR",
    "POST_COLORS",
    "NotebookContext",
    "apply_style",
    "filter_harmless_warnings",
    "format_pvalue",
    "is_post_model",
    "model_palette",
    "resolve_results",
    "setup",
    "short_name",
    "styled",
    "widget_progress",
]
