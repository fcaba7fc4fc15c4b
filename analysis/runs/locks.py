"""One writer per (model, revision, task): ``filelock.FileLock`` on a file of ``.locks/``.

A worker takes ``<results>/.locks/<org>__<model>/<revision>/<Task>.lock`` before it
evaluates the task, so a second worker on the same results folder waits, then finds the
result. The lock is an ``flock``, released by the kernel however its holder ends, so
nothing here detects or breaks stale locks; the file stays after release (a waiter may hold
it open). The holder writes its host and pid into the file for ``static-rteb status``
(:func:`lock_holder`). File systems that support ``flock``: ``docs/cluster.md``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import filelock

from ..core.layout import ModelFolder

if TYPE_CHECKING:
    from mteb.models import ModelMeta


class Holder(NamedTuple):
    """Who holds a lock: host name and process id."""

    host: str
    pid: int


def file_lock(path: str | Path, **options: Any) -> filelock.FileLock:
    """``filelock.FileLock`` on ``path`` that writes its holder into the file; makes its folder.

    Returns:
        The lock (not yet taken); ``with file_lock(path):`` waits for it.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return filelock.FileLock(str(path), on_acquired=_write_holder, **options)


def _write_holder(fd: int) -> None:
    record = json.dumps({"host": socket.gethostname(), "pid": os.getpid()}).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, record, 0)


def lock_holder(path: Path) -> Holder | None:
    """The process holding the lock file ``path``, or None when no process holds it."""
    if not path.is_file():
        return None
    with contextlib.suppress(filelock.Timeout), filelock.FileLock(str(path), blocking=False):
        return None
    try:
        data = json.loads(path.read_text())
        return Holder(str(data["host"]), int(data["pid"]))
    except (OSError, ValueError, KeyError, TypeError):  # taken, holder not yet written
        return Holder("an unknown host", 0)


def lock_path(results_dir: str | Path, meta: ModelMeta, task_name: str) -> Path:
    """The lock file of one (model, revision, experiment, task) in a results folder.

    ``<results_dir>/.locks/<org>__<model>/<revision>/<Task>.lock``
    (:mod:`analysis.core.layout`, which adds an experiment's level).
    """
    return ModelFolder.of(meta).lock_file(results_dir, task_name)


def task_lock(results_dir: str | Path, meta: ModelMeta, task_name: str) -> filelock.FileLock:
    """:func:`file_lock` of one (model, revision, task); a `with` block waits for it."""
    return file_lock(lock_path(results_dir, meta, task_name))


def process_start(pid: int) -> int | None:
    """Start time of process ``pid`` in clock ticks since boot (Linux), or None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: split after it
    fields = stat.rsplit(")", 1)[-1].split()
    return int(fields[19]) if len(fields) > 19 else None


def pid_alive(pid: int, start: int | None = None) -> bool:
    """Whether process ``pid`` runs on this host (and, when ``start`` is given, is the same one)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    current = None if start is None else process_start(pid)
    return current is None or current == start
