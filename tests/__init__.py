"""The test suite, one folder per room of the package (``docs/development.md``, "Layout of tests/").

``tests`` and each folder under it are packages, so every test module has a dotted name
(``tests.runs.test_runner``) and two folders may hold files of the same name; pytest puts
the repository root on ``sys.path`` (its default ``prepend`` import mode: the first folder
upwards without an ``__init__.py``). Test modules import the shared helpers by that name:
``from tests.conftest import REPO``, ``from tests._cli import run_cli``,
``from tests._run_fixtures import ...``, ``from tests._submit_fixtures import ...``.
"""
