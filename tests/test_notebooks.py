"""Notebooks: papermill parameters are documented literals; every notebook runs (smoke)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest
from papermill.translators import PythonTranslator

from analysis import batch

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.py"))


def _parameters_cell(path: Path):
    nb = jupytext.read(path)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{path.name} needs exactly one cell tagged 'parameters'"
    return cells[0]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_parameters_are_typed_literals_with_help(path):
    cell = _parameters_cell(path)
    tree = ast.parse(cell.source)
    names = []
    for node in tree.body:
        assert isinstance(node, ast.AnnAssign), f"{path.name}: only `name: type = literal` lines"
        ast.literal_eval(node.value)  # a literal default, nothing derived
        names.append(node.target.id)
    inspected = {
        p.name: p for p in PythonTranslator.inspect(nbformat.v4.new_code_cell(cell.source))
    }
    assert list(inspected) == names, f"papermill could not parse some of {path.name}'s parameters"
    assert all(p.help for p in inspected.values()), "every parameter has a trailing comment"


def test_batch_runs_all_and_reports_the_failing_cell(tmp_path, capsys):
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "params").mkdir()
    header = '# %% tags=["parameters"]\nvalue: int = 1  # a number\n\n'
    (root / "notebooks" / "a_bad.py").write_text(
        header + "# %%\nx = value\n\n# %%\nraise RuntimeError('boom')\n"
    )
    (root / "notebooks" / "b_good.py").write_text(header + "# %%\nassert value == 5\n")
    (root / "params" / "smoke.yaml").write_text("_all:\n  value: 5\n")
    code = batch.main(
        ["--profile", "smoke", "--root", str(root), "--build-dir", str(tmp_path / "b")]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "1 of 2 notebooks ran" in out
    assert "FAILED a_bad: code cell 3: RuntimeError: boom [in `raise RuntimeError('boom')`]" in out
    assert (tmp_path / "b" / "b_good.ipynb").exists() and (tmp_path / "b" / "a_bad.ipynb").exists()


def test_batch_rejects_unknown_profile_and_parameters(tmp_path):
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "params").mkdir()
    (root / "notebooks" / "n.py").write_text(
        '# %% tags=["parameters"]\nvalue: int = 1  # a number\n'
    )
    (root / "params" / "smoke.yaml").write_text("n:\n  valeu: 5\n")
    with pytest.raises(SystemExit, match="Available profiles"):
        batch.run_batch("nope", root=root)
    runs = batch.run_batch("smoke", root=root, build_dir=tmp_path / "b")
    assert not runs[0].ok and "valeu" in runs[0].error
    assert not list((tmp_path / "b").glob("*.input.ipynb")), "converted input is cleaned up"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_smoke_run(path, shared_results, tmp_path):
    """Each notebook runs top to bottom through papermill with the smoke parameters."""
    runs = batch.run_batch(
        "smoke", results=str(shared_results), only=[path.stem], build_dir=tmp_path
    )
    assert runs[0].ok, f"{path.name} failed in cell {runs[0].cell}: {runs[0].error}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_parameters_cell_is_the_first_code_cell(path):
    code = [c for c in jupytext.read(path).cells if c.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", []), f"{path.name}: parameters come first"


def _lab_save(root: Path, rel: str) -> None:
    """Open and save a notebook as JupyterLab does, through jupytext's contents manager."""
    import asyncio

    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
    from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class

    manager = build_async_jupytext_contents_manager_class(AsyncLargeFileManager)(root_dir=str(root))

    async def roundtrip() -> None:
        model = await manager.get(rel, type="notebook", content=True)
        nb = model["content"]
        # what the lab adds: the running kernel's spec and language, widget state, outputs
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
        nb.metadata["language_info"] = {
            "name": "python",
            "version": "3.11",
            "file_extension": ".py",
        }
        nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.execution_count = 1
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x")]
                cell.metadata["execution"] = {"iopub.status.busy": "2026-01-01"}
        await manager.save({"type": "notebook", "content": nb}, rel)

    asyncio.run(roundtrip())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_saving_in_the_lab_changes_nothing(path, tmp_path):
    """jupytext.toml keeps the committed header and drops outputs: a save is a no-op."""
    shutil.copy(REPO / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "notebooks").mkdir()
    target = tmp_path / "notebooks" / path.name
    shutil.copy(path, target)
    _lab_save(tmp_path, f"notebooks/{path.name}")
    assert target.read_text() == path.read_text()
    assert sorted(p.name for p in (tmp_path / "notebooks").iterdir()) == [path.name], "no .ipynb"


def test_batch_copies_keep_images_and_kernels_use_a_fixed_hash_seed(tmp_path, monkeypatch):
    """Even with MPLBACKEND=Agg (as CI exports it), the executed copy holds the figure."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "params").mkdir()
    (root / "notebooks" / "plot.py").write_text(
        '# %% tags=["parameters"]\nout: str = ""  # output folder\n\n'
        "# %%\nimport os\nimport matplotlib.pyplot as plt\n"
        "from analysis.notebook import setup\n"
        "nb = setup('plot.py', output_dir=out, resolve=False)\n"
        "assert os.environ['PYTHONHASHSEED'] == '0'\n\n"
        "# %%\nfig, ax = plt.subplots()\nax.plot([0, 1], [0, 1])\nnb.figure(fig, 'line')\n"
    )
    (root / "params" / "smoke.yaml").write_text(f"plot:\n  out: {tmp_path / 'out'}\n")
    runs = batch.run_batch("smoke", root=root, build_dir=tmp_path / "b")
    assert runs[0].ok, runs[0].error
    executed = nbformat.read(tmp_path / "b" / "plot.ipynb", as_version=4)
    outputs = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert (tmp_path / "out" / "line.svg").is_file()
