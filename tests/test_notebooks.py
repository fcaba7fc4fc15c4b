"""Notebooks: papermill parameters are documented literals; every notebook runs (smoke)."""

from __future__ import annotations

import ast
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
