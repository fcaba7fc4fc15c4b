"""Submit own runs to the MTEB results repository: refuse, re-file, check, card, commit.

:func:`submit` (``static-rteb submit``) refuses a model mteb does not know (writing its
registry entry, :mod:`.registry_entry`), re-files the results under the hub name and
commit SHA with a complete ``model_meta.json`` (:mod:`.refile`, :mod:`.model_meta`) in a
temporary mteb cache, runs the results repository's CI checks on the checkout plus the
files about to be committed (:mod:`.preflight`), writes the model card (:mod:`.card`),
and commits through mteb's own ``ResultCache.submit_results``. That cache's ``remote``
is a symbolic link to the user's checkout, and ``compat.checkout_result_cache`` keeps
mteb from fetching and hard-resetting it; branch, merge into existing files, commit and
pull request are mteb's. The steps and their messages: ``docs/submission.md``.
"""

from __future__ import annotations

import dataclasses
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core import compat
from ...core.errors import LeaderboardSubmitError, UnregisteredModelError, model_folder_name
from . import gitrepo, refile
from .card import write_card
from .folder import FolderFacts, derive
from .model_meta import model_meta_json, submission_meta
from .preflight import PreflightReport, preflight
from .registry_entry import MTEB_ADDING_A_MODEL, variable_name, write_entry

DEFAULT_OUT = Path("data/submissions")
MTEB_FROM_GIT = '"mteb @ git+https://github.com/embeddings-benchmark/mteb"'


@dataclass(frozen=True)
class SubmitOutcome:
    """What :func:`submit` did.

    Attributes:
        status: ``"committed"``, ``"pr_created"``, ``"checked"`` (check only) or
            ``"no_changes"`` (the checkout already has every score).
        checkout: The checkout.
        folder: Where the results are filed (``results/<org>__<name>/<revision>``).
        files: The files added or changed (relative to the checkout).
        branch: The new branch (None when nothing was committed).
        card: The model card written beside the submission.
        before: The pre-flight before committing.
        unchecked: Files of the new commit that differ from what the pre-flight checked
            (empty when mteb committed exactly the checked files).
        notes: Things the user should know.
        response: mteb's ``submit_results`` answer.
    """

    status: str
    checkout: Path
    folder: str
    files: tuple[str, ...] = ()
    branch: str | None = None
    card: Path | None = None
    before: PreflightReport | None = None
    unchecked: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    response: dict[str, Any] = field(default_factory=dict)

    def next_commands(self) -> list[str]:
        """The commands that open the pull request from here."""
        if self.status != "committed" or self.branch is None:
            return []
        return [
            f"git -C {self.checkout} push <your-fork-remote> {self.branch}",
            f"gh pr create --repo embeddings-benchmark/results --base main --head "
            f"<your-github-user>:{self.branch}",
        ]


def submit(
    results: Sequence[str | Path],
    model: str,
    *,
    checkout: str | Path,
    revision: str | None = None,
    model_dir: str | Path | None = None,
    out: str | Path | None = None,
    create_pr: bool = False,
    message: str | None = None,
    check_only: bool = False,
) -> SubmitOutcome:
    """Submit runs of one model to a local checkout of the MTEB results repository.

    Args:
        results: Run folders (revision folders of own results, or folders holding them).
        model: The model's hub id (``org/name``) to file the results under.
        checkout: A git checkout of embeddings-benchmark/results (clean, on a branch).
        revision: The commit SHA of the weights on the hub (default: the runs' own SHA,
            the model folder's git commit, or mteb's registered revision).
        model_dir: The model folder (default: the one the runs' metadata names).
        out: Where the model card and, for an unknown model, the registry entry are
            written (default ``data/submissions/<org>__<name>``).
        create_pr: Push to your fork and open the pull request (mteb's path; needs the
            network, PyGithub and a GitHub token).
        message: Title of the commit and pull request (default: mteb's).
        check_only: Stop after the pre-flight and the card; commit nothing.

    Raises:
        UnregisteredModelError: mteb does not know the model (nothing is committed; the
            registry entry is written to ``out``).
        PreflightError: The results repository's CI would fail (nothing is committed).
        LeaderboardSubmitError: Bad input (name, revision, folders, checkout).
    """
    root = gitrepo.require_checkout(checkout)
    plan, meta, out_dir = _prepare(results, model, root, revision, model_dir, out)
    with tempfile.TemporaryDirectory(prefix="static-rteb-submit-") as tmp:
        cache_dir = Path(tmp) / "cache"
        staged = refile.stage(plan, model_meta_json(meta), cache_dir)
        (cache_dir / "remote").symlink_to(root, target_is_directory=True)
        cache = compat.checkout_result_cache(cache_dir)
        overlay = _overlay(cache, meta, staged, root, plan.folder, Path(tmp) / "merged")
        if not overlay:
            return SubmitOutcome("no_changes", root, plan.folder, notes=plan.notes)
        before = preflight(root, overlay=overlay)
        before.raise_for_failures()
        card = write_card(meta, cache_dir, list(plan.tasks), out_dir / "model_card.md")
        files = tuple(sorted(overlay))
        if check_only:
            return SubmitOutcome(
                "checked", root, plan.folder, files, None, card, before, (), plan.notes
            )
        head = gitrepo.git(root, "rev-parse", "HEAD").stdout.strip()
        response = _commit(cache, meta, create_pr=create_pr, message=message)
        unchecked = () if create_pr else _unchecked(root, head, overlay)
    branch = None if create_pr else gitrepo.current_branch(root)
    status = "pr_created" if create_pr else "committed"
    return SubmitOutcome(
        status, root, plan.folder, files, branch, card, before, unchecked, plan.notes,
        dict(response),
    )  # fmt: skip


def _unchecked(root: Path, before: str, overlay: dict[str, Path]) -> tuple[str, ...]:
    """Files mteb's commit changed that differ from the ones the pre-flight checked."""
    committed = set(gitrepo.changed_files(root, before, include_deleted=True))
    both = committed & set(overlay)
    differ = {rel for rel in both if (root / rel).read_bytes() != overlay[rel].read_bytes()}
    return tuple(sorted((committed ^ set(overlay)) | differ))


def _prepare(
    results: Sequence[str | Path],
    model: str,
    root: Path,
    revision: str | None,
    model_dir: str | Path | None,
    out: str | Path | None,
) -> tuple[refile.Submission, Any, Path]:
    """Read the runs, refuse an unknown model, decide name and revision, build the metadata."""
    model = refile.check_model_name(model)
    out_dir = Path(out) if out is not None else DEFAULT_OUT / model_folder_name(model)
    # the model's runs first: an unknown model's refusal must not hide several models
    runs, picked = refile.select_runs(refile.read_runs(results), model)
    folder = _model_dir(model_dir, runs)
    facts = derive(folder) if folder is not None else None
    if model not in compat.registered_model_names():  # mteb.get_model_metas()' names
        raise _refuse(model, revision, facts, out_dir, picked)
    plan = refile.plan_runs(
        runs,
        model,
        revision=revision,
        registered_revision=getattr(compat.registered_meta(model), "revision", None),
        folder_revision=facts.value("revision") if facts is not None else None,
    )
    plan = dataclasses.replace(plan, notes=(*picked, *plan.notes))
    if plan.revision is None:
        raise LeaderboardSubmitError(f"no revision known for {model}: pass --revision SHA.")
    _require_clean(root)
    return plan, submission_meta(model, plan.revision, facts), out_dir


def _model_dir(given: str | Path | None, runs: Sequence[refile.RunFolder]) -> Path | None:
    if given is None:
        return next((run.model_dir for run in runs if run.model_dir is not None), None)
    folder = Path(given).expanduser().resolve()
    if not folder.is_dir():
        raise LeaderboardSubmitError(f"--model-dir {folder} does not exist or is not a folder.")
    refile.check_model_dir(runs, folder)
    return folder


def _refuse(
    model: str,
    revision: str | None,
    facts: FolderFacts | None,
    out_dir: Path,
    picked: Sequence[str] = (),
) -> UnregisteredModelError:
    """The refusal of a model mteb does not know; ``picked`` says which runs were taken."""
    import mteb

    lead = (
        f"mteb {mteb.__version__} does not know the model {model!r}: it is not in mteb's model "
        "registry, so the results repository's CI (tests/test_model_implementation.py) rejects "
        "results for it. Nothing was committed.\n" + "".join(f"Note: {note}.\n" for note in picked)
    )
    if facts is None:
        return UnregisteredModelError(
            lead + "Pass --model-dir FOLDER (the model folder) to generate its ModelMeta entry "
            "for the pull request to mteb."
        )
    if revision is not None:
        revision = refile.check_revision(revision)
    path = write_entry(out_dir / f"{variable_name(model)}_model_meta.py", model, revision, facts)
    return UnregisteredModelError(
        lead + "Two pull requests, in this order:\n"
        "  1. to embeddings-benchmark/mteb: add the model's ModelMeta entry, generated at\n"
        f"       {path}\n"
        "     Fill in its TODO(author) fields (licence, training data, training code) and paste it "
        f"into mteb/models/model_implementations/ ({MTEB_ADDING_A_MODEL}).\n"
        "  2. once it is merged, to embeddings-benchmark/results: install an mteb that has it "
        f"(pip install {MTEB_FROM_GIT}) and run this command again.",
        entry_path=path,
    )


def _require_clean(root: Path) -> None:
    dirty = gitrepo.uncommitted(root)
    if dirty:
        raise LeaderboardSubmitError(
            f"{root} has uncommitted changes; mteb's submit_results commits everything in the "
            f"checkout (git add -A). Commit or stash them first:\n{dirty}"
        )
    if gitrepo.current_branch(root) == "HEAD":
        raise LeaderboardSubmitError(
            f"{root} is on a detached HEAD; `git -C {root} checkout main` first."
        )


def _overlay(
    cache: Any, meta: Any, staged: Path, root: Path, folder: str, scratch: Path
) -> dict[str, Path]:
    """The files mteb's ``submit_results`` is about to write: ``{relative path: content file}``."""
    from mteb import TaskResult

    overlay: dict[str, Path] = {}
    for source in compat.unsubmitted_result_files(cache, [meta]).get(meta, []):
        rel = f"{folder}/{source.name}"
        target = root / rel
        if target.exists():  # mteb merges new scores into the repository's file
            merged = scratch / rel
            merged.parent.mkdir(parents=True, exist_ok=True)
            TaskResult.from_disk(target).merge(TaskResult.from_disk(source)).to_disk(merged)
            overlay[rel] = merged
        else:
            overlay[rel] = source
    if overlay:
        for extra in (refile.META, refile.RUN_SETTINGS):
            if (staged / extra).is_file():
                overlay[f"{folder}/{extra}"] = staged / extra
    return overlay


def _commit(cache: Any, meta: Any, *, create_pr: bool, message: str | None) -> Any:
    try:
        return cache.submit_results([meta], create_pr=create_pr, message=message)
    except (RuntimeError, ImportError, subprocess.CalledProcessError) as err:
        raise LeaderboardSubmitError(f"mteb's ResultCache.submit_results failed: {err}") from err
