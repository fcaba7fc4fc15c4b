"""Measure the statistics by simulation and write the acceptance table of README_stats.md.

Runs the simulations of ``analysis.stats._simulate`` (the ones ``tests/test_stats_simulation.py``
runs with few replicates) with many replicates, fixed seeds, and writes
``benchmarks/README_stats.md``: every number in it comes from this run (or, for speed,
from ``benchmarks/results/pairwise.md`` written by ``benchmarks/bench_pairwise.py``;
for rank intervals and benchmark agreement, from the rank helper's file
``benchmarks/results/rank_validation.md`` when present).

Usage (from the repository root; about 5 minutes on 2 busy cores):

    python benchmarks/bench_stats_validation.py
    python benchmarks/bench_stats_validation.py --scale 0.1 --out /tmp/README_stats.md  # quick
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import scipy

from analysis.stats._simulate import (
    Rate,
    agreement_with_ties,
    gap_coverage,
    group_contrast_rates,
    maxt_null_rate,
    paired_rates,
    pairwise_joint_coverage,
    pairwise_null_rates,
)

ROOT = Path(__file__).resolve().parents[1]
SIZES = (6, 7, 13, 30)


def fmt(rate: Rate) -> str:
    return f"{rate.value:.4f} ± {rate.se:.4f}"


def row(quantity: str, target: str, measured: str, ok: bool | None) -> str:
    verdict = "" if ok is None else ("met" if ok else "**not met**")
    return f"| {quantity} | {target} | {measured} | {verdict} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every replicate count")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "README_stats.md")
    args = parser.parse_args()

    def reps(k: int) -> int:
        return max(20, int(k * args.scale))

    started = time.perf_counter()
    lines: list[str] = []
    table: list[str] = []

    # 1. paired_bootstrap: coverage and type-I (symmetric), agreement, skewed nulls
    paired = {
        (n, d, m): paired_rates(n, d, reps(10_000), seed=1000 + n, method=m, n_resamples=5000)
        for n in SIZES
        for d in ("normal", "t3", "exponential", "lognormal")
        for m in ("inversion",)
    }
    for n in SIZES:
        paired[(n, "normal", "percentile")] = paired_rates(
            n, "normal", reps(10_000), seed=1000 + n, method="percentile", n_resamples=5000
        )
    for d in ("normal", "t3"):
        cov = [paired[(n, d, "inversion")]["coverage"] for n in SIZES]
        ok = all(0.93 - 2 * c.se <= c.value <= 0.975 + 2 * c.se for c in cov)
        table.append(
            row(
                f"coverage of `paired_bootstrap`'s 95% interval, {d}, n = 6, 7, 13, 30",
                "0.93 to 0.975",
                ", ".join(f"{c.value:.4f}" for c in cov),
                ok,
            )
        )
    bad, total = agreement_with_ties(range(2, 21), reps(1000), seed=7)
    agree_all = sum(
        v["agree"].value * v["agree"].reps for k, v in paired.items() if k[2] == "inversion"
    )
    agree_total = sum(v["agree"].reps for k, v in paired.items() if k[2] == "inversion")
    table.append(
        row(
            "interval excludes 0 ⇔ p < 0.05",
            "100% of simulated data sets, n ≤ 20",
            f"{total - bad:,} of {total:,} (n = 2..20, ties, constant differences); "
            f"{agree_all:,.0f} of {agree_total:,} in the coverage runs",
            bad == 0 and agree_all == agree_total,
        )
    )
    for d in ("normal", "t3"):
        t1 = [paired[(n, d, "inversion")]["type1"] for n in SIZES]
        table.append(
            row(
                f"type-I error, symmetric null ({d}), n = 6, 7, 13, 30",
                "≤ 0.06",
                ", ".join(f"{r.value:.4f}" for r in t1),
                all(r.value <= 0.06 + 2 * r.se for r in t1),
            )
        )
    for d in ("exponential", "lognormal"):
        t1 = [paired[(n, d, "inversion")]["type1"] for n in SIZES]
        table.append(
            row(
                f"type-I error, skewed null ({d}, mean 0), n = 6, 7, 13, 30",
                "measured and documented",
                ", ".join(f"{r.value:.4f}" for r in t1),
                None,
            )
        )

    # 2. pairwise family-wise error
    fw = pairwise_null_rates(10, 13, reps(4000), seed=11)
    fw_t3 = pairwise_null_rates(10, 13, reps(2000), seed=12, dist="t3")
    kernel = maxt_null_rate(10, 13, reps(10_000), seed=14)
    exact_size = (math.ceil(0.05 * 2**12) - 1) / 2**12
    for key, label in (("holm", "Holm"), ("maxT", "max-T")):
        extra = (
            f"; max-T kernel alone, {kernel.reps:,} more data sets: {fmt(kernel)} (exact size "
            f"of the uncentred test: {exact_size:.4f})"
            if key == "maxT"
            else ""
        )
        table.append(
            row(
                f"family-wise error, pairwise table, 10 models × 13 tasks, global null ({label})",
                "≤ 0.05",
                f"{fmt(fw[key])} (normal); {fmt(fw_t3[key])} (t3){extra}",
                fw[key].value <= 0.05 + 2 * fw[key].se
                and fw_t3[key].value <= 0.05 + 2 * fw_t3[key].se
                and (key != "maxT" or kernel.value <= 0.05 + 2 * kernel.se),
            )
        )
    table.append(
        row(
            "share of null data sets in which any simultaneous (max-T) interval excludes 0",
            "≤ 0.05",
            f"{fmt(fw['interval'])} (normal); {fmt(fw_t3['interval'])} (t3)",
            fw["interval"].value <= 0.05 + 2 * fw["interval"].se,
        )
    )

    joint = {
        spread: pairwise_joint_coverage(10, 13, reps(1000), seed=13, spread=spread)
        for spread in (1.0, 3.0)
    }
    table.append(
        row(
            "joint coverage of the max-T simultaneous 95% intervals when models differ "
            "(10 models × 13 tasks, true means spread over 1 and 3 noise SDs)",
            "≈ 0.95 (not in the issue; measured)",
            "; ".join(f"{fmt(c)} (spread {s:g})" for s, c in joint.items()),
            None,
        )
    )

    # 3. relative public-private gap
    gaps = {d: gap_coverage(7, 6, 20, d, reps(10_000), seed=21) for d in ("normal", "t3")}
    table.append(
        row(
            "coverage of the relative gap's 95% interval at 7 public / 6 private tasks",
            "≥ 0.93",
            "; ".join(f"{gaps[d].value:.4f} ({d})" for d in gaps),
            all(g.value >= 0.93 - 2 * g.se for g in gaps.values()),
        )
    )

    # 4. group contrasts
    groups = {
        (na, nb): group_contrast_rates(na, nb, "normal", reps(1000), seed=na * 100 + nb)
        for na, nb in ((3, 8), (5, 5), (10, 30))
    }
    table.append(
        row(
            "group contrast: type-I error / coverage / interval⇔p agreement (3 vs 8, 5 vs 5, "
            "10 vs 30 models)",
            "≤ 0.05 / ≥ 0.95 (exact) / 100%",
            "; ".join(
                f"{g['type1'].value:.3f} / {g['coverage'].value:.3f} / {g['agree'].value:.3f}"
                for g in groups.values()
            ),
            all(
                g["type1"].value <= 0.05 + 2 * g["type1"].se and g["agree"].value == 1.0
                for g in groups.values()
            ),
        )
    )

    # 5. speed (from bench_pairwise) and rank rows (from the rank helper)
    speed = ROOT / "benchmarks" / "results" / "pairwise.md"
    if speed.exists():
        text = speed.read_text()
        med = [ln for ln in text.splitlines() if "adjustment='maxT'), all pairs (median)" in ln]
        ratio = [ln for ln in text.splitlines() if "ratio scipy loop / ours (maxT)" in ln]
        if med and ratio:
            seconds = float(med[0].split("|")[2])
            table.append(
                row(
                    "all pairs, 80 models × 13 tasks, 10,000 resamples, incl. the new intervals",
                    "< 2 s, ratio against scipy in one run",
                    f"{seconds:.2f} s (max-T with simultaneous intervals); "
                    f"{ratio[0].split('|')[3].strip()} faster than a scipy loop "
                    "(`benchmarks/results/pairwise.md`)",
                    seconds < 2.0,
                )
            )
    ranks = ROOT / "benchmarks" / "results" / "rank_validation.md"
    rank_rows = ""
    if ranks.exists():  # headings above level 3 move down, under this file's section
        rank_rows = "\n".join(
            f"##{line}" if line.startswith(("# ", "## ")) else line
            for line in ranks.read_text().strip().splitlines()
        )

    elapsed = time.perf_counter() - started
    percentile = ", ".join(
        f"{paired[(n, 'normal', 'percentile')]['coverage'].value:.4f}" for n in SIZES
    )
    pct_agree = ", ".join(
        f"{paired[(n, 'normal', 'percentile')]['agree'].value:.4f}" for n in SIZES
    )
    n_rep = reps(10_000)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines += [
        "# Statistics: acceptance measured by simulation",
        "",
        f"<!-- generated by benchmarks/bench_stats_validation.py "
        f"({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, scale {args.scale}); do not edit by hand -->",
        "",
        "Every number below is measured by `benchmarks/bench_stats_validation.py` (seeded "
        "simulations through the same kernels as the public functions, "
        "`analysis/stats/_simulate.py`); `tests/test_stats_simulation.py` runs the same "
        "simulations with fewer replicates and Monte-Carlo-SE tolerances. Rates are "
        "shown as value ± Monte-Carlo standard error where useful; a target is "
        '"met" when the value is within 2 SE of it.',
        "",
        "| quantity | target | measured | |",
        "|---|---|---|---|",
        *table,
        "",
        "## Details",
        "",
        f"* Paired test: {n_rep:,} data sets per (n, distribution); exact sign-flip test for "
        f"n ≤ 20 (all 2^n patterns), Monte-Carlo with 5,000 patterns at n = 30. For "
        f"comparison, the old percentile bootstrap interval covers {percentile} (normal, "
        f"n = 6, 7, 13, 30) and agrees with the test's decision in {pct_agree} of data sets.",
        "* Symmetric nulls: differences normal or t with 3 df, centred at 0. Skewed nulls: "
        "centred exponential (skewness 2) and centred lognormal(0, 1) (skewness 6.2): the "
        "mean is 0 but the differences are not symmetric, which the sign-flip test (of "
        "exchangeability) can detect; the type-I error above is the rate at which it does.",
        f"* Family-wise error: {fw['maxT'].reps:,} data sets (normal) and {fw_t3['maxT'].reps:,} "
        "(t3) of 10 models × 13 tasks, scores = task effect + i.i.d. noise; BH (screening, "
        f"FDR = FWER under the global null): {fmt(fw['bh'])}.",
        f"* Relative gap: {gaps['normal'].reps:,} model-intervals (data sets × 20 models), "
        "scores = task difficulty + model effect + model-specific private effect + noise "
        "whose scale differs by model (0.5 to 2) and side.",
        f"* Group contrasts: {groups[(3, 8)]['type1'].reps:,} data sets per size, normal values.",
        "",
    ]
    if rank_rows:
        lines += ["## Rank intervals and benchmark agreement", "", rank_rows, ""]
    lines += [
        f"Run time {elapsed:.0f} s. Machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, 1-min load average at the end {load:.2f}; Python "
        f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}.",
        "",
        "Commands: `python benchmarks/bench_pairwise.py` (speed), then "
        "`python benchmarks/bench_stats_validation.py"
        + ("" if args.scale == 1.0 else f" --scale {args.scale}")
        + "`.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.write_text(text)
    print(f"written to {args.out}")
    assert math.isfinite(elapsed)


if __name__ == "__main__":
    main()
