"""Where results come from: one object that resolves, downloads, scans and names results folders.

:class:`ResultsFolders` (in the spirit of mteb's ``ResultCache``) owns "which results does
this analysis read": resolution (argument > ``$STATIC_RTEB_RESULTS`` > mteb's default
cache, downloaded by mteb when empty, never offline), pinning to a commit, the one scan
per process and folder (:func:`inventory`), the fingerprints, and names as the user typed
them. ``docs/leaderboard.md``, "Results folders, revision, cache and bad input".
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..core.errors import ResultsNotFoundError, ResultsRevisionError, spell, spelling
from ..core.paths import RESULTS_ENV, display_path, from_root, shared_dir

#: The MTEB results repository (mteb's default remote).
DEFAULT_REMOTE = "https://github.com/embeddings-benchmark/results"
#: ``(path relative to the folder, size in bytes, mtime in ns)`` of one file.
FileEntry = tuple[str, int, int]

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the one scan


@dataclass(frozen=True)
class Inventory:
    """Every result JSON under one results folder, with its size and mtime.

    Attributes:
        files: ``(relative path, size, mtime_ns)``, sorted by path; paths look like
            ``remote/results/<org>__<model>/<revision>/<Task>.json``.
    """

    files: tuple[FileEntry, ...]

    @cached_property
    def fingerprint(self) -> str:
        """Relative paths and sizes only: equal on every machine holding the same files."""
        text = "".join(f"{rel}\0{size}\n" for rel, size, _ in self.files)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @cached_property
    def change_fingerprint(self) -> str:
        """Paths, sizes and mtimes: changes with any edit (the parse cache's key).

        Mtimes change with every copy or checkout, so provenance uses :attr:`fingerprint`.
        """
        text = "".join(f"{rel}\0{size}\0{mtime}\n" for rel, size, mtime in self.files)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @cached_property
    def model_dirs(self) -> frozenset[str]:
        """The ``<org>__<model>`` folder names."""
        return frozenset(rel.rsplit("/", 3)[-3] for rel, _, _ in self.files)


def result_roots(folder: Path) -> list[Path]:
    """The non-empty ``results/`` and ``remote/results/`` folders of a results folder."""
    roots = [folder / "results", folder / "remote" / "results"]
    return [r for r in roots if r.is_dir() and any(r.iterdir())]


def _walk(folder: Path, *, files: bool) -> list[tuple[str, int, int]]:
    """Result files of ``folder``, or (``files=False``) its folders with their mtimes."""
    out: list[tuple[str, int, int]] = []
    for base in result_roots(folder):
        prefix = base.relative_to(folder).as_posix()
        if not files:
            out.append((prefix, 0, base.stat().st_mtime_ns))
        for model in _entries(base, folders=True):
            if not files:
                out.append((f"{prefix}/{model.name}", 0, model.stat().st_mtime_ns))
            for revision in _entries(model.path, folders=True):
                rel = f"{prefix}/{model.name}/{revision.name}"
                if not files:
                    out.append((rel, 0, revision.stat().st_mtime_ns))
                    continue
                for f in _entries(revision.path, folders=False):
                    if f.name.endswith(".json"):
                        st = f.stat()
                        out.append((f"{rel}/{f.name}", st.st_size, st.st_mtime_ns))
    out.sort()
    return out


def _entries(path: str | Path, *, folders: bool) -> list[os.DirEntry[str]]:
    """The sub-folders (or the files) of ``path``."""
    with os.scandir(path) as entries:
        return [e for e in entries if (e.is_dir() if folders else e.is_file())]


def scan(folder: str | Path) -> Inventory:
    """List ``<folder>/{results,remote/results}/<model>/<revision>/<file>.json`` (no memo)."""
    return Inventory(tuple(_walk(Path(folder), files=True)))


_SCANS: dict[str, tuple[tuple[tuple[str, int, int], ...], Inventory]] = {}


def inventory(folder: str | Path, *, refresh: bool = False) -> Inventory:
    """The folder's :class:`Inventory`, scanned once per process.

    A later call re-stats only the folders (root, model and revision folders): a file
    added, removed or replaced by a rename (as mteb, the runner and most editors write)
    changes its folder's mtime and triggers a new scan. A file rewritten in place is
    noticed by the next process, or now with ``refresh=True``.
    """
    key = os.path.realpath(folder)
    signature = tuple(_walk(Path(key), files=False))
    memo = _SCANS.get(key)
    if memo is None or refresh or memo[0] != signature:
        memo = (signature, scan(key))
        _SCANS[key] = memo
    return memo[1]


# --------------------------------------------------------------------------- resolution


def default_cache_folder() -> Path:
    """The default ``ResultCache`` folder of mteb: ``$MTEB_CACHE`` or ``~/.cache/mteb``.

    The same rule as ``mteb.ResultCache().cache_path`` (tested), without creating it.
    """
    env = os.environ.get("MTEB_CACHE")
    return Path(os.path.abspath(Path(env).expanduser() if env else Path.home() / ".cache" / "mteb"))


def suggested_results() -> str:
    """The folder to suggest offline: the shared snapshot beside the repository, as typed.

    ``../shared/mteb-cache`` when it exists (``$SHARED_DIR/mteb-cache`` if set), named
    relative to the repository root without resolving symlinks; else a placeholder.
    """
    folder = shared_dir() / "mteb-cache"
    return display_path(folder) if folder.is_dir() else "/path/to/mteb-cache"


def _hint() -> str:
    """What to type instead, in the caller's form (:func:`analysis.core.errors.spelling`)."""
    folder = suggested_results()
    if spelling() == "cli":
        return (
            "Online: leave --results out and mteb downloads the results repository "
            "(mteb.ResultCache().download_from_remote(), needs git). Offline: point --results "
            f"at a local copy of a ResultCache folder, e.g. `{spell('results', folder)}`."
        )
    return (
        "Online: leave the results option empty and mteb downloads the results repository "
        "(mteb.ResultCache().download_from_remote(), needs git). Offline: point it at a local "
        f"copy of a ResultCache folder, e.g. load_leaderboard(..., results={folder!r}), or "
        f'results_dir = "{folder}" in a notebook\'s parameters cell, or '
        f"`make figures RESULTS={folder}` (`make lab RESULTS={folder}` for JupyterLab)."
    )


def _split(results: Any) -> list[str]:
    """The folder entries of a ``results`` argument or ``$STATIC_RTEB_RESULTS`` value."""
    if results is None:
        return []
    items = [results] if isinstance(results, str | os.PathLike) else list(results)
    out: list[str] = []
    for item in items:
        if not isinstance(item, str | os.PathLike):
            raise TypeError(
                f"`results` entries must be folder paths (str or Path), got {type(item).__name__}"
            )
        out.extend(p for p in str(os.fspath(item)).split(os.pathsep) if p.strip())
    return out


def _absolute(entry: str) -> Path:
    """An entry as an absolute path, symlinks kept: from the current folder, else the root's."""
    path = Path(entry).expanduser()
    if path.is_absolute():
        return Path(os.path.abspath(path))
    here = Path(os.path.abspath(path))
    if here.exists():
        return here
    at_root = from_root(path)  # ../shared/... in $SHARED_DIR, as a notebook parameter's
    return at_root if at_root.exists() else here


def missing_folders(results: Any = None) -> list[str]:
    """The folders ``results`` (else ``$STATIC_RTEB_RESULTS``) names that do not exist.

    Found as :meth:`ResultsFolders.resolve` finds them; nothing named: none missing.
    """
    entries = _split(results or None) or _split(os.environ.get(RESULTS_ENV) or None)
    return [entry for entry in entries if not _absolute(entry).is_dir()]


def _offline() -> bool:
    """True when the Hugging Face offline flag is set (no probe of the network)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def git_head(repo: Path) -> str | None:
    """The commit checked out in ``repo`` (read from ``.git`` without running git)."""
    git = repo / ".git"
    head = git / "HEAD"
    if not head.is_file():
        return None
    ref = head.read_text().strip()
    if not ref.startswith("ref:"):
        return ref
    name = ref.split(" ", 1)[1]
    ref_path = git / name
    if ref_path.is_file():
        return ref_path.read_text().strip()
    packed = git / "packed-refs"
    if packed.is_file():
        for line in packed.read_text().splitlines():
            if line.endswith(" " + name):
                return line.split(" ", 1)[0]
    return None


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, timeout=600
    )
    return done.stdout.strip()


def _is_at(clone: Path, revision: str) -> bool:
    """Whether the clone's checked-out commit is ``revision`` (a SHA, tag or branch)."""
    head = git_head(clone)
    if head is None:
        return False
    if head == revision or (len(revision) >= 7 and head.startswith(revision)):
        return True
    try:
        return _git(clone, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}") == head
    except subprocess.CalledProcessError:
        return False  # not known locally: it has to be fetched


def _download(folder: Path, *, remote: str, revision: str | None, update: bool) -> None:
    """Clone, pin or update ``<folder>/remote`` with mteb's ``download_from_remote``."""
    import mteb

    clone = folder / "remote"
    logger.warning(
        "Contacting the results repository %s (git) to %s %s; this needs network unless it is "
        "a file:// URL. Offline, pass a local results folder instead.",
        remote,
        "clone it into" if not clone.exists() else ("pin" if revision else "update"),
        display_path(clone),
    )
    cache = mteb.ResultCache(folder)
    try:
        if not clone.exists() or (update and not revision):
            cache.download_from_remote(remote=remote, download_latest=True)
        if revision and not _is_at(clone, revision):
            _git(clone, "fetch", "--depth", "1", "origin", revision)
            cache.download_from_remote(remote=remote, download_latest=False, revision=revision)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as err:
        stderr = str(getattr(err, "stderr", None) or "").strip()
        raise ResultsNotFoundError(
            f"Could not get the MTEB results repository {remote} into {display_path(folder)} "
            f"({type(err).__name__}: {err}{' ' + stderr if stderr else ''}). {_hint()}"
        ) from err
    except ValueError as err:  # mteb: the clone has another origin, or the folder is a file
        raise ResultsNotFoundError(
            f"mteb refused to update {display_path(clone)}: {err} Remove that folder or pass "
            "its own remote."
        ) from err


def _prepare(
    folder: Path, *, download: bool | None, revision: str | None, remote: str | None, implicit: bool
) -> None:
    """Clone, pin or update ``<folder>/remote`` as asked (explicit folders: ``download=True``)."""
    clone = folder / "remote"
    checkout = (folder / ".git").exists() and (folder / "results").is_dir()
    if checkout and not (clone / ".git").exists():  # a checkout of the results repository
        if revision and not _is_at(folder, revision):
            raise ResultsRevisionError(
                f"{display_path(folder)} is a checkout at commit {git_head(folder)}, not "
                f"{revision}; check it out yourself (`git -C {display_path(folder)} checkout "
                f"{revision}`) or pass a ResultCache folder to download into."
            )
        return
    cloned, needs_clone = (clone / ".git").exists(), not (clone / "results").is_dir()
    needs_pin = revision is not None and not (cloned and _is_at(clone, revision))
    needs_update = download is True and revision is None
    if not (needs_clone or needs_pin or needs_update):
        return
    if not cloned and not needs_clone:
        raise ResultsRevisionError(
            f"{display_path(clone)} is not a git clone, so it cannot be "
            f"{'pinned to ' + str(revision) if revision else 'updated'}; pass another folder "
            "to download into, or leave `revision` and `download` out."
        )
    if not (download is True or (download is None and implicit)):
        if needs_pin and cloned:
            raise ResultsRevisionError(
                f"{display_path(clone)} is at commit {git_head(clone)}, not {revision}. Pass "
                "download=True to check that commit out (it fetches from the remote), or "
                "another results folder."
            )
        return  # never download into a folder the user gave unasked; _check says what is wrong
    url = remote or DEFAULT_REMOTE
    if implicit and download is None and not url.startswith("file://") and _offline():
        state = "is empty" if needs_clone else f"is not at commit {revision}"
        raise ResultsNotFoundError(
            f"No results folder given (argument or ${RESULTS_ENV}) and mteb's default cache "
            f"{display_path(folder)} {state}; offline (HF_HUB_OFFLINE is set) nothing is "
            f"downloaded. {_hint()}"
        )
    _download(folder, remote=url, revision=revision, update=needs_update)


def _check(folder: Path, after: Sequence[Path] = ()) -> None:
    """Raise :class:`ResultsNotFoundError` unless ``folder`` holds MTEB results.

    A folder named ``after`` others (own runs merged over the leaderboard's) that does not
    exist is most likely runs not made yet: the message says so, not where to get results.
    """
    shown = display_path(folder)
    if not folder.is_dir() and after:
        runs = f"`static-rteb run ... {spell('results', shown, how='cli')}`"
        raise ResultsNotFoundError(
            f"Results folder {shown} (merged over {display_path(after[0])}) does not exist. "
            f"If it is for your own runs, none are there yet: leave it out, or write runs "
            f"into it first ({runs})."
        )
    if not folder.is_dir():
        raise ResultsNotFoundError(f"Results folder {shown} does not exist. {_hint()}")
    if (
        folder.name in {"results", "remote"}
        and not (folder / "results").is_dir()
        and any(p.is_dir() and "__" in p.name for p in folder.iterdir())
    ):
        raise ResultsNotFoundError(
            f"{shown} looks like the inside of a results repository; pass the ResultCache "
            f"folder that contains remote/results/ instead (two levels up). {_hint()}"
        )
    if not result_roots(folder):
        raise ResultsNotFoundError(
            f"No MTEB results in {shown}: expected remote/results/<org>__<model>/<revision>/"
            f"<Task>.json (the results repository), or results/... (your own runs, or a "
            f"checkout of the results repository). {_hint()}"
        )


# --------------------------------------------------------------------------- the object


def _combined(inventories: Sequence[Inventory]) -> str:
    """One folder's stable fingerprint, or a hash of several folders' in order."""
    prints = [inv.fingerprint for inv in inventories]
    if len(prints) == 1:
        return prints[0]
    return hashlib.sha256("\n".join(prints).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ResultsFolders:
    """One or more results folders, read together (see the module docstring).

    Build it with :meth:`resolve`.

    Attributes:
        folders: absolute paths, symlinks kept (as given), each holding results.
        revision: the results repository commit asked for (None: whatever is there).

    Examples:
        ``tiny_results`` is a results folder of two models on three tasks, written by the tests
        (``tests/project/test_doctests.py``):

        >>> from analysis import ResultsFolders
        >>> folders = ResultsFolders.resolve(tiny_results)
        >>> len(folders.folders), folders.n_files
        (1, 8)
        >>> len(folders.fingerprint())
        16
    """

    folders: tuple[Path, ...]
    revision: str | None = None

    @classmethod
    def resolve(
        cls,
        results: str | Path | Sequence[str | Path] | ResultsFolders | None = None,
        *,
        download: bool | None = None,
        revision: str | None = None,
        remote: str | None = None,
        own_runs: str | Path | None = None,
    ) -> ResultsFolders:
        """The results folders to read.

        Args:
            results: a folder, several (a list, or one ``os.pathsep`` string), or a
                :class:`ResultsFolders`; None or ``""``: ``$STATIC_RTEB_RESULTS``, else
                mteb's default cache. Relative: from the current folder, else the
                repository root. A folder named twice is read once.
            download: True: clone, pin or update the first folder's ``remote/``. None:
                only mteb's default cache, when empty or not at ``revision``. False: never.
            revision: a commit, tag or branch the first folder must be at.
            remote: the results repository URL (default :data:`DEFAULT_REMOTE`).
            own_runs: a notebook's own runs folder, left out while it holds no results.

        Raises:
            ResultsNotFoundError: a folder is missing or holds no results; offline with
                nothing given; a download failed. The message says what to type.
            ResultsRevisionError: the folder is not at ``revision`` and may not be changed.
        """
        if isinstance(results, ResultsFolders):
            if download or (revision and revision != results.revision):
                return cls.resolve(
                    list(results.folders), download=download, revision=revision, remote=remote
                )
            return results
        entries = _split(None if results == "" else results)
        if not entries:
            entries = _split(os.environ.get(RESULTS_ENV) or None)
        implicit = not entries
        folders = [_absolute(e) for e in entries] if entries else [default_cache_folder()]
        if own_runs is not None:
            own = os.path.realpath(Path(own_runs).expanduser())
            kept = [f for f in folders if os.path.realpath(f) != own or result_roots(f)]
            folders = kept or folders  # nothing else named: the error says what is missing
        _prepare(folders[0], download=download, revision=revision, remote=remote, implicit=implicit)
        seen: dict[str, Path] = {}
        for at, folder in enumerate(folders):
            _check(folder, after=folders[:at])
            # the same folder named twice (``RESULTS=../shared/mteb-cache:data/runs`` and a
            # notebook adding its own ``data/runs``) is read once, where it was first named
            seen.setdefault(os.path.realpath(folder), folder)
        return cls(tuple(seen.values()), revision)

    def __iter__(self) -> Iterator[Path]:
        """The folders, in order."""
        return iter(self.folders)

    def __len__(self) -> int:
        """The number of folders."""
        return len(self.folders)

    def label(self, folder: Path | int) -> str:
        """One folder as shown to the user (e.g. ``../shared/mteb-cache``)."""
        return display_path(self.folders[folder] if isinstance(folder, int) else folder)

    def display(self) -> str:
        """The folders as shown to the user: ``../shared/mteb-cache + data/runs``."""
        return " + ".join(self.label(f) for f in self.folders)

    def inventory(self) -> tuple[Inventory, ...]:
        """Each folder's :class:`Inventory` (scanned once per process; see :func:`inventory`)."""
        return tuple(inventory(f) for f in self.folders)

    def fingerprint(self) -> str:
        """Stable content fingerprint (relative paths and sizes; the same on every machine).

        One folder: its own fingerprint. Several: a hash of theirs, in order.
        """
        return _combined(self.inventory())

    def cache_identity(self, inventories: Sequence[Inventory] | None = None) -> dict[str, Any]:
        """What the parse cache keys on: real paths and the mtime fingerprints."""
        inventories = inventories if inventories is not None else self.inventory()
        return {
            "folders": [os.path.realpath(f) for f in self.folders],
            "fingerprints": [inv.change_fingerprint for inv in inventories],
        }

    @property
    def n_files(self) -> int:
        """Result files (incl. ``model_meta.json``) over all folders."""
        return sum(len(inv.files) for inv in self.inventory())

    def commit(self, folder: Path | int = 0) -> str | None:
        """The git commit of a folder's results repository clone (``remote/`` or itself)."""
        path = self.folders[folder] if isinstance(folder, int) else Path(folder)
        return git_head(path / "remote") or git_head(path)

    def commits(self) -> str | None:
        """The commit(s) for provenance: one folder's commit, or ``a + none`` for several."""
        found = [self.commit(i) for i in range(len(self.folders))]
        return " + ".join(c or "none" for c in found) if any(found) else None

    def provenance(self, inventories: Sequence[Inventory] | None = None) -> dict[str, Any]:
        """What a table header and ``Leaderboard.provenance`` record about the results.

        ``results`` (display form), ``results_fingerprint``, ``result_files``, and
        ``results_commit`` when a folder is a git clone.
        """
        inventories = inventories if inventories is not None else self.inventory()
        info: dict[str, Any] = {
            "results": self.display(),
            "results_fingerprint": _combined(inventories),
            "result_files": sum(len(inv.files) for inv in inventories),
        }
        commit = self.commits()
        if commit:
            info["results_commit"] = commit
        return info

    def describe(self) -> str:
        """``"../shared/mteb-cache (fingerprint 1a2b..., 43111 files)"`` for prose."""
        info = self.provenance()
        commit = f", commit {info['results_commit']}" if "results_commit" in info else ""
        return (
            f"{info['results']} (fingerprint {info['results_fingerprint']}, "
            f"{info['result_files']} files{commit})"
        )


def results_provenance(
    results: str | Path | Sequence[str | Path] | ResultsFolders,
) -> dict[str, Any]:
    """:meth:`ResultsFolders.provenance` of existing folders (never downloads)."""
    return ResultsFolders.resolve(results, download=False).provenance()
