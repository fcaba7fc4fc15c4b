"""analysis.notebook and the provenance helpers of analysis.core.io: the notebook contract."""

from __future__ import annotations

import logging
import os
import shutil
import time
import warnings
from importlib.metadata import version
from pathlib import Path

import jupytext
import nbformat
import pandas as pd
import pytest

from analysis import notebook as nbmod
from analysis.core import quiet
from analysis.core.errors import NotebookError, ResultsNotFoundError
from analysis.core.io import (
    format_pvalue,
    provenance_line,
)
from analysis.core.paths import RESULTS_ENV, display_path, repo_root
from analysis.results.folder import inventory, results_provenance
from tests.conftest import REPO, write_result

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
        quiet.filter_harmless_warnings()
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
    quiet.filter_harmless_warnings()
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
    assert display_path(root / "build" / "x") == "build/x"
    assert display_path(root.parent / "shared" / "mteb-cache") == "../shared/mteb-cache"
    home = Path.home().resolve()
    if root.parent not in (home, *home.parents):  # a home folder beside the repo is relative
        assert display_path(home / "some-cache") == "~/some-cache"


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
    inventory(b, refresh=True)  # rewritten in place, so no folder mtime tells the memo
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
        assert by_param.results.folders == by_env.results.folders == (results.resolve(),)
        frame = pd.DataFrame({"m": ["x"], "v": [0.5]})
        header_param = by_param.table(frame, "p").read_text().splitlines()[0]
        header_env = by_env.table(frame, "e").read_text().splitlines()[0]
        assert header_param == header_env
        assert "results='build/test-notebook-helpers-results'" in header_param
        assert "results_fingerprint='" in header_param and "results_dir" not in header_param
        mteb = {"mteb": version("mteb")}  # the mteb the results were read with
        assert header_param == provenance_line("t.py", {"k": 1}, results_provenance(results) | mteb)
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
    assert text.splitlines()[0] == provenance_line("t.py", {"n": 3, "mteb": version("mteb")})
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
    from traitlets.config import Config

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
            # sockets as files (ipc), as the batch's kernels: no tcp port to be taken
            config=Config(KernelManager={"transport": "ipc", "ip": f"{tmp_path}/kernel"}),
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
    with quiet.widget_progress("fake_library"):
        assert module.tqdm is auto
    assert module.tqdm is plain
    monkeypatch.setitem(sys.modules, "no_bar", types.ModuleType("no_bar"))
    with pytest.raises(AttributeError, match="no_bar has no tqdm"), quiet.widget_progress("no_bar"):
        pass


@pytest.mark.parametrize(
    ("p", "text"), [(0.0123, "= 0.012"), (0.0004, "< 0.001"), (1.0, "= 1.000")]
)
def test_pvalue_phrase(p, text):
    from analysis.core.io import pvalue_phrase

    assert pvalue_phrase(p) == text


# --------------------------------------------------------------------------- parameters cell


def _write_notebook(folder: Path, name: str, cell: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f'# %% [markdown]\n# # T\n\n# %% tags=["parameters"]\n{cell}\n# %%\nx = 1\n')
    return path


def test_declared_parameters_are_papermills(tmp_path):
    """Reference: papermill.inspect_notebook on the notebook converted to .ipynb."""
    import papermill as pm

    from analysis.notebook.params import declared_parameters

    for source in sorted((REPO / "notebooks").glob("*.py")):
        converted = tmp_path / f"{source.stem}.ipynb"
        notebook = jupytext.read(source)
        notebook.metadata.setdefault("kernelspec", {"name": "python3", "language": "python"})
        jupytext.write(notebook, converted)
        assert declared_parameters(source) == list(pm.inspect_notebook(str(converted))), source


def test_setup_reads_every_parameter_from_the_cell_and_the_kernel(tmp_path, monkeypatch):
    from analysis.notebook.params import read_parameters

    monkeypatch.chdir(tmp_path)  # a batch run's project root: notebooks/<name> under cwd
    _write_notebook(
        tmp_path / "notebooks",
        "mine.py",
        'a: int = 1  # a\nresults_dir: str = ""  # r\noutput_dir: str = "x"  # o\nseed: int = 3  # s\n',
    )
    namespace = {"a": 5, "results_dir": "", "output_dir": str(tmp_path / "o"), "seed": 3, "b": 0}
    nb = nbmod.setup("mine", namespace=namespace, resolve=False)  # ".py" may be left out
    assert nb.parameters == {k: namespace[k] for k in ("a", "results_dir", "output_dir", "seed")}
    assert nb.out == tmp_path / "o", "output_dir comes from the parameters"
    assert nb.provenance() == {"a": 5, "seed": 3, "mteb": version("mteb")}, "no output_dir, b"
    assert nb.notebook == "mine.py"
    with pytest.raises(NotebookError, match=r"Parameters \['a'\] of mine.py have no value"):
        read_parameters("mine.py", {"results_dir": "", "output_dir": "", "seed": 1})
    with pytest.raises(NotebookError, match=r"Cannot find the notebook 'other\.py'"):
        nbmod.setup("other.py", resolve=False)


def test_setup_reads_the_callers_globals_and_finds_the_notebook_in_the_kernels_folder(
    tmp_path, monkeypatch
):
    """JupyterLab starts the kernel in the notebook's folder; there is no __file__."""
    folder = tmp_path / "nbs"
    _write_notebook(folder, "here.py", "k: int = 1  # k\n")
    monkeypatch.chdir(folder)
    scope = {"k": 7, "setup": nbmod.setup, "out": str(tmp_path / "o")}
    exec("nb = setup('here.py', output_dir=out, resolve=False)", scope)
    assert scope["nb"].parameters == {"k": 7}


def test_a_notebook_in_the_repository_is_found_from_anywhere(tmp_path, monkeypatch):
    from analysis.notebook.params import find_source

    monkeypatch.chdir(tmp_path)
    assert find_source("significance.py") == REPO / "notebooks" / "significance.py"
    cells = [c for c in jupytext.read(REPO / "notebooks" / "significance.py").cells]
    assert any("parameters" in c.metadata.get("tags", []) for c in cells)


def test_two_parameters_cells_are_refused(tmp_path):
    from analysis.notebook.params import declared_parameters

    path = tmp_path / "two.py"
    path.write_text(
        '# %% tags=["parameters"]\na: int = 1\n\n# %% tags=["parameters"]\nb: int = 2\n'
    )
    with pytest.raises(NotebookError, match="has 2 cells tagged 'parameters'"):
        declared_parameters(path)


# --------------------------------------------------------------------------- seed streams


def test_seed_streams_are_spawn_children_keyed_by_a_stable_hash_of_the_name():
    import hashlib

    import numpy as np

    from analysis.core.seeds import seed_sequence, seed_stream, stream_key

    key = int.from_bytes(hashlib.sha256(b"significance_claims").digest()[:8], "little")
    assert stream_key("significance_claims") == key
    assert seed_sequence(7, "significance_claims").spawn_key == (key,)
    # the derivation is SeedSequence.spawn's: child i of seed s is SeedSequence(s, spawn_key=(i,))
    child = np.random.SeedSequence(7).spawn(3)[2]
    assert child.spawn_key == (2,) and child.entropy == 7
    draws = seed_stream(7, "significance_claims").random(3)
    manual = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(key,))).random(3)
    np.testing.assert_array_equal(draws, manual)
    other = seed_stream(7, "significance_pairwise").random(3)
    assert not np.array_equal(draws, other)
    assert not np.array_equal(draws, seed_stream(8, "significance_claims").random(3))
    nested = seed_sequence(7, "a", "b")
    assert nested.spawn_key == (stream_key("a"), stream_key("b"))


@pytest.mark.parametrize(
    ("seed", "key", "error", "match"),
    [
        (True, ("t",), TypeError, "seed must be an integer"),
        (1.5, ("t",), TypeError, "seed must be an integer"),
        (-1, ("t",), ValueError, "non-negative"),
        (1, (), ValueError, "name the stream"),
        (1, ("",), TypeError, "non-empty strings"),
    ],
)
def test_seed_stream_refuses_bad_arguments(seed, key, error, match):
    from analysis.core.seeds import seed_stream

    with pytest.raises(error, match=match):
        seed_stream(seed, *key)


def test_context_rng_is_the_tables_stream_and_needs_a_seed(tmp_path):
    from analysis.core.seeds import seed_stream

    nb = nbmod.setup("t.py", parameters={"seed": 11}, output_dir=tmp_path, resolve=False)
    assert nb.rng("tab").random() == seed_stream(11, "tab").random()
    assert nb.rng("tab").random() == nb.rng("tab").random(), "each call starts afresh"
    bare = nbmod.setup("t.py", parameters={}, output_dir=tmp_path, resolve=False)
    with pytest.raises(NotebookError, match="has no `seed` parameter"):
        bare.rng("tab")


def test_context_output_names_the_folder_the_run_writes_to(tmp_path):
    """Prose links to a notebook's files follow ``output_dir``, not the committed figures/."""
    from analysis.core.paths import display_path

    default = nbmod.setup("t.py", parameters={"output_dir": "figures"}, resolve=False)
    assert default.output("goodhart_within.md") == "figures/goodhart_within.md"
    elsewhere = nbmod.setup("t.py", parameters={"output_dir": str(tmp_path)}, resolve=False)
    assert elsewhere.output("goodhart_within.md") == display_path(tmp_path / "goodhart_within.md")
    assert not elsewhere.output("goodhart_within.md").startswith("figures/")


# --------------------------------------------------------------------------- style, palette


def test_style_reads_no_file_at_import_and_the_post_once(tmp_path, monkeypatch):
    import subprocess
    import sys

    env = {**os.environ, "SHARED_DIR": str(tmp_path / "nowhere")}
    code = "import analysis.notebook, analysis.notebook.style; print(analysis.notebook.style.model_palette(['a']))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0 and "FileNotFoundError: Blog post not found" in done.stderr
    assert "post_highlight" in done.stderr, "read on first use..."
    code = "import analysis.notebook, analysis.notebook.style; print('imported')"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "imported" in done.stdout, "...never at import"

    from analysis.notebook import style
    from analysis.results import blog

    calls = []
    real = blog.parse_blog_tables
    monkeypatch.setattr(blog, "parse_blog_tables", lambda p: calls.append(p) or real(p))
    style.post_highlight.cache_clear()
    try:
        if not blog.default_post().is_file():
            pytest.skip("needs the post in ../shared/reference")
        style.model_palette(["x"])
        style.model_palette(["y"])
        assert style.is_post_model(style.post_highlight()[0])
        assert len(calls) == 1, "the post is read once per process"
    finally:
        style.post_highlight.cache_clear()


# --------------------------------------------------------------------------- messages


def test_contacting_the_network_is_said_before_it_happens(tmp_path, monkeypatch, caplog):
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("MTEB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("GIT_ALLOW_PROTOCOL", "file")  # no real network access from a test
    with caplog.at_level("WARNING"), pytest.raises(ResultsNotFoundError):
        nbmod.resolve_results("")
    assert "Contacting the results repository" in caplog.text
    caplog.clear()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # offline by flag: no contact, nothing said
    with caplog.at_level("WARNING"), pytest.raises(ResultsNotFoundError):
        nbmod.resolve_results("")
    assert "Contacting" not in caplog.text


def test_the_suggested_results_folder_is_named_as_given_not_through_symlinks(tmp_path, monkeypatch):
    target = tmp_path / "real-shared"
    (target / "mteb-cache").mkdir(parents=True)
    link = tmp_path / "shared-link"
    link.symlink_to(target)
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    monkeypatch.setenv("SHARED_DIR", str(link))
    monkeypatch.setenv("MTEB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ResultsNotFoundError) as err:
        nbmod.resolve_results("")
    assert f"RESULTS={display_path(link / 'mteb-cache')}`" in str(err.value)
    # in $SHARED_DIR: named as the notebooks' parameters read it, never through the link
    assert "RESULTS=../shared/mteb-cache`" in str(err.value) and "real-shared" not in str(err.value)


def test_package_warnings_show_as_short_notes_not_stderr(monkeypatch, capsys):
    import warnings

    import IPython.display

    from analysis.core.errors import IncompleteBenchmarkWarning, ResultsConflictWarning
    from analysis.notebook.display import show_package_warnings_as_notes

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj.data))
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # restored afterwards
    show_package_warnings_as_notes()
    show_package_warnings_as_notes()  # idempotent: one note per warning, not two
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("only 7 of 283 models are complete", IncompleteBenchmarkWarning, stacklevel=1)
        warnings.warn("something else", UserWarning, stacklevel=1)
        warnings.warn("kept a/b.json, not c/d.json", ResultsConflictWarning, stacklevel=1)
        warnings.warn(f"in {'8b3219a9' * 5}/x", ResultsConflictWarning, stacklevel=1)
    assert shown == [
        "**IncompleteBenchmarkWarning**: only 7 of 283 models are complete",
        "**ResultsConflictWarning**: kept a/<wbr>b.json, not c/<wbr>d.json",  # paths break
        f"**ResultsConflictWarning**: in {'8b3219a9' * 2}<wbr>{'8b3219a9' * 2}<wbr>8b3219a9/<wbr>x",
    ]
    assert "IncompleteBenchmarkWarning" not in capsys.readouterr().err  # others go the usual way


def test_markdown_links_in_a_shown_table_are_html_links():
    """figures/*.md keep ``[name](url)``; the notebook (and the site) shows a link."""
    from analysis.notebook.display import links_as_html

    url = "https://huggingface.co/minishlab/potion-base-8M"
    frame = pd.DataFrame({"Name": [f"[potion-base-8m]({url})", "plain <b>"], "x": [1.0, None]})
    html = nbmod.styled(frame).to_html()
    assert f'<a href="{url}">potion-base-8m</a>' in html
    assert "](http" not in html and "plain &lt;b&gt;" in html and "—" in html
    assert links_as_html("a [b](http://c?d=1&e=2) f") == 'a <a href="http://c?d=1&amp;e=2">b</a> f'
    assert links_as_html("[not a link](ftp://x)") == "[not a link](ftp://x)"
    shown = nbmod.styled(pd.DataFrame({"rank_shift_ci_low": [1.0], "a<b": [2.0]})).to_html()
    assert "rank_<wbr>shift_<wbr>ci_<wbr>low" in shown and "a&lt;b" in shown


def test_table_shows_the_chosen_columns_and_writes_them_all(tmp_path):
    nb = nbmod.setup("t.py", parameters={}, output_dir=tmp_path, resolve=False)
    frame = pd.DataFrame({"model": ["a"], "difference": [0.5], "d_z": [0.1], "p": [0.01]})
    path = nb.table(frame, "tab", pvalue_columns=["p"], shown_columns=["model", "p"])
    assert "| model | difference | d_z | p |" in path.read_text()
    with pytest.raises(KeyError, match="shown_columns"):
        nb.table(frame, "bad", shown_columns=["nope"])
