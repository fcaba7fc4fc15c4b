"""The pre-flight: the checkout's own tests, run on what a pull request from it would hold.

Each case builds a mock checkout whose ``main`` passes and whose branch has one known
violation. The mock checkouts carry a stand-in of the results repository's suite
(``tests._submit_fixtures.STAND_IN_SUITE``, a few of its tests, condensed), and the
pre-flight must report exactly the stand-in's tests that the violation fails, with the file
and a fix. When ``$STATIC_RTEB_RESULTS_REPO`` names a clone of the results repository, the
same cases run through that repository's real suite, and each must fail exactly the tests
:attr:`Case.real` names (what the real suite was seen to fail, at f4cc6c8).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from analysis.core.errors import LeaderboardSubmitError, PreflightError
from analysis.runs.submit import preflight
from analysis.runs.submit.preflight import FIXES, MAX_FILE_BYTES
from tests._submit_fixtures import (
    STAND_IN_SUITE,
    commit_all,
    git,
    init_checkout,
    model_folder,
    needs_results_repo,
    publish,
    registered_sha_models,
    write_meta,
    write_result,
)

Builder = Callable[[Path, str, str, str], None]
OTHER_SHA = "e" * 40


@dataclass(frozen=True)
class Case:
    """One mock submission: what it writes on main and on the branch, what must fail."""

    id: str
    build: Builder
    real: frozenset[str] = field(default_factory=frozenset)  # the real suite's failing tests
    group: str = "combined"  # cases that crash CI's aggregate tests get their own checkout
    name: Callable[[str], str] = lambda model: model  # the model name the case files under
    stand_in: bool = True  # False: only the real suite's exemption lists decide the case

    @property
    def expected(self) -> frozenset[str]:
        """The tests of the stand-in suite (and the size check) this case fails."""
        return frozenset(t for t in self.real if t in STAND_IN_TESTS or t == "check_file_sizes")

    def folder(self, model: str) -> str:
        """The case's model folder, ``results/<org>__<name>``."""
        return "results/" + self.name(model).replace("/", "__")

    def owns(self, path: str, model: str) -> bool:
        """Whether a pre-flight failure's path lies in this case's model folder."""
        return path == self.folder(model) or path.startswith(self.folder(model) + "/")


def _clean(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        write_meta(model_folder(root, model, rev), model, rev)
        write_result(model_folder(root, model, rev), "STSBenchmark", 0.8)


def _wrong_revision_folder(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        write_meta(model_folder(root, model, OTHER_SHA), model, rev)
        write_result(model_folder(root, model, OTHER_SHA), "STSBenchmark", 0.8)


def _wrong_model_folder(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        folder = model_folder(root, model + "-typo", rev)
        write_meta(folder, model, rev)
        write_result(folder, "STSBenchmark", 0.8)


def _revision_not_sha(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        local = "local-0123456789abcdef0123456789abcdef"
        write_meta(model_folder(root, model, local), model, local)
        write_result(model_folder(root, model, local), "STSBenchmark", 0.8)


def _no_organisation(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        bare = model.split("/")[1]
        folder = root / "results" / bare / rev
        write_meta(folder, bare, rev)
        write_result(folder, "STSBenchmark", 0.8)


def _task_name_mismatch(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        write_meta(model_folder(root, model, rev), model, rev)
        write_result(model_folder(root, model, rev), "STSBenchmark", 0.8, file_stem="STS12")


def _unknown_model(root: Path, model: str, rev: str, stage: str) -> None:
    _clean(root, "static-rteb-tests/not-in-mteb", rev, stage)


def _duplicate_task(root: Path, model: str, rev: str, stage: str) -> None:
    revision = rev if stage == "main" else OTHER_SHA
    write_meta(model_folder(root, model, revision), model, revision)
    write_result(model_folder(root, model, revision), "STSBenchmark", 0.8)


STS17 = {"test": [("en-en", 0.8, ["eng-Latn"]), ("de-de", 0.7, ["deu-Latn"])]}


def _split_removed(root: Path, model: str, rev: str, stage: str) -> None:
    scores = STS17 if stage == "main" else {"test": STS17["test"][:1]}
    write_meta(model_folder(root, model, rev), model, rev)
    write_result(model_folder(root, model, rev), "STS17", scores)


def _language_removed(root: Path, model: str, rev: str, stage: str) -> None:
    langs = ["eng-Latn", "deu-Latn"] if stage == "main" else ["eng-Latn"]
    write_meta(model_folder(root, model, rev), model, rev)
    write_result(
        model_folder(root, model, rev), "STSBenchmark", {"test": [("default", 0.8, langs)]}
    )


def _score_moved(root: Path, model: str, rev: str, stage: str) -> None:
    write_meta(model_folder(root, model, rev), model, rev)
    write_result(model_folder(root, model, rev), "STSBenchmark", 0.80 if stage == "main" else 0.85)


def _score_within_tolerance(root: Path, model: str, rev: str, stage: str) -> None:
    write_meta(model_folder(root, model, rev), model, rev)
    write_result(model_folder(root, model, rev), "STSBenchmark", 0.8 if stage == "main" else 0.8005)


def _file_too_large(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        write_meta(model_folder(root, model, rev), model, rev)
        write_result(model_folder(root, model, rev), "STSBenchmark", 0.8, pad_to=MAX_FILE_BYTES + 1)


def _meta_not_json(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        write_meta(model_folder(root, model, rev), model, rev, raw="{'name': not json")
        write_result(model_folder(root, model, rev), "STSBenchmark", 0.8)


def _meta_without_revision(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        write_meta(model_folder(root, model, rev), model, rev, raw=json.dumps({"name": model}))
        write_result(model_folder(root, model, rev), "STSBenchmark", 0.8)


def _meta_missing(root: Path, model: str, rev: str, stage: str) -> None:
    if stage == "branch":
        write_result(model_folder(root, model, rev), "STSBenchmark", 0.8)


def _legacy_folder_untouched(root: Path, model: str, rev: str, stage: str) -> None:
    """A legacy folder CI exempts by name (no model_meta.json) beside a new, correct one."""
    import mteb

    name = "sentence-transformers/all-MiniLM-L6-v2"
    if stage == "main":
        write_result(model_folder(root, name, "no_revision_available"), "STS12", 0.7)
    else:
        revision = mteb.get_model_meta(name, fetch_from_hf=False).revision
        write_meta(model_folder(root, name, revision), name, revision)
        write_result(model_folder(root, name, revision), "STSBenchmark", 0.8)


STAND_IN_TESTS = {
    line.split("(")[0].removeprefix("def ")
    for text in STAND_IN_SUITE.values()
    for line in text.splitlines()
    if line.startswith("def test_")
}
F = frozenset
CASES = [
    Case("clean", _clean),
    Case("wrong-revision-folder", _wrong_revision_folder,
         F({"test_correct_folder_structure", "test_that_revision_match"})),
    Case("wrong-model-folder", _wrong_model_folder, F({"test_correct_folder_structure"}),
         name=lambda m: m + "-typo"),
    Case("revision-not-sha", _revision_not_sha, F({"test_revision_is_specified_for_new_additions"})),
    Case("no-organisation", _no_organisation,
         F({"test_organization_is_specified_for_new_additions", "test_all_models_are_implemented_in_mteb",
            "test_no_duplicate_task_results_exist"}), group="no-organisation", name=lambda m: m.split("/")[1]),
    Case("task-name", _task_name_mismatch, F({"test_task_name_matches_filename"})),
    Case("unknown-model", _unknown_model,
         F({"test_all_models_are_implemented_in_mteb", "test_no_duplicate_task_results_exist"}),
         group="unknown-model", name=lambda m: "static-rteb-tests/not-in-mteb"),
    Case("duplicate-task", _duplicate_task, F({"test_no_duplicate_task_results_exist"})),
    Case("split-removed", _split_removed, F({"test_no_splits_are_removed", "test_no_languages_are_removed"})),
    Case("language-removed", _language_removed, F({"test_no_languages_are_removed"})),
    Case("score-moved", _score_moved, F({"test_result_diffs_within_threshold"})),
    Case("score-within-tolerance", _score_within_tolerance),
    Case("file-too-large", _file_too_large, F({"check_file_sizes"})),
    Case("meta-not-json", _meta_not_json,
         F({"test_all_models_are_implemented_in_mteb", "test_correct_folder_structure", "test_no_duplicate_revisions",
            "test_organization_is_specified_for_new_additions", "test_revision_is_specified_for_new_additions",
            "test_that_revision_match"}), group="meta-not-json"),
    Case("meta-without-revision", _meta_without_revision,
         F({"test_correct_folder_structure", "test_no_duplicate_revisions",
            "test_revision_is_specified_for_new_additions", "test_that_revision_match"})),
    Case("meta-missing", _meta_missing,
         F({"test_model_meta_in_folders", "test_organization_is_specified_for_new_additions",
            "test_revision_is_specified_for_new_additions", "test_that_revision_match"})),
    Case("legacy-folder-untouched", _legacy_folder_untouched,
         name=lambda m: "sentence-transformers/all-MiniLM-L6-v2", stand_in=False),
]  # fmt: skip


def case_models() -> dict[str, tuple[str, str]]:
    """A distinct model mteb registers (name, revision) for each case."""
    chosen = registered_sha_models(len(CASES), exclude=("sentence-transformers/all-MiniLM-L6-v2",))
    return {case.id: chosen[i] for i, case in enumerate(CASES)}


@pytest.fixture(scope="module")
def models() -> dict[str, tuple[str, str]]:
    return case_models()


def build(
    root: Path, cases: list[Case], models: dict[str, tuple[str, str]], *, with_ci: bool = False
) -> Path:
    """Main with every case's main part (published), then branch ``submission`` with theirs."""
    init_checkout(root, with_ci=with_ci)
    for case in cases:
        case.build(root, *models[case.id], "main")
    commit_all(root, "main results")
    publish(root)
    git(root, "checkout", "-q", "-b", "submission")
    for case in cases:
        case.build(root, *models[case.id], "branch")
    commit_all(root, "submission")
    return root


def failed_by_case(report, cases: list[Case], models) -> dict[str, set[str]]:
    """The failed tests of each case: those naming its model folder (every one, if alone)."""
    return {
        case.id: {
            f.check
            for f in report.failures
            if len(cases) == 1 or any(case.owns(p, models[case.id][0]) for p in f.paths)
        }
        for case in cases
    }


def case_groups(cases: list[Case]) -> dict[str, list[Case]]:
    groups: dict[str, list[Case]] = {}
    for case in cases:
        groups.setdefault(case.group, []).append(case)
    return groups


@pytest.mark.slow
def test_preflight_runs_the_checkouts_own_tests(tmp_path, models):
    """Each case fails exactly the stand-in tests it violates, named with its file and a fix."""
    for group, cases in case_groups([c for c in CASES if c.stand_in]).items():
        report = preflight(build(tmp_path / group, cases, models))
        assert "passed" in report.tests or "failed" in report.tests, report.tests
        got = failed_by_case(report, cases, models)
        assert got == {case.id: set(case.expected) for case in cases}, str(report)
        for failure in report.failures:
            assert failure.paths and failure.fix == FIXES[failure.check], failure
            assert str(failure).startswith(failure.paths[0]) and "fix: " in str(failure)
        if not report.ok:
            with pytest.raises(PreflightError) as raised:
                report.raise_for_failures()
            assert raised.value.failures == report.failures


def test_without_tests_only_file_sizes_are_checked(tmp_path, models):
    """A clone without tests/: the size limit still holds, and the report says what ran."""
    root = tmp_path / "checkout"
    init_checkout(root, tests=False)
    git(root, "checkout", "-q", "-b", "submission")
    cases = [c for c in CASES if c.id in {"file-too-large", "task-name"}]
    for case in cases:
        case.build(root, *models[case.id], "branch")
    commit_all(root, "submission")
    report = preflight(root)
    assert report.checks_failed() == {"check_file_sizes"}
    (failure,) = report.failures
    assert failure.paths[0].endswith("STSBenchmark.json") and "10,485,760" in failure.message
    assert report.tests.startswith("not run") and "no tests/" in report.tests
    assert "not run" in str(report) and not report.tests_ran
    passing = preflight(root, base="HEAD")  # nothing changed: no failure, and no test ran
    assert passing.ok and str(passing).endswith("the file sizes pass (the only check that ran)")
    assert "all CI checks pass" not in str(passing)


def test_preflight_messages_name_file_and_fix(tmp_path, models):
    cases = {c.id: c for c in CASES}
    report = preflight(build(tmp_path / "c", [cases["task-name"], cases["split-removed"]], models))
    text = str(report)
    model, rev = models["task-name"]
    assert f"results/{model.replace('/', '__')}/{rev}/STS12.json" in text
    assert "holds STSBenchmark" in text and FIXES["test_task_name_matches_filename"] in text
    assert "has had splits/subsets removed" in text and FIXES["test_no_splits_are_removed"] in text
    assert report.checks_failed() == {
        "test_task_name_matches_filename",
        "test_no_splits_are_removed",
    }


@pytest.mark.slow
def test_overlay_is_checked_as_if_committed_and_leaves_the_checkout_alone(tmp_path, models):
    model, rev = models["score-moved"]
    root = build(tmp_path / "c", [c for c in CASES if c.id == "split-removed"], models)
    staged = tmp_path / "staged"
    write_result(staged, "STSBenchmark", 0.9)
    rel = f"results/{model.replace('/', '__')}/{rev}"
    write_meta(staged, model, rev)
    before = git(root, "status", "--porcelain"), git(root, "rev-parse", "HEAD")
    overlay = {
        f"{rel}/STSBenchmark.json": staged / "STSBenchmark.json",
        f"{rel}/model_meta.json": staged / "model_meta.json",
    }
    report = preflight(root, overlay=overlay)
    assert report.checks_failed() == {"test_no_splits_are_removed"}  # the branch's own change
    assert f"{rel}/STSBenchmark.json" in report.changed and rel.rsplit("/", 1)[0] in report.models
    assert (git(root, "status", "--porcelain"), git(root, "rev-parse", "HEAD")) == before
    # the overlay over main's published file, with a subset less: compared with main
    other, other_rev = models["split-removed"]
    over = f"results/{other.replace('/', '__')}/{other_rev}/STS17.json"
    write_result(staged, "STS17", {"test": [("en-en", 0.8, ["eng-Latn"])]})
    git(root, "checkout", "-q", "main")
    report = preflight(root, overlay={over: staged / "STS17.json"})
    assert report.checks_failed() == {"test_no_splits_are_removed"}
    assert [f.paths for f in report.failures] == [(over,)]


def test_base_is_the_merge_base_with_main(tmp_path, models):
    """Files that changed on main after the branch was made are not the branch's."""
    root = build(tmp_path / "c", [CASES[0]], models)
    git(root, "checkout", "-q", "main")
    model = models["score-moved"][0]
    write_result(model_folder(root, model, "f" * 40), "STSBenchmark", 0.5, file_stem="Wrong")
    commit_all(root, "main moves on with a broken file")
    publish(root)
    git(root, "checkout", "-q", "submission")
    report = preflight(root)
    assert report.ok, str(report)
    assert all(not p.startswith(f"results/{model.replace('/', '__')}") for p in report.changed)


def test_not_a_checkout_is_refused(tmp_path):
    with pytest.raises(
        LeaderboardSubmitError, match=r"git clone https://github\.com/embeddings-benchmark/results"
    ):
        preflight(tmp_path)
    (tmp_path / "repo").mkdir()
    git(tmp_path / "repo", "init", "-q", "-b", "main")
    with pytest.raises(LeaderboardSubmitError, match="no results/ folder"):
        preflight(tmp_path / "repo")


@pytest.mark.slow
@needs_results_repo
def test_preflight_runs_the_real_suite(tmp_path, models):
    """Every case through the results repository's real suite: exactly the expected tests fail."""
    rows, disagreements = [], []
    for group, cases in case_groups(CASES).items():
        report = preflight(build(tmp_path / group, cases, models, with_ci=True))
        for case_id, got in failed_by_case(report, cases, models).items():
            case = next(c for c in cases if c.id == case_id)
            rows.append(f"{case.id:24} {sorted(got)}")
            if got != set(case.real):
                disagreements.append(f"{rows[-1]} expected {sorted(case.real)}")
    print("\n".join(rows))
    assert not disagreements, "\n".join(disagreements)
