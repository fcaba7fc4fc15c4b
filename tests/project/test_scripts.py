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
