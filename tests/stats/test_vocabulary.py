"""One statistics vocabulary across every public function of ``analysis.stats``.

Walks ``analysis.stats.__all__`` with :func:`inspect.signature` and enforces scipy's
words: options keyword-only; ``confidence_level`` for interval levels and ``alpha`` for
test levels, never both on one call; one keyword (``adjustment``) for the multiplicity
adjustment; every function returns a frozen :class:`StatsResult` with ``to_frame()``;
intervals are :class:`ConfidenceInterval` fields named ``confidence_interval`` and their
ends in tables ``ci_low`` / ``ci_high`` (``rank_low`` / ``rank_high`` for ranks); a
caveat in words is ``caveat``; the names they replaced are refused.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _sim.leaderboards import simulate_scores

import analysis.stats as stats
from analysis.core.errors import ExtrapolationWarning
from analysis.stats import ConfidenceInterval, StatsResult

#: Public functions that return something other than a result object, and why.
NOT_A_RESULT = {
    # like scipy.stats.false_discovery_control: the adjusted p-values themselves
    "adjust_pvalues": "returns the adjusted values, as scipy.stats.false_discovery_control",
}
LEVELS = ("alpha", "confidence_level")
#: Other names for a level that the vocabulary replaces by ``alpha``/``confidence_level``.
LEVEL_SYNONYMS = re.compile(r"^(level|significance|coverage|ci|conf)(_level)?$|_level$")
#: Keyword names that have meant "the multiplicity adjustment" somewhere.
ADJUSTMENT = "adjustment"
#: Field/column names that have meant "a caveat in words".
CAVEAT_SYNONYMS = {"note", "notes", "reason", "beyond", "warning", "warnings", "remark", "caveats"}
#: Allowed interval-end names in tables (and, for ranks, as fields).
END_COLUMNS = re.compile(r"^(.+_)?ci_(low|high)$|^rank_(low|high)$")
END_LIKE = re.compile(r"(^|_)(low|high|lower|upper|lo|hi)$")


def _public() -> dict[str, Any]:
    return {name: getattr(stats, name) for name in stats.__all__}


def _functions() -> dict[str, Callable[..., Any]]:
    return {n: f for n, f in _public().items() if inspect.isfunction(f)}


def _result_classes() -> dict[str, type]:
    return {
        n: c
        for n, c in _public().items()
        if inspect.isclass(c) and issubclass(c, StatsResult) and c is not StatsResult
    }


def _hints(func: Callable[..., Any]) -> dict[str, Any]:
    return typing.get_type_hints(inspect.unwrap(func))


# --------------------------------------------------------------------------- signatures


@pytest.mark.parametrize("name", sorted(_functions()))
def test_options_are_keyword_only(name):
    sig = inspect.signature(_functions()[name])
    positional_options = [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty
    ]
    assert not positional_options, f"{name}: options {positional_options} must be keyword-only"


@pytest.mark.parametrize("name", sorted(_functions()))
def test_one_level_keyword_named_as_scipy(name):
    params = inspect.signature(_functions()[name]).parameters
    synonyms = [p for p in params if p not in LEVELS and LEVEL_SYNONYMS.search(p)]
    assert not synonyms, f"{name}: level keywords {synonyms}: use `confidence_level` or `alpha`"
    levels = [p for p in params if p in LEVELS]
    assert len(levels) <= 1, f"{name} takes {levels}: one level drives a call (two found)"


@pytest.mark.parametrize("name", sorted(_functions()))
def test_no_alpha_for_an_interval_level(name):
    """``alpha`` is a test level: only functions whose result records decisions take it."""
    func = _functions()[name]
    params = inspect.signature(func).parameters
    ret = _hints(func).get("return")
    if name in NOT_A_RESULT or ret is None:
        return
    fields = {f.name for f in dataclasses.fields(ret)}
    fields |= {n for n, v in vars(ret).items() if isinstance(v, property)}
    if "confidence_interval" in fields:  # an estimate with its interval
        assert "alpha" not in params, f"{name} returns an interval: its level is confidence_level"
    if "alpha" in params:
        assert "alpha" in fields, f"{name} takes alpha but its result records no decisions"
    if "confidence_level" in params:
        assert "confidence_level" in fields, f"{name}: the result must record confidence_level"


def test_one_adjustment_keyword():
    users = {}
    for name, func in _functions().items():
        for p in inspect.signature(func).parameters.values():
            if "holm" in str(p.annotation) or "bonferroni" in str(p.annotation):
                users[name] = p.name
    assert set(users) >= {"adjust_pvalues", "pairwise_significance"}
    assert set(users.values()) == {ADJUSTMENT}, users


# --------------------------------------------------------------------------- results


@pytest.mark.parametrize("name", sorted(_functions()))
def test_every_function_returns_a_result(name):
    if name in NOT_A_RESULT:
        return
    ret = _hints(_functions()[name]).get("return")
    assert inspect.isclass(ret) and issubclass(ret, StatsResult), f"{name} returns {ret!r}"
    assert ret.__name__ in stats.__all__, f"{name}'s result {ret.__name__} is not exported"


@pytest.mark.parametrize("name", sorted(_result_classes()))
def test_results_are_frozen_with_to_frame_and_one_vocabulary(name):
    cls = _result_classes()[name]
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, name  # type: ignore[attr-defined]
    assert cls.to_frame is not StatsResult.to_frame, f"{name} has no to_frame()"
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        assert f.name not in CAVEAT_SYNONYMS, f"{name}.{f.name}: a caveat is named `caveat`"
        if hints[f.name] is ConfidenceInterval:
            assert f.name == "confidence_interval", f"{name}.{f.name}"
        if END_LIKE.search(f.name):
            assert END_COLUMNS.match(f.name) and f.name.startswith("rank_"), (
                f"{name}.{f.name}: interval ends belong in a ConfidenceInterval "
                "(`confidence_interval`); only rank intervals keep rank_low/rank_high"
            )
        if f.name == "caveat":
            assert hints[f.name] is str, f"{name}.caveat is text ('' when none)"


# --------------------------------------------------------------------------- tables


def _calls() -> dict[str, Callable[[], Any]]:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        rng.normal(size=(6, 4)) + np.arange(4),
        index=[f"t{i}" for i in range(6)],
        columns=[f"m{j}" for j in range(4)],
    )
    a = pd.Series(rng.normal(size=12), index=[f"x{i}" for i in range(12)])
    b = a + rng.normal(size=12)
    groups = pd.Series(["a"] * 6 + ["b"] * 6, index=a.index)
    ref = simulate_scores(np.random.default_rng(7), 20, 6)
    found = pd.DataFrame(
        {"z": rng.normal(size=4), "g": [True, True, False, False]}, index=X.columns
    )
    trained = pd.DataFrame(False, index=X.index, columns=X.columns)
    trained.iloc[0, :2] = True
    return {
        "adjust_pvalues": lambda: stats.adjust_pvalues([0.01, 0.2]),
        "advantage_predictors": lambda: stats.advantage_predictors(
            X, found, public_tasks=list(X.index[:3]), private_tasks=list(X.index[3:])
        ),
        "benchmark_agreement": lambda: stats.benchmark_agreement(
            a, b, top_k=(5,), subset_sizes=(5,), n_subsets=10, n_resamples=99, rng=0
        ),
        "compare": lambda: stats.compare(X, n_resamples=99, rng=0),
        "friedman_nemenyi": lambda: stats.friedman_nemenyi(X),
        "group_contrast": lambda: stats.group_contrast(a, groups, group_a="a", group_b="b"),
        "next_tasks": lambda: stats.next_tasks(ref.iloc[:, 1:], ref.iloc[:3, 0]),
        "paired_bootstrap": lambda: stats.paired_bootstrap(a, b, n_resamples=99, rng=0),
        "pairwise_significance": lambda: stats.pairwise_significance(X, n_resamples=99, rng=0),
        "predict_benchmark": lambda: stats.predict_benchmark(ref.iloc[:, 1:], ref.iloc[:3, 0]),
        "predictive_comparison": lambda: stats.predictive_comparison(
            a, b, a + b, n_resamples=99, rng=0
        ),
        "public_advantage": lambda: stats.public_advantage(
            X, public_tasks=list(X.index[:3]), private_tasks=list(X.index[3:]), n_resamples=99
        ),
        "public_private_gap": lambda: stats.public_private_gap(
            X, public_tasks=list(X.index[:3]), private_tasks=list(X.index[3:]), n_resamples=99
        ),
        "rank_correlation": lambda: stats.rank_correlation(a, b, n_resamples=99, rng=0),
        "rank_intervals": lambda: stats.rank_intervals(X, n_resamples=99, rng=0),
        "select_tasks": lambda: stats.select_tasks(ref, 2, validate=False),
        "trained_task_effect": lambda: stats.trained_task_effect(X, trained, n_resamples=99),
    }


def test_every_public_function_is_called_here():
    assert set(_calls()) == set(_functions())


@pytest.mark.parametrize("name", sorted(_functions()))
def test_tables_name_interval_ends_and_caveats_consistently(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        out = _calls()[name]()
    if name in NOT_A_RESULT:
        return
    assert type(out) is _hints(_functions()[name])["return"], name
    tables = [("to_frame()", out.to_frame())]
    tables += [
        (f.name, getattr(out, f.name))
        for f in dataclasses.fields(out)
        if isinstance(getattr(out, f.name), pd.DataFrame)
    ]
    for where, table in tables:
        for col in map(str, list(table.columns) + list(table.index.names)):
            if END_LIKE.search(col):
                assert END_COLUMNS.match(col), f"{name} {where}: column {col!r}: use ci_low/ci_high"
            assert col not in CAVEAT_SYNONYMS, f"{name} {where}: column {col!r}: use `caveat`"


# --------------------------------------------------------------------------- old names


def test_the_replaced_keywords_and_attributes_are_refused():
    """One name for each thing: ``alpha=``/``method=``/``note``/``reason``/``low`` are gone."""
    X = pd.DataFrame(
        np.random.default_rng(1).normal(size=(6, 4)) + np.arange(4), index=list("abcdef")
    )
    with pytest.raises(TypeError, match="alpha"):
        stats.rank_intervals(X, alpha=0.1, n_resamples=99, rng=0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="method"):
        stats.adjust_pvalues([0.01, 0.02, 0.5], method="bh")  # type: ignore[call-arg]
    calls = _calls()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        results = [calls[n]() for n in ("group_contrast", "rank_intervals", "predict_benchmark")]
    for result, old in zip(results, ("note", "reason", "low"), strict=True):
        assert hasattr(result, "caveat")
        assert not hasattr(result, old), f"{type(result).__name__}.{old}"
