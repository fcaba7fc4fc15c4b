"""Benchmark: code of our own beside the library that does the same job (issue 42's rows).

Each row is measured side by side, as the median of ``--repeats`` runs:

* **lazy imports**: ``import analysis`` and ``static-rteb --help`` (new processes) with
  ``lazy_loader`` (this checkout) and with the hand-made loader it replaced (``--baseline``:
  that commit's ``analysis/``, extracted into a temporary folder put first on ``PYTHONPATH``);
* **Friedman/Nemenyi and the p-value adjustment**: ``friedman_nemenyi`` (scipy's
  ``friedmanchisquare`` and scikit-posthocs' ``posthoc_nemenyi_friedman`` here) against
  the baseline's hand-written kernel, on tables of a leaderboard's size; our
  ``adjust_pvalues`` against ``scipy.stats.false_discovery_control`` (Benjamini-Hochberg;
  scipy has no Holm), on the p-values of every pair of 10 and 100 models; each with the
  largest absolute difference of their numbers;
* **a notebook batch**: the same small notebooks run by ``static-rteb batch`` and by
  papermill's own command line (``jupytext --to ipynb`` then ``papermill ... -p``), one
  process each, as a person would type them: the batch's overhead per notebook.

Writes ``benchmarks/results/ours_vs_library.md`` (``docs/development.md`` includes it).

Usage (from the repository root):

    python benchmarks/bench_ours_vs_library.py --baseline d58da1b --repeats 5 --batch-repeats 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

#: Run in a fresh interpreter (this checkout or the baseline's ``analysis``): seconds per call
#: and the values, for ``friedman_nemenyi`` and for ``adjust_pvalues`` beside scipy's BH.
KERNELS = r"""
import json, sys, time, warnings
import numpy as np, pandas as pd
from scipy.stats import false_discovery_control
import analysis.stats as stats
warnings.simplefilter("ignore")
out = {"where": stats.__file__}

def timed(key, call):
    call()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.5:
        value = call(); n += 1
    out[key] = [(time.perf_counter() - start) / n, value]

for tasks, models in ((13, 10), (41, 100)):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(tasks, models)) + np.linspace(0, 1, models),
                     columns=[f"m{i}" for i in range(models)])
    p = rng.uniform(size=models * (models - 1) // 2) ** 3
    timed(f"friedman {tasks} {models}",
          lambda: [float(v) for v in (stats.friedman_nemenyi(X).statistic,
                                      *stats.friedman_nemenyi(X).pvalues.to_numpy().ravel())])
    timed(f"bh ours {len(p)}", lambda: stats.adjust_pvalues(p, adjustment="bh").tolist())
    timed(f"bh scipy {len(p)}", lambda: false_discovery_control(p).tolist())
print(json.dumps(out))
"""

NOTEBOOK = """# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% tags=["parameters"]
value: int = 1  # a number

# %%
print(value * 2)
"""


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--baseline", default="d58da1b", help="the commit with our own code")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each command")
    parser.add_argument("--batch-repeats", type=int, default=1, help="runs of each batch")
    parser.add_argument("--notebooks", type=int, default=3, help="notebooks in the batch")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/ours_vs_library.md")
    return parser.parse_args(argv)


def timed(command: Sequence[str], env: dict[str, str], cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def median_of(repeats: int, command: Sequence[str], where: Path) -> float:
    env = {**os.environ, "PYTHONPATH": ""}
    return statistics.median(timed(command, env, where) for _ in range(repeats))


def imported_from(where: Path) -> str:
    """The ``analysis`` a process started in ``where`` imports (its folder comes first)."""
    code = "import analysis; print(analysis.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=where, capture_output=True, text=True)
    return out.stdout.strip()


def places(baseline: Path, empty: Path) -> dict[str, Path]:
    """Where each side's processes start: the baseline's folder, or one without ``analysis/``.

    A process imports the ``analysis`` of its working folder first (``sys.path[0]``), so the
    baseline runs in its extracted copy and this checkout's (the editable install) in an
    empty folder.
    """
    found = {label: imported_from(where) for label, where in ((0, baseline), (1, empty))}
    assert found[0].startswith(str(baseline)) and not found[1].startswith(str(baseline)), found
    return {"ours (baseline)": baseline, "library (this checkout)": empty}


def lazy_rows(envs: dict[str, Path], repeats: int) -> list[str]:
    rows = ["| command | " + " | ".join(envs) + " | ratio |", "|---|---|---|---|"]
    for label, command in (
        ("`python -c 'import analysis'`", [sys.executable, "-c", "import analysis"]),
        ("`static-rteb --help`", [sys.executable, "-m", "analysis.cli", "--help"]),
        ("`static-rteb batch --help`", [sys.executable, "-m", "analysis.cli", "batch", "--help"]),
    ):
        ours, lib = (median_of(repeats, command, where) for where in envs.values())
        rows.append(f"| {label} | {ours:.3f} s | {lib:.3f} s | {lib / ours:.2f} |")
    return rows


def kernel_rows(envs: dict[str, Path]) -> list[str]:
    found = []
    for where in envs.values():
        out = subprocess.run(
            [sys.executable, "-c", KERNELS], cwd=where, check=True, capture_output=True
        )
        found.append(json.loads(out.stdout))
    before, here = found
    assert before["where"] != here["where"], "the baseline was not imported"
    pairs = [
        (f"`friedman_nemenyi`, {k.split()[1]} tasks x {k.split()[2]} models", before[k], here[k])
        for k in here
        if k.startswith("friedman")
    ] + [
        (
            f"Benjamini-Hochberg, {k.split()[2]} p-values (scipy's `false_discovery_control`)",
            here[k],
            here[k.replace("ours", "scipy")],
        )
        for k in here
        if k.startswith("bh ours")
    ]
    rows = [
        "| call | ours | library | ratio | largest difference |",
        "|---|---|---|---|---|",
    ]
    for what, (t_ours, v_ours), (t_lib, v_lib) in pairs:
        diff = max(abs(x - y) for x, y in zip(v_ours, v_lib, strict=True))
        rows.append(
            f"| {what} | {1e3 * t_ours:.3g} ms | {1e3 * t_lib:.3g} ms | "
            f"{t_lib / t_ours:.2f} | {diff:.1e} |"
        )
    return rows


def batch_rows(repeats: int, n: int) -> list[str]:
    env = {**os.environ, "PYTHONPATH": ""}
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        root = Path(tmp)
        for folder in ("notebooks", "params", "p"):
            (root / folder).mkdir()
        names = [f"nb{i}" for i in range(n)]
        for name in names:
            (root / "notebooks" / f"{name}.py").write_text(NOTEBOOK)
        (root / "params" / "bench.yaml").write_text("_all:\n  value: 2\n")

        def ours() -> float:
            command = [sys.executable, "-m", "analysis.cli", "batch", "--profile", "bench"]
            return timed([*command, "--root", str(root), "--build-dir", str(root / "b")], env)

        def papermill() -> float:
            total = 0.0
            for name in names:
                ipynb = root / "p" / f"{name}.ipynb"
                total += timed(
                    [str(BIN / "jupytext"), "--to", "ipynb", "-o", str(ipynb),
                     str(root / "notebooks" / f"{name}.py")], env)  # fmt: skip
                total += timed(
                    [str(BIN / "papermill"), str(ipynb), str(ipynb.with_suffix(".out.ipynb")),
                     "-p", "value", "2", "--cwd", str(root), "-k", "python3"], env)  # fmt: skip
            return total

        ours_s = statistics.median(ours() for _ in range(repeats))
        theirs = statistics.median(papermill() for _ in range(repeats))
    return [
        "| the same notebooks | `static-rteb batch` | papermill's CLI (jupytext + papermill) | ratio |",
        "|---|---|---|---|",
        f"| {n} notebooks, wall time | {ours_s:.1f} s | {theirs:.1f} s | {ours_s / theirs:.2f} |",
        f"| per notebook | {ours_s / n:.1f} s | {theirs / n:.1f} s | |",
    ]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as tmp:
        archive = subprocess.run(
            ["git", "archive", args.baseline, "analysis"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        (Path(tmp) / "empty").mkdir()
        envs = places(Path(tmp), Path(tmp) / "empty")
        lazy = lazy_rows(envs, args.repeats)
        kernels = kernel_rows(envs)
    batch = batch_rows(args.batch_repeats, args.notebooks)
    load = os.getloadavg()
    text = "\n".join(
        [
            "# Our own code beside the library's way",
            "",
            f"Written by `benchmarks/bench_ours_vs_library.py --baseline {args.baseline} "
            f"--repeats {args.repeats} --batch-repeats {args.batch_repeats}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
            f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end. Medians of "
            f"{args.repeats} runs (the batches: {args.batch_repeats}); ratio = library / ours (the issue replaces where it is at most "
            "1.5). Timings on a shared machine vary by tens of percent from run to run.",
            "",
            "## Lazy imports: lazy_loader (SPEC 1) against core/lazy.py",
            "",
            *lazy,
            "",
            "## Friedman/Nemenyi and the p-value adjustment: scipy and scikit-posthocs",
            "",
            *kernels,
            "",
            "## A notebook batch: static-rteb batch against papermill's own command line",
            "",
            *batch,
            "",
        ]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
