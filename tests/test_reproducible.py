"""Bit-reproducible outputs: the same inputs give the same bytes, whatever the threads.

A distilled student (every file), a notebook's table and figure (Markdown, PNG and SVG)
are made twice, under different thread counts, and compared byte for byte. The own
model's scores a figure plots are rounded first (:func:`analysis.notebook.style.for_figure`), so a
machine's float noise in them does not reach the SVG either.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _run_fixtures import tiny_teacher

from analysis.notebook import NotebookContext, for_figure
from analysis.runs.distill import distill_model
from analysis.stats import rank_intervals


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
                teacher, out / f"threads-{threads}" / "student", pca_dims=16, show_progress=False
            )
        digests.append(_digests(folder))
    assert {"model.safetensors", "config.json", "README.md"} <= set(digests[0])
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "model_name: student" in card and "distilling" not in card
    assert digests[0] == digests[1]


def test_distillation_runs_blas_on_one_thread(tmp_path, monkeypatch):
    """model2vec's PCA sees one BLAS thread, whatever the caller's limit (here 2)."""
    import model2vec.distill
    from threadpoolctl import threadpool_info, threadpool_limits

    from analysis.runs.distill import DISTILL_BLAS_THREADS

    seen: list[int] = []

    class Student:
        def save_pretrained(self, path: str, model_name: str | None = None) -> None:
            Path(path).mkdir(parents=True, exist_ok=True)
            (Path(path) / "config.json").write_text("{}", encoding="utf-8")

    def distill(**kwargs):
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return Student()

    monkeypatch.setattr(model2vec.distill, "distill", distill)
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
