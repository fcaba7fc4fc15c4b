"""analysis.runs.locks: one writer per (model, revision, task); a dead holder holds nothing.

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
from pathlib import Path

import pytest
from filelock import Timeout

from analysis.runs.locks import Holder, file_lock, lock_holder, lock_path
from tests._run_fixtures import FIXTURE_TASKS, FIXTURES, REPO, distilled_static_model


def test_lock_is_exclusive_names_its_holder_and_is_released(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "a.lock"
    first = file_lock(path)
    first.acquire(blocking=False)
    assert lock_holder(path) == Holder(socket.gethostname(), os.getpid())
    with pytest.raises(Timeout):
        file_lock(path).acquire(blocking=False)
    with pytest.raises(Timeout):
        file_lock(path, poll_interval=0.05).acquire(timeout=0.3)
    first.release()
    assert lock_holder(path) is None
    with file_lock(path):
        assert lock_holder(path) == Holder(socket.gethostname(), os.getpid())
    assert lock_holder(path) is None


def test_status_names_the_holder_of_a_jobs_task(tmp_path: Path) -> None:
    """``static-rteb status`` asks the same: who holds a task of the job, if anyone."""
    from analysis.runs.plan import Job
    from analysis.runs.status import lock_holder as job_lock_holder

    job = Job("j", "m", "org/m", "r1", None, None, ("T", "U"), str(tmp_path))
    assert job_lock_holder(job) is None
    with file_lock(job.lock_files()[1]):
        assert job_lock_holder(job) == ("U", Holder(socket.gethostname(), os.getpid()))
    assert job_lock_holder(job) is None


WORKER = textwrap.dedent(
    """
    import os, sys, time
    from analysis.runs.locks import file_lock
    path, log, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for _ in range(rounds):
        with file_lock(path, poll_interval=0.005):
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
    from analysis.runs.locks import file_lock
    lock = file_lock(sys.argv[1])
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
    assert lock_holder(path) == Holder(socket.gethostname(), holder.pid)
    with pytest.raises(Timeout):
        file_lock(path).acquire(blocking=False)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    assert lock_holder(path) is None  # released by the kernel: nothing to break
    with file_lock(path, poll_interval=0.05).acquire(timeout=10):
        pass


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
    outputs = [json.loads(w.communicate(timeout=900)[0].strip().splitlines()[-1]) for w in workers]
    assert [w.returncode for w in workers] == [0, 0]
    for task in tasks:
        assert sorted(out[task] for out in outputs) == ["cached", "ran"], (task, outputs)
    meta = load_model(static_model_dir).mteb_model_meta
    folder = result_path(tmp_path, meta, tasks[0]).parent
    settings = [json.loads(line)["task"] for line in (folder / "run_settings.jsonl").open()]
    assert sorted(settings) == tasks, "each run's settings line is kept, none overwritten"
    for task in tasks:
        assert lock_holder(lock_path(tmp_path, meta, task)) is None
