"""The stop rules of :mod:`analysis.core.interrupt`, each in a small process of its own.

Each test starts a short script as a terminal would (SIGINT at its default) or as a
script's background job would (SIGINT ignored), whatever the suite was started with,
sends it signals as a user, ``kill`` or a scheduler does, and checks what it does: one
line and 128 + the signal; SIGINT ignored when it was ignored at start, SIGTERM still
stopping; a second signal ending a command at once; a stop that lands in a finalizer
raised once it returns; a worker that ignores its second signal, stops when its parent
dies, and is ended :data:`GRACE` seconds later should it not stop.
``tests/core/test_interrupt.py`` stops real runs, plans and a notebook kernel.
"""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests._cli import as_started_by, cli_env, wait_for
from tests._run_fixtures import REPO

COMMAND = """
import pathlib, sys, time
from analysis.core.interrupt import stoppable_command

def command():
    try:
        print("ready", flush=True)
        while not pathlib.Path(sys.argv[1]).exists():  # the test's go-ahead
            time.sleep(0.01)
    except KeyboardInterrupt:
        print("cleaning up", flush=True)
        if sys.argv[2] == "slow":
            time.sleep(60)
        raise
    return 0

print("status", stoppable_command(command, resume="static-rteb run -m x -t y"))
"""


def _start(source: str, *args: str, starter: str = "terminal") -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(source), *args],
        cwd=REPO,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_started_by(starter),
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n", process.communicate()
    return process


def _finish(process: subprocess.Popen[str]) -> tuple[list[str], str]:
    out, err = process.communicate(timeout=30)
    return out.splitlines(), err


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_stop_prints_one_line_and_returns_128_plus_the_signal(name: str, tmp_path) -> None:
    process = _start(COMMAND, str(tmp_path / "go"), "quick")
    process.send_signal(signal.Signals[name])
    out, err = _finish(process)
    assert out == ["cleaning up", f"status {128 + signal.Signals[name]}"]
    assert err == (
        f"Interrupted ({name}): stopped before anything ran. "
        "Resume with: static-rteb run -m x -t y\n"
    )


def test_started_with_sigint_ignored_sigint_stays_ignored_and_sigterm_stops(tmp_path) -> None:
    """POSIX's rule for a background job: SIGINT (a Ctrl-C meant for the script that
    started it) is ignored; SIGTERM stops it. A signal pending when the go-ahead appears
    is raised before the command can return, so a stop on SIGINT would show."""
    go = tmp_path / "go"
    process = _start(COMMAND, str(go), "quick", starter="script &")
    process.send_signal(signal.SIGINT)
    go.touch()
    assert _finish(process) == (["status 0"], "")
    go.unlink()
    process = _start(COMMAND, str(go), "quick", starter="script &")
    process.send_signal(signal.SIGTERM)
    out, err = _finish(process)
    assert out == ["cleaning up", "status 143"] and err.startswith("Interrupted (SIGTERM)")


def test_a_second_signal_ends_the_command_at_once(tmp_path) -> None:
    process = _start(COMMAND, str(tmp_path / "go"), "slow")  # its cleanup takes a minute
    process.send_signal(signal.SIGTERM)
    assert process.stdout is not None and process.stdout.readline() == "cleaning up\n"
    process.send_signal(signal.SIGINT)
    out, err = _finish(process)  # within 30 s, not the cleanup's 60
    assert process.returncode == 130 and out == []
    assert err == "\nStopped at once; no partial result file is kept.\n"


IN_A_FINALIZER = """
    import signal, sys, time
    from analysis.core.interrupt import stoppable_command

    class Finalized:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)  # the handler runs here, in __del__
            print("ready", flush=True)
            if sys.argv[1] == "hung":
                time.sleep(60)

    def command():
        Finalized()
        time.sleep(60)
        return 0

    sys.exit(stoppable_command(command, resume="static-rteb run"))
"""


def test_a_stop_that_lands_in_a_finalizer_stops_the_command_once_it_returns() -> None:
    """Python would print an exception raised in ``__del__`` and carry on: the stop is
    sent again and raised after the finalizer, in the command's minute of work."""
    process = _start(IN_A_FINALIZER, "quick")
    _, err = _finish(process)  # within 30 s, not the command's 60
    assert process.returncode == 130, err
    assert (
        err == "Interrupted (SIGINT): stopped before anything ran. Resume with: static-rteb run\n"
    )


def test_a_stop_lost_in_a_hung_finalizer_still_ends_the_command() -> None:
    """Held up GRACE seconds, the stop is raised in the finalizer anyway (and lost); the
    command ends itself DEADLINE seconds after the signal, not after its minute of work."""
    process = _start(IN_A_FINALIZER, "hung")
    _, err = _finish(process)  # within 30 s
    assert process.returncode == 130, err
    assert err.endswith("\nStopped at once; no partial result file is kept.\n"), err


def test_a_signal_after_one_held_up_by_a_finalizer_ends_the_command_at_once() -> None:
    """A second signal while the first waits for a hung finalizer (or, on a machine slow
    enough, after it was lost there) ends the command at once: 143, not DEADLINE's 130."""
    process = _start(IN_A_FINALIZER, "hung")
    process.send_signal(signal.SIGTERM)
    _, err = _finish(process)
    assert process.returncode == 143, err
    assert err.endswith("\nStopped at once; no partial result file is kept.\n"), err


def test_nested_blocks_raise_one_stop_and_restore_the_handlers() -> None:
    source = """
        import signal, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import stop_on_signals

        before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        with stop_on_signals():
            try:
                with stop_on_signals():
                    print("ready", flush=True)
                    time.sleep(60)
            except RunInterrupted as err:
                print("stopped", signal.Signals(err.signum).name, flush=True)
        after = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        print("restored", after == before)
    """
    process = _start(source)
    process.send_signal(signal.SIGINT)
    assert _finish(process) == (["stopped SIGINT", "restored True"], "")


def test_a_worker_raises_its_first_stop_and_ignores_the_next() -> None:
    source = """
        import os, signal, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import worker_signals

        worker_signals()
        try:
            print("ready", flush=True)
            time.sleep(60)
        except RunInterrupted as err:
            os.kill(os.getpid(), signal.SIGTERM)  # the main process's SIGTERM after a Ctrl-C
            time.sleep(0.2)
            print("cleaned up after", signal.Signals(err.signum).name)
    """
    process = _start(source)
    process.send_signal(signal.SIGINT)
    assert _finish(process) == (["cleaned up after SIGINT"], "")


def test_a_worker_raises_a_stop_that_lands_in_a_finalizer_once_it_returns() -> None:
    source = """
        import signal, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import worker_signals

        class Finalized:
            def __del__(self):
                signal.raise_signal(signal.SIGINT)  # the handler runs here, in __del__

        worker_signals()
        print("ready", flush=True)
        try:
            Finalized()
            time.sleep(60)
        except RunInterrupted as err:
            print("stopped", signal.Signals(err.signum).name)
    """
    assert _finish(_start(source)) == (["stopped SIGINT"], "")


@pytest.mark.parametrize("swallow", [False, True], ids=["stops", "swallows its stop"])
def test_a_worker_stops_when_its_parent_is_killed(swallow: bool, tmp_path) -> None:
    """The parent dies by SIGKILL: the worker gets SIGTERM, and ends at most GRACE
    seconds later even if it carries on (well before its 60 s sleep)."""
    marker = tmp_path / "worker"
    source = """
        import multiprocessing, signal, sys, time
        from analysis.core.errors import RunInterrupted
        from analysis.core.interrupt import worker_signals

        def work(marker, swallow):
            worker_signals()
            with open(marker, "w") as f:
                f.write("started\\n")
            try:
                time.sleep(60)
            except RunInterrupted as err:
                with open(marker, "a") as f:
                    f.write(f"stopped {signal.Signals(err.signum).name}\\n")
                if swallow:  # as if a bare ``except:`` had caught it: carry on
                    time.sleep(60)

        child = multiprocessing.get_context("fork").Process(
            target=work, args=(sys.argv[1], sys.argv[2] == "True"))
        child.start()
        print("ready", child.pid, flush=True)
        time.sleep(60)
    """
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(source), str(marker), str(swallow)],
        cwd=REPO,
        env=cli_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline().split()[1])
    wait_for(marker.exists, "the worker to start", process=parent, timeout=60)
    parent.kill()
    parent.wait(30)
    wait_for(lambda: not _alive(child), "the worker to end", timeout=30)
    assert marker.read_text() == "started\nstopped SIGTERM\n"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in {"Z", "X"}
    except OSError:
        return False


def _deaf(ready) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a worker whose stop was lost
    ready.set()
    time.sleep(60)


def test_the_local_executor_kills_a_worker_that_does_not_stop() -> None:
    from analysis.runs.executors.local import LocalRun
    from analysis.runs.plan import Plan

    context = multiprocessing.get_context("fork")
    ready = context.Event()
    deaf = context.Process(target=_deaf, args=(ready,))
    quick = context.Process(target=time.sleep, args=(60,))
    for process in (deaf, quick):
        process.start()
    assert ready.wait(30)
    run = LocalRun(Plan(results_dir="unused", jobs=()), (), "token", [deaf, quick], time.time())
    assert run._stop(signal.SIGTERM) == {deaf.pid}
    assert not deaf.is_alive() and not quick.is_alive()
    assert quick.exitcode == -signal.SIGTERM and deaf.exitcode == -signal.SIGKILL
