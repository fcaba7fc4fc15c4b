"""A stop that lands inside a finalizer still stops the run, without a traceback.

Python runs a signal handler wherever the main thread is, and that can be a ``__del__``
method the garbage collector calls (regex's compiled patterns have one). An exception
raised there cannot leave it: Python prints "Exception ignored in ..." with a traceback
and carries on. :mod:`analysis.core.interrupt` sends such a stop again so it is raised
just after the finalizer. Each test runs a small script in its own process, where the
stop is raised inside ``__del__`` on purpose (``signal.raise_signal`` runs the handler at
once), and checks that the script stops with :class:`RunInterrupted` and prints nothing.
The last five cover what an independent review's stress scripts broke: a stop swallowed
as a command or batch returns, nested blocks, a previous unraisable hook written in
Python (pytest's; a notebook's ``sys.stderr``), and a child forked while a stop is pending.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests._run_fixtures import REPO

_SCRIPT = """
import signal, sys, time
from analysis.core.errors import RunInterrupted
from analysis.core.interrupt import stop_on_signals, worker_signals

class Finalized:
    def __del__(self):
        signal.raise_signal(signal.{name})  # the handler runs here, inside __del__

def work():
    Finalized()  # unreferenced at once: its __del__ receives the stop
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.01)
    print("not stopped")

hook = sys.unraisablehook
try:
    if {worker}:
        worker_signals()
        work()
    else:
        with stop_on_signals():
            work()
except RunInterrupted as err:
    print("stopped", signal.Signals(err.signum).name)
if not {worker}:
    print("hook restored", sys.unraisablehook is hook)
    print("handler restored", signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


def _run(source: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(source)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("worker", [False, True], ids=["stop_on_signals", "worker"])
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_stop_raised_inside_del_stops_the_run_after_it(name: str, worker: bool) -> None:
    done = _run(_SCRIPT.format(name=name, worker=worker))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"stopped {name}", done.stdout
    if not worker:
        assert lines[1:] == ["hook restored True", "handler restored True"], done.stdout
    assert done.stderr == "", "no 'Exception ignored' traceback"


def test_stop_swallowed_again_and_again_is_raised_after_the_last_finalizer() -> None:
    """A garbage collection that runs one ``__del__`` after another: the resent stop lands
    in the next ones too, and is raised once they have all run.

    The stop may abort the finalizer it lands in (as any Ctrl-C may), so the test counts
    the objects collected (weak references gone), not the finalizers that ran to the end.
    """
    done = _run(
        """
        import signal, time, weakref
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import stop_on_signals

        ran = []

        class Slow:
            def __del__(self):
                ran.append(1)
                if len(ran) == 1:
                    signal.raise_signal(signal.SIGINT)
                end = time.monotonic() + 0.005
                while time.monotonic() < end:  # bytecodes where the resent stop lands
                    pass

        with stop_on_signals():
            many = [Slow() for _ in range(200)]
            refs = [weakref.ref(obj) for obj in many]
            try:
                del many
                time.sleep(10)
                print("not stopped")
            except RunInterrupted as err:
                frames, tb = [], err.__traceback__
                while tb is not None:
                    frames.append(tb.tb_frame.f_code.co_name)
                    tb = tb.tb_next
                collected = sum(ref() is None for ref in refs)
                print("stopped", err.signum, "in", frames[:-1])  # the last: the handler
                print("collected", collected, "finalizers past the first", len(ran) > 1)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "stopped 2 in ['<module>']",
        "collected 200 finalizers past the first True",
    ], done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_stop_swallowed_as_the_block_ends_leaves_the_block(name: str) -> None:
    """The finalizer is the block's last statement: the stop still leaves the block, and
    no signal sent again reaches the handler that comes back after it."""
    done = _run(
        f"""
        import signal, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import stop_on_signals

        class Finalized:
            def __del__(self):
                signal.raise_signal(signal.{name})

        for _ in range(20):
            try:
                with stop_on_signals():
                    Finalized()
                print("not stopped")
            except RunInterrupted as err:
                pass
            time.sleep(0.02)  # a straggling signal would end or interrupt the script here
        print("done")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n", done.stdout
    assert done.stderr == ""


def test_other_exceptions_in_finalizers_are_reported_as_before() -> None:
    done = _run(
        """
        from analysis.core.interrupt import stop_on_signals

        class Broken:
            def __del__(self):
                raise ValueError("broken finalizer")

        with stop_on_signals():
            Broken()
        print("carried on")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "carried on\n"
    assert "Exception ignored in" in done.stderr and "ValueError: broken finalizer" in done.stderr


def test_stop_signals_are_ignored_after_the_redelivered_stop() -> None:
    """The redelivered stop raises once; a second signal during cleanup changes nothing."""
    done = _run(
        """
        import signal, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import stop_on_signals

        class Finalized:
            def __del__(self):
                signal.raise_signal(signal.SIGINT)

        with stop_on_signals():
            try:
                Finalized()
                time.sleep(10)
            except RunInterrupted:
                signal.raise_signal(signal.SIGTERM)  # during cleanup: ignored
                time.sleep(0.05)
                print("cleaned up")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "cleaned up\n" and done.stderr == ""


# ------------------------------------------------ found by an independent review (stress/)


def test_stop_swallowed_as_a_command_returns_gives_the_one_line() -> None:
    """The command's locals are freed as it returns (regex's patterns, say): the stop that
    lands in their ``__del__`` is reported as one line with 143, not as a traceback."""
    done = _run(
        """
        import signal
        from analysis.core.interrupt import stoppable_command

        class Finalized:
            def __del__(self):
                signal.raise_signal(signal.SIGTERM)

        def command():
            held = Finalized()  # freed as the command returns
            return 0

        print("status", stoppable_command(command, resume="static-rteb run ..."))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "status 143\n", done.stdout
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("Interrupted (SIGTERM)"), done.stderr
    assert done.stderr.rstrip().endswith("Resume with: static-rteb run ..."), done.stderr


def test_batch_stopped_as_it_ends_does_not_say_nothing_ran() -> None:
    done = _run(
        """
        import signal
        import analysis.notebook.batch as batch
        from analysis.cli import main

        class Finalized:
            def __del__(self):
                signal.raise_signal(signal.SIGINT)

        def run_batch(*args, **kwargs):
            held = Finalized()  # freed as the batch returns
            return []

        batch.run_batch = run_batch
        print("status", main(["batch"]))
        """
    )
    assert done.returncode == 0, done.stderr
    assert "Interrupted as the batch ended, after all 0 notebooks ran." in done.stdout
    assert "before any notebook ran" not in done.stdout
    assert done.stdout.rstrip().endswith("status 130"), done.stdout


def test_nested_blocks_raise_one_stop_and_ignore_the_next() -> None:
    """A stop swallowed in an inner block's last statement is raised once; the signal sent
    during cleanup is ignored (the inner block no longer re-arms the handler)."""
    done = _run(
        """
        import signal, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import stop_on_signals

        class Finalized:
            def __del__(self):
                signal.raise_signal(signal.SIGINT)

        raised = []
        with stop_on_signals():
            try:
                with stop_on_signals():
                    Finalized()
                time.sleep(5)
            except RunInterrupted:
                raised.append("stop")
                try:
                    signal.raise_signal(signal.SIGTERM)  # during cleanup
                    end = time.monotonic() + 0.2
                    while time.monotonic() < end:
                        time.sleep(0.001)
                except RunInterrupted:
                    raised.append("second stop")
        print(raised, signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "['stop'] True\n", done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize("first", [False, True], ids=["resent", "first"])
def test_stop_landing_in_a_python_previous_hook_is_not_lost(first: bool) -> None:
    """pytest's unraisable hook, or the default one writing to a notebook's Python-level
    ``sys.stderr``, runs Python code: a stop landing there (the first one, or the one sent
    again) would be printed and lost too."""
    done = _run(
        f"""
        import signal, sys, threading, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import stop_on_signals

        reported = []

        def python_hook(unraisable):  # formats a traceback: Python code, some ms
            end = time.monotonic() + 0.05
            while time.monotonic() < end:
                pass
            reported.append(type(unraisable.exc_value).__name__)

        sys.unraisablehook = python_hook

        class Stop:
            def __del__(self):
                signal.raise_signal(signal.SIGINT)

        class Broken:
            def __del__(self):
                raise ValueError("an ordinary failing finalizer")

        try:
            with stop_on_signals():
                if {first}:  # the user's stop comes while the hook reports Broken
                    threading.Timer(
                        0.02, signal.pthread_kill, (threading.get_ident(), signal.SIGTERM)
                    ).start()
                else:  # swallowed, then sent again while the hook reports Broken
                    Stop()
                Broken()
                time.sleep(5)
                print("not stopped")
        except RunInterrupted as err:
            print("stopped", signal.Signals(err.signum).name, reported)
        print("hook restored", sys.unraisablehook is python_hook)
        """
    )
    assert done.returncode == 0, done.stderr
    name = "SIGTERM" if first else "SIGINT"
    assert done.stdout == f"stopped {name} ['ValueError']\nhook restored True\n", done.stdout
    assert done.stderr == ""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_while_a_stop_is_pending_raises_its_own_stop_once() -> None:
    """The child inherits the module's state but not the thread that sends the stop
    again: its own stop is raised once, and a signal during its cleanup is ignored."""
    done = _run(
        """
        import os, signal, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import stop_on_signals, worker_signals

        class Stop:
            def __del__(self):
                signal.raise_signal(signal.SIGINT)

        try:
            with stop_on_signals():
                Stop()  # swallowed: pending for a few ms
                pid = os.fork()
                if pid == 0:
                    worker_signals()
                    raised = 0
                    try:
                        try:
                            os.kill(os.getpid(), signal.SIGINT)
                            time.sleep(5)
                        except RunInterrupted:
                            raised += 1
                            os.kill(os.getpid(), signal.SIGTERM)  # during cleanup
                            time.sleep(0.1)
                    except RunInterrupted:
                        raised += 1
                    print("child raised", raised, flush=True)
                    os._exit(0)
                time.sleep(5)
        except RunInterrupted:
            os.waitpid(pid, 0)
            print("parent stopped")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["child raised 1", "parent stopped"], done.stdout
    assert done.stderr == ""
