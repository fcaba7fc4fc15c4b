"""analysis.cli: one argument tree for every ``static-rteb`` command; light --help; typos named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import cli
from analysis.cli import build_cli

REPO = Path(__file__).resolve().parents[2]
COMMANDS = ["batch", "run", "plan", "status", "distill", "estimate", "leaderboard", "submit"]


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=REPO, env=env, check=False
    )


def test_every_command_hangs_under_one_tree() -> None:
    parser = build_cli.build_cli()
    assert build_cli.command_names(parser) == COMMANDS
    for command in COMMANDS:
        with pytest.raises(SystemExit) as stop:
            parser.parse_args([command, "--help"])
        assert stop.value.code == 0


def test_help_imports_neither_torch_nor_mteb() -> None:
    """Each --help and ``run``'s usage errors (they took 4-7 s), in a fresh interpreter: the
    heavy modules a command imports stay out."""
    code = (
        "import json, sys\n"
        "from analysis.cli import main\n"
        "heavy = ('torch', 'mteb', 'transformers', 'sentence_transformers')\n"
        "seen = {}\n"
        f"usage = [['run'], ['run', '-m', 'x'], ['run', '--plan', 'p', '-m', 'x']]\n"
        f"for argv in [['--help'], *[[c, '--help'] for c in {COMMANDS!r}], *usage]:\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    seen[' '.join(argv)] = [m for m in heavy if m in sys.modules]\n"
        "print(json.dumps(seen))\n"
    )
    done = _python("-c", code)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(seen) == len(COMMANDS) + 4
    assert all(imported == [] for imported in seen.values()), seen


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("esimate", "static-rteb: unknown command 'esimate'; did you mean 'estimate'?"),
        ("sumbit", "static-rteb: unknown command 'sumbit'; did you mean 'submit'?"),
        ("xyzzy", "static-rteb: unknown command 'xyzzy'; the commands are batch, run, plan"),
    ],
)
def test_a_mistyped_command_is_named_with_its_close_match(
    typed: str, message: str, capsys: pytest.CaptureFixture
) -> None:
    assert cli.main([typed, "--model", "x"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("usage: static-rteb")


def test_the_console_script_exits_2_on_a_mistyped_command() -> None:
    done = _python("-m", "analysis.cli", "esimate")
    assert done.returncode == 2
    assert "unknown command 'esimate'; did you mean 'estimate'?" in done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "-m", "a", "--name", "o/a", "--name", "o/b", "-t", "T"], "2 --name for 1 --model"),
        (
            ["plan", "-m", "a", "--name", "o/a", "--name", "o/b", "-t", "T", "-o", "p.jsonl"],
            "2 --name for 1 --model",
        ),
        (["run", "--plan", "p.jsonl", "--name", "o/a"], "1 --name for 0 --model"),
    ],
)
def test_more_names_than_models_is_a_usage_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    assert f"{message}; give one per model." in capsys.readouterr().err


def test_shared_options_are_defined_once() -> None:
    """Each shared option comes from analysis.cli.options: same help wherever it appears."""
    parser = build_cli.build_cli()
    subparsers = next(a for a in parser._actions if a.choices and "run" in a.choices)
    helps: dict[str, set[str]] = {}
    for sub in subparsers.choices.values():
        for action in sub._actions:
            for flag in ("--verbose", "--local-tasks"):
                if flag in action.option_strings:
                    helps.setdefault(flag, set()).add(str(action.help))
    assert set(helps) == {"--verbose", "--local-tasks"}
    assert all(len(texts) == 1 for texts in helps.values()), helps


def _option(command: str, flag: str):
    parser = build_cli.build_cli()
    subparsers = next(a for a in parser._actions if a.choices and command in a.choices)
    sub = subparsers.choices[command]
    return sub, next(a for a in sub._actions if flag in a.option_strings)


def test_run_offers_exactly_the_overwrite_strategies_the_runner_accepts(tmp_path: Path) -> None:
    from analysis.core.choices import OVERWRITE_STRATEGIES
    from analysis.runs.runner import run_evaluation

    sub, action = _option("run", "--overwrite")
    assert tuple(action.choices) == OVERWRITE_STRATEGIES
    assert "{" + ",".join(OVERWRITE_STRATEGIES) + "}" in sub.format_help()
    for strategy in OVERWRITE_STRATEGIES:  # accepted: an empty run ends without error
        assert run_evaluation([], [], results_dir=tmp_path, overwrite=strategy).empty  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="overwrite must be one of"):
        run_evaluation([], [], results_dir=tmp_path, overwrite="sometimes")  # type: ignore[arg-type]


def test_executor_option_names_exactly_the_executors_that_run() -> None:
    from analysis.core.choices import EXECUTORS
    from analysis.core.errors import ExecutorError
    from analysis.runs.executors import check_executor
    from analysis.runs.executors.factory import EXECUTOR_CLASSES

    assert tuple(EXECUTOR_CLASSES) == EXECUTORS  # each one's class, with its status reading
    sub, action = _option("run", "--executor")
    assert action.metavar == "{" + ",".join(EXECUTORS) + "}"
    assert action.metavar in sub.format_help()
    for name in EXECUTORS:  # known: at most "needs sbatch", never "unknown"
        try:
            check_executor(name)
        except ExecutorError as err:
            assert "Unknown executor" not in str(err)
    with pytest.raises(ExecutorError, match="Unknown executor"):
        check_executor("kubernetes")


def test_distill_default_dims_are_distill_models() -> None:
    import inspect

    from analysis.core.choices import PCA_DIMS
    from analysis.runs.distill import distill_model

    sub, action = _option("distill", "--pca-dims")
    assert action.default == PCA_DIMS
    assert inspect.signature(distill_model).parameters["pca_dims"].default == PCA_DIMS
    assert f"(default {PCA_DIMS})" in " ".join(sub.format_help().split())


def test_on_conflict_choices_are_what_the_loader_accepts(tmp_path) -> None:
    """--on-conflict offers exactly the values load_leaderboard accepts (one tuple)."""
    from analysis.core.choices import ON_CONFLICT
    from analysis.results.leaderboard import load_leaderboard

    parser = build_cli.build_cli()
    estimate = parser._subparsers._group_actions[0].choices["estimate"]
    action = next(a for a in estimate._actions if a.dest == "on_conflict")
    assert tuple(action.choices) == ON_CONFLICT
    with pytest.raises(ValueError, match="on_conflict"):
        load_leaderboard(tasks=["STSBenchmark"], results=tmp_path, on_conflict="last")


@pytest.mark.parametrize(("stop", "status"), [(KeyboardInterrupt(), 130), (None, 143)])
def test_a_stop_outside_a_commands_own_handling_is_one_line(
    stop: BaseException | None, status: int, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Ctrl-C while a command imports torch and mteb (before its own stop handling) or in a
    command that only reads (``leaderboard``, ``estimate``): one line and 128 + the signal,
    no traceback; a SIGTERM that became a stop keeps its signal."""
    import signal

    from analysis.cli import leaderboard
    from analysis.core.errors import RunInterrupted

    def stopped(*args: object) -> int:
        raise stop or RunInterrupted(signum=signal.SIGTERM)

    monkeypatch.setattr(leaderboard, "leaderboard_command", stopped)
    assert cli.main(["leaderboard", "-b", "RTEB(beta)"]) == status
    err = capsys.readouterr().err
    name = "SIGINT" if stop else "SIGTERM"
    assert err == f"static-rteb leaderboard: interrupted ({name}).\n"


def test_version_names_the_package_and_its_anchors(capsys) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"static-rteb {version('static-rteb-analysis')} (mteb {version('mteb')},")


@pytest.mark.slow
def test_a_mistyped_benchmark_or_task_is_refused_before_the_heavy_imports(tmp_path: Path) -> None:
    """Once this mteb's names were seen (the first look-up keeps them in the cache), a typo in
    ``leaderboard -b`` (either pin) or ``run -t`` is refused with the closest names, exit 2,
    importing none of mteb, pandas and torch; the first time, mteb's own lists refuse it, in
    the same words."""
    from tests._cli import cli_env

    env = cli_env({"STATIC_RTEB_CACHE": str(tmp_path)})
    code = (
        "import sys\nfrom analysis.cli import main\n"
        "try:\n    code = main(sys.argv[1:])\nexcept SystemExit as stop:\n    code = stop.code\n"
        "print(code, *[m for m in ('mteb', 'pandas', 'torch') if m in sys.modules])\n"
    )

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        run = [sys.executable, "-c", code, *argv]
        return subprocess.run(
            run, env=env, capture_output=True, text=True, timeout=300, check=False
        )

    cold = cli("run", "-m", "x", "-t", "STSBenchmarkk")  # mteb's lists, kept in the cache
    assert cold.stdout.split()[:2] == ["2", "mteb"] and "'STSBenchmark'" in cold.stderr
    warm = cli("run", "-m", "x", "-t", "STSBenchmarkk")
    assert warm.stdout.split() == ["2"] and warm.stderr == cold.stderr
    for argv, hint in (
        (["run", "-m", "x", "-t", "SciFact", "STSBenchmarkk"], "'STSBenchmark'"),
        (["leaderboard", "-b", "RTEB(betaa)"], "'RTEB(beta)'"),
        (["leaderboard", "-b", "RTEB(betaa)", "--pin", "as-of-post"], "'RTEB(beta)'"),
    ):
        done = cli(*argv)
        assert done.stdout.split() == ["2"], (argv, done.stdout, done.stderr)
        assert hint in done.stderr
