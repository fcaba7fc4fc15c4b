"""Per-query retrieval metrics from saved mteb predictions, for paired significance tests.

mteb reports only the mean nDCG@10 of a retrieval task. A paired test between two models needs the
score of every query: :func:`per_query_ndcg` recomputes it from the predictions mteb saves
(``<Task>_predictions.json``, written when ``prediction_folder`` is set) and the task's qrels with
the evaluator mteb uses (pytrec_eval's ``ndcg_cut``: linear gains, log2 discount, ties broken by
descending document id), on the queries that have both predictions and judgements, so the mean of
the array is mteb's nDCG@10 before mteb rounds it to 5 decimals.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytrec_eval

Predictions = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]


def per_query_ndcg(predictions: Predictions, qrels: Qrels, k: int = 10) -> pd.Series:
    """nDCG@k of every query, aligned by query id.

    Args:
        predictions: ``{query id: {document id: score}}`` (mteb's saved predictions).
        qrels: ``{query id: {document id: relevance}}``; relevance <= 0 counts as not relevant.
        k: The rank cut-off.

    Returns:
        A float Series indexed by query id (sorted), named ``ndcg_at_<k>``, holding the
        queries that have both predictions and at least one judged document.

    Raises:
        ValueError: If ``k`` is not positive or no query is shared by both inputs.

    Examples:
        Two queries, each with one relevant document (``d1``), ranked first for ``q1`` and
        second for ``q2``:

        >>> from analysis import per_query_ndcg
        >>> predictions = {"q1": {"d1": 0.9, "d2": 0.1}, "q2": {"d1": 0.2, "d2": 0.8}}
        >>> qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
        >>> per_query_ndcg(predictions, qrels).round(3).to_dict()
        {'q1': 1.0, 'q2': 0.631}
    """
    if k <= 0:
        raise ValueError(f"k must be a positive integer, got {k}.")
    shared = sorted(set(predictions) & set(qrels))
    if not shared:
        raise ValueError(
            "No query id is in both the predictions and the qrels; check that they come "
            "from the same task, split and subset."
        )
    measure = f"ndcg_cut_{k}"
    evaluator = pytrec_eval.RelevanceEvaluator(
        {query: {doc: int(rel) for doc, rel in qrels[query].items()} for query in shared},
        {f"ndcg_cut.{k}"},
    )
    run = {
        query: {doc: float(score) for doc, score in predictions[query].items()} for query in shared
    }
    scores = evaluator.evaluate(run)
    # a query with an empty ranking is absent from pytrec_eval's answer: it scores 0
    values = {query: scores.get(query, {}).get(measure, 0.0) for query in shared}
    series = pd.Series(values, name=f"ndcg_at_{k}", dtype=float)
    series.index.name = "query_id"
    return series


def load_predictions(path: str | Path, *, subset: str = "default", split: str = "test") -> dict:
    """Read one subset and split of an mteb retrieval predictions file.

    Returns:
        ``{query id: {document id: score}}``.

    Raises:
        KeyError: If the file has no such subset or split.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    try:
        return data[subset][split]
    except KeyError:
        available = {key: list(value) for key, value in data.items() if key != "mteb_model_meta"}
        raise KeyError(f"{path} has no {subset}/{split} predictions; it has {available}.") from None


def read_qrels_tsv(path: str | Path) -> dict[str, dict[str, int]]:
    """Read a BEIR qrels file (``query-id<TAB>corpus-id<TAB>score`` with a header line).

    Returns:
        ``{query id: {document id: relevance}}``.
    """
    qrels: dict[str, dict[str, int]] = {}
    with Path(path).open(encoding="utf-8") as handle:
        next(handle, None)
        for line in handle:
            if line.strip():
                query, doc, score = line.rstrip("\r\n").split("\t")
                qrels.setdefault(query, {})[doc] = int(score)
    return qrels


@dataclass(frozen=True)
class CheckedNdcg:
    """Per-query nDCG@k whose mean was checked against the score mteb reported.

    Attributes:
        per_query: nDCG@k per query (see :func:`per_query_ndcg`).
        mean: Its mean, unrounded.
        reported: mteb's ``ndcg_at_<k>`` from the result file (rounded to 5 decimals).
    """

    per_query: pd.Series
    mean: float
    reported: float


def checked_per_query_ndcg(
    predictions_file: str | Path,
    qrels: Qrels,
    result_file: str | Path,
    *,
    k: int = 10,
    subset: str = "default",
    split: str = "test",
) -> CheckedNdcg:
    """Per-query nDCG@k from saved predictions, checked against mteb's reported mean.

    mteb stores nDCG@k rounded to 5 decimals (``mteb/_evaluators/retrieval_metrics.py``),
    so the check is ``|round(mean, 5) - reported| < 1e-6``: the per-query values are
    exactly what mteb averaged, or this raises.

    Raises:
        KeyError: If the result file has no such split/subset or no ``ndcg_at_<k>``.
        ValueError: If the recomputed mean does not round to the reported score.
    """
    per_query = per_query_ndcg(
        load_predictions(predictions_file, subset=subset, split=split), qrels, k=k
    )
    scores = json.loads(Path(result_file).read_text(encoding="utf-8"))["scores"]
    entries = [e for e in scores.get(split, []) if e.get("hf_subset") == subset]
    metric = f"ndcg_at_{k}"
    if not entries or metric not in entries[0]:
        raise KeyError(f"{result_file} has no {metric} for split {split!r}, subset {subset!r}.")
    reported, mean = float(entries[0][metric]), float(per_query.mean())
    if abs(round(mean, 5) - reported) >= 1e-6:
        raise ValueError(
            f"Recomputed mean {metric} {mean:.7f} does not round to mteb's {reported} "
            f"({result_file}): the predictions and qrels do not match that result."
        )
    return CheckedNdcg(per_query, mean, reported)
