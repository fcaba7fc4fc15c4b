"""Known harmless third-party warnings and log lines, filtered by name; one progress bar.

Used by the notebooks (:func:`analysis.notebook.context.setup`) and by the command line
(:func:`quiet_command_line`, unless ``--verbose``). Only what is named here is hidden:
every other warning still shows. This module is part of the core and imports nothing
from the rooms (``results``, ``stats``, ``runs``).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import warnings
from collections.abc import Iterator
from typing import Any

#: Known harmless library warnings, filtered by category, module and message. Why each:
#: - mteb's FutureWarnings announce API changes inside mteb itself; our code goes through
#:   analysis.core.compat and the pinned mteb, so they say nothing about our results.
#: - "... is superseded by ...": mteb warns on every run of an older task version. The
#:   benchmarks we reproduce name those versions on purpose (the post used them).
#: - "IProgress not found": tqdm without ipywidgets; ipywidgets is pinned, so it only
#:   appears in a foreign environment, where the text bars still work.
HARMLESS_WARNINGS: tuple[dict[str, Any], ...] = (
    {"category": FutureWarning, "module": r"mteb(\.|$)"},
    {"category": UserWarning, "message": r"The task '.*' is superseded by"},
    {"category": Warning, "message": r"IProgress not found"},
)


class _HarmlessLogRecords(logging.Filter):
    """Drops two log messages that only repeat what is known and harmless.

    - mteb logs the "superseded" warning a second time through ``logging``.
    - transformers logs a "LOAD REPORT" when a checkpoint holds keys the architecture
      does not use (sentence-transformers checkpoints carry e.g. pooler weights). Only
      reports whose every row is UNEXPECTED are dropped; MISSING, MISMATCH and
      CONVERSION rows mean real problems and still show.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "is superseded by" in message:
            return False
        if "LOAD REPORT" in message:
            return any(word in message for word in ("MISSING", "MISMATCH", "CONVERSION"))
        return True


_LOG_FILTER = _HarmlessLogRecords()
_FILTERED_LOGGERS = ("mteb", "mteb.abstasks.abstask", "transformers.modeling_utils")


def filter_harmless_warnings() -> None:
    """Install the filters of :data:`HARMLESS_WARNINGS` (idempotent); real warnings still show."""
    for spec in HARMLESS_WARNINGS:
        warnings.filterwarnings("ignore", **spec)
    for name in _FILTERED_LOGGERS:
        log = logging.getLogger(name)
        if _LOG_FILTER not in log.filters:
            log.addFilter(_LOG_FILTER)


def quiet_command_line(*, verbose: bool = False) -> None:
    """What a command-line run shows: the harmless filters, and no library progress bars.

    Also hidden unless ``verbose``: scikit-learn's ``UndefinedMetricWarning`` ("Precision is
    ill-defined ... set to 0.0"), a class without predictions in one of mteb's
    classification metrics; mteb scores it 0 by its own definition, as for the
    leaderboard's runs, and a terminal full of these hides the one line that matters. The
    Hugging Face libraries' own bars (weights loading, dataset preparation) are switched
    off: a run shows its one bar over evaluations or jobs.
    """
    if verbose:
        return
    import datasets
    import huggingface_hub.utils
    import transformers.utils.logging

    filter_harmless_warnings()
    # by name, as before: scikit-learn comes with mteb and is not a declared dependency
    with contextlib.suppress(ImportError, AttributeError):
        category = importlib.import_module("sklearn.exceptions").UndefinedMetricWarning
        warnings.filterwarnings("ignore", category=category)
    transformers.utils.logging.disable_progress_bar()
    huggingface_hub.utils.disable_progress_bars()
    datasets.disable_progress_bars()


def setup_output(*, verbose: bool = False, libraries: bool = True) -> None:
    """A command's logging at WARNING (INFO when ``verbose``), then :func:`quiet_command_line`.

    ``libraries=False``: only the harmless filters, for a process that loads no model and
    no data set (``run --plan``'s main process: its workers quiet themselves), so that it
    does not import the Hugging Face libraries (seconds of CPU) for nothing.
    """
    level = logging.INFO if verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if libraries:
        quiet_command_line(verbose=verbose)
    elif not verbose:
        filter_harmless_warnings()


@contextlib.contextmanager
def widget_progress(*modules: str, disable: bool = False) -> Iterator[None]:
    """Inside the block, the named modules' plain ``tqdm`` bars render like ``tqdm.auto``.

    Some libraries import ``from tqdm import tqdm``; in a notebook each update of such a
    bar is a new red stderr line (model2vec's "Encoding tokens" while distilling). Within
    this block their ``tqdm`` is ``tqdm.auto.tqdm``: one widget bar in JupyterLab, the
    usual text bar in a terminal. The modules are restored afterwards.

    Args:
        modules: Importable module names whose global ``tqdm`` is swapped.
        disable: Hide those bars instead.

    Raises:
        AttributeError: If a module has no ``tqdm`` attribute (the library changed).
    """
    import functools

    from tqdm.auto import tqdm as auto_tqdm

    replacement = functools.partial(auto_tqdm, disable=True) if disable else auto_tqdm

    loaded = [importlib.import_module(name) for name in modules]
    for module in loaded:
        if not hasattr(module, "tqdm"):
            raise AttributeError(f"{module.__name__} has no tqdm to replace.")
    saved = [module.tqdm for module in loaded]
    try:
        for module in loaded:
            setattr(module, "tqdm", replacement)  # noqa: B010 - a module global, by name
        yield
    finally:
        for module, original in zip(loaded, saved, strict=True):
            setattr(module, "tqdm", original)  # noqa: B010
