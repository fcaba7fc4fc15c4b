"""The notebooks as a researcher uses them: `make lab`, double-click, Run All, Ctrl+S.

A real browser (Debian's Chromium driven by Playwright's Python client; Playwright's own
browser download cannot work offline) opens JupyterLab started by the Makefile's `lab`
target, in a throw-away clone of this checkout (HEAD plus uncommitted changes), so the
real tree is never touched and saving is tested for real. For each analysis notebook it
double-clicks the file in the file browser, checks a notebook (not a text editor)
opened, runs all cells, and asserts: no error and no stderr output, at least one image
rendered, and after Ctrl+S no change in the clone except figures/ files whose content
changed. Screenshots go to build/lab-screenshots/.

When Chromium is missing the test installs it with apt-get (as root); on a machine without
apt-get or root it skips with the reason, except in CI (CI=true), where it fails. The model-running notebooks (run_models, distill_and_place) run only
under `make lab-check` (STATIC_RTEB_LAB_ALL=1): they take minutes.

`make test` opens one notebook, leaderboard_uncertainty: it has every kind of output these
checks look at (the rank explorer, inline figures, tables), and the checks are the same
for each notebook. The other analysis notebooks are the xslow tier (`make test-all`,
`make lab-check`); what they would show in the lab is checked in `make test` elsewhere:
their executed copies hold no stderr output and a figure and a table
(tests/site/test_docs.py), and saving through jupytext's contents manager changes no
file (tests/notebook/test_notebooks.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from analysis.core.paths import CACHE_ENV
from tests.conftest import REPO, SHARED

pytestmark = pytest.mark.slow

VENV_BIN = Path(sys.executable).parent
CHROMIUM = Path(os.environ.get("STATIC_RTEB_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = REPO / "build" / "lab-screenshots"
ANALYSIS = [
    "blog_tables",
    "significance",
    "public_private_gap",
    "rank_correlations",
    "leaderboard_uncertainty",
    "goodhart_audit",
]
#: Notebooks with the rank explorer -> a model its search box must find (issue 33).
EXPLORERS = {"leaderboard_uncertainty": "potion-base-8M", "goodhart_audit": "potion-base-8M"}
MODEL_RUNS = ["run_models", "distill_and_place"]
NOTEBOOKS = ANALYSIS + (MODEL_RUNS if os.environ.get("STATIC_RTEB_LAB_ALL") else [])
#: The notebook ``make test`` opens (the module docstring says why); the others are xslow.
IN_MAKE_TEST = "leaderboard_uncertainty"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
CELL_TIMEOUT_S = int(
    os.environ.get(
        "STATIC_RTEB_LAB_TIMEOUT", 1800 if os.environ.get("STATIC_RTEB_LAB_ALL") else 600
    )
)


def _unavailable(reason: str) -> None:
    """Fail in CI (the browser test must run there), skip elsewhere."""
    if IN_CI:
        pytest.fail(reason)
    pytest.skip(reason)


#: One apt-get at a time on this machine: the browser tests and .ci/slurm.sh (the SLURM test)
#: may install at once on two pytest-xdist workers, and apt's own lock fails at once.
APT_LOCK = Path(os.environ.get("STATIC_RTEB_APT_LOCK", "/tmp/static-rteb-apt.lock"))
#: ... and an apt-get started elsewhere is waited for.
APT_WAIT = ["-o", "DPkg::Lock::Timeout=600"]


@contextlib.contextmanager
def _apt_lock() -> Iterator[None]:
    """Hold :data:`APT_LOCK` (``flock``, as ``.ci/slurm.sh`` takes it)."""
    with APT_LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="module")
def chromium() -> Path:
    """Debian's chromium; installed with apt-get (as root) when missing."""
    return _ensure_chromium()


def _ensure_chromium() -> Path:
    if not CHROMIUM.exists():
        if not (shutil.which("apt-get") and os.geteuid() == 0):
            _unavailable(
                f"{CHROMIUM} is missing and this machine has no apt-get or is not root; "
                "install Debian's chromium (`apt-get install -y chromium`) to run this test"
            )
        with _apt_lock():  # tests/site/test_docs.py asks too, maybe on another pytest-xdist worker
            if not CHROMIUM.exists():
                env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
                subprocess.run(["apt-get", "update", "-q"], check=False, env=env)
                done = subprocess.run(
                    ["apt-get", "install", "-y", "-q", *APT_WAIT, "chromium"],
                    env=env,
                    capture_output=True,
                    text=True,
                )
                if done.returncode or not CHROMIUM.exists():
                    _unavailable(f"apt-get install chromium failed: {done.stderr[-500:]}")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _unavailable("playwright (pinned in the dev extra) is not installed")
    return CHROMIUM


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module")
def checkout(tmp_path_factory, shared_results) -> Path:
    """A clone of this checkout (HEAD plus uncommitted changes, committed as a snapshot).

    ``../shared`` beside it links to the shared folder, as in the real layout, so
    headers written there name ``../shared/mteb-cache`` like the committed ones.
    """
    base = tmp_path_factory.mktemp("lab")
    clone = base / "repo"
    _git(base, "clone", "--quiet", "--shared", str(REPO), str(clone))
    changed = _git(REPO, "ls-files", "--modified", "--others", "--exclude-standard", "-z")
    for rel in filter(None, changed.split("\0")):
        src, dst = REPO / rel, clone / rel
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
        elif dst.exists():
            dst.unlink()
    ident = ["-c", "user.name=lab test", "-c", "user.email=lab@test.invalid"]
    _git(clone, "add", "-A")
    _git(clone, *ident, "commit", "--quiet", "--allow-empty", "-m", "snapshot")
    (base / "shared").symlink_to(SHARED, target_is_directory=True)
    if MODEL_RUNS[0] in NOTEBOOKS:  # make lab-check: reuse finished runs and the student
        for rel in ("data/runs", "build/models"):  # (ignored folders; hard links, and the
            if (REPO / rel).is_dir():  # runner replaces files atomically, never in place)
                shutil.copytree(REPO / rel, clone / rel, copy_function=os.link)
    assert _git(clone, "status", "--porcelain") == ""
    return clone


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Lab:
    url: str
    token: str
    root: Path
    log: Path

    def api(self, path: str, method: str = "GET") -> object:
        request = urllib.request.Request(
            f"{self.url}/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None


@pytest.fixture(scope="module")
def lab(checkout: Path, tmp_path_factory) -> Iterator[Lab]:
    """`make lab` in the clone, on 127.0.0.1 with a token and temporary Jupyter folders."""
    tmp = tmp_path_factory.mktemp("jupyter")
    settings = tmp / "settings"
    tracker = settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    # every cell in the DOM, so the checks below see all outputs (a test-only setting)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    port, token = _free_port(), os.urandom(16).hex()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp / "config"),  # not the user's ~/.jupyter
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
        "PYTHONPATH": str(checkout),  # the kernel imports the clone's analysis package
        "MPLBACKEND": "Agg",  # as in batch runs: setup() must still show figures inline
        CACHE_ENV: os.environ.get(CACHE_ENV, str(REPO / "build" / "cache")),  # warm parquet cache
    }
    lab_args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token}"
    log = tmp / "lab.log"
    command = [
        "make",
        "-C",
        str(checkout),
        "--no-print-directory",
        "-o",
        f"{VENV_BIN.parent}/.installed",  # the venv exists: do not reinstall it
        "lab",
        f"VENV={VENV_BIN.parent}",
        "RESULTS=../shared/mteb-cache",
        f"LAB_ARGS={lab_args}",
    ]
    with log.open("w") as out:
        server = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    instance = Lab(f"http://127.0.0.1:{port}", token, checkout, log)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                instance.api("status")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.5)
        yield instance
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # make and the server it started, by PID
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


@pytest.fixture(scope="module")
def browser(chromium: Path, lab: Lab) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        page = instance.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.goto(f"{lab.url}/lab/tree/notebooks?token={lab.token}")
        page.locator(".jp-DirListing-content").wait_for()
        yield page
        instance.close()


def _wait_until_run(page, name: str) -> None:
    """Wait until every code cell has an execution count (none queued or running)."""
    deadline = time.monotonic() + CELL_TIMEOUT_S
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    while time.monotonic() < deadline:
        prompts = panel.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
        if prompts and all(re.fullmatch(r"\[\d+\]:", p.strip()) for p in prompts):
            return
        time.sleep(1)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.timeout.png"))
    pytest.fail(f"{name}: cells still running after {CELL_TIMEOUT_S} s; prompts {prompts}")


def _wait_for_kernel(lab: Lab, path: str, timeout_s: float = 120) -> None:
    """Wait until the notebook's kernel (started on open, no dialog) is idle."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        sessions = lab.api("sessions")
        states = [s["kernel"]["execution_state"] for s in sessions if s["path"] == path]  # type: ignore[union-attr]
        if states == ["idle"]:
            time.sleep(1)  # the page connects to the kernel
            return
        time.sleep(0.5)
    pytest.fail(f"no idle kernel for {path} after {timeout_s} s (a kernel dialog?)")


def _menu(page, top: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[] if n == IN_MAKE_TEST else [pytest.mark.xslow]) for n in NOTEBOOKS],
)
def test_notebook_in_the_browser(name: str, lab: Lab, browser) -> None:
    page = browser
    entry = page.locator(".jp-DirListing-itemText", has_text=re.compile(f"^{name}\\.py$"))
    entry.dblclick()
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.wait_for()
    assert page.locator(".jp-FileEditor:visible").count() == 0, "opened as text, not a notebook"
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")
    assert tab.inner_text() == f"{name}.py"
    _wait_for_kernel(lab, f"notebooks/{name}.py")  # Run All before that asks for a kernel
    _menu(page, "Run", "Run All Cells")
    _wait_until_run(page, name)
    errors = panel.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    images = panel.locator(".jp-OutputArea-output img")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tables = panel.locator(".jp-OutputArea-output table")
    if tables.count():
        tables.first.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"{name}.table.png"))
    if images.count():
        images.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    stderr = errors.all_inner_texts()
    assert not stderr, f"{name}: error/stderr output:\n" + "\n---\n".join(t[:2000] for t in stderr)
    if name in ANALYSIS:
        assert images.count() >= 1, f"{name}: no figure rendered inline"
    if name in EXPLORERS:  # inline: plotly.js embedded in the output, nothing fetched
        check_explorer(page, panel.locator(".rank-explorer"), EXPLORERS[name])
        page.screenshot(path=str(SCREENSHOTS / f"{name}.explorer.png"))
    panel.click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")
    page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current.jp-mod-dirty").wait_for(
        state="detached"
    )
    time.sleep(1)
    status = _git(lab.root, "status", "--porcelain", "--untracked-files=all").splitlines()
    outside = [line for line in status if not line[3:].startswith("figures/")]
    assert not outside, f"{name}: opening, running and saving changed {outside}"
    _shutdown_kernels(lab)


def check_explorer(page, root, model: str) -> str:
    """Type ``model`` into a rank explorer's search: it is found, highlighted and in view.

    ``root`` locates the explorer (``.rank-explorer``); returns the status line.
    """
    root = root.and_(page.locator(".rx-ready")).first
    root.scroll_into_view_if_needed()
    root.locator(".rx-search").fill(model)
    assert (root.get_attribute("data-found") or "").split("/")[-1] == model
    tick = root.locator(".rx-plot .ytick text", has_text=re.compile(f"^{re.escape(model)}$"))
    fills = tick.evaluate(
        "t => [...t.querySelectorAll('tspan')].map(s => getComputedStyle(s).fill)"
    )
    assert "rgb(213, 94, 0)" in fills, f"{model} is not highlighted: {fills}"
    box = root.locator(".rx-scroll")
    deadline = time.monotonic() + 10
    while True:  # the row scrolls into the explorer's box, the box into the window
        row, frame = tick.bounding_box(), box.bounding_box()
        middle = row["y"] + row["height"] / 2 if row else -1
        if frame and frame["y"] <= middle <= frame["y"] + frame["height"]:
            if 0 <= middle <= page.viewport_size["height"]:
                break
        assert time.monotonic() < deadline, f"{model}'s row is not in view: {row} in {frame}"
        time.sleep(0.2)
    return root.locator(".rx-status").inner_text()


def _shutdown_kernels(lab: Lab) -> None:
    """One kernel at a time: the machine has little memory to spare."""
    for session in lab.api("sessions"):  # type: ignore[union-attr]
        lab.api(f"sessions/{session['id']}", method="DELETE")


@pytest.mark.parametrize("ci", [False, True])
def test_without_chromium_and_root_it_skips_with_the_reason_except_in_ci(ci, monkeypatch, tmp_path):
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setattr(sys.modules[__name__], "IN_CI", ci)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    outcome = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(outcome, match="apt-get install -y chromium"):
        _ensure_chromium()


def test_chromium_is_installed_under_the_apt_lock(monkeypatch, tmp_path):
    """apt-get runs while this process holds the lock .ci/slurm.sh takes, and waits for apt's."""
    lock = tmp_path / "apt.lock"
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "chromium")
    monkeypatch.setattr(sys.modules[__name__], "APT_LOCK", lock)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    held: list[bool] = []
    real_run = subprocess.run

    def run(argv, **kwargs):
        probe = real_run(["flock", "-n", str(lock), "true"], check=False)
        held.append(probe.returncode != 0)
        if argv[:2] == ["apt-get", "install"]:
            assert "DPkg::Lock::Timeout=600" in argv
            (tmp_path / "chromium").touch()
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(subprocess, "run", run)
    assert _ensure_chromium() == tmp_path / "chromium"
    assert held == [True, True]
