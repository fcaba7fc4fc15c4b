"""The notebook layer: what the notebooks call, above the three rooms.

* :mod:`~analysis.notebook.context`: :func:`setup`, the one call at the top of every notebook;
* :mod:`~analysis.notebook.params`: the parameters cell, read as papermill reads it;
* :mod:`~analysis.notebook.flags`: papermill's ``-p`` / ``-r`` / ``-y`` flags;
* :mod:`~analysis.notebook.batch`: every notebook under papermill (``static-rteb batch``);
* :mod:`~analysis.notebook.display`: tables as a person reads them;
* :mod:`~analysis.notebook.style`: one style and one palette for every figure.

``from analysis.notebook import setup`` is what a notebook types; the names load on first
use, so ``static-rteb batch --help`` imports neither pandas nor matplotlib.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import (
        HARMLESS_WARNINGS,
        OTHER_COLOR,
        POST_COLORS,
        NotebookContext,
        apply_style,
        filter_harmless_warnings,
        for_figure,
        format_pvalue,
        is_post_model,
        model_palette,
        resolve_results,
        setup,
        short_name,
        styled,
        widget_progress,
    )


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.context"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HARMLESS_WARNINGS",
    "OTHER_COLOR",
    "POST_COLORS",
    "NotebookContext",
    "apply_style",
    "filter_harmless_warnings",
    "for_figure",
    "format_pvalue",
    "is_post_model",
    "model_palette",
    "resolve_results",
    "setup",
    "short_name",
    "styled",
    "widget_progress",
]
