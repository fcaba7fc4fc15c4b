"""The getting-started page (``docs/getting_started.md``), walked as a new user walks it.

The acceptance walk takes the commands from the page's own text, so that the page and
what runs cannot drift apart: every ``bash`` block of the section "Your own model, end
to end" that is not marked ``<!-- illustrative -->``, in the page's order. They run in
``bash`` in a temporary copy of this checkout (its tracked and untracked, not ignored
files), with ``../shared`` beside it (a link to the shared folder) and ``../results`` a
new local git repository shaped like the results repository. What is substituted, and
only that:

- ``.venv``: the copy's ``.venv/bin`` holds ``static-rteb`` and ``python`` scripts that
  run this interpreter on the copy, and ``.venv/bin/activate`` puts them on ``PATH``;
  the page's ``source .venv/bin/activate`` is run before every later command.
- Placeholders in angle brackets (the hub commit SHA of step 6) become a fixed SHA.
- The command whose comment says Ctrl-C is stopped as a terminal's Ctrl-C stops it
  (SIGINT to its process group) at the moment the page shows: its first two jobs ended
  done and the other two running.
- MiniLM's token embeddings are made before the walk (a distillation of the same teacher
  into a temporary folder), so the page's distillation reads them from
  ``$STATIC_RTEB_CACHE`` as a second distillation does: seconds, and no progress bar
  (the page says what the first one adds).

Everything else, the second model included (MiniLM itself on STSBenchmark), runs as
written; each command's stdout and stderr are one stream, unbuffered
(``PYTHONUNBUFFERED``), as a terminal shows them. One step may be taken again: the Ctrl-C
step, when a take missed the page's moment by timing alone (:func:`_missed_the_moment`; at
most three takes, each from the same state).

**What the page shows is what the walk printed.** Every ``text`` block of the walk is
preceded by a marker naming what it shows: ``<!-- output: COMMAND -->`` (what the
first walk command starting with ``COMMAND`` printed; ``#N`` after it for the N-th such
command) or ``<!-- file: PATH -->`` (a file the walk wrote, relative to the checkout).
The block must equal that output line for line after :func:`normalise`, which changes
only what legitimately differs between two runs (timings, the temporary checkout's
path, the terminal's rendering; its docstring lists each rule); a marker ending in
``, abridged`` lets the block leave lines out (never change one). ``make setup``'s
block, outside the walk, is compared by :func:`test_make_setup_prints_the_next_command`.
The fast tests check that every block of the page is run, or is an output naming what
it shows, or is marked illustrative, and that ``make setup`` prints the next command.
The separate tests of issue 25 items 4-6 check messages on the walk's state: the colon
merge in the notebook, ``submit --results data/runs`` with two models, ``status`` naming
a corrupt file.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests._cli import as_started_by, cli_env, wait_for
from tests._run_fixtures import minilm_dir, needs_shared_cache, needs_shared_tasks
from tests._submit_fixtures import git, init_checkout
from tests.conftest import REPO, SHARED

PAGE = REPO / "docs" / "getting_started.md"
WALK_HEADING = "## Your own model, end to end"
ILLUSTRATIVE = "<!-- illustrative -->"
#: The hub commit SHA put in place of the page's ``<...>`` placeholder.
SHA = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
MODEL_RUNS = "data/runs/results/local__my-static"
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)
#: ``<!-- output: COMMAND[ #N][, abridged] -->`` or ``<!-- file: PATH[, abridged] -->``.
_SHOWS = re.compile(r"^<!-- (output|file): (.+?)(?: #(\d+))?(, abridged)? -->$")


@dataclass(frozen=True)
class Block:
    """One fenced code block of the page, and the line before it."""

    lang: str
    text: str
    line: int
    before: str
    in_walk: bool

    @property
    def illustrative(self) -> bool:
        """Marked ``<!-- illustrative -->``: not run, not compared."""
        return self.before == ILLUSTRATIVE


@dataclass(frozen=True)
class Shows:
    """What an output block shows: a command's output or a file, whole or abridged."""

    kind: str  # "output" or "file"
    what: str  # the command's start, or the file's path in the checkout
    index: int  # the N-th command starting so (1-based)
    abridged: bool

    @classmethod
    def of(cls, block: Block) -> Shows | None:
        """The marker on the line before ``block``; None if there is none."""
        found = _SHOWS.match(block.before)
        if not found:
            return None
        kind, what, index, abridged = found.groups()
        return cls(kind, what, int(index or 1), bool(abridged))


@dataclass(frozen=True)
class Command:
    """One command of the walk: the line as written (continuations joined), its comment."""

    line: str
    comment: str


@dataclass
class Step:
    """A command as it ran in the walk."""

    command: Command
    ran: str
    returncode: int
    stdout: str  # stdout and stderr as one stream, as a terminal shows them
    stderr: str
    seconds: float
    takes: int = 1  # the Ctrl-C step's, when timing missed the page's moment

    @property
    def output(self) -> str:
        """Everything it printed."""
        return self.stdout + self.stderr


#: A progress bar's counts, then its bracket of timings (elapsed<remaining, rate, and the
#: job last ended: which of two parallel jobs ends last is a matter of timing too).
_BAR_TIMES = re.compile(r"(\d+%\|[^|\n]*\|\s*\d+/\d+) \[[^\]\n]*\]")
#: Seconds a command reports it took: "ok (15 s)".
_SECONDS = re.compile(r"\(\d+(?:\.\d+)? s\)")


def normalise(text: str, root: Path | None = None) -> list[str]:
    """The lines of ``text`` with only what legitimately differs between runs made alike.

    1. The terminal's rendering: a line redrawn in place (a progress bar's frames,
       joined by carriage returns) shows its last frame; trailing spaces go; the ``^C``
       a terminal echoes when Ctrl-C is pressed (no command prints it) goes; leading and
       trailing blank lines go.
    2. Timings: a progress bar's bracket becomes ``[…]``; "(15 s)" becomes "(… s)".
    3. The temporary checkout's path (``root``, the walk's copy) is shown as "…".
    """
    if root is not None:
        text = text.replace(str(root), "…")
    lines = []
    for raw in text.split("\n"):
        frames = [frame for frame in raw.split("\r") if frame.strip()]
        line = frames[-1].replace("^C", "") if frames else ""
        line = _SECONDS.sub("(… s)", _BAR_TIMES.sub(r"\1 […]", line))
        lines.append(line.rstrip())
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def compare(shown: str, printed: str, *, abridged: bool, root: Path | None = None) -> str:
    """ "" when the page's ``shown`` block is what was ``printed``, else what differs.

    Both sides are normalised (:func:`normalise`). A block marked abridged may leave
    lines out: its lines must appear in the output in the same order.
    """
    want, got = normalise(shown), normalise(printed, root)
    if not abridged:
        if want == got:
            return ""
        diff = difflib.unified_diff(want, got, "page", "printed", lineterm="", n=1)
        return "\n".join(diff)
    rest = iter(got)
    lost = [line for line in want if not any(line == seen for seen in rest)]
    return "" if not lost else "not printed (in this order): " + "\n".join(lost)


def code_blocks(text: str) -> list[Block]:
    """Every fenced block of ``text``, with whether it is marked illustrative and in the walk."""
    walk_start = text.index(WALK_HEADING)
    walk_end = text.find("\n## ", walk_start + 1)
    walk_end = len(text) if walk_end < 0 else walk_end
    blocks = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip().splitlines()
        blocks.append(
            Block(
                lang=match.group(1),
                text=match.group(2),
                line=text.count("\n", 0, match.start()) + 1,
                before=before[-1].strip() if before else "",
                in_walk=walk_start < match.start() < walk_end,
            )
        )
    return blocks


def is_run(block: Block) -> bool:
    """Whether the walk runs ``block``: a bash block of the walk, not marked illustrative."""
    return block.lang == "bash" and block.in_walk and not block.illustrative


def walk_commands(text: str) -> list[Command]:
    """The commands the walk runs, in the page's order.

    Lines ending in a backslash are joined with the next; blank and comment-only lines
    are skipped; a trailing comment starts at two spaces and ``#``.
    """
    commands = []
    for block in filter(is_run, code_blocks(text)):
        for line in block.text.replace("\\\n", " ").splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = re.split(r"\s{2,}#\s?", line, maxsplit=1)
            command = parts[0].strip()
            comment = parts[1].strip() if len(parts) > 1 else ""
            commands.append(Command(re.sub(r"\s+", " ", command), comment))
    return commands


def _commands() -> list[Command]:
    return walk_commands(PAGE.read_text(encoding="utf-8"))


def _find(commands: list[Command], start: str, *, contains: str = "") -> list[Command]:
    return [c for c in commands if c.line.startswith(start) and contains in c.line]


# --------------------------------------------------------------------------- fast checks


def test_only_timing_gets_the_ctrl_c_step_another_take() -> None:
    stop = (
        "Interrupted (SIGINT): {} job(s) finished, {} interrupted, {} not started; no partial "
        "result file is kept. Resume with: static-rteb run --plan data/plan.jsonl --workers 2"
    )
    assert _missed_the_moment(True, 0, "4 done, 0 running, 0 failed")  # ended between polls
    assert _missed_the_moment(False, 130, stop.format(3, 1, 0))  # a job ended after the stop
    assert _missed_the_moment(False, 130, stop.format(4, 0, 0))
    assert not _missed_the_moment(False, 130, stop.format(2, 2, 0))  # the page's
    assert not _missed_the_moment(False, 130, stop.format(1, 2, 1))
    assert not _missed_the_moment(True, 1, "1 failed")
    assert not _missed_the_moment(False, 1, stop.format(3, 1, 0))
    assert not _missed_the_moment(False, 130, stop.format(3, 1, 0) + "\nTraceback (most")


def test_every_code_block_is_run_or_illustrative() -> None:
    blocks = code_blocks(PAGE.read_text(encoding="utf-8"))
    assert any(is_run(b) for b in blocks), "the page has no block the walk runs"
    loose = [
        f"line {b.line} ({b.lang or 'no language'})"
        for b in blocks
        if not is_run(b) and not b.illustrative and b.lang != "text"
    ]
    assert not loose, (
        f"code blocks in {PAGE.name} that no test runs: {loose}. Put them in a bash block "
        f"of '{WALK_HEADING}' (the walk runs it), make them ```text (output), or put "
        f"{ILLUSTRATIVE} on the line before."
    )


def test_every_output_block_names_what_it_shows() -> None:
    """An output the page shows names the walk's command (or file) the walk compares it with."""
    text = PAGE.read_text(encoding="utf-8")
    lines = [c.line for c in walk_commands(text)]
    outputs = [b for b in code_blocks(text) if b.lang == "text"]
    assert len(outputs) > 10, "the page's outputs are not found"
    wrong = []
    for block in outputs:
        shows = Shows.of(block)
        if not block.in_walk:  # make setup's: tests/site/test_getting_started.py compares it
            ok = shows is not None and shows.what == "make setup"
        elif shows is None:
            ok = False
        elif shows.kind == "output":
            ok = sum(line.startswith(shows.what) for line in lines) >= shows.index
        else:
            ok = not Path(shows.what).is_absolute() and ".." not in Path(shows.what).parts
        if not ok:
            wrong.append(f"line {block.line}: {block.before or '(no marker)'}")
    assert not wrong, (
        f"output blocks of {PAGE.name} that name no command the walk runs: {wrong}. Put "
        "<!-- output: COMMAND --> (its first words; ' #2' for the second such command), "
        "or <!-- file: PATH -->, on the line before (', abridged' to leave lines out)."
    )


def test_the_walk_holds_every_step_the_acceptance_needs() -> None:
    commands = _commands()
    lines = [c.line for c in commands]
    assert lines[0] == "source .venv/bin/activate", lines[:1]
    order = ["static-rteb distill", "static-rteb plan", "static-rteb run --plan"]
    order += ["static-rteb batch --only my_model", "static-rteb estimate", "static-rteb submit"]
    firsts = [next(i for i, line in enumerate(lines) if line.startswith(s)) for s in order]
    assert firsts == sorted(firsts), f"the steps are not in the order {order}: {lines}"
    runs = _find(commands, "static-rteb run --plan")
    assert "Ctrl-C" in runs[0].comment, "the first run of the plan is the one stopped"
    assert len(runs) >= 3, "stopped, resumed, and run again after the corrupt file"
    estimates = [c.line for c in _find(commands, "static-rteb estimate")]
    assert any("--results ../shared/mteb-cache data/runs" in e for e in estimates), estimates
    assert any("--results ../shared/mteb-cache:data/runs" in e for e in estimates), estimates
    submit = lines.index(_find(commands, "static-rteb submit")[0].line)
    second = [i for i, c in enumerate(commands) if c.line.startswith("static-rteb run -m")]
    assert second and second[0] < submit, "a second model runs into data/runs before submit"
    assert any(c.line.startswith("echo ") and ".json" in c.line for c in commands[:submit])


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_setup_prints_the_next_command(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / ".installed").touch()  # newer than pyproject.toml: nothing to install
    proc = subprocess.run(
        ["make", "-s", "setup", f"VENV={venv}"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert f"source {venv}/bin/activate" in proc.stdout, proc.stdout
    assert "static-rteb --help" in proc.stdout, proc.stdout
    # the page's block, the temporary .venv shown as the page's .venv
    block = next(b for b in code_blocks(PAGE.read_text(encoding="utf-8")) if not b.in_walk
                 and b.lang == "text")  # fmt: skip
    printed = proc.stdout.replace(str(venv), ".venv")
    assert compare(block.text, printed, abridged=False) == "", printed
    dry = subprocess.run(
        ["make", "-n", "lint", f"VENV={venv}"], cwd=REPO, capture_output=True, text=True
    )
    assert dry.returncode == 0, dry.stderr
    assert "next:" not in dry.stdout, "only `make setup` itself prints the next command"


# --------------------------------------------------------------------------- the walk


@dataclass
class Walk:
    """The walked copy of the repository and every step as it ran."""

    root: Path
    steps: list[Step]
    env: dict[str, str]

    def step(self, start: str, *, contains: str = "", index: int = 0) -> Step:
        """The ``index``-th step whose command starts with ``start`` (and holds ``contains``)."""
        found = [
            s for s in self.steps if s.command.line.startswith(start) and contains in s.command.line
        ]
        assert len(found) > index, f"the walk ran no step {start!r} {contains!r} #{index}"
        return found[index]

    def bash(self, line: str, *, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        """Run ``line`` as the walk runs its commands (after the page's activation)."""
        return subprocess.run(
            ["bash", "-c", f"source .venv/bin/activate\n{line}"],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def _copy_checkout(target: Path) -> Path:
    """This checkout's tracked and untracked (not ignored) files, copied to ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _fake_venv(root: Path) -> None:
    """``root/.venv/bin``: ``static-rteb`` and ``python`` on this interpreter; ``activate``."""
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, args in (("static-rteb", f'{sys.executable} -m analysis.cli "$@"'),):
        (bin_dir / name).write_text(f"#!/bin/sh\nexec {args}\n")
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    for script in bin_dir.iterdir():
        script.chmod(0o755)
    (bin_dir / "activate").write_text(f'export PATH="{bin_dir}:$PATH"\n')


def _substitute(command: Command) -> str:
    return re.sub(r"<[^<>]*>", SHA, command.line)


def _job_states(root: Path) -> list[str]:
    """The states of the plan's job records (``data/runs/logs/jobs``; one being written left out)."""
    states = []
    for path in (root / "data/runs/logs/jobs").glob("*.json"):
        try:
            states.append(str(json.loads(path.read_text()).get("state")))
        except (OSError, ValueError):  # being written
            continue
    return states


def _two_done_two_running(root: Path) -> bool:
    """The moment the page's Ctrl-C shows: two jobs ended done, the other two running.

    A job's record says done after its result files are written, so both are kept; with
    two workers the next two jobs start as the first two end.
    """
    states = _job_states(root)
    return states.count("done") == 2 and states.count("running") == 2


def _warm_token_cache(folder: Path) -> None:
    """MiniLM's token embeddings, kept in ``$STATIC_RTEB_CACHE`` (made if absent: minutes)."""
    from analysis.runs.distill import distill_model

    distill_model(minilm_dir(), folder, pca_dims=8, show_progress=False)


def _start(script: str, root: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``script`` in ``bash`` as a terminal starts it: its own process group, SIGINT default."""
    return subprocess.Popen(
        ["bash", "-c", script],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # bytes: text mode would turn a bar's \r into \n
        start_new_session=True,
        preexec_fn=as_started_by("terminal"),  # SIGINT at its default, however we started
    )


def _ran(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    """Its exit status and output, once it ends (killed, with its group, after 900 s)."""
    try:
        raw, _ = process.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # never leave a walk step behind
        raise
    return process.returncode, raw.decode("utf-8", errors="replace")


#: The one line of a stopped run: finished, interrupted, not-started jobs; the resume command.
_STOP_LINE = re.compile(
    r"Interrupted \(SIGINT\): (\d+) job\(s\) finished, (\d+) interrupted, (\d+) not "
    r"started; no partial result file is kept\. Resume with: (.+)$",
    re.M,
)


def _missed_the_moment(ended_first: bool, returncode: int, output: str) -> bool:
    """Whether a take of the Ctrl-C step missed the page's moment by timing alone.

    Two outcomes qualify: the run ended, every job done, between two polls; or it stopped
    with more than two jobs finished and the rest interrupted: a running job ended done
    after the Ctrl-C, its stop lost in a library's bare ``except:`` (datasets'
    fingerprinting of a transform, ``docs/running.md``). Anything else is behaviour.
    """
    if "Traceback" in output:
        return False
    if ended_first:
        return returncode == 0
    counts = _STOP_LINE.search(output)
    if returncode != 130 or counts is None:
        return False
    finished, interrupted, waiting = map(int, counts.groups()[:3])
    return finished > 2 and finished + interrupted == 4 and waiting == 0


def _stopped_at_the_pages_moment(
    script: str, root: Path, env: dict[str, str], *, takes: int = 3
) -> tuple[int, str, int]:
    """The Ctrl-C step: its exit status, output and how many takes it needed.

    The Ctrl-C goes to the process group once two jobs ended done and two are running. A
    take that missed that moment by timing alone (:func:`_missed_the_moment`) is taken
    again from the same state, the ``data`` folder put back as it was; whatever the last
    take printed is the step, for the tests to judge.
    """
    kept = root.parent / "data-before-ctrl-c"
    shutil.copytree(root / "data", kept, symlinks=True)
    for take in range(1, takes + 1):
        if take > 1:
            shutil.rmtree(root / "data")
            shutil.copytree(kept, root / "data", symlinks=True)
        process = _start(script, root, env)
        try:  # a run that ends first is a take that missed the moment, not a failure
            wait_for(
                lambda p=process: p.poll() is not None or _two_done_two_running(root),
                "two jobs done and two running",
                timeout=900,
            )
        except BaseException:  # pytest.fail on the timeout: never leave a walk step behind
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        ended_first = process.poll() is not None
        if not ended_first:
            os.killpg(process.pid, signal.SIGINT)
        returncode, output = _ran(process)
        if not _missed_the_moment(ended_first, returncode, output):
            break
    return returncode, output, take


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Walk:
    """The page's walk, run in a temporary copy; every step recorded, none asserted here."""
    base = tmp_path_factory.mktemp("walk")
    _warm_token_cache(base / "warm")
    root = _copy_checkout(base / "static-rteb")
    (base / "shared").symlink_to(SHARED, target_is_directory=True)
    init_checkout(base / "results")
    _fake_venv(root)
    env = cli_env({"PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1"})
    env.pop("STATIC_RTEB_RESULTS", None)
    walked = Walk(root, [], env)
    prelude: list[str] = []
    for command in _commands():
        line = _substitute(command)
        script = "\n".join([*prelude, line])
        started = time.monotonic()
        takes = 1
        if "Ctrl-C" in command.comment:
            returncode, output, takes = _stopped_at_the_pages_moment(script, root, env)
        else:
            returncode, output = _ran(_start(script, root, env))
        seconds = time.monotonic() - started
        walked.steps.append(Step(command, line, returncode, output, "", seconds, takes))
        if line.startswith("source "):
            prelude.append(line)
    return walked


def _ok(step: Step, code: int = 0) -> None:
    assert step.returncode == code, (
        f"`{step.ran}` exited with {step.returncode} after {step.seconds:.0f} s (expected "
        f"{code}):\n{step.output[-3000:]}"
    )


_MEAN = re.compile(r"^MTEB\(eng, v2\) mean: .*$", re.M)


@pytest.mark.slow
@pytest.mark.shared
@needs_shared_cache
@needs_shared_tasks
class TestWalk:
    """The page's commands as they ran, step by step (one walk for the whole class)."""

    def test_activation_and_distillation(self, walk: Walk) -> None:
        from model2vec import StaticModel

        _ok(walk.step("source .venv/bin/activate"))
        step = walk.step("static-rteb distill")
        _ok(step)
        assert "Distilled " in step.stdout and "(revision local-" in step.stdout, step.output
        student = StaticModel.from_pretrained(walk.root / "data" / "models" / "my-static")
        # the page's token count ("distill (29,525 tokens of MiniLM)"): one row each
        tokens = re.search(r"([\d,]+) tokens of MiniLM", PAGE.read_text(encoding="utf-8"))
        assert tokens, "the page no longer says how many tokens MiniLM has"
        assert student.embedding.shape == (int(tokens.group(1).replace(",", "")), 256)

    def test_every_output_the_page_shows_is_what_the_walk_printed(self, walk: Walk) -> None:
        """Each output block against its command's output (or file), normalised."""
        differ = []
        for block in code_blocks(PAGE.read_text(encoding="utf-8")):
            shows = Shows.of(block)
            if block.lang != "text" or not block.in_walk or shows is None:
                continue  # make setup's block: test_make_setup_prints_the_next_command
            if shows.kind == "file":
                printed = (walk.root / shows.what).read_text(encoding="utf-8")
            else:
                printed = walk.step(shows.what, index=shows.index - 1).output
            gap = compare(block.text, printed, abridged=shows.abridged, root=walk.root)
            if gap:
                shown = "\n".join(normalise(printed, walk.root))
                differ.append(f"line {block.line} {block.before}\n{gap}\n--- printed:\n{shown}")
        assert not differ, f"{len(differ)} outputs differ from the page:\n\n" + "\n\n".join(differ)

    def test_plan(self, walk: Walk) -> None:
        step = walk.step("static-rteb plan")
        _ok(step)
        assert "Wrote data/plan.jsonl: 4 job(s)" in step.stdout, step.output
        assert (walk.root / "data" / "plan.jsonl").is_file()

    def test_ctrl_c_stops_and_the_same_command_resumes(self, walk: Walk) -> None:
        stopped = walk.step("static-rteb run --plan")
        _ok(stopped, 130)
        counts = _STOP_LINE.search(stopped.output)
        assert counts, f"take {stopped.takes}:\n{stopped.output}"
        finished, interrupted, waiting = map(int, counts.groups()[:3])
        assert finished >= 1 and interrupted + waiting >= 1, counts.group(0)
        assert counts.group(4).strip() == stopped.command.line, "it names the command typed"
        assert "Traceback" not in stopped.output
        status = walk.step("static-rteb status")
        _ok(status)
        assert f"{finished} done" in status.stdout, status.output
        if interrupted:
            assert f"{interrupted} interrupted" in status.stdout, status.output
        resumed = walk.step("static-rteb run --plan", index=1)
        _ok(resumed)
        assert f"{interrupted + waiting} job(s) to run; {finished} done" in resumed.output
        assert "4 done, 0 running, 0 failed, 0 interrupted, 0 pending" in resumed.stdout

    def test_notebook_places_the_model(self, walk: Walk) -> None:
        step = walk.step("static-rteb batch --only my_model")
        _ok(step)
        assert "1 of 1 notebooks ran." in step.output, step.output
        rank = (walk.root / "build" / "my-static" / "my_model_rank.md").read_text()
        assert "| local/my-static |" in rank, rank

    def test_estimate_on_the_merged_folders_in_both_spellings(self, walk: Walk) -> None:
        spaced = walk.step("static-rteb estimate", contains="mteb-cache data/runs")
        colon = walk.step("static-rteb estimate", contains="mteb-cache:data/runs")
        _ok(spaced)
        _ok(colon)
        for step in (spaced, colon):
            assert "leaderboard: ../shared/mteb-cache + data/runs" in step.stdout, step.output
        assert _MEAN.findall(spaced.stdout) == _MEAN.findall(colon.stdout) != []

    def test_a_second_model_lands_beside_the_first(self, walk: Walk) -> None:
        step = walk.step("static-rteb run -m")
        _ok(step)
        models = sorted(p.name for p in (walk.root / "data" / "runs" / "results").iterdir())
        assert models == ["local__my-static", "sentence-transformers__all-MiniLM-L6-v2"]
        colon = walk.step("static-rteb estimate", contains="mteb-cache:data/runs")
        # the rerun and the published file of the same model and revision disagree: one is kept
        assert "Kept the first folder's result" in colon.stdout, colon.output

    def test_a_corrupt_result_is_set_aside_and_run_again(self, walk: Walk) -> None:
        _ok(walk.step("echo "))
        status = walk.step("static-rteb status", index=1)
        _ok(status)
        assert re.search(r"STSBenchmark\s+pending", status.stdout), status.output
        rerun = walk.step("static-rteb run --plan", index=2)
        _ok(rerun)
        assert "1 job(s) to run; 3 done" in rerun.output, rerun.output
        folder = next((walk.root / MODEL_RUNS).iterdir())
        assert (folder / "STSBenchmark.json.corrupt").is_file()
        assert json.loads((folder / "STSBenchmark.json").read_text())["task_name"] == "STSBenchmark"

    def test_submit_refuses_an_unknown_model_and_writes_its_registry_entry(
        self, walk: Walk
    ) -> None:
        step = walk.step("static-rteb submit")
        _ok(step, 1)
        assert "does not know the model 'my-org/my-static'" in step.output, step.output
        entry = walk.root / "data/submissions/my-org__my-static/my_static_model_meta.py"
        assert entry.is_file()
        checkout = walk.root.parent / "results"
        assert git(checkout, "branch", "--format=%(refname:short)") == "main"
        assert git(checkout, "status", "--porcelain") == ""

    # ---- issue 25 items 4-6: the merge, two models before submit, a corrupt file

    def test_the_notebook_takes_the_colon_merge(self, walk: Walk) -> None:
        line = walk.step("static-rteb batch --only my_model").ran
        merged = line.replace(
            "--results ../shared/mteb-cache ", "--results ../shared/mteb-cache:data/runs "
        )
        assert merged != line
        done = walk.bash(merged)
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]

    def test_submit_from_a_folder_of_two_models_says_which_it_took(self, walk: Walk) -> None:
        line = walk.step("static-rteb submit").ran
        whole = line.replace(f"--results {MODEL_RUNS} ", "--results data/runs ")
        assert whole != line
        done = walk.bash(whole)
        out = done.stdout + done.stderr
        assert done.returncode == 1, out
        assert "one model revision at a time" not in out
        assert "does not know the model 'my-org/my-static'" in out, out
        assert "local__my-static" in out or "local/my-static" in out, out

    def test_status_says_a_corrupt_result_was_set_aside(self, walk: Walk) -> None:
        status = walk.step("static-rteb status", index=1)
        assert re.search(r"\b1 corrupt result (file )?set aside", status.output), status.output
