"""Run registered MTEB tasks on data read from a local folder instead of the Hugging Face hub.

A local task folder holds ``task.json``, naming the registered mteb task (whose metadata,
revision and evaluation code are used) and the format of the data beside it::

    {"mteb_task": "SciFact", "type": "Retrieval", "split": "test", "format": "beir"}
    {"mteb_task": "SprintDuplicateQuestions", "format": "hub"}

``hub`` is a copy of the task's dataset repository, which mteb's own loading reads unchanged (any
task type); the simple formats are read and validated here before any encoding, for tasks mteb loads
plainly (:func:`own_loading`). What each promises: ``docs/running.md``, "Local task folders".

==========================  ===================  ==================================================
format                      mteb task types      files and fields
==========================  ===================  ==================================================
``hub``                     any                  ``hub/``: the dataset repository's files (data
                                                 files, ``README.md`` with its ``configs``)
``beir``                    Retrieval, Reranking ``corpus.jsonl`` (``_id``, ``text``, ``title``?),
                                                 ``queries.jsonl`` (``_id``, ``text``),
                                                 ``qrels/<split>.tsv`` (header ``query-id corpus-id
                                                 score``), ``top_ranked/<split>.jsonl``
                                                 (``query-id``, ``corpus-ids``; required for
                                                 Reranking)
``sts-jsonl``               STS                  ``<split>.jsonl`` (``sentence1``, ``sentence2``,
                                                 ``score``)
``classification-jsonl``    Classification       ``train.jsonl`` and ``<split>.jsonl`` (``text``,
                                                 ``label`` integer id, ``label_text``?)
``pair-classification-      PairClassification   ``<split>.jsonl`` (``sentence1``, ``sentence2``,
jsonl``                                          ``label`` 0 or 1)
``clustering-jsonl``        Clustering           ``<split>.jsonl`` (``text``, ``label``, ``set``?:
                                                 items sharing a ``set`` are clustered together
                                                 by legacy clustering tasks)
==========================  ===================  ==================================================
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mteb
from datasets import Dataset, DatasetDict
from mteb.abstasks import (
    AbsTask,
    AbsTaskClassification,
    AbsTaskClustering,
    AbsTaskClusteringLegacy,
    AbsTaskPairClassification,
    AbsTaskRetrieval,
    AbsTaskSTS,
)

from ..core import compat
from ..core.errors import LocalTaskError, close_names

TASK_FILE = "task.json"
HUB = "hub"

#: The mteb task classes each local format can feed (``hub``: any, through mteb's loading).
FORMAT_CLASSES: dict[str, tuple[type[AbsTask], ...]] = {
    "beir": (AbsTaskRetrieval,),
    "sts-jsonl": (AbsTaskSTS,),
    "classification-jsonl": (AbsTaskClassification,),
    "pair-classification-jsonl": (AbsTaskPairClassification,),
    "clustering-jsonl": (AbsTaskClustering, AbsTaskClusteringLegacy),
    HUB: (AbsTask,),
}

#: What a ``dataset_transform`` does, read from the calls in its source.
TRANSFORM_CALLS = {
    "stratified_subsampling": "subsamples the rows (stratified_subsampling)",
    "rename_column": "renames columns",
    ".filter(": "drops rows",
    ".map(": "rewrites rows",
    "load_dataset": "loads more data",
}

Record = dict[str, Any]
Line = tuple[int, Record]  # (1-based line number, parsed JSON object)


@dataclass(frozen=True)
class LocalTaskSpec:
    """The content of a local task's ``task.json``.

    Attributes:
        folder: The task folder.
        mteb_task: Name of the registered mteb task whose metadata and evaluation are used.
        type: The mteb task type (must match the registered task's type; ``hub``: may be empty).
        split: The evaluation split held in the folder (``hub``: the one to run, or empty
            for all of the task's evaluation splits).
        format: One of :data:`FORMAT_CLASSES`.
        subset: The HF subset (language) the data belong to; ``default`` for monolingual
            tasks (``hub``: the one to run, or empty for all of the task's subsets).
    """

    folder: Path
    mteb_task: str
    type: str
    split: str
    format: str
    subset: str = "default"


def read_spec(folder: str | Path) -> LocalTaskSpec:
    """Read and check ``task.json`` of a local task folder.

    Raises:
        LocalTaskError: If the folder or ``task.json`` is missing, malformed or names an
            unknown format.
    """
    folder = Path(folder)
    path = folder / TASK_FILE
    if not folder.is_dir():
        raise LocalTaskError(f"{folder}: local task folder does not exist.")
    if not path.is_file():
        raise LocalTaskError(f"{path}: missing file; every local task folder needs a task.json.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise LocalTaskError(f"{path}:{err.lineno}: invalid JSON ({err.msg}).") from err
    hub = data.get("format") == HUB
    required = ("mteb_task", "format") if hub else ("mteb_task", "type", "split", "format")
    missing = [key for key in required if not data.get(key)]
    if missing:
        raise LocalTaskError(f"{path}: missing field(s) {', '.join(missing)}.")
    if data["format"] not in FORMAT_CLASSES:
        raise LocalTaskError(
            f"{path}: unknown format {data['format']!r}; use one of {', '.join(FORMAT_CLASSES)}."
        )

    return LocalTaskSpec(
        folder=folder,
        mteb_task=str(data["mteb_task"]),
        type=str(data.get("type") or ""),
        split=str(data.get("split") or ""),
        format=str(data["format"]),
        subset=str(data.get("subset") or ("" if hub else "default")),
    )


def discover_local_tasks(root: str | Path) -> dict[str, Path]:
    """``{mteb task name: folder}`` of the local task folders under ``root`` (any depth), sorted.

    Raises:
        LocalTaskError: If ``root`` does not exist or two folders name the same task.
    """
    root = Path(root)  # shown as typed: a symlink is never resolved in a message
    if not root.is_dir():
        parent = root.parent
        beside = [p.name for p in parent.iterdir() if p.is_dir()] if parent.is_dir() else []
        close = close_names(root.name, beside, n=3)
        hint = f" Folders beside it with a close name: {close}." if beside and "'" in close else ""
        raise LocalTaskError(f"{root}: local tasks folder does not exist.{hint}")
    found: dict[str, Path] = {}
    for path in sorted(root.rglob(TASK_FILE)):
        spec = read_spec(path.parent)
        if spec.mteb_task in found:
            raise LocalTaskError(
                f"{path}: task {spec.mteb_task} is also in {found[spec.mteb_task]}; keep one."
            )
        found[spec.mteb_task] = path.parent
    return dict(sorted(found.items()))


def load_local_task(folder: str | Path) -> AbsTask:
    """The registered mteb task named in ``folder/task.json``, reading its data from ``folder``.

    mteb's instance (``mteb.get_task``: seed, metadata, evaluation code), moved to a
    subclass of its class that reads the folder (``hub``: only ``metadata.dataset["path"]``
    differs; a simple format: ``load_data`` builds the datasets from the rows validated
    now), restricted to the folder's split and subset; its ``local_folder`` is ``folder``.

    Raises:
        LocalTaskError: If the folder is invalid or does not fit the registered task.

    Examples:
        ``tiny_task`` is a hand-made local task folder of the tests
        (``tests/fixtures/local_tasks/Reranking``: AskUbuntuDupQuestions' code on 4 queries):

        >>> from analysis import load_local_task
        >>> task = load_local_task(tiny_task)
        >>> task.metadata.name, task.eval_splits
        ('AskUbuntuDupQuestions', ['test'])
    """
    spec = read_spec(folder)
    task = _registered_task(spec)
    cls = type(task)
    if spec.format == HUB:
        members = _hub_members(spec, task)
    else:
        _refuse_own_loading(spec, task)
        members = {"load_data": _rows_loader(_validated_builder(spec, task))}
    # the instance keeps its seed and filters; its class gains only what reads the folder
    local = {"__module__": __name__, "local_folder": spec.folder, **members}
    task.__class__ = type(cls.__name__, (cls,), local)
    return task


def _registered_task(spec: LocalTaskSpec) -> AbsTask:
    where = spec.folder / TASK_FILE
    try:
        task = mteb.get_task(spec.mteb_task)
    except KeyError as err:
        raise LocalTaskError(f"{where}: {err.args[0] if err.args else err}") from err
    if spec.type and task.metadata.type != spec.type:
        raise LocalTaskError(
            f"{where}: type {spec.type!r} does not match mteb's type {task.metadata.type!r} "
            f"for {spec.mteb_task}."
        )
    if not isinstance(task, FORMAT_CLASSES[spec.format]):
        raise LocalTaskError(
            f"{where}: format {spec.format!r} cannot feed {spec.mteb_task} "
            f"({type(task).__mro__[1].__name__}); use {_format_for(task)!r}."
        )
    if spec.split:
        if spec.split not in task.metadata.eval_splits:
            raise LocalTaskError(
                f"{where}: split {spec.split!r} is not an evaluation split of {spec.mteb_task} "
                f"({', '.join(task.metadata.eval_splits)})."
            )
        task.filter_eval_splits([spec.split])
    if spec.subset:
        if spec.subset not in task.metadata.hf_subsets:
            raise LocalTaskError(
                f"{where}: subset {spec.subset!r} is not a subset of {spec.mteb_task} "
                f"({', '.join(task.metadata.hf_subsets[:10])}...)."
            )
        task.hf_subsets = [spec.subset]
    return task


def _format_for(task: AbsTask) -> str:
    return next(name for name, classes in FORMAT_CLASSES.items() if isinstance(task, classes))


def _hub_download(task: AbsTask, folder: Path) -> str:
    """The command that makes a hub-format copy of ``task``'s data in ``folder``."""
    path, revision = task.metadata.dataset["path"], task.metadata.revision
    return (
        f"hf download {path} --repo-type dataset --revision {revision} --local-dir {folder / HUB}"
    )


# --------------------------------------------------------------------------- hub format


def _hub_members(spec: LocalTaskSpec, task: AbsTask) -> dict[str, Any]:
    """The task's metadata with its dataset path at ``hub/``, and a ``load_data`` naming it."""
    hub, name, revision = spec.folder / HUB, spec.mteb_task, str(task.metadata.revision)
    fix = f"make it with {_hub_download(task, spec.folder)}"
    if not hub.is_dir():
        raise LocalTaskError(f"{hub}: missing folder, the copy of {name}'s dataset; {fix}.")
    other = sorted(c for c in compat.downloaded_revisions(hub) if not c.startswith(revision))
    if other:
        raise LocalTaskError(f"{hub}: downloaded at revision {', '.join(other)}; {fix}.")
    load_mteb = type(task).load_data

    def load_data(self: AbsTask, num_proc: int | None = None, **kwargs: Any) -> None:
        """Mteb's own ``load_data`` on ``hub/``; a failure or a missing split names the folder."""
        if self.data_loaded:
            return
        try:
            load_mteb(self, num_proc, **kwargs)
        except Exception as err:
            problem = f"mteb cannot load {name} from it ({type(err).__name__}: {err})"
            raise LocalTaskError(f"{hub}: {problem}; {fix}.") from err
        missing = _missing_splits(self)
        if missing:
            self.unload_data()
            problem = f"mteb's loading of {name} gives no {', '.join(missing)}"
            raise LocalTaskError(f"{hub}: {problem}; {fix}.")

    dataset = {**task.metadata.dataset, "path": str(hub.absolute())}
    return {
        "metadata": task.metadata.model_copy(update={"dataset": dataset}),
        "load_data": load_data,
    }


def _missing_splits(task: AbsTask) -> list[str]:
    """``subset/split`` names ``mteb.evaluate`` reads that the loaded data lack."""
    data: Any = task.dataset
    needed = list(task.eval_splits)
    if isinstance(task, AbsTaskClassification):
        needed.append(task.train_split)
    missing = []
    for subset in task.hf_subsets:
        # mteb.evaluate's rule: a monolingual dataset is keyed by split directly
        splits = data if subset not in data and subset == "default" else data.get(subset, {})
        missing += [f"{subset}/{split}" for split in needed if split not in splits]
    return missing


# --------------------------------------------------------------------------- simple formats


def own_loading(task: AbsTask | type[AbsTask]) -> dict[str, str]:
    """What a task's class changes in mteb's loading: ``{"Class.method": what it does}``.

    The ``dataset_transform`` and ``load_data`` that the class, or a class it inherits from
    outside ``mteb.abstasks`` (whose transforms and loaders a whole task type shares),
    defines; what a transform does is read from the calls in its source.

    Examples:
        >>> import mteb
        >>> own_loading(mteb.get_task("STSBenchmark"))
        {}
        >>> own_loading(mteb.get_task("SprintDuplicateQuestions"))
        {'SprintDuplicateQuestionsPC.dataset_transform': 'renames columns'}
    """
    found = {}
    for owner in (task if isinstance(task, type) else type(task)).__mro__:
        for method in ("dataset_transform", "load_data"):
            if method in vars(owner) and not owner.__module__.startswith("mteb.abstasks."):
                found[f"{owner.__name__}.{method}"] = _what(method, vars(owner)[method])
    return found


def _what(method: str, function: Any) -> str:
    try:
        source = "" if method == "load_data" else inspect.getsource(function)
    except (OSError, TypeError):
        source = "?"
    done = [what for call, what in TRANSFORM_CALLS.items() if call in source]
    return ", ".join(done) or ("loads the data its own way" if not source else "reshapes the data")


def _refuse_own_loading(spec: LocalTaskSpec, task: AbsTask) -> None:
    what = "; ".join(f"{method} {does}" for method, does in own_loading(task).items())
    if what:
        raise LocalTaskError(
            f"{spec.folder / TASK_FILE}: {spec.mteb_task} cannot be read from the "
            f"{spec.format!r} format: mteb's {what}, which that reader does not reproduce. "
            f"Use a copy of its dataset repository: {_hub_download(task, spec.folder)}, "
            f'and "format": "hub" in task.json.'
        )


def _rows_loader(build: Callable[[], Any]) -> Callable[..., None]:
    def load_data(self: AbsTask, num_proc: int | None = None, **kwargs: Any) -> None:
        """Build the task's datasets from the validated local rows (mteb's signature)."""
        if not self.data_loaded:
            self.dataset, self.data_loaded = build(), True

    return load_data


def _validated_builder(spec: LocalTaskSpec, task: AbsTask) -> Callable[[], Any]:
    if isinstance(task, AbsTaskRetrieval):
        return _retrieval_builder(spec, task)
    if isinstance(task, AbsTaskSTS):
        return _wrap(spec, task, _sts_split(spec, task))
    if isinstance(task, AbsTaskClassification):
        return _wrap(spec, task, _classification_splits(spec, task))
    if isinstance(task, AbsTaskPairClassification):
        return _wrap(spec, task, _pair_split(spec, task))
    return _wrap(spec, task, _clustering_split(spec, task))


def _wrap(
    spec: LocalTaskSpec, task: AbsTask, splits: dict[str, dict[str, list[Any]]]
) -> Callable[[], Any]:
    """Builder of a non-retrieval dataset: a DatasetDict (under the subset if multilingual)."""

    def build() -> Any:
        data = DatasetDict({name: Dataset.from_dict(columns) for name, columns in splits.items()})
        return {spec.subset: data} if task.metadata.is_multilingual else data

    return build


# --------------------------------------------------------------------------- reading files


def _require(path: Path) -> Path:
    if not path.is_file():
        raise LocalTaskError(f"{path}: missing file.")
    return path


def _jsonl(path: Path) -> Iterator[Line]:
    with _require(path).open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except json.JSONDecodeError as err:
                raise LocalTaskError(f"{path}:{number}: invalid JSON ({err.msg}).") from err
            if not isinstance(record, dict):
                raise LocalTaskError(f"{path}:{number}: expected a JSON object per line.")
            yield number, record


def read_rows(path: Path, fields: Mapping[str, type | tuple[type, ...]]) -> list[Line]:
    """``(line number, record)`` of a JSONL file; each line must have ``fields`` of their types.

    Raises:
        LocalTaskError: If the file is missing or empty, or a line is malformed.
    """
    rows = list(_jsonl(path))
    if not rows:
        raise LocalTaskError(f"{path}: the split is empty (no rows).")
    wanted = {
        field: kinds if isinstance(kinds, tuple) else (kinds,) for field, kinds in fields.items()
    }
    for number, record in rows:
        for field, kinds in wanted.items():
            if field not in record:
                raise LocalTaskError(f"{path}:{number}: missing field {field!r}.")
            value = record[field]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                names = " or ".join(kind.__name__ for kind in kinds)
                raise LocalTaskError(
                    f"{path}:{number}: field {field!r} must be {names}, got {type(value).__name__}."
                )
    return rows


# --------------------------------------------------------------------------- retrieval


def _ids(path: Path, rows: list[Line]) -> dict[str, int]:
    seen: dict[str, int] = {}
    for number, record in rows:
        key = str(record["_id"])
        if key in seen:
            raise LocalTaskError(
                f"{path}:{number}: duplicate _id {key!r} (first on line {seen[key]})."
            )
        seen[key] = number
    return seen


def read_qrels(
    path: Path, query_ids: Mapping[str, int], corpus_ids: Mapping[str, int]
) -> dict[str, dict[str, int]]:
    """``{query id: {corpus id: score}}`` of a BEIR qrels TSV (header ``query-id corpus-id score``).

    Raises:
        LocalTaskError: On a missing file, a bad header or row, an id not in ``query_ids`` or
            ``corpus_ids``, or no rows.
    """
    qrels: dict[str, dict[str, int]] = {}
    with _require(path).open(encoding="utf-8") as handle:
        header = handle.readline().rstrip("\r\n").split("\t")
        if header != ["query-id", "corpus-id", "score"]:
            raise LocalTaskError(
                f"{path}:1: header must be 'query-id<TAB>corpus-id<TAB>score', got {header}."
            )
        for number, raw in enumerate(handle, start=2):
            if raw.strip():
                query, doc, score = _qrels_row(path, number, raw, query_ids, corpus_ids)
                qrels.setdefault(query, {})[doc] = score
    if not qrels:
        raise LocalTaskError(f"{path}: the split is empty (no qrels rows).")
    return qrels


def _qrels_row(
    path: Path, number: int, raw: str, query_ids: Mapping[str, int], corpus_ids: Mapping[str, int]
) -> tuple[str, str, int]:
    parts = raw.rstrip("\r\n").split("\t")
    if len(parts) != 3:
        raise LocalTaskError(
            f"{path}:{number}: expected 3 tab-separated columns, got {len(parts)}."
        )
    query, doc, score = parts
    if query not in query_ids:
        raise LocalTaskError(f"{path}:{number}: query-id {query!r} is not in queries.jsonl.")
    if doc not in corpus_ids:
        raise LocalTaskError(f"{path}:{number}: corpus-id {doc!r} is not in corpus.jsonl.")
    try:
        return query, doc, int(score)
    except ValueError:
        raise LocalTaskError(f"{path}:{number}: score {score!r} is not an integer.") from None


def _top_ranked(
    path: Path, query_ids: Mapping[str, int], corpus_ids: Mapping[str, int]
) -> dict[str, list[str]]:
    ranked: dict[str, list[str]] = {}
    for number, record in read_rows(path, {"query-id": (str, int), "corpus-ids": list}):
        query = str(record["query-id"])
        if query not in query_ids:
            raise LocalTaskError(f"{path}:{number}: query-id {query!r} is not in queries.jsonl.")
        docs = [str(doc) for doc in record["corpus-ids"]]
        unknown = [doc for doc in docs if doc not in corpus_ids]
        if unknown:
            raise LocalTaskError(
                f"{path}:{number}: corpus-ids {unknown[:5]} are not in corpus.jsonl."
            )
        if not docs:
            raise LocalTaskError(f"{path}:{number}: corpus-ids is empty.")
        ranked[query] = docs
    return ranked


def _retrieval_builder(spec: LocalTaskSpec, task: AbsTaskRetrieval) -> Callable[[], Any]:
    folder = spec.folder
    corpus_path, queries_path = folder / "corpus.jsonl", folder / "queries.jsonl"
    corpus = read_rows(corpus_path, {"_id": (str, int), "text": str})
    queries = read_rows(queries_path, {"_id": (str, int), "text": str})
    corpus_ids, query_ids = _ids(corpus_path, corpus), _ids(queries_path, queries)
    qrels = read_qrels(folder / "qrels" / f"{spec.split}.tsv", query_ids, corpus_ids)
    ranked_path = folder / "top_ranked" / f"{spec.split}.jsonl"
    top_ranked = None
    if ranked_path.is_file() or task.metadata.type == "Reranking":
        top_ranked = _top_ranked(ranked_path, query_ids, corpus_ids)
    doc_rows = [
        {"id": str(r["_id"]), "title": str(r.get("title") or ""), "text": r["text"]}
        for _, r in corpus
    ]
    # like mteb's RetrievalDatasetLoader: keep only queries with qrels, in file order
    query_rows = [
        {"id": str(r["_id"]), "text": r["text"]} for _, r in queries if str(r["_id"]) in qrels
    ]

    def build() -> dict[str, dict[str, Any]]:
        split = {
            "corpus": Dataset.from_list(doc_rows),
            "queries": Dataset.from_list(query_rows),
            "relevant_docs": {query: dict(docs) for query, docs in qrels.items()},
            "top_ranked": {q: list(d) for q, d in top_ranked.items()} if top_ranked else None,
        }
        return {spec.subset: {spec.split: split}}

    return build


# --------------------------------------------------------------------------- other types


def _sts_split(spec: LocalTaskSpec, task: AbsTaskSTS) -> dict[str, dict[str, list[Any]]]:
    path = spec.folder / f"{spec.split}.jsonl"
    rows = read_rows(path, {"sentence1": str, "sentence2": str, "score": (int, float)})
    low, high = task.min_score, task.max_score
    for number, record in rows:
        score = float(record["score"])
        if not math.isfinite(score) or not low <= score <= high:
            raise LocalTaskError(
                f"{path}:{number}: score {record['score']} is outside {spec.mteb_task}'s "
                f"range [{low}, {high}]."
            )
    first, second = (str(name) for name in task.column_names)
    columns = {
        first: [r["sentence1"] for _, r in rows],
        second: [r["sentence2"] for _, r in rows],
        "score": [float(r["score"]) for _, r in rows],
    }
    return {spec.split: columns}


def _classification_splits(
    spec: LocalTaskSpec, task: AbsTaskClassification
) -> dict[str, dict[str, list[Any]]]:
    fields = {"text": str, "label": int}
    train_path = spec.folder / f"{task.train_split}.jsonl"
    test_path = spec.folder / f"{spec.split}.jsonl"
    train, test = read_rows(train_path, fields), read_rows(test_path, fields)
    _label_names(test_path, test, _label_names(train_path, train, {}))
    known = {record["label"] for _, record in train}
    for number, record in test:
        if record["label"] not in known:
            raise LocalTaskError(
                f"{test_path}:{number}: unknown label {record['label']} (not in {train_path.name})."
            )
    text_column, label_column = str(task.input_column_name), task.label_column_name

    def columns(rows: list[Line]) -> dict[str, list[Any]]:
        return {
            text_column: [r["text"] for _, r in rows],
            label_column: [r["label"] for _, r in rows],
        }

    return {task.train_split: columns(train), spec.split: columns(test)}


def _label_names(path: Path, rows: list[Line], names: dict[int, str]) -> dict[int, str]:
    """Check ``label_text`` (when given) names each label id consistently."""
    for number, record in rows:
        text = record.get("label_text")
        if text is None:
            continue
        known = names.setdefault(record["label"], str(text))
        if known != str(text):
            raise LocalTaskError(
                f"{path}:{number}: label {record['label']} is named {text!r} here but "
                f"{known!r} elsewhere."
            )
    return names


def _pair_split(
    spec: LocalTaskSpec, task: AbsTaskPairClassification
) -> dict[str, dict[str, list[Any]]]:
    path = spec.folder / f"{spec.split}.jsonl"
    rows = read_rows(path, {"sentence1": str, "sentence2": str, "label": int})
    for number, record in rows:
        if record["label"] not in (0, 1):
            raise LocalTaskError(
                f"{path}:{number}: unknown label {record['label']}; pair labels are 0 or 1."
            )
    if len({record["label"] for _, record in rows}) < 2:
        raise LocalTaskError(f"{path}: all pairs have one label; average precision needs both.")
    return {
        spec.split: {
            str(task.input1_column_name): [r["sentence1"] for _, r in rows],
            str(task.input2_column_name): [r["sentence2"] for _, r in rows],
            task.label_column_name: [r["label"] for _, r in rows],
        }
    }


def _clustering_split(spec: LocalTaskSpec, task: AbsTask) -> dict[str, dict[str, list[Any]]]:
    path = spec.folder / f"{spec.split}.jsonl"
    rows = read_rows(path, {"text": str, "label": (str, int)})
    text_column = str(task.input_column_name)  # type: ignore[attr-defined]
    label_column = str(task.label_column_name)  # type: ignore[attr-defined]
    if len({record["label"] for _, record in rows}) < 2:
        raise LocalTaskError(f"{path}: all texts have one label; clustering needs two or more.")
    texts: list[Any] = [r["text"] for _, r in rows]
    labels: list[Any] = [str(r["label"]) for _, r in rows]
    if isinstance(task, AbsTaskClusteringLegacy):  # one list per set
        sets: dict[str, list[int]] = {}
        for i, (_, record) in enumerate(rows):
            sets.setdefault(str(record.get("set", 0)), []).append(i)
        texts = [[texts[i] for i in group] for group in sets.values()]
        labels = [[labels[i] for i in group] for group in sets.values()]
    return {spec.split: {text_column: texts, label_column: labels}}
