"""analysis.results.folder: resolution, the one scan, fingerprints, provenance, pinning.

The online paths run offline: a local git repository built in the test from a handful of
result files stands in for the results repository (a file:// URL), and mteb's own
``ResultCache.download_from_remote`` clones, pins and updates it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from analysis.core.errors import ResultsNotFoundError, ResultsRevisionError
from analysis.core.paths import RESULTS_ENV, display_path, repo_root
from analysis.results import folder as folder_mod
from analysis.results.folder import ResultsFolders, inventory, results_provenance
from tests.conftest import SHARED_RESULTS, write_result


def _results(root: Path, *models: str, task: str = "STSBenchmark") -> Path:
    for i, model in enumerate(models):
        write_result(root, model, "r1", task, 0.5 + i / 10)
    return root


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    monkeypatch.setenv("MTEB_CACHE", str(tmp_path / "mteb-default-cache"))


# --------------------------------------------------------------------------- resolution


def test_argument_then_environment_then_default(tmp_path, monkeypatch):
    a = _results(tmp_path / "a", "org/x")
    b = _results(tmp_path / "b", "org/y")
    monkeypatch.setenv(RESULTS_ENV, str(b))
    assert ResultsFolders.resolve(a).folders == (a,)
    assert ResultsFolders.resolve(None).folders == (b,)
    assert ResultsFolders.resolve("").folders == (b,)
    monkeypatch.setenv(RESULTS_ENV, f"{a}{os.pathsep}{b}")
    assert ResultsFolders.resolve(None).folders == (a, b)
    monkeypatch.delenv(RESULTS_ENV)
    default = _results(tmp_path / "mteb-default-cache", "org/z")
    assert ResultsFolders.resolve(None, download=False).folders == (default,)


def test_several_folders_as_list_string_or_object(tmp_path):
    a = _results(tmp_path / "a", "org/x")
    b = _results(tmp_path / "b", "org/y")
    by_list = ResultsFolders.resolve([a, str(b)])
    assert by_list.folders == (a, b)
    assert ResultsFolders.resolve(f"{a}{os.pathsep}{b}") == by_list
    assert ResultsFolders.resolve(by_list) is by_list
    assert len(by_list) == 2 and list(by_list) == [a, b]
    # the same folder twice (e.g. RESULTS=cache:data/runs plus a notebook's own data/runs)
    assert ResultsFolders.resolve([a, b, tmp_path / "." / "a"]).folders == (a, b)
    assert ResultsFolders.resolve(f"{a}{os.pathsep}{b}{os.pathsep}{b}").folders == (a, b)
    with pytest.raises(TypeError, match="folder paths"):
        ResultsFolders.resolve([a, 3])  # type: ignore[list-item]


def test_default_cache_folder_is_mtebs(tmp_path):
    import mteb

    assert folder_mod.default_cache_folder() == mteb.ResultCache().cache_path


def test_relative_paths_from_here_else_from_the_repository_root(tmp_path, monkeypatch):
    inside = _results(repo_root() / "build" / "test-folder-relative", "org/x")
    try:
        monkeypatch.chdir(tmp_path)  # not found here: taken from the repository root
        assert ResultsFolders.resolve("build/test-folder-relative").folders == (inside,)
        here = _results(tmp_path / "build" / "test-folder-relative", "org/y")
        assert ResultsFolders.resolve("build/test-folder-relative").folders == (here,)
    finally:
        shutil.rmtree(inside)


def test_symlinks_are_kept_and_shown_as_given(tmp_path):
    target = _results(tmp_path / "real-target", "org/x")
    link = tmp_path / "given-link"
    link.symlink_to(target)
    folders = ResultsFolders.resolve(link)
    assert folders.folders == (link,)
    assert folders.display().endswith("given-link")
    assert "real-target" not in json.dumps(folders.provenance())
    root = repo_root()
    assert display_path(root.parent / "shared" / "mteb-cache") == "../shared/mteb-cache"
    assert display_path(root / "data" / "runs") == "data/runs"


def test_bad_folders_say_what_to_do(tmp_path):
    with pytest.raises(ResultsNotFoundError, match="does not exist") as err:
        ResultsFolders.resolve(tmp_path / "absent")
    assert "Offline" in str(err.value) and "make lab RESULTS=" in str(err.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResultsNotFoundError, match="No MTEB results"):
        ResultsFolders.resolve(tmp_path / "empty")
    inner = _results(tmp_path / "c", "org/x") / "remote" / "results"
    with pytest.raises(ResultsNotFoundError, match="two levels up"):
        ResultsFolders.resolve(inner)
    assert not (tmp_path / "absent").exists()


def test_a_results_repository_checkout_is_a_folder(tmp_path):
    checkout = tmp_path / "results-repo"
    write_result(checkout / "tmp", "org/x", "r1", "STSBenchmark", 0.5)
    shutil.move(checkout / "tmp" / "remote" / "results", checkout / "results")
    folders = ResultsFolders.resolve(checkout)
    assert folders.n_files == 2
    assert inventory(checkout).files[0][0].startswith("results/org__x/r1/")


def test_offline_default_never_downloads_nor_probes_the_network(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("resolution must not touch the network here")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(folder_mod, "_download", no_network)
    with pytest.raises(ResultsNotFoundError) as err:
        ResultsFolders.resolve(None)
    message = str(err.value)
    assert "offline" in message and "`make lab RESULTS=" in message
    assert "results_dir = " in message and "load_leaderboard(" in message
    if (repo_root().parent / "shared" / "mteb-cache").is_dir() and not os.environ.get("SHARED_DIR"):
        assert "RESULTS=../shared/mteb-cache" in message  # as typed, not the resolved link


def test_online_default_download_is_announced(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    calls = []

    def fake_download(folder: Path, **kwargs: object) -> None:
        calls.append(kwargs)
        write_result(folder, "org/x", "r1", "STSBenchmark", 0.5)

    monkeypatch.setattr(folder_mod, "_download", fake_download)
    folders = ResultsFolders.resolve(None)
    assert calls == [{"remote": folder_mod.DEFAULT_REMOTE, "revision": None, "update": False}]
    assert folders.folders == (folder_mod.default_cache_folder(),)
    ResultsFolders.resolve(None)  # there now: no second download
    assert len(calls) == 1


# --------------------------------------------------------------------------- the one scan


def test_one_scan_per_process_and_changes_are_seen(tmp_path, monkeypatch):
    root = _results(tmp_path / "r", "org/x", "org/y")
    scans = []
    real_scan = folder_mod.scan
    monkeypatch.setattr(folder_mod, "scan", lambda f: scans.append(f) or real_scan(f))
    folders = ResultsFolders.resolve(root)
    first = folders.provenance()
    for _ in range(5):
        assert folders.provenance() == first
        assert results_provenance(root) == first
    assert len(scans) == 1
    write_result(root, "org/z", "r1", "STSBenchmark", 0.25)  # a new folder: seen
    assert folders.provenance()["result_files"] == first["result_files"] + 2
    write_result(root, "org/z", "r1", "SciFact", 0.25)  # a new file in a folder: seen
    assert folders.provenance()["result_files"] == first["result_files"] + 3
    assert len(scans) == 3


def test_fingerprints_stable_across_copies(tmp_path):
    a = _results(tmp_path / "a", "org/x", "org/y")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    for f in b.rglob("*.json"):
        os.utime(f, (1, 1))
    fa, fb = ResultsFolders.resolve(a), ResultsFolders.resolve(b)
    assert fa.fingerprint() == fb.fingerprint()
    assert fa.cache_identity()["fingerprints"] != fb.cache_identity()["fingerprints"]
    both = ResultsFolders.resolve([a, b])
    assert both.fingerprint() not in {fa.fingerprint(), fb.fingerprint()}
    assert both.n_files == fa.n_files + fb.n_files == 8
    info = both.provenance()
    assert info["results"] == f"{fa.display()} + {fb.display()}"
    assert set(info) == {"results", "results_fingerprint", "result_files"}


# --------------------------------------------------------------------------- pinning


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    done = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env
    )
    return done.stdout.strip()


SNAPSHOT_MODELS = (
    "sentence-transformers__all-MiniLM-L6-v2",
    "minishlab__potion-base-8M",
    "sentence-transformers__static-retrieval-mrl-en-v1",
)


@pytest.fixture()
def stand_in_remote(tmp_path: Path) -> tuple[str, list[str]]:
    """A git repository of a few snapshot result files: commit 1 two models, commit 2 three."""
    if not (SHARED_RESULTS / "remote" / "results").is_dir():
        pytest.skip(f"needs the shared MTEB results snapshot at {SHARED_RESULTS}")
    repo = tmp_path / "results-remote"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    commits = []
    for n in (2, 3):
        for model in SNAPSHOT_MODELS[:n]:
            src = SHARED_RESULTS / "remote" / "results" / model
            for revision in src.iterdir():
                dst = repo / "results" / model / revision.name
                dst.mkdir(parents=True, exist_ok=True)
                for name in ("model_meta.json", "STSBenchmark.json", "AILAStatutes.json"):
                    if (revision / name).is_file():
                        shutil.copy(revision / name, dst / name)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", f"{n} models")
        commits.append(_git(repo, "rev-parse", "HEAD"))
    return f"file://{repo}", commits


def _models(folders: ResultsFolders) -> set[str]:
    return set(inventory(folders.folders[0]).model_dirs)


def test_clone_pin_and_update_through_mteb(tmp_path, stand_in_remote):
    url, (c1, c2) = stand_in_remote
    cache = tmp_path / "cache"
    pinned = ResultsFolders.resolve(cache, download=True, revision=c1, remote=url)
    assert pinned.commit() == c1 and pinned.provenance()["results_commit"] == c1
    assert _models(pinned) == set(SNAPSHOT_MODELS[:2])
    assert _git(cache / "remote", "config", "--get", "remote.origin.url") == url
    # already there: no network, same commit
    assert ResultsFolders.resolve(cache, revision=c1).commit() == c1
    with pytest.raises(ResultsRevisionError, match="download=True"):
        ResultsFolders.resolve(cache, revision=c2)
    updated = ResultsFolders.resolve(cache, download=True, remote=url)  # latest
    assert updated.commit() == c2 and _models(updated) == set(SNAPSHOT_MODELS)
    back = ResultsFolders.resolve(cache, download=True, revision=c1, remote=url)
    assert back.commit() == c1 and _models(back) == set(SNAPSHOT_MODELS[:2])


def test_default_cache_is_cloned_at_a_pin(tmp_path, stand_in_remote, monkeypatch):
    url, (c1, _) = stand_in_remote
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a file:// remote is not the network
    folders = ResultsFolders.resolve(None, revision=c1, remote=url)
    assert folders.folders == (folder_mod.default_cache_folder(),)
    assert folders.commit() == c1


def test_loader_pins_and_records_the_commit(tmp_path, stand_in_remote):
    from analysis.results.leaderboard import load_leaderboard

    url, (c1, c2) = stand_in_remote
    cache = tmp_path / "cache"
    kw = dict(tasks=["STSBenchmark"], results=cache, download=True, results_remote=url)
    old = load_leaderboard(results_revision=c1, cache_dir=tmp_path / "lb", **kw)
    new = load_leaderboard(results_revision=c2, cache_dir=tmp_path / "lb", **kw)
    assert old.provenance["results_commit"] == c1 and new.provenance["results_commit"] == c2
    assert old.provenance["cache"] == new.provenance["cache"] == "miss"
    assert len(new.summary) == len(old.summary) + 1


def test_a_non_clone_cannot_be_pinned(tmp_path):
    root = _results(tmp_path / "plain", "org/x")
    with pytest.raises(ResultsRevisionError, match="not a git clone"):
        ResultsFolders.resolve(root, revision="0" * 40)


# --------------------------------------------------------------------------- callers


def test_batch_results_flag_takes_several_folders(monkeypatch, tmp_path):
    from analysis.cli import main as static_rteb
    from analysis.notebook import batch

    seen = {}

    def fake_run_batch(profile: str, **kwargs: object) -> list:
        seen.update(kwargs)
        return []

    monkeypatch.setattr(batch, "run_batch", fake_run_batch)
    assert static_rteb(["batch", "--profile", "smoke", "--results", "a", "b", "--only", "x"]) == 0
    assert seen["results"] == f"a{os.pathsep}b" and seen["only"] == ["x"]
    assert static_rteb(["batch", "--profile", "smoke"]) == 0 and seen["results"] is None
    declared = {"results_dir"}
    assert batch.params_for("x", declared, {}, f"a{os.pathsep}b") == {
        "results_dir": f"a{os.pathsep}b"
    }


def test_model_groups_unknown_only_for_a_model_mteb_does_not_know(monkeypatch):
    from analysis.results import groups as groups_module
    from analysis.results.groups import model_groups

    groups = model_groups(["no-such-org/no-such-model", "minishlab/potion-base-8M"])
    assert groups.set_index("model")["family"].to_dict() == {
        "no-such-org/no-such-model": "unknown",
        "minishlab/potion-base-8M": "static",
    }

    def broken(name: str, **options: bool) -> None:
        raise RuntimeError("registry broken")

    monkeypatch.setattr(groups_module, "registered_meta", broken)
    with pytest.raises(RuntimeError, match="registry broken"):
        model_groups(["minishlab/potion-base-8M"])


def test_a_missing_folder_suggests_the_option_as_it_was_typed(tmp_path, monkeypatch, capsys):
    from analysis.cli import main
    from analysis.core.errors import spoken_as

    with spoken_as("cli"), pytest.raises(ResultsNotFoundError) as err:
        ResultsFolders.resolve(tmp_path / "absent")
    cli = str(err.value)
    assert "point --results at" in cli and "`--results " in cli
    assert "results=" not in cli and "RESULTS=" not in cli and "results_dir" not in cli
    with pytest.raises(ResultsNotFoundError) as err:  # Python: the keyword (and make's variable)
        ResultsFolders.resolve(tmp_path / "absent")
    python = str(err.value)
    assert "results='" in python and "--results" not in python
    assert "make figures RESULTS=" in python
    # the command line: the flag the user typed, through the real command
    argv = ["estimate", "--results", str(tmp_path / "absent"), "-m", "a/b", "-b", "RTEB(beta)"]
    assert main(argv) == 2
    shown = capsys.readouterr().err
    assert "does not exist" in shown and "point --results at" in shown and "results=" not in shown


def test_the_make_form_from_notebooks_reads_each_folder_once(monkeypatch):
    """``RESULTS=../shared/mteb-cache:data/runs`` in a notebook that adds its own ``data/runs``."""
    from analysis.core.paths import from_root

    name = "build/test-folder-notebooks"
    inside = _results(repo_root() / name, "org/x")
    try:
        monkeypatch.chdir(repo_root() / "notebooks")  # papermill's working folder
        folders = ResultsFolders.resolve([f"{name}{os.pathsep}{name}", from_root(name)])
        assert folders.folders == (inside,)
        if SHARED_RESULTS.is_dir():
            shared = display_path(SHARED_RESULTS)  # ../shared/mteb-cache, beside the root
            both = ResultsFolders.resolve(f"{shared}{os.pathsep}{name}").display()
            assert both == f"{shared} + {name}"
    finally:
        shutil.rmtree(inside)


def test_a_notebooks_own_runs_folder_may_not_exist_yet(tmp_path):
    """``RESULTS=../shared/mteb-cache:data/runs`` for my_model before its first run."""
    from analysis.notebook import resolve_results

    cache = _results(tmp_path / "cache", "org/x")
    runs = tmp_path / "runs"
    joined = f"{cache}{os.pathsep}{runs}"
    with pytest.raises(ResultsNotFoundError, match="does not exist") as err:
        ResultsFolders.resolve(joined)  # any other folder must exist
    said = str(err.value)  # runs not made yet, not where to get the leaderboard's results
    assert "merged over" in said and "static-rteb run" in said and "Offline" not in said, said
    assert ResultsFolders.resolve(joined, own_runs=runs).folders == (cache,)
    assert resolve_results(joined, runs).folders == (cache,)
    _results(runs, "local/m")
    assert resolve_results(joined, runs).folders == (cache, runs)
    with pytest.raises(ResultsNotFoundError, match="does not exist"):
        ResultsFolders.resolve(tmp_path / "absent", own_runs=tmp_path / "absent")  # alone


def test_missing_folders_finds_them_as_resolve_does(tmp_path, monkeypatch):
    """``batch`` checks its results folders before any kernel starts, by the rule the
    notebooks read them with: ``../shared/...`` in ``$SHARED_DIR`` when it is set."""
    from analysis.results.folder import missing_folders

    (tmp_path / "elsewhere" / "only-here").mkdir(parents=True)
    monkeypatch.setenv("SHARED_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("STATIC_RTEB_RESULTS", raising=False)
    monkeypatch.chdir(tmp_path)  # not found from the current folder: the root's rule
    assert missing_folders(None) == []  # nothing named
    assert missing_folders(["../shared/only-here", "nowhere"]) == ["nowhere"]
    monkeypatch.setenv("STATIC_RTEB_RESULTS", os.pathsep.join(["../shared/only-here", "no2"]))
    assert missing_folders("") == ["no2"]
