"""What a local model folder says about itself: the ModelMeta fields derivable from its files.

Reads only files (no model is loaded, nothing is fetched): safetensors headers for the parameter
counts and memory, ``config.json`` / sentence-transformers configs / the tokenizer for dimensions
and token limits, the model card (``README.md`` front matter) for languages and licence, git for
revision and date. Each value comes with the place it was read from, so the generated registry entry
can say where every number came from. The rules follow ``mteb.ModelMeta.from_hub`` where mteb has
one (parameters from the safetensors tensors, memory from their dtypes, embedding parameters as
vocabulary x hidden size, languages from the card).
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...core import compat
from ...core.compat import registered_meta
from ...core.errors import ModelLoadError
from ..models import HUB_ID, MODULE_PREFIX, detect_model_kind, model_source
from . import gitrepo

_MB = 1024**2
_DTYPE_BYTES = {
    "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1,
    "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1,
}  # fmt: skip
_FLOAT_DTYPES = frozenset({"F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2"})
_WEIGHT_OR_CONFIG = frozenset({".safetensors", ".bin", ".json", ".npy", ".onnx"})
#: Records a field: ``put(name, value, where it was read from)``.
Put = Callable[[str, Any, str], None]


@dataclass(frozen=True)
class Derived:
    """A derived field value and where it was read from."""

    value: Any
    source: str


@dataclass(frozen=True)
class FolderFacts:
    """The ModelMeta fields a model folder determines.

    Attributes:
        folder: The model folder.
        kind: ``"model2vec"`` or ``"sentence-transformers"``.
        fields: ModelMeta field name -> :class:`Derived` (only fields the folder determines).
        hints: Things the author should know for the fields left to them (e.g. what the
            card says about the licence).
    """

    folder: Path
    kind: str
    fields: dict[str, Derived] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)

    def value(self, name: str, default: Any = None) -> Any:
        """The derived value of field ``name`` (``default`` when not derivable)."""
        derived = self.fields.get(name)
        return default if derived is None else derived.value


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object file, or ``{}`` when absent or not an object."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def card_data(folder: Path) -> dict[str, Any]:
    """The YAML front matter of ``folder/README.md`` (the hub model card's metadata), or ``{}``."""
    readme = folder / "README.md"
    if not readme.is_file():
        return {}
    from huggingface_hub import ModelCard

    try:
        data = ModelCard.load(readme).data.to_dict()
    except Exception:  # a card without or with broken front matter says nothing
        return {}
    return data if isinstance(data, dict) else {}


def safetensors_tensors(folder: Path) -> Iterator[tuple[str, str, list[int]]]:
    """``(file/tensor name, dtype, shape)`` of every tensor in the folder's safetensors files.

    Reads only each file's header (8-byte length, then JSON), never the weights.
    """
    for path in sorted(folder.rglob("*.safetensors")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part in {"onnx", "openvino"} for part in relative.parts):
            continue
        with path.open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(length))
        for name, info in header.items():
            if name != "__metadata__":
                yield f"{relative.as_posix()}:{name}", str(info["dtype"]), list(info["shape"])


def derive(folder: str | Path) -> FolderFacts:
    """Every ModelMeta field the folder, its configs and tokenizer determine.

    Raises:
        ModelLoadError: The folder is not a model folder.
    """
    folder = Path(folder).resolve()
    kind = detect_model_kind(folder)
    config, card = read_json(folder / "config.json"), card_data(folder)
    facts = FolderFacts(folder, kind)

    def put(name: str, value: Any, source: str) -> None:
        facts.fields[name] = Derived(value, source)

    _weights(folder, kind, config, put)
    _dimensions(folder, kind, config, put)
    _languages(folder, config, card, put)
    _revision_and_date(folder, put)
    _software(folder, kind, put)
    base = _base_model(config, card)
    if base is not None:
        put("adapted_from", base.value, base.source)
    if card.get("license"):
        note = " (model2vec's card template fills in 'mit')" if kind == "model2vec" else ""
        facts.hints["license"] = f"README.md front matter says {card['license']!r}{note}"
    return facts


def _weights(folder: Path, kind: str, config: dict[str, Any], put: Put) -> None:
    tensors = list(safetensors_tensors(folder))
    if not tensors:
        return
    source = "the safetensors headers"
    params = sum(math.prod(shape) for _, dtype, shape in tensors if dtype in _FLOAT_DTYPES)
    nbytes = sum(math.prod(shape) * _DTYPE_BYTES.get(dtype, 4) for _, dtype, shape in tensors)
    put("n_parameters", int(params), f"{source} (floating-point tensors)")
    put("memory_usage_mb", round(nbytes / _MB), f"{source} (bytes by dtype, as mteb)")
    if kind == "model2vec":
        embedding = [math.prod(s) for n, _, s in tensors if n.endswith(":embeddings")]
        if embedding:
            put("n_embedding_parameters", int(embedding[0]), "the embeddings tensor")
        return
    vocab, hidden = config.get("vocab_size"), config.get("hidden_size") or config.get("hidden_dim")
    if vocab and hidden:
        put("n_embedding_parameters", int(vocab * hidden), "config.json vocab_size x hidden_size")


def _dimensions(folder: Path, kind: str, config: dict[str, Any], put: Put) -> None:
    if kind == "model2vec":
        shapes = [s for n, _, s in safetensors_tensors(folder) if n.endswith(":embeddings")]
        if shapes:
            put("embed_dim", int(shapes[0][-1]), "the embeddings tensor's width")
        elif config.get("hidden_dim"):
            put("embed_dim", int(config["hidden_dim"]), "config.json hidden_dim")
        put("max_tokens", float("inf"), "the model type (a static model has no token limit)")
        return
    dim = _st_output_dim(folder)
    if dim is not None:
        put("embed_dim", dim.value, dim.source)
    elif config.get("hidden_size"):
        put("embed_dim", int(config["hidden_size"]), "config.json hidden_size")
    limit = _max_tokens(folder, config)
    if limit is not None:
        put("max_tokens", limit.value, limit.source)


def _st_output_dim(folder: Path) -> Derived | None:
    listed = folder / "modules.json"
    modules = json.loads(listed.read_text()) if listed.is_file() else []
    dim = None
    for module in modules if isinstance(modules, list) else []:
        kind, path = str(module.get("type", "")), folder / str(module.get("path", ""))
        module_config = read_json(path / "config.json")
        for suffix, key in ((".Dense", "out_features"), (".Pooling", "word_embedding_dimension")):
            if kind.endswith(suffix) and module_config.get(key):
                dim = Derived(int(module_config[key]), f"{path.name}/config.json {key}")
    return dim


def _max_tokens(folder: Path, config: dict[str, Any]) -> Derived | None:
    sbert = read_json(folder / "sentence_bert_config.json")
    if sbert.get("max_seq_length"):
        return Derived(int(sbert["max_seq_length"]), "sentence_bert_config.json max_seq_length")
    limit = read_json(folder / "tokenizer_config.json").get("model_max_length")
    if isinstance(limit, int | float) and 0 < limit < 1e6:
        return Derived(int(limit), "tokenizer_config.json model_max_length")
    if config.get("max_position_embeddings"):
        return Derived(
            int(config["max_position_embeddings"]), "config.json max_position_embeddings"
        )
    return None


def _languages(folder: Path, config: dict[str, Any], card: dict[str, Any], put: Put) -> None:
    candidates: list[tuple[Any, str]] = [
        (card.get("language"), "README.md front matter 'language'"),
        (config.get("language"), "config.json 'language'"),
    ]
    base = _local_base_folder(config, card, folder)
    if base is not None:
        candidates.append(
            (card_data(base).get("language"), f"the base model's card ({base}/README.md)")
        )
    for codes, source in candidates:
        languages = compat.hf_languages_to_mteb(codes) if codes else None
        if languages:
            put("languages", sorted(languages), source)
            return
    hub_base = _base_model(config, card)
    if hub_base is not None:
        registered = registered_meta(hub_base.value)
        if registered is not None and registered.languages:
            put("languages", list(registered.languages), f"mteb's entry of {hub_base.value}")


def _local_base_folder(config: dict[str, Any], card: dict[str, Any], folder: Path) -> Path | None:
    for key in ("base_model_name", "tokenizer_name"):
        value = _installed_folder(config.get(key))
        if isinstance(value, str) and Path(value).is_dir() and Path(value).resolve() != folder:
            return Path(value).resolve()
    return None


def _installed_folder(value: Any) -> Any:
    """A config value with ``module:<package>`` (a student's teacher) as its folder, or None."""
    if isinstance(value, str) and value.startswith(MODULE_PREFIX):
        try:
            return model_source(value)
        except ModelLoadError:
            return None
    return value


def _base_model(config: dict[str, Any], card: dict[str, Any]) -> Derived | None:
    for value, source in (
        (config.get("base_model_name"), "config.json base_model_name"),
        (config.get("tokenizer_name"), "config.json tokenizer_name"),
        (card.get("base_model"), "README.md front matter base_model"),
    ):
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, str) and HUB_ID.match(value) and not Path(value).exists():
            return Derived(value, source)
    return None


def _revision_and_date(folder: Path, put: Put) -> None:
    commit = gitrepo.folder_commit(folder)
    if commit:
        put("revision", commit, "the folder's git HEAD")
    elif folder.parent.name == "snapshots" and re.fullmatch("[0-9a-f]{40}", folder.name):
        put("revision", folder.name, "the Hugging Face cache snapshot folder's name")
    date = gitrepo.first_commit_date(folder)
    if date:
        put("release_date", date, "the first commit of the folder's git history")
        return
    files = [p for p in folder.rglob("*") if p.is_file() and p.suffix in _WEIGHT_OR_CONFIG]
    if files:
        newest = max(path.stat().st_mtime for path in files)
        day = datetime.fromtimestamp(newest, tz=UTC).date().isoformat()
        put("release_date", day, "the newest weight/config file's date (set the hub release date)")


def _software(folder: Path, kind: str, put: Put) -> None:
    has_modules = (folder / "modules.json").is_file()
    frameworks = ["NumPy"] if kind == "model2vec" else ["Sentence Transformers", "PyTorch"]
    if kind == "model2vec" and has_modules:
        frameworks.append("Sentence Transformers")
    if any(folder.rglob("*.safetensors")):
        frameworks.append("safetensors")
    if (folder / "onnx").is_dir() or any(folder.glob("*.onnx")):
        frameworks.append("ONNX")
    if (folder / "openvino").is_dir():
        frameworks.append("OpenVINO")
    if kind != "model2vec" and read_json(folder / "config.json").get("architectures"):
        frameworks.append("Transformers")
    put("framework", frameworks, "the folder's files")
    st_config = read_json(folder / "config_sentence_transformers.json")
    similarity = st_config.get("similarity_fn_name") or "cosine"
    put("similarity_fn_name", str(similarity), "config_sentence_transformers.json (default cosine)")
    prompts = st_config.get("prompts") or {}
    uses = any(str(v).strip() for v in prompts.values()) if isinstance(prompts, dict) else False
    put("use_instructions", bool(uses), "config_sentence_transformers.json prompts")
    loader = "SentenceTransformerEncoderWrapper" if has_modules or kind != "model2vec" else None
    if loader:
        put("loader", loader, "modules.json (sentence-transformers loads the folder)")
