"""The notebook layer: what the notebooks call, above the three rooms.

* :mod:`~analysis.notebook.context`: :func:`setup`, the one call at the top of every notebook;
* :mod:`~analysis.notebook.params`: the parameters cell, read as papermill reads it;
* :mod:`~analysis.notebook.flags`: papermill's ``-p`` / ``-r`` / ``-y`` flags;
* :mod:`~analysis.notebook.batch`: every notebook under papermill (``static-rteb batch``);
* :mod:`~analysis.notebook.display`: tables as a person reads them;
* :mod:`~analysis.notebook.style`: one style and one palette for every figure;
* :mod:`~analysis.notebook.estimate`: where a model stands from the tasks it has run, as
  ``static-rteb estimate`` decides it (scopes, lite lists, next tasks);
* :mod:`~analysis.notebook.explorer`: every ranked model's rank interval in one
  interactive page (plotly), searchable, shown inline and written as an HTML file.

``from analysis.notebook import setup`` is what a notebook types; the names load on first
use, so ``static-rteb batch --help`` imports neither pandas nor matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.lazy import LazyNames

if TYPE_CHECKING:  # the public names, listed once (analysis.core.lazy): loaded on first use
    from ..core.io import format_pvalue
    from ..core.quiet import HARMLESS_WARNINGS, filter_harmless_warnings, widget_progress
    from .context import NotebookContext, resolve_results, setup
    from .display import styled
    from .explorer import RankExplorer, rank_explorer
    from .style import (
        OTHER_COLOR,
        POST_COLORS,
        apply_style,
        for_figure,
        is_post_model,
        model_palette,
        short_name,
    )

_LAZY = LazyNames(__name__, __file__)
__all__: list[str] = _LAZY.names


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use."""
    return _LAZY.load(name, globals())
