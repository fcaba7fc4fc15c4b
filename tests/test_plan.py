"""Run plans: plan -> run (local executor) -> status -> retry, and the refusals.

The SLURM executor is tested against a real one-node cluster in tests/test_slurm.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mteb
import pytest
from _run_fixtures import (
    FIXTURE_TASKS,
    FIXTURES,
    distilled_static_model,
    truncated_static_model,
)

from analysis import cli
from analysis.runs.executors import ExecutorError, check_executor, read_record
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
    assert not list((runs / ".locks").rglob("*.lock"))
    assert not list((runs / ".staging").glob("*"))


def test_dispatcher_lists_the_new_commands(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(command in out for command in ("plan", "status", "run", "batch"))
    for command in ("plan", "status", "run"):
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
    ):
        assert option in help_text
