"""The pre-flight (the results repository's CI checks as this project's code) on mock checkouts.

Each case builds a mock checkout whose ``main`` passes and whose branch has one known
violation, and checks that the pre-flight names exactly the expected checks, the file and
a fix. When ``$STATIC_RTEB_RESULTS_REPO`` names a clone of the results repository, the
same cases run through that repository's real CI (its ``tests/`` and the file-size
workflow) and the two must agree on every case.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from analysis.core.errors import LeaderboardSubmitError, PreflightError
from analysis.runs.submit import CHECKS, preflight
from analysis.runs.submit.checks import MAX_FILE_BYTES
from tests._submit_fixtures import (
    commit_all,
    failures_mentioning,
    git,
    init_checkout,
    model_folder,
    needs_results_repo,
    registered_sha_models,
    run_real_suite,
    run_size_workflow,
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
    ours: frozenset[str]
    real: frozenset[str] = field(default_factory=frozenset)
    group: str = "combined"  # cases that crash CI's aggregate tests get their own checkout
    name: Callable[[str], str] = lambda model: model  # the model name the case files under

    def folder(self, model: str) -> str:
        """The case's model folder, ``results/<org>__<name>``."""
        return "results/" + self.name(model).replace("/", "__")

    def owns(self, path: str, model: str) -> bool:
        """Whether a pre-flight failure's path lies in this case's model folder."""
        return path == self.folder(model) or path.startswith(self.folder(model) + "/")

    def needles(self, model: str) -> tuple[str, ...]:
        """Strings naming this case in CI's parameters and failure texts."""
        name, folder = self.name(model), self.folder(model)
        return (f"{folder}/", f"{folder}'", f"{name}/", f"{name}:")


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


F = frozenset
CASES = [
    Case("clean", _clean, F()),
    Case("wrong-revision-folder", _wrong_revision_folder, F({"folder-structure", "revision-match"}),
         F({"test_correct_folder_structure", "test_that_revision_match"})),
    Case("wrong-model-folder", _wrong_model_folder, F({"folder-structure"}),
         F({"test_correct_folder_structure"}), name=lambda m: m + "-typo"),
    Case("revision-not-sha", _revision_not_sha, F({"revision-format"}),
         F({"test_revision_is_specified_for_new_additions"})),
    Case("no-organisation", _no_organisation, F({"organization", "model-implemented", "duplicate-task"}),
         F({"test_organization_is_specified_for_new_additions", "test_all_models_are_implemented_in_mteb",
            "test_no_duplicate_task_results_exist"}), group="no-organisation", name=lambda m: m.split("/")[1]),
    Case("task-name", _task_name_mismatch, F({"task-name"}), F({"test_task_name_matches_filename"})),
    Case("unknown-model", _unknown_model, F({"model-implemented", "duplicate-task"}),
         F({"test_all_models_are_implemented_in_mteb", "test_no_duplicate_task_results_exist"}),
         group="unknown-model", name=lambda m: "static-rteb-tests/not-in-mteb"),
    Case("duplicate-task", _duplicate_task, F({"duplicate-task"}), F({"test_no_duplicate_task_results_exist"})),
    Case("split-removed", _split_removed, F({"split-removed", "language-removed"}),
         F({"test_no_splits_are_removed", "test_no_languages_are_removed"})),
    Case("language-removed", _language_removed, F({"language-removed"}), F({"test_no_languages_are_removed"})),
    Case("score-moved", _score_moved, F({"main-score-moved"}), F({"test_result_diffs_within_threshold"})),
    Case("score-within-tolerance", _score_within_tolerance, F()),
    Case("file-too-large", _file_too_large, F({"file-size"}), F({"check_file_sizes"})),
    Case("meta-not-json", _meta_not_json, F({"model-meta-invalid"}),
         F({"test_correct_folder_structure", "test_all_models_are_implemented_in_mteb"}), group="meta-not-json"),
    Case("meta-without-revision", _meta_without_revision, F({"model-meta-invalid"}),
         F({"test_correct_folder_structure", "test_that_revision_match"})),
    Case("meta-missing", _meta_missing, F({"model-meta-missing"}), F({"test_model_meta_in_folders"})),
    Case("legacy-folder-untouched", _legacy_folder_untouched, F(),
         name=lambda m: "sentence-transformers/all-MiniLM-L6-v2"),
]  # fmt: skip


@pytest.fixture(scope="module")
def models() -> dict[str, tuple[str, str]]:
    """A distinct model mteb registers (name, revision) for each case."""
    chosen = registered_sha_models(len(CASES), exclude=("sentence-transformers/all-MiniLM-L6-v2",))
    return {case.id: chosen[i] for i, case in enumerate(CASES)}


def build(
    root: Path, cases: list[Case], models: dict[str, tuple[str, str]], *, with_ci: bool = False
) -> Path:
    """Main with every case's main part, then branch ``submission`` with their branch parts."""
    init_checkout(root, with_ci=with_ci)
    for case in cases:
        case.build(root, *models[case.id], "main")
    commit_all(root, "main results")
    git(root, "checkout", "-q", "-b", "submission")
    for case in cases:
        case.build(root, *models[case.id], "branch")
    commit_all(root, "submission")
    return root


def ours_for(report, case: Case, model: str) -> set[str]:
    return {f.check for f in report.failures if case.owns(f.path, model)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_preflight_names_exactly_the_expected_checks(tmp_path, case, models):
    model, _ = models[case.id]
    report = preflight(build(tmp_path / "checkout", [case], models))
    assert report.checks_failed() == set(case.ours), str(report)
    assert report.ok == (not case.ours)
    for failure in report.failures:
        assert case.owns(failure.path, model), failure
        assert failure.fix and failure.check in CHECKS
        assert str(failure).startswith(failure.path) and "fix: " in str(failure)
    if not report.ok:
        with pytest.raises(PreflightError) as raised:
            report.raise_for_failures()
        assert raised.value.failures == report.failures


def test_preflight_messages_name_file_and_fix(tmp_path, models):
    cases = {c.id: c for c in CASES}
    report = preflight(
        build(tmp_path / "c", [cases["score-moved"], cases["duplicate-task"]], models)
    )
    text = str(report)
    moved, dup = models["score-moved"][0], models["duplicate-task"][0]
    assert (
        f"results/{moved.replace('/', '__')}/{models['score-moved'][1]}/STSBenchmark.json" in text
    )
    assert "test/default: 0.80000 -> 0.85000" in text
    assert f"delete results/{dup.replace('/', '__')}/{OTHER_SHA}/STSBenchmark.json" in text
    assert f"keep revision {models['duplicate-task'][1]!r}" in text


def test_overlay_is_checked_as_if_committed_and_leaves_the_checkout_alone(tmp_path, models):
    model, rev = models["score-moved"]
    root = build(tmp_path / "c", [c for c in CASES if c.id == "score-within-tolerance"], models)
    staged = tmp_path / "staged"
    write_result(staged, "STSBenchmark", 0.9)
    rel = f"results/{model.replace('/', '__')}/{rev}"
    write_meta(staged, model, rev)
    before = git(root, "status", "--porcelain")
    report = preflight(
        root,
        overlay={
            f"{rel}/STSBenchmark.json": staged / "STSBenchmark.json",
            f"{rel}/model_meta.json": staged / "model_meta.json",
        },
    )
    assert report.ok and f"{rel}/STSBenchmark.json" in report.changed
    assert git(root, "status", "--porcelain") == before
    # the same file over a published score: the overlay is compared with main
    other, other_rev = models["score-within-tolerance"]
    over = f"results/{other.replace('/', '__')}/{other_rev}/STSBenchmark.json"
    report = preflight(root, overlay={over: staged / "STSBenchmark.json"})
    assert report.checks_failed() == {"main-score-moved"}


def test_base_is_the_merge_base_with_main(tmp_path, models):
    """Files that changed on main after the branch was made are not the branch's."""
    root = build(tmp_path / "c", [CASES[0]], models)
    git(root, "checkout", "-q", "main")
    model = models["score-moved"][0]
    write_result(model_folder(root, model, "f" * 40), "STSBenchmark", 0.5, file_stem="Wrong")
    commit_all(root, "main moves on with a broken file")
    git(root, "checkout", "-q", "submission")
    report = preflight(root)
    assert report.ok and all(
        not p.startswith(f"results/{model.replace('/', '__')}") for p in report.changed
    )


def test_not_a_checkout_is_refused(tmp_path):
    with pytest.raises(
        LeaderboardSubmitError, match=r"git clone https://github\.com/embeddings-benchmark/results"
    ):
        preflight(tmp_path)
    (tmp_path / "repo").mkdir()
    git(tmp_path / "repo", "init", "-q", "-b", "main")
    with pytest.raises(LeaderboardSubmitError, match="no results/ folder"):
        preflight(tmp_path / "repo")


@needs_results_repo
def test_preflight_agrees_with_the_results_repository_ci(tmp_path, models):
    """Every case through the real CI: it fails exactly when ours does, in the expected tests."""
    groups: dict[str, list[Case]] = {}
    for case in CASES:
        groups.setdefault(case.group, []).append(case)
    rows, disagreements = [], []
    for group, cases in groups.items():
        root = build(tmp_path / group, cases, models, with_ci=True)
        ours = preflight(root)
        real = run_real_suite(root, tmp_path / f"{group}.json")
        sizes = run_size_workflow(root)
        for case in cases:
            model = models[case.id][0]
            # alone in its checkout, every failure is the case's; else attribute by name
            needles = case.needles(model) if len(cases) > 1 else ("",)
            observed = failures_mentioning(real, *needles)
            if sizes.returncode != 0 and any(n in sizes.stdout for n in needles):
                observed.add("check_file_sizes")
            mine = ours_for(ours, case, model)
            rows.append(f"{case.id:24} ours={sorted(mine)} real={sorted(observed)}")
            if mine != case.ours or bool(mine) != bool(observed) or not case.real <= observed:
                disagreements.append(rows[-1])
    print("\n".join(rows))
    assert not disagreements, "\n".join(disagreements)
