"""checked_per_query_ndcg: per-query nDCG@10 checked against mteb's rounded mean."""

from __future__ import annotations

import json
import math

import pytest

from analysis.runs.retrieval_metrics import checked_per_query_ndcg

# q1 ranks its relevant document first (nDCG 1); q2 ranks it second (nDCG 1/log2(3))
PREDICTIONS = {"default": {"test": {"q1": {"d1": 0.9, "d2": 0.8}, "q2": {"d1": 0.9, "d2": 0.8}}}}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}
MEAN = (1.0 + 1.0 / math.log2(3)) / 2  # 0.81546487...


def _files(tmp_path, reported):
    preds = tmp_path / "T_predictions.json"
    preds.write_text(json.dumps(PREDICTIONS))
    result = tmp_path / "T.json"
    scores = {"test": [{"hf_subset": "default", "ndcg_at_10": reported, "main_score": reported}]}
    result.write_text(json.dumps({"scores": scores}))
    return preds, result


def test_hand_computed_values_and_mteb_rounding(tmp_path):
    preds, result = _files(tmp_path, 0.81546)
    checked = checked_per_query_ndcg(preds, QRELS, result)
    assert checked.per_query.to_dict() == pytest.approx({"q1": 1.0, "q2": 1 / math.log2(3)})
    assert checked.mean == pytest.approx(MEAN) and checked.reported == 0.81546


def test_a_mismatch_is_an_error(tmp_path):
    preds, result = _files(tmp_path, 0.81547)
    with pytest.raises(ValueError, match=r"does not round to mteb's 0\.81547"):
        checked_per_query_ndcg(preds, QRELS, result)


def test_missing_metric_is_named(tmp_path):
    preds, result = _files(tmp_path, 0.81546)
    with pytest.raises(KeyError, match="ndcg_at_5"):
        checked_per_query_ndcg(preds, QRELS, result, k=5)
