"""The fixes this project would send to mteb, as unified diffs against the installed mteb.

Each patch is a list of edits (file, old text, new text) to mteb's own files. The script
reads the installed mteb (it must be :data:`PATCHED_MTEB`, the version the edits were
written for; each old text must occur exactly once), applies the edits and writes one
unified diff per patch to ``docs/mteb-patches/<name>.diff``, with ``a/mteb/...`` and
``b/mteb/...`` paths: ``git apply docs/mteb-patches/<name>.diff`` in a checkout of mteb
at v2.26.24. docs/development.md ("Patches to send to mteb") shows and explains them;
tests/project/test_mteb_patches.py checks that the files are this script's output and
that they apply to the installed mteb.

* ``classification-labels``: what :func:`analysis.core.compat.speed_up_classification`
  does at run time, as the change to mteb itself: read each label (and text) column of a
  ``datasets`` dataset once (``column[:]``) instead of row by row through the Column.
* ``loader-speed``: what makes ``ResultCache.load_results(...).to_dataframe()`` slow
  (benchmarks/results/loader.md measures it with and without the patch).

    python tools/mteb_patches.py            # (re)write docs/mteb-patches/*.diff
    python tools/mteb_patches.py --check    # exit 1 if a file differs from the output
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "mteb-patches"
#: The mteb the edits were written for (pyproject.toml pins it).
PATCHED_MTEB = "2.26.24"

_READ_ONCE = "  # read at once, not row by row"
_ADAPTED_FROM_OLD = """\
        if self.adapted_from is not None:
            try:
                adapted_from_model = mteb.get_model_meta(
                    self.adapted_from, fetch_from_hf=False
                )
                adapted_training_datasets = adapted_from_model.get_training_datasets()
                if adapted_training_datasets is not None:
                    training_datasets |= adapted_training_datasets
            except (ValueError, KeyError) as e:
                logger.debug(f"Could not get source model: {e} in MTEB")
"""
_ADAPTED_FROM_NEW = """\
        if self.adapted_from is not None:
            # A registry look-up: get_model_meta's KeyError for an unregistered name first
            # runs difflib over every registered name (for its message).
            from mteb.models.get_model_meta import _MODEL_RENAMES
            from mteb.models.model_implementations import MODEL_REGISTRY

            name = _MODEL_RENAMES.get(self.adapted_from, self.adapted_from)
            adapted_from_model = MODEL_REGISTRY.get(name)
            if adapted_from_model is None:
                logger.debug(f"Could not get source model: {name} in MTEB")
            else:
                adapted_training_datasets = adapted_from_model.get_training_datasets()
                if adapted_training_datasets is not None:
                    training_datasets |= adapted_training_datasets
"""
_PARENTS_OLD = """\
    # Check if dataset appears as a value in SIMILAR_TASKS
    for parent, children in _SIMILAR_TASKS.items():
        if dataset in children:
            similar.add(parent)
            similar.update(_collect_similar_tasks(parent, visited))

    return similar
"""
_PARENTS_NEW = """\
    # Check if dataset appears as a value in SIMILAR_TASKS (an index built once, instead
    # of a scan of every entry for each dataset visited)
    for parent in _similar_task_parents().get(dataset, ()):
        similar.add(parent)
        similar.update(_collect_similar_tasks(parent, visited))

    return similar


@cache
def _similar_task_parents() -> dict[str, list[str]]:
    \"\"\"The parents of each task in ``_SIMILAR_TASKS`` (its inverse, in its order).\"\"\"
    from mteb.get_tasks import _SIMILAR_TASKS

    parents: dict[str, list[str]] = {}
    for parent, children in _SIMILAR_TASKS.items():
        for child in children:
            parents.setdefault(child, []).append(parent)
    return parents
"""

#: name -> [(file under the mteb package, old text, new text)]
PATCHES: dict[str, list[tuple[str, str, str]]] = {
    "classification-labels": [
        (
            "abstasks/classification.py",
            "        labels = dataset[self.label_column_name]\n",
            f"        labels = dataset[self.label_column_name][:]{_READ_ONCE}\n",
        ),
        (
            "abstasks/classification.py",
            "        y_test = eval_split[self.label_column_name]\n",
            f"        y_test = np.asarray(eval_split[self.label_column_name][:]){_READ_ONCE}\n",
        ),
        (
            "_evaluators/sklearn_evaluator.py",
            "        y_train = self.train_dataset[self.label_column_name]\n",
            f"        y_train = self.train_dataset[self.label_column_name][:]{_READ_ONCE}\n",
        ),
        (
            "abstasks/pair_classification.py",
            "            similarity_scores, data_split[self.label_column_name]\n",
            f"            similarity_scores, data_split[self.label_column_name][:]{_READ_ONCE}\n",
        ),
        (
            "abstasks/multilabel_classification.py",
            "                train_split[self.label_column_name], self.samples_per_label, None\n",
            "                train_split[self.label_column_name][:],"
            f"{_READ_ONCE}\n                self.samples_per_label,\n                None,\n",
        ),
        (
            "_create_dataloaders.py",
            "            dataset[_input_column],\n",
            f"            dataset[_input_column][:],{_READ_ONCE}\n",
        ),
    ],
    "loader-speed": [
        (
            "models/model_meta.py",
            "from functools import partial\n",
            "from functools import cache, partial\n",
        ),
        (
            "models/model_meta.py",
            '        """Returns all training datasets of the model including similar tasks."""\n'
            "        import mteb\n\n",
            '        """Returns all training datasets of the model including similar tasks."""\n',
        ),
        ("models/model_meta.py", _ADAPTED_FROM_OLD, _ADAPTED_FROM_NEW),
        ("models/model_meta.py", _PARENTS_OLD, _PARENTS_NEW),
        (
            "results/task_result.py",
            "from pydantic import BaseModel, field_validator, model_validator\n",
            "from pydantic import BaseModel, ValidationInfo, field_validator, model_validator\n",
        ),
        (
            "results/task_result.py",
            "        cls, v: dict[SplitName, list[ScoresDict]]\n"
            "    ) -> dict[SplitName, list[ScoresDict]]:\n",
            "        cls, v: dict[SplitName, list[ScoresDict]], info: ValidationInfo\n"
            "    ) -> dict[SplitName, list[ScoresDict]]:\n",
        ),
        (
            "results/task_result.py",
            "                cls._validate_scores_dict(hf_subset_score)\n",
            '                cls._validate_scores_dict(hf_subset_score, info.mode == "json")\n',
        ),
        (
            "results/task_result.py",
            "    def _validate_scores_dict(scores: ScoresDict) -> None:\n",
            "    def _validate_scores_dict(scores: ScoresDict, from_json: bool = False) -> None:\n",
        ),
        (
            "results/task_result.py",
            "        # check that it is json serializable\n",
            "        if from_json:  # parsed from JSON text (from_disk): serializable already\n"
            "            return\n"
            "        # check that it is json serializable\n",
        ),
    ],
}


def mteb_folder() -> Path:
    """The installed mteb package, checked to be :data:`PATCHED_MTEB`."""
    import importlib.metadata
    import importlib.util

    version = importlib.metadata.version("mteb")
    if version != PATCHED_MTEB:
        raise SystemExit(
            f"the edits are written for mteb {PATCHED_MTEB}; mteb {version} is installed"
        )
    spec = importlib.util.find_spec("mteb")  # without importing mteb
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


def patched_files(name: str, folder: Path | None = None) -> dict[str, tuple[str, str]]:
    """``{file: (installed text, patched text)}`` of one patch.

    Raises:
        ValueError: An old text does not occur exactly once in the installed file.
    """
    folder = folder or mteb_folder()
    files: dict[str, tuple[str, str]] = {}
    for rel, old, new in PATCHES[name]:
        original, text = files.get(rel) or ((folder / rel).read_text(encoding="utf-8"),) * 2
        if text.count(old) != 1:
            raise ValueError(f"{rel}: the text to replace occurs {text.count(old)} times:\n{old}")
        files[rel] = (original, text.replace(old, new))
    return files


def unified_diff(name: str, folder: Path | None = None) -> str:
    """One patch as a unified diff, paths ``a/mteb/<file>`` and ``b/mteb/<file>``."""
    parts = []
    for rel, (before, after) in sorted(patched_files(name, folder).items()):
        parts += difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/mteb/{rel}",
            f"b/mteb/{rel}",
        )
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    stale = []
    for name in PATCHES:
        path = OUT / f"{name}.diff"
        text = unified_diff(name)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("differs from tools/mteb_patches.py's output: " + ", ".join(stale), file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
