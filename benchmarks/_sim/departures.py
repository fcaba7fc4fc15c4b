"""Simulations under realistic departures: unequal spreads, clustered tasks, outliers, skew.

The companion of :mod:`_sim.stats` (same conventions: seeded, batched
through the kernels the public functions use; small replicate counts in
``tests/stats/test_simulation.py``, large ones in ``benchmarks/bench_stats_validation.py``):

* :func:`group_contrast_designs`: Welch's t against the permutation of Welch's t, at
  groups of unequal sizes and spreads (the acceptance designs of ``group_contrast``);
* :func:`clustered_rates`: the paired test's type-I error and the max-T family-wise
  error when tasks come in correlated clusters, with and without ``clusters=``;
* :func:`gap_design_rates`: the relative gap under one outlying model and under skewed,
  private-only losses, for the mean and the median reference;
* :func:`float_constant_check`: a pair constant up to float rounding in a table.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.stats._maxt import maxt, single_step
from analysis.stats._resampling import unit_sums
from analysis.stats.contrast import welch
from analysis.stats.gap import relative_gap_welch
from analysis.stats.paired import _paired_tests
from analysis.stats.pairwise import pairwise_significance

from .stats import Rate

# --------------------------------------------------------------------------- group contrasts


def _welch_t(x: np.ndarray, mask_a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Welch's t and df of group a (mask) vs the rest, batched over leading axes."""
    n_a = mask_a.sum(axis=-1)
    n_b = mask_a.shape[-1] - n_a
    s_a = (x * mask_a).sum(axis=-1)
    q_a = (x * x * mask_a).sum(axis=-1)
    s_b, q_b = x.sum(axis=-1) - s_a, (x * x).sum(axis=-1) - q_a
    m_a, m_b = s_a / n_a, s_b / n_b
    v_a = (q_a - n_a * m_a**2) / (n_a - 1) / n_a
    v_b = (q_b - n_b * m_b**2) / (n_b - 1) / n_b
    se2 = v_a + v_b
    df = se2**2 / (v_a**2 / (n_a - 1) + v_b**2 / (n_b - 1))
    return (m_a - m_b) / np.sqrt(se2), df


def group_contrast_designs(
    n_a: int,
    n_b: int,
    sd_a: float,
    sd_b: float,
    reps: int,
    *,
    seed: int,
    dist: str = "normal",
    permutation_reps: int | None = None,
    n_permutations: int = 999,
    alpha: float = 0.05,
) -> dict[str, Rate]:
    """Type-I error (equal means, unequal spreads) of Welch's t and of its permutation.

    Welch (the reference distribution ``group_contrast`` uses): ``type1``, ``coverage``
    of the interval and ``agree`` (interval excludes 0 <=> p < alpha), over ``reps``
    data sets. Permutation of Welch's t (labels reassigned, ``n_permutations`` random
    arrangements, the ``(b+1)/(B+1)`` p-value): ``type1_permutation`` over
    ``permutation_reps`` data sets (default ``reps // 5``; 0: not measured). ``dist``:
    ``"normal"`` or ``"exponential"`` (centred, skewness 2).
    """
    rng = np.random.default_rng([seed, n_a, n_b, int(10 * sd_a), int(10 * sd_b)])

    def draw(r: int, size: int) -> np.ndarray:
        if dist == "normal":
            return rng.normal(size=(r, size))
        return rng.exponential(size=(r, size)) - 1.0

    x = np.concatenate([sd_a * draw(reps, n_a), sd_b * draw(reps, n_b)], axis=1)
    a, b = x[:, :n_a], x[:, n_a:]
    res = welch(
        a.mean(axis=1),
        a.var(axis=1, ddof=1),
        n_a,
        b.mean(axis=1),
        b.var(axis=1, ddof=1),
        n_b,
        1.0 - alpha,
    )
    reject = res["pvalue"] < alpha
    excludes = (res["low"] > 0) | (res["high"] < 0)
    out = {
        "type1": Rate(float(reject.mean()), reps),
        "coverage": Rate(float((~excludes).mean()), reps),
        "agree": Rate(float((reject == excludes).mean()), reps),
    }
    p_reps = permutation_reps if permutation_reps is not None else max(20, reps // 5)
    hits = 0
    n = n_a + n_b
    for start in range(0, p_reps, 50):
        r = min(50, p_reps - start)
        xs = x[start : start + r]
        t0, _ = _welch_t(xs, np.arange(n) < n_a)
        perm = rng.permuted(np.broadcast_to(np.arange(n), (r, n_permutations, n)), axis=2)
        mask = np.zeros((r, n_permutations, n))
        np.put_along_axis(mask, perm[:, :, :n_a], 1.0, axis=2)
        tp, _ = _welch_t(xs[:, None, :], mask)
        count = (np.abs(tp) >= np.abs(t0)[:, None] * (1 - 1e-12)).sum(axis=1)
        hits += int(((count + 1.0) / (n_permutations + 1.0) < alpha).sum())
    if p_reps:
        out["type1_permutation"] = Rate(hits / p_reps, p_reps)
    return out


# --------------------------------------------------------------------------- clustered tasks


def clustered_scores(
    rng: np.random.Generator,
    reps: int,
    n_tasks: int,
    n_models: int,
    cluster_sizes: Sequence[int],
    rho: float | Sequence[float],
) -> tuple[np.ndarray, np.ndarray]:
    """Scores (reps, tasks, models) with correlated clusters of tasks, and cluster codes.

    The first ``sum(cluster_sizes)`` tasks form the clusters, the rest are singletons.
    Noise of model k on task t: ``sqrt(rho_c) u[c, k] + sqrt(1 - rho_c) v[t, k]`` (all
    standard normal), so two tasks of cluster c correlate at ``rho_c`` for every model
    (and so do their pairwise differences); plus a task effect shared by all models.
    """
    codes = np.concatenate(
        [np.full(s, c) for c, s in enumerate(cluster_sizes)]
        + [np.arange(len(cluster_sizes), len(cluster_sizes) + n_tasks - sum(cluster_sizes))]
    ).astype(np.intp)
    g = int(codes.max()) + 1
    rhos = np.broadcast_to(np.asarray(rho, dtype=float), (len(cluster_sizes),))
    r_task = np.zeros(n_tasks)
    r_task[: sum(cluster_sizes)] = np.repeat(rhos, cluster_sizes)
    shared = rng.normal(size=(reps, g, n_models))[:, codes]
    own = rng.normal(size=(reps, n_tasks, n_models))
    noise = np.sqrt(r_task)[None, :, None] * shared + np.sqrt(1 - r_task)[None, :, None] * own
    return rng.normal(size=(reps, n_tasks, 1)) + noise, codes


def _maxt_family_errors(
    X: np.ndarray,
    codes: np.ndarray | None,
    alpha: float,
    n_resamples: int,
    rng: np.random.Generator,
) -> int:
    """Data sets (of the batch X) in which any pair is significant under max-T.

    The rule of :func:`pairwise_significance` (single step, the larger of the plain and
    the centred null's critical values), through the same kernel.
    """
    from analysis.stats._resampling import sign_patterns

    reps, _, k = X.shape
    U, sizes = unit_sums(X, codes)
    patterns = sign_patterns(U.shape[1], n_resamples, rng)
    ia, ib = np.triu_indices(k, 1)
    kernel = maxt(U, ia[None], ib[None], patterns, sizes=sizes, keep_null=True, centred=True)
    assert kernel.null_max is not None and kernel.null_max_centred is not None
    errors = 0
    for r in range(reps):
        obs = kernel.observed[r, 0]
        p1, _ = single_step(kernel.null_max[r, 0], obs, patterns, alpha)
        p2, _ = single_step(kernel.null_max_centred[r, 0], obs, patterns, alpha)
        errors += bool((np.maximum(p1, p2) < alpha).any())
    return errors


def clustered_rates(
    n_tasks: int,
    cluster_sizes: Sequence[int],
    rho: float | Sequence[float],
    reps: int,
    *,
    seed: int,
    n_models: int = 10,
    alpha: float = 0.05,
    n_resamples: int = 4096,
    chunk: int = 250,
) -> dict[str, Rate]:
    """Type-I error of the paired test and max-T family-wise error, clustered tasks.

    Global null (no model differs), tasks in correlated clusters (see
    :func:`clustered_scores`). Returns ``paired`` / ``paired_clusters`` (the first pair,
    sign flips per task / per cluster) and ``maxT`` / ``maxT_clusters`` (any of the
    ``n_models`` models' pairs significant).
    """
    rng = np.random.default_rng(seed)
    hits = {"paired": 0, "paired_clusters": 0, "maxT": 0, "maxT_clusters": 0}
    for start in range(0, reps, chunk):
        r = min(chunk, reps - start)
        X, codes = clustered_scores(rng, r, n_tasks, n_models, cluster_sizes, rho)
        D = (X[:, :, 0] - X[:, :, 1]).T  # tasks x data sets
        for key, c in (("paired", None), ("paired_clusters", codes)):
            Du, sizes = unit_sums(D, c)
            res = _paired_tests(
                Du,
                n_resamples=n_resamples,
                confidence_level=1 - alpha,
                alternative="two-sided",
                rng=rng,
                interval="inversion",
                sizes=sizes,
            )
            hits[key] += int((res.pvalue < alpha).sum())
        hits["maxT"] += _maxt_family_errors(X, None, alpha, n_resamples, rng)
        hits["maxT_clusters"] += _maxt_family_errors(X, codes, alpha, n_resamples, rng)
    return {key: Rate(v / reps, reps) for key, v in hits.items()}


# --------------------------------------------------------------------------- relative gap


def _gap_data(
    rng: np.random.Generator, design: str, reps: int, n_public: int, n_private: int, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores of k models (public, private) and each model's expected private effect.

    Task difficulty N(0.5, 0.1) per task and side, model skill N(0, 0.05), task x model
    noise SD 0.1 (the spread of the relative scores on RTEB(beta), about 0.11).
    ``"outlier"``: model 0 loses 0.15 on every private task. ``"skewed"``: model 0
    loses ``0.15 * lognormal(0, 1)`` on each private task (skewness 6.2, mean 0.247).
    """
    skill = rng.normal(0.0, 0.05, k)
    pub = (
        rng.normal(0.5, 0.1, (reps, n_public, 1)) + skill + rng.normal(0, 0.1, (reps, n_public, k))
    )
    priv = (
        rng.normal(0.45, 0.1, (reps, n_private, 1))
        + skill
        + rng.normal(0, 0.1, (reps, n_private, k))
    )
    effect = np.zeros(k)
    if design == "outlier":
        effect[0] = -0.15
        priv = priv + effect
    elif design == "skewed":
        effect[0] = -0.15 * math.exp(0.5)
        priv[:, :, 0] -= 0.15 * rng.lognormal(0.0, 1.0, (reps, n_private))
    else:
        raise ValueError(f"`design` must be 'outlier' or 'skewed', got {design!r}")
    return pub, priv, effect


def _bootstrap_t(
    y_pub: np.ndarray, y_priv: np.ndarray, level: float, b: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Stratified bootstrap-t interval of mean(y_priv) - mean(y_pub), batched over rows."""
    n1, n2 = y_pub.shape[1], y_priv.shape[1]
    est = y_priv.mean(axis=1) - y_pub.mean(axis=1)
    se = np.sqrt(y_pub.var(axis=1, ddof=1) / n1 + y_priv.var(axis=1, ddof=1) / n2)
    bp = y_pub[:, rng.integers(0, n1, (b, n1))]
    bq = y_priv[:, rng.integers(0, n2, (b, n2))]
    e = bq.mean(axis=2) - bp.mean(axis=2)
    s = np.sqrt(bp.var(axis=2, ddof=1) / n1 + bq.var(axis=2, ddof=1) / n2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (e - est[:, None]) / s  # s = 0: +-inf (or NaN for no change, counted as 0)
    t = np.nan_to_num(t, nan=0.0, posinf=np.inf, neginf=-np.inf)
    tail = (1.0 - level) / 2.0
    q_lo, q_hi = np.quantile(t, [tail, 1.0 - tail], axis=1)
    return est - q_hi * se, est - q_lo * se


def gap_design_rates(
    design: str,
    n_public: int,
    n_private: int,
    reps: int,
    *,
    seed: int,
    n_models: int = 7,
    confidence_level: float = 0.95,
    bootstrap_reps: int = 0,
    n_bootstrap: int = 999,
) -> dict[str, Rate]:
    """Relative gap under an outlier or skewed private losses, mean and median references.

    Per reference: ``coverage_{ref}`` (all models pooled; target: the model's private
    effect minus the reference of the others' private effects), ``coverage_{ref}_model0``
    (the outlying / lossy model), and for ``"outlier"`` ``null_reject_{ref}``: how often
    the other models (no private effect of their own) get p < 0.05. With
    ``bootstrap_reps`` > 0: ``coverage_bootstrap_t_model0``, a stratified bootstrap-t
    interval for model 0 (mean reference), for comparison.
    """
    rng = np.random.default_rng([seed, n_public, n_private, len(design)])
    pub, priv, effect = _gap_data(rng, design, reps, n_public, n_private, n_models)
    out: dict[str, Rate] = {}
    others = ~np.eye(n_models, dtype=bool)
    for ref in ("mean", "median"):
        res = relative_gap_welch(pub, priv, confidence_level, ref)
        agg = np.array(
            [effect[o].mean() if ref == "mean" else np.median(effect[o]) for o in others]
        )
        target = effect - agg
        covered = (res["low"] <= target) & (target <= res["high"])
        out[f"coverage_{ref}"] = Rate(float(covered.mean()), reps)
        out[f"coverage_{ref}_model0"] = Rate(float(covered[:, 0].mean()), reps)
        if design == "outlier":
            reject = res["pvalue"][:, 1:] < 1 - confidence_level
            out[f"null_reject_{ref}"] = Rate(float(reject.mean()), reps)
    if bootstrap_reps:
        mean_others = (priv.sum(axis=2) - priv[:, :, 0])[:, :bootstrap_reps] / (n_models - 1)
        y_priv = priv[:bootstrap_reps, :, 0] - mean_others[:bootstrap_reps]
        y_pub = pub[:bootstrap_reps, :, 0] - (
            pub[:bootstrap_reps].sum(axis=2) - pub[:bootstrap_reps, :, 0]
        ) / (n_models - 1)
        target = effect[0] - effect[1:].mean()
        hits = 0
        for s in range(0, bootstrap_reps, 200):
            lo, hi = _bootstrap_t(
                y_pub[s : s + 200], y_priv[s : s + 200], confidence_level, n_bootstrap, rng
            )
            hits += int(((lo <= target) & (target <= hi)).sum())
        out["coverage_bootstrap_t_model0"] = Rate(hits / bootstrap_reps, bootstrap_reps)
    return out


# --------------------------------------------------------------------------- float rounding


def float_constant_check(n_tasks: int = 13, n_models: int = 8, seed: int = 3) -> dict[str, float]:
    """A pair constant up to float rounding (``x`` and ``x - 0.001``) in a table.

    Returns ``finite``: 1.0 when every other pair's max-T interval is finite;
    ``max_change``: the largest change of any other pair's interval end between the table
    with ``x - 0.001`` (rounding noise in the differences) and the same table with a pair
    whose differences are exactly constant (a dyadic shift of ``x`` on a dyadic grid:
    no rounding), relative to the interval's width; ``pair_point``: 1.0 when the pair's
    own interval is a point.
    """
    rng = np.random.default_rng(seed)
    grid = 2.0**-30
    X = (
        np.round(
            (rng.normal(0.5, 0.05, (n_tasks, 1)) + rng.normal(0, 0.02, (n_tasks, n_models))) / grid
        )
        * grid
    )
    exact_shift = round(0.001 / grid) * grid
    noisy = pd.DataFrame(
        np.column_stack([X, X[:, 0] - 0.001]), index=[f"t{i}" for i in range(n_tasks)]
    )
    clean = noisy.copy()
    clean[n_models] = X[:, 0] - exact_shift
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = pairwise_significance(noisy, rng=0).table
        b = pairwise_significance(clean, rng=0).table
    pair = (a["model_a"] == 0) & (a["model_b"] == n_models)
    rest = ~pair
    width = (b.loc[rest, "ci_high"] - b.loc[rest, "ci_low"]).to_numpy()
    change = (
        np.maximum(
            np.abs(a.loc[rest, "ci_low"] - b.loc[rest, "ci_low"]).to_numpy(),
            np.abs(a.loc[rest, "ci_high"] - b.loc[rest, "ci_high"]).to_numpy(),
        )
        / width
    )
    finite = np.isfinite(a.loc[~pair, ["ci_low", "ci_high"]].to_numpy()).all()
    point = float(a.loc[pair, "ci_high"].iloc[0] - a.loc[pair, "ci_low"].iloc[0]) < 1e-9
    return {"finite": float(finite), "max_change": float(change.max()), "pair_point": float(point)}


# --------------------------------------------------------------------------- labels


def label_alignment_check(n_shuffles: int = 5, seed: int = 0) -> dict[str, int]:
    """Every public function with labelled input: shuffled labels give identical results.

    For each function, ``n_shuffles`` reorderings of its pandas inputs (rows of a table,
    entries of a Series; Monte-Carlo resampling included) are compared with the original
    order (``to_frame()`` equal, exactly); then one input loses a label and gains another,
    and the error must be a LabelMismatchError naming both. Returns counts:
    ``identical`` / ``runs`` and ``named`` / ``mismatches``.
    """
    from analysis.core.errors import LabelMismatchError
    from analysis.stats.agreement import benchmark_agreement
    from analysis.stats.compare import compare
    from analysis.stats.contrast import group_contrast
    from analysis.stats.correlation import rank_correlation
    from analysis.stats.friedman import friedman_nemenyi
    from analysis.stats.gap import public_private_gap
    from analysis.stats.paired import paired_bootstrap
    from analysis.stats.ranks import rank_intervals

    rng = np.random.default_rng(seed)
    n, k = 25, 6  # 25 tasks: Monte-Carlo sign flips, where the order would matter
    X = pd.DataFrame(
        rng.normal(size=(n, 1)) + np.linspace(0, 1, k) + rng.normal(size=(n, k)),
        index=[f"task{i}" for i in range(n)],
        columns=[f"model{j}" for j in range(k)],
    )
    clusters = pd.Series([f"c{i // 2}" for i in range(n)], index=X.index)
    a, b = X.iloc[:, 0], X.iloc[:, 1]
    groups = pd.Series(list("aaabbb"), index=X.columns)
    pub, priv = list(X.index[:12]), list(X.index[12:])

    def shuffle(obj: pd.DataFrame | pd.Series) -> pd.DataFrame | pd.Series:
        return obj.sample(frac=1.0, random_state=int(rng.integers(1 << 30)))

    calls = {
        "paired_bootstrap": lambda f: paired_bootstrap(f(a), f(b), clusters=f(clusters), rng=1),
        "pairwise_significance": lambda f: pairwise_significance(
            f(X), clusters=f(clusters), n_resamples=999, rng=1
        ),
        "rank_intervals": lambda f: rank_intervals(
            f(X), clusters=f(clusters), n_resamples=999, rng=1
        ),
        "compare": lambda f: compare(f(X), n_resamples=999, rng=1),
        "rank_correlation": lambda f: rank_correlation(f(a), f(b), n_resamples=999, rng=1),
        "benchmark_agreement": lambda f: benchmark_agreement(
            f(a), f(b), top_k=(10,), subset_sizes=(10,), n_subsets=50, n_resamples=99, rng=1
        ),
        "group_contrast": lambda f: group_contrast(
            f(X.iloc[0]), f(groups), group_a="a", group_b="b"
        ),
        "public_private_gap": lambda f: public_private_gap(
            f(X), public_tasks=pub, private_tasks=priv, n_resamples=99, rng=1
        ),
        "friedman_nemenyi": lambda f: friedman_nemenyi(f(X)),
    }
    identical = runs = 0
    for call in calls.values():
        ref = call(lambda o: o).to_frame()
        for _ in range(n_shuffles):
            got = call(shuffle).to_frame()
            runs += 1
            identical += bool(got.reset_index(drop=True).equals(ref.reset_index(drop=True)))
    named = mismatches = 0

    def drift(obj: pd.DataFrame | pd.Series) -> pd.DataFrame | pd.Series:
        return obj.rename(index={obj.index[0]: "not-a-label"})

    for call in (calls["paired_bootstrap"], calls["rank_correlation"], calls["group_contrast"]):
        mismatches += 1
        labelled = {"n": 0}

        def second_drifts(obj: pd.DataFrame | pd.Series, state: dict = labelled):
            state["n"] += 1
            return drift(obj) if state["n"] == 2 else obj

        try:
            call(second_drifts)
        except LabelMismatchError as exc:
            named += "not-a-label" in str(exc) and "lacks" in str(exc)
    for call in (calls["pairwise_significance"], calls["rank_intervals"]):
        mismatches += 1
        try:  # the clusters Series drifts
            call(lambda o: drift(o) if isinstance(o, pd.Series) else o)
        except LabelMismatchError as exc:
            named += "not-a-label" in str(exc) and "lacks" in str(exc)
    mismatches += 1
    try:
        public_private_gap(drift(X), public_tasks=pub, private_tasks=priv)
    except LabelMismatchError as exc:
        named += "not-a-label" in str(exc) and "lacks" in str(exc)
    return {"identical": identical, "runs": runs, "named": named, "mismatches": mismatches}
