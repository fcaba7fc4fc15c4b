"""Ctrl-C, SIGINT and SIGTERM stop every run within 5 s, cleanly, against real processes.

Each test starts a real ``static-rteb run`` (its own process group, as a terminal gives
it), waits until a job is underway, sends the signal the way a user or scheduler does,
and checks: the process tree is gone within 5 s; exit status 128 + the signal; one line
on stderr (what finished, what was interrupted, the command to resume) and no
traceback; no partial result file and no staging folder; ``status`` says
``interrupted`` (never ``failed``); and the printed command resumes and finishes.

How a job is held mid-run: the test takes the lock of one of its tasks
(:mod:`analysis.runs.locks`), so the job finished its earlier tasks and waits for that
one, deterministically. One more test stops MiniLM in the middle of encoding (two local
workers, SIGINT to the main process only: the case that used to run on for minutes),
and one interrupts a notebook kernel inside ``run_evaluation`` and ``run_local``.
Waiting on SLURM is tested against the real cluster in ``tests/runs/test_slurm.py``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from analysis.cli import main as static_rteb
from analysis.runs.executors import read_record
from analysis.runs.locks import file_lock, lock_holder, lock_path
from analysis.runs.models import load_model
from analysis.runs.plan import job_complete, read_plan
from analysis.runs.runner import result_path
from analysis.runs.status import plan_status
from tests._cli import cli_env, start_cli, wait_for
from tests._run_fixtures import (
    FIXTURE_TASKS,
    FIXTURES,
    REPO,
    distilled_static_model,
    minilm_dir,
    slow_clustering_task,
)

pytestmark = pytest.mark.slow

TASKS = sorted(FIXTURE_TASKS.values())
#: The user's limit: every process of the run gone this many seconds after the signal.
STOP_WITHIN = 5.0
HOW = ("ctrl-c", "sigint-main", "sigterm")


@pytest.fixture(scope="module")
def static_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return distilled_static_model(tmp_path_factory)


def _signal(process: subprocess.Popen, how: str) -> int:
    """Send the stop as a terminal (ctrl-c: the whole group), ``kill -INT`` or ``kill``."""
    if how == "ctrl-c":
        os.killpg(process.pid, signal.SIGINT)
        return signal.SIGINT
    if how == "sigint-main":
        os.kill(process.pid, signal.SIGINT)
        return signal.SIGINT
    os.kill(process.pid, signal.SIGTERM)
    return signal.SIGTERM


def _processes() -> Iterator[tuple[Path, list[str]]]:
    """Each process's ``/proc`` folder and its ``stat`` fields after the command (state first)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        yield entry, fields


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies waiting to be reaped do not)."""
    return any(int(f[2]) == pgid and f[0] not in {"Z", "X"} for _, f in _processes())


def _stop(process: subprocess.Popen, how: str) -> tuple[int, str, str, float, int]:
    """Signal the run; (exit status, stdout, stderr, seconds until all its processes left)."""
    signum = _signal(process, how)
    sent = time.monotonic()
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"{how}: the run did not stop within 30 s:\n{out}\n{err}")
    while _group_alive(process.pid) and time.monotonic() - sent < 30:
        time.sleep(0.05)  # its workers: every process of the group must be gone
    elapsed = time.monotonic() - sent
    return process.returncode, out, err, elapsed, signum


def _check_one_clean_line(err: str, expected: str) -> str:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("Interrupted (")]
    assert len(lines) == 1, err
    assert expected in lines[0], lines[0]
    return lines[0]


def _resume(line: str) -> int:
    """Run the command the stop line printed (in this process)."""
    command = shlex.split(line.split("Resume with: ", 1)[1])
    assert command[:2] == ["static-rteb", "run"], command
    return static_rteb(command[1:])


def _no_partial_files(runs: Path) -> None:
    staging = runs / ".staging"
    assert not staging.exists() or not any(staging.iterdir()), list(staging.iterdir())
    for path in (runs / "results").rglob("*.json"):
        json.loads(path.read_text())  # every result file is complete
    assert not list((runs / "results").rglob("*.corrupt"))


@pytest.fixture
def held() -> Iterator[list[FileLock]]:
    """Locks the test holds to keep jobs mid-run; released at the end whatever happens."""
    locks: list[FileLock] = []
    yield locks
    for lock in locks:
        lock.release()


def _hold(held: list[FileLock], runs: Path, model: Path, tasks: list[str]) -> None:
    meta = load_model(model).mteb_model_meta
    for task in tasks:
        lock = file_lock(lock_path(runs, meta, task))
        assert lock.acquire(blocking=False)
        held.append(lock)


def _release(held: list[FileLock]) -> None:
    for lock in held:
        lock.release()


# --------------------------------------------------------------------------- direct run


@pytest.mark.parametrize(
    "how",
    # without workers a Ctrl-C reaches the group of one process: the main process only
    ["ctrl-c", "sigterm", pytest.param("sigint-main", marks=pytest.mark.xslow)],
)
def test_direct_run_stops_cleanly_and_resumes(
    how: str, static_model: Path, tmp_path: Path, held: list[FileLock]
) -> None:
    runs = tmp_path / "runs"
    meta = load_model(static_model).mteb_model_meta
    _hold(held, runs, static_model, [TASKS[1]])  # the run finishes TASKS[0], then waits
    argv = ["-m", str(static_model), "-t", *TASKS, "--local-tasks", str(FIXTURES)]
    argv += ["--results", str(runs), "--quiet"]
    process = start_cli(["run", *argv], new_session=True)  # a terminal's job
    wait_for(lambda: result_path(runs, meta, TASKS[0]).is_file(), "the first task", process=process)
    time.sleep(0.5)
    status, _, err, elapsed, signum = _stop(process, how)

    assert elapsed < STOP_WITHIN, f"{how}: stopped after {elapsed:.1f} s"
    assert status == 128 + signum
    line = _check_one_clean_line(err, "1 evaluation(s) finished, 1 interrupted, 1 not started")
    assert f"Resume with: static-rteb run {shlex.join(argv)}" in line
    _no_partial_files(runs)
    assert not result_path(runs, meta, TASKS[1]).exists()

    _release(held)
    assert _resume(line) == 0
    assert all(result_path(runs, meta, task).is_file() for task in TASKS)
    assert not any(lock_holder(path) for path in (runs / ".locks").rglob("*.lock"))


# --------------------------------------------------------------------------- plans


def _make_plan(models: list[str], runs: Path, plan: Path, tasks_dir: Path, tasks: list[str]):
    argv = ["plan", *[a for m in models for a in ("-m", m)], "-t", *tasks]
    argv += ["--local-tasks", str(tasks_dir), "--results", str(runs), "-o", str(plan)]
    from analysis import cli

    assert cli.main(argv) == 0
    return read_plan(plan)


def _states(plan) -> list[str]:
    return [s.state for s in plan_status(plan)]


@pytest.mark.parametrize(
    ("how", "workers"),
    [
        *((how, 2) for how in HOW),
        ("ctrl-c", 1),
        # make test-all: the other signals with one worker too
        *(pytest.param(how, 1, marks=pytest.mark.xslow) for how in HOW[1:]),
    ],
)
def test_plan_with_local_workers_stops_cleanly_and_resumes(
    how: str,
    workers: int,
    static_model: Path,
    tmp_path: Path,
    held: list[FileLock],
    capsys: pytest.CaptureFixture,
) -> None:
    runs, plan_file = tmp_path / "runs", tmp_path / "plan.jsonl"
    plan = _make_plan([str(static_model)], runs, plan_file, FIXTURES, TASKS)  # 3 jobs
    meta = load_model(static_model).mteb_model_meta
    # 1 worker: job 0 done, job 1 waits, job 2 not started; 2 workers: jobs 1 and 2 wait
    waiting = plan.jobs[1:] if workers == 2 else plan.jobs[1:2]
    _hold(held, runs, static_model, [job.tasks[0] for job in waiting])
    argv = ["run", "--plan", str(plan_file), "--workers", str(workers), "--quiet"]
    process = start_cli(argv, new_session=True)

    def underway() -> bool:
        records = [read_record(plan, job.job_id) or {} for job in waiting]
        return result_path(runs, meta, TASKS[0]).is_file() and all(
            r.get("state") == "running" for r in records
        )

    wait_for(underway, "the jobs to be underway", process=process)
    time.sleep(0.5)
    status, out, err, elapsed, signum = _stop(process, how)

    assert elapsed < STOP_WITHIN, f"{how}, {workers} worker(s): stopped after {elapsed:.1f} s"
    assert status == 128 + signum
    assert "3 job(s) to run" in out
    interrupted, not_started = len(waiting), 2 - len(waiting)
    expected = f"1 job(s) finished, {interrupted} interrupted, {not_started} not started"
    line = _check_one_clean_line(err, expected)
    assert "Resume with: static-rteb run " + shlex.join(argv[1:]) in line
    _no_partial_files(runs)
    assert _states(plan) == ["done", *["interrupted"] * interrupted, *["pending"] * not_started]
    # the signal sent, whoever got it: a Ctrl-C's workers also get the main process's stop
    recorded = [(read_record(plan, job.job_id) or {}).get("error") for job in waiting]
    assert recorded == [f"interrupted ({signal.Signals(signum).name})"] * interrupted
    assert "failed" not in capsys.readouterr().out

    _release(held)
    assert _resume(line) == 0
    assert _states(plan) == ["done"] * 3 and all(job_complete(job) for job in plan.jobs)
    assert not any(lock_holder(path) for path in (runs / ".locks").rglob("*.lock"))


def _fork_server_importing(main: int) -> bool:
    """Whether the run's fork server is importing what its workers run (pandas loaded, so
    seconds before mteb and torch are)."""
    for entry, fields in _processes():
        if int(fields[1]) != main:
            continue
        try:
            if b"multiprocessing.forkserver" in (entry / "cmdline").read_bytes():
                return "/pandas/_libs/" in (entry / "maps").read_text()
        except OSError:
            continue  # gone meanwhile
    return False


@pytest.mark.parametrize("how", ["ctrl-c", "sigint-main"])
def test_a_stop_while_the_fork_server_imports_is_one_clean_line(
    how: str, static_model: Path, tmp_path: Path
) -> None:
    """Seconds after the start the fork server is still importing mteb and torch."""
    runs, plan_file = tmp_path / "runs", tmp_path / "plan.jsonl"
    _make_plan([str(static_model)], runs, plan_file, FIXTURES, TASKS)
    argv = ["run", "--plan", str(plan_file), "--workers", "2", "--quiet"]
    process = start_cli(argv, new_session=True)
    wait_for(lambda: _fork_server_importing(process.pid), "the fork server", process=process,
             interval=0.05)  # fmt: skip
    status, _, err, elapsed, signum = _stop(process, how)

    assert elapsed < STOP_WITHIN, f"{how}: stopped after {elapsed:.1f} s"
    assert status == 128 + signum
    _check_one_clean_line(err, "Resume with: static-rteb run " + shlex.join(argv[1:]))
    _no_partial_files(runs)


def test_workers_stop_cleanly_when_the_main_process_is_killed(
    static_model: Path, tmp_path: Path, held: list[FileLock]
) -> None:
    """SIGKILL leaves no line to print, but the workers still stop and record their jobs."""
    runs, plan_file = tmp_path / "runs", tmp_path / "plan.jsonl"
    plan = _make_plan([str(static_model)], runs, plan_file, FIXTURES, TASKS)
    _hold(held, runs, static_model, [job.tasks[0] for job in plan.jobs[1:]])
    process = start_cli(
        ["run", "--plan", str(plan_file), "--workers", "2", "--quiet"], new_session=True
    )
    wait_for(
        lambda: _states(plan) == ["done", "running", "running"],
        "the jobs to be underway",
        process=process,
    )
    os.kill(process.pid, signal.SIGKILL)
    sent = time.monotonic()
    process.communicate(timeout=30)
    while _group_alive(process.pid) and time.monotonic() - sent < 30:
        time.sleep(0.05)
    elapsed = time.monotonic() - sent
    assert elapsed < STOP_WITHIN, f"workers still ran {elapsed:.1f} s after the main process died"
    _no_partial_files(runs)
    assert _states(plan) == ["done", "interrupted", "interrupted"]


def test_sigint_to_main_stops_two_minilm_workers_mid_encoding(tmp_path: Path) -> None:
    """The reported case: SIGINT to the main process of a 2-worker MiniLM plan."""
    minilm = str(minilm_dir())
    tasks_dir = slow_clustering_task(tmp_path / "tasks")
    runs, plan_file = tmp_path / "runs", tmp_path / "plan.jsonl"
    # the same weights under two names: two jobs, encoding at the same time
    plan = _make_plan_named(plan_file, runs, tasks_dir, minilm)
    assert len(plan.jobs) == 2
    process = start_cli(
        ["run", "--plan", str(plan_file), "--workers", "2", "--quiet"], new_session=True
    )
    staging = runs / ".staging"
    wait_for(
        lambda: staging.is_dir() and len(list(staging.iterdir())) == 2,
        "both workers to start encoding",
        process=process,
    )
    time.sleep(2.0)  # well inside the encoding (tens of seconds on one thread each)
    status, _, err, elapsed, signum = _stop(process, "sigint-main")

    assert elapsed < STOP_WITHIN, f"stopped after {elapsed:.1f} s"
    assert status == 128 + signum
    _check_one_clean_line(err, "0 job(s) finished, 2 interrupted, 0 not started")
    _no_partial_files(runs)
    assert _states(plan) == ["interrupted", "interrupted"]


def _make_plan_named(plan_file: Path, runs: Path, tasks_dir: Path, minilm: str):
    from analysis import cli

    argv = ["plan", "-m", minilm, "--name", "sentence-transformers/all-MiniLM-L6-v2"]
    argv += ["-m", minilm, "-t", "TwentyNewsgroupsClustering", "--local-tasks", str(tasks_dir)]
    argv += ["--results", str(runs), "-o", str(plan_file)]
    assert cli.main(argv) == 0
    return read_plan(plan_file)


# --------------------------------------------------------------------------- notebooks


def test_notebook_kernel_interrupt_stops_runs_and_the_rerun_resumes(
    static_model: Path, tmp_path: Path, held: list[FileLock]
) -> None:
    jupyter_client = pytest.importorskip("jupyter_client")
    runs, plan_file = tmp_path / "runs", tmp_path / "plan.jsonl"
    plan = _make_plan([str(static_model)], runs, plan_file, FIXTURES, TASKS)
    meta = load_model(static_model).mteb_model_meta
    # sockets as files (ipc), as the batch's kernels: no tcp port another process can take
    manager = jupyter_client.KernelManager(
        kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel")
    )
    manager.start_kernel(cwd=str(REPO), env=cli_env())
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        _execute(
            client,
            "from analysis.runs.runner import run_evaluation\n"
            "from analysis.runs.executors import run_local\n"
            "from analysis.runs.plan import read_plan\n",
        )
        # run_evaluation in a cell: the kernel interrupt stops it mid-task
        _hold(held, runs, static_model, [TASKS[1]])
        cell = (
            f"run_evaluation([{str(static_model)!r}], {TASKS!r}, results_dir={str(runs)!r}, "
            f"local_tasks_dir={str(FIXTURES)!r}, show_progress=False)"
        )
        reply, elapsed = _interrupt_cell(
            manager, client, cell, lambda: result_path(runs, meta, TASKS[0]).is_file()
        )
        assert elapsed < STOP_WITHIN and reply["ename"] == "RunInterrupted", reply
        assert "1 evaluation(s) finished, 1 interrupted" in reply["evalue"]
        _no_partial_files(runs)
        assert not result_path(runs, meta, TASKS[1]).exists()

        # run_local (2 workers, forked by the kernel) in a cell: both waiting jobs stop
        shutil.rmtree(runs / "results")
        _hold(held, runs, static_model, [TASKS[2]])
        cell = f"run_local(read_plan({str(plan_file)!r}), read_plan({str(plan_file)!r}).jobs, workers=2, show_progress=False)"
        reply, elapsed = _interrupt_cell(
            manager,
            client,
            cell,
            lambda: (
                plan_status(plan)[1].state == "running" and plan_status(plan)[2].state == "running"
            ),
        )
        assert elapsed < STOP_WITHIN and reply["ename"] == "RunInterrupted", reply
        assert "1 job(s) finished, 2 interrupted, 0 not started" in reply["evalue"]
        _no_partial_files(runs)
        assert _states(plan) == ["done", "interrupted", "interrupted"]

        # running the cell again resumes
        _release(held)
        _execute(client, cell)
        assert _states(plan) == ["done"] * 3
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _execute(client, code: str, timeout: float = 300) -> dict:
    reply = client.execute_interactive(code, timeout=timeout, output_hook=lambda msg: None)
    assert reply["content"]["status"] == "ok", reply["content"]
    return reply["content"]


def _interrupt_cell(manager, client, code: str, underway: Callable[[], bool]) -> tuple[dict, float]:
    # stop_on_error=False: after an error reply ipykernel aborts the execute requests that
    # reach it before it posts itself a "stop aborting" message (ipykernel 7's
    # _abort_queues), so the rerun sent at once could be aborted; a person's rerun comes
    # later. It changes nothing else about the cell.
    msg_id = client.execute(code, stop_on_error=False)
    wait_for(underway, "the cell to be underway")
    time.sleep(0.5)
    manager.interrupt_kernel()
    sent = time.monotonic()
    while True:
        reply = client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"], time.monotonic() - sent
