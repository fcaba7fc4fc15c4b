"""predict_benchmark for the model a user brings: newer than every reference model.

Hand cases for the forward-in-time calibration, the "beyond" flag, near twins and
``validate_by_release_date``; and a simulation of a moving frontier (the departure the
release-date splits of ``benchmarks/results/estimate.md`` measure on the snapshot).
"""

from __future__ import annotations

import dataclasses
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _sim.held_out import validate_by_release_date
from _sim.leaderboards import simulate_scores, simulate_scores_over_time

from analysis.core.errors import CalibrationWarning, ExtrapolationWarning, LeakageWarning
from analysis.stats import predict_benchmark, select_tasks
from analysis.stats.estimate._procedure import Procedure
from analysis.stats.estimate.predict import (
    _calibrate,
    _narrowest_prefix,
    _predict,
    _quantile_rse,
)


@pytest.fixture(scope="module")
def timed() -> tuple[pd.DataFrame, pd.Series]:
    return simulate_scores_over_time(np.random.default_rng(5), 90, 12)


def test_forward_chaining_trains_only_on_earlier_models():
    """Each held-out model is predicted from exactly the models released before it."""
    scores = simulate_scores(np.random.default_rng(1), 30, 6).to_numpy()
    tasks = tuple(f"task{t:02d}" for t in range(6))
    seen: list[tuple[int, list[int]]] = []

    def choose(X: np.ndarray, y: np.ndarray) -> list[int]:
        seen.append((len(y), []))
        return [0, 1]

    proc = Procedure(scores, tasks, tasks[:2], tasks[:2], tasks, choose)
    days = np.arange(30, dtype=float)
    days[[3, 7]] = np.nan  # undated: neither trained on nor predicted
    days[10] = days[11]  # a tie: neither is trained on the other
    held = proc.forward(days, min_train=12)
    dated = np.flatnonzero(~np.isnan(days))
    expected = [m for m in dated if np.sum(days[dated] < days[m]) >= 12]
    assert sorted(held.models.tolist()) == sorted(expected)
    assert [n for n, _ in seen] == [int(np.sum(days[dated] < days[m])) for m in held.models]


def test_a_newer_model_is_calibrated_forward_in_time(timed):
    scores, dates = timed
    cut = dates.quantile(0.7)
    ref = scores.loc[:, dates < cut]
    new = dates[dates >= cut].idxmin()
    observed = scores.loc[scores.index[:4], new]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        exch = predict_benchmark(ref, observed)
        newer = predict_benchmark(ref, observed, reference_dates=dates)
        inside = predict_benchmark(
            ref, observed, reference_dates=dates, released=dates[ref.columns].median()
        )
    assert exch.calibration == inside.calibration == "exchangeable"
    assert newer.calibration == "newer" and newer.n_calibration >= 40
    assert newer.mean == exch.mean  # the calibration moves the ends, not the centre
    assert (
        newer.confidence_interval.high - newer.confidence_interval.low
        >= exch.confidence_interval.high - exch.confidence_interval.low
    )  # never narrower
    assert (inside.confidence_interval.low, inside.confidence_interval.high) == (
        exch.confidence_interval.low,
        exch.confidence_interval.high,
    )
    assert "predicted from those released before it" in newer.method
    # dates align by label: a shuffled, longer Series gives the same answer
    shuffled = pd.concat([dates.sample(frac=1, random_state=0), pd.Series({"other": "2030"})])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        again = predict_benchmark(ref, observed, reference_dates=shuffled)
    assert (again.confidence_interval.low, again.confidence_interval.high) == (
        newer.confidence_interval.low,
        newer.confidence_interval.high,
    )
    with pytest.raises(ValueError, match="`released` is not a date"):
        predict_benchmark(ref, observed, reference_dates=dates, released="soon")
    with pytest.raises(ValueError, match="`reference_dates` must map"):
        predict_benchmark(ref, observed, reference_dates=list(dates))


def test_too_few_dated_models_fall_back_to_the_exchangeable_interval(timed):
    scores, dates = timed
    ref = scores.iloc[:, :14]  # fewer than 9 forward predictions: not even a 90% interval
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        res = predict_benchmark(ref, scores.iloc[:4, 50], reference_dates=dates)
    assert res.calibration == "exchangeable" and res.confidence_level == 0.95
    assert "not calibrated forward in time" in res.method


def test_too_few_forward_predictions_for_95_give_the_largest_error_at_its_level(timed):
    """From 9 to 18 forward predictions: the largest error, at level n / (n + 1), said."""
    from analysis.stats.estimate._conformal import time_drift

    scores, dates = timed
    ref = scores.iloc[:, :16]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        with pytest.warns(CalibrationWarning, match=r"too few for a 95% interval"):
            res = predict_benchmark(ref, scores.iloc[:4, 50], reference_dates=dates)
    n = res.n_calibration
    assert res.calibration == "newer" and 9 <= n < 19
    assert res.confidence_level == pytest.approx(n / (n + 1))
    assert f"a {n / (n + 1):.1%} interval" in res.method
    # the quantile is then the largest scaled error, never infinite
    rng = np.random.default_rng(0)
    fit = time_drift(rng.normal(size=n), rng.uniform(0, 200, n), 0.95)
    assert np.isfinite(fit.quantile) and fit.level == pytest.approx(n / (n + 1))
    assert time_drift(rng.normal(size=40), rng.uniform(0, 200, 40), 0.95).level == 0.95


def test_a_model_beyond_the_references_is_flagged_and_told_why(timed):
    scores, dates = timed
    ref = scores.iloc[:, :80]
    top = ref.iloc[:4].max(axis=1) + np.array([0.02, 0.02, 0.02, -0.0])
    with pytest.warns(ExtrapolationWarning, match="beyond every reference model on 3 of 4 tasks"):
        res = predict_benchmark(ref, top.clip(0, 1), reference_dates=dates)
    assert res.extrapolating and res.caveat.startswith("beyond every reference model on 3 of 4")
    with pytest.warns(ExtrapolationWarning, match=r"interval (is widened for that|.* is no wider)"):
        predict_benchmark(ref, top.clip(0, 1), reference_dates=dates)
    with pytest.warns(ExtrapolationWarning, match="pass reference_dates="):
        predict_benchmark(ref, top.clip(0, 1))
    typical = ref.iloc[:4].median(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExtrapolationWarning)
        quiet = predict_benchmark(ref, typical, reference_dates=dates)
    assert not quiet.extrapolating and quiet.caveat == ""


def test_a_near_twin_gets_a_warning_naming_it_and_a_prediction(timed):
    scores, _ = timed
    ref = scores.iloc[:, :60]
    twin = ref.columns[7]
    observed = ref.loc[ref.index[:4], twin]
    with pytest.warns(LeakageWarning, match=twin):
        free = predict_benchmark(ref, observed)
    sel = select_tasks(ref, 3)
    with pytest.warns(LeakageWarning, match=f"{twin}.*the observed tasks kept"):
        chosen = predict_benchmark(ref, ref.loc[list(sel.tasks), twin], selection=sel)
    for res in (free, chosen):
        assert (
            res.n_reference == 59
            and np.isfinite([res.confidence_interval.low, res.confidence_interval.high]).all()
        )
    assert set(chosen.features) <= set(sel.tasks)


def test_more_observed_tasks_never_give_a_wider_typical_interval():
    """RTEB's shape: a private mean from public tasks; all of them vs the best few.

    One simulated leaderboard is not enough: the typical half-width is a conformal
    quantile of 70 models' errors, and it moves by 10-20% between simulations (ratios
    all / best subset over seeds 5-9: 1.05, 1.10, 0.97, 1.02, 1.09 with the penalty
    chosen by leave-one-out alone; 1.21, 0.91, 1.08, 0.94, 1.04 with the penalty floor
    of ``analysis.stats.estimate._ridge``). The median over the simulations must not be wider.
    """

    def ratio(seed: int) -> float:
        scores, _ = simulate_scores_over_time(np.random.default_rng(seed), 90, 12)
        public, private = list(scores.index[:8]), list(scores.index[8:])
        ref, new = scores.iloc[:, :70], scores.iloc[:, 70:]

        def typical_half_width(tasks: list[str]) -> float:
            # one calibration for all 20 new models (what predict_benchmark makes per call)
            cal = _calibrate(ref, tasks, private, None, None, 0.95)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExtrapolationWarning)
                widths = [
                    np.diff(_predict(cal, new.loc[tasks, m], None, "exchangeable")
                            .confidence_interval)[0] / 2
                    for m in new.columns
                ]  # fmt: skip
            return float(np.median(widths))

        everything = typical_half_width(public)
        subsets = [list(select_tasks(ref, k, target_tasks=private, candidates=public,
                                     validate=False).tasks) for k in (2, 4, 6)]  # fmt: skip
        return everything / min(typical_half_width(s) for s in subsets)

    ratios = [ratio(seed) for seed in range(5, 10)]
    assert np.median(ratios) <= 1.05, ratios


def test_validate_by_release_date_predicts_every_newer_model(timed):
    scores, dates = timed
    dates = dates.copy()
    undated = dates.index[:3]
    dates[undated] = pd.NaT
    cuts = [dates.quantile(0.3), dates.quantile(0.8)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        out = validate_by_release_date(scores, dates, cuts, k=3).to_frame()
    for cut, part in out.groupby("cut"):
        stamp = next(c for c in cuts if str(c.date()) == cut)
        assert set(part["model"]) == set(dates.index[dates >= stamp])
        assert (part["n_older"] == int((dates < stamp).sum())).all()
    assert not set(undated) & set(out["model"]) and (out["n_undated"] == 3).all()
    # 24 dated older models give 14 forward predictions at the shortest horizon, and
    # with the 90- and 180-day horizons at least the 19 a 95% interval needs
    assert (out["calibration"] == "newer").all() and (out["level"] == 0.95).all()
    best = {str(c.date()): scores.loc[:, dates < c].mean().max() for c in cuts}
    assert (out["above_all_older"] == (out["actual"] > out["cut"].map(best))).all()
    with pytest.raises(ValueError, match="not a date"):
        validate_by_release_date(scores, dates, ["someday"], k=3)


def test_forward_calibration_covers_the_next_models_of_a_moving_frontier():
    """12 leaderboards of 110 models x 12 tasks whose frontier moves (a trend on 8 tasks).

    Fit on the models released before the 65% quantile of the dates, observe 4 tasks,
    predict the 10 models released next (a user's model is newer than the leaderboard it
    is compared with). Calibrated forward in time the 95% interval covers about 0.91 of
    them; calibrated as exchangeable 0.83 (the trend makes newer models beat the
    prediction). Models much further ahead (a third of the period) are covered less
    (about 0.68 against 0.56): the calibration holds for the next models, which is what
    the snapshot's release-date splits measure too.
    """
    rng = np.random.default_rng(23)
    newer, exch = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        for _ in range(12):
            scores, dates = simulate_scores_over_time(rng, 110, 12)
            cut = dates.quantile(0.65)
            ref = scores.loc[:, dates < cut]
            observed = list(scores.index[:4])
            hit_n, hit_e = [], []
            # one calibration per leaderboard, each way (what predict_benchmark makes per call)
            forward = _calibrate(ref, observed, list(scores.index), None, dates[ref.columns], 0.95)
            exchangeable = _calibrate(ref, observed, list(scores.index), None, None, 0.95)
            for m in dates[dates >= cut].sort_values().index[:10]:
                truth = scores[m].mean()
                a = _predict(forward, scores.loc[observed, m], None, "auto")
                b = _predict(exchangeable, scores.loc[observed, m], None, "exchangeable")
                hit_n.append(a.confidence_interval.low <= truth <= a.confidence_interval.high)
                hit_e.append(b.confidence_interval.low <= truth <= b.confidence_interval.high)
            newer.append(np.mean(hit_n))
            exch.append(np.mean(hit_e))
    cov_n, cov_e = float(np.mean(newer)), float(np.mean(exch))
    se = max(float(np.std(newer, ddof=1) / np.sqrt(len(newer))), np.sqrt(0.95 * 0.05 / 120))
    assert cov_n + 3 * se >= 0.90, (cov_n, se)
    assert cov_e <= 0.88, cov_e  # the departure is real: the exchangeable interval misses
    assert cov_n > cov_e


# --------------------------------------------------------------------------- issue 31


def _finite(res) -> bool:
    low, high = res.confidence_interval
    return bool(np.isfinite([res.mean, low, high]).all() and low <= res.mean <= high)


def test_every_reference_model_as_an_exact_twin_keeps_its_tasks_and_a_finite_answer():
    """A user who reruns a leaderboard model reproduces its scores on the selected tasks.

    Each of the 40 models in turn: the twin is left out, the fit and calibration redone,
    and the prediction uses the tasks the user ran (never a selection redone on other
    tasks, which gave NaN), with and without ``selection=`` and ``reference_dates=``.
    """
    board, dates = simulate_scores_over_time(np.random.default_rng(3), 40, 10)
    sel = select_tasks(board, 4)
    for model in board.columns:
        observed = board.loc[list(sel.tasks), model]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            with pytest.warns(LeakageWarning, match="the observed tasks kept"):
                chosen = predict_benchmark(board, observed, selection=sel, reference_dates=dates)
            with pytest.warns(LeakageWarning):
                free = predict_benchmark(board, observed, calibration="exchangeable")
        for res in (chosen, free):
            assert _finite(res) and res.n_reference == 39, (model, res)
            assert set(res.features) <= set(sel.tasks)


def test_time_drift_recovers_a_trend_and_a_growing_spread():
    """Errors with a known trend and a variance growing with the gap, against scipy."""
    from scipy import stats

    from analysis.stats.estimate._conformal import YEAR, time_drift

    rng = np.random.default_rng(0)
    gaps = rng.uniform(0, 2 * YEAR, 4000)
    years = gaps / YEAR
    errors = -0.01 * years + 0.005 * np.sqrt(1 + 3.0 * years) * rng.standard_normal(4000)
    fit = time_drift(errors, gaps, 0.95)
    assert fit.drift == pytest.approx(stats.theilslopes(errors, years).slope)
    assert fit.drift == pytest.approx(-0.01, abs=0.001)
    assert 1.0 < fit.growth < 3.0  # Theil-Sen on squared errors under-states it (documented)
    # the interval is calibrated where it is used: 95% of fresh errors at each gap
    fresh_gap = np.full(4000, 1.5 * YEAR)
    fresh = -0.015 + 0.005 * np.sqrt(1 + 3.0 * 1.5) * rng.standard_normal(4000)
    covered = np.abs(fresh + fit.shift(fresh_gap[0])) <= fit.half_width(fresh_gap[0])
    assert abs(covered.mean() - 0.95) < 0.03
    # a downward trend is never extrapolated; no gap spread means no growth
    flat = time_drift(0.01 * years + 0.005 * rng.standard_normal(4000), gaps, 0.95)
    assert flat.drift == 0.0 and flat.shift(YEAR) == 0.0


def test_the_calibration_is_said_or_chosen(timed):
    scores, dates = timed
    ref = scores.iloc[:, :80]
    observed = scores.iloc[:4, 85]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        with pytest.warns(CalibrationWarning, match="reference_dates=release_dates"):
            auto = predict_benchmark(ref, observed)
        warnings.simplefilter("error", CalibrationWarning)
        exch = predict_benchmark(ref, observed, calibration="exchangeable")
        newer = predict_benchmark(ref, observed, reference_dates=dates, calibration="newer")
        ignored = predict_benchmark(
            ref, observed, reference_dates=dates, calibration="exchangeable"
        )
    assert auto.calibration == exch.calibration == ignored.calibration == "exchangeable"
    assert newer.calibration == "newer"
    with pytest.raises(ValueError, match="needs `reference_dates=`"):
        predict_benchmark(ref, observed, calibration="newer")
    with pytest.raises(ValueError, match="`calibration` must be one of"):
        predict_benchmark(ref, observed, calibration="forward")


def test_a_later_release_moves_and_widens_the_interval(timed):
    """The distance in time from the newest reference adds the drift and widens it."""
    scores, dates = timed
    newest_model = dates.idxmax()
    ref = scores.drop(columns=[newest_model])
    observed = scores.loc[scores.index[:4], newest_model]
    newest = pd.Timestamp(dates[ref.columns].max())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        now = predict_benchmark(
            ref, observed, reference_dates=dates, released=newest + pd.Timedelta(days=1)
        )
        later = predict_benchmark(
            ref, observed, reference_dates=dates, released=newest + pd.Timedelta(days=731)
        )
    assert now.calibration == later.calibration == "newer"
    width = lambda r: r.confidence_interval.high - r.confidence_interval.low  # noqa: E731
    assert width(later) >= width(now) and later.mean >= now.mean
    assert re.search(r"at 73[01] days from the newest reference", later.method)
    assert later.extrapolating and re.search("released 73[01] days after the newest", later.caveat)


def test_more_selected_tasks_never_widen_with_selection():
    """A user who ran 12 selected tasks gets an interval no wider than from the first 8."""
    scores, _ = simulate_scores_over_time(np.random.default_rng(7), 90, 20)
    public, private = list(scores.index[:14]), list(scores.index[14:])
    ref, new = scores.iloc[:, :70], scores.iloc[:, 70:]
    sel12 = select_tasks(ref, 12, target_tasks=private, candidates=public)
    sel8 = sel12.redo(ref, k=8)
    assert sel8.tasks == sel12.tasks[:8]  # greedy: the first 8 of the 12
    widths = {}
    for sel in (sel8, sel12):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            res = [
                predict_benchmark(
                    ref, new.loc[list(sel12.tasks), m], target_tasks=private, selection=sel,
                    calibration="exchangeable",
                )
                for m in new.columns
            ]  # fmt: skip
        widths[sel.k] = [r.confidence_interval.high - r.confidence_interval.low for r in res]
        assert all(set(r.features) <= set(sel.tasks) for r in res)
    # within one standard error of the 95% quantile (the rule of _narrowest_prefix)
    assert np.median(widths[12]) <= np.median(widths[8]) * (1 + _quantile_rse(70, 0.95))


def test_a_selection_is_cut_only_where_a_prefix_is_narrower_beyond_noise():
    """The longest step within one standard error of the narrowest is kept."""
    board = simulate_scores(np.random.default_rng(2), 77, 10)
    sel = select_tasks(board, 5)
    rse = _quantile_rse(77, 0.95)
    assert rse == pytest.approx(0.108, abs=0.001)
    for widths, kept in (
        ([0.05, 0.03, 0.020, 0.021, 0.040], 4),  # 0.021 is within noise of 0.020
        ([0.05, 0.03, 0.020, 0.080, 0.090], 3),  # RTEB's case: more tasks, much wider
        ([0.05, 0.03, 0.025, 0.022, 0.020], 5),  # the full selection is the narrowest
    ):
        steps = sel.steps.assign(half_width=widths)
        cut = _narrowest_prefix(dataclasses.replace(sel, steps=steps))
        assert cut.k == kept and cut.tasks == sel.tasks[:kept]
        X, y = board.loc[list(sel.candidates)].T.to_numpy(), board.mean().to_numpy()
        assert len(cut.chooser()(X, y)) == kept


def test_the_batch_validation_equals_one_prediction_at_a_time(timed):
    """validate_by_release_date calibrates once per cut: the same as predict_benchmark."""
    scores, dates = timed
    cut = dates.quantile(0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        out = validate_by_release_date(scores, dates, [cut], k=3).to_frame()
        ref = scores.loc[:, dates < cut]
        sel = select_tasks(ref, 3)
        for row in out.itertuples():
            one = predict_benchmark(
                ref, scores.loc[list(sel.tasks), row.model], selection=sel,
                reference_dates=dates[ref.columns], released=dates[row.model],
            )  # fmt: skip
            assert (row.predicted, row.ci_low, row.ci_high) == (
                one.mean,
                one.confidence_interval.low,
                one.confidence_interval.high,
            )


def test_the_calibration_in_time_covers_every_later_model_of_a_moving_frontier():
    """12 leaderboards of 110 models: every model released after the 65% cut, up to two
    years later, predicted with its own release date (``validate_by_release_date``).

    Measured (``/work`` simulation of this test's design with 12 leaderboards, 468
    predictions): 0.929 with the distance in time, 0.855 calibrated forward in time at
    distance 0 (the previous interval), 0.714 exchangeable.
    """
    rng = np.random.default_rng(23)
    coverage = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        for _ in range(12):
            scores, dates = simulate_scores_over_time(rng, 110, 12)
            out = validate_by_release_date(
                scores, dates, [dates.quantile(0.65)], k=None, candidates=list(scores.index[:4])
            ).to_frame()
            assert (out["calibration"] == "newer").all()
            coverage.append(out["covered"].mean())
    cov = float(np.mean(coverage))
    se = max(float(np.std(coverage, ddof=1) / np.sqrt(12)), np.sqrt(0.95 * 0.05 / 400))
    assert cov + 3 * se >= 0.93 and cov - 3 * se <= 0.99, (cov, se)
