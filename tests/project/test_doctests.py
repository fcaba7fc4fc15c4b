"""The docstrings' ``Examples`` run as doctests, and every public function has one.

Every module of ``analysis/`` (and of ``benchmarks/_sim/``, the validation helpers moved
out of it) whose source holds a ``>>>`` line is run with :mod:`doctest` (one test per module, imported when it runs: collecting this file imports
neither mteb nor torch). A failing module lists its failing examples with what they
printed.

Examples that need a results folder or a model name it with one of the objects below
(the docstring says where it comes from), given to the doctest as a global:

* ``tiny_results``: a results folder in mteb's layout of two models (``org/A`` and
  ``org/B``) on three tasks (``STSBenchmark``, ``SciFact``, ``AILAStatutes``), written
  with :func:`conftest.write_result` as the tests' hand-made folders are;
* ``tiny_model``: the tests' distilled static model (model2vec, from the packaged
  all-MiniLM-L6-v2; kept in ``$STATIC_RTEB_TEST_MODELS``, see
  :func:`_run_fixtures.distilled_static_model`);
* ``tiny_teacher``: a tiny random BERT (:func:`_run_fixtures.tiny_teacher`), a teacher
  that distils in a second;
* ``tiny_task``: a hand-made local task folder (``tests/fixtures/local_tasks/Reranking``,
  AskUbuntuDupQuestions' code on 4 queries).

:func:`test_public_names_have_examples` enforces the rule: every public function of
``analysis.__all__`` and ``analysis.stats.__all__`` (and every public class users build)
has an ``Examples:`` section with ``>>>`` lines. It reads the sources only.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests._run_fixtures import copy_fixture, distilled_static_model, tiny_teacher
from tests.conftest import REPO, write_result
from tests.project.test_public_names import stub_imports

PACKAGE = REPO / "analysis"

#: Doctest globals, each made by a session fixture below (requested only by the modules
#: whose source names it).
NAMESPACE = ("tiny_results", "tiny_model", "tiny_teacher", "tiny_task")

#: Public classes whose constructor users call (they need Examples too). Every other
#: public class is an error, a warning, or a result returned by a function.
BUILT_BY_USERS = {"BenchmarkSpec", "ConfidenceInterval", "ModelSpec", "ResultsFolders", "TaskSpec"}
RETURNED = ("Result", "Report", "Prediction", "Validation", "Error", "Warning", "Leaderboard")

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: Modules with at least one example (read from their source, not imported): the package's,
#: and the validation helpers moved out of it (``benchmarks/_sim``, imported as ``_sim``).
SOURCES = {
    _module_name(p) if p.is_relative_to(PACKAGE) else f"_sim.{p.stem}": p
    for p in [*PACKAGE.rglob("*.py"), *(REPO / "benchmarks" / "_sim").glob("*.py")]
    if ">>> " in p.read_text(encoding="utf-8") and "conftest" not in p.name
}
MODULES = sorted(SOURCES)


@pytest.fixture(scope="session")
def tiny_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two models on three tasks, in mteb's layout (``remote/results/...``)."""
    root = tmp_path_factory.mktemp("tiny-results")
    scores = {
        "org/A": {"STSBenchmark": 0.80, "SciFact": 0.60, "AILAStatutes": 0.20},
        "org/B": {"STSBenchmark": 0.70, "SciFact": 0.50, "AILAStatutes": 0.30},
    }
    for model, by_task in scores.items():
        for task, score in by_task.items():
            write_result(root, model, "r1", task, score)
    return root


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tests' distilled static model (kept across sessions by ``make test-fast``)."""
    return distilled_static_model(tmp_path_factory)


@pytest.fixture(scope="session")
def tiny_teacher_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random BERT to distil from."""
    return tiny_teacher(tmp_path_factory.mktemp("tiny-teacher") / "teacher")


@pytest.fixture(scope="session")
def tiny_task(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hand-made local reranking task folder."""
    return copy_fixture("Reranking", tmp_path_factory.mktemp("tiny-task"))


def _namespace(source: str, request: pytest.FixtureRequest) -> dict[str, object]:
    fixtures: dict[str, Callable[[], object]] = {
        "tiny_results": lambda: request.getfixturevalue("tiny_results"),
        "tiny_model": lambda: request.getfixturevalue("tiny_model"),
        "tiny_teacher": lambda: request.getfixturevalue("tiny_teacher_folder"),
        "tiny_task": lambda: request.getfixturevalue("tiny_task"),
    }
    return {name: make() for name, make in fixtures.items() if name in source}


@pytest.mark.parametrize("module_name", MODULES)
def test_examples_run(module_name: str, request: pytest.FixtureRequest) -> None:
    """Every example of the module prints what its docstring says."""
    globs = _namespace(SOURCES[module_name].read_text(encoding="utf-8"), request)
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = finder.find(module, module_name, extraglobs=globs)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with _pandas_display_defaults():
        for test in sorted(tests, key=lambda t: t.name):
            runner.run(test, out=out.write)
    assert runner.tries, f"{module_name}: no example found, though its source has '>>> '"
    if runner.failures:
        pytest.fail(
            f"{runner.failures} of {runner.tries} examples of {module_name} failed:\n"
            + out.getvalue(),
            pytrace=False,
        )


@contextlib.contextmanager
def _pandas_display_defaults() -> Iterator[None]:
    """pandas' ``display.*`` options at their defaults, as in a fresh interpreter.

    A test earlier in the same worker may have run a notebook's setup, which sets
    ``display.precision`` to 3 (:func:`analysis.notebook.context.setup`); the options
    are put back afterwards.
    """
    saved = {key: pd.get_option(key) for key in _option_keys(pd.options.display, "display")}
    pd.reset_option("^display\\.")
    try:
        yield
    finally:
        for key, value in saved.items():
            pd.set_option(key, value)


def _option_keys(node: Any, prefix: str) -> Iterator[str]:
    """Every option key under ``pd.options.<prefix>`` (the groups nest)."""
    for name in dir(node):
        value = getattr(node, name)
        key = f"{prefix}.{name}"
        if type(value) is type(node):
            yield from _option_keys(value, key)
        else:
            yield key


def _public_definitions() -> dict[str, tuple[str, ast.FunctionDef | ast.ClassDef]]:
    """``package.name`` -> (its module, its definition), for both ``__all__`` lists."""
    where = stub_imports(PACKAGE, "analysis")
    stats = stub_imports(PACKAGE / "stats", "analysis.stats")
    stats_all = importlib.import_module("analysis.stats").__all__
    found = {}
    for package, names in (
        ("analysis", where),
        ("analysis.stats", {n: stats[n] for n in stats_all}),
    ):
        for name, module in names.items():
            definition = _definition(module, name)
            assert definition is not None, f"{package}.{name}: no definition found in {module}"
            found[f"{package}.{name}"] = definition
    return found


def _definition(module: str, name: str) -> tuple[str, ast.FunctionDef | ast.ClassDef] | None:
    """The def or class statement of ``name``, following re-exports of a package."""
    path = PACKAGE.parent / Path(*module.split("."))
    source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    if source.name == "__init__.py" and source.with_suffix(".pyi").is_file():  # lazy_loader
        listed = stub_imports(source.parent, module)
        if name in listed:
            return _definition(listed[name], name)
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return module, node
        if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
            parent = module if source.name == "__init__.py" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                parent = parent.rpartition(".")[0]
            target = f"{parent}.{node.module}" if node.level else str(node.module)
            return _definition(target, name)
    return None


def _has_examples(node: ast.FunctionDef | ast.ClassDef) -> bool:
    docs = [ast.get_docstring(node) or ""]
    if isinstance(node, ast.ClassDef):  # the class's or its constructor's docstring
        docs += [
            ast.get_docstring(n) or ""
            for n in node.body
            if isinstance(n, ast.FunctionDef) and n.name == "__init__"
        ]
    return any("\nExamples:\n" in d and ">>> " in d.partition("\nExamples:\n")[2] for d in docs)


def test_public_names_have_examples() -> None:
    """Every public function and user-built class of the two ``__all__`` has Examples."""
    missing, unclassified = set(), set()
    for public, (module, node) in sorted(_public_definitions().items()):
        name = public.rpartition(".")[2]
        if isinstance(node, ast.ClassDef) and name not in BUILT_BY_USERS:
            if not name.endswith(RETURNED) and name != "StatsResult":
                unclassified.add(f"{module}.{name}")
            continue
        if not _has_examples(node):
            missing.add(f"{module}.{name}")
    assert not unclassified, (
        "public classes neither built by users (BUILT_BY_USERS: they need Examples) nor "
        f"returned by a function: {sorted(unclassified)}"
    )
    assert not missing, (
        "public names without an 'Examples:' section of '>>>' lines (docs/development.md, "
        f"'Adding a statistic'): {sorted(missing)}"
    )
