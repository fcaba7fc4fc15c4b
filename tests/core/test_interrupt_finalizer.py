"""A stop that lands inside a finalizer still stops the run, without a traceback.

Python runs a signal handler wherever the main thread is, and that can be a ``__del__``
method the garbage collector calls (regex's compiled patterns have one). An exception
raised there cannot leave it: Python prints "Exception ignored in ..." with a traceback
and carries on. :mod:`analysis.core.interrupt` sends such a stop again so it is raised
just after the finalizer. Each test runs a small script in its own process, where the
stop is raised inside ``__del__`` on purpose (``signal.raise_signal`` runs the handler at
once), and checks that the script stops with :class:`RunInterrupted` and prints nothing.
"""

from __future__ import annotations

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
