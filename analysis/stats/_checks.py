"""Argument checks shared by the statistics functions (errors name the argument).

Two labelled inputs (Series, DataFrames) pair by label, never by position, and must hold
the same labels (else :class:`~analysis.core.errors.LabelMismatchError` names the missing
and extra ones); labelled rows are put in sorted-label order before anything is
resampled. Plain arrays pair by position.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd

from ..core.errors import DroppedModelsWarning, LabelMismatchError, UnknownModelError, check_names

RngLike = int | np.random.Generator | None
Alternative = Literal["two-sided", "greater", "less"]
_ALTERNATIVES = ("two-sided", "greater", "less")
_SHOW = 8  # labels shown in a message
_WARN_MODELS = 5  # models named in a DroppedModelsWarning
_WARN_TASKS = 3  # missing tasks named per model

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
    try:
        if not isinstance(rng, bool):
            return np.random.default_rng(rng)
    except (TypeError, ValueError):
        pass
    raise ValueError(f"`rng` must be None, an integer seed or a numpy Generator, got {rng!r}")


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
    return check_names(requested, available, argname=argname, error=UnknownModelError)


# --------------------------------------------------------------------------- labels


def _shown(labels: Sequence[Any]) -> str:
    head = ", ".join(repr(x) for x in list(labels)[:_SHOW])
    return f"[{head}{', ...' if len(labels) > _SHOW else ''}] ({len(labels)})"


def label_mismatch(name_a: str, labels_a: Iterable[Any], name_b: str, labels_b: Iterable[Any]):
    """The error for two label sets that differ: what ``name_b`` lacks and has in excess."""
    a, b = list(dict.fromkeys(labels_a)), list(dict.fromkeys(labels_b))
    in_b, in_a = set(b), set(a)
    missing, extra = [x for x in a if x not in in_b], [x for x in b if x not in in_a]
    parts = []
    if missing:
        parts.append(f"lacks {_shown(missing)} that `{name_a}` has")
    if extra:
        parts.append(f"has {_shown(extra)} that `{name_a}` lacks")
    return LabelMismatchError(
        f"`{name_b}` {' and '.join(parts)}: labelled inputs are paired by label, so both "
        f"need the same labels. Select the common ones first (e.g. `{name_a}, {name_b} = "
        f"{name_a}.align({name_b}, join='inner')`), or pass plain arrays to pair by position."
    )


def _check_unique(index: pd.Index, name: str) -> None:
    if index.has_duplicates:
        dup = list(dict.fromkeys(index[index.duplicated()]))
        raise LabelMismatchError(f"`{name}` has duplicate labels {_shown(dup)}")


def canonical_order(index: pd.Index) -> np.ndarray:
    """Positions that sort ``index`` (by label; by ``str(label)`` for mixed types)."""
    try:
        return np.asarray(index.argsort(kind="stable"))
    except TypeError:
        return np.argsort(np.array([str(x) for x in index], dtype=object), kind="stable")


def _by_label(x: pd.Series, y: pd.Series, names: tuple[str, str]) -> tuple[pd.Series, pd.Series]:
    """Two Series over the same unique labels, both in sorted-label order."""
    _check_unique(x.index, names[0])
    _check_unique(y.index, names[1])
    if set(x.index) != set(y.index):
        raise label_mismatch(names[0], x.index, names[1], y.index)
    order = x.index[canonical_order(x.index)]
    return x.loc[order], y.loc[order]


def align_vectors(
    x: Any, y: Any, names: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray, list[Any] | None]:
    """Two 1-D inputs as float vectors over the same items.

    Two Series are paired by label (same label set required, any order) and returned in
    sorted-label order, so their order never matters; anything else is paired by
    position. Returns the two vectors and the labels (None when positional).
    """
    if isinstance(x, pd.Series) and isinstance(y, pd.Series):
        x, y = _by_label(x, y, names)
        labels: list[Any] | None = list(x.index)
    else:
        labels = list(x.index) if isinstance(x, pd.Series) else None
    xv, yv = _as_vector(x, names[0]), _as_vector(y, names[1])
    if xv.shape != yv.shape:
        raise ValueError(
            f"`{names[0]}` and `{names[1]}` must have the same length, got {len(xv)} and {len(yv)}"
        )
    return xv, yv, labels


def align_labels(values: Any, labels: Any, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Numbers and their group labels, paired by label when both are Series.

    Returns (values as floats, labels as an object array), in sorted-label order for two
    Series, else in the given (positional) order.
    """
    if isinstance(values, pd.Series) and isinstance(labels, pd.Series):
        values, labels = _by_label(values, labels, names)
    vals = _as_vector(values, names[0])
    labs = np.asarray(list(labels), dtype=object)
    if labs.shape != vals.shape:
        raise ValueError(
            f"`{names[0]}` and `{names[1]}` must have the same length, "
            f"got {len(vals)} and {len(labs)}"
        )
    return vals, labs


def unit_clusters(clusters: Any, units: pd.Index | None, n: int) -> np.ndarray | None:
    """Integer cluster codes (0..G-1, in order of first appearance) for n units, or None.

    ``clusters`` is None (every unit its own cluster), a Series indexed by the units
    (same labels required), a mapping (a lookup: every unit must be a key; other keys are
    ignored) or a sequence of n labels (positional). ``units`` are the units' labels, in
    the order of the data (None for plain arrays).
    """
    if clusters is None:
        return None
    if isinstance(clusters, pd.Series):
        if units is None:
            values = clusters.to_numpy(dtype=object)
        else:
            _check_unique(clusters.index, "clusters")
            if set(clusters.index) != set(units):
                raise label_mismatch("scores", units, "clusters", clusters.index)
            values = clusters.loc[units].to_numpy(dtype=object)
    elif isinstance(clusters, Mapping):
        if units is None:
            raise ValueError(
                "`clusters` as a mapping needs labelled units (pandas input); pass one label "
                "per unit, in order, for plain arrays"
            )
        absent = [u for u in units if u not in clusters]
        if absent:
            raise LabelMismatchError(
                f"`clusters` has no cluster for the units {_shown(absent)}: a mapping must "
                "name the cluster of every unit (task)"
            )
        values = np.array([clusters[u] for u in units], dtype=object)
    elif isinstance(clusters, str):
        raise ValueError("`clusters` must hold one label per unit, not a single string")
    else:
        values = np.asarray(list(clusters), dtype=object)
    if values.shape != (n,):
        raise ValueError(f"`clusters` must hold one label per unit ({n}), got {values.shape}")
    if pd.isna(pd.Series(values)).any():
        raise ValueError("`clusters` has missing labels; give every unit a cluster")
    codes, _ = pd.factorize(pd.Series(values), sort=False)
    return np.asarray(codes, dtype=np.intp)


# --------------------------------------------------------------------------- score tables


def dropped_message(caller: str, dropped: Mapping[Any, Sequence[Any]], what: str) -> str:
    """A short warning text (< 1,000 characters) naming a few dropped models.

    ``what`` names the units in the plural ("tasks (rows)").
    """
    shown = []
    for model, units in list(dropped.items())[:_WARN_MODELS]:
        name = str(model) if len(str(model)) <= 60 else str(model)[:57] + "..."
        tasks = ", ".join(repr(str(u)[:40]) for u in list(units)[:_WARN_TASKS])
        more = f", ... ({len(units)} in all)" if len(units) > _WARN_TASKS else ""
        shown.append(f"{name!r} lacks [{tasks}{more}]")
    rest = len(dropped) - len(shown)
    return (
        f"{caller}: dropped {len(dropped)} model(s) without a score on all {what} "
        f"(never averaged over a partial set): {'; '.join(shown)}"
        + (f"; and {rest} more" if rest > 0 else "")
        + f". The result's `dropped` attribute lists every dropped model and its missing {what}."
    )


def complete_score_matrix(
    scores: Any,
    *,
    argname: str = "scores",
    caller: str = "pairwise_significance",
    min_units: int = 2,
    stacklevel: int = 3,
) -> tuple[np.ndarray, list[Any], dict[Any, list[Any]], pd.Index]:
    """Validate a units x models table; drop models with missing units, with a warning.

    Rows are put in sorted-label order (so the row order of ``scores`` never matters).
    Returns the complete float matrix, the kept model names, ``{dropped model: [its
    missing units]}`` and the row labels in the returned order. A
    :class:`DroppedModelsWarning` names the first few dropped models and says where the
    full list is; ``stacklevel`` points it at the public caller's caller.
    """
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(
            f"`{argname}` must be a pandas DataFrame (rows = units, columns = models), "
            f"got {type(scores).__name__}"
        )
    if scores.columns.duplicated().any():
        dup = sorted({str(c) for c in scores.columns[scores.columns.duplicated()]})
        raise ValueError(f"`{argname}` has duplicate model columns: {dup}")
    _check_unique(scores.index, argname)
    bad = [c for c in scores.columns if not pd.api.types.is_numeric_dtype(scores[c])]
    if bad:
        raise ValueError(f"`{argname}` has non-numeric columns: {bad}")
    if len(scores) < min_units:
        raise ValueError(f"`{argname}` needs at least {min_units} units (rows), got {len(scores)}")
    scores = scores.iloc[canonical_order(scores.index)]
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
        warnings.warn(
            dropped_message(caller, dropped, "units (rows)"),
            DroppedModelsWarning,
            stacklevel=stacklevel,
        )
    keep = ~holes.any(axis=0)
    names = [c for c, k in zip(scores.columns, keep, strict=True) if k]
    return X[:, keep], names, dropped, scores.index
