"""Simulations that measure the statistics' behaviour (coverage, type-I error, FWER).

One implementation, two users: ``tests/stats/test_simulation.py`` runs them with few
replicates (fast, tolerances from Monte-Carlo standard errors) and
``benchmarks/bench_stats_validation.py`` with many, writing the table of
``benchmarks/README_stats.md``. Data and resampling draws come from separate,
seeded generators; replicates are batched through the same kernels the public
functions use.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.stats.contrast import group_contrast
from analysis.stats.gap import relative_gap_welch
from analysis.stats.paired import _paired_tests
from analysis.stats.pairwise import pairwise_significance

DISTRIBUTIONS = ("normal", "t3", "exponential", "lognormal")
SYMMETRIC = ("normal", "t3")
SKEWED = ("exponential", "lognormal")


@dataclass(frozen=True)
class Rate:
    """A simulated proportion with its Monte-Carlo standard error."""

    value: float
    reps: int

    @property
    def se(self) -> float:
        """Binomial standard error of the proportion."""
        p = min(max(self.value, 1.0 / self.reps), 1.0 - 1.0 / self.reps)
        return math.sqrt(p * (1.0 - p) / self.reps)


def draw(rng: np.random.Generator, dist: str, shape: tuple[int, ...]) -> np.ndarray:
    """Noise with mean 0: normal, t with 3 df, centred exponential or lognormal (skewed)."""
    if dist == "normal":
        return rng.normal(size=shape)
    if dist == "t3":
        return rng.standard_t(3, size=shape)
    if dist == "exponential":
        return rng.exponential(size=shape) - 1.0
    if dist == "lognormal":
        return rng.lognormal(0.0, 1.0, size=shape) - math.exp(0.5)
    raise ValueError(f"`dist` must be one of {DISTRIBUTIONS}, got {dist!r}")


def paired_rates(
    n: int,
    dist: str,
    reps: int,
    *,
    seed: int,
    method: str = "inversion",
    alpha: float = 0.05,
    n_resamples: int = 2000,
    chunk: int = 500,
) -> dict[str, Rate]:
    """Paired test on ``reps`` data sets of n differences with mean 0.

    Returns ``type1`` (p < alpha), ``coverage`` (interval holds the true mean 0) and
    ``agree`` (interval excludes 0 exactly when p < alpha). For symmetric noise 0 is
    also the centre of symmetry, the test's null; for skewed noise the mean is 0 but
    the null (symmetry) is false, which is what the skewed type-I error measures.
    """
    data_rng = np.random.default_rng([seed, DISTRIBUTIONS.index(dist)])
    resample_rng = np.random.default_rng(seed + 10_000)
    rejected = covered = agree = 0
    for start in range(0, reps, chunk):
        D = draw(data_rng, dist, (n, min(chunk, reps - start)))
        res = _paired_tests(
            D,
            n_resamples=n_resamples,
            confidence_level=1.0 - alpha,
            alternative="two-sided",
            rng=resample_rng,
            interval=method,
        )
        reject = res.pvalue < alpha
        excludes = (res.low > 0) | (res.high < 0)
        rejected += int(reject.sum())
        covered += int((~excludes).sum())
        agree += int((reject == excludes).sum())
    return {
        "type1": Rate(rejected / reps, reps),
        "coverage": Rate(covered / reps, reps),
        "agree": Rate(agree / reps, reps),
    }


def agreement_with_ties(
    sizes: range, reps: int, *, seed: int, alpha: float = 0.05
) -> tuple[int, int]:
    """Interval excludes 0 <=> p < alpha, on data sets with ties and constant differences.

    For every n in ``sizes``: ``reps`` data sets of differences rounded to one decimal
    (many tied subset means), a tenth of them constant (all differences equal, some
    zero). Returns (disagreements, data sets).
    """
    rng = np.random.default_rng(seed)
    bad = total = 0
    for n in sizes:
        reps_n = max(8, reps // 2 ** max(n - 16, 0))  # fewer at n > 16 (2**n work each)
        D = np.round(rng.normal(0.3, 1.0, size=(n, reps_n)), 1)
        const = rng.random(reps_n) < 0.1
        D[:, const] = np.round(rng.normal(0, 0.5, size=const.sum()), 1)
        res = _paired_tests(
            D,
            n_resamples=2000,
            confidence_level=1.0 - alpha,
            alternative="two-sided",
            rng=rng,
        )
        excludes = (res.low > 0) | (res.high < 0)
        bad += int(((res.pvalue < alpha) != excludes).sum())
        total += reps_n
    return bad, total


def pairwise_null_rates(
    n_models: int, n_tasks: int, reps: int, *, seed: int, dist: str = "normal", alpha: float = 0.05
) -> dict[str, Rate]:
    """Family-wise error under the global null (no model differs), one table per data set.

    Scores = task effect + i.i.d. noise. Returns the share of data sets where any pair
    is significant under max-T, Holm and BH, and where any max-T simultaneous interval
    excludes 0.
    """
    rng = np.random.default_rng(seed)
    hits = {"maxT": 0, "holm": 0, "bh": 0, "interval": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r in range(reps):
            task = rng.normal(size=(n_tasks, 1))
            scores = pd.DataFrame(task + draw(rng, dist, (n_tasks, n_models)))
            out = pairwise_significance(scores, alpha=alpha, rng=seed + r).table
            hits["maxT"] += bool((out["pvalue_maxT"] < alpha).any())
            hits["holm"] += bool((out["pvalue_holm"] < alpha).any())
            hits["bh"] += bool((out["pvalue_bh"] < alpha).any())
            hits["interval"] += bool(((out["ci_low"] > 0) | (out["ci_high"] < 0)).any())
    return {k: Rate(v / reps, reps) for k, v in hits.items()}


def gap_coverage(
    n_public: int,
    n_private: int,
    n_models: int,
    dist: str,
    reps: int,
    *,
    seed: int,
    confidence_level: float = 0.95,
) -> Rate:
    """Coverage of the relative-gap Welch interval, pooled over models and data sets.

    Scores: task difficulty + model skill + model-specific private effect + noise whose
    scale differs by model (0.5 to 2) and by side. The target of model j is its
    private effect minus the mean private effect of the others.
    """
    rng = np.random.default_rng(seed)
    scale = np.linspace(0.5, 2.0, n_models)
    private_effect = rng.normal(0, 1, n_models)
    target = private_effect - (private_effect.sum() - private_effect) / (n_models - 1)
    pub = rng.normal(size=(reps, n_public, 1)) + scale * draw(rng, dist, (reps, n_public, n_models))
    priv = (
        rng.normal(size=(reps, n_private, 1))
        + private_effect
        + scale[::-1] * draw(rng, dist, (reps, n_private, n_models))
    )
    res = relative_gap_welch(pub, priv, confidence_level)
    covered = (res["low"] <= target) & (target <= res["high"])
    return Rate(float(covered.mean()), reps * n_models)


def group_contrast_rates(
    n_a: int, n_b: int, dist: str, reps: int, *, seed: int, alpha: float = 0.05
) -> dict[str, Rate]:
    """Type-I error and interval coverage of :func:`group_contrast` (equal spreads)."""
    rng = np.random.default_rng(seed)
    labels = ["a"] * n_a + ["b"] * n_b
    rejected = covered = agree = 0
    for _ in range(reps):
        values = draw(rng, dist, (n_a + n_b,))
        res = group_contrast(values, labels, group_a="a", group_b="b", confidence_level=1 - alpha)
        excludes = not (res.confidence_interval.low <= 0 <= res.confidence_interval.high)
        rejected += res.pvalue < alpha
        covered += not excludes
        agree += (res.pvalue < alpha) == excludes
    return {
        "type1": Rate(rejected / reps, reps),
        "coverage": Rate(covered / reps, reps),
        "agree": Rate(agree / reps, reps),
    }


def pairwise_joint_coverage(
    n_models: int,
    n_tasks: int,
    reps: int,
    *,
    seed: int,
    spread: float = 1.0,
    dist: str = "normal",
    alpha: float = 0.05,
) -> Rate:
    """Share of data sets where every max-T simultaneous interval holds its true difference.

    Models differ: true means evenly spaced over ``spread`` noise SDs (0 is the global
    null). Scores = task effect + model mean + i.i.d. noise.
    """
    rng = np.random.default_rng(seed)
    means = np.linspace(0.0, spread, n_models)
    ia, ib = np.triu_indices(n_models, 1)
    truth = means[ia] - means[ib]
    covered = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r in range(reps):
            task = rng.normal(size=(n_tasks, 1))
            scores = pd.DataFrame(task + means + draw(rng, dist, (n_tasks, n_models)))
            out = pairwise_significance(scores, alpha=alpha, rng=seed + r).table
            low, high = out["ci_low"].to_numpy(), out["ci_high"].to_numpy()
            covered += bool(((low <= truth) & (truth <= high)).all())
    return Rate(covered / reps, reps)


def maxt_null_rate(
    n_models: int, n_tasks: int, reps: int, *, seed: int, dist: str = "normal", alpha: float = 0.05
) -> Rate:
    """Family-wise error of the max-T kernel alone (no table): many data sets, cheaply.

    The kernel :func:`pairwise_significance` calls, on exact sign patterns, batched over
    data sets, with its decision rule (the larger of the plain and the centred null's
    p-values); the share of global-null data sets in which any pair has p_maxT < alpha.
    """
    from analysis.stats._maxt import maxt, single_step
    from analysis.stats._resampling import SignPatterns

    rng = np.random.default_rng(seed)
    ia, ib = np.triu_indices(n_models, 1)
    patterns = SignPatterns(n_units=n_tasks, exact=True, bits=None)
    hits = 0
    for start in range(0, reps, 200):
        r = min(200, reps - start)
        X = rng.normal(size=(r, n_tasks, 1)) + draw(rng, dist, (r, n_tasks, n_models))
        kernel = maxt(X, ia[None], ib[None], patterns, keep_null=True, centred=True)
        assert kernel.null_max is not None and kernel.null_max_centred is not None
        for i in range(r):
            obs = kernel.observed[i, 0]
            p1, _ = single_step(kernel.null_max[i, 0], obs, patterns, alpha)
            p2, _ = single_step(kernel.null_max_centred[i, 0], obs, patterns, alpha)
            hits += bool((np.maximum(p1, p2) < alpha).any())
    return Rate(hits / reps, reps)


def attained_level(n: int, level: float) -> float:
    """Largest rejection probability <= ``level`` of an exact two-sided sign-flip test.

    Under a continuous null the exact max-T (or single) sign-flip test over n units
    rejects with probability ``floor(level * 2**(n-1)) / 2**(n-1)``: the statistic's
    rank among the 2**(n-1) distinct values of a sign-flip orbit is uniform. Beyond
    n = 20 (Monte-Carlo) this returns ``level``.

    Args:
        n: number of units (tasks).
        level: nominal level, in (0, 1).

    Returns:
        The attained level.
    """
    if n > 20:
        return float(level)
    half = 2 ** (n - 1)
    return math.floor(level * half + 1e-12) / half
