"""What each model trained on, by mteb's own rules: zero-shot %, overlap with a task list.

Everything here is read from mteb's ``ModelMeta`` and ``TaskMetadata``, never restated:

* ``ModelMeta.get_training_datasets()``: the datasets a model declares
  (``training_datasets``), those of the model it was adapted from (``adapted_from``), and
  every task linked to them in mteb's similar-task graph (a task's ``adapted_from``
  sources and the tasks it supersedes or is superseded by). A model trained on a source
  of a task therefore counts as trained on the task;
* ``ModelMeta.zero_shot_percentage(tasks)``: the share of ``tasks`` *not* in that set,
  truncated to an integer, as mteb's leaderboard shows it;

both through the memoised copies mteb's leaderboard table keeps
(:func:`analysis.core.compat.training_datasets`, :func:`~analysis.core.compat.zero_shot_percentage`:
the traversal costs tens of milliseconds per model);
* ``TaskMetadata.adapted_from``: the datasets a task was derived from (its sources).

**Unknown stays unknown.** A model that mteb does not register, or registers without
training data (``training_datasets=None``), has no training set: its zero-shot % and
every overlap is missing (``pd.NA``), never 0 and never 100.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from ..core import compat
from ..core.compat import registered_meta, task_registry


def training_datasets(models: Iterable[str]) -> dict[str, frozenset[str] | None]:
    """Each model's training datasets as ``ModelMeta.get_training_datasets()`` returns them.

    Returns:
        ``{model: frozenset of task names}``, None for a model mteb does not register
        or registers without training data.
    """
    return {name: compat.training_datasets(_registered(name)) for name in dict.fromkeys(models)}


def _registered(name: str) -> str:
    """The name mteb registers ``name`` under (renames followed), else ``name`` itself."""
    meta = registered_meta(name, follow_renames=True)
    return name if meta is None else str(meta.name)


def zero_shot(models: Iterable[str], tasks: Sequence[str]) -> pd.Series:
    """Zero-shot % of each model on ``tasks``: mteb's ``ModelMeta.zero_shot_percentage``.

    Args:
        models: Model names.
        tasks: The task list (e.g. a benchmark's, or its public tasks).

    Returns:
        An ``Int64`` Series indexed by model: 100 = trained on none of the tasks,
        ``<NA>`` = unknown (see the module notes).
    """
    wanted = tuple(tasks)
    values = {
        name: compat.zero_shot_percentage(_registered(name), wanted) if wanted else None
        for name in dict.fromkeys(models)
    }
    return pd.Series(values, dtype="Int64", name="zero_shot")


def task_sources(tasks: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The datasets each task derives from: mteb's ``TaskMetadata.adapted_from``.

    Returns:
        ``{task: (source task, ...)}``, an empty tuple for a task with none recorded.
    """
    registry = task_registry()
    return {t: tuple(registry[t].metadata.adapted_from or ()) for t in dict.fromkeys(tasks)}


def trained_on(
    models: Iterable[str], tasks: Sequence[str], *, sources: bool = False
) -> pd.DataFrame:
    """Whether each model trained on each task (tasks x models, nullable booleans).

    Args:
        models: Model names.
        tasks: Task names (the rows, in this order).
        sources: Instead of the task itself, whether the model trained on one of the
            task's sources (:func:`task_sources`; False for a task without any).

    Returns:
        A ``boolean`` frame; a model with unknown training data is ``<NA>`` on every task.
    """
    known = training_datasets(models)
    wanted = task_sources(tasks) if sources else {t: (t,) for t in tasks}
    columns = {
        model: [pd.NA if seen is None else bool(seen.intersection(wanted[t])) for t in tasks]
        for model, seen in known.items()
    }
    return pd.DataFrame(columns, index=pd.Index(list(tasks), name="task"), dtype="boolean")


def trained_differently(trained: pd.DataFrame, families: pd.Series) -> pd.Series:
    """Per family, whether its models with known training data trained on different tasks.

    Only those families carry a test that reassigns the training patterns within families
    (:func:`analysis.stats.trained_task_effect` with ``families``); in the others each model
    keeps its pattern.

    Args:
        trained: tasks x models, as :func:`trained_on` gives (``<NA>``: unknown, left out).
        families: the family of every model (a Series indexed by model).

    Returns:
        A boolean Series indexed by the families with a model of known training data.

    Examples:
        >>> flags = pd.DataFrame({"o/a": [True, False], "o/b": [False, False],
        ...                       "p/c": [True, False], "q/d": [pd.NA, pd.NA]}, dtype="boolean")
        >>> trained_differently(flags, pd.Series(["o", "o", "p", "q"], index=flags.columns))
        o     True
        p    False
        dtype: bool
    """
    known = trained.loc[:, trained.notna().all()].T.astype(bool)
    return known.groupby(families.loc[known.index]).nunique().max(axis=1).gt(1).rename_axis(None)


def overlap_table(models: Iterable[str], scopes: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Per model: training-data overlap with each task list, by mteb's rules.

    Args:
        models: Model names.
        scopes: Named task lists, e.g. ``{"public": [...], "private": [...],
            "MTEB(eng, v2)": [...]}``.

    Returns:
        One row per model (index ``model``): ``known`` (mteb records its training data), then per
        scope ``<scope> trained`` (how many of its tasks the model trained on, directly or through a
        source), ``<scope> zero-shot %`` (mteb's) and ``<scope> via source`` (how many through a
        source: :func:`task_sources`); ``<NA>`` where the training data is unknown.

    Examples:
        A model mteb does not register is unknown, never zero:

        >>> table = overlap_table(["org/unregistered"], {"public": ["SciFact"]})
        >>> list(table.columns)
        ['known', 'public trained', 'public zero-shot %', 'public via source']
        >>> bool(table["known"].iloc[0]), bool(table.iloc[0, 1:].isna().all())
        (False, True)
    """
    models = list(dict.fromkeys(models))
    known = training_datasets(models)
    out = pd.DataFrame(index=pd.Index(models, name="model"))
    out["known"] = [known[m] is not None for m in models]
    for scope, tasks in scopes.items():
        direct, via = trained_on(models, tasks), trained_on(models, tasks, sources=True)
        out[f"{scope} trained"] = direct.sum().where(out["known"]).astype("Int64")
        out[f"{scope} zero-shot %"] = zero_shot(models, tasks)
        out[f"{scope} via source"] = via.sum().where(out["known"]).astype("Int64")
    return out
