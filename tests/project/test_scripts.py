"""Every script in benchmarks/ and tools/ is a working entry point (imports, --help)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests._cli import cli_env
from tests.conftest import REPO

SCRIPTS = sorted(
    p.relative_to(REPO).as_posix()
    for folder in ("benchmarks", "tools")
    for p in (REPO / folder).glob("*.py")
    if not p.name.startswith("_")
)


def test_there_are_scripts():
    assert any(s.startswith("benchmarks/") for s in SCRIPTS)
    assert any(s.startswith("tools/") for s in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_help(script):
    proc = subprocess.run(
        [sys.executable, script, "--help"],
        cwd=REPO,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, f"{script} --help failed:\n{proc.stderr[-2000:]}"
    assert "usage:" in proc.stdout, proc.stdout[:500]


def test_cpu_hogs_run_inside_the_block_and_stop_after_it():
    """The benchmarks' busy machine (``benchmarks/_busy.py``): n processes, gone after."""
    import multiprocessing as mp

    from tests.conftest import load_file

    hogs = load_file(REPO / "benchmarks" / "_busy.py", "_busy").cpu_hogs
    before = set(mp.active_children())
    with pytest.raises(KeyboardInterrupt), hogs(2):
        running = [p for p in mp.active_children() if p not in before]
        assert len(running) == 2 and all(p.is_alive() for p in running)
        raise KeyboardInterrupt  # stopped however the block ends
    assert not [p for p in running if p.is_alive()]
    with hogs(0):
        assert set(mp.active_children()) == before


def test_busy_arguments_give_the_busy_levels_and_the_note():
    """The four busy benchmarks' shared options (``benchmarks/_busy.py``)."""
    import argparse

    from tests.conftest import load_file

    busy = load_file(REPO / "benchmarks" / "_busy.py", "_busy")
    parser = argparse.ArgumentParser()
    busy.busy_arguments(parser)
    assert vars(parser.parse_args([])) == {"busy": [0, 2], "note": ""}
    args = parser.parse_args(["--busy", "0", "1", "3", "--note", "a busy shared machine"])
    assert args.busy == [0, 1, 3] and args.note == "a busy shared machine"
    with pytest.raises(SystemExit):
        parser.parse_args(["--busy", "two"])
