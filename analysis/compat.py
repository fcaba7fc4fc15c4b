"""Every use of mteb's and submitit's private API, in one place.

mteb does not promise stability for underscore names, nor submitit for what its
top-level package does not export. Each function here wraps one of
them, falls back to a public (slower) route where one exists, and has a test in
``tests/test_compat.py`` that fails loudly when an mteb upgrade changes the private
name or its behaviour, so the breakage shows up in CI instead of as wrong numbers. The
one patch of a public mteb method (a local task's ``load_data``) lives here too, and so
does the package's one look-up of mteb's model registry (:func:`registered_meta`).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def task_registry() -> Mapping[str, Any]:
    """Mteb's task registry: task name -> task class (``mteb.get_tasks._TASKS_REGISTRY``).

    Reading the registry is instant; the public ``mteb.get_tasks()`` instantiates every
    task (seconds). Falls back to the public route when the private name is gone.
    """
    try:
        from mteb.get_tasks import _TASKS_REGISTRY
    except ImportError:  # pragma: no cover - exercised only by a changed mteb
        import mteb

        return {t.metadata.name: type(t) for t in mteb.get_tasks(exclude_superseded=False)}
    return _TASKS_REGISTRY


def model_name_and_revision_from_folder(folder: str | Path) -> tuple[str, str, str | None, Any]:
    """``(model name, revision, experiment, ModelMeta)`` of a results folder, as mteb reads it.

    Wraps ``ResultCache._get_model_name_and_revision_from_path``: mteb reads
    ``model_meta.json`` and falls back to the folder names. The loader must agree with
    ``ResultCache.load_results`` on which model and revision a file belongs to, so it
    uses mteb's own rule.
    """
    from mteb import ResultCache

    identity = ResultCache._get_model_name_and_revision_from_path(Path(folder))
    if identity is None:
        raise ValueError(f"mteb reads no model identity from {folder}")
    return identity


def registered_meta(name: str, *, follow_renames: bool = False) -> Any:
    """The ``mteb.ModelMeta`` mteb registers for ``name``, or None; never contacts the hub.

    The one model-registry look-up of the package. Reads the dict ``mteb.get_model_meta``
    reads (``mteb.models.model_implementations.MODEL_REGISTRY``) without its hub fallback
    and without raising for an unknown name.

    Args:
        name: A model name such as ``sentence-transformers/all-MiniLM-L6-v2``.
        follow_renames: Also accept a name mteb renamed (``get_model_meta._MODEL_RENAMES``)
            and return the entry under its new name, as ``mteb.get_model_meta`` does.
    """
    from mteb.models.model_implementations import MODEL_REGISTRY

    if follow_renames:
        from mteb.models.get_model_meta import _MODEL_RENAMES

        name = _MODEL_RENAMES.get(name, name)
    return MODEL_REGISTRY.get(name)


def registered_model_names() -> frozenset[str]:
    """Every model name mteb registers (the names ``mteb.get_model_metas()`` returns)."""
    from mteb.models.model_implementations import MODEL_REGISTRY

    return frozenset(name for name, meta in MODEL_REGISTRY.items() if meta.name)


def create_dataloader(*args: Any, **kwargs: Any) -> Any:
    """Mteb's dataloader factory (``mteb._create_dataloaders.create_dataloader``).

    Used by the encode benchmark to time the exact batches mteb feeds a model.
    """
    from mteb._create_dataloaders import create_dataloader as _create

    return _create(*args, **kwargs)


def parse_mteb_version_min(version: str | None) -> Any:
    """The lowest mteb version of a stored ``mteb_version`` string (ranges allowed), or None.

    Wraps ``TaskResult._parse_mteb_version_min``: the fast result reader must decide
    exactly as ``TaskResult.from_disk`` does whether a file needs mteb's legacy
    conversions.
    """
    from mteb.results import TaskResult

    return TaskResult._parse_mteb_version_min(version)


def legacy_task_type(task_name: str) -> str | None:
    """The task type ``TaskResult.from_disk`` looks up for an old result file, or None.

    ``from_disk`` fixes pair-classification scores of files written before mteb
    1.12.48, finding the task in ``mteb.results.task_result.outdated_tasks`` or the
    registry (and failing for unknown names). None means "unknown name".
    """
    from mteb.results import task_result

    outdated = getattr(task_result, "outdated_tasks", {})
    task = outdated.get(task_name) or task_registry().get(task_name)
    return None if task is None else str(task.metadata.type)


# --------------------------------------------------------------------------- mteb tasks


def replace_load_data(task: Any, load: Callable[[], Any]) -> Any:
    """Make ``task`` read its data from ``load()`` instead of the hub; returns ``task``.

    Replaces the instance's ``load_data`` (mteb's ``AbsTask.load_data(self, num_proc=...,
    **kwargs)``) with one that sets ``task.dataset = load()`` and ``data_loaded``, the
    two attributes mteb's evaluation reads; ``unload_data`` (which mteb calls between
    models) resets them, and the next ``load_data`` builds the data again. mteb has no
    public hook for a task's data source, so this relies on ``mteb.evaluate`` calling
    ``task.load_data()`` on the instance and on those two attribute names
    (``tests/test_compat.py`` checks both with the installed mteb).
    """

    def load_data(self: Any, num_proc: int | None = None, **kwargs: Any) -> None:
        """Build the task's datasets from the local rows (mteb's ``load_data`` signature)."""
        if self.data_loaded:
            return
        self.dataset = load()
        self.data_loaded = True

    task.load_data = types.MethodType(load_data, task)
    return task


# --------------------------------------------------------------------------- submitit


def submitit_pickle_load(path: str | Path) -> Any:
    """Read a pickle submitit wrote (``submitit.core.utils.pickle_load``).

    A job's ``<id>_result.pkl`` holds ``(outcome, value)``: ``("success", result)`` or
    ``("error", traceback text)``. submitit's loader is not part of its top-level API.
    """
    from submitit.core.utils import pickle_load

    return pickle_load(Path(path))


def submitit_failed_job_error() -> type[Exception]:
    """The error submitit raises when ``sbatch`` rejects a submission (``FailedJobError``).

    It lives in ``submitit.core.utils``, outside submitit's top-level API.
    """
    from submitit.core.utils import FailedJobError

    return FailedJobError


# --------------------------------------------------------------------------- submission


def hf_languages_to_mteb(codes: str | list[str] | None) -> list[str] | None:
    """Model-card language codes (``en``, ``deu``, ``zh-Hans``) as mteb's ``eng-Latn`` form.

    Wraps ``mteb.languages.iso_mappings._hf_langs_to_iso_lang_scripts``, the conversion
    ``ModelMeta.from_hub`` applies to a hub model card's ``language`` field, so a
    registry entry derived from a local folder says what mteb would derive from the hub.
    Returns None when no code converts.
    """
    from mteb.languages.iso_mappings import _hf_langs_to_iso_lang_scripts

    return _hf_langs_to_iso_lang_scripts(codes)


def unsubmitted_result_files(cache: Any, models: list[Any]) -> dict[Any, list[Path]]:
    """The result files ``ResultCache.submit_results`` would copy: ``{ModelMeta: [paths]}``.

    Wraps ``ResultCache._get_unsubmitted_results`` (files with a (split, subset) the
    results repository in ``cache.remote_repo_path`` does not have yet, on the same
    dataset revision), so the pre-flight checks exactly what mteb is about to commit.
    """
    return dict(cache._get_unsubmitted_results(models))


def checkout_result_cache(cache_path: str | Path) -> Any:
    """An ``mteb.ResultCache`` whose ``remote/`` is used as it is: never fetched, never reset.

    ``ResultCache.submit_results`` first calls ``self.download_from_remote()``, which for
    an existing ``remote/`` requires its origin to be the GitHub URL, runs ``git fetch``
    (network) and ``git reset --hard origin/HEAD`` (which would discard the user's
    checkout state). A submission made from the user's own checkout must do neither, so
    this subclass makes ``download_from_remote`` only check that ``remote/`` exists; the
    rest of ``submit_results`` (branch, copy, commit, pull request) is mteb's.
    """
    from mteb import ResultCache

    class _CheckoutResultCache(ResultCache):
        def download_from_remote(self, *args: Any, **kwargs: Any) -> Path:
            if not self.remote_repo_path.is_dir():
                raise FileNotFoundError(
                    f"no results repository checkout at {self.remote_repo_path}"
                )
            return self.remote_repo_path

    return _CheckoutResultCache(cache_path)
