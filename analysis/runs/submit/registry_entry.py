"""The ``ModelMeta`` entry for mteb's model registry, generated as a Python file.

The results repository accepts results only for models mteb implements, so a model mteb
does not know needs a pull request to mteb first, adding a ``ModelMeta`` to
``mteb/models/model_implementations/``. :func:`write_entry` writes that entry with every
field the model folder determines (see :mod:`.folder`), each with a comment saying where
it was read from, and ``TODO(author)`` markers on the fields only the author can fill:
licence, training data, training code. The file imports and builds a valid
``mteb.models.ModelMeta`` as it is (tested), so it can be checked before it is pasted.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ...core.io import atomic_write_text
from .folder import Derived, FolderFacts

MTEB_ADDING_A_MODEL = "https://embeddings-benchmark.github.io/mteb/contributing/adding_a_model/"
TODO = "TODO(author)"


def variable_name(name: str) -> str:
    """A Python identifier for the entry, mteb-style: ``my-org/Static-M2V`` -> ``static_m2v``."""
    ident = re.sub(r"\W+", "_", name.split("/")[-1].lower()).strip("_") or "model"
    return f"model_{ident}" if ident[0].isdigit() else ident


class _Raw:
    """Source code written as is (a name, not a value)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _code(value: Any) -> str:
    if isinstance(value, _Raw):
        return value.text
    if isinstance(value, float) and math.isinf(value):
        return "np.inf"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a valid Python literal, double quotes
    if isinstance(value, list):
        return "[" + ", ".join(_code(v) for v in value) + "]"
    return repr(value)


def _line(field: str, value: Any, comment: str = "") -> str:
    text = f"    {field}={_code(value)},"
    return f"{text}  # {comment}" if comment else text


def render_entry(name: str, revision: str | None, facts: FolderFacts, *, mteb_version: str) -> str:
    """The Python source of the registry entry (``revision`` None: marked TODO)."""
    get = facts.fields.get
    lines: list[str] = []

    def derived(field: str, fallback: Any = None, todo: str = "") -> None:
        item: Derived | None = get(field)
        if item is None:
            lines.append(_line(field, fallback, f"{TODO}: {todo}" if todo else "not derivable"))
        else:
            lines.append(_line(field, item.value, f"from {item.source}"))

    loader = get("loader")
    lines.append(
        _line("loader", _Raw("SentenceTransformerEncoderWrapper"), f"from {loader.source}")
        if loader
        else _line("loader", None, f"{TODO}: re-save the model so that it has modules.json")
    )
    lines.append(_line("name", name))
    lines.append(_line("model_type", ["dense"]))
    derived("languages", None, "ISO 639-3 + script codes, e.g. ['eng-Latn']")
    lines.append(_line("open_weights", True, "the weights must be public on the hub"))
    if revision is not None:
        lines.append(_line("revision", revision, "the hub commit the results were made with"))
    else:
        derived("revision", None, "the 40-character commit SHA of the hub repository")
    derived("release_date", None, "YYYY-MM-DD the model was published")
    for field in (
        "n_parameters",
        "n_embedding_parameters",
        "memory_usage_mb",
        "max_tokens",
        "embed_dim",
    ):
        derived(field)
    license_hint = facts.hints.get("license", "the card names no licence")
    lines.append(
        _line("license", None, f"{TODO}: the licence id, e.g. 'apache-2.0' ({license_hint})")
    )
    similarity = get("similarity_fn_name")
    enum = (similarity.value if similarity else "cosine").upper()
    lines.append(
        _line(
            "similarity_fn_name",
            _Raw(f"ScoringFunction.{enum}"),
            f"from {similarity.source}" if similarity else "default",
        )
    )
    derived("framework", [])
    lines.append(_line("reference", f"https://huggingface.co/{name}"))
    derived("use_instructions", False)
    adapted = get("adapted_from")
    lines.append(
        _line("adapted_from", adapted.value, f"from {adapted.source}")
        if adapted
        else _line(
            "adapted_from",
            None,
            "the hub id of the model it was distilled or fine-tuned from, if any",
        )
    )
    lines.append(_line("superseded_by", None))
    lines.append(
        _line(
            "training_datasets",
            None,
            f"{TODO}: set of mteb task names trained on; a distilled model lists its "
            "teacher's (e.g. the teacher entry's training_datasets)",
        )
    )
    lines.append(
        _line("public_training_code", None, f"{TODO}: URL of the training or distillation code")
    )
    lines.append(
        _line(
            "public_training_data",
            None,
            f"{TODO}: URL of the training data, or False if it is not public",
        )
    )

    uses_np = any("np.inf" in line for line in lines)
    header = [
        f'"""mteb model registry entry for {name}.',
        "",
        f"Generated by `static-rteb submit` for mteb {mteb_version}.",
        f"Source folder: {facts.folder}",
        "",
        "Paste the ModelMeta below into mteb/models/model_implementations/ (the file of the",
        "model's family, e.g. model2vec_models.py, or a new <org>_models.py) in a pull request",
        f"to https://github.com/embeddings-benchmark/mteb; see {MTEB_ADDING_A_MODEL}.",
        f"Fill in every {TODO} first: licence, training data, training code. Every other",
        "value was read from the model folder; the comment says where.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
    ]
    imports = ["import numpy as np", ""] if uses_np else []
    imports += [
        "from mteb.models.model_meta import ModelMeta, ScoringFunction",
        "from mteb.models.sentence_transformer_wrapper import SentenceTransformerEncoderWrapper",
        "",
        "",
    ]
    body = [f"{variable_name(name)} = ModelMeta(", *lines, ")", ""]
    return "\n".join(header + imports + body)


def write_entry(path: str | Path, name: str, revision: str | None, facts: FolderFacts) -> Path:
    """Write the registry entry to ``path`` (atomically) and return the path."""
    import mteb

    return atomic_write_text(
        path, render_entry(name, revision, facts, mteb_version=mteb.__version__)
    )
