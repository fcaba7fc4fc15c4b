"""Pre-flight: the results repository's CI checks, run locally on a checkout before a commit.

:func:`preflight` checks what a pull request from the checkout's HEAD would contain
(everything that differs from the merge-base with ``main``, as CI sees it), plus
optionally the files a submission is about to add (``overlay``), without writing into
the checkout: the model folders concerned are staged in a temporary folder. Only model
folders that the change touches are checked (main passed CI already); the individual
checks live in :mod:`.checks`.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import PreflightError
from . import gitrepo
from .checks import Failure, check_model_folder
from .diffchecks import check_changes


@dataclass(frozen=True)
class PreflightReport:
    """What the pre-flight checked and what failed.

    Attributes:
        checkout: The checkout.
        base: The commit compared with (merge-base of main and HEAD).
        changed: The files a pull request would change (relative paths).
        models: The model folders checked (relative paths).
        failures: Every failure, sorted by file.
    """

    checkout: Path
    base: str
    changed: tuple[str, ...]
    models: tuple[str, ...]
    failures: tuple[Failure, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.failures

    def checks_failed(self) -> set[str]:
        """The ids of the checks that failed."""
        return {f.check for f in self.failures}

    def __str__(self) -> str:
        """A summary line, then one block per failure."""
        head = (
            f"pre-flight of {self.checkout} against {self.base[:12]}: {len(self.changed)} "
            f"changed file(s) in {len(self.models)} model folder(s): "
        )
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
    """Run the results repository's CI checks on a checkout (and files about to be added).

    Args:
        checkout: A git checkout of the results repository.
        overlay: Files about to be written, ``{relative path: source file}``; checked as
            if they were committed on top of HEAD. The checkout itself is not changed.
        base: The commit to compare with (default: merge-base of ``origin/main`` or
            ``main`` and HEAD, as CI does).

    Returns:
        A :class:`PreflightReport`.

    Raises:
        LeaderboardSubmitError: The folder is not a checkout of the results repository.
    """
    root = gitrepo.require_checkout(checkout)
    base = base or gitrepo.base_ref(root)
    staged = {str(k).replace("\\", "/"): Path(v) for k, v in (overlay or {}).items()}
    changed = sorted(set(gitrepo.changed_files(root, base, include_deleted=True)) | set(staged))
    folders = model_folders(changed)
    old_text = {
        rel: gitrepo.show_at(root, base, rel)
        for rel in changed
        if rel.endswith(".json") and not rel.endswith("/model_meta.json")
    }
    failures: list[Failure] = []
    with _view(root, folders, changed, staged) as view:
        for folder in folders:
            if (view / folder).is_dir():
                failures += check_model_folder(view, view / folder, changed)
        failures += check_changes(view, changed, old_text)
    unique = {(f.check, f.path, f.problem): f for f in failures}
    ordered = sorted(unique.values(), key=lambda f: (f.path, f.check))
    return PreflightReport(root, base, tuple(changed), tuple(folders), tuple(ordered))


@contextmanager
def _view(
    root: Path, folders: list[str], changed: list[str], staged: Mapping[str, Path]
) -> Iterator[Path]:
    """The checkout as it would be with ``staged`` committed: the checkout itself, or a copy.

    Only the touched model folders and changed files are copied.
    """
    if not staged:
        yield root
        return
    with tempfile.TemporaryDirectory(prefix="static-rteb-preflight-") as tmp:
        view = Path(tmp)
        for folder in folders:
            if (root / folder).is_dir():
                shutil.copytree(root / folder, view / folder, symlinks=True)
        for rel in changed:
            if not (view / rel).exists() and (root / rel).is_file():
                (view / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / rel, view / rel)
        for rel, source in staged.items():
            (view / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, view / rel)
        yield view
