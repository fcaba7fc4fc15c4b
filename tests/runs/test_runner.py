"""analysis.runs.runner and analysis.runs.cli: resumable, atomic, failure-tolerant runs."""

from __future__ import annotations

import json
import math
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import mteb
import pandas as pd
import pytest
from mteb.results import TaskResult

from analysis.cli import main as static_rteb
from analysis.runs.local_tasks import load_local_task
from analysis.runs.models import load_model
from analysis.runs.retrieval_metrics import load_predictions, per_query_ndcg, read_qrels_tsv
from analysis.runs.runner import (
    SUMMARY_COLUMNS,
    UnknownTaskError,
    predictions_path,
    resolve_tasks,
    result_path,
    run_evaluation,
)
from tests._cli import cli_env, wait_for
from tests._run_fixtures import (
    FIXTURE_TASKS,
    FIXTURES,
    REPO,
    SHARED_TASK_NAMES,
    SHARED_TASKS,
    distilled_static_model,
    needs_shared_tasks,
)


@pytest.fixture(scope="session")
def static_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return distilled_static_model(tmp_path_factory)


FIXTURE_NAMES = sorted(FIXTURE_TASKS.values())


def _run(model: Path, tasks: list, results: Path, **kwargs: object) -> pd.DataFrame:
    return run_evaluation(
        [model], tasks, results_dir=results, local_tasks_dir=FIXTURES, show_progress=False, **kwargs
    )


def _all_result_files_parse(results: Path) -> list[Path]:
    """Parse every JSON file under results/ (raises on a truncated one); return the task results."""
    files = sorted((results / "results").rglob("*.json"))
    for path in files:
        json.loads(path.read_text())
    return [path for path in files if path.name != "model_meta.json"]


def _run_tasks(model: Path, local: dict[str, Path], results: Path) -> tuple:
    """Run ``model`` on the local tasks ``{name: folder of task folders}``; (results, summary)."""
    objects = [load_local_task(_folder(root, name)) for name, root in local.items()]
    summary = run_evaluation(
        [model], objects, results_dir=results, batch_size=256, show_progress=False
    )
    return results, summary


@pytest.fixture(scope="module")
def static_run(static_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The static model on the three fixture tasks (one of each fixture task type)."""
    local = dict.fromkeys(FIXTURE_NAMES, FIXTURES)
    return _run_tasks(static_model_dir, local, tmp_path_factory.mktemp("static-run"))


@pytest.fixture(scope="module")
def static_shared_run(static_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The static model on the shared task copies (the other task types; a minute or more)."""
    local = dict.fromkeys(SHARED_TASK_NAMES, SHARED_TASKS)
    return _run_tasks(static_model_dir, local, tmp_path_factory.mktemp("static-shared-run"))


def _folder(root: Path, name: str) -> Path:
    if root == FIXTURES:
        return FIXTURES / next(kind for kind, task in FIXTURE_TASKS.items() if task == name)
    return root / name


def test_static_model_scores_every_fixture_task_type(static_run: tuple) -> None:
    _, summary = static_run
    rows = summary.set_index("task").loc[FIXTURE_NAMES]
    assert list(rows["status"]) == ["ran"] * 3, rows["error"].tolist()
    assert all(math.isfinite(score) for score in rows["main_score"])


@pytest.mark.slow
@needs_shared_tasks
def test_static_model_scores_every_shared_task(
    static_shared_run: tuple, static_model_dir: Path
) -> None:
    _, summary = static_shared_run
    rows = summary.set_index("task").loc[list(SHARED_TASK_NAMES)]
    assert list(rows["status"]) == ["ran"] * 4, rows["error"].tolist()
    assert all(math.isfinite(score) and 0 < score <= 1 for score in rows["main_score"])
    _check_mteb_layout(*static_shared_run, static_model_dir)


def test_summary_and_mteb_layout(static_run: tuple, static_model_dir: Path) -> None:
    _check_mteb_layout(*static_run, static_model_dir)


def _check_mteb_layout(results: Path, summary: pd.DataFrame, static_model_dir: Path) -> None:
    """The summary's columns; every task's result loads back through mteb; no staging left."""
    assert list(summary.columns) == SUMMARY_COLUMNS
    meta = load_model(static_model_dir).mteb_model_meta
    assert set(summary["revision"]) == {meta.revision}
    for task in summary["task"]:
        loaded = mteb.ResultCache(results).load_task_result(task, meta)
        assert loaded is not None and loaded.task_name == task
    assert not list((results / ".staging").glob("*")), "staging folders must be cleaned up"


def test_retrieval_predictions_are_saved_and_rescored(
    static_run: tuple, static_model_dir: Path
) -> None:
    results, _ = static_run
    meta = load_model(static_model_dir).mteb_model_meta
    path = predictions_path(results, meta, "AskUbuntuDupQuestions")
    per_query = per_query_ndcg(
        load_predictions(path), read_qrels_tsv(FIXTURES / "Reranking" / "qrels" / "test.tsv")
    )
    assert list(per_query.index) == ["q1", "q2", "q3", "q4"]
    reported = TaskResult.from_disk(result_path(results, meta, "AskUbuntuDupQuestions"))
    assert round(per_query.mean(), 5) == pytest.approx(
        reported.scores["test"][0]["ndcg_at_10"], abs=1e-6
    )


def test_resume_skips_finished_tasks_and_always_reruns(
    static_model_dir: Path, tmp_path: Path
) -> None:
    first = _run(static_model_dir, FIXTURE_NAMES[:2], tmp_path)
    assert list(first["status"]) == ["ran", "ran"]
    again = _run(static_model_dir, FIXTURE_NAMES[:2], tmp_path)
    assert list(again["status"]) == ["cached", "cached"]
    assert list(again["main_score"]) == pytest.approx(list(first["main_score"]), abs=1e-6)
    forced = _run(static_model_dir, FIXTURE_NAMES[:1], tmp_path, overwrite="always")
    assert list(forced["status"]) == ["ran"]


def test_failing_task_does_not_stop_the_run(static_model_dir: Path, tmp_path: Path) -> None:
    broken = load_local_task(FIXTURES / "Clustering")

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom while loading")

    broken.load_data = explode
    tasks = ["AskUbuntuDupQuestions", broken, "SprintDuplicateQuestions"]
    summary = _run(static_model_dir, tasks, tmp_path)
    assert list(summary["task"]) == [
        "AskUbuntuDupQuestions",
        broken.metadata.name,
        "SprintDuplicateQuestions",
    ]
    assert list(summary["status"]) == ["ran", "failed", "ran"]
    error = summary.set_index("task").loc[broken.metadata.name, "error"]
    assert error == "RuntimeError: boom while loading"
    assert len(_all_result_files_parse(tmp_path)) == 2


def test_interrupted_write_leaves_no_truncated_result(
    static_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_to_disk = TaskResult.to_disk

    def half_write(self: TaskResult, path: Path) -> None:
        # what mteb does when killed mid json.dump: the target file holds a prefix
        path.write_text(json.dumps(self.model_dump(mode="json"))[:40])
        raise KeyboardInterrupt("killed while writing")

    monkeypatch.setattr(TaskResult, "to_disk", half_write)
    with pytest.raises(KeyboardInterrupt):
        _run(static_model_dir, FIXTURE_NAMES[:1], tmp_path)
    assert _all_result_files_parse(tmp_path) == []  # the prefix stayed in staging
    monkeypatch.setattr(TaskResult, "to_disk", real_to_disk)
    summary = _run(static_model_dir, FIXTURE_NAMES[:1], tmp_path)
    assert list(summary["status"]) == ["ran"]
    assert not list((tmp_path / ".staging").glob("*"))


def test_corrupt_result_from_elsewhere_is_moved_aside(
    static_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from analysis.core.paths import display_path
    from analysis.runs.plan import make_plan
    from analysis.runs.status import plan_status

    meta = load_model(static_model_dir).mteb_model_meta
    target = result_path(tmp_path, meta, FIXTURE_NAMES[0])
    aside = target.with_name(target.name + ".corrupt")
    target.parent.mkdir(parents=True)
    broken = '{"dataset_revision": "d66bd1f7", "task_na'
    target.write_text(broken)
    # status, before anything runs again: set aside, not "results missing"
    plan = make_plan([static_model_dir], FIXTURE_NAMES[:1], results_dir=tmp_path,
                     local_tasks_dir=FIXTURES)  # fmt: skip
    (status,) = plan_status(plan)
    assert status.state == "pending"
    assert status.detail.startswith(f"1 corrupt result set aside: {display_path(aside)}")
    target.write_text(broken)
    summary = _run(static_model_dir, FIXTURE_NAMES[:1], tmp_path)
    assert list(summary["status"]) == ["ran"]
    assert aside.is_file() and summary.attrs["set_aside"] == [str(aside)]
    TaskResult.from_disk(target)
    assert plan_status(plan)[0].state == "done"
    # the command line says so in its own output, in one line
    target.write_text(broken)
    argv = ["-m", str(static_model_dir), "-t", FIXTURE_NAMES[0], "--local-tasks", str(FIXTURES)]
    assert static_rteb(["run", *argv, "--results", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"note: 1 corrupt result set aside (its task ran again): {display_path(aside)}" in out


CHILD = """
import sys, time
from analysis.runs.models import load_model
from analysis.runs.runner import run_evaluation

model_dir, results, fixtures, *tasks = sys.argv[1:]
model = load_model(model_dir)
encode = type(model).encode

def slow_after_first(self, inputs, *, task_metadata, **kwargs):
    if task_metadata.name != tasks[0]:
        open(results + ".sleeping", "w").close()
        time.sleep(600)  # the parent kills us here, in the middle of the second task
    return encode(self, inputs, task_metadata=task_metadata, **kwargs)

type(model).encode = slow_after_first
run_evaluation([model], tasks, results_dir=results, local_tasks_dir=fixtures, show_progress=False)
"""


@pytest.mark.slow
def test_sigkill_mid_run_loses_nothing_and_resumes(static_model_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    results = tmp_path / "results"
    log = tmp_path / "child.log"
    argv = [str(static_model_dir), str(results), str(FIXTURES), *FIXTURE_NAMES]
    with log.open("wb") as stderr:
        child = subprocess.Popen(
            [sys.executable, str(script), *argv],
            cwd=REPO,
            env=cli_env(),
            stdout=stderr,
            stderr=stderr,
        )
    meta = load_model(static_model_dir).mteb_model_meta
    first = result_path(results, meta, FIXTURE_NAMES[0])
    staging = results / ".staging"
    wait_for(first.is_file, f"the first task's result (log: {log})", timeout=300, process=child)
    sleeping = Path(f"{results}.sleeping")  # the child is inside the second task's encode
    wait_for(sleeping.is_file, f"the second task's encode (log: {log})", timeout=60, process=child)
    alive = child.poll() is None
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert alive and first.is_file() and sleeping.is_file(), log.read_text()[-3000:]

    assert _all_result_files_parse(results) == [first]
    assert list(staging.iterdir()), "the killed task's staging folder remains"
    summary = _run(static_model_dir, FIXTURE_NAMES, results)
    status = dict(zip(summary["task"], summary["status"], strict=True))
    assert status == {FIXTURE_NAMES[0]: "cached", FIXTURE_NAMES[1]: "ran", FIXTURE_NAMES[2]: "ran"}
    assert len(_all_result_files_parse(results)) == 3
    assert not list(staging.iterdir())


def test_unknown_task_lists_close_names() -> None:
    with pytest.raises(UnknownTaskError, match=r"Closest names: 'SprintDuplicateQuestions'"):
        resolve_tasks(["SprintDuplicateQuestion"])


def test_local_task_wins_over_hub_and_benchmarks_expand() -> None:
    tasks = resolve_tasks(["AskUbuntuDupQuestions"], FIXTURES)
    assert getattr(tasks[0], "local_folder", None) == FIXTURES / "Reranking"
    benchmark = mteb.get_benchmark("NanoBEIR")
    expanded = resolve_tasks(["NanoBEIR"])
    assert [t.metadata.name for t in expanded] == [t.metadata.name for t in benchmark.tasks]


def test_invalid_options_are_rejected(static_model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="overwrite must be one of"):
        _run(static_model_dir, FIXTURE_NAMES[:1], tmp_path, overwrite="sometimes")
    with pytest.raises(ValueError, match="batch_size must be positive"):
        _run(static_model_dir, FIXTURE_NAMES[:1], tmp_path, batch_size=0)


def test_model_that_fails_to_load_is_reported(tmp_path: Path) -> None:
    summary = run_evaluation(
        [tmp_path / "missing-model"],
        FIXTURE_NAMES[:2],
        results_dir=tmp_path,
        local_tasks_dir=FIXTURES,
        show_progress=False,
    )
    assert list(summary["status"]) == ["failed", "failed"]
    assert summary["error"].str.contains("does not exist").all()


def test_unnamed_model_is_refused(static_model_dir: Path, tmp_path: Path) -> None:
    from mteb.models import SentenceTransformerEncoderWrapper
    from sentence_transformers import SentenceTransformer

    unnamed = SentenceTransformerEncoderWrapper(SentenceTransformer(str(static_model_dir)))
    assert unnamed.mteb_model_meta.revision == "no_revision_available"  # mteb's placeholder
    summary = run_evaluation(
        [unnamed],
        FIXTURE_NAMES[:1],
        results_dir=tmp_path,
        local_tasks_dir=FIXTURES,
        show_progress=False,
    )
    assert list(summary["status"]) == ["failed"]
    assert "no_model_name_available/no_revision_available" in summary["error"][0]
    assert not (tmp_path / "results").exists()


def test_mteb_placeholder_serves_unnamed_models_each_others_results(
    static_model_dir: Path, tmp_path: Path
) -> None:
    """Why the model2vec report got scores for some tasks and nothing for others (mteb 2.26)."""
    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer

    cache = mteb.ResultCache(tmp_path)
    pair_task = FIXTURES / "PairClassification"
    # 1. a model loaded from a folder has no name: mteb files it under the placeholder
    first = mteb.evaluate(
        SentenceTransformer(str(static_model_dir)),
        load_local_task(pair_task),
        cache=cache,
        show_progress_bar=False,
    )
    placeholder = tmp_path / "results" / "no_model_name__available" / "no_revision_available"
    assert (placeholder / "SprintDuplicateQuestions.json").is_file()
    # 2. a bare StaticModel (no mteb_model_meta) is replaced by an empty ModelMeta: it gets
    #    the cached result of step 1 without encoding anything ...
    bare = StaticModel.from_pretrained(str(static_model_dir))
    second = mteb.evaluate(bare, load_local_task(pair_task), cache=cache, show_progress_bar=False)
    assert second.task_results[0].get_score() == pytest.approx(
        first.task_results[0].get_score(), abs=1e-6
    )
    # 3. ... and on a task nobody ran before it cannot run at all: no scores
    with pytest.raises(NotImplementedError, match="No model implementation"):
        mteb.evaluate(
            bare,
            load_local_task(FIXTURES / "Clustering"),
            cache=cache,
            raise_error=False,
            show_progress_bar=False,
        )


def test_cli_runs_and_resumes(
    static_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = [
        "-m",
        str(static_model_dir),
        "-t",
        *FIXTURE_NAMES[:2],
        "--local-tasks",
        str(FIXTURES),
        "--results",
        str(tmp_path),
        "--quiet",
    ]
    assert static_rteb(["run", *argv]) == 0
    assert static_rteb(["run", *argv]) == 0
    assert capsys.readouterr().out.count("cached") == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["-m", "no/such-model", "-t", "STSBenchmark"],
            r"no network \(HF_HUB_OFFLINE or no connection\): pass a local folder with --name",
        ),
        (["-m", "./no-such-folder", "-t", "STSBenchmark"], "does not exist"),
        (["-m", "nonsense id", "-t", "STSBenchmark"], "neither an existing folder"),
        (["-m", "x/y", "-t", "STSBenchmrk"], "Closest names: 'STSBenchmark'"),
    ],
)
def test_cli_clear_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    assert static_rteb(["run", *argv]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_cli_help_lists_options(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as stop:
        static_rteb(["run", "--help"])
    assert stop.value.code == 0
    help_text = capsys.readouterr().out
    for option in (
        "--model",
        "--name",
        "--tasks",
        "--local-tasks",
        "--results",
        "--batch-size",
        "--overwrite",
        "--public-only",
    ):
        assert option in help_text


def test_per_query_ndcg_hand_computed_and_like_pytrec_eval() -> None:
    import pytrec_eval

    predictions = {
        "a": {"d1": 0.9, "d2": 0.8, "d3": 0.7},
        "b": {"d1": 0.5, "d2": 0.5, "d3": 0.1},  # tie: trec_eval ranks d2 before d1
        "c": {"d9": 1.0},  # no relevant document retrieved
        "x": {"d1": 1.0},  # not judged: left out
    }
    qrels = {"a": {"d2": 1}, "b": {"d1": 2, "d3": 1}, "c": {"d1": 1}, "z": {"d1": 1}}
    per_query = per_query_ndcg(predictions, qrels, k=10)
    assert list(per_query.index) == ["a", "b", "c"]
    assert per_query["a"] == pytest.approx(1 / math.log2(3))
    ideal_b = 2 + 1 / math.log2(3)
    assert per_query["b"] == pytest.approx((2 / math.log2(3) + 1 / 2) / ideal_b)
    assert per_query["c"] == 0.0
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(predictions)
    assert per_query.to_dict() == pytest.approx({q: v["ndcg_cut_10"] for q, v in reference.items()})
    assert per_query_ndcg(predictions, qrels, k=1)["b"] == 0.0
    with pytest.raises(ValueError, match="positive"):
        per_query_ndcg(predictions, qrels, k=0)
    with pytest.raises(ValueError, match="No query id is in both"):
        per_query_ndcg({"q": {"d": 1.0}}, {"r": {"d": 1}})


def test_cli_shows_one_bar_named_after_the_running_task(
    static_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """One bar over (model, task) pairs, naming the task being run; no per-batch bars."""
    argv = ["-m", str(static_model_dir), "-t", *FIXTURE_NAMES, "--local-tasks", str(FIXTURES)]
    assert static_rteb(["run", *argv, "--results", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    frames = [f for f in re.split(r"[\r\n]", err) if re.search(r"\d+/\d+ \[", f)]
    assert frames, err[-2000:]
    total = len(FIXTURE_NAMES)
    assert all(f" {_count(f)}/{total} [" in f for f in frames), frames  # the one pairs bar
    assert frames[0].startswith("model x task:"), frames  # before the model is loaded
    named = [(_count(f), _task_named(f)) for f in frames[1:]]
    for count, task in named:  # the task running (count done before it) or just finished
        assert FIXTURE_NAMES.index(task) in (count, count - 1), (count, task, frames)
    assert {count for count, task in named if FIXTURE_NAMES.index(task) == count} == set(
        range(total)
    ), frames  # every task is named while it runs
    assert "Batches" not in err and "Evaluating" not in err, err[-2000:]


def _task_named(frame: str) -> str:
    """The task a frame of the pairs bar names (``<model> | <task>: ...``)."""
    return frame.split(": ", 1)[0].rsplit(" | ", 1)[1]


def _count(frame: str) -> int:
    """The number of finished pairs a tqdm frame shows (``n/total``)."""
    return int(re.search(r" (\d+)/\d+ \[", frame).group(1))  # type: ignore[union-attr]


def test_a_task_whose_data_the_hub_did_not_give_points_to_local_tasks(capsys):
    """Offline without ``--local-tasks``, datasets' ``Couldn't reach ... on the Hub``: the
    summary says where the data can come from instead; other failures get no such hint."""
    import pandas as pd

    from analysis.runs.cli import _print_summary

    def summary(error: str) -> pd.DataFrame:
        row = {"model": "m", "revision": "r", "task": "STSBenchmark", "status": "failed"}
        return pd.DataFrame([{**row, "main_score": None, "error": error}])

    reach = (
        "ConnectionError: Couldn't reach 'mteb/stsbenchmark-sts' on the Hub (OfflineModeIsEnabled)"
    )
    _print_summary(summary(reach))
    assert "give local copies of the tasks with --local-tasks FOLDER" in capsys.readouterr().err
    _print_summary(summary("ValueError: bad dimensions"))
    err = capsys.readouterr().err
    assert "1 evaluation(s) failed" in err and "--local-tasks" not in err


def test_a_stopped_overwrite_always_run_resumes_with_it_until_something_finished():
    """``--overwrite always`` stays in the resume command of a run stopped before any
    evaluation finished (without it the rerun found the earlier results and redid nothing),
    and is left out once one did (it would redo that one too)."""
    from analysis.core.errors import RunInterrupted
    from analysis.runs.cli import _resume_command

    argv = ["-m", "my model", "-t", "SciFact", "--overwrite", "always"]
    resume = _resume_command(argv)
    assert resume(RunInterrupted(finished=0)) == "static-rteb run " + shlex.join(argv)
    assert resume(RunInterrupted(finished=1)) == "static-rteb run -m 'my model' -t SciFact"
    assert _resume_command(argv[:4])(RunInterrupted(finished=1)).endswith("-t SciFact")


def test_a_stopped_overwrite_always_run_resumes_always_over_exactly_the_rest():
    """Once evaluations finished, the resume keeps ``--overwrite always`` for exactly the
    (model, task) pairs the run had not finished, in its order (model by model), names kept
    with their models, a benchmark in ``-t`` kept as given, the other options as they were."""
    import argparse
    import itertools

    from analysis.cli.build_cli import build_cli
    from analysis.core.errors import RunInterrupted
    from analysis.runs.cli import _resume_command

    parser = build_cli()

    def pairs(command: str, resolved: dict[str, list[str]]) -> list[tuple[str, str, str]]:
        out = []
        for part in command.split(" && "):
            words = shlex.split(part)
            assert words[:2] == ["static-rteb", "run"]
            got = parser.parse_args(words[1:])
            assert got.overwrite == "always" and got.batch_size == 8 and got.local_tasks == "x y"
            names = [*got.name, *[None] * (len(got.model) - len(got.name))]
            tasks = [t for word in got.tasks for t in resolved.get(word, [word])]
            out += [
                (m, str(n), t)
                for (m, n), t in itertools.product(zip(got.model, names, strict=True), tasks)
            ]
        return out

    models, names = ["my model", "other", "third"], ["org/mine", "org/other"]
    argv = ["-m", models[0], "--name", names[0], "-m", models[1], "--model", models[2]]
    argv += ["--name", names[1], "-t", "Bench", "SciFact", "--overwrite", "always"]
    argv += ["--batch-size", "8", "--local-tasks", "x y"]
    resolved = {"Bench": ["STSBenchmark", "Banking77Classification"]}
    args = parser.parse_args(["run", *argv])
    args.resolved = [*resolved["Bench"], "SciFact"]
    every = [
        (m, str(n), t)
        for (m, n), t in itertools.product(zip(models, [*names, None], strict=True), args.resolved)
    ]
    named = [word if word != "Bench" else resolved["Bench"] for word in argv]  # tasks by name
    named = [w for word in named for w in ([word] if isinstance(word, str) else word)]
    for words in (named, argv):
        args = parser.parse_args(["run", *words])
        args.resolved = [*resolved["Bench"], "SciFact"]
        resume = _resume_command(words, args)
        for finished in range(1, len(every)):
            got = pairs(resume(RunInterrupted(finished=finished)), resolved)
            i, j = divmod(finished, len(args.resolved))
            # a benchmark's tasks may differ from the same names alone: its model, all again
            redone = every[i * len(args.resolved) : finished] if words is argv and j else []
            assert got == redone + every[finished:]
    # every spelling run reads (-mX, --nam, -tA, --model=, --overwrite=) resumes exactly the rest
    stop = RunInterrupted(finished=1)
    for odd in (
        ["-mM1", "-m", "M2", "-t", "A", "B", "--overwrite=always"],
        ["-m", "M1", "--nam", "o/n", "--model=M2", "-t", "A", "--tasks=B", "--over", "always"],
        ["-m", "M1", "-mM2", "-tA", "-t", "B", "--overwrite", "always", "--batch-size=8"],
    ):
        odd_args = parser.parse_args(["run", *odd])
        odd_args.resolved = ["A", "B"]
        got = _resume_command(odd, odd_args)(stop)
        parts = [parser.parse_args(shlex.split(part)[1:]) for part in got.split(" && ")]
        done = [(m, t) for p in parts for m in p.model for t in p.tasks]
        want = [("M1", "B"), ("M2", "A"), ("M2", "B")]
        assert done == want and all(p.overwrite == "always" for p in parts), got
        assert parts[0].name == (["o/n"] if "o/n" in odd else [])
    # it cannot tell the rest without the resolved tasks, or with nothing left: it drops always
    # (what was not reached keeps its results), as before
    assert "always" not in _resume_command(argv, argparse.Namespace())(stop)
    assert "always" not in resume(RunInterrupted(finished=len(every)))
