"""The teachers' token embeddings, kept so that a teacher is encoded once.

Encoding every token of the teacher's vocabulary (model2vec's ``create_embeddings``) does
not depend on ``pca_dims``: a second student of the same teacher reuses it from
``<cache>/token-embeddings/<key>.npy``. The key hashes everything the encoding depends on
(weights, class, configuration, token ids, pooling, device, float64, library versions), so
the student is byte-identical either way (``tests/runs/test_distill.py``). Writes are
atomic, one process encodes a key at a time, a damaged entry is encoded again, and a cache
that cannot be written is warned about and left out.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..core.io import atomic_write_bytes
from ..core.paths import default_cache_dir
from .locks import file_lock

logger = logging.getLogger(__name__)

#: Bump when the stored arrays change meaning.
TOKEN_CACHE_VERSION = 1
#: The cache's subfolder for token embeddings.
TOKEN_CACHE_FOLDER = "token-embeddings"


def token_cache_dir(cache_dir: str | Path | None = None) -> Path:
    """Where token embeddings are kept: ``<cache_dir or default_cache_dir()>/token-embeddings``."""
    return (Path(cache_dir).expanduser() if cache_dir else default_cache_dir()) / TOKEN_CACHE_FOLDER


def token_key(keywords: dict[str, Any], float64: bool) -> str:
    """32 hex digits naming one encoding: ``create_embeddings``' keywords and the recipe."""
    import model2vec
    import torch
    import transformers

    model = keywords["model"]
    config = model.config.to_dict()
    config.pop("_name_or_path", None)
    head = {
        "version": TOKEN_CACHE_VERSION,
        "model2vec": model2vec.__version__,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "float64": bool(float64),
        "class": f"{type(model).__module__}.{type(model).__qualname__}",
        "config": config,
        "pad_token_id": keywords.get("pad_token_id"),
        "pooling": str(keywords.get("pooling")),
        "device": str(keywords.get("device")),
    }
    digest = hashlib.sha256(json.dumps(head, sort_keys=True, default=str).encode())
    for name, tensor in model.state_dict().items():
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        digest.update(f"{name}:{flat.dtype}:{tuple(tensor.shape)}".encode())
        digest.update(flat.view(torch.uint8).numpy())
    tokens = keywords["tokenized"]
    digest.update(np.asarray([len(t) for t in tokens], dtype=np.int64).tobytes())
    digest.update(np.asarray([i for t in tokens for i in t], dtype=np.int64).tobytes())
    return digest.hexdigest()[:32]


def _read(path: Path, n_tokens: int) -> np.ndarray | None:
    """The entry at ``path`` if it is a readable array with one row per token, else None."""
    if not path.is_file():
        return None
    try:
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        logger.warning("Ignoring damaged token embeddings %s (encoded again): %s", path, err)
        return None
    if array.ndim != 2 or array.shape[0] != n_tokens or array.dtype.kind != "f":
        what = f"{path} of shape {array.shape} for {n_tokens} tokens"
        logger.warning("Ignoring token embeddings %s (encoded again)", what)
        return None
    return array


def _write(path: Path, array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    atomic_write_bytes(path, buffer.getvalue())


def cached_encoding(
    folder: Path, float64: bool
) -> Callable[[Callable[..., Any], dict[str, Any]], Any]:
    """A wrapper of model2vec's ``create_embeddings``: the kept encoding, or a new one kept.

    For :func:`analysis.core.compat.token_embeddings_through`; entries live in ``folder``.
    """

    def through(create: Callable[..., Any], keywords: dict[str, Any]) -> Any:
        key = token_key(keywords, float64)
        path = folder / f"{key}.npy"
        n_tokens = len(keywords["tokenized"])
        kept = _read(path, n_tokens)
        if kept is None:
            try:
                lock = file_lock(folder / f"{key}.lock")  # makes the folder
                lock.acquire()
            except OSError as err:  # a cache that cannot be written never stops a distillation
                logger.warning("Cannot keep token embeddings in %s (%s); encoding", folder, err)
                return create(**keywords)
            try:
                kept = _read(path, n_tokens)  # another process may have made it meanwhile
                if kept is None:
                    made = create(**keywords)
                    try:
                        _write(path, np.asarray(made))
                    except OSError as err:
                        logger.warning("Cannot keep token embeddings in %s: %s", path, err)
                    return made
            finally:
                lock.release()
        logger.info("Reused the teacher's token embeddings from %s", path)
        return kept

    return through
