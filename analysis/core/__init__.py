"""The ground floor: what every room and the layers above use, importing no room.

* :mod:`~analysis.core.errors`: every exception and warning the package raises;
* :mod:`~analysis.core.paths`: the repository root, the default folders, how a path is shown;
* :mod:`~analysis.core.io`: atomic writes, markdown tables, figures as PNG and SVG;
* :mod:`~analysis.core.seeds`: named, order-independent random streams;
* :mod:`~analysis.core.quiet`: the known harmless library warnings and log lines, silenced;
* :mod:`~analysis.core.interrupt`: Ctrl-C and SIGTERM, stopped cleanly within seconds;
* :mod:`~analysis.core.compat`: the one place that touches mteb's and submitit's private API.

Nothing here imports :mod:`analysis.results`, :mod:`analysis.stats` or :mod:`analysis.runs`
(``tests/project/test_layers.py`` checks it).
"""
