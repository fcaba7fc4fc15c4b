"""Sphinx configuration: the static-rteb documentation site (``make docs``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "static-rteb"
extensions = [
    "myst_nb",
    "wide_tables",
    "code_breaks",  # inline code wraps after the dots, slashes, underscores of a long name
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
    # MathJax from the package's own copy (MathJax 3.2.2, copied into _static/mathjax/),
    # not Sphinx's default from a CDN: the formulas render offline.
    "sphinx-mathjax-offline",
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
html_css_files = ["layout.css"]  # code wraps, tables and code fit the column
# The tab's icon: three bars, a leaderboard (drawn for this site, 32 x 32 SVG).
html_favicon = "_static/favicon.svg"
# No smart quotes: "--plan" must stay two hyphens on the command-line page and in every
# help text, or a copied flag fails (docutils would turn "--" into an en dash).
smartquotes = False
exclude_patterns = ["_build", "_generated", "_ext"]

# Wide tables of the benchmarks' result files (included as they are, never retyped) lead
# with the columns a reader needs; the others fold into a collapsed "more columns" part
# below each table (docs/_ext/wide_tables.py), so no table is wider than the column. The
# files keep every column. Keys: files as the repository names them.
wide_table_max_columns = 8
wide_table_columns = {
    "benchmarks/results/estimate.md": [
        "method", "benchmark", "public_tasks", "k", "coverage", "coverage static",
        "static models", "worst cut", "worst weekly cut", "median half-width (pts)",
        "half-width within 90 days (pts)", "random split coverage",
    ],
    "benchmarks/results/rank_validation.md": [
        "noise", "design", "aggregate", "n tasks", "K models", "nominal ± SE",
        "simultaneous", "per model", "bootstrap (per model)", "pairwise simultaneous: all",
        "pairwise simultaneous: per model", "bootstrap: per model",
        "mean width (simult. / per-model / bootstrap)",
    ],
    "benchmarks/results/static_encoders.md": [
        "model2vec", "StaticEmbedding", "StaticEmbedding − model2vec", "texts", "n",
        "1 − cosine: median", "1 − cosine: max",
    ],
    "benchmarks/results/leaderboard_encoders.md": [
        "pin", "model2vec `StaticModel.encode`", "sentence-transformers `StaticEmbedding`",
        "model", "tasks", "encoder (tasks)",
    ],
    "benchmarks/results/goodhart_boundary.md": [
        "departure", "families (shared SD)", "the models' own SD", "the shuffles alone",
        "the package's bootstrap alone", "the package: its bootstrap and the shuffles",
    ],
}  # fmt: skip
#: Files whose tables are wide with fewer columns (long headers).
wide_table_max_columns_by_file = {
    "benchmarks/results/static_encoders.md": 5,
    "benchmarks/results/leaderboard_encoders.md": 5,
    "benchmarks/results/goodhart_boundary.md": 7,
}
suppress_warnings = ["myst.header"]


def _repository_url() -> str | None:
    """The repository's public address: its ``origin`` remote as an https URL, else None.

    ``git@host:owner/name.git`` and ``https://host/owner/name.git`` both give
    ``https://host/owner/name``; a remote that is a local folder gives None.
    """
    import re
    import subprocess

    try:
        remote = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        return None
    ssh = re.fullmatch(r"git@([^:]+):(.+?)(?:\.git)?", remote)
    if ssh:
        return f"https://{ssh.group(1)}/{ssh.group(2)}"
    web = re.fullmatch(r"(https://.+?)(?:\.git)?/?", remote)
    return web.group(1) if web else None


REPOSITORY_URL = _repository_url()
# The front page names the repository: linked when the checkout has a public remote.
# Formulas are written $...$ (inline) and $$...$$ (display) in the pages (dollarmath).
myst_enable_extensions = ["substitution", "dollarmath"]
myst_substitutions = {
    "repository": f"[the repository]({REPOSITORY_URL})"
    if REPOSITORY_URL
    else "the repository this site is built from; its `README.md` is the front page and "
    "the map of its folders",
}
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

#: The API page's summary: every public name (``analysis``, ``analysis.stats``,
#: ``analysis.runs.submit``) under what a user does with it. The build fails when a public
#: name is in no group or a group names something that is not public.
API_GROUPS: list[tuple[str, str, list[str]]] = [
    (
        "Load results",
        "A benchmark's leaderboard from the MTEB results, with mteb's task lists, now or "
        "as of the post; the errors name what is missing.",
        [
            "load_leaderboard", "load_leaderboards", "Leaderboard", "ResultsFolders",
            "resolve_spec", "available_pins", "BenchmarkSpec", "TaskSpec",
            "ResultsNotFoundError", "ResultFileWarning", "UnknownNameError",
            "UnknownTaskError", "UnknownModelError",
        ],
    ),
    (
        "Run models",
        "Load or distil a model and run it over MTEB/RTEB tasks, resumably.",
        [
            "load_model", "ModelSpec", "distill_model", "run_evaluation", "load_local_task",
            "per_query_ndcg",
        ],
    ),
    (
        "Compare models",
        "Is one model better than another, which pairs differ, do two groups differ, does "
        "a model lose more on the private tasks, who gains on the public ones beyond chance "
        "and what goes with it.",
        [
            "paired_bootstrap", "PairedTestResult", "pairwise_significance", "PairwiseResult",
            "adjust_pvalues", "compare", "ComparisonReport", "group_contrast",
            "GroupContrastResult", "public_private_gap", "PublicPrivateGapResult",
            "friedman_nemenyi", "FriedmanNemenyiResult", "ConfidenceInterval", "StatsResult",
            "LabelMismatchError", "DroppedModelsWarning", "public_advantage",
            "PublicAdvantageResult", "advantage_predictors", "AdvantagePredictorsResult",
            "trained_task_effect", "TrainedTaskResult", "predictive_comparison",
            "PredictiveComparisonResult",
        ],
    ),
    (
        "Rank models",
        "Which leaderboard ranks are real, and do two benchmarks rank models alike.",
        [
            "rank_intervals", "RankIntervalsResult", "rank_explorer", "rank_correlation",
            "RankCorrelationResult", "benchmark_agreement", "BenchmarkAgreementResult",
        ],
    ),
    (
        "Estimate from a few tasks",
        "A model's benchmark mean and rank from the tasks it has run, which task to run "
        "next, and which few tasks to run for an estimate.",
        [
            "predict_benchmark", "BenchmarkPrediction", "next_tasks", "NextTasksResult",
            "select_tasks", "TaskSelectionResult",
        ],
    ),
    (
        "Submit to the leaderboard",
        "The results repository's CI checks, run locally, and the submission itself "
        "(``static-rteb submit``).",
        ["submit", "SubmitOutcome", "preflight", "PreflightReport", "Failure"],
    ),
]  # fmt: skip


def _api_modules():  # type: ignore[no-untyped-def]
    """The public modules, in the order a name is looked up (stats first: its entries)."""
    import analysis
    import analysis.runs.submit
    import analysis.stats

    return [analysis.stats, analysis, analysis.runs.submit]


def _summary_line(module, name: str) -> str:  # type: ignore[no-untyped-def]
    """The first paragraph of the docstring of ``module.name``, on one line.

    A bare cross-reference in it (``:func:`compare```) is made absolute, so it links from
    the summary table; a constant's summary is its ``#:`` comment.
    """
    import inspect
    import re

    obj = getattr(module, name)
    if inspect.isclass(obj) or inspect.isroutine(obj):
        doc = inspect.getdoc(obj) or ""
    else:
        from sphinx.pycode import ModuleAnalyzer

        for candidate in (module.__name__, *_submodules_defining(module, name)):
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
            if ("", name) in docs:
                doc = "\n".join(docs[("", name)])
                break
        else:
            doc = ""
    first = " ".join(doc.split("\n\n")[0].split())
    public = {n for m in _api_modules() for n in m.__all__}

    def absolute(match: re.Match[str]) -> str:
        role, _tilde, target = match.groups()
        if target not in public:
            return match.group(0)
        owner = next(m for m in _api_modules() if target in m.__all__)
        return f":{role}:`~{owner.__name__}.{target}`"

    return re.sub(r":(func|class|data|meth):`(~?)(\w+)`", absolute, first)


def _submodules_defining(module, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The submodules of ``module`` (a package) whose source assigns ``name``."""
    import pkgutil

    path = getattr(module, "__path__", None)
    if path is None:
        return []
    found = []
    for info in pkgutil.iter_modules(path):
        full = f"{module.__name__}.{info.name}"
        source = Path(path[0]) / f"{info.name}.py"
        if source.is_file() and f"\n{name}:" in source.read_text(encoding="utf-8"):
            found.append(full)
    return found


def _write_api_summary() -> None:
    """Write docs/_generated/api_summary.rst: a table per group of ``API_GROUPS``."""
    import inspect

    from sphinx.errors import ConfigError

    modules = _api_modules()
    public = {n for m in modules for n in m.__all__}
    grouped = [n for _, _, names in API_GROUPS for n in names]
    missing = sorted(public - set(grouped))
    unknown = sorted(set(grouped) - public)
    twice = sorted({n for n in grouped if grouped.count(n) > 1})
    if missing or unknown or twice:
        raise ConfigError(
            f"docs/conf.py API_GROUPS: public names in no group {missing}, names that are "
            f"not public {unknown}, names in two groups {twice}."
        )
    lines, constants = [], []
    for title, intro, names in API_GROUPS:
        slug = title.split()[0].lower()
        lines += [title, "~" * len(title), "", intro, "", ".. list-table::"]
        lines += [f"   :class: api-group api-group-{slug}", "   :widths: 30 70", ""]
        for name in names:
            module = next(m for m in modules if name in m.__all__)
            obj = getattr(module, name)
            role = "class" if inspect.isclass(obj) else "func" if callable(obj) else "data"
            lines.append(f"   * - :{role}:`{module.__name__}.{name}`")
            lines.append(f"     - {_summary_line(module, name) or ' '}")
            if role == "data":  # automodule documents no constant: its own entry
                # (not autodata: a dict's docstring is the type's, which autodoc would show)
                kind = type(obj).__name__
                constants += [f".. py:data:: {name}", f"   :module: {module.__name__}"]
                constants += [f"   :type: {kind}", ""]
                constants += [f"   {_summary_line(module, name)}", ""]
        lines.append("")
    for stem, text in (("api_summary", "\n".join(lines)), ("api_constants", "\n".join(constants))):
        out = Path(__file__).parent / "_generated" / f"{stem}.rst"
        if not out.exists() or out.read_text() != text:
            out.write_text(text)


_write_api_summary()


def _docs_notebooks():  # type: ignore[no-untyped-def]
    """tools/docs_notebooks.py, imported from its file (tools/ is not a package)."""
    import importlib.util

    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location(
        "docs_notebooks", here.parent / "tools" / "docs_notebooks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy_notebook_pages() -> list[str]:
    """Copy the figures batch's executed notebooks into docs/notebooks/ (ignored by git).

    The pages are the batch's executed copies (``build/notebooks/figures/``), never
    executed here; ``tools/docs_notebooks.py`` says which copies are stale and refuses them,
    naming the command that refreshes them (``make docs`` runs the batch for those first).
    """
    from sphinx.errors import ConfigError

    module = _docs_notebooks()
    try:
        return list(module.copy_pages(Path(__file__).resolve().parent / "notebooks"))
    except module.StaleCopiesError as err:
        raise ConfigError(str(err)) from None


#: The front page's figure: (notebook, the name it saved the figure under). It is taken
#: from the notebook's executed copy, the very figure of its page, into _generated/.
FRONT_FIGURE = ("leaderboard_uncertainty", "leaderboard_uncertainty")


def _write_front_figure() -> None:
    """Write docs/_generated/<name>.png, the front page's figure, from the executed copy."""
    from sphinx.errors import ConfigError

    module = _docs_notebooks()
    try:
        png = module.saved_figure(*FRONT_FIGURE)
    except module.StaleCopiesError as err:
        raise ConfigError(str(err)) from None
    out = Path(__file__).resolve().parent / "_generated" / f"{FRONT_FIGURE[1]}.png"
    out.parent.mkdir(exist_ok=True)
    if not out.exists() or out.read_bytes() != png:
        out.write_bytes(png)


# The left sidebar ("Section Navigation") only where there is a section to navigate: the
# notebook pages and their index. Every other page is a top-level entry with no sub-pages,
# whose sidebar would be a heading over nothing (340 px of the column). Names without a
# wildcard win over "**" in Sphinx's matching, so no page matches two patterns.
html_sidebars = {
    "**": [],
    "notebooks": ["sidebar-nav-bs"],
    **{f"notebooks/{name}": ["sidebar-nav-bs"] for name in _copy_notebook_pages()},
}
_write_front_figure()
