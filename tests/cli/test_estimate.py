"""``static-rteb estimate`` on a results folder: leaderboard models plus a model's own runs.

The folder is built like a user's: ``remote/results`` holds (symlinks to) the shared
snapshot's folders of 40 models complete on MTEB(eng, v2), and a new model's own result
files for two tasks, written by the test. The printed numbers are checked against
:func:`analysis.stats.predict_benchmark` on the same data.
"""

from __future__ import annotations

import json
import os
import re

import pandas as pd
import pytest

from analysis import cli
from analysis.core.errors import model_folder_name
from analysis.core.paths import display_path
from analysis.results.groups import release_dates
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
    expected = predict_benchmark(
        ref,
        {"STSBenchmark": 0.78, "Banking77Classification": 0.70},
        reference_dates=release_dates(ref.columns),
    )
    # 40 dated references give 27 forward-in-time predictions (19 needed at 95%): an own
    # model, newer than the leaderboard, is calibrated forward in time
    assert expected.calibration == "newer" and "predicted from those released before it" in out
    line = next(x for x in out.splitlines() if x.startswith(f"{BENCH} mean:"))
    numbers = [float(v) for v in re.findall(r"\d+\.\d+", line)]
    assert numbers[:3] == pytest.approx(
        [
            100 * expected.mean,
            100 * expected.confidence_interval.low,
            100 * expected.confidence_interval.high,
        ],
        abs=0.006,
    )
    assert f"rank {expected.rank} ({expected.rank_low} to {expected.rank_high})" in line
    assert f"among {expected.n_reference} " in line and expected.n_reference == 40
    assert "run next" in out and "1. " in out


def test_estimate_merges_the_snapshot_with_own_runs(shared_results, tmp_path, capsys):
    """`--results SNAPSHOT OWN`: the leaderboard and a folder of own runs, as after `make runs`.

    The own folder holds the new model's results and a rerun of a leaderboard model that
    differs from its published file by float noise (kept: the snapshot's, with a note).
    """
    own = tmp_path / "own"
    write_result(own, NEW, "r1", "STSBenchmark", 0.78)
    write_result(own, NEW, "r1", "Banking77Classification", 0.70)
    board = load_leaderboard(BENCH, results=shared_results, pin="as-of-post")
    rerun = board.wide().columns[0]
    row = board.scores.query("model == @rerun and task == 'STSBenchmark'").iloc[0]
    revision, published = row["revision"], float(row["main_score"])
    write_result(own, rerun, revision, "STSBenchmark", published + 1e-7)
    args = ["estimate", "--results", str(shared_results), str(own), "--model", NEW, "-b", BENCH,
            "--pin", "as-of-post"]  # fmt: skip
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    expected = predict_benchmark(
        board.wide(),
        {"STSBenchmark": 0.78, "Banking77Classification": 0.70},
        reference_dates=release_dates(board.wide().columns),
    )
    # an own model is newer than the leaderboard: its interval is calibrated forward in time
    assert expected.calibration == "newer" and "predicted from those released before it" in out
    line = next(x for x in out.splitlines() if x.startswith(f"{BENCH} mean:"))
    numbers = [float(v) for v in re.findall(r"\d+\.\d+", line)]
    assert numbers[:3] == pytest.approx(
        [
            100 * expected.mean,
            100 * expected.confidence_interval.low,
            100 * expected.confidence_interval.high,
        ],
        abs=0.006,
    )
    assert (
        f"among {expected.n_reference} " in line and expected.n_reference == board.wide().shape[1]
    )
    assert f"scores from {display_path(own)}" in out  # as shown: relative beside the repo
    assert "note: Kept the first folder's result" in out and rerun.replace("/", "__") in out
    assert f"kept {display_path(shared_results)}/remote/results/" in out  # which one it kept
    assert cli.main([*args, "--on-conflict", "error"]) == 2
    err = capsys.readouterr().err
    assert "different results in two results folders" in err
    assert "pass --on-conflict first" in err and "on_conflict=" not in err  # as typed
    # again, now from the parse cache, with the folders in make's colon form: the same note
    joined = ["--results", f"{shared_results}{os.pathsep}{own}"]
    assert cli.main([args[0], *joined, *args[4:]]) == 0
    assert "note: Kept the first folder's result" in capsys.readouterr().out


def test_estimate_refuses_an_unknown_model(folder, capsys):
    root, _ = folder
    code = cli.main(["estimate", "--results", str(root), "--model", "org/my-statc-model",
                     "-b", BENCH, "--pin", "as-of-post"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and NEW in err


def test_estimate_on_a_lite_list_uses_the_selection_aware_interval(
    shared_results, tmp_path, capsys
):
    from analysis.results.lite import lite_list

    board = load_leaderboard(BENCH, results=shared_results, pin="as-of-post")
    (tmp_path / "remote" / "results").mkdir(parents=True)
    for m in board.wide().columns:
        name = model_folder_name(m)
        (tmp_path / "remote/results" / name).symlink_to(shared_results / "remote/results" / name)
    lite = lite_list(BENCH, 8)
    donor = shared_results / "remote/results" / model_folder_name(board.wide().columns[0])
    own = tmp_path / "remote/results" / model_folder_name(NEW) / "r1"
    own.mkdir(parents=True)
    (own / "model_meta.json").write_text(json.dumps({"name": NEW, "revision": "r1"}))
    for task in lite.tasks:  # the donor's result files, every main score lowered by 0.01
        payload = json.loads(next(donor.glob(f"*/{task}.json")).read_text())
        for entries in payload["scores"].values():
            for entry in entries:
                entry["main_score"] -= 0.01
        (own / f"{task}.json").write_text(json.dumps(payload))
    code = cli.main(["estimate", "--results", str(tmp_path), "--model", NEW, "-b", BENCH,
                     "--pin", "as-of-post"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"the {lite.label} list: interval calibrated on its nested selection" in out
    # calibrated forward in time, with the selection redone on the earlier models
    assert "predicted from those released before it" in out


def test_estimate_takes_a_release_date_and_left_out_tasks(shared_results, tmp_path, capsys):
    """`--released` widens the interval with the time since the leaderboard;
    `--exclude-tasks` leaves a task out of the benchmark (the loader names the blocking one)."""
    own = tmp_path / "own"
    write_result(own, NEW, "r1", "STSBenchmark", 0.78)
    write_result(own, NEW, "r1", "Banking77Classification", 0.70)
    args = ["estimate", "--results", str(shared_results), str(own), "--model", NEW, "-b", BENCH,
            "--pin", "as-of-post", "--next", "0"]  # fmt: skip

    def interval(extra: list[str]) -> tuple[float, float, str]:
        assert cli.main([*args, *extra]) == 0
        out = capsys.readouterr().out
        line = next(x for x in out.splitlines() if x.startswith(f"{BENCH} mean:"))
        low, high = (float(v) for v in re.findall(r"\d+\.\d+", line)[1:3])
        return low, high, out

    newest = release_dates(load_leaderboard(BENCH, results=shared_results, pin="as-of-post")
                           .wide().columns).max()  # fmt: skip
    soon = (newest + pd.Timedelta(days=1)).date().isoformat()
    late = (newest + pd.Timedelta(days=700)).date().isoformat()
    low_now, high_now, _ = interval(["--released", soon])
    low_late, high_late, out = interval(["--released", late])
    # the drift moves it up; the width never shrinks (here the exchangeable floor holds it)
    assert high_late - low_late >= high_now - low_now - 0.011 and low_late > low_now
    assert "700 days from the newest reference" in out and "released 700 days after" in out
    _, _, out = interval(["--exclude-tasks", "ArXivHierarchicalClusteringP2P"])
    assert "exclude ['ArXivHierarchicalClusteringP2P']" in out and "of 40 tasks" in out
    assert cli.main([*args, "--released", "someday"]) == 2
    assert "`released` is not a date" in capsys.readouterr().err


def test_too_few_complete_models_is_said_in_the_commands_words(shared_results, tmp_path, capsys):
    """A benchmark with under 10 other complete models: the error names the benchmark and the
    flags that help (a pin, --exclude-tasks), not the Python argument `reference`."""
    board = load_leaderboard(BENCH, results=shared_results, pin="as-of-post")
    root = tmp_path / "results"
    (root / "remote" / "results").mkdir(parents=True)
    for m in board.wide().columns[:5]:
        name = model_folder_name(m)
        (root / "remote" / "results" / name).symlink_to(shared_results / "remote/results" / name)
    write_result(root, NEW, "r1", "STSBenchmark", 0.78)
    argv = ["estimate", "--results", str(root), "-m", NEW, "-b", BENCH, "--pin", "as-of-post"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"error: {BENCH}: 5 other model(s) have every task used" in err, err
    assert "--pin as-of-post" in err and "--exclude-tasks" in err and "`reference`" not in err


def test_a_mean_of_measured_tasks_only_is_said_measured_not_an_interval(shared_results, capsys):
    """Every task of each mean run: the means are the model's own, with no interval to show."""
    argv = ["estimate", "--results", str(shared_results), "-m", "minishlab/potion-base-8M"]
    assert cli.main([*argv, "-b", "RTEB(beta)", "--pin", "as-of-post"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if " mean: " in line]
    assert len(lines) == 2 and all("(measured, no interval)" in line for line in lines), lines
