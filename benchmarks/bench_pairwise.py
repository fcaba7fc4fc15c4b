"""Benchmark: pairwise_significance (all pairs, with intervals) vs a loop of scipy over pairs.

Synthetic scores (fixed seed): n_tasks x n_models, every pair of models. Ours: one call
per adjustment (max-T with simultaneous intervals, Holm, BH), each computing the exact
sign-flip p-value of every pair, the paired t-test, d_z, wins/ties/losses, the
adjusted p-values and the intervals that match the adjustment. The obvious
alternative: a Python loop over pairs of ``scipy.stats.permutation_test``
(``permutation_type="samples"``, the same exact sign-flip p-value) plus
``scipy.stats.ttest_rel``; it gives neither the max-T adjustment nor any interval, so
the ratio is a lower bound. scipy is timed on a random sample of pairs, in the same
process, and extrapolated to all pairs.

Usage (from the repository root):

    python benchmarks/bench_pairwise.py            # 80 models x 13 tasks x 10,000 resamples
    python benchmarks/bench_pairwise.py --models 20 --scipy-pairs 10 --out /tmp/x.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
import scipy.stats as st

from analysis.stats import pairwise_significance

ROOT = Path(__file__).resolve().parents[1]
ADJUSTMENTS = ("maxT", "holm", "bh")


def mean_diff(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


def synthetic_scores(n_tasks: int, n_models: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    task = rng.uniform(0.3, 0.8, size=(n_tasks, 1))
    skill = rng.normal(0, 0.03, size=n_models)
    values = np.clip(task + skill + rng.normal(0, 0.02, size=(n_tasks, n_models)), 0, 1)
    return pd.DataFrame(values, columns=[f"model-{k:03d}" for k in range(n_models)])


def time_ours(scores: pd.DataFrame, adjustment: str, n_resamples: int, repeats: int, seed: int):
    # Holm over 3,160 pairs cannot flag anything at 13 tasks, and says so
    warnings.filterwarnings("ignore", message="pairwise_significance: no pair can be significant")
    times, out = [], None
    for r in range(repeats):
        start = time.perf_counter()
        out = pairwise_significance(
            scores, adjustment=adjustment, n_resamples=n_resamples, rng=seed + r
        )
        times.append(time.perf_counter() - start)
    return times, out


def time_scipy(scores, pairs, n_resamples, seed):
    rng = np.random.default_rng(seed)
    pvalues, start = [], time.perf_counter()
    n = len(scores)
    for a, b in pairs:
        x, y = scores[a].to_numpy(), scores[b].to_numpy()
        res = st.permutation_test(
            (x, y),
            mean_diff,
            permutation_type="samples",
            vectorized=True,
            n_resamples=np.inf if 2**n <= n_resamples else n_resamples,
            rng=rng,
        )
        st.ttest_rel(x, y)
        pvalues.append(res.pvalue)
    return (time.perf_counter() - start) / len(pairs), np.array(pvalues)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=80)
    parser.add_argument("--tasks", type=int, default=13)
    parser.add_argument("--n-resamples", type=int, default=10_000)
    parser.add_argument("--scipy-pairs", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "pairwise.md")
    args = parser.parse_args()

    scores = synthetic_scores(args.tasks, args.models, args.seed)
    n_pairs = args.models * (args.models - 1) // 2
    runs = {
        adj: time_ours(scores, adj, args.n_resamples, args.repeats, args.seed)
        for adj in ADJUSTMENTS
    }
    result = runs["maxT"][1]
    ours = result.table

    rng = np.random.default_rng(args.seed + 1)
    sample = np.sort(rng.choice(n_pairs, size=min(args.scipy_pairs, n_pairs), replace=False))
    rows = ours.iloc[sample]
    pairs = list(zip(rows["model_a"], rows["model_b"], strict=True))
    per_pair, ref_p = time_scipy(scores, pairs, args.n_resamples, args.seed)
    extrapolated = per_pair * n_pairs
    max_p_diff = float(np.max(np.abs(rows["pvalue"].to_numpy() - ref_p)))

    table = []
    for adj in ADJUSTMENTS:
        times = runs[adj][0]
        med = statistics.median(times)
        table.append((f"pairwise_significance(adjustment={adj!r}), all pairs (median)", med, ""))
        table.append((f"  first run ({adj})", times[0], ""))
        table.append((f"  ratio scipy loop / ours ({adj})", None, f"{extrapolated / med:,.0f}x"))
    table += [
        ("scipy permutation_test + ttest_rel, per pair", per_pair, ""),
        ("scipy permutation_test + ttest_rel, extrapolated to all pairs", extrapolated, ""),
    ]
    n_sig = int(ours["significant"].sum())
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"# pairwise_significance benchmark ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        f"{args.models} models x {args.tasks} tasks, {n_pairs:,} pairs; {result.method}; "
        f"every run includes the intervals matching its adjustment (max-T: "
        f"{result.interval}). scipy timed on {len(pairs)} random pairs and "
        f"extrapolated, in the same process (a busy shared machine: 2 cores, other jobs "
        f"running). Max-T runs: "
        f"{', '.join(f'{t:.3f}' for t in runs['maxT'][0])} s.",
        "",
        "| what | seconds | |",
        "|---|---:|---:|",
        *(
            f"| {what} | {'' if sec is None else f'{sec:.4g}'} | {note} |"
            for what, sec, note in table
        ),
        "",
        f"Largest |p(ours) - p(scipy)| on the sampled pairs: {max_p_diff:.2g} (the same exact "
        f"test). Pairs significant under max-T here: {n_sig} of {n_pairs}.",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"1-min load average at the end {load:.2f}; Python {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}, pandas {pd.__version__}.",
        "",
        "Command: `python benchmarks/bench_pairwise.py"
        + ("" if args.models == 80 else f" --models {args.models}")
        + ("" if args.tasks == 13 else f" --tasks {args.tasks}")
        + ("" if args.n_resamples == 10_000 else f" --n-resamples {args.n_resamples}")
        + "`",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
