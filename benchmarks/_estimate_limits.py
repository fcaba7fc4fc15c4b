"""Section 6d of ``benchmarks/results/estimate.md``: what issue 31's targets ask of any interval.

Section 6 measures the estimator. This part measures the targets themselves, on the same
release-date validations, so that a target missed can be told apart from a target no
interval built from the older models could meet:

* :func:`hindsight_widths`: the narrowest interval that widens only with the distance in
  time, drawn *with hindsight* (from the newer models' own errors, which no estimate made
  at the cut can see): its median half-width is a floor for any interval of that form;
* :func:`scaled_widths`: the estimator's intervals narrowed or widened by a common factor:
  what meeting the width target costs in coverage at the worst cut;
* :func:`frontier_signal`: whether the older models' own forward-in-time errors show what
  the newer models' errors show: predictions above the older models' best mean falling
  short (the newer model under-predicted). If the older models' errors do not show it,
  no calibration on them can correct for it.

Run through ``python benchmarks/bench_estimate.py --only-section6`` (section 6 calls
:func:`limits_section`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from _sim.held_out import _calibrate_cut
from scipy import stats

import analysis.stats.estimate.predict as estimate_module
from analysis.core.errors import DroppedModelsWarning
from analysis.stats import select_tasks
from analysis.stats.estimate._conformal import upper_order_statistic

#: Distance bins (days after the newest reference) of :func:`hindsight_widths`.
DISTANCE_BINS = (-np.inf, 90.0, 180.0, 365.0, np.inf)
#: Factors of :func:`scaled_widths`.
FACTORS = (0.80, 0.85, 0.90, 0.95, 1.00, 1.05, 1.10)


def _bins(days: pd.Series) -> pd.Series:
    labels = ["0-90 days", "90-180 days", "180-365 days", "over 365 days"]
    return pd.cut(days, list(DISTANCE_BINS), labels=labels, right=True)


def hindsight_widths(frame: pd.DataFrame, level: float = 0.95) -> tuple[pd.DataFrame, float]:
    """Per distance bin: the estimator's widths beside the width hindsight would need.

    Args:
        frame: a ``validate_by_release_date(...).to_frame()`` (``error``, ``half_width``,
            ``covered``, ``days_after_newest``; 0-1 scale).
        level: the coverage each bin's hindsight width reaches.

    Returns:
        The table (points) and the median, over every prediction, of its bin's hindsight
        width: the median half-width of the narrowest interval that depends on the
        distance alone and covers ``level`` of the newer models in each bin, centred where
        the estimator centres its intervals. The hindsight width of a bin is the
        ``ceil(level (n + 1))``-th smallest absolute error (split conformal's order
        statistic, the largest error when the bin is too small).
    """
    abs_err = 100 * frame["error"].abs()
    group = _bins(frame["days_after_newest"])
    rows, width = [], pd.Series(np.nan, index=frame.index)
    for label, idx in abs_err.groupby(group, observed=True).groups.items():
        errors = abs_err.loc[idx].to_numpy()
        need = upper_order_statistic(errors, level)
        need = float(errors.max()) if not np.isfinite(need) else need
        width.loc[idx] = need
        rows.append(
            {
                "distance": label,
                "predictions": len(errors),
                "coverage": float(frame.loc[idx, "covered"].mean()),
                "median half-width (pts)": float(100 * frame.loc[idx, "half_width"].median()),
                f"hindsight half-width (pts, {level:.0%} of the bin)": need,
            }
        )
    return pd.DataFrame(rows), float(width.median())


def scaled_widths(frame: pd.DataFrame, factors: Sequence[float] = FACTORS) -> pd.DataFrame:
    """The estimator's intervals times each factor: median half-width, pooled and worst cut.

    A factor below 1 narrows every interval alike (the centre kept): the coverage it
    would have had at every cut is read from the same errors.
    """
    err, half = frame["error"].abs(), frame["half_width"]
    rows = []
    for factor in factors:
        covered = err <= factor * half
        per_cut = covered.groupby(frame["cut"]).mean()
        rows.append(
            {
                "factor": factor,
                "median half-width (pts)": float(100 * factor * half.median()),
                "coverage": float(covered.mean()),
                "worst cut": f"{per_cut.min():.3f} ({per_cut.idxmin()})",
                "cuts below 0.85": int((per_cut < 0.85).sum()),
            }
        )
    return pd.DataFrame(rows)


def _signal(errors: np.ndarray, above: np.ndarray) -> dict[str, float]:
    """Spearman's rho of error on distance above the frontier; median error above it."""
    high = above > 0
    rho = stats.spearmanr(errors, above).statistic if len(errors) > 2 else np.nan
    return {
        "rho": float(rho),
        "above": int(high.sum()),
        "median error above (pts)": float(100 * np.median(errors[high])) if high.any() else np.nan,
    }


def _calibrated_at(
    wide: pd.DataFrame,
    dates: pd.Series,
    cut: pd.Timestamp,
    k: int | None,
    target: list[str],
    candidates: Sequence[str] | None,
    level: float,
) -> Any:
    """The estimator's calibration at ``cut``, made as ``validate_by_release_date`` makes it."""
    older = list(dates.index[dates < cut])
    ref = wide[older]
    cands = list(wide.index) if candidates is None else list(candidates)
    sel = None
    if k is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DroppedModelsWarning)
            sel = select_tasks(
                ref, k, target_tasks=target, candidates=cands, confidence_level=level
            )
    return _calibrate_cut(ref, sel, cands, target, dates[older], level)[0]


def frontier_signal(
    wide: pd.DataFrame,
    dates: pd.Series,
    cut: Any,
    k: int,
    *,
    level: float = 0.95,
    target_tasks: Sequence[str] | None = None,
    candidates: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Do the older models' forward errors show the newer models' frontier misses?

    At ``cut``, the tasks are selected on the older models and the estimator calibrated
    on them as ``validate_by_release_date`` (``benchmarks/_sim/held_out.py``) does. Two sets of errors
    (predicted - actual, without the drift correction) are then set against how far each
    prediction lies above the best mean of the models it was predicted from:

    * ``forward``: each older model predicted from the older models released before it
      (the shortest horizon of the forward-in-time calibration, the errors the interval
      is calibrated on);
    * ``newer``: each model released on or after the cut, predicted from all the older
      models.

    A negative ``rho`` says "the further above the frontier, the more under-predicted".
    Predicted values enter both sides, so noise in them pushes ``rho`` up in both sets
    alike.
    """
    cut = pd.Timestamp(cut)
    target = list(wide.index) if target_tasks is None else list(target_tasks)
    cal = _calibrated_at(wide, dates, cut, k, target, candidates, level)
    proc = cal.procedure
    days = estimate_module._day_numbers(dates, cal.models)
    means = wide.loc[target, cal.models].mean().to_numpy()
    fwd = proc.forward(
        days, min_train=estimate_module._min_train(int(np.isfinite(days).sum())), lags=(0.0,)
    )
    front = np.array([means[days < days[m]].max() for m in fwd.models])
    every = np.arange(len(cal.models))
    newer = list(dates.index[dates >= cut])
    new_pred = np.array(
        [
            proc.predict(every, wide.loc[list(proc.tasks), m].to_numpy(dtype=float),
                         features=cal.features)[0]
            for m in newer
        ]
    )  # fmt: skip
    new_err = new_pred - wide.loc[target, newer].mean().to_numpy()
    f = _signal(fwd.errors, fwd.errors + means[fwd.models] - front)
    n = _signal(new_err, new_pred - float(means.max()))
    return {
        "cut": str(cut.date()),
        "k": k,
        "forward predictions": len(fwd),
        "forward rho": f["rho"],
        "forward above frontier": f["above"],
        "forward median error above (pts)": f["median error above (pts)"],
        "newer models": len(newer),
        "newer rho": n["rho"],
        "newer above frontier": n["above"],
        "newer median error above (pts)": n["median error above (pts)"],
    }


def width_parts(
    wide: pd.DataFrame,
    dates: pd.Series,
    cut: Any,
    k: int | None,
    *,
    level: float = 0.95,
    target_tasks: Sequence[str] | None = None,
    candidates: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The two parts of a newer model's interval at ``cut``, and which one sets it.

    The interval's half-width is the larger of the forward-in-time one (the forward
    errors' quantile, times ``sqrt(1 + growth * years after the newest reference)``) and
    the exchangeable one (the leave-one-out errors' quantile, times
    ``sqrt(1 + gamma * leverage)``). Both are computed here for every model released on
    or after the cut (points; medians over those models).
    """
    cut = pd.Timestamp(cut)
    target = list(wide.index) if target_tasks is None else list(target_tasks)
    cal = _calibrated_at(wide, dates, cut, k, target, candidates, level)
    every = np.arange(len(cal.models))
    exch, time = [], []
    for model in dates.index[dates >= cut]:
        x = wide.loc[list(cal.procedure.tasks), model].to_numpy(dtype=float)
        lev = cal.procedure.predict(every, x, features=cal.features)[1]
        exch.append(100 * cal.exchangeable_half_width(lev))
        gap = float(estimate_module._day_numbers(dates, [model])[0]) - cal.newest
        time.append(100 * cal.newer_half_width(gap))
    exch_a, time_a = np.array(exch), np.array(time)
    used = cal.features or cal.procedure.features(every)
    return {
        "cut": str(cut.date()),
        "tasks used": len(used),
        "forward quantile (pts)": 100 * cal.drift.quantile if cal.drift is not None else np.nan,
        "growth (per year)": cal.drift.growth if cal.drift is not None else np.nan,
        "exchangeable quantile (pts)": 100 * cal.exch_quantile,
        "gamma": cal.gamma,
        "forward half-width (pts)": float(np.nanmedian(time_a)),
        "exchangeable half-width (pts)": float(np.median(exch_a)),
        "forward sets it": float(np.mean(time_a >= exch_a)),
        "half-width (pts)": float(np.median(np.fmax(time_a, exch_a))),
    }


#: Forward rhos all above this, at the cuts where the newer models' rho is below -0.3,
#: count as "no sign of the frontier in the older models' errors".
NO_SIGNAL_RHO = -0.2


def _verdict(jumps: pd.DataFrame) -> str:
    """The sentence's end, as the figures say it (never written ahead of them)."""
    if not len(jumps):
        return "."
    if (jumps["forward rho"] > NO_SIGNAL_RHO).all():
        return (
            ": the under-prediction of the models that jump the frontier is not in the data "
            "a calibration made at the cut can see."
        )
    return (
        f": at some of those cuts the forward rho is below {NO_SIGNAL_RHO}, so the older "
        "models' errors do show part of it."
    )


def md(frame: pd.DataFrame) -> str:
    """A table of ``benchmarks/results/estimate.md``, in every section of it (the two
    ``bench_estimate`` scripts import this one)."""
    return frame.to_markdown(index=False, floatfmt=".3f")


def limits_section(
    mteb: tuple[str, pd.DataFrame, pd.Series, list[pd.Timestamp], dict[int, pd.DataFrame]],
    rteb: tuple[str, pd.DataFrame, pd.Series, list[pd.Timestamp], list[str], list[str]],
    others: pd.DataFrame,
    log: Any,
) -> tuple[list[str], dict[str, Any]]:
    """Section 6d's text, and the figures issue 31's acceptance table quotes.

    Args:
        mteb: (name, tasks x dated models, release dates, monthly cuts, {k: the
            estimator's validation frame}).
        rteb: (name, tasks x dated models, release dates, monthly cuts, public tasks,
            private tasks).
        others: :func:`frontier_signal` rows of section 6c's benchmarks at their worst cut
            (``benchmark`` column added).
        log: progress printer.
    """
    name, wide, dates, cuts, frames = mteb
    hind, hind_median, scaled, signal = [], {}, [], []
    for k, frame in frames.items():
        table, hind_median[k] = hindsight_widths(frame)
        hind.append(table.assign(k=k))
        scaled.append(scaled_widths(frame).assign(k=k))
        signal += [frontier_signal(wide, dates, cut, k) for cut in cuts]
        log(f"6d {name} k={k}: hindsight {hind_median[k]:.2f}")
    r_name, r_wide, r_dates, r_cuts, public, private = rteb
    parts = [
        {"public tasks": k or f"all {len(public)}",
         **width_parts(r_wide, r_dates, cut, k, target_tasks=private, candidates=public)}
        for k in (8, 12, None) for cut in r_cuts
    ]  # fmt: skip
    parts_table = pd.DataFrame(parts)
    by_k = parts_table.groupby("public tasks", sort=False)[
        [c for c in parts_table.columns if c not in ("public tasks", "cut")]
    ].median().reset_index()  # fmt: skip
    log("6d RTEB width parts done")
    signal_table = pd.DataFrame(signal)
    jumps = signal_table[signal_table["newer rho"] < -0.3]
    text = [
        "### 6d. What the targets ask of any interval",
        "",
        __doc__.split("\n\n", 1)[1].split("\n\nRun through", 1)[0],
        "",
        f"**Hindsight widths ({name}).** Per distance from the newest reference: the "
        "estimator's coverage and median half-width, and the half-width that would have "
        "covered 95% of the newer models in that bin, pooled over the monthly cuts. Median "
        "over every prediction of its bin's hindsight width: "
        + "; ".join(f"k = {k}: **{v:.2f}** points" for k, v in hind_median.items())
        + " (targets 3.0 and 2.5). An interval that widens with the distance alone cannot "
        "be narrower than that without missing more than 5% in some bin, and it would have "
        "to know the newer models' errors in advance. The estimator's intervals also "
        "adapt to each model's leverage and to each cut's calibration.",
        "",
        md(pd.concat(hind)[["k", *hind[0].columns[:-1]]]),
        "",
        f"**Narrower or wider by a common factor ({name}).** The estimator's intervals "
        "times a factor, read from the same errors:",
        "",
        md(pd.concat(scaled)[["k", *scaled[0].columns[:-1]]]),
        "",
        f"**The frontier in the older models' errors ({name}, every monthly cut).** "
        "`forward`: the older models' own forward-in-time predictions (horizon 0), the "
        "errors the interval is calibrated on; `newer`: the models released after the cut. "
        "`rho`: Spearman's rho of the error (predicted - actual) on how far the prediction "
        "lies above the best mean of the models it was predicted from; `median error above`: "
        "over the predictions above that best mean. At the cuts where the newer models' "
        f"rho is below -0.3 ({len(jumps)} of {len(signal_table)}), the forward rho ranges "
        f"{jumps['forward rho'].min():.2f} to {jumps['forward rho'].max():.2f}, and the "
        "older models' history holds "
        f"{int(jumps['forward above frontier'].min())} to "
        f"{int(jumps['forward above frontier'].max())} predictions above their frontier"
        + _verdict(jumps),
        "",
        md(signal_table),
        "",
        "The same at the worst monthly cut of each benchmark of section 6c whose coverage "
        "fell below 0.85 beyond chance:",
        "",
        md(others) if len(others) else "(none)",
        "",
        f"**{r_name}: the parts of the interval with 8, 12 and all public tasks.** A newer "
        "model's half-width is the larger of the forward-in-time one (`forward quantile` "
        "times sqrt(1 + `growth` x years after the newest reference)) and the exchangeable "
        "one (`exchangeable quantile` times sqrt(1 + `gamma` x leverage)). Medians over the "
        "monthly cuts of: the calibration's figures; over each cut's newer models, both "
        "half-widths, the share where the forward one sets the interval, and the "
        "half-width:",
        "",
        md(by_k),
        "",
    ]
    figures = {"hindsight": hind_median, "rteb_parts": by_k, "signal": signal_table}
    return text, figures
