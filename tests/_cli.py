"""The one way the tests start the ``static-rteb`` command in a subprocess.

Every test that starts the command line does it through :func:`start_cli` (running) or
:func:`run_cli` (finished): ``python -m analysis.cli ARGV`` from the repository root, with
:func:`cli_env` (this checkout first on ``PYTHONPATH``, the Hugging Face hub offline).
:func:`wait_for` polls for what a started process should bring about.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from tests.conftest import REPO

#: The module every CLI test runs: ``python -m analysis.cli <subcommand> ...``.
CLI_MODULE = "analysis.cli"


def cli_env(extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The environment of a subprocess of the tests: this one's, importing this checkout.

    Args:
        extra: Variables to set on top (they win over the defaults below); a variable
            given as ``None`` is left out (e.g. ``dict.fromkeys(conftest.THREAD_LIMITS)``:
            the machine's own thread defaults, as a user's command gets them).

    Returns:
        ``os.environ`` with the repository root first on ``PYTHONPATH`` (so the child
        imports this checkout's ``analysis``, not another install) and the Hugging Face
        hub offline (``HF_HUB_OFFLINE``, ``TRANSFORMERS_OFFLINE``).
    """
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    merged = {**env, **(extra or {})}
    return {name: value for name, value in merged.items() if value is not None}


def cli_command(argv: Sequence[str]) -> list[str]:
    """``[python, -m, analysis.cli, *argv]`` with this interpreter."""
    return [sys.executable, "-m", CLI_MODULE, *argv]


def start_cli(
    argv: Sequence[str],
    *,
    env: Mapping[str, str | None] | None = None,
    new_session: bool = False,
    ignore_sigint: bool = False,
    cwd: Path = REPO,
) -> subprocess.Popen[str]:
    """Start ``python -m analysis.cli ARGV`` (text pipes for stdout and stderr).

    Args:
        argv: The subcommand and its arguments, e.g. ``["run", "-m", model, "-t", task]``.
        env: Extra environment variables (on top of :func:`cli_env`).
        new_session: Start it in its own session and process group, as a terminal starts
            a foreground job (``os.killpg(process.pid, SIGINT)`` is then Ctrl-C).
        ignore_sigint: Start it with SIGINT ignored, as ``command &`` in a script does;
            else with SIGINT at its default, as a terminal starts it, however the tests
            were started (:func:`as_started_by`).
        cwd: The working folder (default: the repository root).

    Returns:
        The running process; read its output with ``communicate``.
    """
    return subprocess.Popen(
        cli_command(argv),
        cwd=cwd,
        env=cli_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=new_session,
        preexec_fn=as_started_by("script &" if ignore_sigint else "terminal"),
    )


def as_started_by(starter: str) -> Callable[[], None]:
    """A ``preexec_fn``: the child's SIGINT as a ``"terminal"`` or a ``"script &"`` sets it.

    A terminal starts a command with SIGINT at its default; a shell script's background
    job (``command &``, ``nohup``), or a test suite started so, with SIGINT ignored, and a
    child inherits an ignored signal. A test that sends SIGINT to a child starts it with
    this, so that it passes however the suite itself was started.
    """
    disposition = signal.SIG_IGN if starter == "script &" else signal.SIG_DFL

    def preexec() -> None:
        signal.signal(signal.SIGINT, disposition)

    return preexec


def run_cli(
    argv: Sequence[str],
    *,
    env: Mapping[str, str | None] | None = None,
    timeout: float = 600,
    cwd: Path = REPO,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m analysis.cli ARGV`` to its end; its output is captured (text).

    Args:
        argv: The subcommand and its arguments.
        env: Extra environment variables (on top of :func:`cli_env`).
        timeout: Seconds before it is killed and ``subprocess.TimeoutExpired`` raised.
        cwd: The working folder (default: the repository root).

    Returns:
        The finished process (``returncode``, ``stdout``, ``stderr``); the caller checks
        the exit status, so that its assertion can show the output.
    """
    return subprocess.run(
        cli_command(argv),
        cwd=cwd,
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def wait_for(
    condition: Callable[[], object],
    what: str,
    *,
    timeout: float = 180,
    process: subprocess.Popen | None = None,
    interval: float = 0.2,
) -> None:
    """Poll ``condition`` until it is true; fail the test if it is not within ``timeout``.

    Args:
        condition: Called every ``interval`` seconds until it returns something true.
        what: What is awaited, for the failure message ("the first task").
        timeout: Seconds before the test fails.
        process: The process that should bring it about: the test fails at once, with
            its output (when piped), if it ends first.
        interval: Seconds between two polls.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            out, err = process.communicate() if process.stdout or process.stderr else ("", "")
            pytest.fail(
                f"the process ended (exit status {process.returncode}) before {what}:\n{out}\n{err}"
            )
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)
