"""Argument checks shared by the statistics functions (errors name the argument)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd

from ..errors import DroppedModelsWarning, check_names

RngLike = int | np.random.Generator | None
Alternative = Literal["two-sided", "greater", "less"]
_ALTERNATIVES = ("two-sided", "greater", "less")


_Choice = TypeVar("_Choice")


def _check_n_resamples(value: Any, name: str = "n_resamples") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ValueError(f"`{name}` must be a positive integer, got {value!r}")
    return int(value)


def _check_open_unit(value: Any, name: str) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < float(value) < 1
    if not ok:
        raise ValueError(f"`{name}` must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _check_choice(value: _Choice, name: str, choices: Sequence[str]) -> _Choice:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def _check_rng(rng: Any) -> np.random.Generator:
    if isinstance(rng, bool):
        raise ValueError(f"`rng` must be None, an integer seed or a numpy Generator, got {rng!r}")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"`rng` must be None, an integer seed or a numpy Generator, got {rng!r}"
        ) from exc


def _as_vector(values: Any, name: str) -> np.ndarray:
    """1-D float array; pandas NA becomes NaN."""
    if isinstance(values, pd.Series | pd.Index):
        try:
            values = values.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"`{name}` must hold numbers") from exc
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be a 1-D array of numbers") from exc
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D, got an array of shape {arr.shape}")
    return arr


def _check_models(
    requested: Iterable[Any] | None, available: Iterable[Any], argname: str = "models"
) -> list[Any]:
    """The requested model names, checked against ``available`` (see :func:`check_names`)."""
    return check_names(requested, available, argname=argname)


def complete_score_matrix(
    scores: Any,
    *,
    argname: str = "scores",
    caller: str = "pairwise_significance",
    min_units: int = 2,
    stacklevel: int = 3,
) -> tuple[np.ndarray, list[Any], dict[Any, list[Any]]]:
    """Validate a units x models table; drop models with missing units, with a warning.

    Returns the complete float matrix, the kept model names and ``{dropped model:
    [its missing units]}``. A :class:`DroppedModelsWarning` names every dropped model
    and the units (tasks) it lacks; ``stacklevel`` points it at the public caller's caller.
    """
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(
            f"`{argname}` must be a pandas DataFrame (rows = units, columns = models), "
            f"got {type(scores).__name__}"
        )
    if scores.columns.duplicated().any():
        dup = sorted({str(c) for c in scores.columns[scores.columns.duplicated()]})
        raise ValueError(f"`{argname}` has duplicate model columns: {dup}")
    bad = [c for c in scores.columns if not pd.api.types.is_numeric_dtype(scores[c])]
    if bad:
        raise ValueError(f"`{argname}` has non-numeric columns: {bad}")
    if len(scores) < min_units:
        raise ValueError(f"`{argname}` needs at least {min_units} units (rows), got {len(scores)}")
    X = scores.to_numpy(dtype=float, na_value=np.nan)
    inf_cols = [scores.columns[int(k)] for k in np.flatnonzero(np.isinf(X).any(axis=0))]
    if inf_cols:
        raise ValueError(f"`{argname}` has infinite values in columns {inf_cols}")
    holes = np.isnan(X)
    dropped = {
        scores.columns[int(k)]: list(scores.index[holes[:, k]])
        for k in np.flatnonzero(holes.any(axis=0))
    }
    if dropped:
        detail = "; ".join(f"{m!r} lacks {units}" for m, units in dropped.items())
        warnings.warn(
            f"{caller}: dropped {len(dropped)} model(s) without a score on every unit of "
            f"`{argname}` (never averaged over a partial set): {detail}",
            DroppedModelsWarning,
            stacklevel=stacklevel,
        )
    keep = ~holes.any(axis=0)
    return X[:, keep], [c for c, k in zip(scores.columns, keep, strict=True) if k], dropped
