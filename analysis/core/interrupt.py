"""Stop a run cleanly on Ctrl-C, a notebook kernel interrupt, SIGINT or SIGTERM.

Results only move into place whole (a staging folder, then ``os.replace``), so a process stopped at
any instant, even by SIGKILL, leaves no partial result; what it leaves (a staging folder, a job
record saying ``running``) names its pid. Our processes stop on SIGINT and SIGTERM unless ignored
at start (a background job keeps ignoring SIGINT, as in POSIX): the first signal raises
:class:`~analysis.core.errors.RunInterrupted`, a ``KeyboardInterrupt`` that no ``except Exception``
swallows, whose ``finally`` blocks remove the staging folder and record the job as interrupted. In
a command a second signal ends the process at once; in a worker it is ignored. A process waiting on
workers sends them the signal it got, kills those left after :data:`GRACE` seconds and records
their jobs as interrupted; a worker whose parent dies sends itself SIGTERM. A command then prints
one line (what finished, what was interrupted, how to resume) and exits with 128 + the signal. A
stop landing in a finalizer (which would drop it) is re-sent once that returns; one lost in a bare
``except:`` or in a finalizer hung :data:`GRACE` seconds lets a worker go on until killed (a job it
ends first is kept); a command not stopped :data:`DEADLINE` seconds after the signal ends at once.
"""

from __future__ import annotations

import contextlib
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from .errors import RunInterrupted

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  #: The signals that stop a run.
GRACE = 3.0  #: Seconds a worker has to stop before it is killed.
DEADLINE = GRACE + 2  #: Seconds after its first stop signal a command ends, stopped or not.
_BEFORE = "stopped before anything ran"  # when no run counted what it stopped
_deadlines: list[threading.Timer] = []  # a stopping block's timers; cancelled as it ends
_held: dict[str, float] = {}  # a stop a finalizer holds up: held "until", re-sent when "due"


def _handle(handler: Callable[[int, Any], None]) -> dict[int, Any]:
    """Send each stop signal not ignored at start to ``handler``; the previous handlers."""
    previous: dict[int, Any] = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in [sig for sig, old in previous.items() if old is not signal.SIG_IGN]:
        signal.signal(sig, handler)
    return previous


def _raise_once(then: Callable[[int, Any], None], signum: int, frame: Any) -> None:
    if time.monotonic() < _held.get("due", 0):  # a second signal while the first is held up
        return then(signum, frame)
    if not _held and then is _end_now:  # a command: should this stop be lost, end anyway
        _deadlines.append(threading.Timer(DEADLINE, _end_now, (signum, None)))
        _deadlines[-1].start()  # cancelled as the block ends, so no exit waits on it
    while frame and frame.f_code.co_name != "__del__":  # in a finalizer (it drops exceptions)?
        frame = frame.f_back
    if frame and time.monotonic() < _held.setdefault("until", time.monotonic() + GRACE):
        _held["due"] = time.monotonic() + 0.05  # re-sent then, so raised once it has returned
        _deadlines.append(threading.Timer(0.05, os.kill, (os.getpid(), signum)))
        _deadlines[-1].daemon = True
        return _deadlines[-1].start()
    _handle(then)  # later signals go to ``then``
    raise RunInterrupted(_BEFORE, signum=signum)


def _end_now(signum: int, frame: Any) -> None:
    os.write(2, b"\nStopped at once; no partial result file is kept.\n")
    os._exit(128 + signum)


def _ignore(signum: int, frame: Any) -> None:
    """Not ``SIG_IGN``: a signal on its way would print "ignored due to race condition"."""


_STOP_COMMAND, _STOP_WORKER = partial(_raise_once, _end_now), partial(_raise_once, _ignore)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Inside the block, SIGINT and SIGTERM raise :class:`RunInterrupted`; a second one ends.

    A signal ignored at the start stays ignored. Outside the main thread, or in an enclosing
    block, it changes nothing. The previous handlers come back after it.
    """
    ours = (_STOP_COMMAND, _end_now, _STOP_WORKER, _ignore)
    nested = any(signal.getsignal(sig) in ours for sig in STOP_SIGNALS)
    if nested or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = _handle(_STOP_COMMAND)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        while _deadlines:
            _deadlines.pop().cancel()
        _held.clear()


def worker_signals() -> None:
    """In a worker: the first stop signal raises, later ones are ignored; stop with the parent."""
    _handle(_STOP_WORKER)
    if (parent := multiprocessing.parent_process()) is not None:
        threading.Thread(target=_stop_with, args=(parent.sentinel,), daemon=True).start()


def _stop_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os.kill(os.getpid(), signal.SIGTERM)
    threading.Event().wait(GRACE)
    os._exit(128 + signal.SIGTERM)


def signal_of(err: BaseException) -> int:
    """The signal behind an interrupt: :attr:`RunInterrupted.signum`, else SIGINT."""
    return int(getattr(err, "signum", signal.SIGINT))


def stoppable_command(
    command: Callable[[], int], *, resume: str | Callable[[RunInterrupted], str]
) -> int:
    """Run ``command``; a stop prints one line (with ``Resume with: <resume>``), returns 128+sig.

    ``resume`` may be a function of the stop (what it finished decides the command).
    """
    with stop_on_signals():
        try:
            return command()
        except KeyboardInterrupt as err:
            stop = err if isinstance(err, RunInterrupted) else None
            stop = stop or RunInterrupted(_BEFORE, signum=signal_of(err))
            again = resume(stop) if callable(resume) else resume
            note = None if stop.detached else f"Resume with: {again}"
            print(stop.summary(note), file=sys.stderr)
            return 128 + stop.signum
