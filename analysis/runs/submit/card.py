"""The model card with the submitted results: mteb's ``create-model-results`` card.

mteb 2.26's ``mteb create-model-results`` command needs a registered ``--model-name`` and writes no
scores (the results table needs ``add_table_to_model_card=True``, which it does not expose), so
:func:`write_card` calls the method it calls, ``ModelMeta.push_model_card_to_hub`` (never pushing),
with the table switched on for a benchmark of the submitted tasks.
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
    """Write mteb's model card for ``meta`` with a results table of ``tasks``; returns its path.

    ``cache_dir`` is an ``mteb.ResultCache`` folder holding the results; the card is written
    atomically to ``output``, to paste at the top of the model's README.md on the hub.
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
