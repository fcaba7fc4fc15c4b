"""Bit-reproducible outputs: the same inputs give the same bytes, whatever the threads or CPU.

A distilled student (every file), a notebook's table and figure (Markdown, PNG and SVG)
are made twice, under different thread counts, and compared byte for byte. The student
is also distilled as another CPU would: torch without its AVX2/AVX-512 kernels
(``ATEN_CPU_CAPABILITY=default``) or OpenBLAS with another core's kernels
(``OPENBLAS_CORETYPE``). Whether those kernels change model2vec's own float32 student
depends on the CPU and the libraries, not on this project, so it is measured, not
asserted: ``benchmarks/bench_distill.py`` (``benchmarks/results/distill.md``). The own
model's scores a figure plots are rounded first (:func:`analysis.notebook.style.for_figure`), so a
machine's float noise in them does not reach the SVG either.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.notebook import NotebookContext, for_figure
from analysis.runs.distill import distill_model
from analysis.stats import rank_intervals
from tests._run_fixtures import tiny_teacher
from tests.conftest import THREAD_LIMITS


def _digests(folder: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every file under ``folder``."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _threads(n: int):
    """torch and every BLAS/OpenMP pool on ``n`` threads (restored afterwards)."""
    import contextlib

    import torch
    from threadpoolctl import threadpool_limits

    @contextlib.contextmanager
    def limited():
        before = torch.get_num_threads()
        torch.set_num_threads(n)
        try:
            with threadpool_limits(limits=n):
                yield
        finally:
            torch.set_num_threads(before)

    return limited()


def test_distilled_student_is_byte_identical_under_other_thread_counts(tmp_path_factory):
    teacher = tiny_teacher(tmp_path_factory.mktemp("teacher") / "tiny-bert")
    out = tmp_path_factory.mktemp("students")
    digests = []
    for threads in (1, 2):
        with _threads(threads):
            folder = distill_model(
                teacher,
                out / f"threads-{threads}" / "student",
                pca_dims=16,
                show_progress=False,
                use_cache=False,  # each encodes: a kept encoding would make them equal
            )
        digests.append(_digests(folder))
    assert {"model.safetensors", "config.json", "README.md"} <= set(digests[0])
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "model_name: student" in card and "distilling" not in card
    assert digests[0] == digests[1]


#: Environments that make this machine compute as another CPU would.
OTHER_CPUS = {
    "torch without AVX2": {"ATEN_CPU_CAPABILITY": "default"},
    "OpenBLAS Sandy Bridge": {"OPENBLAS_CORETYPE": "Sandybridge"},
}

_OURS = """
import sys
from analysis.runs.distill import distill_model
distill_model(sys.argv[1], sys.argv[2], pca_dims=16, show_progress=False, use_cache=False)
"""  # use_cache=False: every process encodes the tokens with its own kernels


def _distil_as(cpu: dict[str, str], script: str, teacher: Path, out: Path) -> dict[str, str]:
    """Digests of a student distilled by ``script`` in a fresh process under ``cpu``'s environment."""
    env = {**os.environ, **cpu}
    subprocess.run(
        [sys.executable, "-c", script, str(teacher), str(out)], env=env, check=True, timeout=300
    )
    return _digests(out)


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    return tiny_teacher(tmp_path_factory.mktemp("teacher") / "tiny-bert")


@pytest.fixture(scope="module")
def student_here(teacher, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The tiny teacher's student distilled in a fresh process as this machine computes."""
    out = tmp_path_factory.mktemp("here") / "student"
    return out, _distil_as({}, _OURS, teacher, out)


@pytest.mark.parametrize("cpu", list(OTHER_CPUS))
def test_distilled_student_is_byte_identical_on_another_cpu(teacher, student_here, tmp_path, cpu):
    """float64 up to model2vec's float16: the other kernels' noise stays below a float16 step.

    Holds on any machine, whichever kernels it runs by default (``OPENBLAS_CORETYPE`` or
    ``ATEN_CPU_CAPABILITY`` set by the caller included); how much model2vec's float32 path
    changes under the same environments is ``benchmarks/bench_distill.py``'s measurement.
    """
    folder, here = student_here
    there = _distil_as(OTHER_CPUS[cpu], _OURS, teacher, tmp_path / "there" / "student")
    assert here == there
    config = (folder / "config.json").read_text(encoding="utf-8")
    assert str(folder.parent) not in config  # the teacher as given, no path of this machine


def test_distillation_runs_blas_on_one_thread(tmp_path, monkeypatch):
    """model2vec's PCA sees one BLAS thread, whatever the caller's limit (here 2)."""
    import model2vec.distill
    from threadpoolctl import threadpool_info, threadpool_limits

    from analysis.runs.distill import DISTILL_BLAS_THREADS

    seen: list[int] = []

    class Student:
        def __init__(self) -> None:
            self.config: dict[str, str] = {}

        def save_pretrained(self, path: str, model_name: str | None = None) -> None:
            Path(path).mkdir(parents=True, exist_ok=True)
            (Path(path) / "config.json").write_text("{}", encoding="utf-8")

    def distill_from_model(**kwargs):
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return Student()

    monkeypatch.setattr(model2vec.distill, "distill_from_model", distill_from_model)
    teacher = tiny_teacher(tmp_path / "tiny-bert")
    with threadpool_limits(limits=2, user_api="blas"):
        distill_model(teacher, tmp_path / "student", show_progress=False)
        after = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert seen and set(seen) == {DISTILL_BLAS_THREADS}
    assert DISTILL_BLAS_THREADS == 1 and set(after) == {2}  # the caller's limit is back


def _scores(noise: float) -> pd.DataFrame:
    """Six models on eight tasks (fixed draws); the own model's scores carry ``noise``."""
    rng = np.random.default_rng(7)
    wide = pd.DataFrame(
        rng.uniform(0.3, 0.8, size=(8, 6)),
        index=[f"task{i}" for i in range(8)],
        columns=[f"org/model-{j}" for j in range(6)],
    )
    wide["local/own"] = wide.mean(axis=1) + 0.01 + noise
    return wide


def _placement(out: Path, wide: pd.DataFrame) -> list[Path]:
    """A placement table and figure as ``notebooks/my_model.py`` makes them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nb = NotebookContext(
        notebook="my_model.py", parameters={"seed": 20251006}, out=out, results=None
    )
    ranks = rank_intervals(wide * 100, n_resamples=2000, rng=nb.rng("my_model_rank"))
    nb.table(ranks.table.reset_index(), "my_model_rank", floatfmt=".2f", show=False)
    plotted = for_figure(wide * 100)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(8, 4))
    for y, model in enumerate(ranks.table.index):
        row = ranks.table.loc[model]
        ax.plot([row["rank_low"], row["rank_high"]], [y, y], lw=2)
        ax.plot(row["rank"], y, "o")
    for i, task in enumerate(plotted.index):
        ax2.scatter(plotted.loc[task], np.full(plotted.shape[1], i), s=8)
        ax2.scatter(plotted.loc[task, "local/own"], i, marker="D", color="black")
    nb.figure(fig, "my_model_placement", show=False)
    return nb.written


@pytest.mark.parametrize("noise", [0.0, 1e-7])
def test_placement_table_and_figure_are_byte_identical(tmp_path, noise):
    """Twice, under 1 and 2 threads; the second time the own scores carry float noise."""
    with _threads(1):
        first = _placement(tmp_path / "first", _scores(0.0))
    with _threads(2):
        second = _placement(tmp_path / "second", _scores(noise))
    assert [p.name for p in first] == [
        "my_model_rank.md",
        "my_model_placement.png",
        "my_model_placement.svg",
    ]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_float_noise_would_reach_the_svg_without_rounding(tmp_path):
    """The check above can fail: unrounded, noise of 1e-7 changes the SVG's coordinates."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from analysis.core.io import save_figure

    svgs = []
    for noise, folder in ((0.0, tmp_path / "a"), (1e-7, tmp_path / "b")):
        wide = _scores(noise) * 100
        fig, ax = plt.subplots()
        ax.scatter(wide["local/own"], range(len(wide)))
        ax.set_xlim(0, 100)
        svgs.append(save_figure(fig, folder / "raw")[1].read_bytes())
        plt.close(fig)
    assert svgs[0] != svgs[1]


@pytest.mark.slow
def test_scores_and_rankings_are_byte_identical_on_another_cpu(tmp_path_factory, shared_dir):
    """After the student, the run: mteb's scores and saved rankings, here and as another CPU.

    ``static-rteb run`` of the session's distilled MiniLM on an STS and a retrieval task,
    once as this machine computes (its own thread defaults, not the per-worker limit of
    ``conftest.limit_threads``) and once with every other kernel at once (torch's default,
    OpenBLAS Sandy Bridge, one OpenMP thread): each result file's scores and each
    predictions file are the same.
    """
    from tests._cli import run_cli
    from tests._run_fixtures import distilled_static_model

    model = distilled_static_model(tmp_path_factory)
    other = {key: value for cpu in OTHER_CPUS.values() for key, value in cpu.items()}
    here: dict[str, str | None] = dict.fromkeys(THREAD_LIMITS)
    outs = []
    for name, env in (("here", here), ("there", {**here, **other, "OMP_NUM_THREADS": "1"})):
        out = tmp_path_factory.mktemp(name)
        argv = ["run", "-m", str(model), "--name", "local/student", "-t", "STSBenchmark"]
        argv += ["AILAStatutes", "--local-tasks", str(shared_dir / "tasks")]
        done = run_cli([*argv, "--results", str(out), "--quiet"], env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        outs.append(out)
    results = sorted(p.relative_to(outs[0]) for p in (outs[0] / "results").rglob("*.json"))
    predictions = sorted(p.relative_to(outs[0]) for p in (outs[0] / "predictions").rglob("*"))
    assert len(results) == 3 and len([p for p in predictions if p.suffix == ".json"]) == 2
    for path in results:
        here, there = (json.loads((out / path).read_text()) for out in outs)
        assert here.get("scores") == there.get("scores"), path
    for path in predictions:
        if (outs[0] / path).is_file():
            assert (outs[0] / path).read_bytes() == (outs[1] / path).read_bytes(), path


def test_svg_is_byte_identical_when_the_layout_differs_in_its_last_bits(tmp_path):
    """matplotlib hashes a clip rectangle at full precision; save_figure numbers the clip paths.

    Two figures whose axes differ by 1e-15 of the figure draw the same file (six decimals),
    but raw matplotlib names their clip paths differently, as another CPU's layout did.
    """
    import matplotlib

    matplotlib.use("Agg")
    import io

    import matplotlib.pyplot as plt

    from analysis.core.io import save_figure

    raw, saved = [], []
    for i, left in enumerate((0.1, 0.1 + 1e-15)):
        fig = plt.figure(figsize=(4, 3))
        ax = fig.add_axes((left, 0.1, 0.8, 0.8))
        ax.plot([0, 1, 2], [1, 3, 2])
        buffer = io.BytesIO()
        with matplotlib.rc_context({"svg.hashsalt": "static-rteb"}):
            fig.savefig(buffer, format="svg", metadata={"Date": None})
        raw.append(buffer.getvalue())
        saved.append(save_figure(fig, tmp_path / f"figure{i}")[1].read_bytes())
        plt.close(fig)
    assert raw[0] != raw[1]  # only the clip path's id differs
    assert saved[0] == saved[1]
    assert b'<clipPath id="clip1">' in saved[0] and b"url(#clip1)" in saved[0]
