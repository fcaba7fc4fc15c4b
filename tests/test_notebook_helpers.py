"""analysis.notebook and the provenance helpers of analysis.io: the notebook contract."""

from __future__ import annotations

import logging
import os
import shutil
import time
import warnings
from pathlib import Path

import jupytext
import nbformat
import pandas as pd
import pytest
from conftest import write_result

from analysis import notebook as nbmod
from analysis.errors import ResultsNotFoundError
from analysis.io import (
    format_pvalue,
    provenance_line,
    results_display,
    results_provenance,
)
from analysis.paths import RESULTS_ENV, repo_root

REPO = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- p-values


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0004, "<0.001"),
        (0.0, "<0.001"),
        (0.000999, "<0.001"),
        (0.001, "0.001"),
        (0.0123, "0.012"),
        (0.05, "0.050"),
        (1.0, "1.000"),
        (float("nan"), "—"),
        (None, "—"),
    ],
)
def test_format_pvalue(p, text):
    assert format_pvalue(p) == text


def test_format_pvalue_digits_and_errors():
    assert format_pvalue(0.004, digits=2) == "<0.01"
    assert format_pvalue(0.0123, digits=4) == "0.0123"
    with pytest.raises(ValueError, match="p must be a probability"):
        format_pvalue(1.5)
    with pytest.raises(ValueError, match="digits"):
        format_pvalue(0.5, digits=0)


# --------------------------------------------------------------------------- names and colors


def test_short_name():
    assert nbmod.short_name("minishlab/potion-base-8M") == "potion-base-8M"
    assert nbmod.short_name("minishlab__potion-base-8M") == "potion-base-8M"
    assert nbmod.short_name("plain") == "plain"


def test_model_palette_highlights_the_same_models_the_same_way():
    post = ["a/one", "b/two", "c/three", "d/four"]
    first = nbmod.model_palette(["x/other", "c/three", "a/one"], post=post)
    second = nbmod.model_palette(["a/one", "c/three"], post=post)
    assert first["a/one"] == second["a/one"] == nbmod.POST_COLORS[0]
    assert first["c/three"] == second["c/three"] == nbmod.POST_COLORS[2]
    assert first["x/other"] == nbmod.OTHER_COLOR
    assert len(set(nbmod.POST_COLORS) | {nbmod.OTHER_COLOR}) == len(nbmod.POST_COLORS) + 1
    with pytest.raises(ValueError, match="highlight colors"):
        nbmod.model_palette(["a"], post=[f"m{i}" for i in range(5)])


def test_model_palette_defaults_to_the_posts_models(shared_dir):
    from analysis.results.blog import post_models

    models = post_models()
    palette = nbmod.model_palette([*models, "someone/else"])
    assert [palette[m] for m in models] == list(nbmod.POST_COLORS[: len(models)])
    assert palette["someone/else"] == nbmod.OTHER_COLOR
    assert nbmod.is_post_model(models[0]) and not nbmod.is_post_model("someone/else")


# --------------------------------------------------------------------------- warnings


def test_harmless_warnings_are_filtered_real_ones_still_show():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nbmod.filter_harmless_warnings()
        warnings.warn(
            "The task 'SciFact' is superseded by 'SciFact.v2'. We recommend",
            UserWarning,
            stacklevel=1,
        )
        warnings.warn_explicit("old API", FutureWarning, "x.py", 1, module="mteb.models.x")
        warnings.warn("IProgress not found. Please update jupyter and ipywidgets.", stacklevel=1)
        warnings.warn_explicit("our own future change", FutureWarning, "y.py", 1, module="analysis")
        warnings.warn("a real problem", UserWarning, stacklevel=1)
    messages = [str(w.message) for w in caught]
    assert messages == ["our own future change", "a real problem"]


def test_load_reports_with_only_unexpected_keys_are_dropped(caplog):
    nbmod.filter_harmless_warnings()
    log = logging.getLogger("transformers.modeling_utils")
    with caplog.at_level(logging.WARNING):
        log.warning("BertModel LOAD REPORT from: x\nembeddings.position_ids | UNEXPECTED")
        log.warning("BertModel LOAD REPORT from: x\npooler.dense.weight | MISSING")
        logging.getLogger("mteb").warning("The task 'A' is superseded by 'B'.")
        logging.getLogger("mteb").warning("something else")
    texts = [r.getMessage() for r in caplog.records]
    assert len(texts) == 2
    assert "MISSING" in texts[0] and texts[1] == "something else"


# --------------------------------------------------------------------------- results folder


def _tiny_results(root: Path) -> Path:
    write_result(root, "org/model-a", "r1", "TaskA", 0.5)
    write_result(root, "org/model-b", "r1", "TaskA", 0.25)
    return root


def test_results_display_is_relative_beside_or_inside_the_repo(tmp_path):
    root = repo_root().resolve()
    assert results_display(root / "build" / "x") == "build/x"
    assert results_display(root.parent / "shared" / "mteb-cache") == "../shared/mteb-cache"
    home = Path.home().resolve()
    if root.parent not in (home, *home.parents):  # a home folder beside the repo is relative
        assert results_display(home / "some-cache") == "~/some-cache"


def test_fingerprint_is_stable_across_copies_and_changes_with_content(tmp_path):
    a = _tiny_results(tmp_path / "a")
    time.sleep(0.01)
    b = tmp_path / "b"
    shutil.copytree(a, b)  # new mtimes
    for f in b.rglob("*.json"):
        os.utime(f, (1, 1))
    fa, fb = results_provenance(a), results_provenance(b)
    assert fa["results_fingerprint"] == fb["results_fingerprint"]
    assert fa["result_files"] == 4  # two results, two model_meta.json
    write_result(b, "org/model-b", "r1", "TaskA", 0.125678)  # one more digit: other size
    assert results_provenance(b)["results_fingerprint"] != fa["results_fingerprint"]


def test_header_names_the_resolved_folder_whichever_way_it_was_given(tmp_path, monkeypatch):
    results = _tiny_results(repo_root() / "build" / "test-notebook-helpers-results")
    try:
        monkeypatch.delenv(RESULTS_ENV, raising=False)
        by_param = nbmod.setup(
            "t.py", parameters={"results_dir": str(results), "k": 1}, output_dir=tmp_path
        )
        monkeypatch.setenv(RESULTS_ENV, "build/test-notebook-helpers-results")
        by_env = nbmod.setup("t.py", parameters={"results_dir": "", "k": 1}, output_dir=tmp_path)
        assert by_param.results == by_env.results == str(results.resolve())
        frame = pd.DataFrame({"m": ["x"], "v": [0.5]})
        header_param = by_param.table(frame, "p").read_text().splitlines()[0]
        header_env = by_env.table(frame, "e").read_text().splitlines()[0]
        assert header_param == header_env
        assert "results='build/test-notebook-helpers-results'" in header_param
        assert "results_fingerprint='" in header_param and "results_dir" not in header_param
        assert header_param == provenance_line("t.py", {"k": 1}, results=results)
    finally:
        shutil.rmtree(results)


def test_offline_without_results_says_what_to_type(tmp_path, monkeypatch):
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    monkeypatch.setenv("MTEB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ResultsNotFoundError, match=r"`make lab RESULTS=\S+`") as err:
        nbmod.setup("t.py", parameters={"results_dir": ""}, output_dir=tmp_path)
    assert "results_dir = " in str(err.value)


def test_missing_results_folder_is_an_error(tmp_path):
    with pytest.raises(ResultsNotFoundError, match="does not exist"):
        nbmod.resolve_results(tmp_path / "nope")


# --------------------------------------------------------------------------- tables


def test_table_writes_pvalues_as_text_and_shows_rounded(tmp_path):
    nb = nbmod.setup("t.py", parameters={"n": 3}, output_dir=tmp_path, resolve=False)
    frame = pd.DataFrame({"model": ["a|b", "c"], "score": [0.123456, None], "p": [0.0004, 0.0123]})
    path = nb.table(frame, "tab", title="T", note="N.", floatfmt=".3f", pvalue_columns=["p"])
    text = path.read_text()
    assert text.splitlines()[0] == provenance_line("t.py", {"n": 3})
    assert "| a\\|b | 0.123 | <0.001 |" in text and "| c | — | 0.012 |" in text
    assert "**T**" in text and text.rstrip().endswith("N.")
    html = nbmod.styled(frame, floatfmt=".3f", pvalue_columns=["p"]).to_html()
    assert "0.123" in html and "0.123456" not in html and "&lt;0.001" in html
    assert nb.written == [path]
    with pytest.raises(KeyError, match="pvalue_columns"):
        nb.table(frame, "bad", pvalue_columns=["pvalue"])


# --------------------------------------------------------------------------- in a kernel


@pytest.mark.slow
def test_in_a_kernel_figures_are_inline_even_with_agg_and_warnings_are_quiet(tmp_path):
    """papermill with MPLBACKEND=Agg (as in CI): the executed copy keeps the image."""
    import papermill as pm

    out = tmp_path / "out"
    nb_in = tmp_path / "k.ipynb"
    source = f"""# %% tags=["parameters"]
out: str = ""  # output folder

# %%
import warnings
import matplotlib.pyplot as plt
from analysis.notebook import setup
nb = setup({str(nb_in)!r}, output_dir=out, resolve=False)  # an .ipynb, by its path
assert nb.parameters == {{"out": {str(out)!r}}}, nb.parameters  # the injected value
warnings.warn("The task 'A' is superseded by 'B'.", UserWarning)

# %%
fig, ax = plt.subplots()
ax.plot([0, 1], [1, 0])
nb.figure(fig, "line")

# %%
warnings.warn("a real problem", UserWarning)
"""
    notebook = jupytext.reads(source, fmt="py:percent")
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, nb_in)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    old = os.environ.copy()
    os.environ.update(env)
    try:
        pm.execute_notebook(
            str(nb_in),
            str(tmp_path / "k.out.ipynb"),
            parameters={"out": str(out)},
            cwd=str(REPO),
            progress_bar=False,
            kernel_name="python3",
        )
    finally:
        os.environ.clear()
        os.environ.update(old)
    executed = nbformat.read(tmp_path / "k.out.ipynb", as_version=4)
    tags = lambda cell: set(cell.metadata.get("tags", []))  # noqa: E731
    code = [
        c
        for c in executed.cells
        if c.cell_type == "code" and not tags(c) & {"parameters", "injected-parameters"}
    ]
    stderr = lambda cell: [o for o in cell.outputs if o.get("name") == "stderr"]  # noqa: E731
    assert not stderr(code[0]), "the harmless warning is filtered"
    assert any("image/png" in o.get("data", {}) for o in code[1].outputs)
    assert any("Wrote " in o.get("text", "") for o in code[1].outputs)
    assert not [o for o in code[1].outputs if o.output_type == "execute_result"], "no path echo"
    assert "a real problem" in "".join(o.get("text", "") for o in stderr(code[2]))
    assert (out / "line.png").is_file() and (out / "line.svg").is_file()


def test_widget_progress_swaps_plain_tqdm_and_restores_it(tmp_path, monkeypatch):
    import sys
    import types

    from tqdm import tqdm as plain
    from tqdm.auto import tqdm as auto

    module = types.ModuleType("fake_library")
    module.tqdm = plain
    monkeypatch.setitem(sys.modules, "fake_library", module)
    with nbmod.widget_progress("fake_library"):
        assert module.tqdm is auto
    assert module.tqdm is plain
    monkeypatch.setitem(sys.modules, "no_bar", types.ModuleType("no_bar"))
    with pytest.raises(AttributeError, match="no_bar has no tqdm"), nbmod.widget_progress("no_bar"):
        pass


@pytest.mark.parametrize(
    ("p", "text"), [(0.0123, "= 0.012"), (0.0004, "< 0.001"), (1.0, "= 1.000")]
)
def test_pvalue_phrase(p, text):
    from analysis.io import pvalue_phrase

    assert pvalue_phrase(p) == text
