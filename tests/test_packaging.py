"""One pinned dependency set: pyproject.toml and environment.yml agree."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def _norm(req: str) -> tuple[str, str]:
    name, _, pin = req.partition("==")
    name = re.sub(r"\[.*\]", "", name).strip().lower().replace("_", "-")
    return name, pin.strip()


def test_pyproject_and_environment_pins_agree():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    pyproject = [*project["dependencies"], *extras["runs"], *extras["dev"]]
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
    for req in [*project["dependencies"], *extras["runs"], *extras["dev"]]:
        name, pin = _norm(req)
        assert version(name).split("+")[0] == pin, name
