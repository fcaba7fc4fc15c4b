"""The rank explorer (analysis/notebook/explorer.py): its rows, figures and page.

Fast: every ranked model of every board is in the page's data with its group, own runs
are flagged, the page fetches nothing (every script inline, plotly.js once however many
boards), it is the same bytes from the same inputs, and the notebook context writes it
with its provenance line. Slow (a browser): the page written to disk finds a model by
typing, highlights it and brings it into view, switches boards and filters groups.
The notebooks' explorers are checked in JupyterLab (tests/site/test_lab.py) and on the site
(tests/site/test_docs.py).
"""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.core.io import provenance_line
from analysis.notebook import setup
from analysis.notebook.explorer import GROUPS, group_label, rank_explorer, unranked_models
from analysis.results.folder import ResultsFolders
from analysis.results.leaderboard import load_leaderboard
from analysis.results.placement import own_models
from analysis.stats import rank_intervals
from tests.conftest import write_result

MODELS = {  # model -> (family, static_kind): every group the project defines
    "org/large-transformer": ("transformer", ""),
    "org/small-transformer": ("transformer", ""),
    "minishlab/m2v-like": ("static", "model2vec"),
    "minishlab/potion-like": ("static", "distilled"),
    "sentence-transformers/static-like": ("static", "supervised"),
    "minishlab/retrieval-like": ("static", "hybrid"),
    "someone/static-like": ("static", "unknown"),
    "mteb/baseline-bm25s": ("baseline", ""),
    "someone/</script><b>odd": ("unknown", ""),
    "me/my-static": ("unknown", ""),
}
OWN = ["me/my-static"]


def _ranks(noise: float = 0.0) -> dict:
    rng = np.random.default_rng(7)
    wide = pd.DataFrame(rng.normal(0.5, 0.05, (10, len(MODELS))), columns=list(MODELS))
    wide += np.linspace(0.3, 0.0, len(MODELS))
    wide["me/my-static"] += noise  # an own run's float noise
    return {
        "all tasks": rank_intervals(wide, n_resamples=999, rng=1),
        "five tasks": rank_intervals(wide.iloc[:5].drop(columns="org/small-transformer"), rng=1),
    }


def _groups() -> pd.DataFrame:
    return pd.DataFrame(
        [{"model": m, "family": f, "static_kind": k} for m, (f, k) in MODELS.items()]
    )


def _explorer(noise: float = 0.0, **options):
    return rank_explorer(
        _ranks(noise),
        groups=_groups(),
        own=OWN,
        post=["minishlab/potion-like"],
        unranked={"five tasks": {"org/small-transformer": "has 3 of the 5 tasks"}},
        score_scale=100,
        **options,
    )


def _page_data(page: str) -> dict:
    match = re.search(r'<script type="application/json" class="rx-data">(.*?)</script>', page, re.S)
    assert match, "no data script in the page"
    return json.loads(match.group(1))


def test_every_model_of_every_board_is_in_the_page_with_its_group_and_flags():
    ranks, explorer = _ranks(), _explorer()
    data = _page_data(explorer.html())
    assert [b["name"] for b in data["boards"]] == list(ranks) == explorer.boards
    for board, res in zip(data["boards"], ranks.values(), strict=True):
        assert [m[0] for m in board["models"]] == list(res.table.index)  # all, in rank order
        for name, _short, group, own, post, rank in board["models"]:
            assert group == group_label(*MODELS[name])
            assert bool(own) == (name in OWN) and bool(post) == (name == "minishlab/potion-like")
            assert rank == res.table.loc[name, "rank"]
        traces = {t["name"]: t for t in board["figure"]["data"]}
        for trace in traces.values():  # each trace holds its group's models, own runs apart
            names = [c[1] for c in trace["customdata"]]
            if trace["name"] == "your runs":
                assert names == [m for m in res.table.index if m in OWN]
            else:
                assert names and all(group_label(*MODELS[m]) == trace["name"] for m in names)
                assert not set(names) & set(OWN)
        shown = sorted(c[1] for t in traces.values() for c in t["customdata"])
        assert shown == sorted(res.table.index)
    frame = explorer.frame
    assert set(frame["group"]) == set(GROUPS)
    assert frame.loc[frame["own"], "model"].unique().tolist() == OWN
    assert data["boards"][1]["unranked"] == {"org/small-transformer": "has 3 of the 5 tasks"}
    assert data["boards"][0]["unranked"] == {}  # ranked there: no reason given


def test_hover_and_scores_come_from_the_results():
    ranks, explorer = _ranks(), _explorer()
    table = ranks["all tasks"].table
    rows = explorer.frame[explorer.frame["board"] == "all tasks"].set_index("model")
    assert np.allclose(rows["score"], (table["score"] * 100).round(2))
    assert (rows["rank_low"] == table["rank_low"]).all()
    fig = explorer.figure("all tasks")
    hover = {c[1]: c for t in fig.data for c in t.customdata}
    top = table.index[0]
    low, high = table.loc[top, ["rank_low", "rank_high"]]
    assert hover[top][3] == f"{table.loc[top, 'score'] * 100:.2f}"
    assert hover[top][5] == f"[{low:.0f}, {high:.0f}]"
    assert "%{customdata[3]}" in fig.data[0].hovertemplate


def test_the_page_fetches_nothing_and_embeds_plotly_once():
    one = _explorer().html(page=True)
    scripts = re.findall(r"<script[^>]*>", one)
    assert scripts == ['<script type="application/json" class="rx-data">', "<script>", "<script>"]
    assert not re.search(r"<(script|link|img|iframe)[^>]*(src|href)=", one)
    assert one.count("plotly.js v") == 1  # the bundle's banner: once for both boards
    # the odd model name cannot end the data script: only the three scripts close
    assert one.count("</script>") == 3
    assert "someone/</script><b>odd" in [m[0] for m in _page_data(one)["boards"][0]["models"]]


def test_the_same_inputs_give_the_same_bytes_and_float_noise_does_not_show():
    assert _explorer().html(page=True) == _explorer().html(page=True)
    assert _explorer(1e-10).html(page=True) == _explorer().html(page=True)


def test_too_few_tasks_for_an_interval_still_make_a_page():
    """Two tasks: rank_intervals gives ranks but no interval (its caveat); nothing breaks."""
    wide = _ranks()["all tasks"].table.index  # the models
    two = pd.DataFrame(np.random.default_rng(3).normal(0.5, 0.1, (2, len(wide))), columns=wide)
    explorer = rank_explorer({"two tasks": rank_intervals(two, rng=1)}, groups=_groups())
    board = _page_data(explorer.html())["boards"][0]
    assert len(board["models"]) == len(MODELS)
    hover = [c for t in board["figure"]["data"] for c in t["customdata"]]
    assert {c[5] for c in hover} == {"none"} and not explorer.frame["tied_with_leader"].any()


def test_a_found_model_and_the_title_are_in_the_page():
    page = _explorer(found="me/my-static", title="Mine & theirs").html(page=True)
    assert _page_data(page)["found"] == "me/my-static"
    assert "<title>Mine &amp; theirs</title>" in page


def test_the_notebook_context_writes_the_page_with_its_provenance(tmp_path: Path, capsys):
    nb = setup("t.py", parameters={"n": 3}, output_dir=tmp_path, resolve=False)
    path = nb.interactive(_explorer(), "explorer")
    text = path.read_text(encoding="utf-8")
    assert path == tmp_path / "explorer.html" and nb.written == [path]
    assert text.splitlines()[:2] == [
        "<!DOCTYPE html>",
        provenance_line("t.py", {"n": 3, "mteb": version("mteb")}),
    ]
    assert "Wrote" in capsys.readouterr().out


def test_unranked_models_say_what_they_lack():
    summary = pd.DataFrame(
        {
            "n_tasks": [4, 2],
            "n_expected": [4, 4],
            "complete": [True, False],
            "n_public": [2, 2],
            "n_public_expected": [2, 2],
            "complete_public": [True, True],
            "n_private": [2, 0],
            "n_private_expected": [2, 2],
            "complete_private": [True, False],
        },
        index=pd.Index(["org/A", "org/B"], name="model"),
    )
    assert unranked_models(summary) == {"org/B": "has 2 of the 4 tasks"}
    assert unranked_models(summary, "public") == {}
    assert unranked_models(summary, "private") == {"org/B": "has 0 of the 2 private tasks"}


def test_own_runs_are_the_models_read_from_a_folder_after_the_leaderboards(tmp_path: Path):
    """As leaderboard_uncertainty finds them: ``RESULTS=<leaderboard>:data/runs``."""
    tasks = ["STSBenchmark", "SciFact", "AILAStatutes"]
    board, runs = tmp_path / "board", tmp_path / "runs"
    for k, task in enumerate(tasks):
        write_result(board, "org/A", "r1", task, 0.6 + k / 10)
        write_result(board, "org/B", "r1", task, 0.5 + k / 10)
        write_result(runs, "me/mine", "r1", task, 0.55 + k / 10)
    folders = ResultsFolders.resolve([board, runs])
    loaded = load_leaderboard(tasks=tasks, results=folders, cache_dir=tmp_path / "cache")
    assert own_models(loaded, folders.label(0)) == ["me/mine"]
    alone = load_leaderboard(tasks=tasks, results=board, cache_dir=tmp_path / "cache")
    assert own_models(alone, ResultsFolders.resolve(board).label(0)) == []


def test_groups_default_to_mtebs_metadata():
    """Without ``groups=``, each model's group is read as model_groups reads it."""
    from analysis.results.groups import model_groups

    names = [
        "minishlab/potion-base-8M",
        "minishlab/M2V_base_output",
        "sentence-transformers/all-MiniLM-L6-v2",
        "org/nobody",
    ]
    wide = pd.DataFrame(np.random.default_rng(0).normal(0.5, 0.1, (6, 4)), columns=names)
    frame = rank_explorer({"b": rank_intervals(wide, rng=1)}).frame.set_index("model")
    expected = model_groups(names).set_index("model")
    for name in names:
        row = expected.loc[name]
        assert frame.loc[name, "group"] == group_label(row["family"], row["static_kind"])
    assert frame.loc["minishlab/potion-base-8M", "group"] == "static · distilled"
    assert frame.loc["minishlab/M2V_base_output", "group"] == "static · model2vec"
    assert frame.loc["org/nobody", "group"] == "unknown"


# --------------------------------------------------------------------------- in a browser


@pytest.mark.slow
def test_the_written_page_finds_highlights_and_filters_in_a_browser(tmp_path: Path):
    from tests.site.test_lab import CHROMIUM_ARGS, _ensure_chromium

    chromium = _ensure_chromium()
    from playwright.sync_api import sync_playwright

    path = _explorer().write(tmp_path / "explorer.html")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1000, "height": 700})
        problems: list[str] = []
        tab.on("pageerror", lambda err: problems.append(str(err)))
        tab.on(
            "request", lambda req: problems.append(req.url) if req.url != path.as_uri() else None
        )
        tab.goto(path.as_uri())
        root = tab.locator(".rank-explorer.rx-ready")
        root.wait_for()
        assert root.get_attribute("data-shown") == str(len(MODELS))
        assert "Your runs: me/my-static" in tab.locator(".rx-status").inner_text()
        tab.locator(".rx-search").fill("POTION")  # part of a name, any case
        assert root.get_attribute("data-found") == "minishlab/potion-like"
        found = tab.locator(".rx-plot .ytick text", has_text="potion-like")
        fills = found.evaluate(
            "t => [...t.querySelectorAll('tspan')].map(s => getComputedStyle(s).fill)"
        )
        assert "rgb(213, 94, 0)" in fills, fills
        tab.locator(".rx-groups input[value='transformer']").uncheck()  # hidden, not the found
        assert root.get_attribute("data-shown") == str(len(MODELS) - 2)
        tab.locator(".rx-tab[data-board='five tasks']").click()
        tab.locator(".rx-search").fill("org/small-transformer")
        assert root.get_attribute("data-found") == ""
        assert "has 3 of the 5 tasks" in tab.locator(".rx-status").inner_text()
        assert "Ranked on: all tasks" in tab.locator(".rx-status").inner_text()
        browser.close()
    assert not problems, problems
