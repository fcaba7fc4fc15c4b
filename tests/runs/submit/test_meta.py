"""What a model folder says about itself, the registry entry made from it, model_meta.json, the card.

Reference values: mteb's own hand-written registry entry for all-MiniLM-L6-v2 (derived
here from the packaged model folder alone), and model2vec's loaded ``StaticModel`` for the
distilled static model.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from analysis.runs.submit.folder import derive
from analysis.runs.submit.model_meta import model_meta_json, submission_meta
from analysis.runs.submit.registry_entry import TODO, variable_name, write_entry
from tests._run_fixtures import MINILM, distilled_static_model, minilm_dir
from tests._submit_fixtures import write_result

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="session")
def static_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return distilled_static_model(tmp_path_factory)


def _registered(name: str):
    import mteb

    return mteb.get_model_meta(name, fetch_from_hf=False)


def test_minilm_folder_gives_mteb_registry_values():
    facts = derive(minilm_dir())
    registered = _registered(MINILM)
    for key in ("n_parameters", "n_embedding_parameters", "embed_dim", "max_tokens", "languages"):
        assert facts.value(key) == getattr(registered, key), key
    assert facts.value("memory_usage_mb") == registered.memory_usage_mb
    assert facts.value("similarity_fn_name") == registered.similarity_fn_name.value
    assert set(facts.value("framework")) <= set(registered.framework)
    assert facts.value("use_instructions") is False and facts.kind == "sentence-transformers"
    assert "apache-2.0" in facts.hints["license"] and registered.license == "apache-2.0"
    assert facts.fields["n_parameters"].source.startswith("the safetensors headers")


def test_distilled_folder_gives_the_static_models_values(static_model):
    from model2vec import StaticModel

    model = StaticModel.from_pretrained(str(static_model))
    facts = derive(static_model)
    rows, dim = model.embedding.shape
    assert facts.kind == "model2vec"
    assert facts.value("embed_dim") == dim == 128
    assert facts.value("n_parameters") == facts.value("n_embedding_parameters") == rows * dim
    assert facts.value("memory_usage_mb") == round(
        rows * dim * model.embedding.dtype.itemsize / 2**20
    )
    assert math.isinf(facts.value("max_tokens"))
    assert facts.value("languages") == ["eng-Latn"]  # from the base model's card (MiniLM: en)
    assert "base model" in facts.fields["languages"].source
    assert facts.value("loader") == "SentenceTransformerEncoderWrapper"  # modules.json is there
    assert "model2vec's card template" in facts.hints["license"]


def _import(path: Path):
    spec = importlib.util.spec_from_file_location(f"entry_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("revision", [SHA, None])
def test_registry_entry_imports_and_builds_a_valid_model_meta(tmp_path, static_model, revision):
    from mteb.models import ModelMeta, SentenceTransformerEncoderWrapper

    facts = derive(static_model)
    name = "static-rteb-tests/static-minilm-m2v"
    path = write_entry(tmp_path / "entry.py", name, revision, facts)
    text = path.read_text()
    meta = getattr(_import(path), variable_name(name))
    assert isinstance(meta, ModelMeta)
    assert ModelMeta.model_validate(meta.model_dump()) == meta
    assert (meta.name, meta.revision) == (name, revision)
    assert meta.loader is SentenceTransformerEncoderWrapper
    for key in (
        "languages",
        "n_parameters",
        "n_embedding_parameters",
        "memory_usage_mb",
        "embed_dim",
        "release_date",
    ):
        assert getattr(meta, key) == facts.value(key), key
    assert math.isinf(meta.max_tokens) and "max_tokens=np.inf" in text
    assert meta.similarity_fn_name.value == "cosine" and meta.open_weights is True
    assert meta.reference == f"https://huggingface.co/{name}"
    for key in ("license", "training_datasets", "public_training_code", "public_training_data"):
        assert getattr(meta, key) is None
        (line,) = [ln for ln in text.splitlines() if ln.strip().startswith(f"{key}=")]
        assert TODO in line, line
    assert (TODO in next(ln for ln in text.splitlines() if ln.strip().startswith("revision="))) == (
        revision is None
    )


def test_variable_name():
    assert variable_name("my-org/Static-M2V.v2") == "static_m2v_v2"
    assert variable_name("org/3d-model") == "model_3d_model"


def test_submission_meta_is_mteb_entry_at_the_revision():
    from mteb.models import ModelMeta

    registered = _registered(MINILM)
    same = submission_meta(MINILM, registered.revision)
    assert same is registered or same == registered
    moved = submission_meta(MINILM, SHA)
    assert moved.revision == SHA and moved.n_parameters == registered.n_parameters
    text = model_meta_json(moved)
    assert json.loads(text) == json.loads(json.dumps(moved.to_dict(), default=str))
    again = ModelMeta.model_validate_json_resolved(text)
    assert (again.name, again.revision, again.embed_dim) == (MINILM, SHA, 384)
    with pytest.raises(KeyError):
        submission_meta("static-rteb-tests/unknown", SHA)


def test_submission_meta_fills_what_mteb_leaves_empty(monkeypatch):
    from analysis.runs.submit import model_meta

    registered = _registered(MINILM)
    empty = registered.model_copy(
        update={"n_parameters": None, "languages": None, "embed_dim": 384}
    )
    monkeypatch.setattr(model_meta, "registered_meta", lambda name: empty)
    filled = model_meta.submission_meta(MINILM, registered.revision, derive(minilm_dir()))
    assert filled.n_parameters == registered.n_parameters and filled.languages == ["eng-Latn"]
    assert filled.embed_dim == 384


def test_card_is_mteb_card_with_the_submitted_scores(tmp_path):
    from analysis.runs.submit.card import write_card

    registered = _registered(MINILM)
    folder = tmp_path / "cache" / "results" / MINILM.replace("/", "__") / registered.revision
    write_result(folder, "STSBenchmark", 0.8125)
    (folder / "model_meta.json").write_text(model_meta_json(registered))
    card = write_card(
        registered, tmp_path / "cache", ["STSBenchmark"], tmp_path / "out" / "model_card.md"
    )
    text = card.read_text()
    assert text.startswith("---\ntags:\n- mteb\n---")  # mteb's card template, tagged
    assert "## Benchmark: Submitted tasks" in text
    (row,) = [ln for ln in text.splitlines() if MINILM in ln and "|" in ln]
    assert "0.8125" in row
