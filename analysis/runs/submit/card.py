"""The model card with the submitted results: mteb's ``create-model-results`` card.

``mteb create_meta``, which the leaderboard's submission guide still names, is gone in
mteb 2.x; ``mteb create-model-results`` replaced it. In mteb 2.26.24 that command (i)
raises a ``TypeError`` without ``--model-name`` (it looks up the name ``None``), (ii)
raises a ``KeyError`` for a model mteb's registry does not know, and (iii) ignores
``--tasks`` and writes no scores: it saves the hub's card template tagged ``mteb``,
because the results table is only added with ``add_table_to_model_card=True``, which the
command does not expose. :func:`write_card` calls the same mteb method the command calls
(``ModelMeta.push_model_card_to_hub``, never pushing) on the submission's metadata, with
the table switched on for a benchmark made of the submitted tasks.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.io import atomic_write_text

if TYPE_CHECKING:
    from mteb.models import ModelMeta


def write_card(
    meta: ModelMeta, cache_dir: str | Path, tasks: Sequence[str], output: str | Path
) -> Path:
    """Write mteb's model card for ``meta`` with a results table of ``tasks``.

    Args:
        meta: The submission's metadata (name and revision the results are filed under).
        cache_dir: An ``mteb.ResultCache`` folder holding those results.
        tasks: The submitted task names.
        output: The card's path (written atomically).

    Returns:
        The card's path. Paste its content at the top of the model's README.md on the hub
        (``--from-existing`` of ``mteb create-model-results`` merges into an existing card).
    """
    import mteb

    benchmark = mteb.Benchmark(
        name="Submitted tasks",
        tasks=mteb.get_tasks(list(tasks)),
        description="The tasks of this submission to the MTEB results repository.",
    )
    with tempfile.TemporaryDirectory(prefix="static-rteb-card-") as tmp:
        draft = Path(tmp) / "model_card.md"
        meta.push_model_card_to_hub(
            results_cache=mteb.ResultCache(cache_dir),
            output_path=draft,
            benchmarks=[benchmark],
            add_table_to_model_card=True,
            push_to_hub=False,
        )
        return atomic_write_text(output, draft.read_text(encoding="utf-8"))
