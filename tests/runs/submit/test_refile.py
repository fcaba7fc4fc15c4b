"""Re-filing rules: which runs may go under which hub name and revision (hand-made run folders)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.core.errors import LeaderboardSubmitError
from analysis.runs.models import content_revision
from analysis.runs.submit import refile
from tests._submit_fixtures import write_result

SHA = "0123456789abcdef0123456789abcdef01234567"
REGISTERED = "fedcba9876543210fedcba9876543210fedcba98"


def run_folder(
    root: Path, name: str, revision: str, *, score: float = 0.8, reference: str | None = None
) -> Path:
    """A run's revision folder as the project's runner writes it (hand-made scores)."""
    folder = root / "results" / name.replace("/", "__") / revision
    write_result(folder, "STSBenchmark", score)
    meta = {
        "name": name,
        "revision": revision,
        "reference": reference,
        "framework": [],
        "languages": None,
    }
    (folder / "model_meta.json").write_text(json.dumps(meta))
    return folder


def model_dir(root: Path) -> Path:
    folder = root / "model"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "model2vec", "hidden_dim": 8}))
    return folder


def plan(folders, model="my-org/my-model", **kwargs):
    return refile.plan_runs(refile.read_runs(folders), model, **kwargs)


def test_local_run_is_refiled_under_hub_name_and_revision(tmp_path):
    folder = model_dir(tmp_path)
    revision = content_revision(folder)
    run = run_folder(tmp_path / "runs", "local/model", revision, reference=folder.as_uri())
    submission = plan([tmp_path / "runs"], revision=SHA)
    assert (submission.name, submission.revision) == ("my-org/my-model", SHA)
    assert submission.folder == f"results/my-org__my-model/{SHA}"
    assert submission.tasks == {"STSBenchmark": run / "STSBenchmark.json"}
    assert submission.model_dir == folder
    assert any("re-filed from local/model" in note for note in submission.notes)
    staged = refile.stage(submission, "{}", tmp_path / "cache")
    assert staged == tmp_path / "cache" / submission.folder
    assert (staged / "STSBenchmark.json").read_bytes() == (run / "STSBenchmark.json").read_bytes()


def test_revision_defaults(tmp_path):
    run_folder(tmp_path / "a", "local/model", "local-abc")
    assert plan([tmp_path / "a"], registered_revision=REGISTERED).revision == REGISTERED
    assert (
        plan([tmp_path / "a"], registered_revision=REGISTERED, folder_revision=SHA).revision == SHA
    )
    assert plan([tmp_path / "a"]).revision is None
    run_folder(tmp_path / "b", "my-org/my-model", SHA)
    assert plan([tmp_path / "b"], registered_revision=REGISTERED).revision == SHA


@pytest.mark.parametrize(
    ("revision", "match"),
    [
        ("abc", "40-character"),
        (SHA.upper(), "use lowercase"),
        ("local-" + "0" * 34, "40-character"),
    ],
)
def test_bad_revision_is_refused(tmp_path, revision, match):
    run_folder(tmp_path, "local/model", "local-abc")
    with pytest.raises(LeaderboardSubmitError, match=match):
        plan([tmp_path], revision=revision)


@pytest.mark.parametrize("model", ["my-model", "local/my-model", "org/name with space"])
def test_model_without_organisation_is_refused(tmp_path, model):
    run_folder(tmp_path, "local/model", "local-abc")
    with pytest.raises(LeaderboardSubmitError, match="hub id 'org/name'"):
        plan([tmp_path], model=model)


def test_hub_named_run_keeps_its_name_and_revision(tmp_path):
    run_folder(tmp_path, "org/a", SHA)
    with pytest.raises(LeaderboardSubmitError, match="Pass --model org/a"):
        plan([tmp_path], model="org/b")
    with pytest.raises(LeaderboardSubmitError, match="were made with revision"):
        plan([tmp_path], model="org/a", revision=REGISTERED)


def test_runs_of_two_models_or_two_results_for_a_task_are_refused(tmp_path):
    run_folder(tmp_path / "a", "local/one", "local-1")
    run_folder(tmp_path / "b", "local/two", "local-2")
    with pytest.raises(LeaderboardSubmitError, match="several models or revisions"):
        plan([tmp_path / "a", tmp_path / "b"], revision=SHA)
    run_folder(tmp_path / "c", "local/one", "local-1", score=0.7)
    with pytest.raises(LeaderboardSubmitError, match="two different results for STSBenchmark"):
        plan([tmp_path / "a", tmp_path / "c"], revision=SHA)
    run_folder(tmp_path / "d", "local/one", "local-1")  # the same file twice is fine
    assert list(plan([tmp_path / "a", tmp_path / "d"], revision=SHA).tasks) == ["STSBenchmark"]


def test_changed_model_folder_is_refused(tmp_path):
    folder = model_dir(tmp_path)
    run_folder(
        tmp_path / "runs", "local/model", content_revision(folder), reference=folder.as_uri()
    )
    (folder / "config.json").write_text(json.dumps({"model_type": "model2vec", "hidden_dim": 16}))
    with pytest.raises(LeaderboardSubmitError, match="Rerun the tasks"):
        plan([tmp_path / "runs"], revision=SHA)


def test_folder_without_runs_is_refused(tmp_path):
    with pytest.raises(LeaderboardSubmitError, match="holds no run"):
        refile.find_run_folders(tmp_path)
    with pytest.raises(LeaderboardSubmitError, match="does not exist"):
        refile.find_run_folders(tmp_path / "missing")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "model_meta.json").write_text(
        json.dumps({"name": "local/m", "revision": "local-1"})
    )
    with pytest.raises(LeaderboardSubmitError, match="no result file"):
        refile.read_run(tmp_path / "r")


def test_model_dir_of_another_model_is_refused(tmp_path):
    folder = model_dir(tmp_path / "a")
    runs = [refile.read_run(run_folder(tmp_path / "runs", "local/model", content_revision(folder)))]
    refile.check_model_dir(runs, folder)  # the folder the run was made from: fine
    other = model_dir(tmp_path / "b")
    (other / "config.json").write_text(json.dumps({"model_type": "model2vec", "hidden_dim": 4}))
    with pytest.raises(LeaderboardSubmitError, match="hashes to"):
        refile.check_model_dir(runs, other)


def test_a_folder_of_several_models_gives_the_named_or_the_local_one(tmp_path):
    """``submit --results data/runs`` once a second model has been run there."""
    runs = tmp_path / "runs"
    local = run_folder(runs, "local/mine", "local-1")
    run_folder(runs, "org/a", SHA, score=0.7)  # a rerun of a leaderboard model
    taken = plan([runs], model="my-org/mine", revision=REGISTERED)
    assert [run.path for run in taken.runs] == [local]
    assert "took the one local model's runs, local/mine @ local-1" in taken.notes[0]
    assert "left org/a @ " + SHA in taken.notes[0]
    named = plan([runs], model="org/a")
    assert {run.name for run in named.runs} == {"org/a"} and named.revision == SHA
    assert "took the runs filed under --model" in named.notes[0]
    run_folder(runs, "local/other", "local-2")  # two local models: which one is not clear
    with pytest.raises(LeaderboardSubmitError) as err:
        plan([runs], model="my-org/mine", revision=REGISTERED)
    message = str(err.value)
    assert "several models or revisions" in message and "2 are local models" in message
    for folder in ("local__mine/local-1", "local__other/local-2", f"org__a/{SHA}"):
        assert f"--results {runs / 'results' / folder}" in message  # the folders to pass


def test_an_unknown_model_is_refused_after_the_several_models_problem(tmp_path):
    from analysis.runs.submit import submission

    runs = tmp_path / "runs"
    run_folder(runs, "local/mine", "local-1")
    run_folder(runs, "local/other", "local-2")
    with pytest.raises(LeaderboardSubmitError) as err:  # not "mteb does not know the model"
        submission._prepare([runs], "my-org/not-registered", tmp_path, None, None, None)
    assert "several models or revisions" in str(err.value)
    assert "does not know the model" not in str(err.value)


def test_an_unknown_model_refused_from_several_says_which_runs_it_took(tmp_path):
    """The refusal of a model mteb does not know names the runs it took from the folder."""
    from analysis.runs.submit import submission

    runs = tmp_path / "runs"
    run_folder(runs, "local/mine", "local-1")
    run_folder(runs, "org/a", SHA, score=0.7)
    with pytest.raises(LeaderboardSubmitError) as err:
        submission._prepare([runs], "my-org/not-registered", tmp_path, None, None, None)
    message = str(err.value)
    assert "does not know the model 'my-org/not-registered'" in message
    assert "Note: --results holds several models; took the one local model's runs" in message
    assert "local/mine @ local-1" in message and f"left org/a @ {SHA}" in message
