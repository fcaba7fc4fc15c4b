"""Who gains on the public tasks beyond chance, and what goes with that gain.

RTEB keeps some datasets private so that a model cannot be tuned to them. A model's
**public advantage** is how much better it does, relative to the other models, on the
public tasks than on the private ones:

    y[t, j] = x[t, j] - mean_{k != j} x[t, k]         (the task's difficulty cancels)
    A_j = mean_public(y_j) - mean_private(y_j)

(the negative of :func:`analysis.stats.public_private_gap`'s relative gap). The unit of
sampling is the task: the public and the private tasks are two independent samples of
tasks, and every model is scored on the same ones.

* :func:`public_advantage`: every model's A_j with **simultaneous** intervals (all of them
  cover at once with probability ``confidence_level``) and the models beyond chance after
  the multiplicity, by a studentized max-T over sign flips of the tasks (or of
  clusters of related tasks);
* :func:`advantage_predictors`: is A related to a property of the models (training
  overlap, zero-shot %, rank on MTEB(eng, v2), release date, size, organisation, static
  kind)? A contrast of the A_j whose variance counts the tasks *and* the models as
  samples, Holm across the predictors, and the smallest effect each could have detected;
* :func:`trained_task_effect`: within models, do they do better (relative to the others)
  on the public tasks they trained on than on those they did not? A permutation test that
  reassigns the models' training patterns (within families), the model as the unit.

Measured type-I error and coverage at the data's sizes (70 models; 16 or 17 public and 13
private tasks, 14/6 for RTEB(eng, beta)), with departures (unequal spreads, heavy tails,
correlated tasks and models, an outlying model): ``benchmarks/bench_goodhart_validation.py``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.stats import binom, rankdata, spearmanr
from scipy.stats import t as t_dist

from ._checks import (
    LabelMismatchError,
    RngLike,
    _check_choice,
    _check_n_resamples,
    _check_open_unit,
    _check_rng,
    label_mismatch,
    unit_clusters,
)
from ._maxt import single_step, step_down
from ._resampling import permutation_critical, permutation_pvalue, sign_patterns
from ._results import ConfidenceInterval, TableResult
from .contrast import _welch_parts
from .gap import _reference, _task_lists, _wide_scores
from .pairwise import adjust_pvalues

#: A side with fewer tasks (or clusters, its independent units when given) gets no test:
#: the family-wise error was not shown to hold (14/6 tasks in pairs, 3 private clusters:
#: over twice the level with unequal spreads; ``goodhart_validation.md``).
MIN_TASKS_PER_SIDE = 6
#: Fewer families: no shared part (the pooled spread), or, split along them, no test.
MIN_FAMILIES = 3
_ADJUSTMENTS = ("holm", "bonferroni", "none")


def detectable_effect(critical: float, se: Any, df: Any, *, power: float) -> Any:
    """The effect a t rejecting beyond ``critical`` standard errors finds with ``power``.

    ``(critical + t quantile at power on df) * se``: the shift of a t by the effect, the
    standard error and the critical value taken as estimated (a plug-in). The one rule for
    ``detectable`` in :func:`public_advantage` and :func:`advantage_predictors`. The shift
    falls short of the power at a max-T's critical values even with the standard error
    known (the noncentral t's spread grows with the effect: for 0.8 at 3.5, 0.79 at 24 df and
    0.77 at 6); the power measured at the reported value:
    ``benchmarks/results/goodhart_validation.md`` (0.73-0.78 for one model's advantage).

    Examples:
        >>> round(float(detectable_effect(1.96, 1.0, np.inf, power=0.8)), 3)
        2.802
    """
    return (critical + t_dist.ppf(power, df)) * se


def _relative(x: np.ndarray) -> np.ndarray:
    """Each model's scores minus the mean of the other models on the same task."""
    return x - _reference(x, None)


def flip_max_t(
    y_pub: np.ndarray,
    y_priv: np.ndarray,
    patterns: Any,
    *,
    pooled: bool = False,
    codes: np.ndarray | None = None,
    per_model: bool = False,
) -> np.ndarray:
    """Per sign pattern: the largest absolute Welch t over the columns of the flipped residuals.

    The residuals are centred within each side (the null at the estimated advantages),
    or with ``pooled`` at each model's mean over both sides (the null imposed: no
    advantage). A pattern flips every column of a task together, so the models'
    dependence is kept; ``s`` and ``-s`` give the same statistic. With ``codes`` (the
    cluster of each task, public tasks first) a pattern has one sign per cluster, given
    to all its tasks. Returns (patterns,), or with ``per_model`` every |t| (patterns, models).
    """
    n1, n2 = y_pub.shape[0], y_priv.shape[0]
    centre = np.vstack([y_pub, y_priv]).mean(axis=0) if pooled else None
    r1, r2 = (y - (y.mean(axis=0) if centre is None else centre) for y in (y_pub, y_priv))
    ss1, ss2 = (r1**2).sum(axis=0), (r2**2).sum(axis=0)
    out = []
    for signs in patterns.blocks(max(1, (1 << 20) // max(r1.shape[1], 1))):
        signs = signs if codes is None else signs[:, codes]
        m1, m2 = signs[:, :n1] @ r1 / n1, signs[:, n1:] @ r2 / n2
        var = (ss1 - n1 * m1**2) / ((n1 - 1) * n1) + (ss2 - n2 * m2**2) / ((n2 - 1) * n2)
        t = np.divide(np.abs(m1 - m2), np.sqrt(var), out=np.zeros_like(var), where=var > 0)
        out.append(t if per_model else t.max(axis=1))
    return np.concatenate(out)


def simultaneous(
    y_pub: np.ndarray,
    y_priv: np.ndarray,
    observed: np.ndarray,
    patterns: Any,
    alpha: float,
    codes: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Step-down p-values (pooled null) and the intervals' critical |t| (the larger)."""
    pooled = flip_max_t(y_pub, y_priv, patterns, pooled=True, codes=codes, per_model=True)
    nulls = (flip_max_t(y_pub, y_priv, patterns, codes=codes), pooled.max(axis=1))
    critical = max(single_step(null, observed, patterns, alpha)[1] for null in nulls)
    return step_down(pooled, observed, patterns), critical


@dataclass(frozen=True, repr=False)
class PublicAdvantageResult(TableResult):
    """Result of :func:`public_advantage`.

    Attributes:
        table: one row per model, sorted by ``advantage`` (largest first): ``model``,
            ``mean_public``, ``mean_private``, ``advantage`` (A_j), ``se`` and ``df`` (Welch),
            ``ci_low`` / ``ci_high`` (simultaneous), ``pvalue`` (Welch, per model, unadjusted),
            ``pvalue_adjusted`` (step-down max-T, family-wise), ``beyond_chance``: ``"public"``
            (gains on public beyond chance), ``"private"`` (gains on private) or ``""``, and
            ``detectable`` (the advantage found with probability ``power`` at the simultaneous
            critical value: :func:`detectable_effect`; single-step, the step-down finds at
            least as much; NaN when not testable).
        public_tasks: the public tasks (sorted).
        private_tasks: the private tasks (sorted).
        testable: both sides have :data:`MIN_TASKS_PER_SIDE` tasks (clusters, if given).
        critical_value: the max-T quantile the intervals use (NaN when not testable).
        n_patterns: sign patterns of the reference distribution.
        exact: every distinct pattern was enumerated.
        confidence_level: level of the simultaneous intervals.
        alpha: family-wise level of ``beyond_chance`` (``1 - confidence_level``).
        method: what was computed.
        caveat: what a benchmark too small to test cannot say ("" when testable).
    """

    table: pd.DataFrame
    public_tasks: list[str]
    private_tasks: list[str]
    testable: bool
    critical_value: float
    n_patterns: int
    exact: bool
    confidence_level: float
    alpha: float
    method: str
    caveat: str = ""

    def _summary_lines(self) -> list[str]:
        counts = self.table["beyond_chance"].value_counts()
        lines = [
            f"{len(self.table)} models, {len(self.public_tasks)} public / "
            f"{len(self.private_tasks)} private tasks",
            f"beyond chance (family-wise alpha={self.alpha:g}): {counts.get('public', 0)} on "
            f"public, {counts.get('private', 0)} on private",
            f"method: {self.method[:80]}",
        ]
        return [*lines, f"caveat: {self.caveat[:80]}"] if self.caveat else lines


def _side_matrices(
    scores: Any, public_tasks: Any, private_tasks: Any
) -> tuple[np.ndarray, np.ndarray, list[str], list[str], list[str]]:
    """The complete public and private score matrices (tasks x models), both axes sorted."""
    public, private = _task_lists(public_tasks, private_tasks)
    wide = _wide_scores(scores, public + private).sort_index(axis=1, key=lambda c: c.map(str))
    public, private = sorted(public), sorted(private)
    holes = wide.isna().any(axis=0)
    if holes.any():
        raise ValueError(
            f"`scores` has missing scores for {list(wide.columns[holes])[:5]}: pass the "
            "models complete on both sides (`lb.complete_models('public', 'private')`)"
        )
    if wide.shape[1] < 3:
        raise ValueError(f"`scores` needs at least 3 models, got {wide.shape[1]}")
    models = [str(m) for m in wide.columns]
    x, rows = wide.to_numpy(dtype=float), {t: i for i, t in enumerate(wide.index)}
    return x[[rows[t] for t in public]], x[[rows[t] for t in private]], public, private, models


def untestable_caveat(n_public: int, n_private: int, n_models: int, clusters: bool = False) -> str:
    """What a benchmark with too few tasks (or clusters) on a side cannot say (``caveat``)."""
    small, unit = min(n_public, n_private), "task cluster" if clusters else "task"
    side = "public" if n_public <= n_private else "private"
    spread = f"its spread rests on {small - 1} degree(s) of freedom"
    spread = "its spread cannot be estimated at all" if small < 2 else spread
    return (
        f"{n_public} public / {n_private} private {unit}s: the {side} side has {small} "
        f"{unit}(s), so {spread}. With fewer than {MIN_TASKS_PER_SIDE} {unit}s on a side no "
        f"family-wise interval over the {n_models} models is shown to hold: it cannot say "
        "whether any model gains on the public tasks beyond chance, nor that none does; the "
        "advantages are descriptive only."
    )


def public_advantage(
    scores: pd.DataFrame,
    *,
    public_tasks: Sequence[str],
    private_tasks: Sequence[str],
    clusters: Any = None,
    power: float = 0.8,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> PublicAdvantageResult:
    """Every model's public advantage with simultaneous intervals; who gains beyond chance.

    * **Estimate**: A_j = mean over the public tasks of ``y_j`` minus its mean over the
      private tasks, ``y`` the score relative to the mean of the other models (module
      notes). Per model, Welch's t over the tasks (the two sides independent, their
      spreads free) gives ``se``, ``df`` and an unadjusted ``pvalue``.
    * **Simultaneous intervals**: ``A_j +- c * se_j``, ``c`` the ``confidence_level``
      quantile of the largest absolute Welch t over the models under sign flips of the tasks'
      residuals (a task's row flipped whole: the studentized max-T, which adapts to models that move
      together where Bonferroni would not); of the residuals centred within each side (holds when
      models truly differ) and at each model's pooled mean (the null imposed), the larger ``c``.
    * **Decisions**: ``pvalue_adjusted``, the Westfall-Young step-down max-T over the
      pooled residuals alone; ``beyond_chance`` when under ``1 - confidence_level``. It
      holds every model whose interval excludes 0 and may add some whose interval contains
      0 (the intervals' larger ``c`` is conservative with heavy tails or an outlying model at
      the smaller splits, 14/6).
    * **Null hypothesis** of model j: its expected relative score is the same over the
      population of public tasks and of private tasks. **Assumptions**: tasks independent (within
      and across the sides), each side's residuals roughly symmetric. Correlated tasks within a side
      make the intervals far too narrow (pairs of tasks correlated at 0.7: the *corr-tasks* rows).
      ``clusters`` (task -> label, e.g. :func:`analysis.results.clusters.task_clusters`) flips each
      cluster's tasks together: *clusters* must then be independent, tasks within one may correlate
      (across the sides too). Measured family-wise error and coverage with departures (16/13, 17/13,
      14/6 and 6/6 tasks): ``benchmarks/results/goodhart_validation.md``.
    * **Detectable**: per model, the advantage its own tasks find with probability ``power``
      (:func:`detectable_effect` at the intervals' critical value), a plug-in: its power in
      fresh data sets is measured in ``goodhart_validation.md`` (*At true effects*).
    * **Too few tasks**: under :data:`MIN_TASKS_PER_SIDE` tasks on a side (clusters, if given)
      no interval, no decision (NaN); ``caveat`` says what the benchmark cannot say.

    Draws from ``rng``: the random sign patterns (none when all are enumerated).

    Args:
        scores: wide tasks x models table; its rows are exactly the public and private
            tasks, every model complete on them.
        public_tasks: the benchmark's public tasks.
        private_tasks: its private tasks.
        clusters: the cluster of every task (a mapping task -> label, looked up by the task's name,
            or a Series indexed by exactly the tasks); None: every task is its own cluster.
        power: the power of ``detectable``.
        n_resamples: sign patterns (all are enumerated when ``2**(n - 1)`` fit, ``n``
            the tasks or clusters).
        confidence_level: level of the simultaneous intervals; the decisions are at
            ``1 - confidence_level`` family-wise.
        rng: seed or Generator.

    Returns:
        PublicAdvantageResult.

    Raises:
        ValueError: a model misses a score, fewer than 3 models or 2 tasks a side, a task
            on both lists, or an invalid option.
        LabelMismatchError: the rows of ``scores`` are not the listed tasks, or
            ``clusters`` lacks a task.

    Examples:
        40 models on 16 public and 13 private tasks (synthetic); ``m0`` gains 0.08 on the
        public tasks:

        >>> import numpy as np, pandas as pd
        >>> from analysis.stats import public_advantage
        >>> rng = np.random.default_rng(0)
        >>> tasks = [f"t{i:02d}" for i in range(29)]
        >>> x = rng.normal(0.5, 0.1, (29, 1)) + rng.normal(0, 0.02, (29, 40))
        >>> x[:16, 0] += 0.08
        >>> scores = pd.DataFrame(x, index=tasks, columns=[f"m{j}" for j in range(40)])
        >>> res = public_advantage(scores, public_tasks=tasks[:16], private_tasks=tasks[16:],
        ...                        n_resamples=2000, rng=0)
        >>> table = res.to_frame()
        >>> table.loc[table["beyond_chance"] != "", "model"].tolist()
        ['m0']
        >>> bool(res.critical_value > 2.5)  # wider than one model's 95% interval
        True
    """
    n_resamples, power = _check_n_resamples(n_resamples), _check_open_unit(power, "power")
    confidence_level, gen = _check_open_unit(confidence_level, "confidence_level"), _check_rng(rng)
    x_pub, x_priv, public, private, models = _side_matrices(scores, public_tasks, private_tasks)
    y_pub, y_priv = _relative(x_pub), _relative(x_priv)
    w, alpha = _welch_parts(y_pub, y_priv, confidence_level), 1.0 - confidence_level
    table = pd.DataFrame(
        {
            "model": models,
            "mean_public": x_pub.mean(axis=0),
            "mean_private": x_priv.mean(axis=0),
            "advantage": w["estimate"],
            "se": w["se"],
            "df": w["df"],
        }
    )
    n_units, n_pub = len(public) + len(private), len(public)
    codes = unit_clusters(clusters, pd.Index(public + private), n_units)
    unit = np.arange(n_units) if codes is None else codes  # a side's independent units
    n_clusters, sides = int(unit.max()) + 1, (len(set(unit[:n_pub])), len(set(unit[n_pub:])))
    testable, clustered = min(sides) >= MIN_TASKS_PER_SIDE, sides != (n_pub, len(private))
    patterns, critical, adjusted = None, np.nan, np.full(len(models), np.nan)
    if testable:
        patterns = sign_patterns(n_clusters, n_resamples, gen)
        adjusted, critical = simultaneous(y_pub, y_priv, np.abs(w["t"]), patterns, alpha, codes)
    table["ci_low"] = w["estimate"] - critical * w["se"]
    table["ci_high"] = w["estimate"] + critical * w["se"]
    table["pvalue"] = w["pvalue"] if testable else np.nan
    table["pvalue_adjusted"] = adjusted
    side = np.where(table["advantage"] > 0, "public", "private")
    table["beyond_chance"] = np.where(table["pvalue_adjusted"] < alpha, side, "")
    table["detectable"] = detectable_effect(critical, w["se"], w["df"], power=power)
    return PublicAdvantageResult(
        table=table.sort_values("advantage", ascending=False, ignore_index=True),
        public_tasks=public,
        private_tasks=private,
        testable=testable,
        critical_value=float(critical),
        n_patterns=0 if patterns is None else patterns.total,
        exact=patterns is not None and patterns.exact,
        confidence_level=confidence_level,
        alpha=alpha,
        method=(
            "advantage only (a side under the minimum number of tasks)"
            if patterns is None
            else f"Welch t per model over {len(public)} public vs {len(private)} private tasks; "
            f"studentized max-T over {patterns.describe()} of the "
            + ("tasks'" if codes is None else f"{n_clusters} task clusters'")
            + " residuals: simultaneous intervals (the larger of the within-side and pooled "
            "centrings' critical values), step-down adjusted p-values (pooled)"
        ),
        caveat="" if testable else untestable_caveat(*sides, len(models), clustered),
    )


# --------------------------------------------------------------------------- predictors


@dataclass(frozen=True, repr=False)
class AdvantagePredictorsResult(TableResult):
    """Result of :func:`advantage_predictors`: one row per predictor in ``table``.

    Attributes:
        table: ``predictor``, ``kind`` (``"rank"`` or ``"groups"``), ``n_models`` (with a known
            value), ``n_a`` / ``n_b`` (groups: the models True / False), ``n_families`` (of those
            models; NaN without ``families``), ``one_family`` (a group one side of which is
            exactly one family: that family's own shared effect is what it tests), ``effect``
            (the slope of A per standard deviation of the models' ranks, or the difference of
            the groups' mean A, True - False), ``se_tasks``
            and ``se_models`` (its two parts), ``se``, ``df``, ``ci_low`` / ``ci_high``,
            ``pvalue_t``, ``pvalue_permutation``, ``pvalue`` (the larger), ``spearman``
            (descriptive), ``family_share`` (with ``families``: the share of the contrast's sum of
            squares between families; near 1, the predictor is mostly which family a model is in),
            ``pvalue_adjusted`` (across the predictors tested: NaN for one of two families) and
            ``detectable`` (the smallest absolute effect found with probability ``power`` at the
            family-wise level: :func:`detectable_effect` at ``critical(alpha / m)``; NaN when
            the shuffles cannot reach it).
        adjustment: the multiplicity adjustment across the predictors.
        power: the power of ``detectable``.
        confidence_level: level of the per-predictor intervals (decisions at
            ``1 - confidence_level`` after the adjustment).
        method: what was computed.
    """

    table: pd.DataFrame
    adjustment: str
    power: float
    confidence_level: float
    method: str


def _contrast(values: pd.Series) -> tuple[np.ndarray, str, dict[str, Any]]:
    """Weights c with effect = sum c_j A_j, the predictor's kind and its group sizes."""
    if pd.api.types.infer_dtype(values, skipna=True) == "boolean":  # object columns too
        flags = values.astype(bool).to_numpy()
        n_a, n_b = int(flags.sum()), int((~flags).sum())
        if min(n_a, n_b) < 2:
            raise ValueError(f"predictor {values.name!r}: each group needs 2 models or more")
        return np.where(flags, 1.0 / n_a, -1.0 / n_b), "groups", {"n_a": n_a, "n_b": n_b}
    ranks = rankdata(values.to_numpy(dtype=float))
    if np.ptp(ranks) == 0:
        raise ValueError(f"predictor {values.name!r} is constant over the models")
    z = (ranks - ranks.mean()) / ranks.std()
    return z / (z**2).sum(), "rank", {"n_a": pd.NA, "n_b": pd.NA}


#: The columns of a predictor that is not tested (NaN).
_UNTESTED = "effect se_tasks se_models se df ci_low ci_high pvalue_t pvalue_permutation".split()
_UNTESTED += ["pvalue", "spearman", "family_share", "detectable"]


def _tested(column: pd.Series, strata: Any) -> bool:
    """Whether a predictor is tested: 3 models with a value, and not one of two families only.

    One of two families: constant within each, some of 2 models; it cannot be told from them.
    """
    known = column.notna().to_numpy()
    if known.sum() < 3 or strata is None:
        return bool(known.sum() >= 3)
    codes = pd.Series(strata[known], column.index[known])
    shared = codes.nunique() < len(codes)  # some family has 2 models or more
    constant = column[known].groupby(codes).nunique().max() == 1
    return not (shared and constant and codes.nunique() < MIN_FAMILIES)


def _model_part(
    a: Any, c: Any, noise: Any, strata: Any, groups: bool = False, spreads: bool = False
) -> tuple[Any, ...]:
    """The models' variance in each contrast (a column of ``c``) and its df.

    ``a``: the advantages, or one column of them per draw (``c`` then one contrast).
    With ``spreads``, also the fitted ``(tau_m, tau_f)`` of the first column (``tau_f`` not
    positive: the pooled spread and 0), from which :func:`_null_t` draws.

    Moments of the residuals r = M A of A on the contrast, each sum of squares less its own
    task noise ``tr(. noise)`` (``noise``: A's covariance over the tasks): the pooled spread
    tau2 times ``sum c**2``; with 3 families or more, some of 2 models, the families' shared
    tau_f and the models' own tau_m solve the between (M P M, P onto the families) and
    within sums' moment equations, unbiased, and the variance is ``tau_m sum c**2 + tau_f
    sum_f (sum_{j in f} c_j)**2`` (Satterthwaite df); if not > 0, tau_f = 0: the pooled one.
    With ``groups``, a family that is one side of a contrast exactly (``_own``) is what that
    contrast tests: its own term leaves the sum over f.
    """
    n, cc, ec = len(c), (c**2).sum(axis=0), noise @ c
    centred = a - a.mean(axis=0)  # least-squares fit of A on the contrast: its residuals
    if centred.ndim == 1:
        r = centred[:, None] - c * ((centred @ c) / cc)
    else:  # one contrast, a column of A per draw
        r = centred - c * ((c[:, 0] @ centred) / cc)
    ss, e_m = (r**2).sum(axis=0), np.trace(noise) - noise.sum() / n - (c * ec).sum(axis=0) / cc
    tau2 = np.maximum(0.0, (ss - e_m) / (n - 2))
    pooled = (tau2 * cc, np.fmax((n - 2) * (tau2 / (tau2 + e_m / (n - 2))) ** 2, 1.0))
    if strata is None or not MIN_FAMILIES <= (f := len(set(strata))) < n:
        return (*pooled, (float(tau2.flat[0]), 0.0)) if spreads else pooled
    h = pd.get_dummies(strata).to_numpy(float).T  # families x models
    size, hc, between = h.sum(axis=1)[:, None], h @ c, h @ r
    k, s = (hc**2).sum(axis=0) / cc, (hc**2 / size).sum(axis=0) / cc  # |H u|^2, u'P u
    e_b = (((h @ noise) * h).sum(axis=1) / size[:, 0]).sum() - noise.sum() / n  # tr(B noise)
    e_b = e_b - (2 * ((h.T @ (hc / size)) * ec).sum(axis=0) - s * (c * ec).sum(axis=0)) / cc
    d_b, k_b = f - 1 - s, n - (size**2).sum() / n - (2 - s) * k  # tr(B), tr(B K); W = M - B
    d_w, k_w, e_w, ss_b = n - 2 - d_b, k * (1 - s), e_m - e_b, (between**2 / size).sum(axis=0)
    k_v = k - (hc**2 * _own(h, c)).sum(axis=0) / cc if groups else k  # tau_f's weight in v
    g_b, g_w = np.array([k_v * d_w - k_w, k_b - k_v * d_b]) * cc / (k_b * d_w - d_b * k_w)
    v = g_b * (ss_b - e_b) + g_w * (ss - ss_b - e_w)  # tau_m cc + tau_f k_v cc, both unbiased
    df = np.fmax(v**2 / ((g_b * ss_b) ** 2 / d_b + (g_w * (ss - ss_b)) ** 2 / d_w), 1.0)
    out = np.where(v > 0, v, pooled[0]), np.where(v > 0, df, pooled[1])  # else tau_f = 0
    if not spreads:
        return out
    first = [float(np.ravel(x)[0]) for x in (d_b, k_b, d_w, k_w, ss_b - e_b, ss - ss_b - e_w)]
    tau_m, tau_f = np.linalg.solve(np.reshape(first[:4], (2, 2)), first[4:])
    fitted = (max(tau_m, 0.0), tau_f) if tau_f > 0 else (float(tau2.flat[0]), 0.0)
    return (*out, fitted)


def _null_t(
    a: np.ndarray,
    c0: np.ndarray,
    noise: np.ndarray,
    strata: np.ndarray | None,
    groups: bool,
    tasks: tuple[tuple[float, float], tuple[float, float]],
    n: int,
    gen: np.random.Generator,
) -> np.ndarray:
    """The t of contrast ``c0`` on ``n`` draws of the advantages under the null.

    A parametric bootstrap: the advantages drawn from N(0, noise + tau_m I + tau_f H'H)
    with the spreads as :func:`_model_part` fits them (a family that is one side of the
    contrast exactly, with ``groups``, left out of H: its effect is the one tested), each
    draw's model part fitted again, the task part drawn as ``v chi2(d) / d`` (``tasks``:
    each side's Welch part and df). At the families' floor (tau_f = 0) it draws what a
    floor-biased variance does, where Satterthwaite's t was conservative
    (``benchmarks/results/goodhart_boundary.md``).
    """
    tau_m, tau_f = _model_part(a, c0[:, None], noise, strata, groups, spreads=True)[2]
    shared = np.zeros_like(noise)
    if tau_f > 0:  # families given and sharing: their blocks, the tested one's left out
        h = pd.get_dummies(strata).to_numpy(float).T
        kept = h[~_own(h, c0[:, None])[:, 0]] if groups else h
        shared = kept.T @ kept
    value, vector = np.linalg.eigh(noise + tau_m * np.eye(len(a)) + tau_f * shared)
    draws = (vector * np.sqrt(np.clip(value, 0.0, None))) @ gen.standard_normal((len(a), n))
    v_model = _model_part(draws, c0[:, None], noise, strata, groups)[0]
    (v1, d1), (v2, d2) = tasks
    d_task = (v1 + v2) ** 2 / (v1**2 / d1 + v2**2 / d2)
    v_task = (v1 + v2) * gen.chisquare(d_task, n) / d_task
    return (c0 @ draws) / np.sqrt(v_task + v_model)


def _own(h: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Families x contrasts: the family whose models are exactly one side of the contrast.

    Such a group (one organisation's models against the rest) asks whether that family's
    models differ from the others: its shared effect is the effect tested, not chance.
    """
    size = h.sum(axis=1)[:, None]
    sides = [(h @ side, side.sum(axis=0)) for side in (c > 0, c < 0)]
    return np.logical_or.reduce([(on == size) & (on == every) for on, every in sides])


def predictor_row(
    y_pub: np.ndarray,
    y_priv: np.ndarray,
    each: dict[str, np.ndarray],
    column: pd.Series,
    *,
    confidence_level: float,
    power: float,
    m: int,
    n_resamples: int,
    gen: np.random.Generator,
    strata: np.ndarray | None = None,
) -> dict[str, Any]:
    """One predictor's test (the kernel of :func:`advantage_predictors`, and of its simulation).

    ``y_pub``/``y_priv`` are the relative scores (tasks x models), ``each`` the models' Welch parts
    (:func:`_welch_parts`), ``column`` the predictor in model order (NaN: unknown, left out), ``m``
    the number of tested predictors (for ``detectable``), ``strata`` the models' family codes.
    Column 0 of ``c`` is the predictor's contrast (sum 0), the others its shuffles over the models.
    """
    known, n_models = column.notna().to_numpy(), int(column.notna().sum())
    c0, kind, sizes = _contrast(column[known])  # each group 2 models
    by = None if strata is None else strata[known]
    row = {"predictor": str(column.name), "kind": kind, "n_models": n_models, **sizes}
    row["n_families"] = np.nan if by is None else len(set(by))
    row["one_family"] = False
    if not _tested(column, strata):  # too few models, or told from a family apart
        return {**row, **dict.fromkeys(_UNTESTED, np.nan)}
    share = np.nan  # the share of c0's sum of squares between families
    if by is not None:
        share = (pd.Series(c0).groupby(by).transform("mean") ** 2).sum() / (c0**2).sum()
        hot = pd.get_dummies(by).to_numpy(float).T
        row["one_family"] = kind == "groups" and bool(_own(hot, c0[:, None]).any())
    ties = np.unique(c0, return_counts=True)[1].tolist()  # swapping equal weights: no change
    mirrored = np.allclose(np.sort(c0), np.sort(-c0))  # -c0 a shuffle of c0: the same |t|
    arrangements = math.factorial(len(c0)) // math.prod(map(math.factorial, ties))
    if exact := kind == "groups" and arrangements <= n_resamples:  # each once, as flips
        picks = itertools.combinations(range(len(c0)), sizes["n_a"])  # the True group's
        every = np.array([np.isin(np.arange(len(c0)), pick) for pick in picks]).T
        others = np.where(every, c0.max(), c0.min())[:, (every != (c0 > 0)[:, None]).any(0)]
    else:
        others = gen.permuted(np.tile(c0, (n_resamples, 1)), axis=1).T
    n_draws = n_resamples  # the t's bootstrap draws, however few the shuffles
    n_resamples, distinct = others.shape[1], arrangements // (1 + int(mirrored))  # |t| values
    c = np.column_stack([c0, others])
    (m1, v1, d1), (m2, v2, d2) = (  # Welch over the tasks, without its p-values: fast
        (v.mean(axis=0), v.var(axis=0, ddof=1) / len(v), len(v) - 1)
        for v in (y_pub[:, known] @ c, y_priv[:, known] @ c)
    )
    a, sides = each["estimate"][known], (y_pub[:, known], y_priv[:, known])
    noise = np.add(*(np.cov(v, rowvar=False) / len(v) for v in sides))  # A's, over the tasks
    (v_model, d_model), v_task = _model_part(a, c, noise, by, kind == "groups"), v1 + v2
    var = v_task + v_model
    df = var**2 / (v1**2 / d1 + v2**2 / d2 + v_model**2 / d_model)
    t, effect, se = (m1 - m2) / np.sqrt(var), float(m1[0] - m2[0]), np.sqrt(var[0])
    null = np.sort(np.abs(t[1:]))
    tasks = ((float(v1[0]), d1), (float(v2[0]), d2))
    drawn = _null_t(a, c0, noise, by, kind == "groups", tasks, n_draws, gen)
    boot = np.sort(np.abs(drawn))  # the t's reference: its parametric bootstrap

    def critical(alpha: float) -> tuple[float, int]:  # both tests reject beyond it; and r
        tail, r = permutation_critical(null, alpha)  # the r-th largest shuffled |t|
        return max(permutation_critical(boot, alpha)[0], tail), r

    half, p_perm = critical(1 - confidence_level)[0] * se, permutation_pvalue(null, t[0])
    p_t = permutation_pvalue(boot, t[0])
    c_m, r = critical((1 - confidence_level) / m)  # at the level of m tests
    reached = mirrored <= r - 1 if exact else binom.cdf(r - 1, n_resamples, 1 / distinct) >= power
    reach = detectable_effect(c_m, se, df[0], power=power)
    return {
        **row,
        "effect": effect,
        "se_tasks": np.sqrt(v_task[0]),
        "se_models": np.sqrt(v_model[0]),
        "se": se,
        "df": df[0],
        "ci_low": effect - half,
        "ci_high": effect + half,
        "pvalue_t": p_t,
        "pvalue_permutation": p_perm,
        "pvalue": max(p_t, p_perm),
        "spearman": float(spearmanr(a, column[known].to_numpy(dtype=float)).statistic),
        "family_share": float(share),
        "detectable": reach if reached else np.nan,
    }


def advantage_predictors(
    scores: pd.DataFrame,
    predictors: pd.DataFrame,
    *,
    public_tasks: Sequence[str],
    private_tasks: Sequence[str],
    families: Any = None,
    adjustment: Literal["holm", "bonferroni", "none"] = "holm",
    power: float = 0.8,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> AdvantagePredictorsResult:
    """Is the public advantage related to a property of the models? One test per predictor.

    ``predictors`` has one row per model (index: the model names of ``scores``) and one column per
    predictor: a numeric column is used through its ranks (robust to a few huge models), a boolean
    column splits the models into two groups (e.g. "made by Voyage", "static"). A missing value
    (training data mteb does not record) leaves that model out of that predictor only.

    * **Effect**: ``sum_j c_j A_j``, with ``c`` the standardized ranks scaled to give the
      least-squares slope of A on them (points of advantage per standard deviation of
      the ranks), or ``1/n_a`` and ``-1/n_b`` (the difference of the group means).
    * **Two sources of chance**, added: the tasks (``se_tasks``: Welch over the tasks of
      ``v_t = sum_j c_j y_tj``, public vs private, which keeps every correlation between
      the models exactly) and the models as a sample of models (``se_models``: the
      spread of the models' true advantages around the fit, i.e. the residual variance
      of the A_j minus their task noise, pooled over the models, times ``sum c_j**2``; per
      model with ``families``, the families' shared spread and the models' own, each
      weighted by the contrast, ``_model_part``). ``pvalue_t``: the t against its
      parametric bootstrap under the null (``n_resamples`` draws of the advantages from the
      task noise and the two spreads as fitted, ``_null_t``; Satterthwaite's t was
      conservative where the families' spread sits at its floor); ``df``: Satterthwaite's,
      for ``detectable``.
    * **And shuffles**: ``pvalue_permutation`` refers the same t to its values with the
      predictor shuffled over the models (exact for exchangeable models, not for families sharing
      effects, where the t decides; t alone was liberal on the real split's scores, not on
      random splits of them; a group's arrangements each once if no more than
      ``n_resamples``). ``pvalue`` is the larger: the decision is valid when either test is;
      the interval ``effect +- se`` times the larger critical value.
    * **Null hypothesis**: the predictor is unrelated to the models' expected advantage
      (over the population of tasks and of models). A group that is exactly one family (one
      organisation's models against the rest) asks whether that family's models differ from the
      others: its own shared effect is the effect tested, the other families' count as chance
      (their part of the variance; a difference found says that family differs, not why).
      **Assumptions**: tasks independent (see :func:`public_advantage`); models independent given
      the tasks, or, with ``families``, given their families' shared effects, normal. Its variance
      has that family part, biased up where it sits at its floor of zero (if the part is not
      positive, the pooled); the bootstrap draws that bias too, and so holds the level there.
      The decision needs both references: where every spread is truly 0, a group with
      ``family_share`` near 1 (one family and part of another, as the static models) rejects
      about 0.035 at 5%, its shuffles conservative there (their t weighs the families:
      ``goodhart_boundary.md``), as every predictor does on random splits of the real scores
      (0.031-0.036, both references at their level alone). One of two families only (a
      kind made by one organisation against another's) is not tested (NaN, left out of the
      adjustment). The true advantages spread alike in the two groups; the effect linear in
      the ranks. Measured type-I error:
      ``benchmarks/results/goodhart_validation.md`` (departures; the family cells),
      ``goodhart_placebo.md`` (real scores).
    * **Multiplicity**: ``pvalue_adjusted`` by ``adjustment`` across the predictors
      (Holm by default). **Detectable effect**: where nothing is found, ``detectable`` is the
      smallest absolute effect found with probability ``power`` at the level ``alpha / m``, ``m``
      the predictors tested (Bonferroni; a bound for Holm's first step) with the larger critical
      value; NaN where the most extreme arrangement cannot reach that level (5 of 10 models at
      0.005: mirror pairs; drawn shuffles: not with probability ``power``). Measured power at it,
      from 4 of 10 models to 70: ``goodhart_validation.md``.

    Args:
        scores: wide tasks x models table, every model complete on both sides.
        predictors: one row per model of ``scores``, one column per predictor.
        public_tasks: the public tasks.
        private_tasks: the private tasks.
        families: the family of every model (a mapping or Series; e.g. its organisation).
        adjustment: ``"holm"``, ``"bonferroni"`` or ``"none"``.
        power: power of the detectable effect, in (0, 1).
        n_resamples: shuffles of each predictor, and draws of its t's parametric bootstrap.
        confidence_level: level of each interval; decisions at ``1 - confidence_level``.
        rng: seed or Generator of the shuffles (over the models in sorted order).

    Returns:
        AdvantagePredictorsResult.

    Raises:
        ValueError: a bad table or option; a predictor constant or with a group under 2 models.
        LabelMismatchError: the predictors' rows are not the models of ``scores``, or
            ``families`` lacks one.

    Examples:
        40 models on 16 public and 13 private tasks (synthetic); the public advantage
        grows with ``size``, ``date`` is unrelated:

        >>> import numpy as np, pandas as pd
        >>> from analysis.stats import advantage_predictors
        >>> rng = np.random.default_rng(1)
        >>> tasks, models = [f"t{i:02d}" for i in range(29)], [f"m{j}" for j in range(40)]
        >>> size = pd.Series(rng.normal(size=40), index=models)
        >>> x = rng.normal(0.5, 0.1, (29, 1)) + rng.normal(0, 0.02, (29, 40))
        >>> x[:16] += 0.03 * size.to_numpy()
        >>> scores = pd.DataFrame(x, index=tasks, columns=models)
        >>> found = pd.DataFrame({"size": size, "date": rng.normal(size=40)}, index=models)
        >>> res = advantage_predictors(scores, found, public_tasks=tasks[:16],
        ...                            private_tasks=tasks[16:], rng=0)
        >>> res.to_frame().set_index("predictor")["pvalue_adjusted"].lt(0.05).to_dict()
        {'size': True, 'date': False}
    """
    adjustment = _check_choice(adjustment, "adjustment", _ADJUSTMENTS)
    power = _check_open_unit(power, "power")
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level, gen = _check_open_unit(confidence_level, "confidence_level"), _check_rng(rng)
    x_pub, x_priv, _, _, models = _side_matrices(scores, public_tasks, private_tasks)
    if not isinstance(predictors, pd.DataFrame) or predictors.shape[1] == 0:
        raise ValueError("`predictors` must be a DataFrame with one column per predictor")
    if set(map(str, predictors.index)) != set(models):
        raise label_mismatch("scores", models, "predictors", map(str, predictors.index))
    y_pub, y_priv = _relative(x_pub), _relative(x_priv)
    each = _welch_parts(y_pub, y_priv, confidence_level)
    found = predictors.set_axis(list(map(str, predictors.index)), axis=0).loc[models]
    strata = _strata(families, models)
    m = max(1, sum(_tested(found[k], strata) for k in found))  # Holm's m: the predictors tested
    options: dict[str, Any] = {"confidence_level": confidence_level, "power": power, "m": m}
    options["strata"] = strata
    least = int(np.floor(m / (1 - confidence_level) + 1e-9))
    if n_resamples < least:  # the shuffles must reach the level of `detectable`
        raise ValueError(f"`n_resamples` must be {least} or more for {m} tested predictors")
    rows = [
        predictor_row(y_pub, y_priv, each, found[name], n_resamples=n_resamples, gen=gen, **options)
        for name in found
    ]
    table = pd.DataFrame(rows)
    adjusted, tested = np.full(len(table), np.nan), table["pvalue"].notna().to_numpy()
    adjusted[tested] = adjust_pvalues(table["pvalue"][tested].to_numpy(), adjustment=adjustment)
    table.insert(len(table.columns) - 1, "pvalue_adjusted", adjusted)  # before `detectable`
    by_family = "; the families' shared spread in the models' variance"
    return AdvantagePredictorsResult(
        table=table,
        adjustment=adjustment,
        power=power,
        confidence_level=confidence_level,
        method=(
            "contrast of the public advantages (ranks: least-squares slope per SD of the "
            "ranks; groups: difference of means); variance = Welch over the tasks + the "
            "models' residual spread; the larger p of the t against its parametric bootstrap "
            f"({n_resamples} draws from the fitted spreads) and of "
            f"{n_resamples} shuffles of the predictor (a group's every arrangement if fewer)"
            f"{by_family * (families is not None)}; "
            f"{adjustment} across {int(tested.sum())} tested predictor(s)"
        ),
    )


# --------------------------------------------------------------------------- within models


def _differences(y: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Per model: mean of ``y`` over its flagged tasks minus over the others (NaN if none)."""
    on = flags.sum(axis=-2)
    off = flags.shape[-2] - on
    with np.errstate(invalid="ignore", divide="ignore"):
        trained, untrained = (flags * y).sum(axis=-2) / on, (~flags * y).sum(axis=-2) / off
    return np.where((on > 0) & (off > 0), trained - untrained, np.nan)


def _relabelled(
    y: np.ndarray,
    f: np.ndarray,
    patterns: np.ndarray,
    n: int,
    gen: Any,
    strata: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The statistic and the overlap term under ``n`` random reassignments of the patterns."""
    k = patterns.shape[1]
    codes = np.zeros(k) if strata is None else strata.astype(float)
    canonical = np.argsort(codes, kind="stable")  # the models, stratum by stratum
    stats, overlap = [], []
    rows = max(1, (1 << 22) // max(patterns.size, 1))
    for start in range(0, n, rows):
        shuffled = np.argsort(codes + gen.random((min(rows, n - start), k)), axis=1)
        order = np.empty_like(shuffled)
        order[:, canonical] = shuffled  # model canonical[i] gets a pattern of its stratum
        flags = np.swapaxes(patterns[:, order], 0, 1)  # (b, tasks, K): model j gets order[j]
        stats.append(np.nanmean(_differences(y, flags), axis=1))
        overlap.append(np.nanmean(_differences(f, flags), axis=1))
    return np.concatenate(stats), np.concatenate(overlap)


def _inverted(
    seen: tuple[float, float], a: np.ndarray, g: np.ndarray, alpha: float
) -> ConfidenceInterval:
    """The shifts the permutation test does not reject: the hull of {d : p(d) > alpha}, exact.

    A draw counts where |a - d g| >= |A - d G|, i.e. where the lines a - A - d (g - G) and
    a + A - d (g + G) have one sign; the count changes only at their roots, so it is swept
    over them (a draw equal to the observed, or to its mirror, counts at every d).
    """
    (big_a, big_g), tol = seen, 1e-12 * (abs(seen[0]) + abs(seen[1])) + 1e-15
    lines = [(a - big_a, g - big_g), (a + big_a, g + big_g)]  # c - d s
    always = np.logical_or(*[(abs(c) <= tol) & (abs(s) <= tol) for c, s in lines])
    roots = np.sort([np.where(s == 0, np.inf, c / np.where(s == 0, 1, s)) for c, s in lines], 0)
    start = ~always & (np.prod([np.sign(np.where(s == 0, c, s)) for c, s in lines], 0) > 0)
    step = np.where(always, 0, 1 - 2 * start)  # the count's change at a draw's first root
    at, change = roots.ravel(), np.concatenate([step, -step])
    at, where = np.unique(at[keep := np.isfinite(at) & (change != 0)], return_inverse=True)
    count = start.sum() + always.sum() + np.cumsum(np.r_[0, np.bincount(where, change[keep])])
    kept, edges = count + 1 > alpha * (len(a) + 1), np.r_[-np.inf, at, np.inf]
    if not kept.any():  # unreached: near d = A / G every draw counts
        return ConfidenceInterval(big_a / big_g, big_a / big_g)
    return ConfidenceInterval(float(edges[:-1][kept][0]), float(edges[1:][kept][-1]))


def _strata(families: Any, models: list[str]) -> np.ndarray | None:
    """Integer family codes of ``models`` from a mapping or Series model -> family."""
    if families is None:
        return None
    if not isinstance(families, pd.Series | Mapping):
        raise ValueError("`families` must map each model to its family (a dict or a Series)")
    lookup = pd.Series(families, dtype=object)
    absent = [m for m in models if m not in lookup.index or pd.isna(lookup[m])]
    if absent:
        raise LabelMismatchError(
            f"`families` has no family for {absent[:5]}: give every model a family (its "
            "own name for a model alone)"
        )
    return np.asarray(pd.factorize(lookup.loc[models])[0], dtype=np.intp)


@dataclass(frozen=True, repr=False)
class TrainedTaskResult(TableResult):
    """Result of :func:`trained_task_effect`.

    Attributes:
        table: one row per model that trained on some of the tasks but not all: ``model``,
            ``n_trained``, ``trained``/``untrained`` (mean relative scores), ``difference``.
        statistic: the mean ``difference`` over those models.
        pvalue: the permutation p-value (NaN under 2 models).
        shift: the estimated common gain of the trained cells' scores (bringing ``statistic`` to
            0; NaN if every model trained alike); ``confidence_interval`` is for it.
        n_models: models in the comparison.
        n_tasks_varying: tasks that some of those models trained on.
        confidence_level: level of the interval.
        method: what was computed.
        caveat: why the comparison says little ("" when it stands).
    """

    table: pd.DataFrame
    statistic: float
    pvalue: float
    shift: float
    confidence_interval: ConfidenceInterval
    n_models: int
    n_tasks_varying: int
    confidence_level: float
    method: str
    caveat: str = ""


def trained_task_effect(
    scores: pd.DataFrame,
    trained: pd.DataFrame,
    *,
    families: Any = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
) -> TrainedTaskResult:
    """Within models: higher relative scores on the tasks a model trained on?

    For every model whose training data is known and which trained on some of the tasks
    but not all, ``difference`` = its mean relative score (score minus the mean of the
    other models on the task) over the tasks it trained on, minus the same over the
    tasks it did not; the statistic is their mean, the model being the unit.

    * **Test**: the models' training patterns (which tasks each trained on) are
      reassigned at random among the models with known training data, ``n_resamples``
      times, and the statistic recomputed: a permutation test with the model as the unit.
      It keeps what a sign-flip test over the differences would miss: the models share
      the tasks they trained on (22 of RTEB(beta)'s models trained on the same public
      task), and each one's relative score is taken against the others', so their
      differences are correlated (a sign-flip test was measured far below its level).
      The interval (of ``shift``): the common gains of the trained cells' scores the same test
      does not reject, in scores (a gain lifts its task's mean); it assumes one gain for every
      trained cell (gains differing by model: too narrow) and none for unknown training's models.
    * **Families**: one organisation's models share their training and errors, so they are not
      exchangeable with the others; with ``families`` the patterns move only within a family (the
      restricted permutation the null leaves exchangeable). Among all models, with ten families
      sharing half their interactions, the test was far too conservative; within them, at its
      level (``benchmarks/results/goodhart_validation.md``). A model alone in its family keeps its
      pattern: only families with models trained differently contribute.
    * **Null hypothesis**: which model trained on which task is unrelated to the models'
      scores (the labels are exchangeable among the models with known training data,
      within each family when ``families`` is given).
      **Assumptions**: models exchangeable under the null, so a group of much noisier
      models can distort it; and which tasks a model trained on is not random (a multilingual model
      trains on a multilingual task): read a difference as an association, not as the effect of
      training. Measured type-I error: ``benchmarks/results/goodhart_validation.md``.
    * With 5 models or fewer the comparison says little (``caveat``).

    Args:
        scores: wide tasks x models table (the tasks compared, e.g. the public tasks),
            every model complete.
        trained: the same tasks x models, True where the model trained on the task, missing where
            its training data is unknown (:func:`analysis.results.training.trained_on`).
        families: the family of every model with known training data (a mapping or
            Series model -> label); None: every such model exchangeable with every other.
        n_resamples: random reassignments of the training patterns.
        confidence_level: level of the interval.
        rng: seed or Generator (reassignments over the models in sorted order).

    Returns:
        TrainedTaskResult.

    Raises:
        ValueError: ``scores`` has missing values or fewer than 3 models; ``families``
            not a mapping.
        LabelMismatchError: ``trained`` has other tasks or models than ``scores``;
            ``families`` lacks a model.

    Examples:
        30 models on 8 tasks (synthetic); the first 12 trained on task t0 and gain 0.05 on it:

        >>> import numpy as np, pandas as pd
        >>> from analysis.stats import trained_task_effect
        >>> rng = np.random.default_rng(2)
        >>> tasks, models = [f"t{i}" for i in range(8)], [f"m{j}" for j in range(30)]
        >>> scores = pd.DataFrame(rng.normal(0.5, 0.02, (8, 30)), index=tasks, columns=models)
        >>> trained = pd.DataFrame(False, index=tasks, columns=models)
        >>> trained.iloc[0, :12] = True
        >>> scores.iloc[0, :12] += 0.05
        >>> res = trained_task_effect(scores, trained, rng=0)
        >>> res.n_models, bool(res.pvalue < 0.05), bool(res.confidence_interval.low > 0)
        (12, True, True)
    """
    n_resamples = _check_n_resamples(n_resamples)
    confidence_level, gen = _check_open_unit(confidence_level, "confidence_level"), _check_rng(rng)
    if not isinstance(scores, pd.DataFrame) or not isinstance(trained, pd.DataFrame):
        raise ValueError("`scores` and `trained` must be tasks x models DataFrames")
    if scores.isna().any().any() or scores.shape[1] < 3:
        raise ValueError("`scores` needs 3 models or more, each with a score on every task")
    for axis, name in ((0, "tasks (rows)"), (1, "models (columns)")):
        if set(scores.axes[axis]) != set(trained.axes[axis]):
            raise label_mismatch(f"scores {name}", scores.axes[axis], "trained", trained.axes[axis])
    scores = scores.sort_index(axis=1, key=lambda c: c.map(str))  # draws: not by column order
    flags = trained.reindex(index=scores.index, columns=scores.columns).astype("boolean")
    known = ~flags.isna().any(axis=0).to_numpy()
    y = _relative(scores.to_numpy(dtype=float))[:, known]
    own = flags.loc[:, known].to_numpy(dtype=bool)
    eligible = ~np.isnan(diffs := _differences(y, own))
    table = pd.DataFrame(
        {
            "model": np.asarray(scores.columns)[known][eligible],
            "n_trained": own[:, eligible].sum(axis=0),
            "trained": (own * y).sum(axis=0)[eligible] / own.sum(axis=0)[eligible],
            "untrained": (~own * y).sum(axis=0)[eligible] / (~own).sum(axis=0)[eligible],
            "difference": diffs[eligible],
        }
    )
    few = "trained on some of the tasks but not all: too few to tell a difference from chance."
    caveat = f"{len(table)} model(s) {few}" if len(table) <= 5 else ""
    observed = float(diffs[eligible].mean()) if len(table) else np.nan
    pvalue, shift, interval = np.nan, np.nan, ConfidenceInterval(np.nan, np.nan)
    method = "too few models to compare"
    if len(table) >= 2:
        strata = _strata(families, list(np.asarray(scores.columns)[known]))
        f = _relative(flags.fillna(False).to_numpy(dtype=float))[:, known]  # a shift's share
        a, g = _relabelled(y, f, own, n_resamples, gen, strata)
        seen = (observed, float(_differences(f, own)[eligible].mean()))
        pvalue = permutation_pvalue(np.abs(a), observed)
        interval = ConfidenceInterval(-np.inf, np.inf)
        if seen[1] > 1e-12:  # else every model trained alike: relative scores hide a gain
            shift, interval = seen[0] / seen[1], _inverted(seen, a, g, 1 - confidence_level)
        method = (
            "mean over models of (trained - untrained) relative score; permutation test "
            f"over {n_resamples} reassignments of the training patterns among the "
            f"{int(known.sum())} models with known training data"
            + ("" if strata is None else f", within {int(strata.max()) + 1} families")
            + "; interval: the trained cells' score shifts it does not reject"
        )
    return TrainedTaskResult(
        table=table.sort_values("difference", ascending=False, ignore_index=True),
        statistic=observed,
        pvalue=pvalue,
        shift=shift,
        confidence_interval=interval,
        n_models=len(table),
        n_tasks_varying=int(own[:, eligible].any(axis=1).sum()),
        confidence_level=confidence_level,
        method=method,
        caveat=caveat,
    )
