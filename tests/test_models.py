"""analysis.runs.models: loading model2vec / sentence-transformers models with a correct ModelMeta."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mteb
import numpy as np
import pytest
from _run_fixtures import MINILM, distilled_static_model, minilm_dir

from analysis.runs.models import (
    ModelLoadError,
    StaticModelEncoder,
    content_revision,
    detect_model_kind,
    load_model,
)


@pytest.fixture(scope="session")
def static_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return distilled_static_model(tmp_path_factory)


def _fake_model(folder: Path, weights: bytes = b"\x00\x01") -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "model2vec"}))
    (folder / "model.safetensors").write_bytes(weights)
    (folder / "tokenizer.json").write_text("{}")
    (folder / "README.md").write_text("a model card")
    return folder


def test_content_revision_follows_weights_not_readme_or_location(tmp_path: Path) -> None:
    first = _fake_model(tmp_path / "a")
    revision = content_revision(first)
    assert revision.startswith("local-") and len(revision) == len("local-") + 32

    copy = Path(shutil.copytree(first, tmp_path / "elsewhere" / "a"))
    (copy / "README.md").write_text("a different card")
    assert content_revision(copy) == revision

    other = _fake_model(tmp_path / "b", weights=b"\x00\x02")
    assert content_revision(other) != revision


def test_content_revision_rejects_folder_without_model_files(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("nothing here")
    with pytest.raises(ModelLoadError, match="no weight, config or tokenizer file"):
        content_revision(tmp_path)


def test_detect_model_kind(tmp_path: Path) -> None:
    assert detect_model_kind(_fake_model(tmp_path / "static")) == "model2vec"
    assert detect_model_kind(minilm_dir()) == "sentence-transformers"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelLoadError, match="not a model folder"):
        detect_model_kind(tmp_path / "empty")


def test_static_folder_gets_local_name_and_content_revision(static_model_dir: Path) -> None:
    model = load_model(static_model_dir)
    meta = model.mteb_model_meta
    assert isinstance(model, StaticModelEncoder)
    assert meta.name == f"local/{static_model_dir.name}"
    assert meta.revision == content_revision(static_model_dir)
    assert meta.embed_dim == 128
    embeddings = model.encode_texts(["a static model", "another sentence"])
    assert embeddings.dtype == np.float32 and embeddings.shape == (2, 128)


def test_two_local_models_never_share_a_revision(static_model_dir: Path, tmp_path: Path) -> None:
    altered = Path(shutil.copytree(static_model_dir, tmp_path / static_model_dir.name))
    config = json.loads((altered / "config.json").read_text())
    config["normalize"] = not config.get("normalize", True)
    (altered / "config.json").write_text(json.dumps(config))
    first, second = load_model(static_model_dir), load_model(altered)
    assert first.mteb_model_meta.name == second.mteb_model_meta.name
    assert first.mteb_model_meta.revision != second.mteb_model_meta.revision


def test_package_folder_with_registered_name_keeps_mteb_meta() -> None:
    model = load_model(minilm_dir(), name=MINILM)
    registered = mteb.get_model_meta(MINILM)
    assert model.mteb_model_meta.name == MINILM
    assert model.mteb_model_meta.revision == registered.revision
    assert model.mteb_model_meta == registered


def test_package_folder_without_name_is_local() -> None:
    meta = load_model(minilm_dir()).mteb_model_meta
    assert meta.name == "local/model"
    assert meta.revision == content_revision(minilm_dir())


def test_unregistered_name_keeps_content_revision(static_model_dir: Path) -> None:
    meta = load_model(static_model_dir, name="me/static-minilm").mteb_model_meta
    assert meta.name == "me/static-minilm"
    assert meta.revision == content_revision(static_model_dir)


def test_name_must_have_an_organisation(static_model_dir: Path) -> None:
    with pytest.raises(ModelLoadError, match="org/name"):
        load_model(static_model_dir, name="static-minilm")


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        load_model(tmp_path / "no-such-model")


def test_malformed_id_is_a_clear_error() -> None:
    with pytest.raises(
        ModelLoadError, match="neither an existing folder nor a Hugging Face hub id"
    ):
        load_model("not a model id")


@pytest.mark.parametrize("model_id", ["minishlab/potion-base-8M", "nobody-here/no-such-model-42"])
def test_hub_id_offline_asks_for_a_local_folder(
    model_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match=r"offline.*Pass a local model folder"):
        load_model(model_id)
