"""How tables and written files show in a notebook: rounded views, p-values as text, quiet paths.

A table is shown as a pandas Styler (floats rounded, p-values as ``"<0.001"``, missing as
"—", markdown links as HTML links); a written file as :func:`analysis.core.paths.display_path`
names it. Paths the notebook helpers return do not echo when they end a cell.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.io import format_pvalue
from ..core.paths import display_path as display_path  # as notebooks import it

#: A markdown link with an http(s) target, as the markdown tables write a model's name.
MARKDOWN_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")


def links_as_html(text: str) -> str:
    """``text`` as HTML: escaped, each markdown link ``[label](https://...)`` an ``<a href>``.

    The markdown tables in ``figures/`` keep the markdown; a Styler shows its cells as raw
    HTML, so without this the notebook (and the site) would show the brackets.
    """
    return MARKDOWN_LINK.sub(r'<a href="\2">\1</a>', html.escape(text))


def link_columns(frame: pd.DataFrame) -> list[str]:
    """The text columns of ``frame`` with a markdown link in some cell."""
    return [
        c
        for c in frame.columns
        if not pd.api.types.is_numeric_dtype(frame[c])
        and any(isinstance(v, str) and MARKDOWN_LINK.search(v) for v in frame[c])
    ]


class QuietPath(type(Path())):  # type: ignore[misc]
    """A Path that a cell's last line does not echo (the helper already said what it wrote)."""

    def _ipython_display_(self) -> None:
        """Display nothing."""


class QuietList(list):
    """A list of paths that a cell's last line does not echo."""

    def _ipython_display_(self) -> None:
        """Display nothing."""


def check_columns(
    frame: pd.DataFrame, columns: Sequence[str], what: str = "pvalue_columns"
) -> None:
    """Raise ``KeyError`` naming the table's columns when one of ``columns`` is not one of them.

    ``what`` names the argument in the message (``pvalue_columns``, ``shown_columns``).
    """
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(
            f"{what} {missing} are not columns of the table; it has {list(frame.columns)}."
        )


def pvalues_as_text(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """A copy of ``frame`` whose p-value ``columns`` are text (``"<0.001"``, never ``"0.000"``)."""
    return frame.assign(**{c: [format_pvalue(p) for p in frame[c]] for c in columns})


def styled(
    frame: pd.DataFrame,
    *,
    floatfmt: str = ".2f",
    pvalue_columns: Sequence[str] = (),
    index: bool = False,
) -> Any:
    """A pandas Styler: floats as ``floatfmt``, p-values as text, missing as "—", compact.

    Markdown links in text cells (a model's name linking to its page) show as links; column
    names may break after an underscore.
    """
    floats = [c for c in frame.select_dtypes("floating") if c not in pvalue_columns]
    styler = frame.style.format({c: f"{{:{floatfmt}}}" for c in floats}, na_rep="—").format(
        lambda p: html.escape(format_pvalue(p)), subset=list(pvalue_columns)
    )
    links = [c for c in link_columns(frame) if c not in pvalue_columns]
    if links:
        styler = styler.format(
            lambda v: links_as_html(v) if isinstance(v, str) else html.escape(str(v)),
            subset=links,
            na_rep="—",
        )
    # A long column name (relative_gap_ci_low) may break after its underscores, so a
    # table of many such columns is not as wide as its names laid end to end.
    styler = styler.format_index(
        lambda name: html.escape(str(name)).replace("_", "_<wbr>"), axis="columns"
    )
    styler = styler.set_table_styles(
        [
            {"selector": "th", "props": "white-space: normal; max-width: 14em; font-size: 0.9em;"},
            {"selector": "td", "props": "font-size: 0.9em; padding: 0.2em 0.6em;"},
        ]
    )
    return styler if index else styler.hide(axis="index")


def show_package_warnings_as_notes() -> None:
    """In a notebook, show this package's own warnings as one short note each, not on stderr.

    Warnings derived from :class:`~analysis.core.errors.AnalysisWarning` (an incomplete benchmark,
    dropped models, a skipped file) are expected, explained findings: the notebook shows them as a
    markdown line ("**IncompleteBenchmarkWarning**: ..."), so a clean run has no red stderr output;
    a path in it may break after each ``/``, a long hash every 16 characters (a narrow page or a
    phone does not scroll sideways).
    Every other warning is shown as Python shows it. Idempotent; outside a notebook nothing changes.
    """
    import warnings

    from ..core.errors import AnalysisWarning

    current = warnings.showwarning
    if getattr(current, "_analysis_notes", False):
        return

    def show(message: Warning | str, category: type[Warning], *rest: Any, **named: Any) -> None:
        if issubclass(category, AnalysisWarning):
            from IPython.display import Markdown, display

            note = html.escape(str(message)).replace("/", "/<wbr>")  # long paths break at /
            note = re.sub(r"([^\s/<>&;]{16})(?=[^\s/<>&;]{8})", r"\1<wbr>", note)  # and hashes
            display(Markdown(f"**{category.__name__}**: {note}"))
        else:
            current(message, category, *rest, **named)

    show._analysis_notes = True  # type: ignore[attr-defined]
    warnings.showwarning = show
