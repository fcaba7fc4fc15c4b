"""Run plans: plan -> run (local executor) -> status -> retry, and the refusals.

The SLURM executor is tested against a real one-node cluster in tests/runs/test_slurm.py.
"""

from __future__ import annotations

import ast
import json
import shutil
import time
from pathlib import Path

import mteb
import pytest

from analysis import cli
from analysis.runs.executors import ExecutorError, check_executor, read_record
from analysis.runs.locks import lock_holder
from analysis.runs.plan import (
    PlanError,
    PlanMismatchError,
    check_plan,
    job_complete,
    make_plan,
    read_plan,
    write_plan,
)
from analysis.runs.status import plan_status, state_counts
from tests._cli import run_cli
from tests._run_fixtures import (
    FIXTURE_TASKS,
    FIXTURES,
    REPO,
    distilled_static_model,
    truncated_static_model,
)

TASKS = sorted(FIXTURE_TASKS.values())


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    first = distilled_static_model(tmp_path_factory)
    second = truncated_static_model(first, tmp_path_factory.getbasetemp() / "static-cut-32", 32)
    return [first, second]


def test_plan_expands_models_by_tasks_with_stable_ids(models: list[Path], tmp_path: Path) -> None:
    plan = make_plan(models, TASKS, results_dir=tmp_path, local_tasks_dir=FIXTURES)
    assert len(plan.jobs) == 6 and len({job.job_id for job in plan.jobs}) == 6
    assert [job.tasks for job in plan.jobs] == [(t,) for t in TASKS] * 2
    assert {job.name for job in plan.jobs} == {f"local/{m.name}" for m in models}
    assert all(job.revision.startswith("local-") and job.content for job in plan.jobs)
    assert not any(job.done for job in plan.jobs)
    assert all(
        job.result_files()[0].parent.parent.parent == tmp_path / "results" for job in plan.jobs
    )
    again = make_plan(models, TASKS, results_dir=tmp_path, local_tasks_dir=FIXTURES)
    assert [job.job_id for job in again.jobs] == [job.job_id for job in plan.jobs]
    grouped = make_plan(
        models, TASKS, results_dir=tmp_path, local_tasks_dir=FIXTURES, tasks_per_job=2
    )
    assert [len(job.tasks) for job in grouped.jobs] == [2, 1, 2, 1]
    path = write_plan(plan, tmp_path / "plan.jsonl").path
    assert read_plan(path).jobs == plan.jobs


def test_benchmarks_expand_and_public_only_drops_private_tasks(
    models: list[Path], tmp_path: Path
) -> None:
    benchmark = mteb.get_benchmark("RTEB(beta)")
    public = [t.metadata.name for t in benchmark.tasks if t.metadata.is_public]
    assert 0 < len(public) < len(benchmark.tasks)  # the case worth testing
    plan = make_plan(models[:1], ["RTEB(beta)"], results_dir=tmp_path, public_only=True)
    assert [job.tasks[0] for job in plan.jobs] == public
    full = make_plan(models[:1], ["RTEB(beta)"], results_dir=tmp_path, tasks_per_job=4)
    assert sum(len(job.tasks) for job in full.jobs) == len(benchmark.tasks)
    assert len(full.jobs) == -(-len(benchmark.tasks) // 4)


def test_bad_plan_files_and_options_are_named(models: list[Path], tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="does not exist"):
        read_plan(tmp_path / "missing.jsonl")
    (tmp_path / "other.jsonl").write_text('{"a": 1}\n')
    with pytest.raises(PlanError, match="is not a plan"):
        read_plan(tmp_path / "other.jsonl")
    with pytest.raises(ValueError, match="tasks_per_job"):
        make_plan(models, TASKS, results_dir=tmp_path, tasks_per_job=0)


def test_plan_for_another_folder_or_changed_model_is_refused(
    models: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    model = Path(shutil.copytree(models[1], tmp_path / "model"))
    plan = write_plan(
        make_plan([model], TASKS[:1], results_dir=tmp_path / "runs", local_tasks_dir=FIXTURES),
        tmp_path / "plan.jsonl",
    )
    with pytest.raises(PlanMismatchError, match=r"results folder .*runs, not .*elsewhere"):
        check_plan(plan, results_dir=tmp_path / "elsewhere")
    argv = ["run", "--plan", plan.path, "--results", str(tmp_path / "elsewhere")]
    assert cli.main(argv) == 2
    assert "static-rteb plan" in capsys.readouterr().err
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "normalize": not config["normalize"]}))
    with pytest.raises(PlanMismatchError, match=rf"{model}.*changed since planning"):
        check_plan(plan)
    assert cli.main(["run", "--plan", plan.path, "--quiet"]) == 2
    assert "changed since planning" in capsys.readouterr().err


def test_unknown_executor_or_no_sbatch_names_executor_local(
    models: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = write_plan(
        make_plan(models[:1], TASKS[:1], results_dir=tmp_path, local_tasks_dir=FIXTURES),
        tmp_path / "plan.jsonl",
    )
    with pytest.raises(ExecutorError, match="--executor local"):
        check_executor("kubernetes")
    assert cli.main(["run", "--plan", plan.path, "--executor", "dask"]) == 2
    assert "--executor local" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(ExecutorError, match=r"sbatch on PATH.*--executor local"):
        check_executor("slurm")
    assert cli.main(["run", "--plan", plan.path, "--executor", "slurm"]) == 2
    assert "--executor local" in capsys.readouterr().err


def test_plan_file_lands_under_data_by_default(
    models: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    """Without -o the plan goes to data/plan.jsonl (not committed), not the working folder."""
    monkeypatch.chdir(tmp_path)
    argv = ["plan", "-m", str(models[0]), "-t", TASKS[0], "--local-tasks", str(FIXTURES)]
    assert cli.main([*argv, "--results", str(tmp_path / "runs")]) == 0
    assert "Wrote data/plan.jsonl" in capsys.readouterr().out
    assert read_plan(tmp_path / "data" / "plan.jsonl").jobs
    assert not (tmp_path / "plan.jsonl").exists()


def test_plan_imports_no_model_library(models: list[Path], tmp_path: Path) -> None:
    """``plan`` reads task metadata and hashes model folders, loading no model and no data
    set: it need not import torch or transformers (measured: 7.2 s a command with them,
    4.0 s without). Python's import profile (``-X importtime``) lists what it imported."""
    argv = ["plan", "-m", str(models[0]), "-t", *TASKS, "--local-tasks", str(FIXTURES)]
    argv += ["--results", str(tmp_path / "runs"), "-o", str(tmp_path / "plan.jsonl")]
    done = run_cli(argv, env={"PYTHONPROFILEIMPORTTIME": "1"}, timeout=300)
    assert done.returncode == 0, done.stderr
    profile = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    imported = {line.rsplit("|", 1)[1].strip() for line in profile}
    assert "analysis.runs.plan" in imported, done.stderr[-2000:]  # the profile was read
    heavy = imported & {"torch", "transformers", "sentence_transformers"}
    assert not heavy, f"plan imported {sorted(heavy)}"
    assert len(read_plan(tmp_path / "plan.jsonl").jobs) == len(TASKS)


@pytest.mark.slow
def test_plan_run_status_retry_with_local_workers(
    models: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    tasks_dir = Path(shutil.copytree(FIXTURES, tmp_path / "tasks"))
    runs, plan_file = tmp_path / "runs", tmp_path / "plan.jsonl"
    argv = ["plan", *[a for m in models for a in ("-m", str(m))], "-t", *TASKS]
    argv += ["--local-tasks", str(tasks_dir), "--results", str(runs), "-o", str(plan_file)]
    assert cli.main(argv) == 0
    assert "6 job(s)" in capsys.readouterr().out
    assert cli.main(["status", "--plan", str(plan_file)]) == 0  # nothing failed yet
    assert "6 pending" in capsys.readouterr().out

    # break one task's data: its jobs fail, with the traceback; the others are saved
    clustering = tasks_dir / "Clustering" / "test.jsonl"
    good = clustering.read_text()
    clustering.write_text('{"sentences": ')
    run = ["run", "--plan", str(plan_file), "--executor", "local", "--workers", "2", "--quiet"]
    assert cli.main(run) == 1
    plan = read_plan(plan_file)
    statuses = {s.job_id: s for s in plan_status(plan)}
    assert state_counts(list(statuses.values())) == {
        "done": 4,
        "running": 0,
        "failed": 2,
        "interrupted": 0,
        "pending": 0,
    }
    for job in plan.jobs:
        status = statuses[job.job_id]
        if job.tasks == ("TwentyNewsgroupsClustering",):
            assert status.state == "failed" and "Traceback" in status.traceback
            assert read_record(plan, job.job_id)["state"] == "failed"
        else:
            assert status.state == "done" and job_complete(job)
    capsys.readouterr()
    assert cli.main(["status", "--plan", str(plan_file)]) == 1
    out = capsys.readouterr().out
    assert "2 failed" in out and "Traceback" in out and "TwentyNewsgroupsClustering" in out

    # repaired: --retry-failed reruns only the failed jobs, with the same executor
    clustering.write_text(good)
    done_files = [p for p in (runs / "results").rglob("*.json") if p.name != "model_meta.json"]
    mtimes = {p: p.stat().st_mtime_ns for p in done_files}
    assert cli.main(["status", "--plan", str(plan_file), "--retry-failed", "--quiet"]) == 0
    assert "Retrying 2 failed job(s) with --executor local" in capsys.readouterr().out
    assert len(mtimes) == 4
    assert all(p.stat().st_mtime_ns == t for p, t in mtimes.items()), "done jobs must not rerun"
    assert all(s.state == "done" for s in plan_status(plan))
    assert cli.main(["status", "--plan", str(plan_file)]) == 0

    # planning again marks everything done; running again runs nothing
    assert cli.main(argv) == 0
    assert "6 already done" in capsys.readouterr().out
    assert cli.main(run) == 0
    assert "0 job(s) to run" in capsys.readouterr().out
    locks = list((runs / ".locks").rglob("*.lock"))
    assert locks and not [p for p in locks if lock_holder(p)]  # files stay; no lock is held
    assert not list((runs / ".staging").glob("*"))


def test_dispatcher_lists_the_new_commands(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(command in out for command in ("plan", "status", "run", "batch", "distill"))
    for command in ("plan", "status", "run", "distill"):
        with pytest.raises(SystemExit) as stop:
            cli.main([command, "--help"])
        assert stop.value.code == 0
    help_text = capsys.readouterr().out
    for option in (
        "--tasks-per-job",
        "--retry-failed",
        "--executor",
        "--max-parallel",
        "--partition",
        "--cpus-per-worker",
        "--gpus-per-worker",
        "--mem-gb-per-worker",
        "--verbose",
        "--pca-dims",
        "--vocabulary",
    ):
        assert option in help_text
    for old in ("--cpus-per-job", "--gpus-per-job", "--mem-gb "):
        assert old not in help_text


@pytest.mark.parametrize("old", ["--cpus-per-job", "--gpus-per-job"])
def test_the_old_per_job_flags_are_refused(old: str, capsys: pytest.CaptureFixture) -> None:
    """The resources were always per worker: one name each (``--cpus-per-worker``, ...)."""
    from analysis.cli.build_cli import build_cli

    parser = build_cli()
    for extra in (["run"], ["status", "--plan", "p.jsonl"]):
        with pytest.raises(SystemExit):
            parser.parse_args([*extra, old, "4"])
        assert f"unrecognized arguments: {old}" in capsys.readouterr().err


def test_one_console_script_and_module_entry_point_still_runs() -> None:
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"static-rteb": "analysis.cli:console"}
    done = run_cli(["run", "--help"], timeout=300)
    assert done.returncode == 0 and "static-rteb run" in done.stdout, done.stderr


RUNS = REPO / "analysis" / "runs"


def _is_main_guard(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def test_runs_room_exits_only_at_entry_points_and_hides_no_failure() -> None:
    """No SystemExit / sys.exit outside ``__main__`` guards; every broad except re-raises,
    passes its error on (uses ``err`` of ``except Exception as err``) or says (in a comment
    on its line) where the failure is reported."""
    offenders = []
    for path in sorted(RUNS.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source)
        guarded = {
            id(inner) for node in ast.walk(tree) if _is_main_guard(node) for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"
            if id(node) in guarded:
                continue
            if isinstance(node, ast.Name) and node.id == "SystemExit":
                offenders.append(f"{where}: SystemExit")
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "exit"
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
            ):
                offenders.append(f"{where}: sys.exit")
            if isinstance(node, ast.ExceptHandler) and (
                node.type is None
                or (
                    isinstance(node.type, ast.Name)
                    and node.type.id in {"Exception", "BaseException"}
                )
            ):
                reraises = any(isinstance(inner, ast.Raise) for inner in ast.walk(node))
                # a handler that passes its error on (into a report, a record) hides nothing
                passes_on = node.name is not None and any(
                    isinstance(inner, ast.Name) and inner.id == node.name
                    for stmt in node.body
                    for inner in ast.walk(stmt)
                )
                if not (reraises or passes_on) and "#" not in lines[node.lineno - 1]:
                    offenders.append(f"{where}: broad except that neither re-raises nor says why")
    assert not offenders, "\n".join(offenders)


def test_the_local_tasks_folder_is_kept_as_typed(models: list[Path], tmp_path: Path) -> None:
    """``--local-tasks ../shared/taskz`` (a link): the plan names the link, not its target."""
    link = tmp_path / "taskz"
    link.symlink_to(FIXTURES, target_is_directory=True)
    plan = make_plan(models[:1], TASKS[:1], results_dir=tmp_path / "runs", local_tasks_dir=link)
    assert {job.local_tasks_dir for job in plan.jobs} == {str(link)}
    assert str(FIXTURES.resolve()) not in json.dumps([job.local_tasks_dir for job in plan.jobs])


@pytest.mark.slow
def test_a_plan_run_notes_the_corrupt_result_it_set_aside(
    models: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from analysis.core.paths import display_path

    plan = write_plan(
        make_plan(models[:1], TASKS[:1], results_dir=tmp_path / "runs", local_tasks_dir=FIXTURES),
        tmp_path / "plan.jsonl",
    )
    run = ["run", "--plan", plan.path, "--workers", "1", "--quiet"]
    assert cli.main(run) == 0
    assert "corrupt" not in capsys.readouterr().out
    (result,) = plan.jobs[0].result_files()
    result.write_text('{"dataset_revision": "d66bd1f7", "task_na')  # cut by a crash elsewhere
    assert cli.main(run) == 0
    aside = result.with_name(result.name + ".corrupt")
    out = capsys.readouterr().out
    assert f"note: 1 corrupt result set aside (its task ran again): {display_path(aside)}" in out
    assert job_complete(plan.jobs[0])
    time.sleep(1.1)  # older than set_aside_since's 1 s allowance for coarse file times
    assert cli.main(run) == 0  # an old one is not news
    assert "corrupt" not in capsys.readouterr().out
