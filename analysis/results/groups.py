"""Model groups, organisations, release dates: mteb's model metadata, the static-kinds table."""

from __future__ import annotations

import io
import math
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ..core.compat import registered_meta

#: How a static model was trained, as :data:`STATIC_KINDS_FILE` documents it (its header
#: defines each kind); a static model the table does not list is ``unknown``.
STATIC_KINDS = ("model2vec", "distilled", "supervised", "hybrid", "unknown")
#: The packaged table: one row per static model (model, kind, source, evidence).
STATIC_KINDS_FILE = Path(__file__).with_name("static_kinds.csv")


def static_kind_table(extra: str | Path | pd.DataFrame | None = None) -> pd.DataFrame:
    """The documented kind of each static model: the packaged table, then the user's rows.

    Args:
        extra: The user's rows, a CSV file (``#`` lines are comments) or a frame with
            columns ``model``, ``kind``, ``source`` (the model card or paper) and optionally
            ``evidence``. A row for a model the packaged table lists replaces its row.

    Returns:
        Columns ``model``, ``kind``, ``source``, ``evidence``; one row per model.

    Raises:
        ValueError: a missing column, a kind outside :data:`STATIC_KINDS`, a row
            without a source, or a model listed twice in one table.

    Examples:
        >>> import pandas as pd
        >>> mine = pd.DataFrame({"model": ["me/static"], "kind": ["distilled"],
        ...                      "source": ["https://example.org/card"]})
        >>> table = static_kind_table(mine).set_index("model")["kind"]
        >>> table["me/static"], table["minishlab/M2V_base_output"]
        ('distilled', 'model2vec')
    """
    table = _checked(_read(STATIC_KINDS_FILE), str(STATIC_KINDS_FILE))
    if extra is None:
        return table
    if isinstance(extra, pd.DataFrame):
        user = _checked(extra, "the static_kinds frame")
    else:
        user = _checked(_read(Path(extra)), str(extra))
    return pd.concat([table[~table["model"].isin(user["model"])], user], ignore_index=True)


def _read(path: Path) -> pd.DataFrame:
    """A static-kinds CSV without its ``#`` comment lines, every cell a string."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    text = "".join(line for line in lines if not line.lstrip().startswith("#"))
    return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)


def _checked(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    """``frame`` as a static-kinds table, or a ValueError naming ``where`` and the fix."""
    missing = [c for c in ("model", "kind", "source") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{where}: missing column(s) {missing}; a static-kinds table has columns "
            "model, kind, source (the model card) and evidence."
        )
    table = frame.reindex(columns=["model", "kind", "source", "evidence"], fill_value="")
    table = table.astype(object).fillna("").astype(str).apply(lambda column: column.str.strip())
    bad = table.loc[~table["kind"].isin(STATIC_KINDS), ["model", "kind"]]
    if len(bad):
        raise ValueError(
            f"{where}: unknown kind(s) {dict(zip(bad['model'], bad['kind'], strict=True))}; "
            f"use one of {', '.join(STATIC_KINDS)}."
        )
    unsourced = list(table.loc[table["source"] == "", "model"])
    if unsourced or (table["model"] == "").any():
        raise ValueError(
            f"{where}: every row needs a model and a source (the model card or paper that "
            f"says how it was trained); without a source: {unsourced or 'a row without a model'}."
        )
    twice = sorted(set(table.loc[table["model"].duplicated(), "model"]))
    if twice:
        raise ValueError(f"{where}: model(s) listed twice: {twice}; keep one row per model.")
    return table.reset_index(drop=True)


def model_groups(
    models: Iterable[str], *, static_kinds: str | Path | pd.DataFrame | None = None
) -> pd.DataFrame:
    """Classify models from mteb's registered ``ModelMeta`` and the static-kinds table.

    Rules (documented, so a reader can disagree with them):

    * **static**: a text-only model (``modalities == ["text"]``) whose parameters are all
      embedding parameters (``n_embedding_parameters == n_parameters``: token-vector
      lookup and pooling, no layers on top), or whose ``max_tokens`` is infinite (a static
      embedding has no context limit). Text-only, because mteb also gives an infinite
      ``max_tokens`` to audio-text models (laion/clap-*), whose text tower is a transformer.
    * the **kind** of a static model is how it was trained, read from
      :func:`static_kind_table` (the packaged ``static_kinds.csv``, one row per model
      citing its model card, extended by ``static_kinds``): ``model2vec`` (a model2vec output, not
      trained further: the post's initialization), ``distilled`` (knowledge distillation: potion,
      Tokenlearn), ``supervised`` (a loss on labelled or paired data: static-*-mrl), ``hybrid``
      (distilled, then fine-tuned on task data) or ``unknown`` (nothing read says; also every static
      model the table does not list). mteb's metadata cannot tell these apart: model2vec outputs and
      potion models share a framework, an ``adapted_from`` and ``training_datasets``.
    * mteb's reference baselines (``mteb/baseline-*``) are ``baseline``; models that
      mteb does not register are ``unknown``; the other registered models ``transformer``.

    Args:
        models: Model names (mteb's renamed names are followed).
        static_kinds: More documented kinds (see :func:`static_kind_table`): a CSV file
            or a frame; its rows replace the packaged rows of the same models.

    Returns:
        One row per model: ``model``, ``family`` (static / transformer / baseline / unknown),
        ``static_kind`` (one of :data:`STATIC_KINDS` for a static model, "" otherwise),
        ``n_parameters``.
    """
    kinds = static_kind_table(static_kinds).set_index("model")["kind"]
    rows = []
    for name in models:
        if name.startswith("mteb/baseline"):
            rows.append((name, "baseline", "", math.nan))
            continue
        meta = registered_meta(name, follow_renames=True)
        if meta is None:  # mteb does not register it; a failing registry is raised
            rows.append((name, "unknown", "", math.nan))
            continue
        max_tokens = meta.max_tokens
        n_emb, n_all = getattr(meta, "n_embedding_parameters", None), meta.n_parameters
        all_embedding = bool(n_emb and n_all and n_emb >= n_all)
        no_limit = max_tokens is not None and math.isinf(float(max_tokens))
        static = (all_embedding or no_limit) and set(meta.modalities or ()) == {"text"}
        kind = str(kinds.get(name, kinds.get(meta.name, "unknown"))) if static else ""
        n_parameters = float(meta.n_parameters) if meta.n_parameters else math.nan
        rows.append((name, "static" if static else "transformer", kind, n_parameters))
    return pd.DataFrame(rows, columns=["model", "family", "static_kind", "n_parameters"])


def release_dates(models: Iterable[str]) -> pd.Series:
    """Each model's release date as mteb registers it (``ModelMeta.release_date``).

    The reference dates of :func:`analysis.stats.predict_benchmark`'s calibration forward in time
    (``reference_dates=``). Models that mteb does not register, or registers without a date (its
    baselines), get NaT: the estimate leaves them out of that calibration and counts them.
    """
    metas = {name: registered_meta(name, follow_renames=True) for name in models}
    dates = {name: getattr(meta, "release_date", None) for name, meta in metas.items()}
    return pd.to_datetime(pd.Series(dates, dtype=object), errors="coerce")


def organisations(models: Iterable[str]) -> pd.Series:
    """Each model's organisation, its name before ``/`` (the audit's ``families=``).

    Examples:
        >>> organisations(["minishlab/potion-base-8M", "bm25s"]).to_dict()
        {'minishlab/potion-base-8M': 'minishlab', 'bm25s': 'bm25s'}
    """
    return pd.Series({m: m.split("/")[0] for m in models}, dtype=object)
