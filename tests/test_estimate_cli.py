"""``static-rteb estimate`` on a results folder: leaderboard models plus a model's own runs.

The folder is built like a user's: ``remote/results`` holds (symlinks to) the shared
snapshot's folders of 40 models complete on MTEB(eng, v2), and a new model's own result
files for two tasks, written by the test. The printed numbers are checked against
:func:`analysis.stats.predict_benchmark` on the same data.
"""

from __future__ import annotations

import re

import pytest

from analysis import cli
from analysis.errors import model_folder_name
from analysis.results.leaderboard import load_leaderboard
from analysis.stats import predict_benchmark
from tests.conftest import write_result

BENCH = "MTEB(eng, v2)"
NEW = "org/my-static-model"


@pytest.fixture(scope="module")
def folder(shared_results, tmp_path_factory):
    board = load_leaderboard(BENCH, results=shared_results, pin="as-of-post")
    models = list(board.wide().columns[::4][:40])
    root = tmp_path_factory.mktemp("results")
    (root / "remote" / "results").mkdir(parents=True)
    for m in models:
        name = model_folder_name(m)
        (root / "remote" / "results" / name).symlink_to(shared_results / "remote/results" / name)
    write_result(root, NEW, "r1", "STSBenchmark", 0.78)
    write_result(root, NEW, "r1", "Banking77Classification", 0.70)
    return root, models


def test_estimate_prints_the_prediction_and_next_tasks(folder, capsys):
    root, _ = folder
    code = cli.main(
        ["estimate", "--results", str(root), "--model", NEW, "-b", BENCH, "--pin", "as-of-post"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    board = load_leaderboard(BENCH, results=root, pin="as-of-post")
    ref = board.wide().drop(columns=[NEW], errors="ignore")
    expected = predict_benchmark(ref, {"STSBenchmark": 0.78, "Banking77Classification": 0.70})
    line = next(x for x in out.splitlines() if x.startswith(f"{BENCH} mean:"))
    numbers = [float(v) for v in re.findall(r"\d+\.\d+", line)]
    assert numbers[:3] == pytest.approx(
        [100 * expected.mean, 100 * expected.low, 100 * expected.high], abs=0.006
    )
    assert f"rank {expected.rank} ({expected.rank_low} to {expected.rank_high})" in line
    assert f"among {expected.n_reference} " in line and expected.n_reference == 40
    assert "run next" in out and "1. " in out


def test_estimate_refuses_an_unknown_model(folder, capsys):
    root, _ = folder
    code = cli.main(["estimate", "--results", str(root), "--model", "org/my-statc-model",
                     "-b", BENCH, "--pin", "as-of-post"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and NEW in err
