"""analysis.core.layout: one owner for where result, prediction and lock files live.

mteb's rule (``ResultCache.get_task_result_path``) puts an ``experiments/<name>`` level
below the revision for a model with experiment keyword arguments; the runner, the plan's
jobs, the locks and ``static-rteb status`` must all agree with it, and no second module
may build these paths.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from analysis.core.layout import EXPERIMENTS, ModelFolder
from tests._run_fixtures import FIXTURE_TASKS, FIXTURES, hashing_encoder
from tests.conftest import REPO

PACKAGE = REPO / "analysis"
TASK = FIXTURE_TASKS["PairClassification"]
#: Modules that may call model_folder_name, and why: neither files anything.
READS_FOLDER_NAMES = {
    "analysis/core/layout.py": "the owner",
    "analysis/core/errors.py": "defines model_folder_name",
    "analysis/results/assemble.py": "matches the folder names a results scan found",
    "analysis/runs/submit/submission.py": "names the submission's output folder after the model",
}


def _meta(experiment: dict[str, object] | None = None):
    """An mteb ModelMeta with a space in its name and, when given, experiment kwargs."""
    return hashing_encoder("test/hashing model", "r1", experiment_kwargs=experiment).mteb_model_meta


@pytest.mark.parametrize("experiment", [None, {"dims": 8}], ids=["plain", "experiment"])
def test_result_files_are_where_mteb_puts_them(tmp_path: Path, experiment) -> None:
    import mteb

    meta = _meta(experiment)
    expected = mteb.ResultCache(tmp_path).get_task_result_path(TASK, meta)
    assert ModelFolder.of(meta).result_file(tmp_path, TASK) == expected
    assert (EXPERIMENTS in expected.parts) == (experiment is not None)


def test_every_path_of_an_experiment_has_its_level(tmp_path: Path) -> None:
    """The runner's result, prediction and lock paths, and the plan's job, agree."""
    from analysis.runs.locks import lock_path
    from analysis.runs.plan import Job
    from analysis.runs.runner import predictions_path, result_path

    meta = _meta({"dims": 8})
    job = Job("j", "m", str(meta.name), str(meta.revision), None, None, (TASK,), str(tmp_path))
    job = Job(**{**job.__dict__, "experiment": meta.experiment_name})
    level = Path(EXPERIMENTS, meta.experiment_name)
    assert job.result_files() == [result_path(tmp_path, meta, TASK)]
    assert job.lock_files() == [lock_path(tmp_path, meta, TASK)]
    for path in (
        job.result_files()[0],
        job.lock_files()[0],
        predictions_path(tmp_path, meta, TASK),
    ):
        assert path.parent.relative_to(tmp_path).parts[-2:] == level.parts, path


def test_a_run_with_an_experiment_is_complete_for_plan_and_status(tmp_path: Path) -> None:
    from analysis.runs.plan import Job, Plan, job_complete, job_id
    from analysis.runs.runner import run_evaluation
    from analysis.runs.status import plan_status

    encoder = hashing_encoder("test/hashing model", "r1", experiment_kwargs={"dims": 8})
    meta = encoder.mteb_model_meta
    summary = run_evaluation(
        [encoder], [TASK], results_dir=tmp_path, local_tasks_dir=FIXTURES, show_progress=False
    )
    assert summary["status"].tolist() == ["ran"]
    name, revision, experiment = str(meta.name), str(meta.revision), meta.experiment_name
    job = Job(
        job_id(name, revision, [TASK], experiment), "m", name, revision, None, None, (TASK,),
        str(tmp_path), str(FIXTURES), experiment=experiment,
    )  # fmt: skip
    assert job.result_files()[0].is_file()
    assert job_complete(job)
    (status,) = plan_status(Plan(results_dir=str(tmp_path), jobs=(job,)), queue={})
    assert status.state == "done"
    assert job_id(name, revision, [TASK]) != job.job_id  # the experiment is its own job


def _folder_name_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None))
        in {"model_folder_name", "model_name_as_path"}
    ]


def _experiment_literals(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == EXPERIMENTS
    ]


def test_no_second_module_builds_the_layout() -> None:
    offenders = [
        f"{rel}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (rel := path.relative_to(REPO).as_posix()) not in READS_FOLDER_NAMES
        for line in _folder_name_calls(path) + _experiment_literals(path)
    ]
    assert not offenders, (
        "these build a result, prediction or lock path themselves; ask "
        "analysis.core.layout.ModelFolder instead:\n" + "\n".join(offenders)
    )


def test_the_layout_check_sees_a_second_owner(tmp_path: Path) -> None:
    """The check finds the two ways the old code built paths (the test can fail)."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(root, m):\n"
        "    return root / model_folder_name(m.name) / m.revision\n"
        "def g(meta):\n"
        "    return meta.model_name_as_path() + '/experiments/' + 'x'\n"
        "E = 'experiments'\n"
    )
    assert _folder_name_calls(bad) == [2, 4]
    assert _experiment_literals(bad) == [5]
