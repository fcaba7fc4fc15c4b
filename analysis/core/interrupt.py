"""Stop a run cleanly on Ctrl-C, a notebook kernel interrupt or SIGTERM.

Python turns SIGINT into ``KeyboardInterrupt``, but SIGTERM (what ``kill``, ``timeout``
and schedulers send) ends the process at once: no staging folder removed, no lock
released, no job record saying what happened. :func:`stop_on_signals` makes both raise
:class:`~analysis.core.errors.RunInterrupted` in the main thread, once: further signals are
ignored while the run cleans up, which takes well under the 5 s a user waits. A stop
that lands inside a finalizer (a ``__del__`` the garbage collector runs), where Python
would print it as "Exception ignored" and carry on, is sent again and raised just after.

The pieces that stop a run (they all let a ``KeyboardInterrupt`` pass through every
``except Exception``):

* :func:`analysis.runs.runner.run_evaluation` removes the interrupted task's staging
  folder and releases its lock; finished tasks keep their (complete, atomic) files;
* :func:`analysis.runs.executors.job.run_job` records the job as ``interrupted``;
* the local executor sends its workers SIGTERM, waits :data:`GRACE` seconds, kills what
  is left and records those jobs as interrupted (:mod:`analysis.runs.executors.local`);
* the command line prints one line and exits with 128 + the signal number (130 for
  SIGINT, 143 for SIGTERM), without a traceback (:mod:`analysis.runs.cli`).
"""

from __future__ import annotations

import _thread
import contextlib
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from .errors import RunInterrupted

#: The signals that stop a run.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Seconds the local executor gives its workers to stop before killing them.
GRACE = 3.0


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _ignore(signum: int, frame: FrameType | None) -> None:
    """Signal handler that does nothing.

    Used instead of ``SIG_IGN``: a signal that arrived just before the switch is still
    delivered to Python, and with ``SIG_IGN`` in place Python raises ``OSError: Signal
    15 ignored due to race condition`` from wherever the process is cleaning up.
    """


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    """Signal handler: ignore further stop signals, raise :class:`RunInterrupted` once."""
    for other in STOP_SIGNALS:
        signal.signal(other, _stand_down)
    if _inside_hook(frame):  # raised there, it would be printed and lost: raise it after
        _swallow(signum)
        return
    raise RunInterrupted(signum=signum)


#: The signal of a stop that a finalizer swallowed, until :func:`_stand_down` raises it again.
_swallowed: int | None = None


def _stand_down(signum: int, frame: FrameType | None) -> None:
    """Signal handler after a stop: ignore further signals, but raise a swallowed stop again.

    :func:`_redeliver_swallowed_stop` records the swallowed stop and has its signal sent
    until this handler raises it, once, wherever the main thread is by then (not inside
    that hook itself, where Python would print it and carry on again).
    """
    global _swallowed
    if _swallowed is None or _inside_hook(frame):
        return
    signum, _swallowed = _swallowed, None
    raise RunInterrupted(signum=signum)


def _resend(signum: int) -> None:
    """In a thread of its own: send ``signum`` to the main thread until the stop is raised."""
    main = threading.main_thread().ident
    assert main is not None
    while _swallowed is not None:
        signal.pthread_kill(main, signum)
        time.sleep(0.01)


def _redeliver_swallowed_stop(unraisable: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook`` while stops raise: a stop a finalizer swallowed is sent again.

    A signal handler's exception is raised wherever the main thread is, and that can be
    a ``__del__`` method or a weakref callback that the garbage collector runs (regex's
    compiled patterns have one). Python cannot raise out of those: it prints "Exception
    ignored in ..." with a traceback and carries on, and since :func:`_raise_interrupted`
    has already stood down, the run would no longer stop at all. This hook takes that
    :class:`RunInterrupted`, records it for :func:`_stand_down` and has a new thread send
    the same signal until it is raised: sent from the main thread (``os.kill``,
    ``signal.raise_signal``, ``_thread.interrupt_main``), the handler would run at once,
    inside this hook. The main thread runs it at a later bytecode, normally just after
    the finalizer; should that be in a finalizer again, this hook is called once more.
    Anything else goes to the hook that was there before.
    """
    err = unraisable.exc_value
    if (
        isinstance(err, RunInterrupted)
        and _in_main_thread()
        and signal.getsignal(err.signum) is _stand_down  # raised by a handler of ours
    ):
        _swallow(err.signum)
        return
    _previous_unraisablehook(unraisable)


def _swallow(signum: int) -> None:
    """Record a stop that cannot be raised where it landed; have it sent until it is."""
    global _swallowed
    _swallowed = signum
    _thread.start_new_thread(_resend, (signum,))


def _inside_hook(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside :func:`_redeliver_swallowed_stop` or what it calls.

    That includes the previous hook (pytest's, or the default one writing to a notebook's
    Python-level ``sys.stderr``), where a stop raised would be printed and lost too.
    """
    while frame is not None:
        if frame.f_code is _HOOK_CODE:
            return True
        frame = frame.f_back
    return False


def _forget_swallowed() -> None:
    """In a forked child: a stop pending in the parent is not the child's."""
    global _swallowed
    _swallowed = None


os.register_at_fork(after_in_child=_forget_swallowed)
_HOOK_CODE = _redeliver_swallowed_stop.__code__
_previous_unraisablehook: Callable[[sys.UnraisableHookArgs], Any] = sys.__unraisablehook__


def _hook_unraisable() -> bool:
    """Make :func:`_redeliver_swallowed_stop` ``sys.unraisablehook``; False if it already was."""
    global _previous_unraisablehook
    if sys.unraisablehook is _redeliver_swallowed_stop:
        return False
    _previous_unraisablehook = sys.unraisablehook
    sys.unraisablehook = _redeliver_swallowed_stop
    return True


@contextlib.contextmanager
def _unraisable_stops_redelivered() -> Iterator[None]:
    """Inside the block, :func:`_redeliver_swallowed_stop` is ``sys.unraisablehook``.

    A stop swallowed in the block's last moments, not yet raised again when it ends, is
    raised as the block ends (inside :func:`_handled_by`'s block, so the signal sent
    again meets :func:`_stand_down`, not the handler that comes back after it).
    """
    global _swallowed
    if not _hook_unraisable():  # an enclosing block owns the hook
        yield
        return
    try:
        yield
        pending, _swallowed = _swallowed, None
        if pending is not None:
            raise RunInterrupted(signum=pending)
    finally:
        _swallowed = None
        sys.unraisablehook = _previous_unraisablehook


@contextlib.contextmanager
def _handled_by(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """SIGINT and SIGTERM go to ``handler`` inside the block (main thread only; else no-op)."""
    if not _in_main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Inside the block, SIGINT and SIGTERM raise :class:`RunInterrupted` (once).

    The first signal raises in the main thread; later ones are ignored, so the cleanup
    that follows (staging folders, locks, job records, stopping workers) is not cut
    short. A stop raised inside a finalizer, where Python would print it and carry on,
    is sent again to be raised just after it (:func:`_redeliver_swallowed_stop`). The
    previous handlers come back when the block ends. Inside an enclosing block (or a
    worker's :func:`worker_signals`) and outside the main thread (where Python cannot
    install handlers) the block changes nothing: one stop per run, settled by the
    outermost.
    """
    ours = (_raise_interrupted, _stand_down)
    if not _in_main_thread() or signal.getsignal(signal.SIGINT) in ours:
        yield  # an enclosing block (or worker_signals) stops the run, once, and settles it
        return
    with _handled_by(_raise_interrupted), _unraisable_stops_redelivered():
        yield


@contextlib.contextmanager
def signals_ignored() -> Iterator[None]:
    """Inside the block, SIGINT and SIGTERM are ignored (main thread only): cleanup runs whole.

    For the cleanup after a ``KeyboardInterrupt`` where :func:`stop_on_signals` is not in
    force (a notebook kernel): a second interrupt must not leave workers running.
    """
    with _handled_by(_ignore):
        yield


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """Inside the block, SIGINT and SIGTERM are held back (delivered when it ends).

    Wrapped around a few lines that must not be cut in the middle (a lock file created
    but not yet holding its holder, :mod:`analysis.runs.locks`). No-op where the platform
    has no ``pthread_sigmask``.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def worker_signals() -> None:
    """In a freshly started worker process: stop on SIGINT and SIGTERM, and with the main one.

    Installs :func:`stop_on_signals`' handler (and its redelivery of a stop swallowed by
    a finalizer) for good, unblocks SIGINT and SIGTERM in
    case the process inherited them blocked, and starts a daemon thread that waits on
    the main process (``multiprocessing.parent_process()``: the process that started the
    worker, also through a fork server) and sends this worker SIGTERM when it ends. A
    main process killed outright (SIGKILL, out of memory) thus still stops its workers
    cleanly, each recording its job as interrupted.
    """
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_interrupted)
    _hook_unraisable()
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    main = multiprocessing.parent_process()
    if main is None:
        return

    def stop_with_main() -> None:
        multiprocessing.connection.wait([main.sentinel])
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=stop_with_main, name="stop with main process", daemon=True).start()


def signal_of(err: BaseException) -> int:
    """The signal behind an interrupt: :attr:`RunInterrupted.signum`, else SIGINT."""
    return int(getattr(err, "signum", signal.SIGINT))


def exit_status(signum: int) -> int:
    """The shell's exit status for a process stopped by ``signum``: 128 + its number."""
    return 128 + int(signum)


def stoppable_command(command: Callable[[], int], *, resume: str) -> int:
    """Run a command-line ``command`` so that SIGINT and SIGTERM stop it with one line.

    Under :func:`stop_on_signals`, an interrupt prints one line to stderr (the signal,
    what finished, what was interrupted, and ``Resume with: <resume>``, or for a SLURM
    array how to follow and cancel it), no traceback, and the command returns
    128 + the signal number. Meant for command-line entry points: after an interrupt
    it freezes the garbage collector (``gc.freeze``) so the exiting process does not
    spend seconds collecting.

    Args:
        command: The command; returns its exit status.
        resume: The command line that resumes the work.

    Returns:
        The command's exit status, or 128 + the signal number when stopped.
    """
    try:
        with stop_on_signals():
            try:
                return command()
            except KeyboardInterrupt as err:
                return _report_stop(err, resume)
    except RunInterrupted as err:  # swallowed by a finalizer as the command ended, raised
        with signals_ignored():  # as the block ended (outside the try above)
            return _report_stop(err, resume)


def _report_stop(err: KeyboardInterrupt, resume: str) -> int:
    """:func:`stoppable_command`'s one line for a stop; 128 + the signal number."""
    stop = err
    if not isinstance(stop, RunInterrupted):  # before anything ran (loading, planning)
        stop = RunInterrupted("stopped before anything ran", signum=signal_of(err))
    note = None if stop.detached else f"Resume with: {resume}"
    print(stop.summary(note=note), file=sys.stderr)
    # The process ends next. Python's final garbage collection over mteb's, torch's
    # and pandas' objects takes seconds (2.5 s idle, 6 s on a busy machine); frozen
    # objects are skipped, so the process is gone at once. Nothing is left to write.
    gc.freeze()
    return exit_status(stop.signum)


def end_if_stopped(status: int) -> None:
    """At a command-line entry point: after a stop (``status`` >= 128), end the process now.

    Flushes the standard streams and logging, then ``os._exit(status)``: Python's
    shutdown would spend another second or more freeing mteb's, torch's and pandas'
    objects after the run has already stopped and said so. Returns for other statuses
    (the entry point then exits normally). Call it only where the process ends next.
    """
    if status < 128:
        return
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
