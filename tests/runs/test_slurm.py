"""The SLURM executor against a real one-node SLURM cluster (.ci/slurm.sh).

A plan of 2 static models x 3 local tasks runs as one submitit job array. One job is held
mid-run (the test holds the lock of its last task), ``scancel``-ed, reported failed with
SLURM's own message, rejected once on resubmission (unknown partition: SLURM's message),
then resumed; the final results equal a local-executor run's exactly (main scores, and
the files apart from timing fields). Ctrl-C while ``run --wait`` waits for an array stops
the waiting within 5 s and leaves the array running, naming ``static-rteb status`` and
``scancel <array id>``.

In CI (``CI=true``) this test must run: a cluster that cannot start fails it. Elsewhere it
skips when this is not root or SLURM is neither installed nor installable with apt.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis import cli
from analysis.runs.locks import file_lock, lock_path, pid_alive
from analysis.runs.models import load_model
from analysis.runs.plan import read_plan
from analysis.runs.runner import predictions_path, result_path
from analysis.runs.status import plan_status
from tests._cli import start_cli, wait_for
from tests._run_fixtures import (
    FIXTURE_TASKS,
    FIXTURES,
    REPO,
    distilled_static_model,
    truncated_static_model,
)

pytestmark = pytest.mark.slow

SCRIPT = REPO / ".ci" / "slurm.sh"
IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
TASKS = sorted(FIXTURE_TASKS.values())
#: Result-file fields that measure time, not the evaluation.
TIMING_FIELDS = ("evaluation_time", "date", "evaluation_phases", "kg_co2_emissions")
DAEMONS = ("munged", "slurmctld", "slurmd")


def _cannot_run_reason() -> str | None:
    installed = all(shutil.which(b) or Path("/usr/sbin", b).exists() for b in ("sbatch", "slurmd"))
    if os.geteuid() != 0:
        return "needs root to start slurmd/slurmctld/munged (a one-node SLURM cluster)"
    if not installed and shutil.which("apt-get") is None:
        return "SLURM is not installed and there is no apt-get to install it"
    return None


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"CI=true: the SLURM test must run, but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def slurm_cluster() -> Iterator[Path]:
    """A running one-node cluster; yields its slurm.conf. Stops only daemons it started."""
    reason = _cannot_run_reason()
    if reason:
        _unavailable(reason)
    folder = Path(os.environ.get("SLURM_CI_DIR", "/tmp/static-rteb-slurm"))
    env = {**os.environ, "SLURM_CI_DIR": str(folder)}
    was_up = subprocess.run(["bash", str(SCRIPT), "status"], env=env, check=False).returncode == 0
    start = subprocess.run(
        ["bash", str(SCRIPT), "start"], env=env, capture_output=True, text=True, timeout=900
    )
    if start.returncode == 3:
        _unavailable(start.stderr.strip())
    assert start.returncode == 0, f"the SLURM cluster did not start:\n{start.stderr}"
    conf = folder / "slurm.conf"
    old = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(conf)
    pids = {name: int((folder / "pids" / name).read_text()) for name in DAEMONS}
    try:
        yield conf
    finally:
        if old is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = old
        if not was_up:
            subprocess.run(["bash", str(SCRIPT), "stop"], env=env, check=True, timeout=120)
            assert not any(pid_alive(pid) for pid in pids.values()), "a daemon survived stop"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    first = distilled_static_model(tmp_path_factory)
    second = truncated_static_model(first, tmp_path_factory.getbasetemp() / "static-cut-32", 32)
    return [first, second]


def _plan(models: list[Path], tasks_dir: Path, runs: Path, plan: Path, per_job: int) -> str:
    argv = ["plan", *[a for m in models for a in ("-m", str(m))], "-t", *TASKS]
    argv += ["--local-tasks", str(tasks_dir), "--results", str(runs), "-o", str(plan)]
    assert cli.main([*argv, "--tasks-per-job", str(per_job)]) == 0
    return str(plan)


def _without_timings(path: Path) -> dict:
    data = json.loads(path.read_text())
    return {k: v for k, v in data.items() if k not in TIMING_FIELDS}


def test_slurm_array_cancel_resume_equals_local_run(
    slurm_cluster: Path, models: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    tasks_dir = Path(shutil.copytree(FIXTURES, tmp_path / "tasks"))
    slurm_runs, local_runs = tmp_path / "slurm-runs", tmp_path / "local-runs"
    plan_file = _plan(models, tasks_dir, slurm_runs, tmp_path / "slurm.jsonl", per_job=3)
    plan = read_plan(plan_file)
    assert len(plan.jobs) == 2
    metas = [load_model(m).mteb_model_meta for m in models]
    held, last = metas[1], TASKS[-1]

    # the second job will finish its first two tasks, then wait for this lock: mid-run
    blocker = file_lock(lock_path(slurm_runs, held, last))
    assert blocker.acquire(blocking=False)
    try:
        submit = ["run", "--plan", plan_file, "--executor", "slurm", "--cpus-per-worker", "1"]
        assert cli.main([*submit, "--timeout-min", "10", "--quiet"]) == 0
        waiting = [result_path(slurm_runs, held, task) for task in TASKS[:-1]]
        wait_for(
            lambda: all(p.is_file() for p in waiting), "the held job's first tasks", timeout=240
        )
        victim = next(s for s in plan_status(plan) if s.model == held.name)
        assert victim.state == "running" and victim.slurm_id
        subprocess.run(["scancel", victim.slurm_id], check=True, timeout=30)
        wait_for(
            lambda: {s.state for s in plan_status(plan)} <= {"done", "failed"},
            "both jobs to leave the queue",
            timeout=240,
        )
    finally:
        blocker.release()
    statuses = {s.model: s for s in plan_status(plan)}
    assert statuses[metas[0].name].state == "done"
    assert statuses[held.name].state == "failed"
    assert "CANCELLED" in statuses[held.name].error  # SLURM's own message
    assert not result_path(slurm_runs, held, last).exists()
    capsys.readouterr()
    assert cli.main(["status", "--plan", plan_file, "--quiet"]) == 1
    assert "1 failed" in capsys.readouterr().out

    # SLURM rejects a resubmission to an unknown partition: its message, a non-zero exit
    retry = ["status", "--plan", plan_file, "--retry-failed", "--quiet"]
    assert cli.main([*retry, "--partition", "no-such-partition"]) == 1
    assert "invalid partition" in capsys.readouterr().err.lower()
    assert cli.main(["status", "--plan", plan_file, "--quiet"]) == 1
    rejected = next(s for s in plan_status(plan) if s.state == "failed")
    assert "partition" in rejected.error.lower() and "rejected" in rejected.detail

    # running the plan again redoes only the unfinished job
    assert cli.main([*submit, "--wait", "--quiet"]) == 0
    assert "1 job(s) to run; 1 done" in capsys.readouterr().out
    assert all(s.state == "done" for s in plan_status(plan))
    assert cli.main(["status", "--plan", plan_file, "--quiet"]) == 0
    logs = list((slurm_runs / "logs").glob("*_log.err"))
    assert len(logs) == 3, "job logs go to <results>/logs/"

    # the same plan through the local executor (other grouping) gives the same results
    local_plan = _plan(models, tasks_dir, local_runs, tmp_path / "local.jsonl", per_job=1)
    assert cli.main(["run", "--plan", local_plan, "--workers", "2", "--quiet"]) == 0
    capsys.readouterr()
    for meta in metas:
        for task in TASKS:
            a, b = result_path(slurm_runs, meta, task), result_path(local_runs, meta, task)
            assert _without_timings(a) == _without_timings(b), (meta.name, task)
            a_pred, b_pred = (
                predictions_path(slurm_runs, meta, task),
                predictions_path(local_runs, meta, task),
            )
            assert a_pred.is_file() == b_pred.is_file()
            if a_pred.is_file():
                assert a_pred.read_bytes() == b_pred.read_bytes()
        folder_a, folder_b = (
            result_path(r, meta, TASKS[0]).parent for r in (slurm_runs, local_runs)
        )
        assert (folder_a / "model_meta.json").read_bytes() == (
            folder_b / "model_meta.json"
        ).read_bytes()
        lines_a = sorted((folder_a / "run_settings.jsonl").read_text().splitlines())
        lines_b = sorted((folder_b / "run_settings.jsonl").read_text().splitlines())
        assert lines_a == lines_b and len(lines_a) == len(TASKS)
    files = sorted(
        p.relative_to(slurm_runs / "results") for p in (slurm_runs / "results").rglob("*")
    )
    assert files == sorted(
        p.relative_to(local_runs / "results") for p in (local_runs / "results").rglob("*")
    )


def test_ctrl_c_while_waiting_leaves_the_array_running(
    slurm_cluster: Path, models: list[Path], tmp_path: Path
) -> None:
    import signal

    from analysis.runs.executors import read_record, read_submissions
    from analysis.runs.executors.slurm import ACTIVE_STATES, slurm_queue

    tasks_dir = Path(shutil.copytree(FIXTURES, tmp_path / "tasks"))
    runs = tmp_path / "runs"
    plan_file = _plan(models[:1], tasks_dir, runs, tmp_path / "plan.jsonl", per_job=3)
    plan = read_plan(plan_file)
    (job,) = plan.jobs
    meta = load_model(models[0]).mteb_model_meta
    blocker = file_lock(lock_path(runs, meta, TASKS[1]))  # the job waits there: mid-run
    assert blocker.acquire(blocking=False)
    try:
        argv = ["run", "--plan", plan_file, "--executor", "slurm", "--wait"]
        argv += ["--cpus-per-worker", "1", "--timeout-min", "10", "--quiet"]
        waiter = start_cli(argv, new_session=True)
        wait_for(
            lambda: (read_record(plan, job.job_id) or {}).get("state") == "running",
            "the SLURM worker to start the job",
            timeout=240,
            process=waiter,
        )
        os.killpg(waiter.pid, signal.SIGINT)  # Ctrl-C in the terminal that waits
        sent = time.monotonic()
        out, err = waiter.communicate(timeout=30)
        elapsed = time.monotonic() - sent
        assert elapsed < 5.0, f"stopped waiting after {elapsed:.1f} s"
        assert waiter.returncode == 130
        assert "Submitted 1 job(s) to 1 worker(s)" in out
        assert "Traceback" not in err
        (line,) = [x for x in err.splitlines() if x.startswith("Interrupted (")]
        (array,) = {w.split("_")[0] for w in read_submissions(plan)[-1]["workers"]}
        assert "keeps running" in line
        assert f"static-rteb status --plan {plan_file}" in line
        assert f"scancel {array}" in line
        worker = read_record(plan, job.job_id)["slurm_job_id"]
        assert slurm_queue()[worker][0] in ACTIVE_STATES  # the array still runs
        assert plan_status(plan)[0].state == "running"
    finally:
        blocker.release()
    wait_for(
        lambda: plan_status(plan)[0].state == "done", "the array to finish the job", timeout=240
    )
    assert all(result_path(runs, meta, task).is_file() for task in TASKS)


def test_a_node_drained_by_an_earlier_cluster_is_resumed_on_start(slurm_cluster: Path) -> None:
    """The node's drain state (restored from the state folder) must not stop a new start.

    A cluster whose spool folder once filled up drains its node, and slurmctld restores
    that state on the next start in the same folder: the start resumes the node once
    (on the code before, it waited 60 s and failed with "the node did not become idle").
    """
    env = {**os.environ, "SLURM_CI_DIR": str(slurm_cluster.parent)}
    node = subprocess.run(
        ["sinfo", "-h", "-N", "-o", "%N"], env=env, capture_output=True, text=True, check=True
    ).stdout.split()[0]
    drain = ["scontrol", "update", f"NodeName={node}", "State=DRAIN", "Reason=an earlier cause"]
    subprocess.run(drain, env=env, check=True, timeout=30)
    subprocess.run(["bash", str(SCRIPT), "stop"], env=env, check=True, timeout=120)
    start = subprocess.run(
        ["bash", str(SCRIPT), "start"], env=env, capture_output=True, text=True, timeout=300
    )
    assert start.returncode == 0, start.stderr
    state = subprocess.run(
        ["sinfo", "-h", "-N", "-o", "%t"], env=env, capture_output=True, text=True, check=True
    ).stdout.split()[0]
    # Up as the script defines it (status: idle, mixed, allocated or completing: an
    # earlier test's job restored with the state may still be completing), never drained.
    assert state.rstrip("*~#") in {"idle", "mix", "alloc", "comp"}, state
    status = subprocess.run(["bash", str(SCRIPT), "status"], env=env, timeout=60)
    assert status.returncode == 0
