"""The Goodhart audit's tests on the real scores, with the tasks split at random (placebo).

The simulations of ``bench_goodhart_validation.py`` draw the model x task interactions
from chosen shapes (normal, t3, lognormal, ...). This benchmark takes the shape from the
data instead: the real RTEB scores of the models the audit uses (every task of both
sides), with the tasks relabelled public or private **at random**, as many as each side
has. Under such a split no model can gain on the "public" tasks except by chance, so
every rejection is a false one; the real data keep their own spreads, tails, skew,
correlated tasks and families of models. What is measured, each over many random splits:

1. :func:`analysis.stats.public_advantage`: the family-wise error (some model declared
   beyond chance), as the audit calls it (its task clusters, or none), on RTEB(beta)
   under both pins and on RTEB(eng, beta) (its tasks within RTEB(beta), 14/6);
2. :func:`analysis.stats.advantage_predictors`: on the real public/private split, the
   type-I error at 5% of a random predictor (ranked normal values, and a group of 8
   random models); the predictor is independent of the real advantages, so the null
   holds exactly.

The family-wise error is conditional on these scores: over the population of splits of
these tasks, not over new tasks. Seeds fixed; each cell its own stream.

Usage (from the repository root; about a minute on 2 idle cores at --scale 1)::

    python benchmarks/bench_goodhart_placebo.py --results ../shared/mteb-cache
    python benchmarks/bench_goodhart_placebo.py --scale 0.02 --out /tmp/placebo.md
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _goodhart_sim as sim  # noqa: E402

from analysis.core.io import atomic_write_text  # noqa: E402
from analysis.results.clusters import task_clusters  # noqa: E402
from analysis.results.groups import organisations  # noqa: E402
from analysis.results.specs import resolve_spec  # noqa: E402
from analysis.stats import advantage_predictors, public_advantage  # noqa: E402

BENCHMARK = sim.BENCHMARK
SUB = "RTEB(eng, beta)"
PATTERNS = 400  # sign patterns per call (the audit's default is 10,000: less noise only)
SHUFFLES = 999  # shuffles of a predictor per call (default 10,000: less noise only)
#: advantage_predictors' p-values: t alone, the shuffles alone, the one it decides by
PVALUES = ("pvalue_t", "pvalue_permutation", "pvalue")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--results",
        type=Path,
        default=sim.RESULTS,
        help="mteb ResultCache folder (default: $STATIC_RTEB_RESULTS, else ../shared/mteb-cache)",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every replicate count")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "results" / "goodhart_placebo.md"
    )
    return parser.parse_args()


def stream(*key: object) -> np.random.Generator:
    return sim.stream(20261128, *key)


def placebo_advantage(
    rng: np.random.Generator, reps: int, wide: pd.DataFrame, n_public: int, clusters: object
) -> tuple[sim.Tally, int]:
    """The splits where some model is beyond chance; the number of distinct splits drawn."""
    tasks = list(wide.index)
    tally, seen = sim.Tally(), set()
    for _ in range(reps):
        order = rng.permutation(len(tasks))
        public = sorted(tasks[i] for i in order[:n_public])
        seen.add(tuple(public))
        res = public_advantage(
            wide,
            public_tasks=public,
            private_tasks=[tasks[i] for i in order[n_public:]],
            clusters=clusters,
            n_resamples=PATTERNS,
            rng=rng,
        )
        tally.add(bool((res.table["beyond_chance"] != "").any()))
    return tally, len(seen)


def placebo_organisations(
    rng: np.random.Generator, reps: int, wide: pd.DataFrame, n_public: int, families: pd.Series
) -> dict[str, sim.Tally]:
    """Rejections at 5% of "made by" one organisation (2 models or more, each in turn), per
    model with ``families``, the tasks split at random: no organisation can gain on the
    random "public" side, whatever noise its models share, so the null holds exactly."""
    tasks, sizes = list(wide.index), families.value_counts()
    names = sorted(sizes.index[sizes >= 2])
    hits = {p: sim.Tally() for p in PVALUES}
    for i in range(reps):
        order = rng.permutation(len(tasks))
        made_by = pd.DataFrame({"org": families.eq(names[i % len(names)])}, index=wide.columns)
        row = advantage_predictors(
            wide,
            made_by,
            public_tasks=[tasks[j] for j in order[:n_public]],
            private_tasks=[tasks[j] for j in order[n_public:]],
            families=families,
            n_resamples=SHUFFLES,
            rng=rng,
        ).to_frame()
        for p in PVALUES:
            hits[p].add(bool(row[p].iloc[0] < 0.05))
    return hits


def placebo_predictors(
    rng: np.random.Generator,
    reps: int,
    wide: pd.DataFrame,
    public: list[str],
    private: list[str],
    families: pd.Series,
    *,
    split_at_random: bool = False,
) -> dict[tuple[str, str], sim.Tally]:
    """Rejections at 5% of a random ranked predictor, a random group of 8 models, and a
    random organisation (2 models or more) with 2 models of another (3 or more): per
    model, its contrast mostly between organisations, as the static models'. ``families``:
    each model's organisation, given to the function as the notebook gives it. With
    ``split_at_random``, each draw also relabels the tasks public or private at random (as
    many of each as ``public`` and ``private``): no true advantages beside the noise."""
    models, tasks = list(wide.columns), [*public, *private]
    hits = {(name, p): sim.Tally() for name in ("ranked", "group", "near") for p in PVALUES}
    sizes = families.value_counts()
    for _ in range(reps):
        if split_at_random:
            order = rng.permutation(len(tasks))
            public = [tasks[i] for i in order[: len(public)]]
            private = [tasks[i] for i in order[len(public) :]]
        group = np.zeros(len(models), bool)
        group[rng.choice(len(models), 8, replace=False)] = True
        whole = rng.choice(sorted(sizes.index[sizes >= 2]))
        other = rng.choice(sorted(sizes.index[(sizes >= 3) & (sizes.index != whole)]))
        near = families.eq(whole)
        near[rng.choice(families.index[families.eq(other)], 2, replace=False)] = True
        predictors = pd.DataFrame(
            {"ranked": rng.normal(size=len(models)), "group": group, "near": near},
            index=models,
        )
        res = advantage_predictors(
            wide,
            predictors,
            public_tasks=public,
            private_tasks=private,
            families=families,
            adjustment="none",
            n_resamples=SHUFFLES,
            rng=rng,
        )
        table = res.to_frame().set_index("predictor")
        for name, p in hits:
            hits[name, p].add(bool(table.loc[name, p] < 0.05))
    return hits


def main() -> None:
    args = parse_args()
    if not (args.results / "remote" / "results").is_dir():
        raise SystemExit(f"no mteb results at {args.results}: pass --results FOLDER")
    reps = max(int(1000 * args.scale), 10)
    start = time.perf_counter()
    rows = [
        "# Goodhart audit: the tests on the real scores, tasks split at random (placebo)",
        "",
        f"Written by `python benchmarks/bench_goodhart_placebo.py` (scale {args.scale:g}, "
        f"{reps} random splits per cell) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.machine()}, {os.cpu_count()} cores, from `{args.results.name}`. The "
        "models are those the audit uses (every task of both sides); the tasks are relabelled "
        "public or private at random, as many as each side has, so every rejection is a "
        "false one, with the data's own spreads, tails, skew, related tasks and families of "
        "models. Cells: rate ± its Monte-Carlo standard error; conditional on these scores "
        "(the population is the splits of these tasks). The simulated departures are in "
        "`goodhart_validation.md`.",
        "",
        "## public_advantage: family-wise error at 5% over random splits",
        "",
        f"{PATTERNS} sign patterns per call; clusters: the audit's near-duplicate task "
        "clusters (`analysis/results/clusters.json`, its default) or none.",
        "",
        "| benchmark | pin | models | tasks (public/private) | clusters | family-wise error "
        "(target 0.04–0.06) | distinct splits |",
        "|---|---|---|---|---|---|---|",
    ]
    clusters = task_clusters(BENCHMARK)
    data = {pin: sim.audit_data(args.results, pin) for pin in ("as-of-post", "now")}
    wide, public, private = data["as-of-post"]
    sub = set(resolve_spec(SUB).task_names)
    sub_public = [t for t in public if t in sub]
    sub_wide = wide.loc[sub_public + [t for t in private if t in sub]]
    plan = [
        (BENCHMARK, "as-of-post", wide, len(public), True),
        (BENCHMARK, "as-of-post", wide, len(public), False),
        (BENCHMARK, "now", data["now"][0], len(data["now"][1]), True),
        (SUB, "as-of-post", sub_wide, len(sub_public), True),
    ]
    for name, pin, table, n_public, clustered in plan:
        cell_start = time.perf_counter()
        errors, distinct = placebo_advantage(
            stream("advantage", name, pin, clustered),
            reps,
            table,
            n_public,
            clusters if clustered else None,
        )
        sides = f"{n_public}/{len(table) - n_public}"
        rows.append(
            f"| {name} | {pin} | {table.shape[1]} | {sides} | {'yes' if clustered else 'no'} "
            f"| {errors} | {distinct} |"
        )
        print(f"{name} {pin} {sides}: {time.perf_counter() - cell_start:.0f} s", flush=True)
    families = organisations(wide.columns)  # as the notebook gives them
    hits = placebo_predictors(stream("predictors"), 4 * reps, wide, public, private, families)
    cell_start = time.perf_counter()
    split = placebo_predictors(
        stream("predictors", "split"), reps, wide, public, private, families, split_at_random=True
    )
    print(
        f"predictors, tasks split at random: {time.perf_counter() - cell_start:.0f} s", flush=True
    )
    made_by = placebo_organisations(stream("organisations"), 4 * reps, wide, len(public), families)
    sizes = families.value_counts()
    n_whole, n_other = int((sizes >= 2).sum()), int((sizes >= 3).sum())
    rows += [
        "",
        "## advantage_predictors: type-I error at 5% of a random predictor",
        "",
        f"{BENCHMARK} as of the post, its real public and private tasks ({len(public)}/"
        f"{len(private)}), {wide.shape[1]} models; per draw a predictor independent of the "
        "models (normal values, used through their ranks; a group of 8 random models), one "
        f"test each (no adjustment), {SHUFFLES} shuffles of the predictor per call, "
        f"{4 * reps} draws (four times the splits above: the cells are cheap). The "
        "function decides by the larger of its two p-values; each alone is shown too. "
        "The shuffles are exact here by construction (the predictor is exchangeable over "
        "the models): these rows measure the t, and the rule for a predictor unrelated to "
        "the models. The organisations are given as the notebook gives them (`families=`, "
        "the name before /); the last row's group, a random organisation of 2 models or more "
        "with 2 models of another of 3 or more, is tested per model with most of its contrast "
        "between organisations (as the static models'): it measures the family part of the "
        "models' variance on the data's own organisations. Its null holds over the choice of "
        f"organisations ({n_whole} of 2 models or more, {n_other} of 3 or more), independent of "
        "the scores; the real split fixes each organisation's effects, so its standard error "
        "is conditional on these few. The last row is the notebook's made-by predictor, one "
        f"organisation of 2 models or more ({n_whole}, each in turn), all of its contrast "
        "between organisations, with the tasks split at random as in the first section (on "
        f"the real split it would have only {n_whole} distinct outcomes), {4 * reps} splits: "
        "no organisation can gain on a random side, so the null holds exactly. It measures "
        "the t and the family part against the real task noise each organisation's models "
        "share; a random split leaves no true shared effects (their shape is the validation's "
        "heavy-tailed rows).",
        "",
        "| predictor | type-I error at 5% (target 0.04–0.06) | t alone (`pvalue_t`) | "
        "shuffles alone (`pvalue_permutation`) |",
        "|---|---|---|---|",
        *(
            f"| {label} | {hits[name, 'pvalue']} | {hits[name, 'pvalue_t']} | "
            f"{hits[name, 'pvalue_permutation']} |"
            for name, label in (
                ("ranked", "ranked"),
                ("group", "group of 8 models"),
                ("near", "an organisation and 2 models of another"),
            )
        ),
        f"| an organisation alone, tasks split at random | {made_by['pvalue']} | "
        f"{made_by['pvalue_t']} | {made_by['pvalue_permutation']} |",
        "",
        "The same predictors on the same scores with the tasks split at random (as in the "
        f"first section; {reps} splits, a predictor of each kind per split): where the real "
        "split's rows show the t alone liberal and these do not, it is the real split's "
        "advantages, not the tasks' shape (their spreads, tails and related tasks are the "
        "same in both), that the t's bootstrap misreads.",
        "",
        "| predictor, tasks split at random | type-I error at 5% (target 0.04–0.06) | t alone "
        "(`pvalue_t`) | shuffles alone (`pvalue_permutation`) |",
        "|---|---|---|---|",
        *(
            f"| {label} | {split[name, 'pvalue']} | {split[name, 'pvalue_t']} | "
            f"{split[name, 'pvalue_permutation']} |"
            for name, label in (
                ("ranked", "ranked"),
                ("group", "group of 8 models"),
                ("near", "an organisation and 2 models of another"),
            )
        ),
        "",
        f"Total time: {time.perf_counter() - start:.0f} s.",
        "",
    ]
    atomic_write_text(args.out, "\n".join(rows))
    print(f"Wrote {args.out}")


if __name__ == "__main__":
    main()
