"""CI's checks of a change against main: removed splits or languages, moved scores, file sizes.

The part of :mod:`.checks` that compares each changed file with its version at the base
commit (the merge-base of main and HEAD), as embeddings-benchmark/results'
``test_no_splits_are_removed``, ``test_no_languages_are_removed``,
``test_result_diffs_within_threshold`` and the ``check_file_sizes`` workflow do.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .checks import MAX_FILE_BYTES, META, SCORE_EPSILON, Failure, load_json, read_meta


def _languages(data: dict[str, Any]) -> dict[tuple[str, str], set[str]]:
    langs: dict[tuple[str, str], set[str]] = defaultdict(set)
    for split, results in (data.get("scores") or {}).items():
        if isinstance(results, list):
            for entry in results:
                if isinstance(entry, dict) and isinstance(entry.get("languages"), list):
                    langs[(split, entry.get("hf_subset", ""))].update(entry["languages"])
    return langs


def _subsets(data: dict[str, Any]) -> dict[str, set[str]]:
    return {
        split: {str(entry.get("hf_subset")) for entry in results if isinstance(entry, dict)}
        for split, results in (data.get("scores") or {}).items()
        if isinstance(results, list)
    }


def _main_scores(data: dict[str, Any]) -> dict[tuple[str, str], float]:
    from mteb import TaskResult

    try:
        result = TaskResult.from_dict(data).only_main_score()
    except Exception:  # CI skips what mteb cannot read; result-unreadable reports it
        return {}
    scores = {}
    for split, entries in result.scores.items():
        for entry in entries:
            subset, value = entry.get("hf_subset"), entry.get("main_score")
            if subset is None or value is None or value != value:
                continue
            value = float(value)
            scores[(split, subset)] = value / 100 if value > 1 else value
    return scores


def check_changes(
    root: Path, changed: Iterable[str], old_text: dict[str, str | None]
) -> list[Failure]:
    """CI's checks of a change against main: removed splits, languages, moved scores, sizes.

    Args:
        root: The top folder of the (possibly staged) checkout: the new files.
        changed: Changed paths (relative), deleted ones included.
        old_text: The text of each changed JSON file at the base commit (None: new file).

    Returns:
        The failures.
    """
    failures: list[Failure] = []
    for rel in sorted(changed):
        path = root / rel
        if not path.is_file():
            continue
        if path.stat().st_size > MAX_FILE_BYTES:
            failures.append(
                Failure(
                    "file-size",
                    rel,
                    f"is {path.stat().st_size:,} bytes, above CI's limit of {MAX_FILE_BYTES:,}",
                    "shrink it (the results repository's `make pre-push` runs its "
                    "reduce_large_json_files.py) or leave per-sample fields out",
                )
            )
        if not rel.endswith(".json") or path.name == META:
            continue
        failures += _against_main(root, rel, old_text.get(rel))
    return failures


def _against_main(root: Path, rel: str, old: str | None) -> list[Failure]:
    from mteb import TaskResult

    path = root / rel
    new, error = load_json(path)
    if error is not None or not isinstance(new, dict):
        return []  # reported per folder (result-unreadable)
    failures = []
    if rel.startswith("results/"):
        try:
            TaskResult.from_disk(path)
        except Exception as err:
            failures.append(
                Failure(
                    "result-unreadable",
                    rel,
                    f"mteb cannot read it ({type(err).__name__}: {err})",
                    "rewrite the file from the run (mteb writes it); do not edit it by hand",
                )
            )
    if not old:
        return failures
    try:
        before = json.loads(old)
    except json.JSONDecodeError:
        return failures
    removed = {
        s: sorted(map(str, subs - _subsets(new).get(s, set())))
        for s, subs in _subsets(before).items()
    }
    removed = {s: v for s, v in removed.items() if v}
    if removed:
        failures.append(
            Failure(
                "split-removed",
                rel,
                f"removes splits/subsets that main has: {removed}",
                "keep main's scores and add the new ones (mteb's submit_results merges; never "
                "replace a result file by a smaller one)",
            )
        )
    now = _languages(new)
    lost = {
        f"{split}/{subset}": sorted(langs - now.get((split, subset), set()))
        for (split, subset), langs in _languages(before).items()
        if langs - now.get((split, subset), set())
    }
    if lost:
        failures.append(
            Failure(
                "language-removed",
                rel,
                f"removes languages that main has: {lost}",
                "keep main's languages for every split/subset",
            )
        )
    failures += _moved_scores(root, rel, before, new)
    return failures


def _moved_scores(
    root: Path, rel: str, before: dict[str, Any], new: dict[str, Any]
) -> list[Failure]:
    meta, _ = read_meta((root / rel).parent / META)
    if meta is None:
        return []  # CI compares only files beside a readable model_meta.json
    old_scores, new_scores = _main_scores(before), _main_scores(new)
    if not old_scores or not new_scores:
        return []
    moved = {
        key: (old_scores[key], value)
        for key, value in new_scores.items()
        if key in old_scores and abs(value - old_scores[key]) > SCORE_EPSILON
    }
    if not moved:
        return []
    shown = "; ".join(
        f"{s}/{sub}: {a:.5f} -> {b:.5f}" for (s, sub), (a, b) in sorted(moved.items())
    )
    return [
        Failure(
            "main-score-moved",
            rel,
            f"changes main_score that main publishes by more than {SCORE_EPSILON}: {shown}",
            "do not overwrite published scores: rerun with the published model and dataset "
            "revisions, or submit under the new model revision and explain the change in the PR",
        )
    ]
