"""The documentation site builds without a warning and holds every public name, every
command and the blog's notebooks with their figures; a browser reads it as a reader would.

CI builds the docs through this test (``make test`` runs pytest; ``make setup`` installs
the ``docs`` extra), so a broken reference or a docstring Sphinx cannot read fails CI.

Every fenced code block of a page in ``docs/`` is either run here or marked illustrative
with ``<!-- illustrative -->`` on the line before it: shell blocks of ``static-rteb ...
--help`` lines run (fast), Python blocks run against the shared results (slow).
``docs/getting_started.md`` is left to its own test, which runs its walk.

The notebook pages are the figures batch's executed copies (``tools/docs_notebooks.py``):
the repository's ``build/notebooks/figures/`` when every copy is fresh (after ``make
docs`` or ``make figures``), else a batch run into a temporary folder (minutes; the
committed ``figures/`` is not touched), kept in ``build/test-docs-notebooks/`` for the
next session with the same code, profiles and results.

The browser tests serve the built site over http (``python -m http.server``) and drive
Debian's Chromium with Playwright, as tests/site/test_lab.py does (Chromium is installed with
apt-get when missing, as root; elsewhere they skip with the reason, in CI they fail).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import analysis
import analysis.stats
from analysis.cli.build_cli import build_cli
from analysis.notebook import batch
from tests._cli import cli_env, run_cli
from tests.site.test_lab import CHROMIUM_ARGS, _ensure_chromium

ROOT = Path(__file__).resolve().parents[2]
# The Sphinx build takes about 20-40 s: the tests that read the site are marked slow.
SPHINX = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
RANK_INTERVALS = "analysis.stats.rank_intervals"


def _docs_notebooks() -> ModuleType:
    """tools/docs_notebooks.py, imported from its file (tools/ is not a package)."""
    path = ROOT / "tools" / "docs_notebooks.py"
    spec = importlib.util.spec_from_file_location("docs_notebooks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: The tests' own figures batch runs are kept here, one folder per digest of their inputs.
KEPT_COPIES = ROOT / "build" / "test-docs-notebooks"


def _batch_inputs_digest(shared_results: Path) -> str:
    """12 hex digits of what the figures batch's copies depend on.

    The code (``analysis/``, ``notebooks/``, ``tools/``), the profiles, the pinned
    dependencies and the results folder's path: a kept batch run is used only for the
    very same inputs (stricter than :func:`tools.docs_notebooks.stale`, which ignores
    ``analysis/``).
    """
    import hashlib

    sources = [*ROOT.glob("analysis/**/*.py"), *ROOT.glob("notebooks/*.py")]
    sources += [*ROOT.glob("tools/*.py"), *ROOT.glob("params/*.yaml"), ROOT / "pyproject.toml"]
    digest = hashlib.sha256(str(shared_results.resolve()).encode())
    for path in sorted(sources):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="module")
def notebook_copies(tmp_path_factory: pytest.TempPathFactory, shared_results: Path) -> Path:
    """Fresh executed copies of the figures profile's notebooks (see the module docstring).

    A batch run of the test is kept under ``build/test-docs-notebooks/<digest of its
    inputs>`` (written whole or not at all), so the next session with the same code finds
    it made; ``make clean`` drops it.
    """
    import shutil

    tool = _docs_notebooks()
    repo_copies = ROOT / "build" / "notebooks" / tool.PROFILE
    if not tool.stale(repo_copies):
        return repo_copies
    kept = KEPT_COPIES / _batch_inputs_digest(shared_results) / "notebooks"
    if kept.is_dir() and not tool.stale(kept):
        return kept
    tmp = tmp_path_factory.mktemp("figures-batch")
    runs = batch.run_batch(
        tool.PROFILE,
        results=str(shared_results),
        parameters={"output_dir": str(tmp / "figures")},
        build_dir=tmp / "notebooks",
    )
    failed = [f"{r.name}: {r.where()}: {r.error}" for r in runs if not r.ok]
    assert not failed, f"the figures batch failed: {failed}"
    shutil.rmtree(KEPT_COPIES, ignore_errors=True)  # older inputs' runs
    staging = KEPT_COPIES / f".staging-{os.getpid()}"
    shutil.copytree(tmp / "notebooks", staging / "notebooks")  # keeps the copies' times
    try:
        staging.rename(kept.parent)
    except OSError:  # another session kept the same inputs' run first
        shutil.rmtree(staging, ignore_errors=True)
    return kept


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, notebook_copies: Path) -> Path:
    """The site built with ``-W --keep-going`` into a temporary folder."""
    pytest.importorskip("sphinx", reason="install the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site") / "html"
    proc = subprocess.run(
        [*SPHINX, str(ROOT / "docs"), str(out)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, _docs_notebooks().COPIES_ENV: str(notebook_copies)},
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
    for page in site.rglob("*.html"):
        for href in re.findall(r'href="([^"#:]+\.html)', page.read_text(encoding="utf-8")):
            if not (page.parent / href).exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
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
        "each, or make it a block tests/site/test_docs.py runs (`static-rteb ... --help` "
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


@pytest.mark.slow
def test_every_notebook_of_the_figures_profile_is_a_page_with_figures(site: Path) -> None:
    names = _docs_notebooks().page_names(ROOT)
    assert names, "params/figures.yaml lists no notebooks"
    index = (site / "notebooks.html").read_text(encoding="utf-8")
    for name in names:
        page = site / "notebooks" / f"{name}.html"
        assert page.is_file(), f"no page for notebooks/{name}.py"
        assert f'href="notebooks/{name}.html"' in index, f"notebooks.html does not link {name}"
        html = page.read_text(encoding="utf-8")
        images = re.findall(r'<img[^>]+src="([^"]+)"', html)
        assert images, f"{name}: no figure on its page"
        missing = [src for src in images if not (page.parent / src).is_file()]
        assert not missing, f"{name}: images not in the site: {missing}"
        assert "<table" in html, f"{name}: no table on its page"


# --------------------------------------------------------------------------- in a browser


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site served over http on 127.0.0.1 (``python -m http.server``)."""
    port = _free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    server = subprocess.Popen(
        [*command, "--directory", str(site)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}/index.html", timeout=5).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"python -m http.server did not start on port {port}")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


class Reader:
    """A Chromium tab (Playwright) that records failed requests and script errors."""

    def __init__(self, tab: Any, url: str) -> None:
        self.tab, self.url = tab, url
        self.problems: list[str] = []
        self.loading: set[Any] = set()
        tab.on("pageerror", lambda err: self.problems.append(f"script error: {err}"))
        tab.on("request", lambda req: self.loading.add(req))
        tab.on("requestfinished", lambda req: self.loading.discard(req))
        tab.on("requestfailed", self._failed)
        tab.on("response", self._status)

    def _failed(self, request: Any) -> None:
        self.loading.discard(request)
        self.problems.append(f"failed: {request.url}")

    def _status(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def open(self, path: str) -> None:
        """Go to ``path`` on the site and wait until nothing is loading."""
        self.problems.clear()
        self.tab.goto(f"{self.url}/{path}")
        self.tab.wait_for_load_state("networkidle")

    def settle(self, quiet_ms: int = 500, timeout_s: float = 30) -> None:
        """Wait until no request of the page has been in flight for ``quiet_ms``.

        Scripts fetch after the load (the search page fetches every hit's page for its
        summary); leaving the page before they end aborts them, and they would show
        as failed requests.
        """
        deadline = time.monotonic() + timeout_s
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            if self.loading:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= quiet_ms / 1000:
                return
            self.tab.wait_for_timeout(50)
        raise AssertionError(f"still loading after {timeout_s} s: {[r.url for r in self.loading]}")


@pytest.fixture(scope="module")
def reader(served: str) -> Iterator[Reader]:
    chromium = _ensure_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.set_default_timeout(30_000)
        yield Reader(tab, served)
        browser.close()


@pytest.mark.slow
def test_browser_front_page_links_the_notebooks_and_the_api(reader: Reader) -> None:
    reader.open("index.html")
    tab = reader.tab
    assert "static-rteb" in tab.title()
    links = tab.locator(".bd-article a.reference.internal")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert "notebooks.html" in hrefs and "api.html" in hrefs, hrefs
    assert not reader.problems, reader.problems


@pytest.mark.slow
def test_browser_notebook_page_shows_its_figure_and_table(reader: Reader) -> None:
    reader.open("notebooks.html")
    tab = reader.tab
    tab.locator(".bd-article a[href='notebooks/leaderboard_uncertainty.html']").first.click()
    tab.wait_for_load_state("networkidle")
    assert tab.url.endswith("/notebooks/leaderboard_uncertainty.html"), tab.url
    assert "Which leaderboard ranks are real?" in tab.locator("h1").first.inner_text()
    figure = tab.locator(".bd-article .cell_output img").first
    figure.scroll_into_view_if_needed()
    width = figure.evaluate("img => img.complete ? img.naturalWidth : 0")
    assert width > 0, f"the figure {figure.get_attribute('src')} did not load"
    assert tab.locator(".bd-article .cell_output table").count() >= 1, "no table on the page"
    assert not reader.problems, reader.problems


@pytest.mark.slow
def test_browser_api_page_documents_rank_intervals(reader: Reader) -> None:
    reader.open(f"api.html#{RANK_INTERVALS}")
    entry = reader.tab.locator(f'dt[id="{RANK_INTERVALS}"]')
    assert entry.is_visible()
    assert "rank_intervals(" in entry.inner_text()
    body = reader.tab.locator(f'dt[id="{RANK_INTERVALS}"] + dd').inner_text()
    assert "Parameters" in body and "Returns" in body, body[:500]
    assert not reader.problems, reader.problems


@pytest.mark.slow
def test_browser_search_finds_the_api_entry(reader: Reader) -> None:
    reader.open("index.html")
    tab = reader.tab
    tab.keyboard.press("Control+k")  # the theme's search dialog
    field = tab.locator("input[name='q']:visible").first
    field.fill("rank_intervals")
    field.press("Enter")
    tab.wait_for_url(re.compile(r"/search\.html\?q=rank_intervals"))
    tab.locator("#search-results .search-summary", has_text="Search finished").wait_for()
    reader.settle()  # the hits' summaries are fetched after "Search finished"
    hit = tab.locator(f"#search-results a[href*='api.html#{RANK_INTERVALS}']").first
    hit.click()
    tab.wait_for_load_state("networkidle")
    assert tab.url.endswith(f"/api.html#{RANK_INTERVALS}"), tab.url
    assert tab.locator(f'dt[id="{RANK_INTERVALS}"]').is_visible()
    assert not reader.problems, reader.problems


# --------------------------------------------------------------------------- layout (issue 33)
#: The reader's laptop: what issue 33 measured the site at.
LAYOUT_VIEWPORT = {"width": 1400, "height": 900}

#: Run in each page (``.bd-article`` is the main content column): what is wider than it.
#:
#: What counts as too wide, precisely:
#: * the page itself: ``<html>`` scrolls sideways (``scrollWidth > clientWidth``);
#: * the column: ``.bd-article``'s ``scrollWidth > clientWidth`` (some content sticks out);
#: * every ``pre`` (code block, command output): ``scrollWidth > clientWidth``, i.e. it
#:   scrolls sideways; code wraps on this site, so even a ``pre`` in a scroll box counts;
#: * every ``table`` that is *not* inside a scroll container (an ancestor, below the
#:   column, whose ``overflow-x`` is ``auto`` or ``scroll``): its right edge past the
#:   column's, or its own ``scrollWidth > clientWidth``. A table in a scroll container
#:   scrolls in its box and leaves the page as it is, so it does not count.
#: One pixel is allowed for rounding.
OVERFLOW_JS = """() => {
  const column = document.querySelector('.bd-article');
  if (!column) return ['no .bd-article on the page'];
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1)
    out.push(`the page scrolls sideways: ${doc.scrollWidth} px in ${doc.clientWidth} px`);
  if (column.scrollWidth > column.clientWidth + 1)
    out.push(`the column: ${column.scrollWidth} px of content in ${column.clientWidth} px`);
  const inScrollBox = (el) => {
    for (let p = el.parentElement; p && p !== column; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  const what = (el) => JSON.stringify(el.innerText.trim().slice(0, 60));
  for (const pre of column.querySelectorAll('pre')) {
    if (pre.scrollWidth > pre.clientWidth + 1)
      out.push(`code block ${pre.scrollWidth} px in ${pre.clientWidth} px: ${what(pre)}`);
  }
  const right = column.getBoundingClientRect().right;
  for (const table of column.querySelectorAll('table')) {
    if (inScrollBox(table)) continue;
    const box = table.getBoundingClientRect();
    if (box.right > right + 1 || table.scrollWidth > table.clientWidth + 1)
      out.push(`table ${Math.round(box.width)} px, ends ${Math.round(box.right - right)} px past the column: ${what(table)}`);
  }
  return out;
}"""

#: Run in each page: what the reader sees that is not what they should.
PAGE_JS = """() => {
  const visible = (el) => !!el && el.getBoundingClientRect().width > 0
    && getComputedStyle(el).display !== 'none' && getComputedStyle(el).visibility !== 'hidden';
  const cells = [...document.querySelectorAll('.bd-article td, .bd-article th')];
  const sidebar = document.querySelector('.bd-sidebar-primary');
  const items = [...document.querySelectorAll('.bd-header .navbar-header-items .navbar-nav > li')]
    .filter(visible);
  return {
    cells: cells.length,
    rawLinks: cells.map((c) => c.innerText).filter((t) => t.includes('](http')),
    sidebarWidth: visible(sidebar) ? Math.round(sidebar.getBoundingClientRect().width) : 0,
    sidebarLinks: sidebar ? [...sidebar.querySelectorAll('.bd-links a')].filter(visible).length : 0,
    headerItemTops: items.map((li) => Math.round(li.getBoundingClientRect().top)),
    headerItems: items.length,
    headerHeight: Math.round(document.querySelector('.bd-header').getBoundingClientRect().height),
    text: document.querySelector('.bd-article') ? document.querySelector('.bd-article').innerText : '',
    code: [...document.querySelectorAll('.bd-article pre, .bd-article code')].map((c) => c.innerText),
  };
}"""


def site_pages() -> list[str]:
    """Every page of the site a reader reaches from its table of contents, as a path.

    The pages of ``docs/`` (``.md`` and ``.rst``) and the figures profile's notebook pages;
    Sphinx's own index, search and module-index pages are left out.
    """
    sources = sorted(p for p in (ROOT / "docs").glob("*") if p.suffix in {".md", ".rst"})
    pages = [f"{p.stem}.html" for p in sources]
    return pages + [f"notebooks/{name}.html" for name in _docs_notebooks().page_names(ROOT)]


@pytest.fixture(scope="module")
def layout(reader: Reader) -> dict[str, dict[str, Any]]:
    """Each page of the site at 1400 x 900: what overflows and what the reader sees."""
    reader.tab.set_viewport_size(LAYOUT_VIEWPORT)
    seen = {}
    for page in site_pages():
        reader.open(page)
        seen[page] = {**reader.tab.evaluate(PAGE_JS), "overflow": reader.tab.evaluate(OVERFLOW_JS)}
    return seen


@pytest.mark.slow
def test_browser_nothing_is_wider_than_its_column(layout: dict[str, dict[str, Any]]) -> None:
    assert len(layout) >= 20, sorted(layout)
    wide = {page: seen["overflow"] for page, seen in layout.items() if seen["overflow"]}
    assert not wide, (
        f"{len(wide)} of {len(layout)} pages have something wider than its column: {wide}"
    )


@pytest.mark.slow
def test_browser_table_cells_show_no_markdown_links(layout: dict[str, dict[str, Any]]) -> None:
    raw = {page: seen["rawLinks"] for page, seen in layout.items() if seen["rawLinks"]}
    count = sum(len(cells) for cells in raw.values())
    assert not raw, f"{count} table cells show markdown link syntax instead of a link: {raw}"
    assert layout["notebooks/blog_tables.html"]["cells"], "blog_tables.html has no table cell"


@pytest.mark.slow
def test_executed_notebooks_hold_links_not_markdown(notebook_copies: Path) -> None:
    """The executed copies (what JupyterLab opens, and the site renders) link the models."""
    import json

    raw = {}
    for copy in sorted(notebook_copies.glob("*.ipynb")):
        cells = json.loads(copy.read_text(encoding="utf-8"))["cells"]
        outputs = [o for c in cells for o in c.get("outputs", [])]
        html = ["".join(o.get("data", {}).get("text/html", "")) for o in outputs]
        cells_html = re.findall(r"<td[^>]*>(.*?)</td>", "".join(html), flags=re.S)
        raw[copy.stem] = [c for c in cells_html if "](http" in c]
    raw = {name: cells for name, cells in raw.items() if cells}
    assert not raw, f"table cells with markdown link syntax in the executed copies: {raw}"


@pytest.mark.slow
def test_browser_blog_tables_link_the_models(reader: Reader) -> None:
    reader.open("notebooks/blog_tables.html")
    links = reader.tab.locator(".bd-article .cell_output td a[href^='https://huggingface.co/']")
    assert links.count() >= 8, f"{links.count()} model links in the blog's tables"


#: The header's height on one line: 80 px measured at 1400 px (the theme's header),
#: with room for fonts; it was 136 px with the links on two lines and search on a third.
HEADER_ONE_LINE_PX = 96

#: An en dash where a flag's two hyphens were: smart quotes applied to a flag.
EN_DASH_FLAG = re.compile(r"–-|–[a-z]")


@pytest.mark.slow
def test_browser_flags_keep_their_hyphens(layout: dict[str, dict[str, Any]]) -> None:
    dashed = EN_DASH_FLAG.findall(layout["cli.html"]["text"])
    assert not dashed, f"cli.html shows {len(dashed)} flags with an en dash: {dashed[:10]}"
    # A value in quotes is copied too (-y "tasks: [...]"): curly quotes fail in a shell.
    curly = re.findall(r".{0,20}[“”‘’].{0,20}", layout["cli.html"]["text"])
    assert not curly, f"cli.html shows {len(curly)} smart quotes: {curly[:5]}"
    in_code = {
        page: [c[:80] for c in seen["code"] if EN_DASH_FLAG.search(c)]
        for page, seen in layout.items()
    }
    in_code = {page: blocks for page, blocks in in_code.items() if blocks}
    assert not in_code, f"code with an en dash before a flag: {in_code}"
    assert "--results" in layout["cli.html"]["text"]


@pytest.mark.slow
def test_browser_left_sidebar_only_with_something_in_it(
    layout: dict[str, dict[str, Any]],
) -> None:
    empty = [
        f"{page} ({seen['sidebarWidth']} px)"
        for page, seen in layout.items()
        if seen["sidebarWidth"] and not seen["sidebarLinks"]
    ]
    assert not empty, f"a left sidebar with no link in it: {empty}"
    notebook = layout["notebooks/significance.html"]
    assert notebook["sidebarWidth"] and notebook["sidebarLinks"], "the notebook pages lost theirs"


@pytest.mark.slow
def test_browser_header_is_one_line(layout: dict[str, dict[str, Any]]) -> None:
    assert layout["index.html"]["headerItems"] >= 3, layout["index.html"]["headerItems"]
    # The links' tops within a few pixels: one line (the active link may sit a pixel lower).
    stacked = {
        page: seen["headerItemTops"]
        for page, seen in layout.items()
        if max(seen["headerItemTops"]) - min(seen["headerItemTops"]) > 8
    }
    assert not stacked, f"the header's links stand on several lines (their tops): {stacked}"
    # Search and the theme switcher beside the links, not on a line of their own.
    high = {page: seen["headerHeight"] for page, seen in layout.items()}
    high = {page: px for page, px in high.items() if px > HEADER_ONE_LINE_PX}
    assert not high, f"the header is higher than one line (px): {high}"
