"""One writer per (model, revision, task): lock files with stale-lock detection.

Many workers (local processes, SLURM jobs on several nodes) share one results folder. Before
a worker evaluates a task it takes the task's lock,
``<results>/.locks/<org>__<model>/<revision>/<Task>.lock``, created with
``O_CREAT | O_EXCL`` (atomic on local file systems and on NFSv3+). The file holds the
holder's host, pid, the pid's start time and a random token; while held, a daemon thread
touches it every ``heartbeat`` seconds.

A lock is **stale**, and is broken, when (:func:`lock_is_held`, the one rule, which
``static-rteb status`` asks too)

* its holder ran on this host and that process is gone (or the pid now belongs to a
  process that started later: pid reuse), or
* its file has not been touched for ``stale_after`` seconds (a holder on another host that
  died; a live holder refreshes the file every ``heartbeat`` seconds), unless its holder
  is a process of this host that is verifiably still running (its recorded start time
  matches): a late heartbeat there means a stopped or suspended process, not a dead one.

Breaking is itself guarded by a short-lived ``<lock>.break`` file, and the stale lock is
removed only if it still holds the token that was judged stale, so two workers that find
the same stale lock cannot remove each other's fresh one.

Why not ``filelock``: its locks were tried against this module's tests (filelock 4.2,
``benchmarks/bench_locks.py``) and none keeps the tested behaviour, so nothing here is
built on it:

* ``filelock.FileLock`` (``flock``) records no holder, so ``static-rteb status`` and the
  job records (:func:`read_lock`, :func:`pid_alive`) could not say who holds a task, and
  ``flock`` across hosts depends on the NFS client;
* ``filelock.SoftFileLock`` uses the same ``O_EXCL`` file but its own record (pid, host),
  so it cannot read the JSON lock files workers write (a lock file naming a dead pid of this
  host is not broken, ``test_lock_of_dead_process_on_this_host_is_broken``); it never
  expires another host's lock unless given a ``lifetime``, and with one it breaks a live
  holder's lock once the file is older than that, having no heartbeat
  (``test_heartbeat_keeps_a_held_lock_fresh``); it does not break an old empty lock file
  (``test_unreadable_lock_file_counts_as_held_until_old``);
* ``filelock.SoftFileLease`` has a heartbeat, but a contender takes a lock only after
  watching it go unrefreshed for the whole lease on its own clock: a lock left by a
  crashed node hours ago still costs every new worker another ``stale_after``
  (``test_lock_of_other_host_is_stale_only_after_timeout`` expects it broken at once).

The price, measured in ``benchmarks/results/locks.md``: an acquire writes and fsyncs the
holder's record and starts a heartbeat thread, milliseconds per task that runs for seconds
to hours.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.interrupt import signals_blocked
from ..core.layout import ModelFolder

if TYPE_CHECKING:
    from mteb.models import ModelMeta

logger = logging.getLogger(__name__)

#: A lock untouched for this long is stale (seconds); holders refresh it every HEARTBEAT.
STALE_AFTER = 300.0
HEARTBEAT = 30.0
#: A ``.break`` guard file older than this was left by a breaker that died (seconds).
BREAK_GUARD_TIMEOUT = 30.0


@dataclass(frozen=True)
class LockInfo:
    """Who holds a lock.

    Attributes:
        host: Host name of the holder.
        pid: Process id of the holder.
        pid_start: Start time of that process (clock ticks since boot), or None.
        started: When the lock was taken (Unix time).
        token: Random token identifying this acquisition.
    """

    host: str
    pid: int
    pid_start: int | None
    started: float
    token: str


def lock_path(results_dir: str | Path, meta: ModelMeta, task_name: str) -> Path:
    """The lock file of one (model, revision, experiment, task) in a results folder.

    Args:
        results_dir: The results folder.
        meta: The model's metadata (name, revision and experiment).
        task_name: The mteb task name.

    Returns:
        ``<results_dir>/.locks/<org>__<model>/<revision>/<Task>.lock``
        (:mod:`analysis.core.layout`, which adds an experiment's level).
    """
    return ModelFolder.of(meta).lock_file(results_dir, task_name)


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
    """Whether process ``pid`` runs on this host (and, when ``start`` is given, is the same one).

    Args:
        pid: Process id.
        start: Expected start time (:func:`process_start`); a different one means pid reuse.

    Returns:
        True if the process exists (and started at ``start``).
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if start is None:
        return True
    current = process_start(pid)
    return current is None or current == start


def read_lock(path: Path) -> LockInfo | None:
    """The holder recorded in a lock file, or None if it is missing or not (yet) written."""
    try:
        data = json.loads(path.read_text())
        return LockInfo(**data)
    except (OSError, ValueError, TypeError):
        return None


def lock_is_held(path: Path, holder: LockInfo | None, stale_after: float = STALE_AFTER) -> bool:
    """The one liveness rule of a lock file: whether its holder still holds it.

    Breaking a lock (:meth:`FileLock.is_stale`) and ``static-rteb status``
    (:func:`analysis.runs.status.lock_holder`) both ask this.

    * A holder on this host whose process is gone (or whose pid now belongs to a process
      that started later) holds nothing.
    * A holder on this host whose very process runs (its start time recorded and
      matching) holds the lock, however late its heartbeat (a suspended laptop, a
      stopped process): that check is exact, the heartbeat is only a stand-in for it.
    * Any other holder (another host, a start time not recorded or unreadable, an
      unreadable file) holds the lock while the file is younger than ``stale_after``.

    Args:
        path: The lock file.
        holder: What it records (:func:`read_lock`; None: unreadable or not yet written).
        stale_after: Seconds without a heartbeat after which the file is stale.

    Returns:
        True while the lock is held; False when it is stale or gone.
    """
    if holder is not None and holder.host == socket.gethostname():
        if not pid_alive(holder.pid, holder.pid_start):
            return False
        if holder.pid_start is not None and process_start(holder.pid) == holder.pid_start:
            return True
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        return False
    return age <= stale_after


class FileLock:
    """An exclusive lock file with heartbeat and stale-lock breaking.

    Use as a context manager (blocks until acquired) or with :meth:`acquire` /
    :meth:`release`.

    Args:
        path: The lock file.
        stale_after: Seconds without a heartbeat after which a lock counts as stale.
        heartbeat: Seconds between refreshes of a held lock (must be < ``stale_after``).
        poll: Seconds between attempts while waiting.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        stale_after: float = STALE_AFTER,
        heartbeat: float = HEARTBEAT,
        poll: float = 0.5,
    ) -> None:
        if not 0 < heartbeat < stale_after:
            raise ValueError(
                f"heartbeat must be positive and below stale_after, got heartbeat={heartbeat}, "
                f"stale_after={stale_after}."
            )
        if poll <= 0:
            raise ValueError(f"poll must be positive, got {poll}.")
        self.path = Path(path)
        self.stale_after = stale_after
        self.heartbeat = heartbeat
        self.poll = poll
        self.info: LockInfo | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- acquire/release

    def acquire(self, *, blocking: bool = True, timeout: float | None = None) -> bool:
        """Take the lock, breaking it if stale.

        Args:
            blocking: Wait while another live holder has it; else return False at once.
            timeout: Give up after this many seconds (None: wait as long as it takes).

        Returns:
            True when acquired, False when not (non-blocking or timed out).

        Raises:
            RuntimeError: If this object already holds the lock.
        """
        if self.info is not None:
            raise RuntimeError(f"{self.path} is already held by this FileLock.")
        deadline = None if timeout is None else time.monotonic() + timeout
        self.path.parent.mkdir(parents=True, exist_ok=True)
        announced = False
        while True:
            if self._try_create():
                return True
            holder = read_lock(self.path)
            if self.is_stale(holder):
                self._break(holder)
                continue
            if not blocking or (deadline is not None and time.monotonic() >= deadline):
                return False
            if not announced and holder is not None:
                logger.info(
                    "%s is held by pid %d on %s; waiting.", self.path.name, holder.pid, holder.host
                )
                announced = True
            time.sleep(self.poll)

    def release(self) -> None:
        """Give the lock back (removes the file if it is still ours)."""
        if self.info is None:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        current = read_lock(self.path)
        if current is not None and current.token == self.info.token:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self.info = None

    def __enter__(self) -> FileLock:
        """Acquire (blocking)."""
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        """Release."""
        self.release()

    # ----------------------------------------------------------------- internals

    def is_stale(self, holder: LockInfo | None) -> bool:
        """Whether the lock file, recorded as held by ``holder``, may be broken.

        Args:
            holder: What the file records (None: unreadable or not yet written).

        Returns:
            The opposite of :func:`lock_is_held` (False for a file released meanwhile:
            the next attempt takes it).
        """
        return self.path.exists() and not lock_is_held(self.path, holder, self.stale_after)

    def _try_create(self) -> bool:
        # Ctrl-C / SIGTERM wait until the file holds its holder: an empty lock file would
        # count as held (by an unknown process) until it is stale_after seconds old.
        with signals_blocked():
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                return False
            info = LockInfo(
                host=socket.gethostname(),
                pid=os.getpid(),
                pid_start=process_start(os.getpid()),
                started=time.time(),
                token=uuid.uuid4().hex,
            )
            with os.fdopen(fd, "w") as handle:
                json.dump(asdict(info), handle)
                handle.flush()
                os.fsync(handle.fileno())
            self.info = info
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lock {self.path}", daemon=True)
        self._thread.start()
        return True

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat):
            with contextlib.suppress(FileNotFoundError):
                os.utime(self.path)

    def _break(self, holder: LockInfo | None) -> None:
        guard = self.path.with_name(self.path.name + ".break")
        try:
            fd = os.open(guard, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            with contextlib.suppress(FileNotFoundError):
                if time.time() - guard.stat().st_mtime > BREAK_GUARD_TIMEOUT:
                    guard.unlink()
            time.sleep(self.poll)
            return
        os.close(fd)
        try:
            current = read_lock(self.path)
            same = (current is None and holder is None) or (
                current is not None and holder is not None and current.token == holder.token
            )
            if same and self.is_stale(current):
                logger.warning(
                    "Breaking stale lock %s (held by %s).",
                    self.path,
                    f"pid {holder.pid} on {holder.host}" if holder else "an unknown process",
                )
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
        finally:
            with contextlib.suppress(FileNotFoundError):
                guard.unlink()


@contextlib.contextmanager
def task_lock(
    results_dir: str | Path, meta: ModelMeta, task_name: str, **options: float
) -> Iterator[FileLock]:
    """Hold the lock of one (model, revision, task) while the block runs (waits for it).

    Args:
        results_dir: The results folder.
        meta: The model's metadata.
        task_name: The mteb task name.
        **options: ``stale_after``, ``heartbeat``, ``poll`` (see :class:`FileLock`).

    Yields:
        The held lock.
    """
    lock = FileLock(lock_path(results_dir, meta, task_name), **options)
    with lock:
        yield lock
