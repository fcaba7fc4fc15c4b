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
use (listed in ``__init__.pyi``), so ``static-rteb batch --help`` imports neither pandas nor
matplotlib.
"""

from __future__ import annotations

import lazy_loader

# The public names, listed once in ``__init__.pyi``, each loaded on first use (SPEC 1).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
