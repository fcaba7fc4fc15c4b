"""analysis.runs.locks: one writer per (model, revision, task), stale locks broken.

Real processes, not threads: the lock must hold between workers that share nothing but
the results folder.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from analysis.runs.locks import (
    FileLock,
    LockInfo,
    lock_is_held,
    lock_path,
    pid_alive,
    process_start,
    read_lock,
)
from tests._run_fixtures import FIXTURE_TASKS, FIXTURES, REPO, distilled_static_model


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _write_lock(
    path: Path, *, host: str, pid: int, age: float = 0.0, pid_start: int | None = None
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    info = {"host": host, "pid": pid, "pid_start": pid_start, "started": time.time(), "token": "t"}
    path.write_text(json.dumps(info))
    if age:
        then = time.time() - age
        os.utime(path, (then, then))


def test_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    first = FileLock(path)
    assert first.acquire(blocking=False)
    holder = read_lock(path)
    assert isinstance(holder, LockInfo)
    assert (holder.host, holder.pid) == (socket.gethostname(), os.getpid())
    assert not FileLock(path).acquire(blocking=False)
    assert not FileLock(path, poll=0.05).acquire(timeout=0.3)
    first.release()
    assert not path.exists()
    with FileLock(path) as second:
        assert read_lock(path).token == second.info.token
    assert not path.exists()


def test_lock_of_dead_process_on_this_host_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "dead.lock"
    _write_lock(path, host=socket.gethostname(), pid=_dead_pid())
    lock = FileLock(path)
    assert lock.acquire(blocking=False)
    assert read_lock(path).pid == os.getpid()
    lock.release()


def test_lock_of_live_process_is_kept_and_reused_pid_is_not(tmp_path: Path) -> None:
    path = tmp_path / "live.lock"
    _write_lock(path, host=socket.gethostname(), pid=os.getppid())
    assert not FileLock(path).acquire(blocking=False)
    # same pid, but a process that started at another time: pid reuse, so stale
    info = json.loads(path.read_text())
    info["pid_start"] = (process_start(os.getppid()) or 0) + 1
    path.write_text(json.dumps(info))
    assert not pid_alive(os.getppid(), info["pid_start"])
    lock = FileLock(path)
    assert lock.acquire(blocking=False)
    lock.release()


def test_lock_of_other_host_is_stale_only_after_timeout(tmp_path: Path) -> None:
    path = tmp_path / "remote.lock"
    _write_lock(path, host="some-other-node", pid=1, age=5.0)
    assert not FileLock(path, stale_after=60.0, heartbeat=1.0).acquire(blocking=False)
    lock = FileLock(path, stale_after=2.0, heartbeat=0.5)
    assert lock.acquire(blocking=False)
    lock.release()


@pytest.mark.parametrize("verified", [True, False], ids=["start-recorded", "start-unknown"])
def test_breaking_and_status_share_one_liveness_rule(tmp_path: Path, verified: bool) -> None:
    """A live process of this host whose heartbeat is late (stopped, or a suspended laptop).

    With its start time recorded the process is verifiably the holder: the lock is held
    (not broken) and status names it. Without one the pid may be reused: the heartbeat
    decides, and the lock is stale for both.
    """
    from analysis.runs.plan import Job
    from analysis.runs.status import lock_holder

    job = Job("j", "m", "org/m", "r1", None, None, ("T",), str(tmp_path))
    (path,) = job.lock_files()
    start = process_start(os.getppid()) if verified else None
    if verified and start is None:
        pytest.skip("no /proc here: start times cannot be read")
    _write_lock(path, host=socket.gethostname(), pid=os.getppid(), age=400.0, pid_start=start)
    assert lock_is_held(path, read_lock(path)) is verified
    assert (lock_holder(job) is not None) is verified
    lock = FileLock(path)
    assert lock.acquire(blocking=False) is not verified
    lock.release()


def test_heartbeat_keeps_a_held_lock_fresh(tmp_path: Path) -> None:
    path = tmp_path / "beat.lock"
    with FileLock(path, stale_after=1.0, heartbeat=0.1):
        time.sleep(1.5)
        assert time.time() - path.stat().st_mtime < 1.0
        # another host's view: only age counts, and the file is fresh
        other = FileLock(path, stale_after=1.0, heartbeat=0.1)
        assert not other.is_stale(None)


def test_unreadable_lock_file_counts_as_held_until_old(tmp_path: Path) -> None:
    path = tmp_path / "empty.lock"
    path.write_text("")  # a holder between open() and write(), or one that died there
    assert not FileLock(path, stale_after=5.0, heartbeat=1.0).acquire(blocking=False)
    then = time.time() - 10
    os.utime(path, (then, then))
    lock = FileLock(path, stale_after=5.0, heartbeat=1.0)
    assert lock.acquire(blocking=False)
    lock.release()


def test_invalid_options_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="heartbeat"):
        FileLock(tmp_path / "x.lock", stale_after=1.0, heartbeat=2.0)
    with pytest.raises(ValueError, match="poll"):
        FileLock(tmp_path / "x.lock", poll=0)


WORKER = textwrap.dedent(
    """
    import os, sys, time
    from analysis.runs.locks import FileLock
    path, log, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for _ in range(rounds):
        with FileLock(path, poll=0.005):
            with open(log, "a") as f:
                f.write(f"start {os.getpid()}\\n")
            time.sleep(0.01)
            with open(log, "a") as f:
                f.write(f"end {os.getpid()}\\n")
    """
)


@pytest.mark.slow
def test_concurrent_processes_never_hold_the_lock_together(tmp_path: Path) -> None:
    lock, log = tmp_path / "shared.lock", tmp_path / "log.txt"
    workers = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(lock), str(log), "15"], cwd=REPO)
        for _ in range(4)
    ]
    assert [w.wait(timeout=120) for w in workers] == [0] * 4
    lines = log.read_text().splitlines()
    assert len(lines) == 4 * 15 * 2
    for start, end in zip(lines[::2], lines[1::2], strict=True):
        assert start.startswith("start ") and end == "end " + start.split()[1], (start, end)


HOLDER = textwrap.dedent(
    """
    import sys, time
    from analysis.runs.locks import FileLock
    lock = FileLock(sys.argv[1])
    lock.acquire()
    print("held", flush=True)
    time.sleep(600)
    """
)


def test_lock_of_killed_process_does_not_block_a_rerun(tmp_path: Path) -> None:
    path = tmp_path / "killed.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline().strip() == "held"
    assert not FileLock(path).acquire(blocking=False)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    lock = FileLock(path, poll=0.05)
    assert lock.acquire(timeout=10)
    lock.release()


RUNNER = textwrap.dedent(
    """
    import json, sys
    from analysis.runs.runner import run_evaluation
    model, results, local, tasks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    summary = run_evaluation([model], tasks, results_dir=results, local_tasks_dir=local,
                             show_progress=False)
    print(json.dumps(dict(zip(summary["task"], summary["status"]))))
    """
)


@pytest.fixture(scope="module")
def static_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return distilled_static_model(tmp_path_factory)


@pytest.mark.slow
def test_two_workers_on_the_same_tasks_run_each_once(
    static_model_dir: Path, tmp_path: Path
) -> None:
    from analysis.runs.models import load_model
    from analysis.runs.runner import result_path

    tasks = sorted(FIXTURE_TASKS.values())
    orders = [tasks, tasks[::-1]]
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(static_model_dir), str(tmp_path), str(FIXTURES), *o],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        for o in orders
    ]
    outputs = [json.loads(w.communicate(timeout=300)[0].strip().splitlines()[-1]) for w in workers]
    assert [w.returncode for w in workers] == [0, 0]
    for task in tasks:
        assert sorted(out[task] for out in outputs) == ["cached", "ran"], (task, outputs)
    meta = load_model(static_model_dir).mteb_model_meta
    folder = result_path(tmp_path, meta, tasks[0]).parent
    settings = [json.loads(line)["task"] for line in (folder / "run_settings.jsonl").open()]
    assert sorted(settings) == tasks, "each run's settings line is kept, none overwritten"
    for task in tasks:
        assert not lock_path(tmp_path, meta, task).exists()
