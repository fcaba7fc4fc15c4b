"""Validate the Goodhart audit's tests by simulation at the data's sizes, with departures.

Writes ``benchmarks/results/goodhart_validation.md``:

1. :func:`analysis.stats.public_advantage`: the family-wise error (some true null model
   declared beyond chance) at the global null, and the family-wise coverage (every
   simultaneous interval covers its model's true advantage) with true advantages that
   vary between models (SD 0.02), at 70 models and 16/13, 17/13, 14/6 and 6/6 tasks
   (RTEB(beta) as of the post and now, RTEB(eng, beta), the smallest side tested);
   correlated tasks with one sign per task and one per cluster (``clusters=``); the
   data's own clusters (public-private pairs, correlated as the data's) flipped as the
   notebook flips them; and the reference not chosen (the tasks relabelled) beside its
   sign flips;
2. :func:`analysis.stats.advantage_predictors`: the type-I error at 5% of a ranked
   predictor, a group of 8 random models and a group that is one family of 7 models,
   with true advantages varying between models (every cell at 4x the data sets), each
   decided as the function decides (t and shuffles of the predictor); where it fails (a
   family sharing a true effect); and the power at the reported detectable effect;
3. :func:`analysis.stats.trained_task_effect`: the type-I error at 5% when 23 models
   trained on public tasks, 20 of them on the same one (RTEB(beta)'s pattern), models
   with equal and unequal spreads, and families reassigned among all models or within
   the families (``families=``);
4. :func:`analysis.stats.predictive_comparison`: the type-I error at 5% and 1% when two
   predictors are equally accurate, at 34 and 60 models, and with a share of the models
   far off one predictor (swept), beside the sign flips it used before; and the coverage of
   its interval where one predictor is better (:mod:`_goodhart_power`).

Beside the errors at the null, :mod:`_goodhart_power`'s cells measure true effects: the
power at ``public_advantage``'s reported detectable effect, and the coverage of
``advantage_predictors``' and ``predictive_comparison``'s intervals.

Its first section counts every cell that has a target (0.04–0.06, or a coverage of at
least 0.95) and lists those outside it: as the notebook calls the function, in other
calls it allows, and where an assumption is violated on purpose.

The departures are :mod:`benchmarks._goodhart_sim`'s (unequal spreads, heavy tails,
skew, correlated tasks, families of models, an outlying model). The simulations call
the public functions' kernels (``tests/stats/test_advantage.py`` checks they agree).
Seeds fixed; each cell its own stream, so the cells of a table run on every core
(:func:`on_every_core`) and give the tables they give one by one (checked at --scale 0.02:
the same report, in 161 s against 256 s one by one on 2 cores, 2026-12-02).

Every cell is kept once done (``--cache``, default ``build/bench-cache``; :func:`_kept`), so an
interrupted run resumes where it stopped, and a report rewritten after a change to its text,
or to a docstring or comment of the code the cells run (:func:`source_key`), costs seconds.

Usage (from the repository root; one to two hours on 2 cores at --scale 1, the report's last
line gives its run's total)::

    python benchmarks/bench_goodhart_validation.py
    python benchmarks/bench_goodhart_validation.py --scale 0.05 --out /tmp/goodhart.md
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import hashlib
import inspect
import math
import os
import pickle
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _goodhart_power as power  # noqa: E402
import _goodhart_sim as sim  # noqa: E402

from analysis.core.io import atomic_write_bytes, atomic_write_text  # noqa: E402
from analysis.results.groups import organisations  # noqa: E402
from analysis.results.training import trained_differently  # noqa: E402
from analysis.stats.advantage import MIN_TASKS_PER_SIDE  # noqa: E402

K = 70
BENCHMARK = sim.BENCHMARK
FULL = (16, 13)
ENG = (14, 6)
#: The notebook's ``organisation`` (mteb#3902's): its predictor is a group of one family.
ORGANISATION = "voyageai"
#: Data sets per advantage_predictors cell, per replicate (the cells are cheap).
PREDICTOR_SETS = 16
#: The true effect at which the predictors' intervals' coverage is measured (raw scores).
PREDICTOR_EFFECT = 0.03
#: The sub-benchmark of RTEB(beta)'s English tasks (ENG's sizes, as of the post).
SUB_BENCHMARK = "RTEB(eng, beta)"
#: The shapes of the data's own clusters' rows: as the data's (the mild ones) and beyond.
DATA_PAIR_DEPARTURES = (
    "normal",
    "heavy",
    "mild-skew",
    "skewed",
    "tighter",
    "mild-unequal",
    "unequal",
)
#: The departures of the references' comparison: shapes the tasks stay exchangeable under,
#: the private side more spread (mildly, and twice), and one model that is not null.
REFERENCE_DEPARTURES = (
    "normal",
    "heavy",
    "skewed",
    "mild-skew",
    "mild-unequal",
    "unequal",
    "outlier",
)


def parse_args(
    report: str = "goodhart_validation.md", doc: str | None = __doc__
) -> argparse.Namespace:
    """The Goodhart benches' options; ``report``: the default file in benchmarks/results."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every replicate count")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / report)
    parser.add_argument(
        "--results",
        type=Path,
        default=sim.RESULTS,
        help="mteb ResultCache folder (default: $STATIC_RTEB_RESULTS, else ../shared/mteb-cache)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=ROOT / "build" / "bench-cache",
        help="finished cells, kept so that an interrupted run resumes (default: build/bench-cache; "
        "keyed by the cell, the simulation's and the package's source, the seed, the data and "
        "the libraries' versions)",
    )
    return parser.parse_args()


def pair_units(size: tuple[int, int]) -> tuple[int, int]:
    """The public and private clusters of ``corr-tasks``' pairs at ``size`` (every task in one)."""
    codes = sim.pair_clusters(*size)
    return len(set(codes[: size[0]])), len(set(codes[size[0] :]))


def units(size: tuple[int, int]) -> str:
    """:func:`pair_units` as the text writes them."""
    return "/".join(map(str, pair_units(size)))


#: Every cell with a target, as its table shows it: (test, cell, tally, target, how).
#: ``target``: ``"error"`` (0.04–0.06 at 5%) or ``"coverage"`` (≥ 0.95); ``how``:
#: ``"notebook"`` (as the notebook calls the function), ``"other"`` (another call the
#: function allows) or ``"design"`` (an assumption the docs name violated on purpose, or a
#: split the function refuses to test).
LEDGER: list[tuple[str, str, sim.Tally, str, str]] = []


#: The ledger's kinds of call, in its columns' order.
KINDS = ("notebook", "other", "design")


def ledger(test: str, where: str, tally: sim.Tally, how: str, target: str = "error") -> str:
    """Record a cell against its target; returns it as its table shows it."""
    LEDGER.append((test, where, tally, target, how))
    return str(tally)


#: The lower bounds of the targets that are one (``"error"``'s is 0.04–0.06).
AT_LEAST = {"coverage": 0.95, "power": 0.8}


def in_target(tally: sim.Tally, target: str) -> bool:
    """The cell as shown (three decimals) against its target."""
    rate = round(tally.rate, 3)
    return rate >= AT_LEAST[target] if target in AT_LEAST else 0.04 <= rate <= 0.06


def beyond_chance(tally: sim.Tally, target: str) -> bool:
    """Outside the target by more than 2 Monte-Carlo standard errors (binomial, at its nearer end)."""
    if in_target(tally, target):
        return False
    end = AT_LEAST.get(target, 0.04 if tally.rate < 0.04 else 0.06)
    return abs(tally.rate - end) > 2 * math.sqrt(end * (1 - end) / max(tally.reps, 1))


def ledger_section() -> list[str]:
    """The cells with a target, counted from the same tallies as the tables."""
    rows = [
        "## Against the targets",
        "",
        "Every type-I error, family-wise error, coverage and power cell of the tables below, "
        "against its target (an error in 0.04–0.06 at 5%, a coverage of at least 0.95, the "
        "power at a reported `detectable` at least the 0.8 it is reported for), "
        "counted from the same tallies, as the tables show them (three decimals; a count "
        "says as much as its cells' standard errors, wide in the rows with few data sets). "
        "*As the notebook* calls the function: `public_advantage` with the data's own "
        "clusters, `trained_task_effect` within families, `advantage_predictors` with the "
        "families given (the notebook's organisations; a group that is one family is its "
        "organisation predictor), `predictive_comparison` as it is. *Other calls*: the "
        "function allows them (no clusters, every task in a pair, other sizes, some models "
        "truly gaining). *By design*: an "
        "assumption the docs name is violated on purpose (related tasks flipped alone, a "
        "family's errors reassigned among all models, gains differing by model, `a` alone "
        "departing from `b`) or the "
        "function refuses the split. "
        "Each column: the cells outside the target, of the cells of its kind. The last: of "
        "those, the cells outside by more than 2 Monte-Carlo standard errors (binomial, at the "
        "target's nearer end), as the notebook / other calls / by design; a cell outside by "
        "less can be there by chance (a rate truly at 0.95 shows under it half the time).",
        "",
        "| test | cells in the target | outside, as the notebook | outside, other calls | "
        "outside, by design | beyond 2 standard errors |",
        "|---|---|---|---|---|---|",
    ]
    for test in dict.fromkeys(entry[0] for entry in LEDGER):
        cells = [entry for entry in LEDGER if entry[0] == test]
        shown = []
        for kind in KINDS:
            mine = [entry for entry in cells if entry[4] == kind]
            out = [f"; {w}: {t}" for _, w, t, target, _ in mine if not in_target(t, target)]
            shown.append(f"{len(out)} of {len(mine)}{''.join(out)}" if mine else "no cells")
        inside = sum(in_target(t, target) for _, _, t, target, _ in cells)
        far = [sum(beyond_chance(e[2], e[3]) for e in cells if e[4] == k) for k in KINDS]
        rows.append(f"| {test} | {inside} of {len(cells)} | {' | '.join(shown)} | ")
        rows[-1] += " / ".join(map(str, far)) + " |"
    return [*rows, ""]


#: The seed of every cell's stream.
SEED = 20261127


def stream(*key: object) -> np.random.Generator:
    return sim.stream(SEED, *key)


def _default(function: Callable[..., object], name: str) -> object:
    """A keyword's default in ``function``: the text states what the cells ran."""
    return inspect.signature(function).parameters[name].default


def timed(title: str, rows: list[str], build: Callable[[], list[str]]) -> None:
    start = time.perf_counter()
    rows += build()
    print(f"{title}: {time.perf_counter() - start:.0f} s", flush=True)


def advantage_jobs(
    key: tuple[object, ...], reps: int, coverage: bool, **cell: Any
) -> list[tuple[str, tuple[object, ...], tuple[Any, ...], dict[str, Any]]]:
    """One row's :func:`sim.advantage_cell` runs (:func:`_sim_job`'s): the decisions' family-wise
    error (``20 * reps`` data sets) and, with ``coverage``, the coverage (``4 * reps``, true
    advantages SD 0.02), each on its stream of ``key``."""
    run = {"k": K, **cell}
    jobs = [("advantage_cell", ("fwe", *key), (20 * reps,), run)]
    if coverage:
        jobs.append(("advantage_cell", ("cov", *key), (4 * reps,), {**run, "spread": 0.02}))
    return jobs


def advantage_shown(where: str, how: str, runs: list[Any]) -> tuple[str, str, str]:
    """A row's :func:`advantage_jobs` results, recorded and as the table shows them, with the
    intervals' error at the global null."""
    errors, _, excluded = runs[0]
    shown = ledger("public_advantage: decisions", where, errors, how)
    intervals = ledger("public_advantage: intervals at the global null", where, excluded, how)
    if len(runs) == 1:
        return shown, intervals, "—"
    covered = ledger("public_advantage: coverage", where, runs[1][1], how, "coverage")
    return shown, intervals, covered


def in_groups(jobs: list[list[Any]]) -> list[list[Any]]:
    """:func:`_sim_job` over every group of ``jobs`` on every core; the results in their groups."""
    done = iter(on_every_core(_sim_job, [job for group in jobs for job in group]))
    return [[next(done) for _ in group] for group in jobs]


def advantage_rows(reps: int) -> list[str]:
    rows = [
        "| tasks (public/private) | departure | signs flip | family-wise error at the global "
        "null (target 0.04–0.06) | the intervals' at the global null (some interval "
        "excludes 0) | family-wise coverage, advantages SD 0.02 (target ≥ 0.95) |",
        "|---|---|---|---|---|---|",
    ]
    plan = [(FULL, d, False) for d in sim.DEPARTURES] + [(ENG, d, False) for d in sim.DEPARTURES]
    plan += [(size, d, True) for size in (FULL, ENG) for d in ("corr-tasks", "normal")]
    plan += [(size, d, True) for size in (FULL, ENG) for d in ("unequal", "heavy", "skewed")]
    plan += [((17, 13), d, False) for d in ("normal", "heavy", "unequal")]
    plan += [((6, 6), d, False) for d in ("normal", "heavy", "unequal")]
    runs = in_groups(
        [
            advantage_jobs(
                (n1, n2, departure, *(("clusters",) if clustered else ())),  # the rows' streams
                reps,
                (n1, n2) in (FULL, ENG),
                n1=n1,
                n2=n2,
                departure=departure,
                clustered=clustered,
            )
            for (n1, n2), departure, clustered in plan
        ]
    )
    for ((n1, n2), departure, clustered), run in zip(plan, runs, strict=True):
        where = f"{n1}/{n2} {departure}" + (", in pairs" if clustered else "")
        refused = clustered and min(pair_units((n1, n2))) < MIN_TASKS_PER_SIDE  # no test
        how = "design" if refused or (departure == "corr-tasks" and not clustered) else "other"
        shown, excluded, coverage = advantage_shown(where, how, run)
        unit = "pairs of tasks (clusters)" if clustered else "tasks"
        rows.append(f"| {n1}/{n2} | {departure} | {unit} | {shown} | {excluded} | {coverage} |")
    return rows


def data_cluster_section(reps: int) -> list[str]:
    """:func:`public_advantage` as the notebook runs it: the data's own clusters flipped together."""
    found = {name: sim.data_pairs(name) for name in (BENCHMARK, SUB_BENCHMARK)}
    described = "; ".join(
        f"{name} ({n1}/{n2} tasks as of the post) {len(pairs)}, correlated at "
        + ", ".join(f"{r:.2f}" for r in pairs)
        for name, (n1, n2, pairs) in found.items()
    )
    rows = [
        "",
        "### The data's own clusters, flipped as the notebook flips them",
        "",
        f"The notebook flips as one unit each near-duplicate cluster of {BENCHMARK}'s in "
        "`analysis/results/clusters.json` (`cluster_tasks`, on by default; its "
        "sub-benchmarks get the same clusters), and every one of them pairs a public task "
        "with a private one (their residuals' correlation over the leaderboard's models, as "
        f"the file records it): {described}. Here the "
        "simulated interactions have those pairs, correlated as the data's (before any "
        "spread is scaled), and the signs flip each pair together (`clusters=`, as the "
        "notebook) or each task alone. A pair across the sides makes the difference of the "
        "side means less spread than Welch's t, which takes the tasks as independent, "
        "assumes: flipped alone, the test is conservative (the rows *each task alone*); "
        "flipped together, the reference keeps the pair's covariance. The private side "
        + ", ".join(f"{r:g} times as spread (`{d}`)" for d, r in sim.PRIVATE_SPREAD.items())
        + f" (the data's ratios are in the comparison of references below). {20 * reps} data "
        f"sets per error cell, {4 * reps} per coverage cell.",
        "",
        "| benchmark (public/private tasks) | departure | signs flip | family-wise error at "
        "the global null (target 0.04–0.06) | the intervals' at the global null | "
        "family-wise coverage, advantages SD 0.02 (target ≥ 0.95) |",
        "|---|---|---|---|---|---|",
    ]
    plan = [(True, d) for d in DATA_PAIR_DEPARTURES] + [(False, "normal"), (False, "unequal")]
    cells = [(name, sizes, clustered, d) for name, sizes in found.items() for clustered, d in plan]
    runs = in_groups(
        [
            advantage_jobs(
                ("data-pairs", name, departure, clustered),
                reps,
                clustered,
                n1=n1,
                n2=n2,
                departure=departure,
                clustered=clustered,
                pairs=pairs,
            )
            for name, (n1, n2, pairs), clustered, departure in cells
        ]
    )
    for (name, (n1, n2, _), clustered, departure), run in zip(cells, runs, strict=True):
        where = f"{name} {departure}" + ("" if clustered else ", pairs flipped alone")
        how = "notebook" if clustered else "design"
        shown, excluded, coverage = advantage_shown(where, how, run)
        unit = "each pair together" if clustered else "each task alone"
        rows.append(
            f"| {name} ({n1}/{n2}) | {departure} | {unit} | {shown} | {excluded} | {coverage} |"
        )
    return rows


def partial_null_rows(reps: int) -> list[str]:
    """Where the step-down steps: some models truly gain, the others are true nulls."""
    gaining, spread = (_default(sim.partial_null_cell, n) for n in ("gaining", "spread"))
    rows = [
        "",
        "### Some models truly gain: the decisions past their first step",
        "",
        f"At the global null the decisions reject something exactly when their first step "
        f"does; they step down only once a model is found. Here {gaining} of the {K} models "
        f"truly gain or lose (advantages N(0, {spread:g}), centred so that every other "
        "model's relative advantage is exactly 0); the family-wise error is over the others. "
        f"{reps} data sets per cell, 400 sign patterns each.",
        "",
        "| tasks (public/private) | departure | family-wise error of the decisions (target "
        "0.04–0.06) | of the intervals | share of the gaining models found: by the decisions | "
        "by the intervals |",
        "|---|---|---|---|---|---|",
    ]
    plan = [(s, d) for s in (FULL, ENG) for d in ("normal", "heavy", "unequal")]
    jobs = [
        ("partial_null_cell", ("partial", n1, n2, d), (reps, n1, n2, K, d), {})
        for (n1, n2), d in plan
    ]
    for ((n1, n2), departure), (errors, excluded, found) in zip(
        plan, on_every_core(_sim_job, jobs), strict=True
    ):
        test, where = "public_advantage: past the first step", f"{n1}/{n2} {departure}"
        shown = ledger(test, where, errors, "other")
        intervals = ledger(f"{test}, the intervals", where, excluded, "other")
        rows.append(
            f"| {n1}/{n2} | {departure} | {shown} | {intervals} | {found[0]:.3f} | {found[1]:.3f} |"
        )
    return rows


def reference_rows(reps: int) -> tuple[list[str], dict[str, list[Any]]]:
    """The comparison's table, and each departure's relabelling error over the flips' level."""
    rows = [
        "| tasks (public/private) | departure | signs flip (`public_advantage`; target "
        "0.04–0.06) | tasks relabelled (not used) |",
        "|---|---|---|---|",
    ]
    alpha = 1 - _default(sim.reference_cell, "level")
    over: dict[str, list[Any]] = {}
    plan = [(size, d) for size in (FULL, ENG, (6, 6)) for d in REFERENCE_DEPARTURES]
    jobs = [
        ("reference_cell", ("ref", n1, n2, d), (reps, n1, n2, K, d), {}) for (n1, n2), d in plan
    ]
    for ((n1, n2), departure), (flips, labels) in zip(
        plan, on_every_core(_sim_job, jobs), strict=True
    ):
        test = "public_advantage: decisions, beside the relabelling"
        shown = ledger(test, f"{n1}/{n2} {departure}", flips, "other")
        rows.append(f"| {n1}/{n2} | {departure} | {shown} | {labels} |")
        over.setdefault(departure, []).append(labels.rate / alpha)
        over.setdefault("flips", []).append(flips.rate)
        over.setdefault("flips at", []).append(f"`{departure}` at {n1}/{n2}")
    return rows, over


def spread_text(results: Path) -> str:
    """The data's private-over-public spread per model, against the simulations'."""
    found = {}
    for name in (BENCHMARK, SUB_BENCHMARK):
        wide, public, private = sim.audit_data(results, "as-of-post", name)
        found[f"{name}'s data (as of the post)"] = sim.spread_ratio(
            wide.loc[public].to_numpy(float), wide.loc[private].to_numpy(float)
        )
    for departure in ("normal", *sim.PRIVATE_SPREAD):
        x_pub, x_priv, _ = sim.leaderboard(stream("spread", departure), *FULL, K, departure)
        found[f"`{departure}` at {FULL[0]}/{FULL[1]} tasks"] = sim.spread_ratio(x_pub, x_priv)
    shown = "; ".join(
        f"{name} {q[1]:.2f} ({q[0]:.2f} to {q[2]:.2f})"
        for name, q in ((n, np.percentile(r, [5, 50, 95])) for n, r in found.items())
    )
    return (
        "Per model, the SD of its relative score over the private tasks over that over the "
        f"public ones, median (5th to 95th percentile): {shown}."
    )


def reference_section(reps: int, results: Path) -> list[str]:
    """The relabelling beside the flips: its prose from its own table."""
    table, over = reference_rows(reps)
    level, spread = 1 - _default(sim.reference_cell, "level"), sim.PRIVATE_SPREAD

    def times(departure: str) -> str:
        low, high = min(over[departure]), max(over[departure])
        return f"{low:.1f} to {high:.1f} times"

    flips = np.asarray(over["flips"])
    lowest, highest = (over["flips at"][int(i)] for i in (flips.argmin(), flips.argmax()))

    return [
        "",
        "### The reference not chosen: relabelling the tasks",
        "",
        "The other reference a max-T could use permutes which tasks are public, a whole "
        "task's row at a time (the models' dependence kept): exact whenever the tasks are "
        "exchangeable between the sides, whatever their shape. It was measured beside the "
        "flips, each on the same simulated data sets (new ones: the flips' column measures "
        "again what the table above did), and not chosen. It holds at every shape the "
        "tasks stay exchangeable under, the `skewed` one where the flips are most "
        "conservative included; but where the private side is more spread than the public "
        "the tasks are not exchangeable, and a relabelling mixes the spreads: its error is "
        f"{times('unequal')} the level {level:g} with the private side "
        f"{spread['unequal']:g} times as spread (`unequal`), and {times('mild-unequal')} "
        f"with it {spread['mild-unequal']:g} times as spread (`mild-unequal`), most at the "
        f"unbalanced {ENG[0]}/{ENG[1]} split; the flips keep each task's own spread. "
        + spread_text(results)
        + f" The flips' error stays between {flips.min():.3f} ({lowest}) and "
        f"{flips.max():.3f} ({highest}); the relabelling errs on the liberal side where the private "
        "side is more spread, at the unbalanced split even mildly so, as it may be for some "
        "of the data's models (their ratios above) and as the Welch t is meant to allow. Of "
        "the two errors the liberal one costs more here: a model declared to gain on the "
        "public tasks beyond chance is named as having fitted them. Family-wise error over "
        f"the true nulls, {_default(sim.reference_cell, 'n_patterns')} draws of either per "
        f"data set, {reps} data sets per cell.",
        "",
        *table,
    ]


def organisation_sizes(results: Path) -> list[int]:
    """Models per organisation among the data's (as of the post), the notebook's first."""
    wide, _, _ = sim.audit_data(results, "as-of-post", BENCHMARK)
    counts = organisations(wide.columns).value_counts()
    return [int(counts[ORGANISATION]), *counts.drop(ORGANISATION).tolist()]


def notebook_tested() -> int:
    """The predictors the notebook tests (Holm's m): its table's rows with a p-value."""
    lines = (ROOT / "figures" / "goodhart_predictors.md").read_text().splitlines()
    header = next(line for line in lines if line.startswith("| predictor"))
    at = [c.strip() for c in header.strip("|").split("|")].index("pvalue")
    rows = [line for line in lines if line.startswith("| ") and line != header]
    return sum(line.strip("|").split("|")[at].strip() not in {"—", ""} for line in rows)


def predictor_rows(reps: int, results: Path) -> list[str]:
    sizes = organisation_sizes(results)
    rows = [
        "| departure | true effects | type-I error at 5% (target 0.04–0.06): ranked predictor "
        "| group of 8 models | one family, its own effect tested (7 models; the data's organisations: "
        f"{ORGANISATION}'s {sizes[0]}) | that family and 2 models of another (per model) |",
        "|---|---|---|---|---|---|",
    ]
    spread = _default(sim.predictor_cell, "spread")
    plan = [
        (d, 0.0, (), False, spread)
        for d in ("normal", "heavy", "skewed", "unequal", "corr-tasks", "families")
    ]
    plan += [("families", 0.02, (), False, spread), ("normal", 0.0, sizes, False, spread)]
    plan += [("normal", 0.02, sizes, False, spread), ("normal", 0.04, sizes, False, spread)]
    plan += [("families", 0.02, (), True, spread), ("normal", 0.02, sizes, True, spread)]  # t3
    plan += [(d, 0.0, sizes, False, 0.0) for d in ("normal", "heavy", "unequal")]  # the data's
    detectable: dict[str, float] = {}
    names = {"rank": "ranked", "group": "a group of 8", "family": "one family"}
    names["near"] = "a family and 2 of another"
    test = "advantage_predictors"  # the notebook's organisation predictor: one family
    m = notebook_tested()
    jobs = [
        (
            "predictor_cell",
            ("pred", departure, family, *grouping, *["t3"] * tails, *["sd0"] * (sd == 0)),
            (PREDICTOR_SETS * reps, *FULL, K, departure),
            {
                "family_spread": family,
                "family_sizes": grouping,
                "family_tails": tails,
                "m": m,
                "spread": sd,
            },
        )
        for departure, family, grouping, tails, sd in plan
    ]
    cells = on_every_core(_sim_job, jobs)
    for (departure, family, grouping, tails, sd), (got, found) in zip(plan, cells, strict=True):
        if departure == "normal" and not grouping:
            detectable = found
        shape = f"{'heavy-tailed (t3), ' * tails}SD {family}"
        what = "independent" if not family else f"shared within families ({shape})"
        what = "none (SD 0, as the data's)" if sd == 0 else what
        where = f"the data's {len(sizes)} organisations" if grouping else "10 families"
        label = f"{departure}{f', effects shared ({shape})' if family else ''}{f', {where}' if grouping else ''}"
        label += ", true advantages SD 0" if sd == 0 else ""
        shown = [
            ledger(test, f"{label}, {name}", got[kind], "notebook") for kind, name in names.items()
        ]
        rows.append(f"| {departure} | {what}; {where} | {' | '.join(shown)} |")
    # power at the reported detectable effect (normal interactions, level 0.05 / m)
    effect, m = detectable["rank"], notebook_tested()
    run = {"effect": effect, "alpha": 0.05 / m, "m": m}
    got, _ = _sim_job(("predictor_cell", ("power",), (reps, *FULL, K, "normal"), run))
    rows += [
        "",
        f"Power at the reported detectable effect (80% at the level 0.05 / {m}, the notebook's "
        f"{m} predictors tested; normal "
        f"interactions): a ranked predictor whose slope is the mean reported `detectable`, "
        f"{effect:.4f} per SD of its ranks, is found in {got['rank']} of the data sets.",
    ]
    return rows


def alternative_rows(reps: int, results: Path) -> list[str]:
    """Power at public_advantage's reported ``detectable``; the predictors' intervals' coverage."""
    departures = ("normal", "heavy", "unequal")
    sizes = organisation_sizes(results)
    plan = [(size, d) for size in (FULL, ENG) for d in ("normal", "heavy", "mild-skew")]
    jobs = [
        ("detectable_power", ("detectable", *size, d), (4 * reps, *size, K, d), {})
        for size, d in plan
    ]
    cover = [(d, sd) for sd in (0.02, 0.0) for d in departures]
    jobs += [
        (
            "predictor_coverage",
            ("cover", d, sd),
            (2 * reps, *FULL, K, d),
            {"effect": PREDICTOR_EFFECT, "spread": sd, "family_sizes": sizes},
        )
        for d, sd in cover
    ]
    done = on_every_core(_power_job, jobs)
    rows = [
        "| tasks (public/private) | departure | model 0's mean `detectable` | found by the "
        "decisions (target ≥ 0.8) | outside its simultaneous interval (single-step) |",
        "|---|---|---|---|---|",
    ]
    for ((n1, n2), departure), (effect, decided, outside) in zip(
        plan, done[: len(plan)], strict=True
    ):
        shown = ledger(
            "public_advantage: power at `detectable`",
            f"{n1}/{n2} {departure}",
            decided,
            "other",
            "power",
        )
        single = ledger(
            "public_advantage: power at `detectable`, single-step",
            f"{n1}/{n2} {departure}",
            outside,
            "other",
            "power",
        )
        rows.append(f"| {n1}/{n2} | {departure} | {effect:.4f} | {shown} | {single} |")
    rows += [
        "",
        f"`advantage_predictors`' {_default(power.predictor_coverage, 'level'):.0%} interval "
        f"at a true effect of {PREDICTOR_EFFECT:g} (raw scores; the target is its contrast over "
        f"the relative advantages), {FULL[0]}/{FULL[1]} tasks, the data's {len(sizes)} "
        "organisations given as families:",
        "",
        "| departure | models' own advantages | coverage, ranked predictor (target ≥ 0.95) "
        "| group of 8 models |",
        "|---|---|---|---|",
    ]
    for (departure, sd), got in zip(cover, done[len(plan) :], strict=True):
        where = f"{departure}, own SD {sd:g}"
        shown = [
            ledger(
                "advantage_predictors: coverage",
                f"{where}, {name}",
                got[name],
                "notebook",
                "coverage",
            )
            for name in ("rank", "group")
        ]
        own = f"SD {sd:g}" + (" (the data's)" if sd == 0 else "")  # beside the predictor's
        rows.append(f"| {departure} | {own} | {' | '.join(shown)} |")
    return rows


def few_models_rows(reps: int) -> list[str]:
    """Power at the reported ``detectable`` where few models make few distinct shuffles."""
    rows = [
        "| models | predictor | distinct values of \\|t\\| under shuffles | shuffles "
        "| mean `detectable` | reported as none (NaN) | power at it (target 0.8) |",
        "|---|---|---|---|---|---|---|",
    ]
    drawn, m = _default(sim.few_models_power, "n_shuffles"), notebook_tested()
    plan = ((10, 4), (10, 5), (12, 5), (16, 4), (20, 5), (10, 0))
    jobs = [("few_models_power", ("few", k, n_a), (reps, k, n_a), {"m": m}) for k, n_a in plan]
    for (k, n_a), (effect, none, found) in zip(plan, on_every_core(_sim_job, jobs), strict=True):
        kind = f"group of {n_a}" if n_a else "ranked"
        ways = math.comb(k, n_a) // (1 + (2 * n_a == k)) if n_a else math.factorial(k) // 2
        shown = "—" if np.isnan(effect) else f"{effect:.4f}"
        every = n_a and math.comb(k, n_a) <= drawn  # predictor_row's rule for a group
        shuffles = f"every one of {math.comb(k, n_a):,}" if every else f"{drawn} drawn"
        rows.append(
            f"| {k} | {kind} | {ways:,} | {shuffles} | {shown} | {none:.2f} | {found or '—'} |"
        )
    return rows


#: The parts of the package a cell can run: the rooms it calls and what they import (the
#: layers import downwards only, so the notebook layer, the command line and runs are not).
CELL_CODE = ("core", "stats", "results")


def source_key() -> str:
    """A digest of the code a cell runs: ``_goodhart_sim`` and :data:`CELL_CODE`, each file's
    syntax tree without its docstrings (comments are not in it): an edit to the prose of a
    docstring or a comment keeps the cells, any other edit starts them again."""
    digest = hashlib.sha256()
    package = ROOT / "analysis"
    for path in [
        ROOT / "benchmarks" / "_goodhart_sim.py",
        package / "__init__.py",
        *sorted(path for room in CELL_CODE for path in (package / room).rglob("*.py")),
    ]:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + _code(path).encode())
    return digest.hexdigest()[:16]


def _code(path: Path) -> str:
    """``path``'s syntax tree without its docstrings, as text (comments are not in it)."""
    return ast.dump(_without_docstrings(ast.parse(path.read_bytes())))


def _without_docstrings(tree: ast.Module) -> ast.Module:
    """``tree`` with the docstring of its module, classes and functions removed."""
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if not isinstance(node, kinds) or not node.body:
            continue
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(first.value.value, str):
                node.body = node.body[1:] or [ast.Pass()]
    return tree


def environment_key(results: Path) -> str:
    """A digest of what else a cell's result depends on: the seed, the data the cells read
    (the results folder's fingerprint: a job's DataFrames come from it) and the libraries'
    versions (a random stream may change between numpy releases)."""
    from importlib.metadata import version

    from analysis.results.folder import ResultsFolders

    fingerprint = ResultsFolders.resolve(results, download=False).fingerprint()
    seen = [SEED, fingerprint, *(version(n) for n in ("numpy", "scipy", "pandas", "mteb"))]
    return hashlib.sha256(repr(seen).encode()).hexdigest()[:16]


def use_cache(folder: Path | None, results: Path = sim.RESULTS) -> None:
    """Keep finished cells in ``folder`` (None: none kept); the workers inherit it."""
    if folder is None:
        os.environ.pop(CACHE_VARIABLE, None)
    else:
        kept = folder / source_key() / environment_key(results)
        os.environ[CACHE_VARIABLE] = str(kept)


#: Where the workers keep finished cells (set by :func:`use_cache`).
CACHE_VARIABLE = "STATIC_RTEB_BENCH_CACHE"


Job = tuple[str, tuple[object, ...], tuple[Any, ...], dict[str, Any]]


def _sim_job(job: Job) -> Any:
    """One cell in a worker: ``sim.<name>(stream(*key), *args, **kwargs)``, kept once done.

    A cell is its own stream and arguments; kept under the digests of the code it runs
    (:func:`source_key`) and of the seed, data and libraries (:func:`environment_key`), a
    result is the one a rerun would give, so an interrupted run resumes from the cells it
    finished (each written atomically: two workers may write one cell, never half of it).
    """
    return _kept(job, sim, "")


def _power_job(job: Job) -> Any:
    """One cell of :mod:`_goodhart_power` in a worker, kept as :func:`_sim_job` keeps its
    own, under that module's code too (:func:`_code`; it is not in :func:`source_key`)."""
    return _kept(job, power, _code(Path(power.__file__)))


def _kept(job: Job, module: Any, also: str) -> Any:
    """``module.<name>(stream(*key), *args, **kwargs)``, read back if kept, else run and kept."""
    name, key, args, kwargs = job
    folder = os.environ.get(CACHE_VARIABLE)
    digest = hashlib.sha256((repr(job) + also).encode()).hexdigest()
    kept = Path(folder, digest + ".pickle") if folder else None
    if kept is not None and kept.exists():
        return pickle.loads(kept.read_bytes())
    result = getattr(module, name)(stream(*key), *args, **kwargs)
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(kept, pickle.dumps(result))
    return result


def trained_rows(reps: int, results: Path) -> list[str]:
    rows = [
        "| departure | patterns reassigned | type-I error at 5% (target 0.04–0.06) "
        f"| coverage of the {_default(sim.trained_coverage, 'effect'):g} shift's interval "
        "(target ≥ 0.95) |",
        "|---|---|---|---|",
    ]
    plan = [(d, False) for d in ("normal", "heavy", "unequal", "families")]
    plan += [("families", True), ("normal", True), ("heavy", True), ("unequal", True)]
    design = sim.trained_design(results)  # the notebook's call on the data's own design
    data_rows, sd = ("normal", "heavy", "unequal", "families"), 0.03  # sd: gains differing
    jobs = []
    for departure, within in plan:
        extra = ["within"] if within else []  # the other rows keep their streams
        n = 8 * reps if within else reps  # the rows of the notebook's call: less noise
        key, families = ("trained", departure, *extra), {"within_families": within}
        jobs.append(("trained_cell", key, (n, departure), families))
        if within:  # the notebook's call: its interval too
            jobs.append(("trained_coverage", ("trained cover", departure), (n, departure), {}))
    on_design = {"design": design}
    for departure in data_rows:
        drawn = {**on_design, "within_families": True}
        jobs.append(("trained_draws", ("trained data", departure), (8 * reps, departure), drawn))
        key = ("trained data cover", departure)
        jobs.append(("trained_coverage", key, (8 * reps, departure), on_design))
    gains = {**on_design, "gain_sd": sd}  # the common gain the interval assumes, violated
    jobs.append(("trained_coverage", ("trained data gains",), (8 * reps, "normal"), gains))
    done = iter(on_every_core(_sim_job, jobs))
    for departure, within in plan:
        tally = next(done)
        how = "within the 10 families (`families=`)" if within else "among all models"
        kind = "notebook" if within else "design" if departure == "families" else "other"
        where = f"{departure}, " + ("within families" if within else "among all")
        covered = "—"
        if within:  # the notebook's call: its interval too
            cover, mean = next(done)
            covered = ledger("trained_task_effect", f"{where}, coverage", cover, kind, "coverage")
            covered += f" (mean shift {mean:.4f})"
        shown = ledger("trained_task_effect", where, tally, kind)
        rows.append(f"| {departure} | {how} | {shown} | {covered} |")
    tested = design[0].notna().all()  # the models with known training data: the test's
    n_orgs = design[1][tested.to_numpy()].nunique()
    how = "within the data's organisations (its patterns)"
    for departure in data_rows:
        tally = next(done)[0]
        cover, mean = next(done)
        where = f"{departure}, the data's design"
        shown = ledger("trained_task_effect", where, tally, "notebook")
        covered = ledger("trained_task_effect", f"{where}, coverage", cover, "notebook", "coverage")
        shape = f"families: the {n_orgs} organisations" if departure == "families" else departure
        rows.append(f"| {shape} | {how} | {shown} | {covered} (mean shift {mean:.4f}) |")
    cover, mean = next(done)
    where = f"normal, the data's design, gains differing by model (SD {sd})"
    covered = ledger("trained_task_effect", f"{where}, coverage", cover, "design", "coverage")
    rows.append(f"| {where} | {how} | — | {covered} (mean shift {mean:.4f}) |")
    flags, orgs = design
    known, varying = flags.notna().all().sum(), trained_differently(flags, orgs).sum()
    trained = flags.fillna(False).any()
    rows += [
        "",
        f"The last five rows: the notebook's call on the data's own design ({BENCHMARK}'s "
        f"{flags.shape[1]} models complete on both sides and its {flags.shape[0]} public tasks, as "
        f"of the post; mteb's training records: {known} models known, {trained.sum()} trained "
        f"on some public task, {flags.fillna(False).sum(axis=1).max()} of them on the same one; "
        f"the patterns reassigned among those {known} within their {n_orgs} organisations, of "
        f"which {varying} have "
        "models trained differently), the simulated scores in place of the data's; "
        f"`families`: half of each model's interactions shared within its organisation; the "
        f"last, *by design*: each model's gain {_default(sim.trained_coverage, 'effect'):g} plus "
        f"a normal draw of SD {sd} (the interval assumes one gain common to every trained cell; "
        "its coverage is of their mean). "
        f"{8 * reps} data sets per row. *Mean shift*: the mean estimated `shift`.",
    ]
    return rows


def shape_rows(results: Path) -> list[str]:
    """The interactions' skewness and tails: RTEB(beta) against the departures that bend them."""
    wide = sim.audit_data(results, "as-of-post")[0]
    n_tasks, n_models = wide.shape
    rows = [
        f"| interactions | models | skewness over the {n_tasks} tasks: median, 75th "
        "percentile, largest | at least the data's, at each | excess kurtosis: median, 75th "
        "percentile, largest | at least the data's, at each |",
        "|---|---|---|---|---|---|",
    ]
    found = {f"{BENCHMARK} (the data)": sim.model_shape(wide.to_numpy(dtype=float))}
    for departure in ("heavy", *sim.LOG_SIGMA):
        x = sim.leaderboard(stream("skew", departure), n_tasks, 0, n_models, departure)[0]
        found[f"`{departure}`"] = sim.model_shape(x)
    data = [np.percentile(v, [50, 75, 100]) for v in next(iter(found.values()))]
    for i, (name, shape) in enumerate(found.items()):
        cells = [name, str(n_models)]
        for value, reference in zip(shape, data, strict=True):
            quantiles = np.percentile(value, [50, 75, 100])
            cells.append(", ".join(f"{q:.2f}" for q in quantiles))
            cells.append("—" if i == 0 else "yes" if (quantiles >= reference).all() else "no")
        rows.append(f"| {' | '.join(cells)} |")
    return rows


def _one_blas_thread() -> None:
    """A worker's BLAS on one thread: the workers already take every core."""
    threadpool_limits(1)


def on_every_core(function: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
    """``function`` over ``jobs`` on every core, in order (each job on its own streams: the
    same results as one by one)."""
    workers = os.cpu_count()
    with concurrent.futures.ProcessPoolExecutor(workers, initializer=_one_blas_thread) as pool:
        return list(pool.map(function, jobs))


def predictive_tallies(jobs: list[tuple[Any, ...]]) -> list[sim.PredictiveTally]:
    """The cells on every core (each on its own stream: the same tallies as one by one)."""
    cells = [
        ("predictive_cell", key, (reps, n, d), {"contamination": c}) for key, reps, n, d, c in jobs
    ]
    return on_every_core(_sim_job, cells)


def predictive_rows(reps: int) -> list[str]:
    """The departures at 34 models (``reps`` data sets) and at 60 (``reps * 2 // 5``)."""
    rows = [
        "| models | departure | swaps (the package; target 0.04–0.06) | the same at 1% "
        "| sign flips of the pseudo-values (before) | jackknife variance / variance of the "
        "statistic |",
        "|---|---|---|---|---|---|",
    ]
    cells = [(n, d) for n in (34, 60) for d in sim.PREDICTIVE_DEPARTURES]
    jobs = [
        (("pred-swap", n, d), reps if n == 34 else reps * 2 // 5, n, d, (0.1, 2.0))
        for n, d in cells
    ]
    for (n, departure), tally in zip(cells, predictive_tallies(jobs), strict=True):
        shown = ledger("predictive_comparison", f"{n} models {departure}", tally, "notebook")
        rows.append(
            f"| {n} | {departure} | {shown} | {tally.at_one} | {tally.flips} "
            f"| {tally.variance_ratio():.2f} |"
        )
    return rows


#: ``b``'s errors over ``a``'s in the coverage cells: the statistic about 1.8 and 3.4 of
#: its standard errors at 34 models (normal errors).
PREDICTIVE_SCALES = (1.5, 2.0)


def predictive_coverage_rows(reps: int) -> list[str]:
    """:func:`predictive_comparison`'s interval where ``a`` predicts better, 34 models."""
    plan = [(d, s) for s in PREDICTIVE_SCALES for d in sim.PREDICTIVE_DEPARTURES if d != "outlier"]
    jobs = [
        ("predictive_coverage", ("pred-cover", d, s), (reps, 34, d), {"scale_b": s})
        for d, s in plan
    ]
    rows = [
        "| departure | `b`'s errors × | true difference | coverage (target ≥ 0.95) "
        "| rejected at 5% | statistic's mean − the truth |",
        "|---|---|---|---|---|---|",
    ]
    for (departure, scale), (truth, covered, rejected, bias) in zip(
        plan, on_every_core(_power_job, jobs), strict=True
    ):
        where = f"34 models {departure}, b's errors x{scale:g}"
        shown = ledger("predictive_comparison: coverage", where, covered, "notebook", "coverage")
        rows.append(
            f"| {departure} | {scale:g} | {truth:.4f} | {shown} | {rejected} | {bias:+.4f} |"
        )
    return rows


#: The contamination sweep's probabilities and offsets (the departure's own: 0.1 and +2).
CONTAMINATION = ((0.05, 0.1, 0.2), (1.0, 2.0, 4.0))


def contamination_rows(reps: int) -> list[str]:
    """:func:`predictive_comparison` at 34 models, the contamination's share and size swept."""
    shares, offsets = CONTAMINATION
    grid = [(share, off) for share in shares for off in offsets if (share, off) != (0.1, 2.0)]
    jobs = [(("pred-off", *c), reps, 34, "contaminated", c) for c in grid]
    found = dict(zip(grid, predictive_tallies(jobs), strict=True))
    rows = [
        "| share of the predictors off | "
        + " | ".join(f"off by +{off:g}: swaps (target 0.04–0.06); flips" for off in offsets)
        + " |",
        "|---" * (len(offsets) + 1) + "|",
    ]
    for share in shares:
        cells = []
        for off in offsets:
            if (tally := found.get((share, off))) is None:
                cells.append("the table's `contaminated` row")
                continue
            where = f"34 models, {share:g} off by +{off:g}"
            shown = ledger("predictive_comparison", where, tally, "notebook")
            cells.append(f"{shown}; {tally.flips.rate:.3f}")
        rows.append(f"| {share:g} | {' | '.join(cells)} |")
    return rows


#: The one-sided nulls' cells: the departure and its share and offset (``one-sided off``).
ONE_SIDED = (
    ("one-sided off", (0.05, 4.0)),
    ("one-sided off", (0.1, 2.0)),
    ("one-sided off", (0.2, 1.0)),
    ("one-sided heavy", (0.0, 0.0)),
    ("one-sided unequal", (0.0, 0.0)),
)


def one_sided_rows(reps: int) -> list[str]:
    """:func:`predictive_comparison` at 34 models when only ``a`` departs (by design)."""
    jobs = [(("pred-one-sided", d, *c), reps, 34, d, c) for d, c in ONE_SIDED]
    rows = [
        "| `a`'s errors (`b`'s: normal, the same expected absolute error) | swaps at 5% "
        "| at 1% | flips (before) |",
        "|---|---|---|---|",
    ]
    for (departure, (share, off)), tally in zip(ONE_SIDED, predictive_tallies(jobs), strict=True):
        what = {
            "one-sided off": f"{share:g} of the models off by +{off:g}",
            "one-sided heavy": "0.3 t3 (heavy tails)",
            "one-sided unequal": "SD 0.15 + 0.3 \\|truth\\| (growing with the truth)",
        }[departure]
        shown = ledger("predictive_comparison", f"34 models, `a` only: {what}", tally, "design")
        rows.append(f"| {what} | {shown} | {tally.at_one} | {tally.flips} |")
    return rows


def main() -> None:
    args = parse_args()
    use_cache(args.cache, args.results)
    LEDGER.clear()
    reps = max(int(500 * args.scale), 10)
    start = time.perf_counter()
    rows = [
        "# Goodhart audit: type-I error, coverage and power by simulation",
        "",
        f"Written by `python benchmarks/bench_goodhart_validation.py` "
        f"(scale {args.scale:g}; each section says its data sets per cell) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
        f"{os.cpu_count()} cores. Cells: rate ± its Monte-Carlo standard error. Data: "
        f"`benchmarks/_goodhart_sim.py` (70 models; interactions SD 0.03; departures in its "
        f"docstring).",
        "",
        "## public_advantage: decisions and simultaneous intervals over 70 models",
        "",
        "Studentized max-T over 400 random sign patterns per data set (the function's default "
        "is 10,000; fewer patterns only add Monte-Carlo noise to the critical value). The "
        "family-wise error is of the decisions (`beyond_chance`: the step-down over the "
        "pooled null), the coverage of the intervals (the larger single-step critical value "
        "of the two centrings). "
        '"signs flip": one sign per task (no `clusters`), or one per pair of tasks, the '
        "pairs `corr-tasks` correlates (`clusters=` known; every task in a pair within its "
        f"side, {units(FULL)} clusters at {FULL[0]}/{FULL[1]}: a stress beyond the data's own "
        "clusters, whose rows follow this table); the rows *corr-tasks, tasks* "
        "measure what happens when related tasks are not clustered together (the "
        f"assumption of independent clusters violated). In pairs, {ENG[0]}/{ENG[1]} tasks are "
        f"{units(ENG)} clusters, under the {MIN_TASKS_PER_SIDE} a side needs: "
        "`public_advantage` tests no "
        "such split, and its kernel's rows here show why. "
        f"{20 * reps} data sets per error cell, {4 * reps} per coverage cell.",
        "",
        "How skewed and heavy-tailed the departures are against the data: per model, the "
        "sample skewness and excess kurtosis over the tasks of the interactions (the residuals "
        f"of the additive fit, task plus model), for {BENCHMARK}'s models complete on both "
        "sides as of the post, and for one simulated leaderboard of the same size per "
        "departure (`heavy`: Student t with 3 df; `skewed` and `mild-skew`: lognormal "
        f"sigma {sim.LOG_SIGMA['skewed']:g} and {sim.LOG_SIGMA['mild-skew']:g}).",
        "",
        *shape_rows(args.results),
        "",
    ]
    timed("public_advantage", rows, lambda: advantage_rows(reps))
    timed("data clusters", rows, lambda: data_cluster_section(reps))
    timed("partial nulls", rows, lambda: partial_null_rows(20 * reps))
    timed("references", rows, lambda: reference_section(4 * reps, args.results))
    rows += [
        "",
        "## advantage_predictors: type-I error at 5%, 70 models, 16/13 tasks",
        "",
        "True public advantages vary between models (SD 0.02) independently of the "
        "predictor, which is a random normal (ranked) or a group; *shared within families*: "
        "each family of models shares part of its true advantage too. Each test decides as "
        "the function does (the larger of the p-value of the t against its parametric "
        "bootstrap under the null, as many draws as shuffles, and that of "
        f"{_default(sim.predictor_cell, 'n_shuffles')} shuffles of the predictor; until "
        "2026-12-03 the t was referred to Student's t with Satterthwaite's df, conservative "
        "where the families' spread sits at its floor: `goodhart_boundary.md`), the "
        "families given as the notebook gives its organisations (`families=`). Every "
        "predictor is tested per model: the ranked and the random group, which vary within "
        "families; the group that is one family (the notebook's organisation predictor), "
        "which tests that family's own shared effect: its null is the same data set (the "
        "same draws) with family 0 sharing nothing of its own, the others' shared effects "
        "as the row draws them; and "
        "the last column's, one family and 2 models of another (the data's static models: "
        "one maker's 8 of 8, another's 2 of 9), whose contrast lies mostly between families "
        "(`family_share` near 1). With `families=`, the models' variance is the families' "
        "shared spread and the models' own, each weighted by the contrast (unbiased moments "
        "of a one-way split of the residuals, each sum of squares less its own task noise, "
        "correlated models included; Satterthwaite df; where that sum is not positive, the "
        "families are taken to share nothing: the pooled spread). Before, with the pooled "
        "spread alone, the last group rejected 0.237 and 0.266 with family-shared effects "
        "(this report as of 2026-11-30 12:08 UTC); the one-family group, tested on the "
        "families' means with its shuffles moving whole families, had p >= 1/F and rejected "
        "0.000–0.031 (this report as of 2026-11-30 19:06 UTC); judged per model against the "
        "spread of every family's shared effect, its own included (drawn at random in its "
        "null), it rejected 0.029 on the data's organisations sharing nothing (this report as "
        "of 2026-12-02 00:54 UTC): a variance estimated at its floor of zero is biased up, "
        "by about 40% there. SD 0.04 is twice the other "
        "rows' shared spread; *heavy-tailed*: the families' shared effects are t with 3 df "
        "(the same SD), against the t's assumption of normal ones. "
        "The last three rows have no true spread between the models (SD 0): the data's "
        "regime, where the observed advantages spread as much as their standard errors "
        "(`goodhart_audit`), so every spread is estimated at its floor. "
        f"Every row runs {PREDICTOR_SETS * reps} data sets (the cells are cheap; at 2,000 "
        "their standard errors, about 0.005, were a quarter of the target's width).",
        "",
    ]
    timed("advantage_predictors", rows, lambda: predictor_rows(reps, args.results))
    rows += [
        "",
        "### advantage_predictors with few models: power at the reported `detectable`",
        "",
        "Few models give few distinct arrangements of a group (the static kinds: 10 models), "
        "and an arrangement and its mirror (a group of half the models; reversed ranks) give "
        "the same |t|. A group whose arrangements are no more than the shuffles has each "
        "used once (exact), else the shuffles are drawn at random. `detectable` is reported "
        "only where the shuffles reach the level "
        f"0.05 / {notebook_tested()} (the audit's predictors tested) when the observed arrangement is the most "
        "extreme (drawn: with probability 0.8); else NaN (none). 16/13 tasks, normal "
        "interactions, true advantages SD 0.02, "
        f"{_default(sim.few_models_power, 'n_shuffles')} shuffles; the mean `detectable` of "
        f"{reps} null data sets, then the power at it over {4 * reps}. (Before a small group's "
        "arrangements were enumerated, drawn at random, the observed arrangement's own "
        "repeats among the draws counted against it: at 5 of 12 models the power fell short "
        "of 0.8.)",
        "",
    ]
    timed("few models", rows, lambda: few_models_rows(4 * reps))
    rows += [
        "",
        "## At true effects: the power at a reported `detectable`, the intervals' coverage",
        "",
        "The tables above measure errors where nothing is true; these, what the audit says of "
        "effects that are (`benchmarks/_goodhart_power.py`). First, `public_advantage`: the "
        "notebook reports for each model the advantage found with 80% power, "
        "(critical value + t quantile at 0.8) × se, which takes the standard error and the "
        "critical value as known. Model 0's mean reported value over "
        f"{4 * reps} null data sets is given to it as its true relative advantage (each other "
        f"model's is then -1/{K - 1} of it), in {4 * reps} fresh data sets; how often it is "
        "found: by the decisions (step-down, as the notebook declares) and by its "
        "simultaneous interval (single-step, what the formula assumes; the step-down finds at "
        "least as much). Departures whose spreads are the same in every data set (`unequal` "
        "redraws each model's, so no one `detectable` is a model's); the data's clusters are "
        "not drawn (independent tasks: *other calls*). "
        "Then `advantage_predictors`' intervals at a true effect, one predictor's effect per "
        "leaderboard, the families given (as the notebook calls it), the models' own "
        "advantages as the rows above draw them (SD 0.02) or none beside the predictor's "
        f"effect (SD 0, the data's regime), {2 * reps} data sets per cell.",
        "",
    ]
    timed("at true effects", rows, lambda: alternative_rows(reps, args.results))
    rows += [
        "",
        "## trained_task_effect: type-I error at 5% and coverage, 70 models, 16 tasks",
        "",
        "23 models trained on public tasks, 20 of them on the same task (RTEB(beta)'s "
        "pattern: two models of each of the 10 families); no effect of training; "
        f"{_default(sim.trained_draws, 'n_patterns')} reassignments of the training patterns, "
        "among all the models or only within each family (`families=`: what the null "
        "leaves exchangeable when a family's models share "
        f"their interactions). {max(reps // 2, 10)} data sets per row; the rows within the "
        f"families, as the notebook calls it, {8 * max(reps // 2, 10)} (until 2026-12-01 half "
        "as many: its cells' standard errors, about 0.007, were a third of the "
        "target's width). Last column, for "
        "those: every trained cell shifted by "
        f"{_default(sim.trained_coverage, 'effect'):g}, how often the interval (the shifts of the "
        "trained cells' scores the test does not reject) covers it. (Until 2026-12-01 the "
        "interval was of shifts of the relative scores, which a task's mean dilutes, and its "
        "target the statistic's mean: on the data's own design it covered 0.857–0.944.)",
        "",
    ]
    timed("trained_task_effect", rows, lambda: trained_rows(max(reps // 2, 10), args.results))
    rows += [
        "",
        "## predictive_comparison: type-I error at 5% and at 1%",
        "",
        "Two predictors of equal accuracy on different scales (`_goodhart_sim.predictive_cell` "
        f"lists the departures). {20 * reps} data sets per cell at 34 models (the data's "
        f"size), {8 * reps} at 60; "
        f"{_default(sim.predictive_cell, 'n_swaps')} swaps each, rejecting at p <= 0.05 "
        "(and 0.01): with (b + 1) / (B + 1) that is exactly the level for exchangeable data, "
        "as the default 9,999 swaps give (p < 0.05 with 99 swaps would be 0.04). The package "
        "refers its studentized statistic (the mean of the jackknife's pseudo-values over "
        "their standard error) to its values with each model's two predictions swapped at "
        "random, every line refitted. *Before*: the sign flips of the pseudo-values (999 "
        "patterns, p < 0.05), the package's test until 2026-11-30. The flips take the "
        "pseudo-values as independent; but a model far off one predictor pulls that line "
        "and so moves every other model's error under it, and the flips count those moves "
        "as independent evidence, where a swap moves the pull with the model (the sweep "
        "below). Last column: the mean squared standard error over the variance of the "
        "statistic across the data sets. *At 1%*: the same data sets at the level 0.01 "
        "(target about 0.01).",
        "",
    ]
    timed("predictive_comparison", rows, lambda: predictive_rows(20 * reps))
    rows += [
        "",
        "How the error moves with the contamination: each predictor of each of 34 models off "
        "with the probability of the row, by the offset of the column (errors SD 0.3, so +2 "
        "is about 7 of their SDs); each cell the swaps' error, then the flips'. "
        f"{8 * reps} data sets per cell.",
        "",
    ]
    timed("contamination", rows, lambda: contamination_rows(8 * reps))
    rows += [
        "",
        "*By design*: nulls under which `a` and `b` are equally accurate on average (the same "
        "expected absolute error) but not exchangeable, only `a` departing "
        "(`_goodhart_sim.one_sided_errors`). The test's stated null, exchangeability, is "
        "violated on purpose. Where `a`'s errors are rare and large, most samples of 34 "
        "models hold few of them and show `a` as the better predictor; no test of a mean "
        "over the models can see a rare error it has not sampled. "
        f"{8 * reps} data sets per cell.",
        "",
    ]
    timed("one-sided", rows, lambda: one_sided_rows(8 * reps))
    rows += [
        "",
        "## predictive_comparison: its interval where one predictor is better",
        "",
        "At the null the interval covers 0 exactly when the test does not reject, so its "
        "coverage there is 1 minus the errors above. Here `a` predicts better: `b`'s errors "
        "(`_goodhart_sim.predictive_data`) are the row's multiple of `a`'s, at 34 models (the "
        "data's size), with "
        f"{_default(power.predictive_coverage, 'n_swaps')} swaps per data set. The true "
        "difference (`b`'s line's mean absolute error minus `a`'s) is the population's: both "
        "lines and means over a million models of the row's design "
        "(`_goodhart_power.predictive_truth`; at normal errors it matches the closed form, "
        "tested). Every departure of the table above but `outlier` (its three fixed models "
        f"have no population). {10 * reps} data sets per cell.",
        "",
    ]
    timed("predictive coverage", rows, lambda: predictive_coverage_rows(10 * reps))
    rows += ["", f"Total time: {time.perf_counter() - start:.0f} s.", ""]
    at = rows.index("## public_advantage: decisions and simultaneous intervals over 70 models")
    rows[at:at] = ledger_section()
    atomic_write_text(args.out, "\n".join(rows))
    print(f"Wrote {args.out}")


if __name__ == "__main__":
    main()
