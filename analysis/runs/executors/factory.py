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


def make_executor(name: str, options: Mapping[str, Any] | None = None) -> Executor:
    """The executor ``name`` with ``options`` (unknown options for it are ignored).

    Args:
        name: ``local`` or ``slurm``.
        options: ``workers`` and ``verbose`` for local; the fields of
            :class:`~.slurm.SlurmOptions` for slurm.

    Returns:
        The executor.

    Raises:
        ExecutorError: As :func:`~.base.check_executor`.
    """
    check_executor(name)
    options = {k: v for k, v in (options or {}).items() if v is not None}
    if name == "local":
        return LocalExecutor(workers=options.get("workers"), verbose=bool(options.get("verbose")))
    return SlurmExecutor(SlurmOptions.from_mapping(options))
