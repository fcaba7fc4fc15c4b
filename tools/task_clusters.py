"""Derive near-duplicate task clusters per benchmark from the results, and write them to JSON.

Near-duplicate tasks (two clusterings of the same abstracts, two label sets of the same
utterances, a public dataset and a private re-packaging of it) are not independent
units: a model that does well on one does well on the other, beyond its general
strength. The statistics take them as one unit through ``clusters=``
(:func:`analysis.stats.paired_bootstrap`, :func:`analysis.stats.pairwise_significance`,
:func:`analysis.stats.rank_intervals`, :func:`analysis.stats.compare`), with the
clusters read by :func:`analysis.results.clusters.task_clusters`.

**The rule** (documented in the JSON it writes, and applied to every benchmark alike):

1. scores: the benchmark's tasks x models table, tasks of the ``as-of-post`` pin plus
   those only the ``now`` pin has (``Leaderboard.wide(complete_only=False)``); models with
   a score on at least half of the tasks;
2. each task's scores are standardised over the models that have it (z-scores), so that
   tasks with a wide spread do not define "model strength";
3. a model's general strength is its mean z-score over its tasks; the residual of a task
   is the z-score minus that strength;
4. two tasks' residual correlation is the Pearson correlation of their residuals over the
   models that have both (at least ``--min-models``, else no link);
5. clusters: complete-linkage hierarchical clustering on 1 - correlation, cut at 1 -
   ``--threshold``: every pair of tasks in a cluster has a residual correlation of at
   least the threshold (0.8: the two share at least 64% of their residual variance).

A cluster is labelled by its alphabetically first task; a task in no cluster is its own
label. Usage (from the repository root; about a minute, cached loads):

    python tools/task_clusters.py --results ../shared/mteb-cache
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("MTEB(eng, v2)", "RTEB(beta)", "RTEB(eng, beta)", "MTEB(Multilingual, v2)")
PINS = ("as-of-post", "now")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="../shared/mteb-cache", help="mteb results folder")
    parser.add_argument("--threshold", type=float, default=0.8, help="residual correlation")
    parser.add_argument("--min-models", type=int, default=30, help="models shared by two tasks")
    parser.add_argument("--min-coverage", type=float, default=0.5, help="tasks a model needs")
    parser.add_argument("--benchmarks", nargs="+", default=list(BENCHMARKS))
    parser.add_argument("--out", type=Path, default=ROOT / "analysis" / "results" / "clusters.json")
    return parser.parse_args(argv)


def scores_table(benchmark: str, results: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Tasks x models over both pins (as-of-post rows first), and the provenance."""
    from analysis.results.leaderboard import load_leaderboard

    tables, provenance = [], {}
    for pin in PINS:
        lb = load_leaderboard(benchmark, results=results, pin=pin)
        wide = lb.wide(complete_only=False)
        seen = set().union(*(t.index for t in tables)) if tables else set()
        tables.append(wide.loc[[t for t in wide.index if t not in seen]])
        provenance[pin] = {
            k: lb.provenance.get(k)
            for k in ("task_list", "results_commit", "results_fingerprint", "mteb_version")
        }
    return pd.concat(tables, axis=0), provenance


def residual_correlations(
    scores: pd.DataFrame, min_models: int, min_coverage: float
) -> tuple[pd.DataFrame, int]:
    """Steps 1-4 of the rule: tasks x tasks residual correlations (NaN: too few models)."""
    keep = scores.columns[scores.notna().mean(axis=0) >= min_coverage]
    x = scores[keep]
    z = x.sub(x.mean(axis=1), axis=0).div(x.std(axis=1, ddof=1), axis=0)
    resid = z.sub(z.mean(axis=0), axis=1)
    corr = resid.T.corr(min_periods=min_models)
    return corr, len(keep)


def clusters_from(corr: pd.DataFrame, threshold: float) -> list[list[str]]:
    """Step 5: complete linkage on 1 - r, cut at 1 - threshold; clusters of 2+ tasks."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    tasks = list(corr.index)
    dist = (1.0 - corr.to_numpy()).copy()
    dist[np.isnan(dist)] = 2.0  # no link without enough shared models
    np.fill_diagonal(dist, 0.0)
    dist = (dist + dist.T) / 2.0
    labels = fcluster(
        linkage(squareform(dist, checks=False), method="complete"),
        t=1.0 - threshold,
        criterion="distance",
    )
    groups: dict[int, list[str]] = {}
    for task, label in zip(tasks, labels, strict=True):
        groups.setdefault(int(label), []).append(task)
    return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=lambda g: g[0])


def benchmark_entry(benchmark: str, args: argparse.Namespace) -> dict[str, Any]:
    scores, provenance = scores_table(benchmark, args.results)
    corr, n_models = residual_correlations(scores, args.min_models, args.min_coverage)
    groups = clusters_from(corr, args.threshold)
    label = {t: t for t in scores.index}
    described = []
    for members in groups:
        sub = corr.loc[members, members].to_numpy()
        pairs = sub[np.triu_indices(len(members), 1)]
        for t in members:
            label[t] = members[0]
        described.append(
            {
                "label": members[0],
                "tasks": members,
                "min_correlation": round(float(pairs.min()), 4),
                "mean_correlation": round(float(pairs.mean()), 4),
            }
        )
    upper = corr.where(np.triu(np.ones(corr.shape, dtype=bool), 1)).stack()
    near = upper[(upper < args.threshold)].sort_values(ascending=False).head(5)
    return {
        "n_tasks": len(scores),
        "n_models": n_models,
        "pins": provenance,
        "clusters": described,
        "next_highest_correlations": [
            {"tasks": [a, b], "correlation": round(float(r), 4)} for (a, b), r in near.items()
        ],
        "tasks": dict(sorted(label.items())),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from analysis.core.io import atomic_write_text

    entries = {b: benchmark_entry(b, args) for b in args.benchmarks}
    data = {
        "generated_by": "tools/task_clusters.py",
        "command": "python tools/task_clusters.py --results " + str(args.results),
        "generated_at": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "rule": (
            "tasks x models over the as-of-post and now pins; models with a score on at least "
            f"{args.min_coverage:.0%} of the tasks; z-score each task over its models; "
            "residual = z-score minus the model's mean z-score; Pearson correlation of two "
            f"tasks' residuals over the models that have both (at least {args.min_models}); "
            "complete-linkage clustering on 1 - correlation cut at "
            f"{1 - args.threshold:.2f}: every pair in a cluster correlates at least "
            f"{args.threshold}. Label: the alphabetically first task of the cluster."
        ),
        "threshold": args.threshold,
        "min_models": args.min_models,
        "min_coverage": args.min_coverage,
        "benchmarks": entries,
    }
    atomic_write_text(args.out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    for name, entry in entries.items():
        sizes = "+".join(str(len(c["tasks"])) for c in entry["clusters"]) or "none"
        print(f"{name}: {entry['n_tasks']} tasks, {entry['n_models']} models, clusters {sizes}")
        for c in entry["clusters"]:
            print(f"    r >= {c['min_correlation']:.3f}: {', '.join(c['tasks'])}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
