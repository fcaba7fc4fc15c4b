"""``static-rteb submit`` end to end: the project's own runs into a mock results-repository checkout.

* all-MiniLM-L6-v2 (the packaged folder, run unnamed, so filed under ``local/model`` and a
  ``local-<hash>`` revision) on the shared STSBenchmark task is re-filed under
  ``sentence-transformers/all-MiniLM-L6-v2`` and mteb's registered revision, passes the
  pre-flight (the checkout's own tests: a stand-in of the results repository's suite, or
  with ``$STATIC_RTEB_RESULTS_REPO`` set, the real one) and is committed on a new branch of
  a checkout whose main lacks it; the commit holds exactly the files the pre-flight checked.
* a model2vec model distilled from MiniLM (unknown to mteb) is refused before anything is
  committed, with its ``ModelMeta`` registry entry written.

``--create-pr`` (mteb's pull-request path: network, PyGithub, a GitHub token) is not tested.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path

import pytest

from analysis.cli import main as cli
from analysis.core.errors import LeaderboardSubmitError, PreflightError, UnregisteredModelError
from analysis.runs.runner import ModelSpec, run_evaluation
from analysis.runs.submit import preflight, submit
from analysis.runs.submit.model_meta import model_meta_json
from tests._run_fixtures import (
    MINILM,
    SHARED_TASKS,
    distilled_static_model,
    minilm_dir,
    needs_shared_tasks,
)
from tests._submit_fixtures import (
    commit_all,
    git,
    init_checkout,
    model_folder,
    needs_results_repo,
    results_repo_copy,
    write_result,
)

pytestmark = [pytest.mark.slow, pytest.mark.shared, needs_shared_tasks]
TASKS = ["STSBenchmark"]
SHA = "0123456789abcdef0123456789abcdef01234567"
UNKNOWN = "static-rteb-tests/static-minilm-m2v"


def _run(model: Path, results: Path) -> Path:
    """Run ``model`` (a local folder, unnamed) on the shared tasks once; its revision folder."""
    if not (results / "results").is_dir():
        summary = run_evaluation(
            [ModelSpec(model)],
            TASKS,
            results_dir=results,
            local_tasks_dir=SHARED_TASKS,
            show_progress=False,
        )
        assert set(summary["status"]) == {"ran"}, summary["error"].tolist()
    (folder,) = sorted((results / "results").glob("*/*"))
    return folder


@pytest.fixture(scope="session")
def minilm_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(minilm_dir(), tmp_path_factory.getbasetemp() / "submit-minilm-runs")


@pytest.fixture(scope="session")
def static_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = distilled_static_model(tmp_path_factory)
    return _run(folder, tmp_path_factory.getbasetemp() / "submit-static-runs")


def _registered():
    import mteb

    return mteb.get_model_meta(MINILM, fetch_from_hf=False)


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(["submit", *args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def submitted(tmp_path_factory: pytest.TempPathFactory, minilm_run: Path) -> dict:
    """The MiniLM run submitted with the command into a fresh checkout (with the real CI if available)."""
    root = tmp_path_factory.mktemp("submitted")
    checkout = init_checkout(root / "checkout", with_ci=results_repo_copy() is not None)
    main_head = git(checkout, "rev-parse", "HEAD")
    code, stdout, stderr = _cli(
        "--results",
        str(minilm_run),
        "--model",
        MINILM,
        "--checkout",
        str(checkout),
        "--out",
        str(root / "out"),
    )
    return dict(
        checkout=checkout, code=code, stdout=stdout, stderr=stderr, out=root / "out", main=main_head
    )


def test_minilm_run_is_refiled_and_committed_on_a_new_branch(submitted, minilm_run):
    assert submitted["code"] == 0, submitted["stderr"]
    checkout, stdout = submitted["checkout"], submitted["stdout"]
    assert minilm_run.name.startswith("local-")  # the run is filed under its content hash
    revision = _registered().revision
    folder = f"results/sentence-transformers__all-MiniLM-L6-v2/{revision}"
    branch = git(checkout, "branch", "--show-current")
    assert branch.startswith("mteb-results-") and f"on branch {branch}" in stdout
    assert (
        f"git -C {checkout} push <your-fork-remote> {branch}" in stdout and "gh pr create" in stdout
    )
    assert stdout.count("all CI checks pass") == 1 and "differs from what" not in stdout
    changed = git(checkout, "diff", "--name-only", f"{submitted['main']}..HEAD").split()
    assert sorted(changed) == [
        f"{folder}/{n}" for n in ("STSBenchmark.json", "model_meta.json", "run_settings.jsonl")
    ]
    assert (checkout / folder / "STSBenchmark.json").read_bytes() == (
        minilm_run / "STSBenchmark.json"
    ).read_bytes()
    written = json.loads((checkout / folder / "model_meta.json").read_text())
    assert written == json.loads(model_meta_json(_registered()))
    assert git(checkout, "status", "--porcelain") == ""
    assert preflight(checkout).ok


def test_model_card_is_written_beside_the_submission(submitted):
    card = (submitted["out"] / "model_card.md").read_text()
    assert card.startswith("---\ntags:\n- mteb\n---")
    (row,) = [line for line in card.splitlines() if MINILM in line and "|" in line]
    score = json.loads(
        (submitted["checkout"] / "results")
        .joinpath(
            "sentence-transformers__all-MiniLM-L6-v2", _registered().revision, "STSBenchmark.json"
        )
        .read_text()
    )["scores"]["test"][0]["main_score"]
    assert f"{score:g}"[:6] in row


@needs_results_repo
def test_results_repository_ci_passes_on_the_new_branch(submitted):
    report = preflight(submitted["checkout"], base=submitted["main"])
    assert report.ok and "passed" in report.tests, str(report)
    assert report.models == ("results/sentence-transformers__all-MiniLM-L6-v2",)


def test_submitting_again_changes_nothing(submitted, minilm_run):
    head = git(submitted["checkout"], "rev-parse", "HEAD")
    outcome = submit([minilm_run], MINILM, checkout=submitted["checkout"], out=submitted["out"])
    assert (
        outcome.status == "no_changes" and git(submitted["checkout"], "rev-parse", "HEAD") == head
    )


def test_check_only_commits_nothing_and_checks_a_branch(tmp_path, minilm_run, submitted):
    checkout = init_checkout(tmp_path / "checkout")
    head = git(checkout, "rev-parse", "HEAD")
    outcome = submit([minilm_run], MINILM, checkout=checkout, out=tmp_path / "out", check_only=True)
    assert outcome.status == "checked" and outcome.before is not None and outcome.before.ok
    assert len(outcome.files) == 3 and (tmp_path / "out" / "model_card.md").is_file()
    assert (
        git(checkout, "rev-parse", "HEAD") == head
        and git(checkout, "branch", "--show-current") == "main"
    )
    code, stdout, _ = _cli("--checkout", str(submitted["checkout"]), "--check-only")
    assert code == 0 and "all CI checks pass" in stdout


def test_a_failing_preflight_stops_before_the_commit(tmp_path, minilm_run):
    """The branch already holds a misnamed file in MiniLM's folder: the checkout's tests fail."""
    checkout = init_checkout(tmp_path / "checkout")
    git(checkout, "checkout", "-q", "-b", "work")
    folder = model_folder(checkout, MINILM, _registered().revision)
    write_result(folder, "STSBenchmark", 0.8, file_stem="STS12")
    head = commit_all(checkout, "a misnamed result file")
    with pytest.raises(PreflightError) as raised:
        submit([minilm_run], MINILM, checkout=checkout, out=tmp_path / "out")
    assert {f.check for f in raised.value.failures} == {"test_task_name_matches_filename"}
    rel = f"results/sentence-transformers__all-MiniLM-L6-v2/{_registered().revision}/STS12.json"
    assert f"{rel}: AssertionError: {rel} holds STSBenchmark" in str(raised.value)
    code, _, stderr = _cli(
        "--results", str(minilm_run), "--model", MINILM, "--checkout", str(checkout)
    )
    assert code == 1 and "nothing was committed" in stderr
    assert "test_task_name_matches_filename" in stderr and "name each result file" in stderr
    assert (
        git(checkout, "rev-parse", "HEAD") == head
        and git(checkout, "branch", "--list", "mteb-results-*") == ""
    )


def test_a_dirty_checkout_is_refused(tmp_path, minilm_run):
    checkout = init_checkout(tmp_path / "checkout")
    (checkout / "notes.txt").write_text("not committed")
    with pytest.raises(LeaderboardSubmitError, match="uncommitted changes"):
        submit([minilm_run], MINILM, checkout=checkout, out=tmp_path / "out")
    assert git(checkout, "branch", "--list", "mteb-results-*") == ""


def test_unknown_distilled_model_is_refused_with_its_model_meta_entry(tmp_path, static_run):
    from mteb.models import ModelMeta

    checkout = init_checkout(tmp_path / "checkout")
    head = git(checkout, "rev-parse", "HEAD")
    out = tmp_path / "out"
    args = (
        "--results",
        str(static_run),
        "--model",
        UNKNOWN,
        "--revision",
        SHA,
        "--checkout",
        str(checkout),
    )
    code, stdout, stderr = _cli(*args, "--out", str(out))
    assert code == 1 and stdout == ""
    assert f"does not know the model '{UNKNOWN}'" in stderr and "Nothing was committed" in stderr
    assert "Two pull requests, in this order" in stderr and "embeddings-benchmark/mteb" in stderr
    (entry,) = out.glob("*_model_meta.py")
    assert str(entry) in stderr
    spec = importlib.util.spec_from_file_location("generated_entry", entry)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    meta = module.static_minilm_m2v
    assert isinstance(meta, ModelMeta) and (meta.name, meta.revision, meta.embed_dim) == (
        UNKNOWN,
        SHA,
        128,
    )
    assert (
        git(checkout, "rev-parse", "HEAD") == head and git(checkout, "status", "--porcelain") == ""
    )
    assert git(checkout, "branch", "--format=%(refname:short)") == "main"
    with pytest.raises(UnregisteredModelError) as raised:
        submit([static_run], UNKNOWN, checkout=checkout, out=out)
    assert raised.value.entry_path == entry


def test_command_is_registered():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli([]) == 2
    assert "submit" in out.getvalue()
    with contextlib.redirect_stdout(io.StringIO()) as help_text, pytest.raises(SystemExit) as done:
        cli(["submit", "--help"])
    assert done.value.code == 0 and "--create-pr" in help_text.getvalue()
