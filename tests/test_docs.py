"""The documentation site builds without a warning and holds every public name and command.

CI builds the docs through this test (``make test`` runs pytest; ``make setup`` installs
the ``docs`` extra), so a broken reference or a docstring Sphinx cannot read fails CI.

Every fenced code block of a page in ``docs/`` is either run here or marked illustrative
with ``<!-- illustrative -->`` on the line before it: shell blocks of ``static-rteb ...
--help`` lines run (fast), Python blocks run against the shared results (slow).
``docs/getting_started.md`` is left to its own test, which runs its walk.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from _cli import cli_env, run_cli

import analysis
import analysis.stats
from analysis.cli.build_cli import build_cli

ROOT = Path(__file__).resolve().parents[1]
# The Sphinx build takes about 20-40 s: the tests that read the site are marked slow.
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


@pytest.mark.slow
def test_api_page_has_every_public_name(site: Path) -> None:
    ids = set(re.findall(r'id="([^"]+)"', (site / "api.html").read_text(encoding="utf-8")))
    missing = [
        f"{module.__name__}.{name}"
        for module in (analysis, analysis.stats)
        for name in module.__all__
        if f"{module.__name__}.{name}" not in ids and f"analysis.stats.{name}" not in ids
    ]
    assert not missing, f"names without an entry on the API page: {missing}"


@pytest.mark.slow
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


@pytest.mark.slow
def test_internal_links_resolve(site: Path) -> None:
    broken = []
    for page in site.glob("*.html"):
        for href in re.findall(r'href="([^"#:]+\.html)', page.read_text(encoding="utf-8")):
            if not (page.parent / href).exists():
                broken.append(f"{page.name} -> {href}")
    assert not broken, f"broken internal links: {broken}"


# --------------------------------------------------------------------------- code blocks
ILLUSTRATIVE = "<!-- illustrative -->"
#: Pages whose code blocks another test runs (the own-model walk runs its steps).
OWNED_ELSEWHERE = {"getting_started.md"}
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([^`\s]*)")
HELP_LINE = re.compile(r"^static-rteb(?: [\w-]+)* --help$")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page in ``docs/``."""

    page: str
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    illustrative: bool

    @property
    def where(self) -> str:
        """``docs/<page>:<line>``, as an editor opens it."""
        return f"docs/{self.page}:{self.line}"

    def help_commands(self) -> list[list[str]]:
        """The ``static-rteb`` arguments of a shell block made of ``--help`` lines only.

        Returns:
            One argument list per command (the ``static-rteb`` word dropped), or ``[]``
            when any line is something else (the block is then not runnable here).
        """
        commands = []
        for raw in self.code.splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if not HELP_LINE.match(line):
                return []
            commands.append(shlex.split(line)[1:])
        return commands

    def runnable(self) -> bool:
        """Whether this module runs the block: ``--help`` shell lines or Python."""
        if self.language in {"bash", "sh", "console", "shell"}:
            return bool(self.help_commands())
        return self.language == "python"


def docs_blocks() -> list[Block]:
    """Every fenced code block of ``docs/*.md`` (MyST directives such as ``{include}`` aside)."""
    blocks = []
    for path in sorted((ROOT / "docs").glob("*.md")):
        if path.name in OWNED_ELSEWHERE:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        k = 0
        while k < len(lines):
            opening = FENCE.match(lines[k])
            if not opening:
                k += 1
                continue
            fence, language = opening.group(1), opening.group(2)
            end = next(
                (j for j in range(k + 1, len(lines)) if lines[j].strip() == fence), len(lines)
            )
            if not language.startswith("{"):
                before = lines[k - 1].strip() if k else ""
                code = "\n".join(lines[k + 1 : end])
                blocks.append(Block(path.name, k + 1, language, code, before == ILLUSTRATIVE))
            k = end + 1
    return blocks


def _run(kind: str) -> list[Block]:
    """The blocks this module runs, of one kind (``help`` or ``python``)."""
    run = [b for b in docs_blocks() if not b.illustrative and b.runnable()]
    return [b for b in run if (b.language == "python") == (kind == "python")]


def test_every_code_block_runs_in_a_test_or_is_marked_illustrative() -> None:
    unmarked = [
        f"{b.where} ({b.language or 'no language'})"
        for b in docs_blocks()
        if not b.illustrative and not b.runnable()
    ]
    assert not unmarked, (
        "code blocks that no test runs: put `<!-- illustrative -->` on the line before "
        "each, or make it a block tests/test_docs.py runs (`static-rteb ... --help` "
        f"lines, or Python): {unmarked}"
    )


def test_the_check_sees_blocks_of_every_kind() -> None:
    blocks = docs_blocks()
    assert any(b.illustrative for b in blocks), "no illustrative block found: is the marker read?"
    assert _run("help"), "no runnable --help block found in docs/*.md"
    assert _run("python"), "no runnable Python block found in docs/*.md"


@pytest.mark.parametrize("block", _run("help"), ids=lambda b: b.where)
def test_help_blocks_run(block: Block) -> None:
    for argv in block.help_commands():
        proc = run_cli(argv, timeout=120)
        assert proc.returncode == 0, f"{block.where}: static-rteb {' '.join(argv)}:\n{proc.stderr}"
        assert "usage: static-rteb" in proc.stdout, proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("block", _run("python"), ids=lambda b: b.where)
def test_python_blocks_run(block: Block, shared_results: Path, tmp_path: Path) -> None:
    """Run the block from the repository root, the shared results where it says ``../shared``."""
    code = block.code.replace("../shared/mteb-cache", str(shared_results))
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, f"{block.where} failed:\n{proc.stderr[-3000:]}"
