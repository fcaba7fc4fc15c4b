"""The ``model_meta.json`` of a submission: mteb's registered metadata, completed from the folder.

The results repository reads a revision folder's ``model_meta.json`` to know which model
and revision its results belong to, and the leaderboard shows its fields (parameters,
memory, dimensions, languages, ...). A registered model gets mteb's own entry (what the
leaderboard shows for it anyway) at the submitted revision, with any field mteb leaves
empty filled from the model folder; the file is written exactly as mteb's
``ResultCache.save_to_cache`` writes it (``ModelMeta.to_dict()``, 4-space JSON).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...core.compat import registered_meta

if TYPE_CHECKING:
    from mteb.models import ModelMeta

    from .folder import FolderFacts

#: Fields a model folder may fill in when mteb's entry leaves them empty.
FILLABLE = (
    "release_date languages n_parameters n_embedding_parameters memory_usage_mb max_tokens "
    "embed_dim similarity_fn_name use_instructions"
).split()


def submission_meta(name: str, revision: str, facts: FolderFacts | None = None) -> ModelMeta:
    """The metadata mteb registers for ``name``, at ``revision``, completed from the folder.

    Fields mteb leaves empty are filled from ``facts`` (:data:`FILLABLE`). A KeyError when
    mteb does not know ``name`` (callers refuse such models first).
    """
    registered = registered_meta(name)
    if registered is None:
        raise KeyError(name)
    updates: dict[str, Any] = {}
    if registered.revision != revision:
        updates["revision"] = revision
    if facts is not None:
        for key in FILLABLE:
            if getattr(registered, key) is None and key in facts.fields:
                updates[key] = facts.fields[key].value
    if not updates:
        return registered
    return type(registered).model_validate({**registered.model_dump(), **updates})


def model_meta_json(meta: ModelMeta) -> str:
    """``model_meta.json`` text, byte-for-byte as ``ResultCache.save_to_cache`` writes it."""
    return json.dumps(meta.to_dict(), default=str, indent=4)
