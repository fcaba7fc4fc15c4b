"""One pinned dependency set: pyproject.toml and environment.yml agree."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, load_file


def _norm(req: str) -> tuple[str, str]:
    name, _, pin = req.partition("==")
    name = re.sub(r"\[.*\]", "", name).strip().lower().replace("_", "-")
    return name, pin.strip()


def test_pyproject_and_environment_pins_agree():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    pyproject = [*project["dependencies"], *extras["runs"], *extras["dev"], *extras["docs"]]
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    conda_side = dict(_norm(r) for r in pip if not r.startswith("-e"))
    ours = dict(_norm(r) for r in pyproject)
    assert all(pin for pin in ours.values()), "every pyproject dependency is pinned with =="
    assert ours == conda_side
    py = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    assert project["requires-python"] == ">=" + py.split("=")[1]


def test_installed_versions_match_pins():
    from importlib.metadata import version

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for req in [*project["dependencies"], *extras["runs"], *extras["dev"], *extras["docs"]]:
        name, pin = _norm(req)
        assert version(name).split("+")[0] == pin, name


ANALYSIS_HALF = """
import sys, warnings
import analysis, analysis.core.errors, analysis.core.compat, analysis.core.io, analysis.core.paths
import analysis.results.leaderboard, analysis.results.specs, analysis.results.blog
import analysis.results.groups, analysis.results.placement, analysis.results.fastparse
import analysis.stats
from analysis.results.leaderboard import load_leaderboard
warnings.simplefilter("ignore")
lb = load_leaderboard(tasks=["STSBenchmark"], results=sys.argv[1], use_cache=False)
heavy = sorted(m for m in ("torch", "sentence_transformers", "model2vec", "transformers")
               if m in sys.modules)
print(",".join(heavy))
"""


def test_analysis_half_imports_no_model_code(tmp_path):
    """analysis.results and analysis.stats work without importing torch or model loaders."""
    import json
    import subprocess
    import sys

    folder = tmp_path / "remote" / "results" / "org__m" / "r"
    folder.mkdir(parents=True)
    (folder / "model_meta.json").write_text(json.dumps({"name": "org/m", "revision": "r"}))
    entry = {"main_score": 0.5, "hf_subset": "default", "languages": ["eng-Latn"]}
    (folder / "STSBenchmark.json").write_text(
        json.dumps(
            {
                "dataset_revision": "x",
                "task_name": "STSBenchmark",
                "mteb_version": "2.26.24",
                "evaluation_time": 1.0,
                "scores": {"test": [entry]},
            }
        )
    )
    proc = subprocess.run(
        [sys.executable, "-c", ANALYSIS_HALF, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "", f"the analysis half imported {proc.stdout.strip()}"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_top_level_modules(package: Path) -> dict[str, list[str]]:
    """Every top-level module an ``import`` in ``package`` names -> the files naming it."""
    import ast
    import sys

    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != package.name:
                    found.setdefault(top, []).append(path.relative_to(REPO).as_posix())
    return found


def test_every_library_the_package_imports_is_declared():
    """Each third-party module analysis/ imports comes from a dependency it declares."""
    from importlib.metadata import packages_distributions

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = {
        _canonical(_norm(req)[0])
        for req in [*project["dependencies"], *project["optional-dependencies"]["runs"]]
    }
    providers = packages_distributions()
    imported = _imported_top_level_modules(REPO / "analysis")
    assert {"mteb", "pandas", "yaml", "pytrec_eval"} <= set(imported)  # the walk sees imports
    undeclared = {
        module: sorted({_canonical(d) for d in providers.get(module, [])} or {"(not installed)"})
        for module in imported
        if not {_canonical(d) for d in providers.get(module, [])} & declared
    }
    assert not undeclared, "declare in pyproject.toml and environment.yml: " + "; ".join(
        f"{module} (from {', '.join(dists)}; imported in {imported[module][0]})"
        for module, dists in sorted(undeclared.items())
    )


def _uv_install_args():
    return load_file(REPO / "tools" / "uv_install_args.py", "uv_install_args")


def test_make_setup_gives_uv_the_package_sources_pip_is_configured_with():
    tool = _uv_install_args()
    listing = "\n".join(
        [
            "global.extra-index-url='file:///a/simple https://mirror/simple'",
            "global.find-links='/global/wheels'",
            "install.find-links='/install/wheels'",
            ":env:.constraint='/c.txt'",
            "global.constraint='/ignored.txt'",
            "global.timeout='60'",
            "global.cert='/etc/ssl/certs/ca-certificates.crt'",
            "global.no-index='false'",
            "global.use-feature='truststore'",
            "not a config line",
        ]
    )
    config = tool.pip_config(listing)
    # pip's precedence: the environment over the install section over global
    assert config["find-links"] == "/install/wheels" and config["constraint"] == "/c.txt"
    args, unknown = tool.uv_args(config)
    assert args == [
        "--index-strategy", "unsafe-best-match",
        "--native-tls",
        "--constraint", "/c.txt",
        "--extra-index-url", "file:///a/simple",
        "--extra-index-url", "https://mirror/simple",
        "--find-links", "/install/wheels",
    ]  # fmt: skip
    assert unknown == ["use-feature"]
    assert tool.uv_args(tool.pip_config("global.no-index='true'"))[0][-1] == "--no-index"


def test_the_uv_options_of_this_machine_name_each_configured_source():
    config = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True
    ).stdout
    printed = subprocess.run(
        [sys.executable, "tools/uv_install_args.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    tool = _uv_install_args()
    for option, value in tool.pip_config(config).items():
        for item in value.split() if option in tool.SAME else ():
            assert item in printed, (option, item, printed)


@pytest.mark.parametrize("name", ["mteb.evaluate", "torch.nn.modules.linear", "sklearn.base"])
def test_the_install_wrote_the_bytecode_that_every_process_would_compile(name: str) -> None:
    """`make setup` writes every module's .pyc (uv: --compile-bytecode, as pip does).

    uv leaves the bytecode to the first import; where nothing may write it then
    (PYTHONDONTWRITEBYTECODE, as on this project's CI machines) every process compiled
    mteb and torch again: about 20 s of CPU per command, worker and kernel.
    """
    import importlib
    import importlib.util

    source = importlib.import_module(name).__file__
    assert source is not None
    cached = Path(importlib.util.cache_from_source(source))
    assert cached.is_file(), f"no bytecode for {source}: install with uv --compile-bytecode"
