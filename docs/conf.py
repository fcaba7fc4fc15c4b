"""Sphinx configuration: the static-rteb documentation site (``make docs``)."""

from __future__ import annotations

project = "static-rteb"
extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
]
autosummary_generate = True
autodoc_typehints = "signature"
napoleon_google_docstring = True
nb_execution_mode = "off"
html_theme = "pydata_sphinx_theme"
html_theme_options = {
    "navigation_with_keys": False,
    # The header on one line at 1400 px: the first guides, the rest under "More".
    "header_links_before_dropdown": 2,
}
html_static_path = ["_static"]
html_css_files = ["layout.css"]  # code wraps, wide tables scroll in their own box
# No smart quotes: "--plan" must stay two hyphens on the command-line page and in every
# help text, or a copied flag fails (docutils would turn "--" into an en dash).
smartquotes = False
exclude_patterns = ["_build", "_generated"]
suppress_warnings = ["myst.header"]
# Docstrings write absolute values as |t| and |statistic|; reST reads them as
# substitutions. Define them as the literal text until the docstrings use ``|t|``.
rst_prolog = """
.. |t| replace:: \\|t\\|
.. |statistic| replace:: \\|statistic\\|
"""


def _write_analysis_api() -> None:
    """Write docs/_generated/analysis_api.rst: one entry per name in analysis.__all__.

    ``analysis`` loads its names lazily, so ``automodule :members:`` sees none;
    names that ``analysis.stats`` also exports link to their entry there (``analysis.stats``
    is lazy as well: its names are loaded first, for its ``automodule``).
    """
    import inspect
    from pathlib import Path

    import analysis
    import analysis.stats

    for name in analysis.stats.__all__:  # lazy too: loaded here so that automodule sees them
        getattr(analysis.stats, name)
    lines = []
    for name in analysis.__all__:
        obj = getattr(analysis, name)
        if name in analysis.stats.__all__:
            role = "class" if inspect.isclass(obj) else "func"
            lines.append(f"\n- ``analysis.{name}``: see :{role}:`analysis.stats.{name}`\n")
            continue
        kind = "autoclass" if inspect.isclass(obj) else "autofunction"
        lines.append(f"\n.. {kind}:: analysis.{name}\n")
    out = Path(__file__).parent / "_generated" / "analysis_api.rst"
    out.parent.mkdir(exist_ok=True)
    text = "".join(lines)
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


_write_analysis_api()


def _copy_notebook_pages() -> list[str]:
    """Copy the figures batch's executed notebooks into docs/notebooks/ (ignored by git).

    The pages are the batch's executed copies (``build/notebooks/figures/``), never
    executed here; ``tools/docs_notebooks.py`` says which copies are stale and refuses them,
    naming the command that refreshes them (``make docs`` runs the batch for those first).
    """
    import importlib.util
    from pathlib import Path

    from sphinx.errors import ConfigError

    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location(
        "docs_notebooks", here.parent / "tools" / "docs_notebooks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        return list(module.copy_pages(here / "notebooks"))
    except module.StaleCopiesError as err:
        raise ConfigError(str(err)) from None


# The left sidebar ("Section Navigation") only where there is a section to navigate: the
# notebook pages and their index. Every other page is a top-level entry with no sub-pages,
# whose sidebar would be a heading over nothing (340 px of the column). Names without a
# wildcard win over "**" in Sphinx's matching, so no page matches two patterns.
html_sidebars = {
    "**": [],
    "notebooks": ["sidebar-nav-bs"],
    **{f"notebooks/{name}": ["sidebar-nav-bs"] for name in _copy_notebook_pages()},
}
