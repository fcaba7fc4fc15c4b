"""Where a model's result, prediction and lock files live: the one owner of the layout.

mteb files a model's result of a task under its cache folder as
``results/<org>__<name>/<revision>/<Task>.json``, and for a model loaded with experiment
keyword arguments one level deeper, ``.../<revision>/experiments/<experiment>/<Task>.json``
(``ResultCache.get_task_result_path``; ``tests/core/test_layout.py`` compares this module with
the installed mteb). The package adds two trees of its own with the same levels below
them: ``predictions/`` (retrieval rankings, ``<Task>_predictions.json``) and ``.locks/``
(one lock file per task, ``<Task>.lock``).

Every module that needs one of these paths asks :class:`ModelFolder`; no other module
joins ``model_folder_name`` or ``experiments`` into a path (``tests/core/test_layout.py``
fails for one that does). Nothing here imports mteb: a ``ModelMeta`` is read by its
``name``, ``revision`` and ``experiment_name`` attributes. Here too, as light path rules
that a plan's status reads without mteb: a local folder's revision level
(:func:`content_revision`) and where a corrupt result is set aside (:func:`corrupt_path`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import ModelLoadError, model_folder_name

RESULTS = "results"
PREDICTIONS = "predictions"
LOCKS = ".locks"
EXPERIMENTS = "experiments"
#: Appended to a result file that does not parse when it is moved aside.
CORRUPT_SUFFIX = ".corrupt"


def corrupt_path(path: Path) -> Path:
    """Where a result file that does not parse is set aside: ``<Task>.json.corrupt``.

    Examples:
        >>> corrupt_path(Path("results/a__b/1/SciFact.json")).name
        'SciFact.json.corrupt'
    """
    return path.with_name(path.name + CORRUPT_SUFFIX)


@dataclass(frozen=True)
class ModelFolder:
    """The folder levels of one model revision (and experiment) in a results folder.

    Attributes:
        name: The model name results are filed under (``org/name``).
        revision: The revision results are filed under.
        experiment: mteb's experiment name (``ModelMeta.experiment_name``), or None.
    """

    name: str
    revision: str
    experiment: str | None = None

    @classmethod
    def of(cls, meta: Any) -> ModelFolder:
        """The folder of an ``mteb.ModelMeta`` (its name, revision and experiment name)."""
        return cls(str(meta.name), str(meta.revision), meta.experiment_name or None)

    @property
    def relative(self) -> PurePosixPath:
        """``<org>__<name>/<revision>[/experiments/<experiment>]``, below each tree."""
        folder = PurePosixPath(model_folder_name(self.name), self.revision)
        return folder / EXPERIMENTS / self.experiment if self.experiment else folder

    def results_folder(self, results_dir: str | Path) -> Path:
        """``<results_dir>/results/<relative>``: the result files and ``model_meta.json``."""
        return Path(results_dir) / RESULTS / self.relative

    def result_file(self, results_dir: str | Path, task: str) -> Path:
        """``<results_dir>/results/<relative>/<Task>.json``."""
        return self.results_folder(results_dir) / f"{task}.json"

    def predictions_file(self, results_dir: str | Path, task: str) -> Path:
        """``<results_dir>/predictions/<relative>/<Task>_predictions.json``."""
        return Path(results_dir) / PREDICTIONS / self.relative / f"{task}_predictions.json"

    def lock_file(self, results_dir: str | Path, what: str) -> Path:
        """``<results_dir>/.locks/<relative>/<what>.lock`` (``what``: a task, or a shared file)."""
        return Path(results_dir) / LOCKS / self.relative / f"{what}.lock"


#: Revision prefix of a revision computed from a local folder's content.
LOCAL_REVISION_PREFIX = "local-"

# Files that define a model: weights, configs, tokenizer/vocabulary. README, licences,
# .gitattributes and the like do not change the embeddings and are left out of the hash.
_CONTENT_SUFFIXES = frozenset(
    {".safetensors", ".bin", ".pt", ".pth", ".onnx", ".npy", ".json", ".txt", ".model"}
)


def content_revision(folder: str | Path) -> str:
    """A revision derived from the content of a model folder: ``"local-"`` + 32 hex digits.

    SHA-256 of the relative path and bytes of every weight, config and tokenizer file
    (suffixes ``.safetensors .bin .pt .pth .onnx .npy .json .txt .model``), in sorted order:
    any change to the model changes it, a copy keeps it.

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
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if path.is_file() and path.suffix.lower() in _CONTENT_SUFFIXES:
            yield path
