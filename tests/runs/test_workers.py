"""SLURM workers without SLURM: claims, the worker loop, and how status reads a worker array.

``tests/runs/test_slurm.py`` runs the same code against a real one-node cluster; these tests
pin the pieces it relies on with fake jobs, in forked processes and with a fake queue.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from analysis.runs.executors import (
    claim,
    claims_dir,
    log_submission,
    run_worker,
    worker,
    write_record,
)
from analysis.runs.plan import Job, Plan, write_plan
from analysis.runs.status import jobs_to_run, plan_status

FORK = multiprocessing.get_context("fork")


def _jobs(results: Path, n: int) -> list[Job]:
    return [
        Job(
            job_id=f"job{i:02d}",
            model="/models/m",
            name="local/m",
            revision="local-0",
            content=None,
            name_override=None,
            tasks=(f"Task{i}",),
            results_dir=str(results),
        )
        for i in range(n)
    ]


def _plan(results: Path, n: int) -> Plan:
    return Plan(results_dir=str(results), jobs=tuple(_jobs(results, n)))


def _fake_run_job(seconds: float, fail: frozenset[str] = frozenset()) -> object:
    """A job function that logs who ran the job (one O_APPEND write) and sleeps."""

    def run(job: Job, **_: object) -> list[dict[str, object]]:
        line = f"{job.job_id} {os.getpid()}\n".encode()
        fd = os.open(Path(job.results_dir) / "ran.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.write(fd, line)
        os.close(fd)
        time.sleep(seconds)
        if job.job_id in fail:
            raise RuntimeError(f"{job.job_id} broke")
        return []

    return run


def _claim_all(results: str, ids: list[str]) -> list[str]:
    return [i for i in ids if claim(results, "tok", i)]


def test_claims_are_exclusive_across_processes(tmp_path: Path) -> None:
    ids = [f"job{i}" for i in range(40)]
    with FORK.Pool(4) as pool:
        won = pool.starmap(_claim_all, [(str(tmp_path), ids)] * 4)
    assert sorted(i for part in won for i in part) == sorted(ids)  # each exactly once
    assert claim(tmp_path, "another-submission", "job0")  # claims are per submission


def _worker(jobs: list[Job], token: str) -> dict[str, object]:
    return run_worker(jobs, token)


def test_two_workers_run_every_job_exactly_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "run_job", _fake_run_job(0.1))
    jobs = _jobs(tmp_path, 8)
    with FORK.Pool(2) as pool:
        outcomes = pool.starmap(_worker, [(jobs, "tok")] * 2)
    lines = (tmp_path / "ran.log").read_text().split()
    ran = lines[::2]
    assert sorted(ran) == [job.job_id for job in jobs]
    assert sorted(i for o in outcomes for i in o["ran"]) == sorted(ran)  # type: ignore[attr-defined]
    assert all(o["failed"] == [] and o["stopped"] is None for o in outcomes)


def test_a_failing_job_does_not_stop_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "run_job", _fake_run_job(0.0, frozenset({"job01"})))
    jobs_file = write_plan(_plan(tmp_path, 4), claims_dir(tmp_path, "tok") / "jobs.jsonl")
    outcome = run_worker(jobs_file.path, "tok")  # as SLURM workers get them: one shared file
    assert outcome == {
        "ran": ["job00", "job01", "job02", "job03"],
        "failed": ["job01"],
        "stopped": None,
    }


def test_a_worker_takes_no_job_it_cannot_finish_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "run_job", _fake_run_job(0.3))
    # 0.6 s limit: after a 0.3 s job, 0.3 s are left < 1.25 x 0.3 s
    outcome = run_worker(_jobs(tmp_path, 4), "tok", timeout_min=0.01)
    assert outcome["ran"] == ["job00"]
    assert "time limit" in str(outcome["stopped"])
    assert not claim(tmp_path, "tok", "job00") and claim(tmp_path, "tok", "job01")


# --------------------------------------------------------------------------- status


def _submit(plan: Plan, workers: list[str]) -> None:
    log_submission(
        plan,
        {
            "executor": "slurm",
            "token": "tok",
            "jobs": {job.job_id: None for job in plan.jobs},
            "workers": workers,
            "options": {},
        },
    )


def _started(job: Job, state: str, slurm_id: str, **fields: object) -> None:
    write_record(job, state=state, started=time.time(), slurm_job_id=slurm_id, **fields)


def test_status_of_a_worker_array(tmp_path: Path) -> None:
    plan = _plan(tmp_path, 4)
    _submit(plan, ["7_0", "7_1"])
    jobs = plan.jobs
    _started(jobs[0], "running", "7_0")
    _started(jobs[1], "failed", "7_1", error="ValueError: bad", traceback="Traceback ...")
    queue = {"7_0": ("RUNNING", "None"), "7_1": ("RUNNING", "None")}
    states = [(s.state, s.slurm_id, s.detail) for s in plan_status(plan, queue=queue)]
    assert states == [
        ("running", "7_0", "running"),
        ("failed", "7_1", "ValueError: bad"),
        ("pending", None, "queued for a running SLURM worker"),
        ("pending", None, "queued for a running SLURM worker"),
    ]
    queued = {"7_0": ("PENDING", "Resources"), "7_1": ("PENDING", "Resources")}
    assert plan_status(plan, queue=queued)[3].detail == "queued in SLURM (Resources)"


def test_a_cancelled_worker_fails_its_job_with_slurms_message(tmp_path: Path) -> None:
    plan = _plan(tmp_path, 2)
    _submit(plan, ["7_0"])
    _started(plan.jobs[0], "running", "7_0")
    message = "slurmstepd: error: *** JOB 8 ON node CANCELLED AT 2026-11-22T08:00:00 ***"
    (plan.logs_dir / "7_0_0_log.err").write_text(f"loading\n{message}\n")
    running, untaken = plan_status(plan, queue={"7_0": ("CANCELLED", "None")})
    assert running.state == "failed" and running.slurm_id == "7_0"
    assert "CANCELLED" in str(running.error) and message in str(running.error)
    # the job no worker took: its worker died with an error, so it failed too
    assert untaken.state == "failed" and "no SLURM worker ran it" in str(untaken.error)


def test_jobs_left_by_workers_that_ended_well_are_pending(tmp_path: Path) -> None:
    plan = _plan(tmp_path, 1)
    _submit(plan, ["7_0"])
    (status,) = plan_status(plan, queue={"7_0": ("COMPLETED", "None")})
    assert (status.state, status.detail) == (
        "pending",
        "not run: the SLURM workers stopped before it; run the plan again",
    )


def _hold_lock(path: str, held: object, release: object) -> None:
    from analysis.runs.locks import file_lock

    with file_lock(path):
        held.set()  # type: ignore[attr-defined]
        release.wait(30)  # type: ignore[attr-defined]


def test_jobs_another_process_runs_are_running_elsewhere_not_queued(tmp_path: Path) -> None:
    """A second ``run --plan`` on one plan: the first process's jobs run elsewhere."""
    import signal
    import socket

    plan = _plan(tmp_path, 2)
    first = plan.jobs[0]
    lock = first.lock_files()[0]
    held, release = FORK.Event(), FORK.Event()
    holder = FORK.Process(target=_hold_lock, args=(str(lock), held, release))
    holder.start()
    try:
        assert held.wait(30)
        owner = f"pid {holder.pid} on {socket.gethostname()}"
        assert plan_status(plan)[0].detail == f"running elsewhere: {owner}; not submitted here"
        # the second process submitted both jobs after the first had started this one
        write_record(first, state="running", started=time.time() - 60, pid=holder.pid)
        second = FORK.Process(target=time.sleep, args=(60,))  # the second process
        second.start()
        log_submission(
            plan,
            {
                "executor": "local",
                "token": "second",
                "jobs": {job.job_id: None for job in plan.jobs},
                "host": socket.gethostname(),
                "pid": second.pid,
            },
        )
        elsewhere, queued = plan_status(plan)
        assert (elsewhere.state, elsewhere.held_by) == ("pending", owner)
        assert elsewhere.detail == f"running elsewhere: {owner}; queued here behind it"
        assert (queued.state, queued.detail) == ("pending", "queued for a local worker")
        # a run of the plan still queues it: its worker waits behind the lock
        assert jobs_to_run(plan, plan_status(plan)) == [first]
        # the second process ended: the job runs elsewhere, and only there
        os.kill(second.pid, signal.SIGKILL)
        second.join(30)
        (gone,) = [s for s in plan_status(plan) if s.job_id == first.job_id]
        assert (gone.state, gone.detail) == ("running", f"running elsewhere: {owner}")
    finally:
        release.set()
        holder.join(30)
    assert plan_status(plan)[0].detail == "not run (the run ended)"  # both are gone


def test_a_stopped_run_counts_as_status_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job whose results are complete is finished, whatever its record says.

    A stop after the last result file but before the record leaves ``interrupted`` (or
    ``running``, when the worker was killed); status reads such a job as done, and so must
    the run's last line. Completeness is stubbed here; the getting-started walk stops a
    real run.
    """
    from analysis.runs.executors import records

    jobs = _jobs(tmp_path, 6)
    complete = {"job01", "job03"}
    monkeypatch.setattr(records, "job_complete", lambda job: job.job_id in complete)
    ended = {
        "job00": {"state": "done"},
        "job01": {"state": "interrupted"},  # results written, then stopped
        "job02": {"state": "interrupted"},
        "job04": {"state": "failed"},
    }  # job03: killed with its record "running" after its results; job05: never started
    assert records.stop_counts(jobs, ended) == (4, 1, 1)
    complete.clear()
    assert records.stop_counts(jobs, ended) == (2, 2, 2)


LIGHT_MAIN = """
import sys
from analysis.core.quiet import setup_output
from analysis.runs.plan import check_plan, read_plan
from analysis.runs.status import jobs_to_run, plan_status

setup_output(libraries=False)
plan = read_plan(sys.argv[1])
check_plan(plan)
print(len(jobs_to_run(plan, plan_status(plan))), sorted(
    name for name in ("mteb", "torch", "transformers", "datasets", "sklearn") if name in sys.modules
))
"""


def test_a_plans_main_process_reads_its_status_without_importing_mteb(tmp_path: Path) -> None:
    """``run --plan``'s main process only waits on its workers: before they start it reads
    the plan's status, which for an unrun plan (no result file, no corrupt file set aside)
    needs neither mteb nor the Hugging Face libraries (seconds of CPU each command)."""
    import subprocess
    import sys

    from tests._cli import cli_env

    plan = write_plan(_plan(tmp_path / "runs", 3), tmp_path / "plan.jsonl")
    done = subprocess.run(
        [sys.executable, "-c", LIGHT_MAIN, str(plan.path)],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(None, 1) == ["3", "[]\n"], done.stdout


def test_the_local_bar_names_the_jobs_running_now_not_the_last_one_ended(tmp_path: Path) -> None:
    import io

    from tqdm import tqdm

    from analysis.runs.executors.local import LocalRun

    plan = _plan(tmp_path, 3)
    jobs = plan.jobs
    run = LocalRun(plan, jobs, "tok", [], submitted=time.time())
    write_record(jobs[0], state="done", started=time.time())
    write_record(jobs[1], state="running", started=time.time())
    write_record(jobs[2], state="running", started=run.started - 60)  # an earlier run's
    ended: dict[str, dict[str, object]] = {}
    bar = tqdm(total=3, file=io.StringIO())
    run._collect(ended, bar)
    assert list(ended) == ["job00"] and bar.n == 1
    assert bar.postfix == "now: local/m Task1"
    write_record(jobs[1], state="interrupted", started=time.time())
    run._collect(ended, bar)
    assert list(ended) == ["job00", "job01"] and bar.n == 1  # an interrupted job is not done
    assert not bar.postfix


def test_the_local_wait_polls_at_its_pace_after_a_worker_ends(tmp_path: Path) -> None:
    """A dead worker's sentinel is always ready: waiting on it spun thousands of times a second."""
    from analysis.runs.executors.local import POLL, LocalRun

    plan = _plan(tmp_path, 2)
    workers = [FORK.Process(target=time.sleep, args=(s,)) for s in (0.0, 1.0)]
    for process in workers:
        process.start()
    run = LocalRun(plan, plan.jobs, "tok", workers, submitted=time.time())
    calls = []
    run._collect = lambda ended, bar: calls.append(1)  # type: ignore[method-assign]
    run.wait(show_progress=False)
    assert len(calls) <= 1.0 / POLL + 4, len(calls)  # before: about 2,000 per second
