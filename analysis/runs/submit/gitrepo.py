"""The few git operations a submission needs, on a local checkout of the results repository.

The results repository's CI compares a pull request with the commit it branched off
from: the merge-base of ``main`` (``origin/main`` first) and ``HEAD``. :func:`base_ref`
finds the same commit, so the local pre-flight sees exactly the files CI will see.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ...core.errors import LeaderboardSubmitError

#: Where CI finds the base commit, in order (the results repository's rule).
MAIN_REFS = ("origin/main", "main")


def git(repo: str | Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``repo``; with ``check``, a non-zero exit raises with git's message."""
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=False, errors="replace"
    )
    if check and done.returncode != 0:
        raise LeaderboardSubmitError(
            f"git {' '.join(args)} failed in {repo}: {done.stderr.strip() or done.stdout.strip()}"
        )
    return done


def require_checkout(checkout: str | Path) -> Path:
    """The top folder of a git checkout of the results repository, or a clear error.

    Raises:
        LeaderboardSubmitError: It does not exist, is not a git checkout's top folder, or
            has no ``results/`` folder.
    """
    folder = Path(checkout).expanduser().resolve()
    clone = "git clone https://github.com/embeddings-benchmark/results"
    if not folder.is_dir():
        raise LeaderboardSubmitError(
            f"--checkout {folder} does not exist; make one with `{clone}`."
        )
    top = git(folder, "rev-parse", "--show-toplevel", check=False)
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != folder:
        raise LeaderboardSubmitError(
            f"--checkout {folder} is not the top folder of a git checkout; pass the folder "
            f"made by `{clone}`."
        )
    if not (folder / "results").is_dir():
        raise LeaderboardSubmitError(
            f"--checkout {folder} has no results/ folder: it is not a checkout of the MTEB "
            f"results repository (`{clone}`)."
        )
    return folder


def base_ref(checkout: str | Path) -> str:
    """The commit CI compares this branch with: merge-base of ``origin/main`` or ``main`` and HEAD.

    Falls back to ``$PR_BASE_SHA`` like the results repository's CI.

    Raises:
        LeaderboardSubmitError: Neither ``origin/main`` nor ``main`` exists.
    """
    for ref in MAIN_REFS:
        done = git(checkout, "merge-base", ref, "HEAD", check=False)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    if os.environ.get("PR_BASE_SHA"):
        return os.environ["PR_BASE_SHA"]
    raise LeaderboardSubmitError(
        f"{checkout} has neither an origin/main nor a main branch, so the files of this "
        "submission cannot be told from main's. Clone the results repository with its main "
        "branch (`git fetch origin main`)."
    )


def changed_files(checkout: str | Path, base: str, *, include_deleted: bool = False) -> list[str]:
    """Sorted relative paths that differ between ``base`` and HEAD (deleted ones on request)."""
    args = ["diff", "--name-only", "--no-renames"]
    if not include_deleted:
        args.append("--diff-filter=d")
    done = git(checkout, *args, base, "HEAD")
    return sorted(line.strip() for line in done.stdout.splitlines() if line.strip())


def current_branch(checkout: str | Path) -> str:
    """The checked-out branch (``HEAD`` when detached)."""
    return git(checkout, "rev-parse", "--abbrev-ref", "HEAD").stdout.strip()


def uncommitted(checkout: str | Path) -> str:
    """``git status --porcelain`` (empty when the working tree is clean)."""
    return git(checkout, "status", "--porcelain").stdout.strip()


def folder_commit(folder: str | Path) -> str | None:
    """HEAD of the git repository whose top folder is ``folder`` (a cloned hub model), else None."""
    folder = Path(folder)
    if not (folder / ".git").exists():
        return None
    done = git(folder, "rev-parse", "HEAD", check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def first_commit_date(folder: str | Path) -> str | None:
    """Date (YYYY-MM-DD) of the first commit of the git repository at ``folder``, else None.

    mteb's ``ModelMeta.from_hub`` dates a model by its hub repository's first commit.
    """
    folder = Path(folder)
    if not (folder / ".git").exists():
        return None
    done = git(folder, "log", "--reverse", "--format=%cs", check=False)
    lines = done.stdout.split()
    return lines[0] if done.returncode == 0 and lines else None
