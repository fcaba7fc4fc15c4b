"""``make_executor``: an executor by name, kept apart from :mod:`.base`.

:mod:`.local` and :mod:`.slurm` import :mod:`.base` (the interface); this module imports
them, so the interface imports neither implementation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Executor, check_executor
from .local import LocalExecutor
from .slurm import SlurmExecutor, SlurmOptions

#: Each executor's class by its name (``--executor``); its keys are
#: :data:`analysis.core.choices.EXECUTORS` (tested).
EXECUTOR_CLASSES: dict[str, type[Executor]] = {
    executor.name: executor for executor in (LocalExecutor, SlurmExecutor)
}


def executor_class(name: str) -> type[Executor]:
    """The executor class named ``name`` (a submission's ``executor``); local for older logs."""
    return EXECUTOR_CLASSES.get(name, LocalExecutor)


def make_executor(name: str, options: Mapping[str, Any] | None = None) -> Executor:
    """The executor ``name`` with ``options`` (unknown options for it are ignored).

    Args:
        name: ``local`` or ``slurm``.
        options: ``workers`` and ``verbose`` for local; the fields of
            :class:`~.slurm.SlurmOptions` for slurm.

    Raises:
        ExecutorError: As :func:`~.base.check_executor`.
    """
    check_executor(name)
    options = {k: v for k, v in (options or {}).items() if v is not None}
    if name == "local":
        return LocalExecutor(workers=options.get("workers"), verbose=bool(options.get("verbose")))
    return SlurmExecutor(SlurmOptions.from_mapping(options))
