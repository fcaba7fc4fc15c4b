"""Power and coverage of the Goodhart audit's intervals at true effects, not only at the null.

:mod:`_goodhart_sim` measures the tests' errors where nothing is true; this module measures
what the audit's notebook says of effects that are:

* :func:`detectable_power`: ``goodhart_audit`` reports, per model, the public advantage
  found with 80% power, ``(critical value + t quantile at the power) * se``. Here one model
  has the mean reported value as its true advantage (on the relative scale the audit
  reports), in fresh data sets; how often :func:`analysis.stats.public_advantage`'s
  decisions (step-down) and its simultaneous interval (single-step) find it.
* :func:`predictor_coverage`: how often :func:`analysis.stats.advantage_predictors`'
  interval covers a ranked and a group predictor's true effect when it is not 0.
* :func:`predictive_coverage`: how often :func:`analysis.stats.predictive_comparison`'s
  interval covers the true difference of the two predictors' mean absolute errors when one
  predicts better (its null's coverage is 1 - its type-I error, by construction).

The leaderboards are :mod:`_goodhart_sim`'s (``x[t, j] = task + model + d_j [public] + e``);
the relative advantage of model j is ``d_j - mean of the others' d`` (:func:`relative_truth`),
so a contrast ``c`` summing to 0 has the true effect ``c' relative_truth(d)``. The models'
own random part of ``d`` (SD ``spread``) is noise to the predictors' test (the spread it
estimates), not part of the effect.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from _goodhart_sim import (
    Tally,
    decided_board,
    predictive_data,
    random_predictors,
    relative_board,
    relative_truth,
)

from analysis.stats import predictive_comparison
from analysis.stats.advantage import _contrast, detectable_effect, predictor_row


def detectable_power(
    rng: np.random.Generator,
    reps: int,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    *,
    power: float = 0.8,
    n_patterns: int = 400,
    level: float = 0.95,
) -> tuple[float, Tally, Tally]:
    """How often an advantage of model 0's mean reported ``detectable`` is found.

    ``reps`` null leaderboards give model 0's mean ``detectable``, as :func:`public_advantage`
    reports it (:func:`~analysis.stats.advantage.detectable_effect`); then
    ``reps`` fresh leaderboards where model 0's true relative advantage is that value (each
    other model's is then ``-1 / (k - 1)`` of it), as :func:`few_models_power` measures the
    predictors'. A departure that redraws each model's spread in every data set
    (``unequal``) has no one detectable per model: not for this cell. Returns (the mean
    detectable, whether the decisions declared model 0 beyond chance, whether its
    simultaneous interval excluded 0), the last two as :class:`Tally`.
    """
    found = []
    for _ in range(reps):
        *_, w, _, _, c = decided_board(
            rng, n1, n2, k, departure, None, n_patterns=n_patterns, level=level
        )
        found.append(detectable_effect(c, w["se"][0], w["df"][0], power=power))
    effect, decided, outside = float(np.mean(found)), Tally(), Tally()
    d = np.zeros(k)
    d[0] = effect
    for _ in range(reps):
        *_, w, truth, adjusted, c = decided_board(
            rng, n1, n2, k, departure, d, n_patterns=n_patterns, level=level
        )
        if not np.isclose(relative_truth(truth)[0], effect):
            raise AssertionError("model 0's relative advantage is not the detectable")
        decided.add(bool(adjusted[0] < 1 - level))
        outside.add(bool(abs(w["t"][0]) > c))
    return effect, decided, outside


def predictor_coverage(
    rng: np.random.Generator,
    reps: int,
    n1: int,
    n2: int,
    k: int,
    departure: str,
    *,
    effect: float,
    spread: float = 0.02,
    family_sizes: Sequence[int] = (),
    level: float = 0.95,
    n_shuffles: int = 999,
) -> dict[str, Tally]:
    """Coverage of :func:`advantage_predictors`' interval at a true effect, per predictor.

    Each data set: a random ranked predictor with the true effect ``effect`` times its
    standardized ranks, and, on a leaderboard of its own, a group of 8 random models with
    ``effect`` added (one effect per leaderboard: the test fits the one contrast it tests,
    so another's effect would count as spread between the models); the models' own
    advantages N(0, ``spread``), the families ``family_sizes`` given as the notebook gives
    its organisations. The target is the contrast over the relative advantages of the
    predictor's effect (:func:`relative_truth`: ``k / (k - 1)`` of it), the models' own part
    left out (the spread the test estimates). Returns the share of data sets whose interval
    covers it, per predictor (``"rank"``, ``"group"``).
    """
    out = {"rank": Tally(), "group": Tally()}
    sizes = np.asarray(family_sizes, dtype=int)
    family = np.repeat(np.arange(len(sizes)), sizes) if len(sizes) else np.arange(k) % 10
    for _ in range(reps):
        z, group, zs = random_predictors(rng, k, 8)
        shifts = {"rank": effect * zs, "group": effect * group.astype(float)}
        for column in (pd.Series(z, name="rank"), pd.Series(group, name="group")):
            fixed = shifts[str(column.name)]
            d = rng.normal(0.0, spread, k) + fixed
            y_pub, y_priv, each, _ = relative_board(rng, n1, n2, k, departure, d, level)
            target = float(_contrast(column)[0] @ relative_truth(fixed))
            row = predictor_row(
                y_pub,
                y_priv,
                each,
                column,
                confidence_level=level,
                power=0.8,
                m=1,
                n_resamples=n_shuffles,
                gen=rng,
                strata=family,
            )
            out[str(column.name)].add(bool(row["ci_low"] <= target <= row["ci_high"]))
    return out


def predictive_truth(
    rng: np.random.Generator, departure: str, scale_b: float, n: int = 1_000_000
) -> float:
    """The difference :func:`predictive_comparison` estimates, in one data set of ``n`` models.

    ``b``'s line's mean absolute error minus ``a``'s, each the least-squares line of the
    target (:func:`predictive_data`): at a million models the lines and the means are the
    population's to about 5e-4 (the statistic's jackknife removes the 1/n bias of the
    leave-one-out errors, so its target is this limit). Checked against the closed form at
    normal errors in ``tests/stats/test_predictive.py`` (sqrt(2 / pi) times each line's
    residual SD).
    """
    target, a, b = predictive_data(rng, n, departure, scale_b=scale_b)
    errors = [target - np.polyval(np.polyfit(x, target, 1), x) for x in (b, a)]
    return float(np.abs(errors[0]).mean() - np.abs(errors[1]).mean())


def predictive_coverage(
    rng: np.random.Generator,
    reps: int,
    n: int,
    departure: str,
    *,
    scale_b: float,
    n_swaps: int = 99,
    level: float = 0.95,
) -> tuple[float, Tally, Tally, float]:
    """Coverage of :func:`predictive_comparison`'s interval where ``a`` predicts better.

    ``b``'s errors ``scale_b`` times ``a``'s (:func:`predictive_data`, its departures but
    ``outlier``, whose three fixed models have no population). The true difference is
    :func:`predictive_truth`'s, from its own draws. Returns it, whether the interval covers
    it, whether the test rejects at ``1 - level``, and the statistic's mean minus it (bias).
    """
    if departure == "outlier":
        raise ValueError("`outlier` fixes three models: its difference has no population")
    truth = predictive_truth(rng, departure, scale_b)
    covered, rejected, found = Tally(), Tally(), []
    for _ in range(reps):
        target, a, b = predictive_data(rng, n, departure, scale_b=scale_b)
        res = predictive_comparison(
            target, a, b, confidence_level=level, n_resamples=n_swaps, rng=rng
        )
        low, high = res.confidence_interval
        covered.add(bool(low <= truth <= high))
        rejected.add(bool(res.pvalue <= 1 - level))
        found.append(res.statistic)
    return truth, covered, rejected, float(np.mean(found)) - truth
