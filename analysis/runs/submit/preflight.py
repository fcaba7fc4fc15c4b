"""Pre-flight: the results repository's own tests, run on what a pull request would contain.

:func:`preflight` rebuilds, in a temporary folder, the part of the checkout a pull request
from its HEAD would touch, as a small git repository: ``main`` holds the model folders the change
touches as they are at the base commit (the merge-base of ``origin/main`` or ``main`` and HEAD, the
commit the repository's CI compares with), a branch on top holds them as at HEAD plus the files a
submission is about to add (``overlay``), and the repository's own files (``tests/``,
``pyproject.toml``, ...) come from HEAD. There it runs ``pytest tests`` as the repository's ``make
test`` does, with this project's Python and mteb, and the size limit of its ``check_file_sizes``
workflow (which is not in ``tests/``). The checkout itself is never written. Model folders the
change does not touch are left out: main passed CI already.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import LeaderboardSubmitError, PreflightError
from . import gitrepo

#: The largest file the ``check_file_sizes`` workflow accepts (10 MB; strictly greater fails).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: The repository's one test that needs the network (it clones the repository from GitHub).
NETWORK_TEST = "tests/test_load_results.py::test_load_results_mteb"
#: What to do when a test of the results repository (embeddings-benchmark/results@f4cc6c8)
#: fails, by test name; the message of the test says what is wrong.
FIXES = {
    "test_correct_folder_structure": "file the results under results/<org>__<name>/<revision>/ "
    "of their model_meta.json (static-rteb submit re-files runs)",
    "test_model_meta_in_folders": "write model_meta.json in each revision folder "
    "(static-rteb submit writes one)",
    "test_revision_is_specified_for_new_additions": "use the 40-character commit SHA of the "
    "model's weights on the hub as revision (static-rteb submit --revision SHA)",
    "test_organization_is_specified_for_new_additions": "name the model 'org/name' "
    "(static-rteb submit --model)",
    "test_that_revision_match": "make model_meta.json's revision the revision folder's name",
    "test_no_duplicate_revisions": "keep one folder per revision",
    "test_task_name_matches_filename": "name each result file <task_name>.json",
    "test_all_models_are_implemented_in_mteb": "first get the model's ModelMeta into mteb "
    "(docs/submission.md, 'two pull requests'), then submit the results",
    "test_no_duplicate_task_results_exist": "keep each task's results in one revision "
    "(the message says which files to delete)",
    "test_no_splits_are_removed": "keep main's splits and subsets (mteb's submit_results "
    "merges; never replace a result file by a smaller one)",
    "test_no_languages_are_removed": "keep main's languages for every split and subset",
    "test_result_diffs_within_threshold": "do not overwrite published scores: rerun with the "
    "published model and dataset revisions, or submit under a new model revision",
    "check_file_sizes": "shrink the file (the repository's `make pre-push` runs its "
    "reduce_large_json_files.py)",
}


@dataclass(frozen=True)
class Failure:
    """One failed test of the results repository, or a file over the size limit.

    Attributes:
        test: The test (``tests/<file>.py::<name>[<parameters>]``) or ``check_file_sizes``.
        paths: The files and folders the failure names, relative to the checkout.
        message: The test's message (the first line).
    """

    test: str
    paths: tuple[str, ...]
    message: str

    @property
    def check(self) -> str:
        """The test's name, without its file and parameters."""
        return self.test.split("::")[-1].split("[")[0]

    @property
    def fix(self) -> str:
        """What to do about it."""
        return FIXES.get(self.check, f"see {self.test} in the checkout")

    def __str__(self) -> str:
        """The paths and message, then the fix and the test, indented."""
        where = ", ".join(self.paths) or self.test
        return f"{where}: {self.message}\n    fix: {self.fix}\n    [{self.test}]"


@dataclass(frozen=True)
class PreflightReport:
    """What the pre-flight checked and what failed.

    Attributes:
        checkout: The checkout.
        base: The commit compared with (merge-base of main and HEAD).
        changed: The files a pull request would change (relative paths).
        models: The model folders checked (relative paths).
        failures: Every failure, sorted by path.
        tests: pytest's summary of the repository's tests, or why they did not run.
        tests_ran: Whether they ran (else only the file sizes were checked).
    """

    checkout: Path
    base: str
    changed: tuple[str, ...]
    models: tuple[str, ...]
    failures: tuple[Failure, ...] = field(default=())
    tests: str = ""
    tests_ran: bool = True

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.failures

    def checks_failed(self) -> set[str]:
        """The names of the tests that failed."""
        return {f.check for f in self.failures}

    def __str__(self) -> str:
        """A summary line, then one block per failure."""
        head = (
            f"pre-flight of {self.checkout} against {self.base[:12]}: {len(self.changed)} "
            f"changed file(s) in {len(self.models)} model folder(s); the results "
            f"repository's tests: {self.tests}; "
        )
        if self.ok and not self.tests_ran:
            return head + "the file sizes pass (the only check that ran)"
        if self.ok:
            return head + "all CI checks pass"
        return head + f"{len(self.failures)} failure(s)\n" + "\n".join(map(str, self.failures))

    def raise_for_failures(self) -> None:
        """Raise :class:`PreflightError` listing every failure, if any."""
        if not self.ok:
            raise PreflightError(str(self), self.failures)


def model_folders(paths: list[str]) -> list[str]:
    """The model folders (``results/<org>__<name>``) that the given paths lie in."""
    folders = {
        "/".join(p.split("/")[:2]) for p in paths if p.startswith("results/") and p.count("/") >= 2
    }
    return sorted(folders)


def preflight(
    checkout: str | Path,
    *,
    overlay: Mapping[str, str | Path] | None = None,
    base: str | None = None,
) -> PreflightReport:
    """Run the results repository's own tests on what a pull request from the checkout holds.

    Args:
        checkout: A git checkout of the results repository.
        overlay: Files about to be written, ``{relative path: source file}``; checked as
            if they were committed on top of HEAD. The checkout itself is not changed.
        base: The commit to compare with (default: merge-base of ``origin/main`` or
            ``main`` and HEAD, as the repository's CI does).

    Returns:
        A :class:`PreflightReport`. When HEAD has no ``tests/`` (a clone older than the
        repository's test suite), only file sizes are checked and ``tests`` says so.

    Raises:
        LeaderboardSubmitError: The folder is not a checkout of the results repository, or
            its tests could not be run.
    """
    root = gitrepo.require_checkout(checkout)
    base = base or gitrepo.base_ref(root)
    staged = {str(k).replace("\\", "/"): Path(v) for k, v in (overlay or {}).items()}
    changed = sorted(set(gitrepo.changed_files(root, base, include_deleted=True)) | set(staged))
    folders = model_folders(changed)
    with _view(root, base, folders, staged) as view:
        failures = _oversized(view)
        if ran := (view / "tests").is_dir():
            found, summary = _run_tests(view, folders)
            failures += found
        else:
            summary = (
                f"not run: {root} has no tests/ at HEAD; update the clone (`git -C {root} "
                "pull` on main) to check against the repository's CI"
            )
    ordered = sorted(set(failures), key=lambda f: (f.paths, f.test))
    return PreflightReport(
        root, base, tuple(changed), tuple(folders), tuple(ordered), summary, tests_ran=ran
    )


@contextmanager
def _view(root: Path, base: str, folders: list[str], staged: Mapping[str, Path]) -> Iterator[Path]:
    """The temporary repository: ``folders`` at ``base`` on main, at HEAD + ``staged`` above.

    Every other entry of ``results/`` is a symbolic link to the checkout's own folder (the
    repository's tests read the whole tree; some index particular folders when imported).
    """
    with tempfile.TemporaryDirectory(prefix="static-rteb-preflight-") as tmp:
        view = Path(tmp)
        top = gitrepo.git(root, "ls-tree", "--name-only", "HEAD").stdout.split()
        _export(root, "HEAD", [name for name in top if name != "results"], view)
        (view / "results").mkdir(exist_ok=True)
        for entry in sorted((root / "results").iterdir()):
            if f"results/{entry.name}" not in folders:
                (view / "results" / entry.name).symlink_to(entry)
        _export(root, base, folders, view)
        _commit(view, "main", init=True)
        gitrepo.git(view, "checkout", "-q", "-b", "submission")
        for folder in folders:
            shutil.rmtree(view / folder, ignore_errors=True)
        _export(root, "HEAD", folders, view)
        for rel, source in staged.items():
            (view / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, view / rel)
        _commit(view, "submission")
        yield view


def _export(root: Path, ref: str, paths: list[str], dest: Path) -> None:
    """Write ``paths`` (those that exist at ``ref``) as they are at ``ref`` into ``dest``."""
    if not paths:
        return
    present = gitrepo.git(root, "ls-tree", "--name-only", ref, "--", *paths).stdout.split()
    if not present:
        return
    command = ["git", "archive", "--format=tar", ref, "--", *present]
    archive = subprocess.run(command, cwd=root, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(dest, filter="data")


def _commit(view: Path, message: str, *, init: bool = False) -> None:
    if init:
        gitrepo.git(view, "init", "-q", "-b", "main")
    gitrepo.git(view, "add", "-A")
    identity = ["-c", "user.name=static-rteb", "-c", "user.email=preflight@static-rteb.invalid"]
    gitrepo.git(view, *identity, "commit", "-q", "--allow-empty", "-m", message)


def _oversized(view: Path) -> list[Failure]:
    """The changed files over :data:`MAX_FILE_BYTES` (the ``check_file_sizes`` workflow)."""
    changed = gitrepo.changed_files(view, "main")
    sizes = {rel: (view / rel).stat().st_size for rel in changed if (view / rel).is_file()}
    return [
        Failure("check_file_sizes", (rel, ), f"is {size:,} bytes, above the limit of "
                f"{MAX_FILE_BYTES:,} of the repository's check_file_sizes workflow")
        for rel, size in sizes.items()
        if size > MAX_FILE_BYTES
    ]  # fmt: skip


def _run_tests(view: Path, folders: list[str]) -> tuple[list[Failure], str]:
    """Run ``pytest tests`` in ``view``; the failures in ``folders``, and pytest's summary line.

    A failure that names only model folders the change does not touch is left out (main
    passed CI; with the mteb installed here, a model mteb registered later fails there).
    """
    report = view.parent / f"{view.name}-junit.xml"
    dropped = {"PR_BASE_SHA", "PYTHONPATH", "MTEB_CACHE"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST") and k not in dropped}
    command = [sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider", "-l"]
    command += ["--deselect", NETWORK_TEST, f"--junitxml={report}"]
    try:
        done = subprocess.run(command, cwd=view, env=env, capture_output=True, text=True)
        if not report.is_file():
            raise LeaderboardSubmitError(
                f"the results repository's tests did not run (pytest exit {done.returncode}):\n"
                + (done.stdout + done.stderr)[-2000:]
            )
        cases = list(ElementTree.parse(report).getroot().iter("testcase"))
    finally:
        report.unlink(missing_ok=True)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else f"pytest exit {done.returncode}"
    every = [f"results/{p.name}" for p in (view / "results").iterdir() if p.is_dir()]
    failures = []
    for case in cases:
        for outcome in case:
            if outcome.tag in {"failure", "error"}:
                failure = _failure(view, every, case.attrib, outcome)
                mine = tuple(p for p in failure.paths if _within(p, folders))
                if mine or not failure.paths:
                    failures.append(Failure(failure.test, mine, failure.message))
    return failures, summary


def _within(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f + "/") for f in folders)


def _failure(
    view: Path, folders: list[str], case: Mapping[str, str], outcome: ElementTree.Element
) -> Failure:
    """A :class:`Failure` of a junit test case: its test, the paths it names, its message.

    The paths are those the message names, else those the traceback's locals name.
    """
    module, name = case.get("classname", ""), case.get("name", "")
    test = f"{module.replace('.', '/')}.py::{name}" if module else name
    message, text = outcome.get("message") or outcome.tag, outcome.text or ""
    for prefix in {str(view) + "/", str(view.resolve()) + "/"}:  # paths relative to the checkout
        message, text = message.replace(prefix, ""), text.replace(prefix, "")
    paths = _named(message, folders) or _named(text, folders)
    return Failure(test, paths, message.splitlines()[0][:300])


def _named(text: str, folders: list[str]) -> tuple[str, ...]:
    """The checkout paths ``text`` names: result paths, and model folders named as models.

    A model is named as ``org/name`` alone, quoted, or before ``:`` or ``/<task>``.
    """
    found = set(re.findall(r"results/[^\s'\"(),\]]+", text))
    for folder in folders:
        model = re.escape(folder.split("/")[1].replace("__", "/"))  # as messages name them
        if re.search(rf"(?:^|[\s'\"]){model}(?:$|[\s'\":/])", text, re.MULTILINE):
            found.add(folder)
    return tuple(sorted(p for p in found if not any(o.startswith(p + "/") for o in found)))
