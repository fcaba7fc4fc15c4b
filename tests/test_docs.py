"""The documentation site builds without a warning and holds every public name and command.

CI builds the docs through this test (``make test`` runs pytest; ``make setup`` installs
the ``docs`` extra), so a broken reference or a docstring Sphinx cannot read fails CI.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

import analysis
import analysis.stats
from analysis.cli.build_cli import build_cli

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # the Sphinx build takes about 5-10 s
SPHINX = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built with ``-W --keep-going`` into a temporary folder."""
    pytest.importorskip("sphinx", reason="install the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [*SPHINX, str(ROOT / "docs"), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"the docs build warned or failed:\n{proc.stderr}"
    return out


def test_api_page_has_every_public_name(site: Path) -> None:
    ids = set(re.findall(r'id="([^"]+)"', (site / "api.html").read_text(encoding="utf-8")))
    missing = [
        f"{module.__name__}.{name}"
        for module in (analysis, analysis.stats)
        for name in module.__all__
        if f"{module.__name__}.{name}" not in ids and f"analysis.stats.{name}" not in ids
    ]
    assert not missing, f"names without an entry on the API page: {missing}"


def test_cli_page_has_every_command_and_option(site: Path) -> None:
    html = (site / "cli.html").read_text(encoding="utf-8")
    sub = next(a for a in build_cli()._actions if hasattr(a, "_name_parser_map"))
    missing = [f"static-rteb {c}" for c in sub.choices if f'id="static-rteb-{c}"' not in html]
    missing += [
        f"static-rteb {command} {option}"
        for command, parser in sub.choices.items()
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--")
        and option != "--help"
        and action.help != argparse.SUPPRESS
        and option not in html
    ]
    assert not missing, f"missing from the command-line page: {missing}"


def test_internal_links_resolve(site: Path) -> None:
    broken = []
    for page in site.glob("*.html"):
        for href in re.findall(r'href="([^"#:]+\.html)', page.read_text(encoding="utf-8")):
            if not (page.parent / href).exists():
                broken.append(f"{page.name} -> {href}")
    assert not broken, f"broken internal links: {broken}"
