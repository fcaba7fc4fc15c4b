"""The blog's tables: parsed from the post, regenerated from the shared snapshot (golden)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis.results import blog
from analysis.results.leaderboard import load_leaderboards

GOLDEN = Path(__file__).parents[1] / "golden"  # written by tools/regen_goldens.py, never here
MTEB, RTEB = blog.MTEB_BENCHMARKS, blog.RTEB_BENCHMARKS


@pytest.fixture(scope="module")
def post(shared_dir):
    return blog.parse_blog_tables(
        shared_dir / "reference" / "blog-evaluating-static-models-on-rteb.md"
    )


@pytest.fixture(scope="module")
def boards(shared_results, post, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    models = list(post.mteb["model"])
    return {
        pin: load_leaderboards(
            sorted(set(MTEB.values()) | set(RTEB.values())),
            results=shared_results,
            models=models,
            pin=pin,
            cache_dir=cache,
        )
        for pin in ["as-of-post", "now"]
    }


def test_parse_blog_tables(post):
    assert len(post.mteb) == 4 and len(post.rteb) == 4
    assert set(post.mteb["subset"]) == {"english", "multilingual"}
    row = post.mteb.set_index("model").loc["minishlab/potion-base-8M"]
    assert row["mteb_avg_decimals"] == 1  # the post printed "53.3"
    assert set(post.rteb["model"]) == set(post.mteb["model"])


def test_parse_rejects_other_documents(tmp_path):
    with pytest.raises(FileNotFoundError, match="Set SHARED_DIR to the shared folder"):
        blog.parse_blog_tables(tmp_path / "nope.md")
    (tmp_path / "x.md").write_text("| a | b |\n|--|--|\n| 1 | 2 |\n")
    with pytest.raises(ValueError, match="both blog tables"):
        blog.parse_blog_tables(tmp_path / "x.md")


@pytest.mark.parametrize("pin", ["as-of-post", "now"])
def test_golden_tables(post, boards, pin):
    for name, text in blog.golden_tables(post, boards[pin], pin).items():
        assert text == (GOLDEN / name).read_text(), f"{name}: run tools/regen_goldens.py"


def test_post_models_and_comparisons_come_from_the_post(post, shared_dir):
    path = shared_dir / "reference" / "blog-evaluating-static-models-on-rteb.md"
    assert blog.post_models(path) == list(post.rteb["model"])
    pairs = blog.post_comparisons(path)
    assert {p[2] for p in pairs} == set(post.mteb["subset"])
    for supervised, distilled, subset in pairs:
        in_subset = set(post.mteb.loc[post.mteb["subset"] == subset, "model"])
        assert {supervised, distilled} == in_subset
        assert supervised.startswith("sentence-transformers/")  # trained with a loss
        assert distilled.startswith("minishlab/")  # model2vec distillations


def test_cells_as_of_post_reproduce_the_post(post, boards):
    cells = {}
    for pin in boards:
        m, r = blog.regenerate(post, boards[pin], mteb_benchmarks=MTEB, rteb_benchmarks=RTEB)
        cells[pin] = blog.compare_cells(post, m, r)
    post_cells = cells["as-of-post"]
    assert len(post_cells) == 12
    missed = post_cells[~post_cells["match"]]
    # the two MTEB(Multilingual, v2) averages: FloresBitextMining is not in the snapshot
    assert set(missed["model"]) == set(
        post.mteb.loc[post.mteb["subset"] == "multilingual", "model"]
    )
    assert set(missed["cell"]) == {"MTEB avg score"}
    assert cells["now"]["match"].sum() < post_cells["match"].sum()
    lb = boards["as-of-post"]["MTEB(Multilingual, v2)"]
    text = blog.explain_cell(missed.iloc[0], lb)
    assert "FloresBitextMining (no result file)" in text and "130 of the 131" in text


def test_compare_cells_precision():
    post = blog.BlogTables(
        mteb=pd.DataFrame(
            {
                "model": ["m"],
                "name": ["m"],
                "mteb_avg": [53.3],
                "mteb_avg_decimals": [1],
                "subset": ["english"],
            }
        ),
        rteb=pd.DataFrame(
            {
                "model": ["m"],
                "name": ["m"],
                "public": [24.11],
                "public_decimals": [2],
                "private": [37.45],
                "private_decimals": [2],
            }
        ),
    )
    mteb_t = pd.DataFrame({"model": ["m"], "MTEB avg score": [53.3278], "benchmark": ["b"]})
    rteb_t = pd.DataFrame(
        {
            "model": ["m"],
            "RTEB public score": [24.114],
            "RTEB private score": [37.4449],
            "benchmark": ["b"],
        }
    )
    got = blog.compare_cells(post, mteb_t, rteb_t).set_index("cell")["match"].to_dict()
    assert got == {"MTEB avg score": True, "RTEB public score": True, "RTEB private score": False}
