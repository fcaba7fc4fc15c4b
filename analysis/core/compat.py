"""Every use of mteb's, submitit's and model2vec's private API, in one place.

mteb does not promise stability for underscore names, nor submitit for what its top-level package
does not export. Each function here wraps one of them, falls back to a public (slower) route where
one exists, and has a test in ``tests/core/test_compat.py`` that fails loudly when an mteb upgrade
changes the private name or its behaviour, so the breakage shows up in CI instead of as wrong
numbers. The patches of mteb methods live here too (:func:`speed_up_classification`: labels and
texts read once; remove when mteb fixes it), and so does the package's one look-up of mteb's model
registry (:func:`registered_meta`), model2vec's token encoding in float64 while distilling
(:func:`float64_token_encoding`), huggingface_hub's record of a download's revision
(:func:`downloaded_revisions`), and the rules of mteb's that the fast result reader restates
(:func:`stored_as_is`, :func:`join_passes_through`), and mteb's task and benchmark names, kept
per mteb version so that a typo is refused before mteb's import (:func:`seen_names`).
``tests/core/test_compat.py`` also holds the guard that fails on any private access outside this
module.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mteb.models.abs_encoder import AbsEncoder  # noqa: F401 (compat.AbsEncoder, typed)


def __getattr__(name: str) -> Any:
    """``AbsEncoder``, mteb's base class of its encoders, imported on first use.

    ``mteb.models.abs_encoder.AbsEncoder`` (not exported by ``mteb.models``) gives an
    encoder mteb's ``similarity`` functions and prompt handling; the static model encoder
    subclasses it (``from analysis.core.compat import AbsEncoder``). Read here, at first
    use, so importing this module imports no mteb.
    """
    if name == "AbsEncoder":
        from mteb.models.abs_encoder import AbsEncoder

        return AbsEncoder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def scoring_function(name: str) -> Any:
    """Mteb's ``ScoringFunction`` member named ``name`` (``"cosine"``, ``"dot"``, ...).

    The enum ``ModelMeta.similarity_fn_name`` holds (``mteb.models.model_meta``, not
    exported); a ``ModelMeta`` updated with ``model_copy`` is not validated, so the
    member, not its string, goes in.

    Examples:
        >>> scoring_function("cosine") == "cosine"
        True
    """
    from mteb.models.model_meta import ScoringFunction

    return ScoringFunction(name)


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


def _names_file() -> Path | None:
    """The installed mteb's names as last seen: ``<cache>/mteb-names/<version>.json`` (no mteb).

    None for an mteb not installed from a package index (PEP 610's ``direct_url.json``: an
    editable install, a git checkout, a local folder or wheel), whose tasks can change under
    one version: its names are always mteb's own.
    """
    import importlib.metadata

    from .paths import default_cache_dir

    try:
        dist = importlib.metadata.distribution("mteb")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a dependency
        return None
    if dist.read_text("direct_url.json") is not None:
        return None
    return default_cache_dir() / "mteb-names" / f"{dist.version}.json"


def seen_names(kind: str) -> frozenset[str] | None:
    """The installed mteb's ``"tasks"`` or ``"benchmarks"`` names, read without importing mteb.

    Kept by :func:`task_names` and :func:`benchmark_names` per mteb version, so a mistyped
    name is refused in milliseconds instead of after mteb's import (seconds). None when not
    seen yet with this version, or unreadable.
    """
    path = _names_file()
    try:
        return frozenset(json.loads(path.read_text(encoding="utf-8"))[kind])  # type: ignore[union-attr]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _remember(kind: str, names: frozenset[str]) -> None:
    """Add ``names`` to the file :func:`seen_names` reads (atomic; a failed write is no loss)."""
    from .io import atomic_write_text

    if (path := _names_file()) is None:
        return
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    if known.get(kind) == sorted(names):  # kept already: no write
        return
    with contextlib.suppress(OSError):
        atomic_write_text(path, json.dumps({**known, kind: sorted(names)}, indent=0) + "\n")


@functools.cache
def task_names() -> frozenset[str]:
    """Every task name mteb registers (:func:`task_registry`), kept for :func:`seen_names`."""
    names = frozenset(task_registry())
    _remember("tasks", names)
    return names


@functools.cache
def benchmark_names() -> frozenset[str]:
    """Every benchmark name of ``mteb.get_benchmarks()``, kept for :func:`seen_names`."""
    import mteb

    names = frozenset(benchmark.name for benchmark in mteb.get_benchmarks())
    _remember("benchmarks", names)
    return names


def model_name_and_revision_from_folder(folder: str | Path) -> tuple[str, str, str | None, Any]:
    """``(model name, revision, experiment, ModelMeta)`` of a results folder, as mteb reads it.

    Wraps ``ResultCache._get_model_name_and_revision_from_path``: mteb reads ``model_meta.json`` and
    falls back to the folder names. The loader must agree with ``ResultCache.load_results`` on which
    model and revision a file belongs to, so it uses mteb's own rule.
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


def leaderboard_model_columns() -> Mapping[str, Mapping[str, Any]]:
    """Mteb's leaderboard columns of every registered model, as its table shows them.

    Wraps ``mteb.benchmarks._create_table._static_model_meta``: model name -> ``{"Max
    Tokens", "Embedding Dimensions", "Total Parameters (B)", "Active Parameters (B)",
    "Release Date", "_model_link"}``, formatted by mteb (parameters in billions rounded
    to 1M, an infinite context as None). The leaderboard command shows these columns as
    mteb's table does, so it takes mteb's own formatting rather than a copy of it.
    """
    from mteb.benchmarks._create_table import _static_model_meta

    return _static_model_meta()


def training_datasets(name: str) -> frozenset[str] | None:
    """``ModelMeta.get_training_datasets()`` of a registered model, memoised by mteb.

    Wraps ``mteb.benchmarks._create_table._training_datasets_cached``, the cache mteb's
    leaderboard keeps because the similar-task traversal costs tens of milliseconds per
    model; None for a name mteb does not register (pass the registered name: renames are
    not followed) or a model without training data. Falls back to the public method.
    """
    try:
        from mteb.benchmarks._create_table import _training_datasets_cached
    except ImportError:  # pragma: no cover - exercised only by a changed mteb
        meta = registered_meta(name)
        found = None if meta is None else meta.get_training_datasets()
        return None if found is None else frozenset(found)
    return _training_datasets_cached(name)


def zero_shot_percentage(name: str, tasks: tuple[str, ...]) -> int | None:
    """``ModelMeta.zero_shot_percentage(tasks)`` of a registered model, as mteb's table memoises it.

    Wraps ``mteb.benchmarks._create_table._zero_shot_pct_cached`` (the leaderboard's
    Zero-shot column; it reads :func:`training_datasets`' cache); None when unknown.
    Falls back to the public method.
    """
    try:
        from mteb.benchmarks._create_table import _zero_shot_pct_cached
    except ImportError:  # pragma: no cover - exercised only by a changed mteb
        meta = registered_meta(name)
        return None if meta is None else meta.zero_shot_percentage(list(tasks))
    return _zero_shot_pct_cached(name, tuple(sorted(set(tasks))))


def create_dataloader(*args: Any, **kwargs: Any) -> Any:
    """Mteb's dataloader factory (``mteb._create_dataloaders.create_dataloader``).

    Used by the encode benchmark to time the exact batches mteb feeds a model.
    """
    from mteb._create_dataloaders import create_dataloader as _create

    return _create(*args, **kwargs)


def parse_mteb_version_min(version: str | None) -> Any:
    """The lowest mteb version of a stored ``mteb_version`` string (ranges allowed), or None.

    Wraps ``TaskResult._parse_mteb_version_min``: the fast result reader must decide exactly as
    ``TaskResult.from_disk`` does whether a file needs mteb's legacy conversions.
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


# --------------------------------------------------------------------------- result files
#
# The fast result reader (analysis.results.fastparse) skips ``TaskResult.from_disk`` and
# ``BenchmarkResults.join_revisions`` where they change nothing (:func:`stored_as_is`,
# :func:`join_passes_through`), only while :func:`fast_reader_in_step`; proven equal to mteb
# on every file of the results snapshot by tests/results/test_fastparse.py.

#: The mteb the fast reader was proven equal to (pyproject.toml pins it).
RESULT_READER_MTEB = "2.26.24"
#: Source digests (:func:`_source_digest`) of the mteb code whose rules the fast reader
#: restates, as in :data:`RESULT_READER_MTEB`; ``TaskResult fields`` digests the declared
#: fields (names, types, defaults).
RESULT_READER_SOURCES = {
    "TaskResult fields": "65d84fc05dcd27ec",
    "TaskResult.from_disk": "f71b2e7f1945f0ce",
    "TaskResult._validate_scores_dict": "8671ffb3d9185d17",
    "TaskResult._parse_mteb_version_min": "a460ab1b04a495eb",
    "TaskResult._fix_pair_classification_scores": "3be0f43a80793a24",
    "TaskResult.validate_and_filter_scores": "dc483a8ff8688a6e",
    "BenchmarkResults.join_revisions": "c00f65b98a7013d5",
    "PhaseTiming": "44397cf1f9a504cd",
}
_reader_state: list[bool] = []
_reader_notes: list[str] = []


def fast_reader_in_step() -> bool:
    """Whether the installed mteb runs the code the fast reader restates (checked once).

    False (with a warning, once) when an mteb upgrade changed one of
    :data:`RESULT_READER_SOURCES`: the loader then reads every file with mteb's own
    functions, which gives the same frames, only slower.
    """
    if not _reader_state:
        digests = result_reader_digests()
        changed = [name for name, want in RESULT_READER_SOURCES.items() if digests[name] != want]
        if changed:
            _warn_once(
                _reader_notes,
                "mteb",
                changed,
                "results are read with mteb's own (slower) reader; the fast one was proven equal "
                f"for mteb {RESULT_READER_MTEB} (see analysis.core.compat.RESULT_READER_SOURCES).",
            )
        _reader_state.append(not changed)
    return _reader_state[0]


def result_reader_digests() -> dict[str, str | None]:
    """The digests of :data:`RESULT_READER_SOURCES` as the installed mteb has them."""
    import hashlib

    from mteb.results import BenchmarkResults, TaskResult
    from mteb.timing import PhaseTiming

    fields = repr(
        sorted((n, str(f.annotation), repr(f.default)) for n, f in TaskResult.model_fields.items())
    )
    methods = [
        *("from_disk", "_validate_scores_dict", "_parse_mteb_version_min"),
        *("_fix_pair_classification_scores", "validate_and_filter_scores"),
    ]
    functions = {f"TaskResult.{m}": _unwrapped(TaskResult.__dict__[m]) for m in methods}
    functions |= {"BenchmarkResults.join_revisions": BenchmarkResults.join_revisions}
    return {
        "TaskResult fields": hashlib.sha256(fields.encode()).hexdigest()[:16],
        **{name: _source_digest(function) for name, function in functions.items()},
        "PhaseTiming": _source_digest(PhaseTiming),
    }


def _unwrapped(attribute: Any) -> Any:
    """The function of a ``classmethod``/``staticmethod`` (as found in a class ``__dict__``)."""
    return getattr(attribute, "__func__", attribute)


def stored_as_is(data: Any) -> bool:
    """Whether ``TaskResult.from_disk`` would return the parsed file ``data`` unchanged.

    True when every field has the type ``TaskResult`` declares (a string or null
    ``mteb_version``; ``evaluation_phases`` null or phases of exactly ``PhaseTiming``'s
    keys and types), every score entry has ``main_score``, a string ``hf_subset`` and a list
    ``languages`` (``_validate_scores_dict``), so validation passes and no legacy conversion
    runs, and no pair-classification fix applies (mteb >= 1.12.48, or not a pair
    classification task). Its scores are then what ``from_disk`` gives, but for the
    ``mteb_version`` it copies into each entry (``_backfill_per_subset_mteb_version``).

    Args:
        data: A result file parsed as JSON.
    """
    if not isinstance(data, dict) or "mteb_version" not in data:
        return False
    version, task_name = data["mteb_version"], data.get("task_name")
    return (
        (version is None or isinstance(version, str))
        and isinstance(task_name, str)
        and isinstance(data.get("dataset_revision"), str)
        and "evaluation_time" in data
        and _is_number(data["evaluation_time"], none=True)
        and _is_number(data.get("kg_co2_emissions"), none=True)
        and _is_number(data.get("date"), none=True)
        and _valid_phases(data.get("evaluation_phases"))
        and _valid_scores(data.get("scores"))
        and (version is None or _pair_fix_unneeded(version, task_name))
    )


def _is_number(value: Any, *, none: bool = False) -> bool:
    if value is None:
        return none
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _valid_scores(scores: Any) -> bool:
    if not isinstance(scores, dict):
        return False
    for entries in scores.values():
        if type(entries) is not list:
            return False
        for e in entries:
            if (
                type(e) is not dict
                or "main_score" not in e
                or type(e.get("hf_subset")) is not str
                or type(e.get("languages")) is not list
            ):
                return False
    return True


@functools.cache
def _phase_keys() -> dict[str, bool]:
    """``PhaseTiming``'s keys, each True for a string, False for a number."""
    import typing

    from mteb.timing import PhaseTiming

    return {key: hint is str for key, hint in typing.get_type_hints(PhaseTiming).items()}


def _valid_phases(phases: Any) -> bool:
    if phases is None:
        return True
    if type(phases) is not list:
        return False
    keys = _phase_keys()
    for phase in phases:
        if type(phase) is not dict or phase.keys() != keys.keys():
            return False
        for key, is_text in keys.items():
            if not (type(phase[key]) is str if is_text else _is_number(phase[key])):
                return False
    return True


@functools.lru_cache(maxsize=4096)
def _pair_fix_unneeded(version: str, task_name: str) -> bool:
    """True when ``from_disk`` applies no pair-classification fix (and raises no error)."""
    from packaging.version import Version

    parsed = parse_mteb_version_min(version)
    if parsed is None or parsed >= Version("1.12.48"):
        return True
    task_type = legacy_task_type(task_name)
    return task_type is not None and task_type != "PairClassification"


def join_passes_through(
    revisions: int, revision: Any, task_names: list[str], splits: list[bool]
) -> bool:
    """Whether ``BenchmarkResults.join_revisions`` returns a model's results unchanged.

    It does when the model name has one revision among the selected results, the revision
    is a string (its ``groupby`` drops a None revision), no task appears twice (no
    conflict to settle), and every result has scores (it drops one without).

    Args:
        revisions: How many revisions of the model name are among the results.
        revision: This revision.
        task_names: The task of each of its results.
        splits: For each result, whether it has a score list (an evaluation split).
    """
    return (
        revisions == 1
        and isinstance(revision, str)
        and len(set(task_names)) == len(task_names)
        and all(splits)
    )


# --------------------------------------------------------------------------- mteb tasks


def downloaded_revisions(folder: str | Path) -> set[str]:
    """The commits of the files ``hf download --local-dir folder`` wrote there (empty if none).

    ``huggingface_hub`` records each file it downloads into a local folder in
    ``folder/.cache/huggingface/download/<file>.metadata``, the commit on its first line
    (``huggingface_hub._local_folder``). Read here directly: its own reader takes a lock
    file and deletes a record it cannot parse, writing into a folder that may be read-only.
    """
    return {
        path.read_text(encoding="utf-8").partition("\n")[0].strip()
        for path in (Path(folder) / ".cache" / "huggingface" / "download").rglob("*.metadata")
    }


# --------------------------------------------------------------------------- submitit


def submitit_pickle_load(path: str | Path) -> Any:
    """Read a pickle submitit wrote (``submitit.core.utils.pickle_load``).

    A job's ``<id>_result.pkl`` holds ``(outcome, value)``: ``("success", result)`` or
    ``("error", traceback text)``. submitit's loader is not part of its top-level API.
    """
    from submitit.core.utils import pickle_load

    return pickle_load(Path(path))


def submitit_job_paths(folder: str | Path, job_id: str) -> Any:
    """Submitit's names for one job's files in its log folder (``submitit.core.utils.JobPaths``).

    ``result_pickle`` (``<id>_0_result.pkl``: the outcome, :func:`submitit_pickle_load`) and
    ``stderr`` (``<id>_0_log.err``) are the ones read here; ``job_id`` is SLURM's
    (``<array>_<index>`` for an array element). The class is outside submitit's top-level API.
    """
    from submitit.core.utils import JobPaths

    return JobPaths(folder, job_id=job_id, task_id=0)


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


# --------------------------------------------------------------------------- classification

#: The mteb the classification fix was written for (pyproject.toml pins it).
CLASSIFICATION_FIX_MTEB = "2.26.24"
#: sha256 (first 16 hex digits) of the source of each function the fix replaces or wraps,
#: as in :data:`CLASSIFICATION_FIX_MTEB`. Another source: mteb changed it, and the fix
#: turns itself off instead of replacing code it was not written for.
CLASSIFICATION_FIX_SOURCES = {
    "AbsTaskClassification._undersample_data": "be4d6892b0a20194",
    "AbsTaskClassification._calculate_scores": "7cb005ef1ae56614",
    "SklearnEvaluator.__call__": "c8f7b77a3633f316",
    "AbsTaskPairClassification._compute_metrics": "64ec025615320a3b",
    "AbsTaskMultilabelClassification._undersample_data_indices": "c3fca19a8fbc2d0c",
    "_create_dataloaders._create_dataloader_from_texts": "43b9ef16972630ef",
}
#: ``{name: (owner, attribute, mteb's function)}`` while the fix is in place.
_CLASSIFICATION_ORIGINALS: dict[str, tuple[Any, str, Any]] = {}
_classification_notes: list[str] = []
#: Guards the count of runs inside :func:`speed_up_classification` and the patching itself.
_classification_lock = threading.Lock()
_classification_users = 0


@contextlib.contextmanager
def speed_up_classification() -> Iterator[bool]:
    """Make mteb's classification evaluation read each label column once, while the block runs.

    mteb 2.26 hands a task's labels to scikit-learn as a lazy ``datasets`` Column, which numpy
    reads row by row, again in every metric's check (about 20 conversions per experiment, 10
    experiments): most of a static model's time on a classification task. Scores are
    identical (``tests/core/test_compat.py``: every split, subset and metric on 20 intents of
    Banking77Classification, and on the pair classification fixture).

    Replaces ``AbsTaskClassification._undersample_data`` and ``SklearnEvaluator.__call__`` by copies
    that read the labels as a list / numpy array, and wraps
    ``AbsTaskClassification._calculate_scores`` so scikit-learn's metrics get y_test as an array.
    Subclasses that override these methods (regression's undersampling and scores, multilabel
    classification) keep their own; regression shares ``SklearnEvaluator``, so its y_train becomes
    the float array scikit-learn would make of the Column (not tested on a regression task: none is
    available locally). Pair classification had the same pattern once per task (``np.asarray`` of
    the label Column, row by row: 1.4 s for 100,000 pairs);
    ``AbsTaskPairClassification._compute_metrics`` is wrapped to get the labels read at once.
    Multilabel classification's undersampling reads one row of the label Column per training row and
    experiment (54 µs each); its ``_undersample_data_indices`` is wrapped likewise.

    The same pattern sits in the encoding of every text task that ``create_dataloader``
    feeds from one column (classification, clustering, pair classification, STS):
    ``_create_dataloader_from_texts`` builds ``Dataset.from_dict({"text": column})`` from
    the Column, which Arrow's writer reads one row at a time (5.6 of 8.3 s of a static
    model's pair classification run of 20,000 pairs, profiled). It is wrapped to get the
    texts read at once (the same strings, so the same embeddings). Elsewhere the pattern
    costs little and is left as mteb has it (``benchmarks/bench_classification.py
    --other``): retrieval and reranking read the corpus ids once per task (77 ms for 10,000),
    k-means takes 63 of 66 s of a clustering run, legacy clustering's labels 3 of 52 s.
    :func:`analysis.runs.runner.run_evaluation` runs inside it. Remove when mteb fixes it.

    In force only inside the block: mteb's own functions are back when the last block
    running in this process ends, also when it ends with an exception or Ctrl-C. Blocks
    nest and run in several threads at once: a count under a lock patches on the first
    entry and restores on the last exit, so a block in another thread never sees mteb
    half restored. Code outside every block (a user's own ``mteb.evaluate`` after a run)
    runs mteb's code; code in another thread *during* a block runs the fix (same scores).

    Yields:
        Whether the fix is in place. False means the installed mteb changed one of the
        functions (see :data:`CLASSIFICATION_FIX_SOURCES`); a warning says so once, and
        mteb's code runs unchanged.
    """
    global _classification_users
    with _classification_lock:
        if _classification_users == 0:
            _patch_classification()
        _classification_users += 1
        in_place = bool(_CLASSIFICATION_ORIGINALS)
    try:
        yield in_place
    finally:
        with _classification_lock:
            _classification_users -= 1
            if _classification_users == 0:
                _restore_classification()


def _patch_classification() -> None:
    """Put the fix in place, unless mteb changed a function it replaces (call under the lock)."""
    originals = {
        name: _CLASSIFICATION_ORIGINALS.get(name, (owner, attr, owner.__dict__[attr]))
        for name, (owner, attr) in _classification_targets().items()
    }  # an entry left by a restore cut short is mteb's function still
    changed = _changed_sources(
        {name: original for name, (_, _, original) in originals.items()}, CLASSIFICATION_FIX_SOURCES
    )
    if changed:
        _warn_once(
            _classification_notes,
            "mteb",
            changed,
            f"the classification speed-up written for mteb {CLASSIFICATION_FIX_MTEB} is off "
            "(scores are mteb's either way; remove analysis.core.compat.speed_up_classification "
            "if mteb now reads labels at once).",
        )
        return
    replacements = _classification_replacements({n: f for n, (_, _, f) in originals.items()})
    for name, (owner, attr, _) in originals.items():
        _CLASSIFICATION_ORIGINALS[name] = originals[name]
        setattr(owner, attr, replacements[name])


def _restore_classification() -> None:
    """Put mteb's own functions back (call under the lock); each is forgotten once restored."""
    for name, (owner, attr, original) in list(_CLASSIFICATION_ORIGINALS.items()):
        setattr(owner, attr, original)
        del _CLASSIFICATION_ORIGINALS[name]


def _classification_targets() -> dict[str, tuple[Any, str]]:
    """``{name: (class or module, attribute)}`` of each mteb function the fix replaces."""
    from mteb import _create_dataloaders
    from mteb._evaluators.sklearn_evaluator import SklearnEvaluator
    from mteb.abstasks.classification import AbsTaskClassification
    from mteb.abstasks.multilabel_classification import AbsTaskMultilabelClassification
    from mteb.abstasks.pair_classification import AbsTaskPairClassification

    owners = {
        "AbsTaskClassification": AbsTaskClassification,
        "SklearnEvaluator": SklearnEvaluator,
        "AbsTaskPairClassification": AbsTaskPairClassification,
        "AbsTaskMultilabelClassification": AbsTaskMultilabelClassification,
        "_create_dataloaders": _create_dataloaders,
    }
    split = {name: name.rpartition(".") for name in CLASSIFICATION_FIX_SOURCES}
    return {name: (owners[owner], attr) for name, (owner, _, attr) in split.items()}


def _changed_sources(functions: Mapping[str, Any], recorded: Mapping[str, str]) -> list[str]:
    """The names whose function's source digest is not the one ``recorded`` (a changed library)."""
    return [
        name for name, function in functions.items() if _source_digest(function) != recorded[name]
    ]


def _source_digest(function: Any) -> str | None:
    """The first 16 hex digits of the sha256 of ``function``'s source, or None if unreadable."""
    import hashlib
    import inspect

    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def _warn_once(notes: list[str], library: str, changed: list[str], consequence: str) -> None:
    """Warn ``<library> <version> changed <names>: <consequence>`` unless ``notes`` holds one."""
    import importlib
    import logging

    if notes:
        return
    version = importlib.import_module(library).__version__
    notes.append(f"{library} {version} changed {', '.join(changed)}: {consequence}")
    logging.getLogger(__name__).warning(notes[0])


def label_values(labels: Any) -> Any:
    """A label (or text) column as plain values: a ``datasets`` Column read at once, else as given.

    ``column[:]`` is one Arrow read and yields the values iterating the Column would (a
    list for an unformatted dataset), without the row-by-row formatting.
    """
    from datasets.arrow_dataset import Column

    return labels[:] if isinstance(labels, Column) else labels


def _classification_replacements(
    originals: Mapping[str, Callable[..., Any]],
) -> dict[str, Callable[..., Any]]:
    """The fix's functions, wrapping mteb's ``originals`` (``{name: mteb's function}``)."""
    import hashlib
    import logging
    from collections import defaultdict

    import numpy as np

    original_scores = originals["AbsTaskClassification._calculate_scores"]
    original_pair_metrics = originals["AbsTaskPairClassification._compute_metrics"]
    original_multilabel = originals["AbsTaskMultilabelClassification._undersample_data_indices"]
    original_text_loader = originals["_create_dataloaders._create_dataloader_from_texts"]
    evaluator_log = logging.getLogger("mteb._evaluators.sklearn_evaluator")  # mteb's logger

    def _undersample_data(
        self: Any, dataset: Any, experiment_num: int, idxs: list[int] | None = None
    ) -> tuple[Any, list[int], list[int]]:
        """The ``_undersample_data`` of mteb 2.26.24, reading the label column once."""
        if idxs is None:
            idxs = list(range(len(dataset)))
        rng_state = np.random.RandomState(self.seed)
        rng_state.shuffle(idxs)
        label_counter: dict[Any, int] = defaultdict(int)
        sampled_idxs = []
        labels = label_values(dataset[self.label_column_name])  # the fix
        for i in idxs:
            label = labels[i]
            if label_counter[label] < self.samples_per_label:
                sampled_idxs.append(i)
                label_counter[label] += 1
        # datasets would hash the indices in a bare `except:`, where a Ctrl-C is lost
        key = hashlib.sha256(f"{dataset._fingerprint}{sampled_idxs}".encode()).hexdigest()
        return dataset.select(sampled_idxs, new_fingerprint=key[:16]), idxs, sampled_idxs

    def _calculate_scores(self: Any, y_test: Any, y_pred: Any) -> Any:
        """The ``_calculate_scores`` of mteb, with y_test as a numpy array (read once)."""
        return original_scores(self, np.asarray(label_values(y_test)), y_pred)

    def __call__(self: Any, train_embeddings: Any, test_embeddings: Any) -> Any:
        """The ``SklearnEvaluator.__call__`` of mteb 2.26.24, with y_train as a numpy array."""
        y_train = np.asarray(label_values(self.train_dataset[self.label_column_name]))
        evaluator_log.info("Running - Fitting classifier...")
        self.evaluator_model.fit(train_embeddings, y_train)
        return self.evaluator_model.predict(test_embeddings)

    def _compute_metrics(self: Any, similarity_scores: Any, labels: Any) -> Any:
        """The pair classification ``_compute_metrics`` of mteb, with the labels read once."""
        return original_pair_metrics(self, similarity_scores, label_values(labels))

    def _undersample_data_indices(
        self: Any, y: Any, samples_per_label: int, idxs: list[int] | None = None
    ) -> tuple[list[int], list[int]]:
        """The multilabel ``_undersample_data_indices`` of mteb, with the labels read once."""
        return original_multilabel(self, label_values(y), samples_per_label, idxs)

    def _create_dataloader_from_texts(
        text: Any, batch_size: int = 32, num_proc: int | None = None, **kwargs: Any
    ) -> Any:
        """Mteb's ``_create_dataloader_from_texts``, with the text column read once."""
        return original_text_loader(
            label_values(text), batch_size=batch_size, num_proc=num_proc, **kwargs
        )

    return {
        "AbsTaskClassification._undersample_data": _undersample_data,
        "AbsTaskClassification._calculate_scores": _calculate_scores,
        "SklearnEvaluator.__call__": __call__,
        "AbsTaskPairClassification._compute_metrics": _compute_metrics,
        "AbsTaskMultilabelClassification._undersample_data_indices": _undersample_data_indices,
        "_create_dataloaders._create_dataloader_from_texts": _create_dataloader_from_texts,
    }


#: model2vec release the float64 token encoding was written for.
FLOAT64_ENCODING_MODEL2VEC = "0.10.0"
#: Source digests (:func:`_source_digest`) of the model2vec functions
#: :func:`float64_token_encoding` relies on, as in :data:`FLOAT64_ENCODING_MODEL2VEC`.
FLOAT64_ENCODING_SOURCES = {
    "create_embeddings": "58bb56a0235883f4",
    "_encode_mean_with_model": "0101b6e4ff714cc5",
}
_float64_notes: list[str] = []


@contextlib.contextmanager
def float64_token_encoding() -> Iterator[bool]:
    """model2vec's mean-pooled token encoding kept in float64 while the block runs.

    model2vec (``create_embeddings``) pools the teacher's output in float32 (``hidden.float()``),
    and its PCA then runs in the embeddings' dtype. float32 sums come out differently with other CPU
    kernels (torch's AVX2 or default kernels, another OpenBLAS core type): many of the MiniLM
    student's float16 values differed by one step, and STSBenchmark's score in the fifth decimal
    (the counts and scores: ``benchmarks/results/distill.md``). With the teacher in float64 (the
    caller's ``model.double()``) and this encoding, everything up to model2vec's final float16 is
    float64, whose noise (about 1e-16 of a value) stays far below a float16 step (about 1e-3): the
    student is byte-identical with other kernels (``tests/project/test_reproducible.py``).

    Replaces ``model2vec.distill.inference._encode_mean_with_model`` (looked up by
    ``create_embeddings`` at each batch) for the block, restored after.

    Yields:
        Whether the float64 encoding is in place. False means the installed model2vec changed one of
        the functions (:data:`FLOAT64_ENCODING_SOURCES`): a warning says so once, and model2vec's
        float32 encoding runs (a valid student, whose last bits may differ between CPUs).
    """
    import model2vec.distill.inference as inference

    changed = _changed_sources(
        {name: getattr(inference, name, None) for name in FLOAT64_ENCODING_SOURCES},
        FLOAT64_ENCODING_SOURCES,
    )
    if changed:
        _warn_once(
            _float64_notes,
            "model2vec",
            changed,
            f"distilling in float32 (written for model2vec {FLOAT64_ENCODING_MODEL2VEC}); the "
            "student's last bits may differ between CPUs.",
        )
        yield False
        return
    original = inference._encode_mean_with_model
    inference._encode_mean_with_model = _encode_mean_float64
    try:
        yield True
    finally:
        inference._encode_mean_with_model = original


def _encode_mean_float64(model: Any, encodings: dict[str, Any]) -> Any:
    """model2vec's masked mean of the last hidden state, in float64 (same inputs, same order)."""
    import torch

    with torch.inference_mode():
        on_device = {key: value.to(model.device) for key, value in encodings.items()}
        hidden = model(**on_device).last_hidden_state.to(torch.float64)
        mask = on_device["attention_mask"].to(torch.float64)
        lengths = mask.sum(1, keepdim=True).clamp_min(1.0)
        return ((mask[:, :, None] * hidden).sum(1) / lengths).cpu()


#: Source digests of the model2vec functions :func:`token_embeddings_through` relies on
#: (``distill_from_model`` calls its module's ``create_embeddings`` once, by keyword), as in
#: :data:`FLOAT64_ENCODING_MODEL2VEC`.
TOKEN_EMBEDDING_SOURCES = {
    "distill_from_model": "b03dfd33df0a4834",
    "create_embeddings": FLOAT64_ENCODING_SOURCES["create_embeddings"],
}


@contextlib.contextmanager
def token_embeddings_through(
    wrapper: Callable[[Callable[..., Any], dict[str, Any]], Any],
) -> Iterator[bool]:
    """model2vec's token encoding routed through ``wrapper`` while the block runs.

    ``distill_from_model`` looks ``create_embeddings`` up in its module when it runs; in the block
    it calls ``wrapper(create_embeddings, keywords)`` instead, so the wrapper can return the
    teacher's token embeddings from a cache (:mod:`analysis.runs.distill`). Restored after.

    Yields:
        Whether the wrapper is in place. False when the installed model2vec changed one of
        the functions (:data:`TOKEN_EMBEDDING_SOURCES`): the tokens are then encoded
        every time, as model2vec does (only time is lost, so nothing is said).
    """
    import model2vec.distill.distillation as distillation
    import model2vec.distill.inference as inference

    changed = _changed_sources(
        {
            "distill_from_model": getattr(distillation, "distill_from_model", None),
            "create_embeddings": getattr(inference, "create_embeddings", None),
        },
        TOKEN_EMBEDDING_SOURCES,
    )
    original = getattr(distillation, "create_embeddings", None)
    if changed or original is None or original is not inference.create_embeddings:
        yield False
        return
    encode: Callable[..., Any] = original

    def create_embeddings(**keywords: Any) -> Any:
        return wrapper(encode, keywords)

    setattr(distillation, "create_embeddings", create_embeddings)  # noqa: B010 (typed module)
    try:
        yield True
    finally:
        setattr(distillation, "create_embeddings", encode)  # noqa: B010
