"""papermill's own parameter flags for the batch: ``-p``, ``-r``, ``-y``, ``-f``.

The same flags, value types and order as the ``papermill`` command (``papermill/cli.py``):
``-f FILE`` and ``-y YAML`` are YAML mappings read with papermill's own loader
(``papermill.iorw.NoDatesSafeLoader``: no timestamps, so dates stay text), then
``-p NAME VALUE`` typed as papermill types it (``True``/``False``/``None``, int, float,
else text), then ``-r NAME VALUE`` (always text); later ones win.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import BatchError


def parameter_value(text: str) -> Any:
    """A ``-p`` value as papermill types it: True/False/None, int, float, else the string."""
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            continue
    return text


def command_line_parameters(
    *,
    files: Sequence[str] = (),
    yaml_texts: Sequence[str] = (),
    typed: Sequence[Sequence[str]] = (),
    raw: Sequence[Sequence[str]] = (),
) -> dict[str, Any]:
    """Merge papermill-style parameters in papermill's order: ``-f``, ``-y``, ``-p``, ``-r``.

    Raises:
        BatchError: A YAML file or string is not a mapping.
    """
    from papermill.iorw import NoDatesSafeLoader  # the loader papermill's CLI uses

    merged: dict[str, Any] = {}
    sources = [(f, Path(f).read_text(encoding="utf-8")) for f in files]
    sources += [(f"-y {t!r}", t) for t in yaml_texts]
    for label, text in sources:
        data = yaml.load(text, Loader=NoDatesSafeLoader) or {}  # a SafeLoader
        if not isinstance(data, dict):
            raise BatchError(f"{label} must be a YAML mapping (name: value), got {data!r}.")
        merged.update(data)
    merged.update({name: parameter_value(value) for name, value in typed})
    merged.update({name: value for name, value in raw})
    return merged


def add_parameter_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``-p``/``--parameters``, ``-r``, ``-y``, ``-f`` to ``parser`` (papermill's names)."""
    one: dict[str, Any] = {"action": "append", "default": []}
    pair = {**one, "nargs": 2, "metavar": ("NAME", "VALUE")}
    typed = "a parameter, typed as papermill does (True/False/None, int, float, else text)"
    parser.add_argument("-p", "--parameters", **pair, help=typed)
    parser.add_argument("-r", "--parameters_raw", **pair, help="a parameter taken as a raw string")
    yaml_help = 'parameters as a YAML mapping, e.g. -y "tasks: [AILAStatutes, STSBenchmark]"'
    parser.add_argument("-y", "--parameters_yaml", **one, metavar="YAML", help=yaml_help)
    file_help = "parameters from a YAML file"
    parser.add_argument("-f", "--parameters_file", **one, metavar="FILE", help=file_help)


def parameters_from_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The parameters given by the flags of :func:`add_parameter_flags`, merged in order."""
    return command_line_parameters(
        files=args.parameters_file,
        yaml_texts=args.parameters_yaml,
        typed=args.parameters,
        raw=args.parameters_raw,
    )
