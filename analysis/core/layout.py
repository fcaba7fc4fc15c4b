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
``name``, ``revision`` and ``experiment_name`` attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import model_folder_name

RESULTS = "results"
PREDICTIONS = "predictions"
LOCKS = ".locks"
EXPERIMENTS = "experiments"


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
