"""Model groups and release dates, read from mteb's model metadata."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from ..core.compat import registered_meta


def model_groups(models: Iterable[str]) -> pd.DataFrame:
    """Classify models from mteb's registered ``ModelMeta``.

    Rules (documented, so a reader can disagree with them):

    * **static**: a text model whose parameters are all embedding parameters
      (``n_embedding_parameters == n_parameters``: token-vector lookup and pooling, no
      layers on top), or whose ``max_tokens`` is infinite (a static embedding has no
      context limit, every transformer has one).
    * **distilled** static: static and its framework includes ``NumPy`` (how mteb tags
      model2vec models, the potion family); **supervised** static: the other static
      models (sentence-transformers ``StaticEmbedding`` models trained with a loss,
      such as static-retrieval-mrl-en-v1).
    * mteb's reference baselines (``mteb/baseline-*``) are ``baseline``; models that
      mteb does not register are ``unknown``.

    Returns:
        One row per model: ``model``, ``family`` (static / transformer / baseline / unknown),
        ``static_kind`` (distilled / supervised / "" for non-static), ``n_parameters``.
    """
    rows = []
    for name in models:
        if name.startswith("mteb/baseline"):
            rows.append(
                {"model": name, "family": "baseline", "static_kind": "", "n_parameters": math.nan}
            )
            continue
        meta = registered_meta(name, follow_renames=True)
        if meta is None:  # mteb does not register it; a failing registry is raised
            rows.append(
                {"model": name, "family": "unknown", "static_kind": "", "n_parameters": math.nan}
            )
            continue
        max_tokens = meta.max_tokens
        n_emb, n_all = getattr(meta, "n_embedding_parameters", None), meta.n_parameters
        all_embedding = bool(n_emb and n_all and n_emb >= n_all)
        no_limit = max_tokens is not None and math.isinf(float(max_tokens))
        static = (all_embedding or no_limit) and "text" in (meta.modalities or [])
        kind = (
            ("distilled" if "NumPy" in (meta.framework or []) else "supervised") if static else ""
        )
        rows.append(
            {
                "model": name,
                "family": "static" if static else "transformer",
                "static_kind": kind,
                "n_parameters": float(meta.n_parameters) if meta.n_parameters else math.nan,
            }
        )
    return pd.DataFrame(rows)


def release_dates(models: Iterable[str]) -> pd.Series:
    """Each model's release date as mteb registers it (``ModelMeta.release_date``).

    The reference dates of :func:`analysis.stats.predict_benchmark`'s calibration forward
    in time (``reference_dates=``). Models that mteb does not register, or registers
    without a date (its baselines), get NaT: the estimate leaves them out of that
    calibration and counts them.

    Returns:
        A datetime Series indexed by model name.
    """
    dates = {}
    for name in models:
        meta = registered_meta(name, follow_renames=True)
        dates[name] = getattr(meta, "release_date", None) if meta is not None else None
    return pd.to_datetime(pd.Series(dates, dtype=object), errors="coerce")
