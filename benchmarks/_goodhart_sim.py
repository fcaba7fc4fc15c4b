"""Simulated leaderboards for the Goodhart audit's tests, at the data's sizes, with departures.

Used by ``benchmarks/bench_goodhart_validation.py`` (many replicates, writes
``benchmarks/results/goodhart_validation.md``) and ``tests/stats/test_advantage.py`` (few).
The simulations call the kernels of the public functions (:mod:`analysis.stats.advantage`:
``_relative``, ``_welch_parts``, ``simultaneous``, ``predictor_row``; and the public
:func:`~analysis.stats.trained_task_effect` and :func:`~analysis.stats.predictive_comparison`);
the tests check that the kernels give the public functions' numbers.

A leaderboard: ``x[t, j] = task_t + model_j + d_j [t public] + e[t, j]``: task difficulty
N(0.5, 0.1), model skill N(0, 0.08), the true public advantage ``d_j`` (0 under the null),
and the model x task interaction ``e`` (SD 0.03), with one of these departures:

* ``normal``: iid normal;
* ``heavy``: Student t with 3 df (same SD);
* ``skewed``: centred lognormal(0, 1) (skewness 6), same SD: far beyond the data;
* ``mild-skew``: centred lognormal(0, 0.25) (skewness 0.78), same SD: at least as skewed as
  RTEB(beta)'s own interactions (:func:`model_shape`; the bench prints both);
* ``unequal``: each model its own SD (uniform 0.01 to 0.06), the private side twice as spread;
* ``mild-unequal``: as ``unequal``, the private side 1.25 times as spread (RTEB(beta)'s
  own ratio: :func:`spread_ratio`);
* ``tighter``: as ``unequal``, the private side half as spread (RTEB(eng, beta)'s private
  side is less spread than its public one);
* ``corr-tasks``: tasks in pairs within each side, their interactions correlated at 0.7;
* ``pairs`` (a keyword, beside a departure other than these two): the data's own
  near-duplicate clusters (:func:`data_pairs`), each a public task and a private task
  whose interactions correlate as the data's do;
* ``families``: ten families of models (model j in family j mod 10) sharing half of the
  interaction variance;
* ``outlier``: one model gains 0.15 on the public side (the others are null; it is not
  counted in the family-wise error, which is over the true nulls).
"""

from __future__ import annotations

import math
import os
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from analysis.stats import predictive_comparison, trained_task_effect
from analysis.stats._resampling import _pvalue, sign_patterns
from analysis.stats.advantage import _relative, _welch_parts, predictor_row, simultaneous
from analysis.stats.paired import _paired_tests
from analysis.stats.predictive import pseudo_values

DEPARTURES = (
    "normal",
    "heavy",
    "skewed",
    "mild-skew",
    "unequal",
    "corr-tasks",
    "families",
    "outlier",
)
SD = 0.03
#: The benchmark whose data the benches set the simulations against.
BENCHMARK = "RTEB(beta)"
#: Its results snapshot: ``$STATIC_RTEB_RESULTS``, else ``../shared/mteb-cache``.
RESULTS = Path(
    os.environ.get("STATIC_RTEB_RESULTS")
    or Path(__file__).resolve().parents[2] / "shared" / "mteb-cache"
)
#: The lognormal's sigma of each skewed departure.
LOG_SIGMA = {"skewed": 1.0, "mild-skew": 0.25}
#: How many times as spread as the public side the private side is, per unequal departure.
PRIVATE_SPREAD = {"unequal": 2.0, "mild-unequal": 1.25, "tighter": 0.5}


def interactions(
    rng: np.random.Generator,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    pairs: Sequence[float] = (),
    family: np.ndarray | None = None,
) -> np.ndarray:
    """The model x task interaction e (tasks x models; the public tasks first).

    ``family``: each model's family code for ``families`` (default: model j in family j mod 10).

    ``pairs``: public task i and private task i (i < len(pairs)) correlate at ``pairs[i]``
    over the models (:func:`data_pairs`), before any spreads are scaled; a paired private
    task, a mix of two draws, is a little less heavy-tailed or skewed than the others.
    Not with ``corr-tasks`` or ``families``, which mix the tasks again (ValueError).
    """
    if len(pairs) and departure in ("corr-tasks", "families"):
        raise ValueError(f"`pairs` with {departure!r}: its own mixing would undo theirs")
    n = n1 + n2
    if departure == "heavy":
        e = stats.t.rvs(3, size=(n, k), random_state=rng) * SD / np.sqrt(3.0)
    elif departure in LOG_SIGMA:
        s2 = LOG_SIGMA[departure] ** 2
        raw = rng.lognormal(0.0, LOG_SIGMA[departure], (n, k))
        e = (raw - np.exp(s2 / 2)) / np.sqrt((np.exp(s2) - 1) * np.exp(s2)) * SD
    else:
        e = rng.normal(0.0, SD, (n, k))
    for i, r in enumerate(pairs):
        e[n1 + i] = r * e[i] + math.sqrt(1.0 - r * r) * e[n1 + i]
    if departure in PRIVATE_SPREAD:
        e *= rng.uniform(1 / 3, 2.0, k)
        e[n1:] *= PRIVATE_SPREAD[departure]
    elif departure == "corr-tasks":
        for start, stop in ((0, n1), (n1, n)):
            for t in range(start, stop - 1, 2):
                e[t + 1] = 0.7 * e[t] + np.sqrt(1 - 0.49) * e[t + 1]
    elif departure == "families":
        family = np.arange(k) % 10 if family is None else np.asarray(family)
        shared = rng.normal(0.0, SD, (n, int(family.max()) + 1))
        e = np.sqrt(0.5) * e + np.sqrt(0.5) * shared[:, family]
    return e


def model_shape(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each model's sample skewness and excess kurtosis over the tasks of its interactions.

    ``x`` tasks x models; the interactions are the residuals of the additive fit (task
    plus model), as the simulation draws them.
    """
    e = x - x.mean(axis=0) - x.mean(axis=1, keepdims=True) + x.mean()
    return np.asarray(stats.skew(e, axis=0)), np.asarray(stats.kurtosis(e, axis=0))


def spread_ratio(x_pub: np.ndarray, x_priv: np.ndarray) -> np.ndarray:
    """Each model's SD over the private tasks of its relative score over its SD over the public.

    ``x_pub``/``x_priv`` tasks x models; the relative score as :func:`public_advantage`
    takes it (the model minus the mean of the others, task by task).
    """
    return np.asarray(_relative(x_priv).std(axis=0, ddof=1) / _relative(x_pub).std(axis=0, ddof=1))


def audit_data(
    results: Path, pin: str, benchmark: str = BENCHMARK
) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The audit's scores (tasks x models complete on both sides), public and private tasks."""
    from analysis.results.leaderboard import load_leaderboards

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = load_leaderboards([benchmark], results=results, pin=pin)[benchmark]
    both = board.complete_models("public", "private")
    public, private = board.spec.scope_tasks("public"), board.spec.scope_tasks("private")
    return board.wide(complete_only=False)[both].loc[public + private], public, private


def trained_design(results: Path = RESULTS) -> tuple[pd.DataFrame, pd.Series]:
    """The audit's training flags on the public tasks and its organisations (as of the post)."""
    from analysis.results.groups import organisations
    from analysis.results.training import trained_on

    wide, public, _ = audit_data(results, "as-of-post")
    return trained_on(list(wide.columns), public), organisations(wide.columns)


def leaderboard(
    rng: np.random.Generator,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    advantage: np.ndarray | None = None,
    pairs: Sequence[float] = (),
    family: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One simulated leaderboard: public scores, private scores, the true advantages d."""
    d = np.zeros(k) if advantage is None else np.asarray(advantage, dtype=float).copy()
    if departure == "outlier":
        d[0] += 0.15
    x = rng.normal(0.5, 0.1, (n1 + n2, 1)) + rng.normal(0.0, 0.08, k)
    x = x + interactions(rng, n1, n2, k, departure, pairs, family)
    x[:n1] += d
    return x[:n1], x[n1:], d


def relative_board(
    rng: np.random.Generator,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    advantage: np.ndarray | None,
    level: float,
    pairs: Sequence[float] = (),
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """A :func:`leaderboard` as the functions see it: the relative scores of each side,
    the models' Welch parts at ``level``, and the true advantages."""
    x_pub, x_priv, truth = leaderboard(rng, n1, n2, k, departure, advantage, pairs)
    y_pub, y_priv = _relative(x_pub), _relative(x_priv)
    return y_pub, y_priv, _welch_parts(y_pub, y_priv, level), truth


def pair_clusters(n1: int, n2: int) -> np.ndarray:
    """The cluster code of every task under ``corr-tasks``: pairs (t, t + 1) within a side."""
    public = np.arange(n1) // 2
    return np.concatenate([public, public.max() + 1 + np.arange(n2) // 2])


def cross_pair_clusters(n1: int, n2: int, m: int) -> np.ndarray:
    """The cluster code of every task under ``pairs``: public task i and private task i
    (i < ``m``) share one, every other task is its own."""
    private = np.concatenate([np.arange(m), n1 + np.arange(n2 - m)])
    return np.concatenate([np.arange(n1), private])


def data_pairs(
    benchmark: str, clusters_of: str = BENCHMARK, pin: str = "as-of-post"
) -> tuple[int, int, tuple[float, ...]]:
    """``benchmark``'s public and private task counts under ``pin``, and its task pairs.

    The pairs are the clusters the notebook flips as one unit on ``benchmark``:
    ``clusters_of``'s (``analysis/results/clusters.json``; the notebook passes the audited
    benchmark's clusters to its sub-benchmarks too), restricted to ``benchmark``'s tasks.
    Each cluster left with two tasks must pair a public with a private one (ValueError
    otherwise: :func:`interactions` draws only such pairs). Returns each pair's residual
    correlation over the models, as the file records it (``mean_correlation``).
    """
    from analysis.results.clusters import cluster_details
    from analysis.results.specs import resolve_spec

    spec = resolve_spec(benchmark, pin=pin)
    public, private = spec.scope_tasks("public"), spec.scope_tasks("private")
    found = []
    for cluster in cluster_details(clusters_of):
        tasks = [t for t in cluster["tasks"] if t in public or t in private]
        if len(tasks) < 2:  # a task of another pin or another benchmark: no pair here
            continue
        if len(tasks) != 2 or sum(t in public for t in tasks) != 1:
            raise ValueError(f"{benchmark}: {cluster['label']} is not a public-private pair")
        found.append(float(cluster["mean_correlation"]))
    return len(public), len(private), tuple(found)


def relative_truth(d: np.ndarray) -> np.ndarray:
    """The true public advantage relative to the other models: d_j - mean of the others."""
    k = len(d)
    return d - (d.sum() - d) / (k - 1)


@dataclass
class Tally:
    """Counts of one simulation cell."""

    reps: int = 0
    hits: int = 0

    def add(self, hit: bool) -> None:
        self.reps += 1
        self.hits += int(hit)

    @property
    def rate(self) -> float:
        return self.hits / max(self.reps, 1)

    def __str__(self) -> str:
        """``rate ± its Monte-Carlo standard error``, as the results tables show a cell."""
        p = self.rate
        return f"{p:.3f} ± {math.sqrt(max(p * (1 - p), 1e-12) / max(self.reps, 1)):.3f}"


def stream(seed: int, *key: object) -> np.random.Generator:
    """The random stream of one cell: ``seed`` and the CRC-32 of each part of its key."""
    return np.random.default_rng([seed, *(zlib.crc32(str(k).encode()) for k in key)])


def decided_board(
    rng: np.random.Generator,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    advantage: np.ndarray | None,
    *,
    n_patterns: int,
    level: float,
    codes: np.ndarray | None = None,
    pairs: Sequence[float] = (),
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray, np.ndarray, float]:
    """A :func:`relative_board` decided as :func:`public_advantage` decides it.

    Returns its relative scores, Welch parts and true advantages, then the step-down
    adjusted p-values and the intervals' critical value (:func:`simultaneous`), over
    ``n_patterns`` sign patterns of the tasks (of the clusters ``codes``, if given).
    """
    y_pub, y_priv, w, truth = relative_board(rng, n1, n2, k, departure, advantage, level, pairs)
    n_units = n1 + n2 if codes is None else int(codes.max()) + 1
    patterns = sign_patterns(n_units, n_patterns, rng)
    adjusted, c = simultaneous(y_pub, y_priv, np.abs(w["t"]), patterns, 1 - level, codes)
    return y_pub, y_priv, w, truth, adjusted, c


def advantage_cell(
    rng: np.random.Generator,
    reps: int,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    *,
    spread: float = 0.0,
    n_patterns: int = 400,
    level: float = 0.95,
    clustered: bool = False,
    pairs: Sequence[float] = (),
) -> tuple[Tally, Tally, Tally]:
    """:func:`public_advantage`'s family-wise error and simultaneous coverage.

    ``spread``: SD of the true advantages (0: the global null). ``pairs``: the data's
    public-private pairs (:func:`data_pairs`). ``clustered``: the signs flip each pair
    together (``pairs``, else those of ``corr-tasks``: the clusters known). Returns (any
    true null declared beyond chance, every interval covering its true advantage, any
    true null's interval excluding 0).
    """
    errors, covered, excluded = Tally(), Tally(), Tally()
    codes = None
    if clustered:
        codes = cross_pair_clusters(n1, n2, len(pairs)) if len(pairs) else pair_clusters(n1, n2)
    for _ in range(reps):
        d = rng.normal(0.0, spread, k) if spread else None
        *_, w, truth, adjusted, c = decided_board(
            rng,
            n1,
            n2,
            k,
            departure,
            d,
            n_patterns=n_patterns,
            level=level,
            codes=codes,
            pairs=pairs,
        )
        target = relative_truth(truth)
        low, high = w["estimate"] - c * w["se"], w["estimate"] + c * w["se"]
        null = np.ones(k, bool) if spread else truth == 0
        errors.add(bool((adjusted < 1 - level)[null].any()))  # beyond chance, as decided
        excluded.add(bool(((low > 0) | (high < 0))[null].any()))
        covered.add(bool(((low <= target) & (target <= high)).all()))
    return errors, covered, excluded


def partial_null_cell(
    rng: np.random.Generator,
    reps: int,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    *,
    gaining: int = 10,
    spread: float = 0.05,
    n_patterns: int = 400,
    level: float = 0.95,
) -> tuple[Tally, Tally, np.ndarray]:
    """Some models truly gain: where :func:`public_advantage`'s step-down goes past its first step.

    The first ``gaining`` models get advantages N(0, ``spread``), centred so that every other
    model's relative advantage is exactly 0 (true nulls). Returns the family-wise error over
    the true nulls of the decisions and of the intervals (some interval excluding 0), and
    the mean share of the gaining models each finds.
    """
    errors, excluded, found = Tally(), Tally(), np.zeros(2)
    null = np.arange(k) >= gaining
    for _ in range(reps):
        d = np.zeros(k)
        d[:gaining] = rng.normal(0.0, spread, gaining)
        d[:gaining] -= d[:gaining].mean()
        *_, w, _, adjusted, c = decided_board(
            rng, n1, n2, k, departure, d, n_patterns=n_patterns, level=level
        )
        decided, outside = adjusted < 1 - level, np.abs(w["t"]) > c
        errors.add(bool(decided[null].any()))
        excluded.add(bool(outside[null].any()))
        found += decided[~null].mean(), outside[~null].mean()
    return errors, excluded, found / max(reps, 1)


def label_max_t(y_pub: np.ndarray, y_priv: np.ndarray, public: np.ndarray) -> np.ndarray:
    """The reference :func:`public_advantage` does not use: the tasks relabelled.

    ``public`` (relabellings x tasks, boolean; the tasks public first, then private) says
    which tasks each relabelling calls public, as many as there are: a whole task's row
    moves, so the models' dependence is kept. Per relabelling, the largest absolute Welch
    t over the models. Exact when the tasks' rows are exchangeable between the sides (the
    same distribution on both, whatever its shape); not when the sides' spreads differ.
    Returns (relabellings,).
    """
    y, a = np.vstack([y_pub, y_priv]), np.asarray(public, dtype=float)
    n1, n2 = len(y_pub), len(y_priv)
    m1, m2 = a @ y / n1, (1 - a) @ y / n2
    v1 = (a @ y**2 - n1 * m1**2) / ((n1 - 1) * n1)
    v2 = ((1 - a) @ y**2 - n2 * m2**2) / ((n2 - 1) * n2)
    return np.asarray((np.abs(m1 - m2) / np.sqrt(v1 + v2)).max(axis=1))


def relabellings(n1: int, n2: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random relabellings of ``n1 + n2`` tasks, ``n1`` of them public (n x tasks)."""
    public = np.zeros((n, n1 + n2), dtype=bool)
    np.put_along_axis(public, np.argsort(rng.random((n, n1 + n2)), axis=1)[:, :n1], True, axis=1)
    return public


def reference_cell(
    rng: np.random.Generator,
    reps: int,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    *,
    n_patterns: int = 400,
    level: float = 0.95,
) -> tuple[Tally, Tally]:
    """Family-wise error of the two references over the true nulls, on the same data sets.

    :func:`public_advantage`'s decisions (:func:`decided_board`) and the relabelling of
    :func:`label_max_t`, each with ``n_patterns`` draws. Returns (flips, relabellings).
    """
    flips, labels = Tally(), Tally()
    for _ in range(reps):
        y_pub, y_priv, w, truth, adjusted, _ = decided_board(
            rng, n1, n2, k, departure, None, n_patterns=n_patterns, level=level
        )
        observed = np.abs(w["t"])[truth == 0].max()  # a true null beyond the critical value
        flips.add(bool((adjusted < 1 - level)[truth == 0].any()))  # beyond chance, as decided
        null = label_max_t(y_pub, y_priv, relabellings(n1, n2, n_patterns, rng))
        beyond = (null >= observed).sum()
        labels.add(bool(_pvalue(beyond, n_patterns, exact=False) < 1 - level))  # as drawn flips
    return flips, labels


def random_predictors(
    rng: np.random.Generator, k: int, n_true: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random ranked predictor and group of ``k`` models: the normal draws ``z``, the
    group of ``n_true`` models at random, and ``z``'s standardized ranks (mean 0, SD 1)."""
    z = rng.normal(size=k)
    group = np.zeros(k, bool)
    group[rng.choice(k, n_true, replace=False)] = True
    ranks = stats.rankdata(z)
    return z, group, (ranks - ranks.mean()) / ranks.std()


def predictor_cell(
    rng: np.random.Generator,
    reps: int,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    *,
    spread: float = 0.02,
    family_spread: float = 0.0,
    effect: float = 0.0,
    n_true: int = 8,
    level: float = 0.95,
    alpha: float = 0.05,
    m: int = 7,
    n_shuffles: int = 999,
    family_sizes: Sequence[int] = (),
    family_tails: bool = False,
) -> tuple[dict[str, Tally], dict[str, float]]:
    """:func:`advantage_predictors`' rejection rate for a ranked and a group predictor.

    The true advantages vary between models (SD ``spread``; ``family_spread`` adds an
    effect shared by each family: model j in family j mod 10, or families of
    ``family_sizes`` models); ``effect`` adds ``effect * z`` (z the standardized ranks of
    the predictor) and ``effect`` to the group of ``n_true`` random models. ``family``:
    the group is family 0 (7 of 70 models; the first of ``family_sizes``), whose own shared
    effect is what that group tests: its null, the same data set (the same draws) with
    family 0's shared effect 0, the other families' as drawn; ``near``: family
    0 and 2 models of family 1 (tested per model, its contrast mostly between families,
    as the data's static models: one maker's 8 of 8, another's 2 of 9). Rejection at
    ``alpha``, one predictor at a time, ``n_shuffles`` shuffles of it, the families given
    as the notebook gives its organisations (``families=``); ``family_tails``: the shared
    effects heavy-tailed (t with 3 df, the same SD). Also returns each predictor's mean
    detectable effect at 80% power and the level 0.05 / ``m`` (``m`` predictors,
    Bonferroni).
    """
    out = {name: Tally() for name in ("rank", "group", "family", "near")}
    found: dict[str, list[float]] = {name: [] for name in out}
    sizes = np.asarray(family_sizes, dtype=int)
    family = np.repeat(np.arange(len(sizes)), sizes) if len(sizes) else np.arange(k) % 10
    if len(family) != k:
        raise ValueError(f"`family_sizes` must add up to the {k} models")
    for _ in range(reps):
        z, group, zs = random_predictors(rng, k, n_true)
        d, n_families = rng.normal(0.0, spread, k), family.max() + 1  # first: the streams
        if family_tails:  # t with 3 df, SD 1
            shared = rng.standard_t(3, n_families) / np.sqrt(3)
        else:
            shared = rng.normal(size=n_families)
        d += family_spread * shared[family]
        d += effect * zs + effect * group
        own = d - family_spread * shared[0] * (family == 0)  # family 0's null: no effect of its own
        twin = np.random.Generator(type(rng.bit_generator)())
        twin.bit_generator.state = rng.bit_generator.state  # the same draws: the same task noise
        y_pub, y_priv, each, _ = relative_board(rng, n1, n2, k, departure, d, level)
        boards = {"family": relative_board(twin, n1, n2, k, departure, own, level)[:3]}
        columns = [
            pd.Series(z, name="rank"),
            pd.Series(group, name="group"),
            pd.Series(family == 0, name="family"),
            pd.Series(
                (family == 0) | np.isin(np.arange(k), np.flatnonzero(family == 1)[:2]), name="near"
            ),
        ]
        for column in columns:
            row = predictor_row(
                *boards.get(str(column.name), (y_pub, y_priv, each)),
                column,
                confidence_level=level,
                power=0.8,
                m=m,
                n_resamples=n_shuffles,
                gen=rng,
                strata=family,
            )
            out[str(column.name)].add(row["pvalue"] < alpha)
            found[str(column.name)].append(row["detectable"])
    return out, {name: float(np.mean(v)) for name, v in found.items()}


def few_models_power(
    rng: np.random.Generator,
    reps: int,
    k: int,
    n_a: int,
    *,
    spread: float = 0.02,
    m: int = 10,
    n_shuffles: int = 999,
) -> tuple[float, float, Tally | None]:
    """Power of :func:`advantage_predictors` at the ``detectable`` it reports, with few models.

    ``k`` models on 16/13 tasks (normal interactions, true advantages SD ``spread``), one
    predictor of ``m`` (the level 0.05 / ``m``): a group of ``n_a`` random models, or with
    ``n_a`` 0 a random ranked predictor. ``reps // 4`` null data sets give the mean
    reported ``detectable`` and the share of them that report none (NaN); ``reps`` data
    sets with that effect added give the power at it. Returns (mean detectable, share
    NaN, power; None when every data set reported none).
    """

    def row(effect: float) -> dict:
        if n_a:
            column = pd.Series(np.isin(np.arange(k), rng.choice(k, n_a, replace=False)))
            shift = column.to_numpy(dtype=float)
        else:
            column = pd.Series(rng.normal(size=k))
            ranks = stats.rankdata(column)
            shift = (ranks - ranks.mean()) / ranks.std()
        d = rng.normal(0.0, spread, k) + effect * shift
        y_pub, y_priv, each, _ = relative_board(rng, 16, 13, k, "normal", d, 0.95)
        return predictor_row(
            y_pub,
            y_priv,
            each,
            column.rename("p"),
            confidence_level=0.95,
            power=0.8,
            m=m,
            n_resamples=n_shuffles,
            gen=rng,
        )

    found = np.array([row(0.0)["detectable"] for _ in range(reps // 4)])
    if np.isnan(found).all():
        return np.nan, 1.0, None
    effect, power = float(np.nanmean(found)), Tally()
    for _ in range(reps):
        power.add(row(effect)["pvalue"] < 0.05 / m)
    return effect, float(np.isnan(found).mean()), power


def trained_cell(rng: np.random.Generator, reps: int, departure: str, **design: Any) -> Tally:
    """:func:`trained_task_effect`'s rejection rate at 5% (``design``: :func:`trained_draws`')."""
    return trained_draws(rng, reps, departure, **design)[0]


def trained_coverage(
    rng: np.random.Generator,
    reps: int,
    departure: str,
    *,
    effect: float = 0.05,
    **design: Any,
) -> tuple[Tally, float]:
    """How often :func:`trained_task_effect`'s interval covers the common gain ``effect`` of the
    trained cells' scores, and the mean estimated ``shift`` (``design``: :func:`trained_draws`';
    within families unless told; with ``gain_sd`` the models' gains differ around ``effect``)."""
    design.setdefault("within_families", True)
    _, shifts, low, high = trained_draws(rng, reps, departure, effect=effect, **design)
    tally = Tally()
    for lo, hi in zip(low, high, strict=True):
        tally.add(lo <= effect <= hi)
    return tally, float(np.mean(shifts))


def trained_draws(
    rng: np.random.Generator,
    reps: int,
    departure: str,
    *,
    n_tasks: int = 16,
    k: int = 70,
    n_trained_models: int = 23,
    effect: float = 0.0,
    n_patterns: int = 999,
    within_families: bool = False,
    design: tuple[pd.DataFrame, pd.Series] | None = None,
    gain_sd: float = 0.0,
) -> tuple[Tally, list[float], list[float], list[float]]:
    """:func:`trained_task_effect` on simulated data sets: rejections at 5%, shifts, intervals.

    As on RTEB(beta): ``n_trained_models`` models trained on public tasks, 20 of them on
    the same task, the others on three tasks each; ``effect`` is the gain on a trained
    task. ``within_families``: the patterns are reassigned within the families of
    ``families`` (model j in family j mod 10), passed as ``families=``. ``design``: the
    data's own training flags (tasks x models, ``<NA>`` unknown) and organisations instead:
    its tasks, models, patterns and families (``families`` shares within the organisations).
    ``gain_sd``: each model's gain is ``effect`` plus a normal draw of that SD (not common).
    """
    tally, shifts, low, high = Tally(), [], [], []
    tasks = [f"t{i:02d}" for i in range(n_tasks)]
    models = [f"m{j:02d}" for j in range(k)]
    family = np.arange(k) % 10
    if design is not None:
        tasks, models = list(design[0].index), list(design[0].columns)
        n_tasks, k = len(tasks), len(models)
        family = pd.factorize(design[1].loc[models])[0]
        trained, flags = design[0], design[0].fillna(False).to_numpy(dtype=bool)  # fixed
    for _ in range(reps):
        x, _, _ = leaderboard(rng, n_tasks, 2, k, departure, family=family)
        if design is None:
            flags = np.zeros((n_tasks, k), bool)
            flags[0, :20] = True
            for j in range(20, n_trained_models):
                flags[rng.choice(n_tasks, 3, replace=False), j] = True
            trained = pd.DataFrame(flags, index=tasks, columns=models)
        gain = effect + (rng.normal(0.0, gain_sd, k) if gain_sd else 0.0)  # same streams at 0
        x = x + gain * flags
        scores = pd.DataFrame(x, index=tasks, columns=models)
        families = dict(zip(models, family, strict=True)) if within_families else None
        res = trained_task_effect(
            scores, trained, families=families, n_resamples=n_patterns, rng=rng
        )
        tally.add(res.pvalue < 0.05)
        shifts.append(res.shift)
        low.append(res.confidence_interval.low)
        high.append(res.confidence_interval.high)
    return tally, shifts, low, high


@dataclass
class PredictiveTally(Tally):
    """A :func:`predictive_cell`: its rejections at 5% and at 1%, the flips' (the rule
    before the swaps), the statistics and their standard errors."""

    at_one: Tally = field(default_factory=Tally)
    flips: Tally = field(default_factory=Tally)
    statistics: list[float] = field(default_factory=list)
    ses: list[float] = field(default_factory=list)

    def variance_ratio(self) -> float:
        """Mean jackknife variance over the variance of the statistic across the data sets.

        Above 1: the jackknife overstates that spread.
        """
        return float(np.mean(np.square(self.ses)) / np.var(self.statistics, ddof=1))


#: The departures of :func:`predictive_cell`, in the bench's order.
PREDICTIVE_DEPARTURES = (
    "normal",
    "heavy",
    "correlated",
    "outlier",
    "unequal",
    "skewed",
    "contaminated",
)
#: Nulls where ``a`` and ``b`` are equally accurate on average (the same expected absolute
#: error) but not exchangeable: ``a``'s errors rare and large, heavy-tailed, or growing
#: with the truth, ``b``'s normal. The test's stated null (exchangeability) is violated
#: on purpose: they show what a mean over the models can and cannot see.
ONE_SIDED_DEPARTURES = ("one-sided off", "one-sided heavy", "one-sided unequal")
#: Lognormal(0, 0.8), centred and scaled to SD 1: the ``skewed`` errors (its mean is
#: exp(0.8**2 / 2), its variance (exp(0.8**2) - 1) exp(0.8**2)).
_LOGNORMAL_MEAN, _LOGNORMAL_SD = np.exp(0.32), np.sqrt((np.exp(0.64) - 1) * np.exp(0.64))


def one_sided_errors(
    rng: np.random.Generator, departure: str, truth: np.ndarray, contamination: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """``a``'s and ``b``'s errors under a one-sided null: the same expected absolute error.

    ``one-sided off``: ``a``'s normal errors (SD 0.3) off by the offset with the
    probability of ``contamination``; ``one-sided heavy``: ``a``'s 0.3 t3; ``one-sided
    unequal``: ``a``'s SD 0.15 + 0.3 |truth|. ``b``'s errors are normal, their SD set to
    give ``a``'s expected absolute error (E|N(0, s)| = s sqrt(2 / pi)).
    """
    n, half_normal = len(truth), np.sqrt(2 / np.pi)
    if departure == "one-sided off":
        share, off = contamination
        ea = rng.normal(0.0, 0.3, n) + off * (rng.random(n) < share)
        far = 0.3 * half_normal * np.exp(-(off**2) / 0.18) + off * (
            1 - 2 * stats.norm.cdf(-off / 0.3)
        )
        mean_abs = (1 - share) * 0.3 * half_normal + share * far
    elif departure == "one-sided heavy":
        ea, mean_abs = 0.3 * stats.t.rvs(3, size=n, random_state=rng), 0.3 * 2 * np.sqrt(3) / np.pi
    else:
        ea = rng.normal(0.0, 1.0, n) * (0.15 + 0.3 * np.abs(truth))
        mean_abs = (0.15 + 0.3 * half_normal) * half_normal
    return ea, rng.normal(0.0, mean_abs / half_normal, n)


def predictive_data(
    rng: np.random.Generator,
    n: int,
    departure: str,
    *,
    contamination: tuple[float, float] = (0.1, 2.0),
    scale_b: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One data set of :func:`predictive_cell`: the target, ``a`` and ``b`` of ``n`` models.

    target = truth + noise; a = truth + e_a; b = 2 truth + 2 e_b (another scale, the same
    accuracy after the line); errors SD 0.3, ``b``'s times ``scale_b`` (1: the null; above:
    ``a`` predicts better, for :func:`_goodhart_power.predictive_coverage`; the one-sided
    departures only at 1). Departures: ``heavy`` (t3 errors), ``outlier`` (three models far
    off on both predictors), ``correlated`` (e_a and e_b correlated at 0.6), ``unequal``
    (the target's noise SD 0.15 + 0.3 |truth|), ``skewed`` (centred lognormal errors,
    skewness 3.7), ``contaminated`` (each predictor of each model off by +2 with probability
    0.1, independently; ``contamination``: that probability and offset), and
    :data:`ONE_SIDED_DEPARTURES` (:func:`one_sided_errors`).
    """
    truth = rng.normal(size=n)
    spread = 0.15 + 0.3 * np.abs(truth) if departure == "unequal" else 0.3
    target = truth + rng.normal(0.0, 1.0, n) * spread
    if departure in ONE_SIDED_DEPARTURES:
        if scale_b != 1.0:
            raise ValueError(f"{departure!r} is a null: `scale_b` must be 1")
        ea, eb = one_sided_errors(rng, departure, truth, contamination)
    elif departure == "heavy":
        ea, eb = (stats.t.rvs(3, size=n, random_state=rng) * 0.3 for _ in range(2))
    elif departure == "correlated":
        ea = rng.normal(0.0, 0.3, n)
        eb = 0.6 * ea + np.sqrt(1 - 0.36) * rng.normal(0.0, 0.3, n)
    elif departure == "skewed":
        ea, eb = (
            0.3 * (rng.lognormal(0.0, 0.8, n) - _LOGNORMAL_MEAN) / _LOGNORMAL_SD for _ in range(2)
        )
    else:
        ea, eb = rng.normal(0.0, 0.3, n), rng.normal(0.0, 0.3, n)
    eb = eb * scale_b
    if departure == "outlier":
        ea[:3] += 2.0
        eb[:3] += 2.0
    if departure == "contaminated":
        share, off = contamination
        ea, eb = ea + off * (rng.random(n) < share), eb + off * (rng.random(n) < share)
    return target, truth + ea, 2 * (truth + eb)


def predictive_cell(
    rng: np.random.Generator,
    reps: int,
    n: int,
    departure: str,
    *,
    contamination: tuple[float, float] = (0.1, 2.0),
    n_swaps: int = 99,
) -> PredictiveTally:
    """:func:`predictive_comparison`'s rejection rate at 5% when neither predictor is better.

    The data sets: :func:`predictive_data` (its departures). ``n_swaps`` swaps per data
    set, rejecting at p <= 0.05 and p <= 0.01: with (b + 1) / (B + 1) and B + 1 a multiple
    of 100, exactly those levels for exchangeable data, as the default 9,999 swaps give.
    ``flips``: the sign flips of the pseudo-values, the package's test until 2026-11-30.
    """
    tally = PredictiveTally()
    for _ in range(reps):
        target, a, b = predictive_data(rng, n, departure, contamination=contamination)
        res = predictive_comparison(target, a, b, n_resamples=n_swaps, rng=rng)
        tally.add(res.pvalue <= 0.05)
        tally.at_one.add(res.pvalue <= 0.01)
        pseudo = pseudo_values(target, a, b)[:, None]
        flips = _paired_tests(
            pseudo, n_resamples=999, confidence_level=0.95, alternative="two-sided", rng=rng
        )
        tally.flips.add(flips.pvalue[0] < 0.05)
        tally.statistics.append(res.statistic)
        tally.ses.append(res.se)
    return tally
