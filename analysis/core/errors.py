"""Errors, warnings and name lookups shared by every room of the package.

Every error the package raises on purpose is an :class:`AnalysisError`, and every warning
it emits an :class:`AnalysisWarning`; each class also derives from the built-in it
refines (``ValueError``, ``FileNotFoundError``, ...), so ``except ValueError`` keeps
working. All of them are defined here, in one place.

Every "unknown name" error in the package is an :class:`UnknownNameError` (both a
``ValueError`` and a ``KeyError``) whose message lists the closest valid names, built by
:func:`close_names`. Model folder names follow mteb's results layout
(:func:`model_folder_name`).

A message that names an option names it the way the user typed the call
(:func:`spell`): a keyword in Python (``pin='as-of-post'``), a flag on the command line
(``--pin as-of-post``); the command line says so with :func:`spoken_as`.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import shlex
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal


class AnalysisError(Exception):
    """Base of every error this package raises on purpose; the message says what to do."""


class AnalysisWarning(UserWarning):
    """Base of every warning this package emits."""


class UnknownNameError(AnalysisError, ValueError, KeyError):
    """A model, task, benchmark or pin name is unknown; the message lists the closest names.

    It is a ``ValueError`` (bad argument value) and a ``KeyError`` (failed lookup), so
    either ``except`` clause catches it.
    """

    def __str__(self) -> str:
        """The message, without the quotes ``KeyError`` would add."""
        return str(self.args[0]) if self.args else ""


class UnknownModelError(UnknownNameError):
    """A requested model name is not in the data."""


class UnknownTaskError(UnknownNameError):
    """A task or benchmark name is unknown to mteb and to the local task folders."""


class NotebookError(AnalysisError, ValueError):
    """A notebook cannot be set up (source or parameters cell not found, a parameter unset)."""


class BatchError(AnalysisError, ValueError):
    """A batch run cannot start (unknown profile or notebook, bad ``-p`` parameter)."""


class ResultsNotFoundError(AnalysisError, FileNotFoundError):
    """The results folder is missing or holds no MTEB results."""


class ResultsConflictError(AnalysisError, ValueError):
    """Two results folders hold different results for the same (model, revision, task)."""


class ResultsConflictWarning(AnalysisWarning):
    """Merged folders differ on some (model, revision, task); the first folder's was kept.

    Only with ``on_conflict="first"``: the default raises :class:`ResultsConflictError`.
    """


class ResultsRevisionError(AnalysisError, ValueError):
    """The results repository is not at the requested commit and may not be changed."""


class ResultFileWarning(AnalysisWarning):
    """A result file could not be read and was skipped."""


class IncompleteBenchmarkWarning(AnalysisWarning):
    """Fewer than a quarter of the loaded models are complete on a benchmark."""


class DroppedModelsWarning(AnalysisWarning):
    """Some models were left out of an analysis (the message names them and why)."""


class LeakageWarning(AnalysisWarning):
    """A model to be predicted is also among the reference models it is predicted from."""


class ExtrapolationWarning(AnalysisWarning):
    """A model lies outside the range of the reference models it is predicted from."""


class CalibrationWarning(AnalysisWarning):
    """An interval is calibrated for models like the references, not for a newer model."""


class LabelMismatchError(AnalysisError, ValueError):
    """Two labelled inputs (Series, DataFrames) do not hold the same labels.

    The message names the labels one input lacks and the ones it has in excess, and how
    to align them; plain arrays are paired by position and never raise this.
    """


class ModelLoadError(AnalysisError, ValueError):
    """A model id or folder cannot be loaded; the message says why and what to do."""


class LocalTaskError(AnalysisError, ValueError):
    """A local task folder is invalid; the message names the file (and line) and the fix."""


class PlanError(AnalysisError, ValueError):
    """A plan file cannot be read or a plan cannot be made; the message says why."""


class PlanMismatchError(PlanError):
    """A plan does not fit what it is run against (results folder, model content)."""


class ExecutorError(AnalysisError, ValueError):
    """An executor cannot be used here (unknown name, no SLURM); the message says what to do."""


class SubmissionError(AnalysisError, RuntimeError):
    """SLURM rejected a submission; the message is SLURM's own."""


class DistillError(AnalysisError, ValueError):
    """A distillation cannot start (vocabulary file, output folder); the message says why."""


class JobFailedError(AnalysisError, RuntimeError):
    """Some tasks of a job failed (their errors and tracebacks are in the message)."""


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by SIGINT (Ctrl-C, a notebook kernel interrupt) or SIGTERM.

    What finished is saved; what was interrupted left no partial result file and runs
    again on the next run. It is a ``KeyboardInterrupt`` and, on purpose, not an
    :class:`AnalysisError`: no ``except Exception`` (ours, mteb's, a user's) may swallow
    a stop request.

    Attributes:
        signum: The signal that stopped the run (``signal.SIGINT`` or ``signal.SIGTERM``).
        finished: Units (jobs, evaluations) that ended, done or failed, before the stop.
        interrupted: Units stopped midway (recorded as interrupted; a rerun runs them).
        not_started: Units that never started.
        unit: What the counts count, e.g. ``"job"``.
        note: What to do next, or what keeps running (e.g. a SLURM array).
        message: Replaces the counts in :meth:`summary` (for a stop that ended no unit,
            such as Ctrl-C while waiting for a SLURM array), or None.
        detached: The work goes on without this process (a SLURM array): there is
            nothing to resume, and :attr:`note` says how to follow or cancel it.
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        signum: int = 2,
        finished: int = 0,
        interrupted: int = 0,
        not_started: int = 0,
        unit: str = "job",
        note: str = "",
        detached: bool = False,
    ) -> None:
        self.signum = signum
        self.detached = detached
        self.finished = finished
        self.interrupted = interrupted
        self.not_started = not_started
        self.unit = unit
        self.note = note
        self.message = message
        super().__init__(self.summary())

    @property
    def signal_name(self) -> str:
        """``SIGINT``, ``SIGTERM``, ... (``signal <n>`` for an unknown number)."""
        import signal

        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    def summary(self, note: str | None = None) -> str:
        """One line: the signal, what finished, what was interrupted, what never started.

        Args:
            note: Replaces :attr:`note` at the end (e.g. the exact command to resume).
        """
        counts = self.message or (
            f"{self.finished} {self.unit}(s) finished, {self.interrupted} interrupted, "
            f"{self.not_started} not started; no partial result file is kept"
        )
        note = self.note if note is None else note
        return f"Interrupted ({self.signal_name}): {counts}" + (f". {note}" if note else ".")


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGINT, SIGTERM) during a notebook batch (:mod:`analysis.notebook.batch`).

    A ``KeyboardInterrupt``, like :class:`RunInterrupted`, so no ``except Exception`` swallows it.

    Attributes:
        finished: The :class:`analysis.notebook.batch.NotebookRun` of each notebook that ended.
        stopped: The notebooks that were running (one, unless the batch ran several at once).
        rest: The notebooks that never started, in order.
        signum: The signal that stopped it (SIGINT for Ctrl-C).
    """

    def __init__(
        self, finished: Sequence[Any], stopped: Sequence[str], rest: Sequence[str], signum: int = 2
    ) -> None:
        super().__init__(", ".join(stopped))
        self.finished, self.stopped, self.rest = list(finished), list(stopped), list(rest)
        self.signum = signum


class LeaderboardSubmitError(AnalysisError, ValueError):
    """Results cannot go to the MTEB results repository; the message says why and what to do."""


class PreflightError(LeaderboardSubmitError):
    """The results repository's CI checks, run locally, fail; each failure names file and fix.

    ``failures`` holds the individual :class:`analysis.runs.submit.preflight.Failure` records.
    """

    def __init__(self, message: str, failures: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.failures = tuple(failures)


class UnregisteredModelError(LeaderboardSubmitError):
    """mteb's model registry does not know the model; nothing was committed.

    ``entry_path`` is the generated ``ModelMeta`` entry to propose to mteb first.
    """

    def __init__(self, message: str, entry_path: Any = None) -> None:
        super().__init__(message)
        self.entry_path = entry_path


def close_names(name: str, candidates: Iterable[str], n: int = 5) -> str:
    """Format the closest candidates to ``name`` for an error message.

    Matching is case-insensitive (difflib ratio ≥ 0.5), with a substring match as the fallback.

    Returns:
        ``"'a', 'b'"`` or ``"no close match"``.
    """
    lowered = {str(c).lower(): str(c) for c in candidates}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.5)
    if not hits:
        hits = [c for c in lowered if name.lower() in c][:n]
    return ", ".join(repr(lowered[h]) for h in hits) if hits else "no close match"


def unknown_task_message(name: str, candidates: Iterable[str]) -> str:
    """The message for a name that is no task or benchmark, with the closest ``candidates``."""
    closest = close_names(name, sorted(candidates))
    return f"Unknown task or benchmark {name!r}. Closest names: {closest}."


def check_names(
    requested: Iterable[Any] | None,
    available: Iterable[Any],
    *,
    argname: str = "models",
    kind: str = "model",
    error: type[UnknownNameError] = UnknownModelError,
) -> list[Any]:
    """Check that every requested name exists; suggest close names otherwise.

    Returns:
        The requested names, in the order given, without duplicates (``available`` when
        ``requested`` is None); ``argname`` and ``kind`` name them in the message.

    Raises:
        ValueError: ``requested`` is a single string instead of a list of names.
        UnknownNameError: a name is absent; the message names the argument and lists
            the closest available names.
    """
    available = list(dict.fromkeys(available))
    if requested is None:
        return available
    if isinstance(requested, str):
        raise ValueError(f"`{argname}` must be a list of {kind} names, not a string")
    requested = list(dict.fromkeys(requested))
    present = set(available)
    missing = [name for name in requested if name not in present]
    if missing:
        names = [str(a) for a in available]
        parts = [
            f"{name!r} (did you mean {close_names(str(name), names, n=3)}?)" for name in missing
        ]
        raise error(f"`{argname}`: unknown {kind}(s) {'; '.join(parts)}")
    return requested


# --------------------------------------------------------------------------- spelling

#: How a call was typed: a Python call or a command line.
Spelling = Literal["python", "cli"]
SPELLINGS: tuple[Spelling, ...] = ("python", "cli")
_SPELLING: contextvars.ContextVar[Spelling] = contextvars.ContextVar(
    "static_rteb_spelling", default="python"
)


def spelling() -> Spelling:
    """How the current call was typed: ``"cli"`` in a ``static-rteb`` command, else ``"python"``."""
    return _SPELLING.get()


@contextlib.contextmanager
def spoken_as(how: Spelling) -> Iterator[None]:
    """Messages raised or warned inside the block name options as ``how`` spells them.

    Raises:
        ValueError: another spelling.
    """
    if how not in SPELLINGS:
        raise ValueError(f"`how` must be one of {SPELLINGS}, got {how!r}")
    token = _SPELLING.set(how)
    try:
        yield
    finally:
        _SPELLING.reset(token)


def spell(keyword: str, value: Any = None, *, how: Spelling | None = None) -> str:
    """An option as the user types it: ``pin='as-of-post'`` or ``--pin as-of-post``.

    Args:
        keyword: The Python keyword (``on_conflict``); the flag is ``--on-conflict``.
        value: The value to show; None shows the bare name (``pin=``, ``--pin``).
        how: The spelling (default: :func:`spelling`).
    """
    if (how or spelling()) == "cli":
        flag = "--" + keyword.replace("_", "-")
        return flag if value is None else f"{flag} {shlex.quote(str(value))}"
    return f"{keyword}=" if value is None else f"{keyword}={value!r}"


def model_folder_name(name: str) -> str:
    """The folder mteb files a model's results under: ``org/name`` -> ``org__name``.

    Equal to ``mteb.ModelMeta.model_name_as_path()`` (tested).
    """
    return name.replace("/", "__").replace(" ", "_")


def model_name_from_folder(folder: str) -> str:
    """Inverse of :func:`model_folder_name` for names without spaces."""
    return folder.replace("__", "/")
