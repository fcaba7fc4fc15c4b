"""The documentation site builds without a warning and holds every public name, every
command and the blog's notebooks with their figures; a browser reads it as a reader would.

CI builds the docs through this test (``make test`` runs pytest; ``make setup`` installs
the ``docs`` extra), so a broken reference or a docstring Sphinx cannot read fails CI.

Every fenced code block of a page in ``docs/`` is either run here or marked illustrative
with ``<!-- illustrative -->`` on the line before it: shell blocks of ``static-rteb ...
--help`` lines run (fast), Python blocks run against the shared results (slow). No page
shows an output block (``text``, ``console``, no language) that no test checks: outputs
live in ``docs/getting_started.md``, whose own test runs its walk and compares each
output with what the command printed (another page includes them from there).

The notebook pages are the figures profile's executed copies (``tools/docs_notebooks.py``):
the repository's ``build/notebooks/figures/`` when every copy is fresh (after ``make
docs`` or ``make figures``), else the same notebooks run with the smoke profile's
parameters (the smoke runs of ``tests/notebook/test_notebooks.py``: same code paths,
fewer resamples and tasks, about a quarter of the figures batch's time) into a temporary
folder (the committed ``figures/`` is not touched), kept in ``build/test-docs-notebooks/``
for the next session with the same code, profiles and results. ``make docs`` builds from
the figures profile's copies.

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
from tests.conftest import load_file
from tests.site.test_lab import CHROMIUM_ARGS, _ensure_chromium, check_explorer

ROOT = Path(__file__).resolve().parents[2]
# The Sphinx build takes about 20-40 s: the tests that read the site are marked slow.
SPHINX = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
RANK_INTERVALS = "analysis.stats.rank_intervals"


def _docs_notebooks() -> ModuleType:
    """tools/docs_notebooks.py, imported from its file (tools/ is not a package)."""
    return load_file(ROOT / "tools" / "docs_notebooks.py", "docs_notebooks")


#: The tests' own figures batch runs are kept here, one folder per digest of their inputs.
KEPT_COPIES = ROOT / "build" / "test-docs-notebooks"


def _batch_inputs_digest(shared_results: Path) -> str:
    """12 hex digits of what the figures batch's copies depend on.

    The code (``analysis/``, ``notebooks/``, ``tools/``), the profiles, the pinned
    dependencies, the results folder's path and what this test runs the batch with (its
    profile and the parameters it sets): a kept batch run is used only for the very same
    inputs (stricter than :func:`tools.docs_notebooks.stale`, which ignores
    ``analysis/``).
    """
    import hashlib

    sources = [*ROOT.glob("analysis/**/*.py"), *ROOT.glob("notebooks/*.py")]
    sources += [*ROOT.glob("tools/*.py"), *ROOT.glob("params/*.yaml"), ROOT / "pyproject.toml"]
    digest = hashlib.sha256(str(shared_results.resolve()).encode())
    digest.update(f"{SITE_PROFILE} {sorted(_site_overrides(Path()))}".encode())
    for path in sorted(sources):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


#: The parameters the site test runs the figures profile's notebooks with: the smoke runs'.
SITE_PROFILE = "smoke"


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
    # my_model last (the profile starts it first, for `make figures --jobs 2`): in a fresh
    # checkout test_interrupt encodes MiniLM's tokens meanwhile, which my_model then finds
    # kept. Two at once, as `make figures` runs them: the other worker's stop tests wait
    # on signals for much of this time.
    names = sorted(tool.page_names(ROOT), key=lambda name: name == "my_model")
    runs = batch.run_batch(
        SITE_PROFILE,
        results=str(shared_results),
        only=names,
        parameters=_site_overrides(tmp),
        build_dir=tmp / "notebooks",
        jobs=2,
    )
    failed = [f"{r.name}: {r.where()}: {r.error}" for r in runs if not r.ok]
    assert not failed, f"the figures profile's notebooks failed: {failed}"
    _check_the_batchs_table_headers(tmp / "figures", _site_overrides(tmp))
    _check_no_stderr(tmp / "notebooks")
    shutil.rmtree(KEPT_COPIES, ignore_errors=True)  # older inputs' runs
    staging = KEPT_COPIES / f".staging-{os.getpid()}"
    shutil.copytree(tmp / "notebooks", staging / "notebooks")  # keeps the copies' times
    try:
        staging.rename(kept.parent)
    except OSError:  # another session kept the same inputs' run first
        shutil.rmtree(staging, ignore_errors=True)
    return kept


def _site_overrides(tmp: Path) -> dict[str, str]:
    """What the site's batch sets beyond the smoke profile: its own output folders.

    ``my_model`` distils its student into the temporary folder (a folder the smoke runs
    of ``tests/notebook/`` may be distilling into at the same time on another worker is
    not shared); its runs go to the smoke profile's ``build/smoke-results`` (the runner
    shares them safely, and the student is byte-identical to the smoke one).
    """
    return {"output_dir": str(tmp / "figures"), "model": str(tmp / "models" / "minilm-m2v")}


def _check_the_batchs_table_headers(figures: Path, overrides: dict[str, str]) -> None:
    """Every table of the batch names its notebook's parameters (the smoke runs' check).

    ``make test`` leaves the figures profile's smoke runs out (``make test-all`` runs
    them): this batch runs those notebooks, with the same parameters.
    """
    from tests.notebook.test_notebooks import cell_defaults, check_headers

    profile = batch.load_profile(SITE_PROFILE, ROOT)
    for name in _docs_notebooks().page_names(ROOT):
        path = ROOT / "notebooks" / f"{name}.py"
        applied = batch.params_for(name, set(cell_defaults(path)), profile, None, overrides)
        tables = sorted(t for t in figures.glob("*.md") if _made_by(t, path.name))
        check_headers(tables, path, applied)


def _made_by(table: Path, notebook: str) -> bool:
    """Whether the table's provenance header names ``notebook`` (test_notebooks' HEADER)."""
    from tests.notebook.test_notebooks import HEADER

    found = HEADER.match(table.read_text(encoding="utf-8").split("\n", 1)[0])
    return found is not None and found["notebook"] == notebook


def _check_no_stderr(copies: Path) -> None:
    """No cell of an executed copy printed to stderr (a warning, a progress bar).

    JupyterLab shows such output in red under the cell; ``tests/site/test_lab.py`` checks
    it in the browser for the notebooks ``make test`` opens there, this for every page.
    """
    import json

    printed = {}
    for copy in sorted(copies.glob("*.ipynb")):
        cells = json.loads(copy.read_text(encoding="utf-8"))["cells"]
        outputs = [o for c in cells for o in c.get("outputs", []) if o.get("name") == "stderr"]
        if outputs:
            printed[copy.stem] = ["".join(o.get("text", ""))[:500] for o in outputs]
    assert not printed, f"notebooks printed to stderr: {printed}"


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


#: The API page's summary groups, by what a user does (``docs/conf.py``'s ``API_GROUPS``).
API_GROUPS = ("load", "run", "compare", "rank", "estimate", "submit")


def _entry(module: ModuleType, name: str) -> str:
    """The id of a public name's entry: a name ``analysis.stats`` exports is documented there."""
    return (
        f"analysis.stats.{name}" if name in analysis.stats.__all__ else f"{module.__name__}.{name}"
    )


@pytest.mark.slow
def test_api_page_has_every_public_name(site: Path) -> None:
    """Every public name has an entry, and a row in one of the summary groups at the top."""
    html = (site / "api.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="([^"]+)"', html))
    # analysis.runs.submit imports mteb: here, not when the file is collected.
    submit = importlib.import_module("analysis.runs.submit")
    public = [(m, n) for m in (analysis, analysis.stats, submit) for n in m.__all__]
    missing = [f"{m.__name__}.{n}" for m, n in public if _entry(m, n) not in ids]
    assert not missing, f"names without an entry on the API page: {missing}"
    group_table = r'<table[^>]*class="[^"]*api-group-(\w+)[^"]*"[^>]*>(.*?)</table>'
    tables = re.findall(group_table, html, re.S)
    assert [group for group, _ in tables] == list(API_GROUPS), [group for group, _ in tables]
    grouped = {href for _, table in tables for href in re.findall(r'href="#([^"]+)"', table)}
    ungrouped = [f"{m.__name__}.{n}" for m, n in public if _entry(m, n) not in grouped]
    assert not ungrouped, f"public names in no summary group of the API page: {ungrouped}"


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


@pytest.mark.slow
def test_statistics_guide_headings_speak_to_a_reader(site: Path) -> None:
    """No heading of the guide (its own or an included file's) is an issue number or a time."""
    html = (site / "statistics.html").read_text(encoding="utf-8")
    tags = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", html, re.S)
    headings = [re.sub(r"<[^>]+>", "", h) for h in tags]
    internal = [h for h in headings if re.search(r"\bissue \d|\d{4}-\d\d-\d\d \d\d:\d\d", h, re.I)]
    assert not internal, f"headings with an issue number or a timestamp: {internal}"


def test_wide_tables_lead_with_their_answer_columns() -> None:
    """docs/_ext/wide_tables.py: the named columns first, the others in a collapsed part."""
    module = load_file(ROOT / "docs/_ext/wide_tables.py", "wide_tables")
    table = "text\n\n| key | b | c \\| d | e |\n|---|--:|---|---|\n| k1 | 1 | 2 | 3 |\n\nmore"
    out = module.fold_wide_tables(table, ["e", "b"], source="x.md", max_columns=3)
    lines = out.splitlines()
    assert lines[:4] == ["text", "", "| key | e | b |", "| --- | --- | --: |"], lines
    assert "| key | c \\| d |" in lines and '<details class="more-columns">' in lines, lines
    assert lines[-1] == "more" and "x.md" in out
    assert module.fold_wide_tables(table, ["e"], source="x.md", max_columns=4) == table
    by_model = "| bench | model | x | y |\n|---|---|---|---|\n| b1 | m1 | 1 | 2 |"
    folded = module.fold_wide_tables(by_model, ["model", "x"], source="x.md", max_columns=3)
    # the folded rows keep their model
    assert "| bench | model | y |" in folded.splitlines(), folded


def test_code_breaks_only_between_the_parts_of_a_name() -> None:
    """docs/_ext/code_breaks.py: a long name or path in inline code is cut after its
    separators, each part a ``span.pre`` of its own, a ``<wbr>`` between them; a number, a
    flag's hyphens and a short name stay whole."""
    module = load_file(ROOT / "docs/_ext/code_breaks.py", "code_breaks")
    name = "analysis.results.clusters.task_clusters(benchmark)"
    parts = ["analysis.", "results.", "clusters.", "task_", "clusters(", "benchmark)"]
    assert module.split_word(name) == parts
    for whole in ("rank_low", "--gpus-per-worker", "0.05", "pairwise", "RTEB(beta)"):
        assert module.split_word(whole) == [whole], whole
    assert module.split_word("n_resamples=10_000,") == ["n_resamples=", "10_000,"]
    assert module.split_word("&lt;org&gt;__&lt;model&gt;/&lt;revision&gt;") == [
        "&lt;org&gt;__&lt;model&gt;/",
        "&lt;revision&gt;",
    ]
    code = '<code class="docutils literal notranslate"><span class="pre">{}</span></code>'
    spans = "<wbr>".join(f'<span class="pre">{part}</span>' for part in parts)
    assert module.add_breaks(code.format(name)) == code.format(name).replace(
        f'<span class="pre">{name}</span>', spans
    )
    heading = '<h2>analysis.runs.submit<a class="headerlink" href="#m">#</a></h2>'
    assert module.add_breaks(heading).startswith("<h2>analysis.<wbr>runs.<wbr>submit<a ")


#: A paragraph that opens with an italic phrase ending in a stop or a colon
#: (``*Families.* Models of ...``, ``_Setup_: ...``): a heading written as emphasis, which
#: no table of contents lists and no link can reach. Emphasis inside a paragraph is text.
ITALIC_LEAD_IN = re.compile(r"^(\*[^*\s][^*]*?(\*:|[.:]\*)|_[^_\s][^_]*?(_:|[.:]_))(\s|$)")


def test_no_paragraph_opens_with_an_italic_heading() -> None:
    found = []
    for path in sorted((ROOT / "docs").glob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        fence = None
        for k, line in enumerate(lines):
            opening = FENCE.match(line)
            if opening and (fence is None or line.strip() == fence):
                fence = opening.group(1) if fence is None else None
                continue
            starts_paragraph = k == 0 or not lines[k - 1].strip()
            if fence is None and starts_paragraph and ITALIC_LEAD_IN.match(line):
                found.append(f"docs/{path.name}:{k + 1}: {line[:50]}")
    assert not found, f"paragraphs that open with an italic heading (make it a heading): {found}"


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


#: What an output block is fenced as (``text``, ``console``, or no language at all).
OUTPUT_LANGUAGES = frozenset({"", "text", "console", "output", "none"})


def test_no_page_shows_an_output_that_no_test_checks() -> None:
    """An output shown on a page is checked by a test, or it is not shown.

    The illustrative marker does not excuse an output: the outputs are those of the
    getting-started walk (its test compares them); another page includes them from there
    (MyST ``{include}`` with ``:start-after:``).
    """
    shown = [b.where for b in docs_blocks() if b.language in OUTPUT_LANGUAGES]
    assert not shown, (
        f"output blocks that no test checks: {shown}. Show an output that "
        "tests/site/test_getting_started.py compares (docs/getting_started.md) and include "
        "it from there, or leave the output out."
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


#: How long a page may take to load or settle. Idle, the slowest page (a notebook with the
#: rank explorer) loads in about 3 s; under a busy `make test` beside two CPU-bound
#: processes one took over 30 s (2026-11-30). A limit only ends a hang, so it is generous.
PAGE_TIMEOUT_S = 180


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

    def settle(self, quiet_ms: int = 500, timeout_s: float = PAGE_TIMEOUT_S) -> None:
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
        tab.set_default_timeout(PAGE_TIMEOUT_S * 1000)
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


#: The landing page's three entry points and the pages each must link.
ENTRY_POINTS = {
    "Regenerate the post's tables": "notebooks/blog_tables.html",
    "Place your own model": "getting_started.html",
    "Is a difference real?": "notebooks/significance.html",
}


@pytest.mark.slow
def test_browser_landing_page_answers(reader: Reader, site: Path, notebook_copies: Path) -> None:
    """Pitch, the rank-interval figure of the executed notebook, the commands, three entry
    points, and links to the post and the repository."""
    reader.open("index.html")
    tab = reader.tab
    pitch = tab.locator(".bd-article .pitch").inner_text()
    for words in ("MTEB", "RTEB", "Goodhart", "private", "rank intervals", "your own model"):
        assert words in pitch, f"the pitch does not say {words!r}: {pitch}"
    image = tab.locator("#front-figure img")
    image.scroll_into_view_if_needed()
    loaded = image.evaluate("img => img.complete ? img.naturalWidth : 0")
    assert loaded > 0, "the figure did not load"
    shown = (site / image.get_attribute("src")).read_bytes()
    assert shown == _docs_notebooks().saved_figure(
        "leaderboard_uncertainty", "leaderboard_uncertainty", notebook_copies
    ), "the front figure is not the executed notebook's"
    code = "\n".join(tab.locator(".bd-article pre").all_inner_texts())
    assert "make figures RESULTS=" in code and re.search(r"^make test\b", code, re.M), code
    items = tab.locator(".bd-article .entry-points li")
    texts = items.all_inner_texts()
    assert len(texts) == len(ENTRY_POINTS), texts
    for (title, page), k in zip(ENTRY_POINTS.items(), range(items.count()), strict=True):
        hrefs = [a.get_attribute("href") for a in items.nth(k).locator("a.internal").all()]
        assert texts[k].startswith(title) and page in hrefs, (texts[k], hrefs)
    post = tab.locator(".bd-article a.external", has_text="Evaluating static models on RTEB")
    assert post.count(), "no link to the post"
    assert post.first.get_attribute("href").startswith("https://"), post.first.get_attribute("href")
    code_line = tab.locator(".bd-article li", has_text="The code:").inner_text()
    assert "repository" in code_line, code_line
    for link in tab.locator(".bd-article li", has_text="The code:").locator("a").all():
        assert link.get_attribute("href").startswith("https://"), link.get_attribute("href")
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
def test_browser_explorer_finds_a_model_offline(reader: Reader, site: Path) -> None:
    """The rank explorer of leaderboard_uncertainty: no CDN, plotly.js once, search works."""
    page = "notebooks/leaderboard_uncertainty.html"
    html = (site / page).read_text(encoding="utf-8")
    sources = re.findall(r'<script[^>]*\ssrc="([^"]*)"', html)
    assert not [s for s in sources if "cdn." in s or "//" in s], sources
    assert html.count("plotly.js v") == 1, "plotly.js is embedded once per page"
    reader.open(page)
    status = check_explorer(
        reader.tab, reader.tab.locator(".bd-article .rank-explorer"), "potion-base-8M"
    )
    assert "rank" in status and "interval" in status, status
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
#: What counts as too wide, precisely (every ``<details>`` opened first, so a wide
#: table's collapsed columns are measured too):
#: * the page itself: ``<html>`` scrolls sideways (``scrollWidth > clientWidth``);
#: * the column: ``.bd-article``'s ``scrollWidth > clientWidth`` (some content sticks out);
#: * every ``pre`` (code block, command output) that scrolls sideways (code wraps here);
#: * every ``table`` whose right edge is past the column's or that is wider than itself;
#: * every scroll box in the column (``overflow-x`` ``auto`` or ``scroll``: the theme's
#:   table container, a notebook's output) with something to scroll: a table that only
#:   fits by scrolling in its box is as wide as one past the column.
#: One pixel is allowed for rounding.
OVERFLOW_JS = """() => {
  const column = document.querySelector('.bd-article');
  if (!column) return ['no .bd-article on the page'];
  for (const details of column.querySelectorAll('details')) details.open = true;
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1)
    out.push(`the page scrolls sideways: ${doc.scrollWidth} px in ${doc.clientWidth} px`);
  if (column.scrollWidth > column.clientWidth + 1)
    out.push(`the column: ${column.scrollWidth} px of content in ${column.clientWidth} px`);
  const what = (el) => JSON.stringify(el.innerText.trim().slice(0, 60));
  for (const pre of column.querySelectorAll('pre')) {
    if (pre.scrollWidth > pre.clientWidth + 1)
      out.push(`code block ${pre.scrollWidth} px in ${pre.clientWidth} px: ${what(pre)}`);
  }
  const right = column.getBoundingClientRect().right;
  for (const table of column.querySelectorAll('table')) {
    const box = table.getBoundingClientRect();
    if (box.right > right + 1 || table.scrollWidth > table.clientWidth + 1)
      out.push(`table ${Math.round(box.width)} px, ends ${Math.round(box.right - right)} px past the column: ${what(table)}`);
  }
  for (const el of column.querySelectorAll('*')) {
    const o = getComputedStyle(el).overflowX;
    if ((o === 'auto' || o === 'scroll') && el.tagName !== 'PRE' && el.scrollWidth > el.clientWidth + 1)
      out.push(`scroll box ${el.scrollWidth} px in ${el.clientWidth} px: ${what(el)}`);
  }
  return out;
}"""

#: Run in each page: what the reader sees that is not what they should.
PAGE_JS = r"""() => {
  const visible = (el) => !!el && el.getBoundingClientRect().width > 0
    && getComputedStyle(el).display !== 'none' && getComputedStyle(el).visibility !== 'hidden';
  const cells = [...document.querySelectorAll('.bd-article td, .bd-article th')];
  const sidebar = document.querySelector('.bd-sidebar-primary');
  const items = [...document.querySelectorAll('.bd-header .navbar-header-items .navbar-nav > li')]
    .filter(visible);
  return {
    cells: cells.length,
    rawMarkdown: cells.map((c) => c.innerText).filter((t) => /\]\(|\*\*\S|`[^`\n]+`/.test(t)),
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


#: Run in each page (after OVERFLOW_JS has opened every ``<details>``): each piece of
#: inline code drawn on more than one line where it may not break. docs/_ext/code_breaks.py
#: cuts a long name or path into parts after its dots, slashes and underscores (a ``<wbr>``
#: between two ``span.pre``); a part itself is one text node, so a text node whose range
#: covers two lines broke mid-word (``overflow-wrap: anywhere`` did that: ``paired_boots`` /
#: ``trap``) or at a flag's hyphen. Code in a heading may break at its hyphens (the
#: heading's type is twice as large): headings are left out.
CODE_BREAKS_JS = """() => {
  const broken = [];
  for (const code of document.querySelectorAll('.bd-article code.literal')) {
    if (code.closest('h1, h2, h3, h4, h5, h6')) continue;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.data.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(code.innerText.slice(0, 60));
    }
  }
  return broken;
}"""


def _each_page(
    reader: Reader, viewport: dict[str, int], scripts: dict[str, str]
) -> dict[str, dict]:
    """Every page of the site at ``viewport``: each script's result, by the script's name."""
    reader.tab.set_viewport_size(viewport)
    seen = {}
    for page in site_pages():
        reader.open(page)
        seen[page] = {name: reader.tab.evaluate(js) for name, js in scripts.items()}
    return seen


@pytest.fixture(scope="module")
def layout(reader: Reader) -> dict[str, dict[str, Any]]:
    """Each page of the site at 1400 x 900: what overflows and what the reader sees."""
    scripts = {"page": PAGE_JS, "overflow": OVERFLOW_JS, "brokenCode": CODE_BREAKS_JS}
    seen = _each_page(reader, LAYOUT_VIEWPORT, scripts)
    return {page: {**found.pop("page"), **found} for page, found in seen.items()}


@pytest.mark.slow
def test_browser_nothing_is_wider_than_its_column(layout: dict[str, dict[str, Any]]) -> None:
    assert len(layout) >= 20, sorted(layout)
    wide = {page: seen["overflow"] for page, seen in layout.items() if seen["overflow"]}
    assert not wide, (
        f"{len(wide)} of {len(layout)} pages have something wider than its column: {wide}"
    )


@pytest.mark.slow
def test_browser_table_cells_show_no_raw_markdown(layout: dict[str, dict[str, Any]]) -> None:
    """No cell shows markdown as typed: a link's ``](``, bold's ``**``, code's backticks."""
    raw = {page: seen["rawMarkdown"] for page, seen in layout.items() if seen["rawMarkdown"]}
    count = sum(len(cells) for cells in raw.values())
    assert not raw, f"{count} table cells show markdown syntax instead of its rendering: {raw}"
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


@pytest.mark.slow
def test_browser_code_wraps_only_at_its_break_points(layout: dict[str, dict[str, Any]]) -> None:
    broken = {page: seen["brokenCode"] for page, seen in layout.items() if seen["brokenCode"]}
    assert not broken, f"inline code broken mid-word or at a hyphen at 1400 px: {broken}"


# --------------------------------------------------------------------------- a phone's width
#: A phone held upright (390 px: the width the review measured the site at).
PHONE_VIEWPORT = {"width": 390, "height": 844}

#: Run in each page at the phone's width: the page must not scroll sideways, nor anything
#: stand past the column (a wide table scrolls in its own box there, which is allowed:
#: at 390 px a table of five columns cannot fit). Names what sticks out past the screen
#: (a box that scrolls clips its content, so what is inside one is not named).
PHONE_JS = """() => {
  const column = document.querySelector('.bd-article');
  if (!column) return ['no .bd-article on the page'];
  for (const details of column.querySelectorAll('details')) details.open = true;
  const doc = document.documentElement;
  const out = [];
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    return false;
  };
  if (doc.scrollWidth > doc.clientWidth + 1) {
    const past = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > doc.clientWidth + 1 && !clipped(el))
      .slice(0, 3).map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`);
    out.push(`the page scrolls sideways: ${doc.scrollWidth} px in ${doc.clientWidth} px: ${past}`);
  }
  if (column.scrollWidth > column.clientWidth + 1)
    out.push(`the column: ${column.scrollWidth} px of content in ${column.clientWidth} px`);
  return out;
}"""


@pytest.fixture(scope="module")
def phone(reader: Reader) -> Iterator[dict[str, dict[str, Any]]]:
    """Each page of the site at 390 x 844: what stands past the screen, where code broke."""
    try:
        yield _each_page(
            reader, PHONE_VIEWPORT, {"overflow": PHONE_JS, "brokenCode": CODE_BREAKS_JS}
        )
    finally:
        reader.tab.set_viewport_size(LAYOUT_VIEWPORT)


@pytest.mark.slow
def test_browser_nothing_is_wider_than_a_phone(phone: dict[str, dict[str, Any]]) -> None:
    """At 390 px no page scrolls sideways: the header's title gave way (it pushed the
    "On this page" button 5 px past the screen on every page) and code, headings and the
    API page's type names wrap at their break points."""
    assert len(phone) >= 20, sorted(phone)
    wide = {page: seen["overflow"] for page, seen in phone.items() if seen["overflow"]}
    assert not wide, f"{len(wide)} of {len(phone)} pages are wider than 390 px: {wide}"
    broken = {page: seen["brokenCode"] for page, seen in phone.items() if seen["brokenCode"]}
    assert not broken, f"inline code broken mid-word or at a hyphen at 390 px: {broken}"


#: The statistics guide's formulas, at least this many (78 when they were converted).
MIN_FORMULAS = 60


@pytest.mark.slow
def test_browser_formulas_render_offline(reader: Reader, site: Path) -> None:
    """The statistics guide's formulas are typeset by the site's own MathJax, not a CDN's.

    The page loads MathJax from ``_static/`` (``sphinx-mathjax-offline``; Sphinx's default
    is a CDN, which fails on a machine without internet); every formula becomes an
    ``mjx-container`` without a TeX error, and no ``$`` or ``\\(`` is left in the text.
    """
    html = (site / "statistics.html").read_text(encoding="utf-8")
    sources = re.findall(r'<script[^>]*\ssrc="([^"]*)"', html)
    mathjax = [src for src in sources if "mathjax" in src.lower()]
    assert mathjax and not [src for src in mathjax if "//" in src], sources
    assert (site / mathjax[0].split("?")[0]).is_file(), mathjax
    reader.tab.set_viewport_size(LAYOUT_VIEWPORT)
    reader.open("statistics.html")
    tab = reader.tab
    tab.wait_for_function(
        f"document.querySelectorAll('.bd-article mjx-container').length >= {MIN_FORMULAS}"
    )
    shown = tab.evaluate(
        r"""() => {
          const article = document.querySelector('.bd-article');
          const raw = [];
          const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.parentElement.closest('code, pre, mjx-container, script')) continue;
            if (/[$]|\\\(|\\\[/.test(node.data)) raw.push(node.data.trim().slice(0, 80));
          }
          return {
            formulas: article.querySelectorAll('mjx-container').length,
            display: article.querySelectorAll('mjx-container[display="true"]').length,
            errors: article.querySelectorAll('mjx-merror').length,
            raw,
          };
        }"""
    )
    assert shown["formulas"] >= MIN_FORMULAS and shown["display"] >= 1, shown
    assert not shown["errors"], shown
    assert not shown["raw"], f"formulas left as text: {shown['raw']}"
    assert not reader.problems, reader.problems


@pytest.mark.slow
def test_every_page_has_the_favicon(site: Path) -> None:
    icon = site / "_static" / "favicon.svg"
    assert icon.is_file() and "<svg" in icon.read_text(encoding="utf-8")
    without = []
    for page in site_pages():
        html = (site / page).read_text(encoding="utf-8")
        link = re.search(r'<link rel="icon" href="([^"]+)"', html)
        if not link or (site / page).parent.joinpath(link.group(1)).resolve() != icon.resolve():
            without.append(page)
    assert not without, f"pages without the favicon: {without}"
