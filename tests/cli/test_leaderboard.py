"""``static-rteb leaderboard``: mteb's columns, the zero-shot filter, rank intervals, typos."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from analysis import cli
from analysis.results.training import zero_shot
from tests.conftest import write_result

BENCHMARK = "RTEB(Law, beta)"  # 4 public + 3 private tasks under mteb's current lists
TASKS = [
    "AILACasedocs",
    "AILAStatutes",
    "LegalSummarization",
    "LegalQuAD",
    "FrenchLegal1Retrieval",
    "GermanLegal1Retrieval",
    "JapaneseLegal1Retrieval",
]
MODELS = ["BAAI/bge-m3", "intfloat/multilingual-e5-small", "minishlab/potion-base-8M", "org/own"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("board")
    rng = np.random.default_rng(0)
    for k, model in enumerate(MODELS):
        for task in TASKS:
            write_result(root, model, "r1", task, float(0.8 - 0.15 * k + rng.normal(0, 0.01)))
    return str(root)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(["leaderboard", "-b", BENCHMARK, *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def _csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


def test_markdown_has_mtebs_columns_and_rank_intervals(folder, tmp_path, capsys):
    status, out, _ = _run(capsys, "--results", folder, "--cache-dir", str(tmp_path))
    assert status == 0
    header = next(line for line in out.splitlines() if line.startswith("| model"))
    for column in ("Rank (Borda)", "Zero-shot", "Total Parameters (B)", "Mean (TaskType)"):
        assert column in header
    for column in ("Mean (Public)", "Mean (Private)", "Rank low", "Rank high"):
        assert column in header
    assert out.startswith(f"{BENCHMARK} (mteb ")
    assert all(f"| {m} |" in out for m in MODELS)


def test_csv_values_zero_shot_filter_and_ranks(folder, tmp_path, capsys):
    args = ("--results", folder, "--cache-dir", str(tmp_path), "--format", "csv")
    table = _csv(_run(capsys, *args)[1])
    assert table["model"].tolist() == MODELS  # written best first
    expected = zero_shot(MODELS, TASKS)
    got = table.set_index("model")["Zero-shot"]
    assert got.isna().tolist() == expected.isna().tolist()
    assert (got.dropna().astype(int) == expected.dropna().astype(int)).all()
    assert (table["Rank low"] <= table["Rank (Mean)"]).all()
    assert (table["Rank (Mean)"] <= table["Rank high"]).all()
    assert table["Mean (Task)"].between(0, 100).all()  # shown x100, as mteb's leaderboard
    kept = _csv(_run(capsys, *args, "--min-zero-shot", "100")[1])["model"].tolist()
    assert kept == [m for m in MODELS if expected.eq(100).fillna(False)[m]]
    assert "org/own" not in kept  # unknown is not zero-shot
    also = _csv(_run(capsys, *args, "--min-zero-shot", "100", "--keep-unknown")[1])
    assert "org/own" in set(also["model"])


def test_output_file(folder, tmp_path, capsys):
    target = tmp_path / "board.md"
    status, out, _ = _run(
        capsys, "--results", folder, "--cache-dir", str(tmp_path), "-o", str(target), "--top", "2"
    )
    assert status == 0 and "Wrote" in out
    assert target.read_text().count("\n| ") == 3  # separator row + 2 models


def test_a_mistyped_benchmark_is_named_with_close_matches(folder, tmp_path, capsys):
    status = cli.main(["leaderboard", "-b", "RTEB(Law, bta)", "--results", folder])
    err = capsys.readouterr().err
    assert status == 2
    assert "Unknown benchmark 'RTEB(Law, bta)'" in err and "'RTEB(Law, beta)'" in err


def test_the_zero_shot_filter_is_checked_and_named_in_the_caption(folder, tmp_path, capsys):
    args = ("--results", folder, "--cache-dir", str(tmp_path))
    with pytest.raises(SystemExit) as stop:
        _run(capsys, *args, "--min-zero-shot", "150")
    assert stop.value.code == 2
    assert "--min-zero-shot: must be a percentage from 0 to 100, got 150" in capsys.readouterr().err
    out = _run(capsys, *args, "--min-zero-shot", "97.5")[1]
    assert "with zero-shot >= 97.5% (unknown training data left out)" in out.splitlines()[0]
    out = _run(capsys, *args, "--min-zero-shot", "100", "--keep-unknown")[1]
    assert "with zero-shot >= 100% (unknown training data kept)" in out.splitlines()[0]
