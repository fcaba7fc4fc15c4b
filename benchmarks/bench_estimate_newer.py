"""Section 6 of ``benchmarks/results/estimate.md``: the models users bring, at every date.

A user's model is newer than the leaderboard it is compared with. For every cut date
(monthly from 2024-06-01 to 2025-08-01, and every Monday between 2024-06-03 and
2025-08-25 to check the days between), the models released before the cut are the
reference: the tasks are selected on them and every model released on or after the cut
is predicted by ``predict_benchmark(..., selection=, reference_dates=, released=its
date)`` (through ``validate_by_release_date`` (``benchmarks/_sim/held_out.py``), which calibrates once
per cut). The worst cut is reported beside the pooled figure, on:

* MTEB(eng, v2) at k = 8 and 12, with the interval's parts switched off in turn
  (ablations) and the naive "mean of the observed tasks + the older models' offset";
* RTEB(beta)'s private mean from 8, 12 or all public tasks;
* every other benchmark of the results snapshot with at least 50 complete, dated models
  once the tasks no model has are left out (found by :func:`qualifying_benchmarks`),
  at k = 8 and 12 where the benchmark has at least k + 4 tasks (else half its tasks),
  with a random 10-fold split (models exchangeable with the references) beside it.

Run through ``python benchmarks/bench_estimate.py --only-section6`` (it splices this
section and issue 31's acceptance table into the results file), or alone::

    python benchmarks/bench_estimate_newer.py --results ../shared/mteb-cache --out /tmp/s6.md
"""

from __future__ import annotations

import argparse
import contextlib
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _estimate_limits import frontier_signal, limits_section, md
from _sim.held_out import cross_fit_selection, validate_by_release_date
from scipy import stats

import analysis.stats.estimate.predict as estimate_module
from analysis.core.errors import ExtrapolationWarning, IncompleteBenchmarkWarning
from analysis.core.io import atomic_write_text
from analysis.results.groups import release_dates
from analysis.results.leaderboard import load_leaderboard
from analysis.results.summary import blocking_tasks
from analysis.stats import select_tasks
from analysis.stats.estimate._conformal import YEAR, TimeDrift, time_drift, upper_order_statistic

MTEB, RTEB, PIN = "MTEB(eng, v2)", "RTEB(beta)", "as-of-post"
LEVEL = 0.95
MONTHLY = pd.date_range("2024-06-01", "2025-08-01", freq="MS")
WEEKLY = pd.date_range("2024-06-03", "2025-08-25", freq="W-MON")
MIN_MODELS = 50  # complete, dated models a benchmark needs to be validated here
MIN_OLDER = 20  # older models a cut needs (fewer: the cut is skipped and counted)
NEAR_DAYS = 90  # "a model released soon after the leaderboard it is compared with"
CHANCE_P = 0.01  # a coverage this unlikely under a calibrated interval is "beyond chance"
BAND = (0.93, 0.97)  # issue 17's band for the random split


# --------------------------------------------------------------------------- variants


def _no_time(errors: np.ndarray, gaps: np.ndarray, level: float) -> TimeDrift:
    return TimeDrift(0.0, 0.0, upper_order_statistic(np.abs(errors), level), len(errors), level)


def _drift_only(errors: np.ndarray, gaps: np.ndarray, level: float) -> TimeDrift:
    fit = time_drift(errors, gaps, level)
    resid = np.abs(np.asarray(errors) - fit.drift * np.asarray(gaps) / YEAR)
    return TimeDrift(fit.drift, 0.0, upper_order_statistic(resid, level), fit.n, level)


#: name -> (forward lags, drift fit): the estimator and the interval with parts switched off.
VARIANTS: dict[str, tuple[tuple[float, ...], Any]] = {
    "estimator": (estimate_module.FORWARD_LAGS, time_drift),
    "no drift, no growth, lag 0 only (the previous interval)": ((0.0,), _no_time),
    "drift, no growth": (estimate_module.FORWARD_LAGS, _drift_only),
}


@contextlib.contextmanager
def variant(name: str) -> Iterator[None]:
    """Run ``predict_benchmark`` with one of :data:`VARIANTS` (module attributes swapped)."""
    lags, fit = VARIANTS[name]
    saved = estimate_module.FORWARD_LAGS, estimate_module.time_drift
    estimate_module.FORWARD_LAGS, estimate_module.time_drift = lags, fit
    try:
        yield
    finally:
        estimate_module.FORWARD_LAGS, estimate_module.time_drift = saved


# --------------------------------------------------------------------------- measures


def usable_cuts(dates: pd.Series, cuts: pd.DatetimeIndex) -> list[pd.Timestamp]:
    """Cuts with at least :data:`MIN_OLDER` older and 5 newer dated models."""
    return [c for c in cuts if (dates < c).sum() >= MIN_OLDER and (dates >= c).sum() >= 5]


def validate(
    wide: pd.DataFrame, dates: pd.Series, cuts: list[pd.Timestamp], **kw: Any
) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        return validate_by_release_date(wide, dates, cuts, confidence_level=LEVEL, **kw).to_frame()


def cut_chance(frame: pd.DataFrame) -> pd.DataFrame:
    """Per cut: coverage, and how likely it is for an interval that holds its level.

    At a cut with ``n`` newer models, a calibrated interval covers each with probability
    ``level`` (the level the cut's intervals report: 0.95, or the lower level of a small
    forward calibration); if the models' misses were independent, the number covered
    would be Binomial(n, level). ``p_low`` is the chance of covering as few as observed,
    ``p_below_085`` the chance of a coverage below 0.85. Misses of one model family are
    not independent, so a small ``p_low`` says "not chance alone", never the reverse.
    """
    rows = []
    for cut, part in frame.groupby("cut"):
        n, hit = len(part), int(part["covered"].sum())
        level = float(part["level"].mean()) if "level" in part else LEVEL
        rows.append(
            {
                "cut": cut,
                "n": n,
                "coverage": hit / n,
                "p_low": float(stats.binom.cdf(hit, n, level)),
                "p_below_085": float(stats.binom.cdf(np.ceil(0.85 * n - 1e-9) - 1, n, level)),
            }
        )
    return pd.DataFrame(rows)


def below_beyond_chance(chance: pd.DataFrame) -> pd.Series:
    """Cuts of :func:`cut_chance` below 0.85 with a binomial ``p_low`` under :data:`CHANCE_P`."""
    return (chance["coverage"] < 0.85) & (chance["p_low"] < CHANCE_P)


def band_chance(n: int, level: float = LEVEL) -> float:
    """Chance that a calibrated interval's coverage over n models lands in :data:`BAND`."""
    low, high = np.ceil(BAND[0] * n - 1e-9), np.floor(BAND[1] * n + 1e-9)
    return float(stats.binom.cdf(high, n, level) - stats.binom.cdf(low - 1, n, level))


def random_chance(covered: np.ndarray) -> dict[str, float]:
    """Random-split columns: the two-sided binomial p of its coverage, its band's chance."""
    n, hit = len(covered), int(np.sum(covered))
    return {
        "random split p": float(stats.binomtest(hit, n, LEVEL).pvalue),
        "random split band chance": band_chance(n),
    }


def summary(
    frame: pd.DataFrame, weekly: pd.DataFrame | None = None, **extra: Any
) -> dict[str, Any]:
    """Coverage pooled and at the worst cut, widths, errors (points) of one validation."""
    per_cut = frame.groupby("cut")["covered"].mean()
    above = frame[frame["above_all_older"]]
    near = frame[frame["days_after_newest"] <= NEAR_DAYS]
    finite = np.isfinite(frame[["predicted", "ci_low", "ci_high"]].to_numpy()).all(axis=1)
    row = {
        **extra,
        "cuts": len(per_cut),
        "predictions": len(frame),
        "non-finite": int((~finite).sum()),
        "coverage": frame["covered"].mean(),
        "worst cut": f"{per_cut.min():.3f} ({per_cut.idxmin()})",
        "cuts below 0.85": ", ".join(per_cut.index[per_cut < 0.85]) or "none",
    }
    chance = cut_chance(frame)
    row["below 0.85 beyond chance"] = (
        ", ".join(chance.loc[below_beyond_chance(chance), "cut"]) or "none"
    )
    row["cuts below 0.85 if calibrated"] = float(chance["p_below_085"].sum())
    if "level" in frame:
        row["below 95% level"] = float((frame["level"] < 0.95).mean())
    if weekly is not None:
        week = weekly.groupby("cut")["covered"].mean()
        row["worst weekly cut"] = f"{week.min():.3f} ({week.idxmin()})"
        row["weekly cuts"] = len(week)
        row["weekly cuts below 0.85"] = int((week < 0.85).sum())
        row["weekly below 0.85 beyond chance"] = int(below_beyond_chance(cut_chance(weekly)).sum())
    row |= {
        "median half-width (pts)": 100 * frame["half_width"].median(),
        f"half-width within {NEAR_DAYS} days (pts)": (
            100 * near["half_width"].median() if len(near) else np.nan
        ),
        "median abs error (pts)": 100 * frame["error"].abs().median(),
        "above all older": len(above),
        "covered above all older": above["covered"].mean() if len(above) else np.nan,
        "flagged above all older": above["extrapolating"].mean() if len(above) else np.nan,
    }
    return row


def naive(wide: pd.DataFrame, dates: pd.Series, cuts: list[pd.Timestamp], k: int) -> pd.DataFrame:
    """Mean of the k selected tasks + the older models' mean offset (their own quantile)."""
    rows = []
    for cut in cuts:
        older, newer = list(dates.index[dates < cut]), list(dates.index[dates >= cut])
        ref = wide[older]
        tasks = list(select_tasks(ref, k, validate=False).tasks)
        offsets = ref.mean() - ref.loc[tasks].mean()
        centre = float(offsets.mean())
        q = upper_order_statistic(np.abs((offsets - centre).to_numpy()), LEVEL)
        best = float(ref.mean().max())
        newest = dates[older].max()
        for m in newer:
            pred, actual = float(wide.loc[tasks, m].mean()) + centre, float(wide[m].mean())
            rows.append(
                {"cut": str(cut.date()), "model": m, "predicted": pred, "ci_low": pred - q,
                 "ci_high": pred + q, "error": pred - actual, "half_width": q,
                 "covered": abs(pred - actual) <= q, "extrapolating": False,
                 "above_all_older": actual > best,
                 "days_after_newest": (dates[m] - newest) / pd.Timedelta(days=1)}
            )  # fmt: skip
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- sections


def mteb_section(
    wide: pd.DataFrame, log: Any
) -> tuple[
    list[str],
    pd.DataFrame,
    tuple[str, pd.DataFrame, pd.Series, list[pd.Timestamp], dict[int, pd.DataFrame]],
]:
    """Section 6a, and what section 6d reads: the dated models, the cuts, the frames."""
    complete = wide
    dates = release_dates(wide.columns).dropna()
    wide = wide[list(dates.index)]
    cuts, weeks = usable_cuts(dates, MONTHLY), usable_cuts(dates, WEEKLY)
    rows, per_cut, frames = [], [], {}
    for k in (8, 12):
        for name in VARIANTS:
            with variant(name):
                frame = validate(wide, dates, cuts, k=k)
                weekly = validate(wide, dates, weeks, k=k) if name == "estimator" else None
            rows.append(summary(frame, weekly, method=name, k=k))
            log(f"{MTEB} k={k} {name}: {rows[-1]['coverage']:.3f} {rows[-1]['worst cut']}")
            if name == "estimator":
                frames[k] = frame
                stats = frame.groupby("cut").agg(
                    newer=("covered", "size"), coverage=("covered", "mean"),
                    half_width=("half_width", lambda h: 100 * h.median()),
                )  # fmt: skip
                per_cut.append(stats.add_prefix(f"k={k}: "))
        rows.append(summary(naive(wide, dates, cuts, k), method="naive mean + offset", k=k))
    splits = (
        (f"leave one model out, all {complete.shape[1]} complete models (issue 17's check)",
         complete, None),
        (f"leave one model out, the {wide.shape[1]} dated models", wide, None),
        (f"10-fold, the {wide.shape[1]} dated models", wide, 10),
    )  # fmt: skip
    for label, models, folds in splits:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            random = cross_fit_selection(models, 8, n_folds=folds, rng=0)
        rows.append(
            {"method": f"random split: {label}, cross_fit_selection", "k": 8,
             "undated": ", ".join(sorted(set(complete.columns) - set(wide.columns))),
             "predictions": len(random.table), "coverage": random.coverage,
             "median half-width (pts)": 100 * random.table["half_width"].median(),
             "median abs error (pts)": 100 * random.table["error"].abs().median()}
        )  # fmt: skip
        log(f"{MTEB} random split, {label}: {random.coverage:.3f}")
    table = pd.DataFrame(rows)
    cuts_table = pd.concat(per_cut, axis=1).reset_index()
    text = [
        f"### 6a. {MTEB}: every monthly cut, and every Monday between",
        "",
        f"{len(dates)} dated complete models; {len(cuts)} monthly cuts, {len(weeks)} weekly "
        f"cuts (the cuts with at least {MIN_OLDER} older models). `worst weekly cut` and "
        "`weekly cuts below 0.85` are the estimator's over the weekly cuts (`weekly below "
        "0.85 beyond chance`: those a calibrated interval would reach with probability under "
        f"{CHANCE_P}, binomially; `below 0.85 beyond chance`: the same for the monthly cuts). "
        f"`half-width within {NEAR_DAYS} days`: predictions of models released at most "
        f"{NEAR_DAYS} days after the newest reference, a user's situation when comparing "
        "with a current leaderboard. Ablations: the same estimator with the drift and the "
        "growth of the spread switched off (`lag 0 only` is the interval before issue 31). "
        "The random splits hold models out regardless of their dates (exchangeable with the "
        "references): one at a time over every complete model (issue 17's check) and over the "
        "dated ones, and a tenth at a time (references of nine tenths of the models).",
        "",
        md(table),
        "",
        "Per monthly cut (estimator):",
        "",
        md(cuts_table),
        "",
    ]
    return text, table, (MTEB, wide, dates, cuts, frames)


def rteb_parts(
    board: Any,
) -> tuple[str, pd.DataFrame, pd.Series, list[pd.Timestamp], list[str], list[str]]:
    """RTEB's dated complete models (public and private tasks), dates, cuts, public, private."""
    complete = board.complete_models("public", "private")
    public = board.spec.scope_tasks("public")
    private = board.spec.scope_tasks("private")
    wide = board.wide().reindex(columns=complete).loc[public + private]
    dates = release_dates(wide.columns).dropna()
    return RTEB, wide[list(dates.index)], dates, usable_cuts(dates, MONTHLY), public, private


def rteb_section(
    parts: tuple[str, pd.DataFrame, pd.Series, list[pd.Timestamp], list[str], list[str]],
    log: Any,
) -> tuple[list[str], pd.DataFrame]:
    _, wide, dates, cuts, public, private = parts
    rows = []
    for k in (8, 12, None):
        frame = validate(wide, dates, cuts, k=k, target_tasks=private, candidates=public)
        rows.append(summary(frame, public_tasks=k or f"all {len(public)}"))
        log(f"{RTEB} k={k}: {rows[-1]['coverage']:.3f} {rows[-1]['worst cut']}")
    table = pd.DataFrame(rows)
    text = [
        f"### 6b. {RTEB} private mean from public scores",
        "",
        f"{len(dates)} dated complete models; {len(cuts)} monthly cuts with at least "
        f"{MIN_OLDER} older models. With 8 or 12 selected public tasks the interval uses the "
        "selection's first j tasks, j its longest step within one standard error of the "
        "narrowest held-out half-width (so more selected tasks widen it by no more than "
        "that error); with all public tasks the estimator chooses among them likewise.",
        "",
        md(table),
        "",
    ]
    return text, table


def qualifying_benchmarks(results: str) -> list[tuple[str, list[str], pd.DataFrame]]:
    """Every mteb benchmark with >= MIN_MODELS complete dated models, absent tasks left out.

    Returns:
        (name, tasks left out, tasks x models of the complete dated models).
    """
    import mteb

    out = []
    for bench in mteb.get_benchmarks():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IncompleteBenchmarkWarning)
            board = load_leaderboard(bench.name, results=results)
            if board.summary.empty:
                continue
            absent, _ = blocking_tasks(board.scores, board.spec)
            if absent and len(absent) < len(board.spec.tasks):
                board = load_leaderboard(bench.name, results=results, exclude_tasks=absent)
        wide = board.wide()
        if wide.shape[1] < MIN_MODELS:
            continue
        dates = release_dates(wide.columns).dropna()
        if len(dates) >= MIN_MODELS and wide.shape[0] >= 4:
            out.append((bench.name, absent, wide[list(dates.index)]))
    return out


def ks_for(n_tasks: int) -> list[int]:
    """k = 8 and 12 where the benchmark has at least k + 4 tasks, else half its tasks."""
    ks = [k for k in (8, 12) if n_tasks >= k + 4]
    return ks or [max(1, n_tasks // 2)]


def every_benchmark_section(results: str, log: Any) -> tuple[list[str], pd.DataFrame, pd.DataFrame]:
    """Section 6c, and section 6d's frontier signal at each systematic failure's worst cut."""
    rows, signals = [], []
    for name, absent, wide in qualifying_benchmarks(results):
        if name == MTEB:
            continue
        dates = release_dates(wide.columns)
        cuts = usable_cuts(dates, MONTHLY)
        for k in ks_for(wide.shape[0]):
            frame = validate(wide, dates, cuts, k=k)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExtrapolationWarning)
                random = cross_fit_selection(wide, k, n_folds=10, rng=0)
            rows.append(
                summary(
                    frame, benchmark=name, tasks=wide.shape[0], left_out=len(absent),
                    models=wide.shape[1], k=k,
                    **{"random split coverage": random.coverage,
                       "random split half-width (pts)": 100 * random.table["half_width"].median(),
                       **random_chance(random.table["covered"].to_numpy())},
                )
            )  # fmt: skip
            log(f"{name} k={k}: {rows[-1]['coverage']:.3f} {rows[-1]['worst cut']}")
            if rows[-1]["below 0.85 beyond chance"] != "none":
                worst = str(rows[-1]["worst cut"]).split("(")[1].rstrip(")")
                signals.append({"benchmark": name, **frontier_signal(wide, dates, worst, k)})
    table = pd.DataFrame(rows)
    text = [
        "### 6c. Every other benchmark with at least 50 complete dated models",
        "",
        "Found by `qualifying_benchmarks` over every benchmark mteb defines, on the results "
        "snapshot, after leaving out the tasks no model has (`left_out`; the loader's "
        "warning names them). Monthly cuts as above; `random split`: 10-fold "
        "`cross_fit_selection` (models exchangeable with the references). `below 95% "
        "level`: share of the predictions made where a cut had too few forward-in-time "
        "predictions for 95% (the interval is then their largest error, at its lower "
        "level, which the result reports). `below 0.85 beyond chance`: the cuts below 0.85 "
        f"whose coverage an interval holding its level would reach with probability under "
        f"{CHANCE_P} (binomial over the cut's newer models, at the level its intervals "
        "report); `cuts below 0.85 if calibrated`: how many cuts such an interval would put "
        "below 0.85 on average (the cuts are small). `random split p`: two-sided binomial "
        "test of the random split's coverage against 0.95; `random split band chance`: the "
        f"chance that a calibrated interval's coverage over this many models lands in "
        f"{BAND[0]}-{BAND[1]}.",
        "",
        md(table),
        "",
        "#### What to expect on each benchmark",
        "",
        "Read from the table above, one row per benchmark (its largest k): whether the "
        "interval held 0.85 at every cut, and if not, at which cuts it did not.",
        "",
        md(expectations(table)),
        "",
    ]
    return text, table, pd.DataFrame(signals)


def expectations(table: pd.DataFrame) -> pd.DataFrame:
    """One row per benchmark (its largest k): what a user should expect there, in words."""
    rows = []
    for name, part in table.groupby("benchmark", sort=False):
        row = part.sort_values("k").iloc[-1]
        below = [c for c in str(row["cuts below 0.85"]).split(", ") if c != "none"]
        if not below:
            verdict = "held 0.85 or more at every cut"
        else:
            early = all(c <= str(MONTHLY[2].date()) for c in below)
            verdict = "below 0.85 " + (
                f"only at the first cuts, with the fewest older models ({', '.join(below)})"
                if early
                else f"at {len(below)} of {row['cuts']} cuts ({', '.join(below)})"
            )
        rows.append(
            {
                "benchmark": name,
                "k": row["k"],
                "coverage": row["coverage"],
                "worst cut": row["worst cut"],
                f"half-width within {NEAR_DAYS} days (pts)": row[
                    f"half-width within {NEAR_DAYS} days (pts)"
                ],
                "random split coverage": row["random split coverage"],
                "below 0.85 beyond chance": row["below 0.85 beyond chance"],
                "expect": verdict,
            }
        )
    return pd.DataFrame(rows)


def _worst(cell: str) -> float:
    return float(str(cell).split(" ")[0])


def acceptance(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Issue 31's acceptance table, from the section's tables."""
    m, r, o = tables["mteb"], tables["rteb"], tables["others"]
    hind = tables["limits"]["hindsight"]
    parts = tables["limits"]["rteb_parts"].set_index("public tasks")
    est = m[m["method"] == "estimator"].set_index("k")
    loo, dated, tenfold = (m[m["method"].str.startswith("random split")].iloc[i] for i in range(3))
    nonfinite = int(sum(t["non-finite"].fillna(0).sum() for t in (m, r, o)))
    worst = {k: min(_worst(est.loc[k, "worst cut"]), _worst(est.loc[k, "worst weekly cut"]))
             for k in (8, 12)}  # fmt: skip
    rr = r.set_index(r["public_tasks"].astype(str))
    r8 = rr.loc["8", "median half-width (pts)"]
    r12, rall = rr.loc["12", "median half-width (pts)"], rr.iloc[-1]["median half-width (pts)"]
    others_ok = o.assign(
        cut_ok=o["worst cut"].map(_worst) >= 0.85,
        random_ok=o["random split coverage"].between(0.93, 0.97),
    )
    failing = others_ok.loc[~others_ok["cut_ok"], ["benchmark", "k"]]
    failing_random = others_ok.loc[~others_ok["random_ok"], ["benchmark", "k"]]
    systematic = o.loc[o["below 0.85 beyond chance"] != "none", ["benchmark", "k"]]
    off_random = o.loc[o["random split p"] < CHANCE_P, ["benchmark", "k"]]
    over = int((o.loc[~others_ok["random_ok"], "random split coverage"] > BAND[1]).sum())
    # Chances for an interval holding its level, per cut and per benchmark, multiplied:
    # P(no cut below 0.85) <= exp(-sum of the cuts' chances), the product's upper bound.
    none_below = float(np.exp(-o["cuts below 0.85 if calibrated"].sum()))
    all_band = float(np.prod(o["random split band chance"]))

    def names(frame: pd.DataFrame) -> str:
        return ", ".join(f"{b} k={k}" for b, k in frame.itertuples(index=False)) or "none"

    near = f"half-width within {NEAR_DAYS} days (pts)"
    rows = [
        ("non-finite predictions, every validation (twins: tests)", "0", str(nonfinite),
         nonfinite == 0),
        (f"{MTEB}, k = 8 and 12: coverage at every cut (monthly and weekly)", ">= 0.85",
         f"{worst[8]:.3f}; {worst[12]:.3f} (weekly cuts below 0.85 beyond chance: "
         f"{int(est.loc[8, 'weekly below 0.85 beyond chance'])}; "
         f"{int(est.loc[12, 'weekly below 0.85 beyond chance'])} of "
         f"{int(est.loc[12, 'weekly cuts'])})",
         min(worst.values()) >= 0.85),
        ("same, pooled over the monthly cuts", ">= 0.93",
         f"{est.loc[8, 'coverage']:.3f}; {est.loc[12, 'coverage']:.3f}",
         min(est["coverage"]) >= 0.93),
        ("same, median half-width (points): all newer models (within "
         f"{NEAR_DAYS} days of the newest reference)", "<= 3.0 at k = 8; <= 2.5 at k = 12",
         f"{est.loc[8, 'median half-width (pts)']:.2f} ({est.loc[8, near]:.2f}); "
         f"{est.loc[12, 'median half-width (pts)']:.2f} ({est.loc[12, near]:.2f}). With "
         f"hindsight, an interval widening with the distance alone needs {hind[8]:.2f}; "
         f"{hind[12]:.2f} (section 6d)",
         est.loc[8, "median half-width (pts)"] <= 3.0
         and est.loc[12, "median half-width (pts)"] <= 2.5),
        ("same, newer models above every older one: covered; flagged", ">= 0.85; >= 0.80",
         f"{min(est['covered above all older']):.3f}; "
         f"{min(est['flagged above all older']):.3f}",
         min(est["covered above all older"]) >= 0.85
         and min(est["flagged above all older"]) >= 0.80),
        ("each other benchmark (section 6c): coverage at every monthly cut", ">= 0.85",
         f"{int(others_ok['cut_ok'].sum())} of {len(o)} hold; below: {names(failing)}. "
         f"Below beyond chance (binomial p < {CHANCE_P} at some cut): {names(systematic)}; "
         "an interval holding its level would put "
         f"{o['cuts below 0.85 if calibrated'].sum():.1f} of the {int(o['cuts'].sum())} "
         "cuts below 0.85 on average, and none with a chance of "
         f"{none_below:.1g} were the cuts independent (they share models)",
         bool(others_ok["cut_ok"].all())),
        ("same, random split coverage", "0.93-0.97",
         f"{int(others_ok['random_ok'].sum())} of {len(o)} hold; outside: "
         f"{names(failing_random)} ({over} of them above the band). Off 0.95 beyond chance "
         f"(two-sided binomial p < {CHANCE_P}): {names(off_random)}; a calibrated interval "
         f"would land in the band on {o['random split band chance'].sum():.1f} of {len(o)} "
         f"on average, and on all {len(o)} with a chance of {all_band:.1g} were they "
         "independent", bool(others_ok["random_ok"].all())),
        (f"{RTEB} private from public: half-width with 12 or all public tasks vs 8",
         "no wider",
         f"{r12:.2f} and {rall:.2f} vs {r8:.2f}. Their parts (medians over the cuts; "
         "section 6d): growth of the spread per year "
         + ", ".join(f"{v:.2f}" for v in parts["growth (per year)"])
         + "; exchangeable half-width "
         + ", ".join(f"{v:.2f}" for v in parts["exchangeable half-width (pts)"])
         + f" (with {', '.join(map(str, parts.index))} public tasks)",
         max(r12, rall) <= r8 + 1e-9),
        (f"random split (issue 17's check: leave one model out), {MTEB}, 8 tasks: "
         "coverage; half-width",
         "0.93-0.97; <= 1.7",
         f"{loo['coverage']:.3f}; {loo['median half-width (pts)']:.2f} (all "
         f"{int(loo['predictions'])} complete models). Fragile: on the "
         f"{int(dated['predictions'])} dated ones (undated: {loo['undated'] or 'none'}) "
         f"{dated['coverage']:.3f}; {dated['median half-width (pts)']:.2f}; 10-fold "
         f"{tenfold['coverage']:.3f}; {tenfold['median half-width (pts)']:.2f}",
         0.93 <= loo["coverage"] <= 0.97 and loo["median half-width (pts)"] <= 1.7),
    ]  # fmt: skip
    table = pd.DataFrame(rows, columns=["quantity", "target", "measured", "holds"])
    table["holds"] = table["holds"].map({True: "yes", False: "**no**"})
    return [
        "## Acceptance (issue 31: models newer than the references, at every release date "
        "and on every benchmark; section 6)",
        "",
        table.to_markdown(index=False),
        "",
    ]


def section6(
    results: str, mteb_wide: pd.DataFrame, rteb_board: Any
) -> tuple[list[str], dict[str, pd.DataFrame]]:
    """The whole section 6 text and its tables (``mteb``, ``rteb``, ``others``)."""
    started = time.time()

    def log(message: str) -> None:
        print(f"[{time.time() - started:6.0f} s] {message}", flush=True)

    mteb_text, mteb_table, mteb = mteb_section(mteb_wide, log)
    rteb = rteb_parts(rteb_board)
    rteb_text, rteb_table = rteb_section(rteb, log)
    other_text, other_table, signals = every_benchmark_section(results, log)
    limits_text, limits = limits_section(mteb, rteb, signals, log)
    text = [
        "## 6. The models users bring: newer than every model they are compared with",
        "",
        __doc__.split("\n\n", 1)[1].split("\n\nRun through", 1)[0],
        "",
        *mteb_text,
        *rteb_text,
        *other_text,
        *limits_text,
        f"Section 6 took {time.time() - started:.0f} s.",
        "",
    ]
    return text, {
        "mteb": mteb_table, "rteb": rteb_table, "others": other_table, "limits": limits,
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="../shared/mteb-cache")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    mteb = load_leaderboard(MTEB, results=args.results, pin=PIN)
    rteb = load_leaderboard(RTEB, results=args.results, pin=PIN)
    text, tables = section6(args.results, mteb.wide(), rteb)
    atomic_write_text(args.out, "\n".join(acceptance(tables) + text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
