"""Run every notebook in ``notebooks/`` with papermill, from a parameter profile.

Usage::

    python -m analysis.batch --profile full --results ../shared/mteb-cache
    python -m analysis.batch --profile smoke --only blog_tables

Notebooks are jupytext ``py:percent`` files. Each is converted to ``.ipynb`` in
``build/notebooks/<profile>/`` and executed there by papermill with the repository
root as working directory; the executed copy (``<name>.ipynb``) stays in that folder.
Parameters come from ``params/<profile>.yaml``: a mapping ``notebook name ->
{parameter: value}``; the key ``_all`` applies to every notebook that declares the
parameter. ``--results`` sets ``results_dir`` for every notebook that has it (several
folders are merged: ``--results ../shared/mteb-cache data/runs``).

A failing notebook does not stop the others. The command exits 1 with a summary
naming each failed notebook, its failing cell and the error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .paths import repo_root


@dataclass(frozen=True)
class NotebookRun:
    """Outcome of one notebook run."""

    name: str
    ok: bool
    seconds: float
    output: Path
    cell: int | None = None
    error: str | None = None


def load_profile(profile: str, root: Path) -> dict[str, dict[str, Any]]:
    """Read ``params/<profile>.yaml`` (a mapping notebook -> parameters)."""
    path = (
        Path(profile)
        if profile.endswith((".yaml", ".yml"))
        else root / "params" / f"{profile}.yaml"
    )
    if not path.is_file():
        choices = sorted(p.stem for p in (root / "params").glob("*.yaml"))
        raise SystemExit(f"No parameter profile {path}. Available profiles: {choices}.")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise SystemExit(f"{path} must map notebook names to parameter mappings.")
    return data


def notebook_sources(root: Path, only: Sequence[str] | None = None) -> list[Path]:
    """The jupytext notebooks in ``notebooks/`` (optionally only the named ones)."""
    sources = sorted((root / "notebooks").glob("*.py"))
    if only:
        names = {p.stem for p in sources}
        unknown = sorted(set(only) - names)
        if unknown:
            raise SystemExit(f"Unknown notebook(s) {unknown}; available: {sorted(names)}.")
        sources = [p for p in sources if p.stem in set(only)]
    return sources


def _failing_cell(nb_path: Path) -> tuple[int | None, str | None]:
    """The failing cell as the author sees it: its number among the source's code cells.

    Cells papermill adds (injected parameters, the error banner) are not counted. The
    message is the error and the first line of the cell.
    """
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    number = 0
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or "injected-parameters" in tags:
            continue
        number += 1
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                first = next((ln for ln in cell.source.splitlines() if ln.strip()), "")
                return number, f"{out.get('ename')}: {out.get('evalue')} [in `{first[:80]}`]"
    return None, None


def prepare(source: Path, build: Path) -> tuple[Path, set[str]]:
    """Convert a jupytext notebook to ``.ipynb`` in ``build``; return it and its parameters."""
    import jupytext
    import papermill as pm

    build.mkdir(parents=True, exist_ok=True)
    nb_in = build / f"{source.stem}.input.ipynb"
    nb = jupytext.read(source)
    nb.metadata.setdefault(
        "kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"}
    )
    jupytext.write(nb, nb_in)
    return nb_in, set(pm.inspect_notebook(str(nb_in)))


def params_for(
    name: str, declared: set[str], profile: dict[str, dict[str, Any]], results: str | None
) -> dict[str, Any]:
    """Profile parameters for one notebook (``_all`` first, then its own, then ``--results``)."""
    params = {k: v for k, v in profile.get("_all", {}).items() if k in declared}
    params.update(profile.get(name, {}))
    if results is not None and "results_dir" in declared:
        params["results_dir"] = results
    return params


def run_notebook(
    nb_in: Path, name: str, params: dict[str, Any], declared: set[str], root: Path
) -> NotebookRun:
    """Execute a converted notebook with papermill; never raises for a failing cell."""
    import papermill as pm

    nb_out = nb_in.with_name(f"{name}.ipynb")
    start = time.perf_counter()
    try:  # the converted input is removed whatever happens
        unknown = sorted(set(params) - declared)
        if unknown:
            return NotebookRun(
                name,
                False,
                0.0,
                nb_out,
                None,
                f"unknown parameters {unknown}; the notebook declares {sorted(declared)}",
            )
        pm.execute_notebook(
            str(nb_in),
            str(nb_out),
            parameters=params,
            cwd=str(root),
            kernel_name="python3",
            progress_bar=False,
        )
    except Exception as err:  # papermill saves the failed notebook before raising
        cell, message = _failing_cell(nb_out) if nb_out.exists() else (None, None)
        return NotebookRun(
            name,
            False,
            time.perf_counter() - start,
            nb_out,
            cell,
            message or "".join(traceback.format_exception_only(type(err), err)).strip(),
        )
    finally:
        nb_in.unlink(missing_ok=True)
    return NotebookRun(name, True, time.perf_counter() - start, nb_out)


def run_batch(
    profile: str,
    *,
    results: str | None = None,
    only: Sequence[str] | None = None,
    build_dir: str | Path | None = None,
    root: str | Path | None = None,
) -> list[NotebookRun]:
    """Run every notebook of the profile; returns one :class:`NotebookRun` each.

    Args:
        profile: ``smoke``, ``full`` or a path to a parameter YAML file.
        results: results folder(s) passed as ``results_dir`` to notebooks that declare it
            (several joined by ``os.pathsep``, as ``$STATIC_RTEB_RESULTS`` takes them).
        only: notebook names to run (default: all in ``notebooks/``).
        build_dir: where executed copies go (default ``build/notebooks/<profile>``).
        root: project root holding ``notebooks/`` and ``params/`` (default: this repo).
    """
    root = Path(root) if root else repo_root()
    with _reproducible_kernels():
        return _run_all(profile, root, results, only, build_dir)


#: Kernels started by the batch (and by `make lab`) use this hash seed: with a random one,
#: matplotlib's constrained layout rounds differently from run to run and SVG
#: coordinates change in the 6th decimal, so committed figures would never be stable.
KERNEL_HASH_SEED = "0"


@contextlib.contextmanager
def _reproducible_kernels() -> Iterator[None]:
    """Set ``PYTHONHASHSEED`` for the kernels papermill starts (they inherit os.environ)."""
    old = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = KERNEL_HASH_SEED
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = old


def _run_all(
    profile: str,
    root: Path,
    results: str | None,
    only: Sequence[str] | None,
    build_dir: str | Path | None,
) -> list[NotebookRun]:
    prof = load_profile(profile, root)
    build = Path(build_dir) if build_dir else root / "build" / "notebooks" / Path(profile).stem
    runs = []
    sources = notebook_sources(root, only)
    for i, source in enumerate(sources, 1):
        nb_in, declared = prepare(source, build)
        params = params_for(source.stem, declared, prof, results)
        print(f"[{i}/{len(sources)}] {source.name} {params}", flush=True)
        run = run_notebook(nb_in, source.stem, params, declared, root)
        status = "ok" if run.ok else f"FAILED in code cell {run.cell}: {run.error}"
        print(
            f"[{i}/{len(sources)}] {source.name}: {status} ({run.seconds:.0f} s) -> {run.output}",
            flush=True,
        )
        runs.append(run)
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.batch", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--profile", default="full", help="params/<profile>.yaml: smoke (tests) or full (default)"
    )
    parser.add_argument(
        "--results",
        nargs="+",
        default=None,
        metavar="FOLDER",
        help="results folder(s) for every notebook, merged in order (e.g. ../shared/mteb-cache "
        "offline; ../shared/mteb-cache data/runs adds your own runs)",
    )
    parser.add_argument("--only", nargs="*", help="run only these notebooks (names without .py)")
    parser.add_argument(
        "--build-dir",
        default=None,
        help="where executed notebooks go (default build/notebooks/<profile>)",
    )
    parser.add_argument("--root", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    results = os.pathsep.join(args.results) if args.results else None
    runs = run_batch(
        args.profile, results=results, only=args.only, build_dir=args.build_dir, root=args.root
    )
    failed = [r for r in runs if not r.ok]
    print(f"\n{len(runs) - len(failed)} of {len(runs)} notebooks ran.")
    for r in failed:
        print(f"FAILED {r.name}: code cell {r.cell}: {r.error} (executed copy: {r.output})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
