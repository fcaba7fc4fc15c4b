"""The rank explorer's zero-shot %: on hover, in the page's data, and as a filter (a browser)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.notebook.explorer import rank_explorer
from analysis.stats import rank_intervals

MODELS = ["org/a", "org/b", "org/c", "org/d", "org/e"]
SHOT = {"org/a": 100, "org/b": 93, "org/c": None, "org/d": 75, "org/e": 100}


def _explorer(zero_shot: bool = True):
    wide = pd.DataFrame(np.random.default_rng(0).normal(0.5, 0.05, (8, 5)), columns=MODELS)
    wide += np.linspace(0.2, 0.0, 5)
    groups = pd.DataFrame({"model": MODELS, "family": "transformer", "static_kind": ""})
    return rank_explorer(
        {"b": rank_intervals(wide, n_resamples=999, rng=1)},
        groups=groups,
        zero_shot={"b": SHOT} if zero_shot else None,
    )


def _page_data(explorer) -> dict:
    text = re.search(r'class="rx-data">(.*?)</script>', explorer.html(), re.S).group(1)
    return json.loads(text.replace("\\u003c", "<"))


def test_zero_shot_is_in_the_frame_the_hover_and_the_page():
    explorer = _explorer()
    frame = explorer.frame.set_index("model")["zero_shot"]
    assert frame.isna().tolist() == [SHOT[m] is None for m in frame.index]
    fig = explorer.figure("b")
    hover = {c[1]: c[7] for t in fig.data for c in t.customdata}
    assert hover == {m: "unknown" if v is None else f"{v}%" for m, v in SHOT.items()}
    assert "zero-shot %{customdata[7]}" in fig.data[0].hovertemplate
    data = _page_data(explorer)
    assert data["zeroShot"] is True
    board = data["boards"][0]
    assert dict(zip([m[0] for m in board["models"]], board["zeroShot"], strict=True)) == SHOT


def test_without_zero_shot_nothing_shows():
    explorer = _explorer(zero_shot=False)
    assert explorer.frame["zero_shot"].isna().all()
    assert "zero-shot" not in explorer.figure("b").data[0].hovertemplate
    assert _page_data(explorer)["zeroShot"] is False


@pytest.mark.slow
def test_the_zero_shot_filter_in_a_browser(tmp_path: Path):
    from tests.site.test_lab import CHROMIUM_ARGS, _ensure_chromium

    chromium = _ensure_chromium()
    from playwright.sync_api import sync_playwright

    path = _explorer().write(tmp_path / "explorer.html")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1000, "height": 700})
        problems: list[str] = []
        tab.on("pageerror", lambda err: problems.append(str(err)))
        tab.goto(path.as_uri())
        root = tab.locator(".rank-explorer.rx-ready")
        root.wait_for()
        assert root.get_attribute("data-shown") == "5"
        tab.locator(".rx-zs-min").fill("100")
        assert root.get_attribute("data-shown") == "3"  # a, e and the unknown c
        tab.locator(".rx-zs-unknown").uncheck()
        assert root.get_attribute("data-shown") == "2"
        tab.locator(".rx-zs-min").fill("80")
        assert root.get_attribute("data-shown") == "3"  # and b (93%)
        browser.close()
    assert not problems, problems
