"""Run the notebooks in ``notebooks/`` with papermill: ``static-rteb batch --profile figures``.

Each jupytext notebook is converted to ``.ipynb`` and executed by papermill in
``build/notebooks/<profile>/`` (the executed copy stays there), from the repository root,
``-j N`` of them at once. Parameters come from ``params/<profile>.yaml`` (notebook name ->
parameters; ``_all`` for every notebook that declares one, ``_notebooks`` the list to run),
``--results`` (``results_dir``), then papermill's own ``-p``/``-r``/``-y``/``-f``. A failing
notebook does not stop the others; the summary names its failing cell, line, code and error
(``docs/notebooks_guide.md``, "Batch runs").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import yaml

from ..core.errors import AnalysisError, BatchError, BatchInterrupted, close_names
from ..core.interrupt import signal_of, stop_on_signals
from ..core.paths import RESULTS_ENV, repo_root
from ..results.folder import missing_folders
from .flags import parameters_from_flags
from .params import declared_parameters

#: Profile keys that are not notebook names.
ALL_KEY, NOTEBOOKS_KEY = "_all", "_notebooks"


@dataclass(frozen=True)
class NotebookRun:
    """Outcome of one notebook run.

    Attributes:
        name: Notebook name (file stem).
        ok: It ran to the end.
        seconds: Wall time of the run.
        output: The executed copy.
        cell: Number of the failing code cell among the source's code cells.
        error: ``"<Error>: <message>"`` (or why it did not start).
        line: Line of the failing statement within that cell.
        code: That line's code.
    """

    name: str
    ok: bool
    seconds: float
    output: Path
    cell: int | None = None
    error: str | None = None
    line: int | None = None
    code: str | None = None

    def where(self) -> str:
        """``"code cell 2, line 12 `nb = setup(...)`"``: where it failed, as the author sees it."""
        if self.cell is None:
            return "before any cell"
        text = f"code cell {self.cell}"
        if self.line is not None:
            text += f", line {self.line}"
        if self.code:
            text += f" `{self.code.strip()[:100]}`"
        return text


@dataclass(frozen=True)
class Profile:
    """A parameter profile: per-notebook parameters and the notebooks it runs."""

    path: Path
    parameters: Mapping[str, Mapping[str, Any]]
    notebooks: tuple[str, ...] | None = None


def load_profile(profile: str, root: Path) -> Profile:
    """Read ``params/<profile>.yaml`` under ``root`` (or the YAML path ``profile``).

    Raises:
        BatchError: The file does not exist, or it is not a mapping of notebook names to
            parameter mappings.
    """
    is_path = profile.endswith((".yaml", ".yml"))
    path = Path(profile) if is_path else root / "params" / f"{profile}.yaml"
    if not path.is_file():
        choices = sorted(p.stem for p in (root / "params").glob("*.yaml"))
        raise BatchError(f"No parameter profile {path}. Available profiles: {choices}.")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise BatchError(f"{path} must map notebook names to parameter mappings.")
    selection = data.pop(NOTEBOOKS_KEY, None)
    if selection is not None and (
        not isinstance(selection, list) or not all(isinstance(n, str) for n in selection)
    ):
        raise BatchError(f"{path}: {NOTEBOOKS_KEY} must be a list of notebook names.")
    bad = sorted(k for k, v in data.items() if not isinstance(v, dict))
    if bad:
        raise BatchError(f"{path}: {bad} must map to parameter mappings (name: value).")
    return Profile(
        path, data, tuple(n.removesuffix(".py") for n in selection) if selection else None
    )


def notebook_sources(root: Path, only: Sequence[str] | None = None) -> list[Path]:
    """The notebooks in ``notebooks/``, in name order; or only the named ones, in the order given.

    Raises:
        BatchError: A name is not a notebook in ``notebooks/``.
    """
    sources = sorted((root / "notebooks").glob("*.py"))
    if not only:
        return sources
    by_name = {p.stem: p for p in sources}
    wanted = list(dict.fromkeys(n.removesuffix(".py") for n in only))
    unknown = sorted(set(wanted) - by_name.keys())
    if unknown:
        raise BatchError(
            "; ".join(
                f"Unknown notebook {u!r} (closest: {close_names(u, by_name)})" for u in unknown
            )
            + f". Available: {sorted(by_name)}."
        )
    return [by_name[name] for name in wanted]


def _check_profile_names(profile: Profile, names: Iterable[str]) -> None:
    known = set(names)
    listed = {k for k in profile.parameters if k != ALL_KEY} | set(profile.notebooks or ())
    unknown = sorted(listed - known)
    if unknown:
        raise BatchError(
            f"{profile.path} names notebooks that are not in notebooks/: "
            + "; ".join(f"{u!r}{close_names(u, known)}" for u in unknown)
            + "."
        )


# --------------------------------------------------------------------------- running


def _failing_cell(nb_path: Path) -> tuple[int | None, int | None, str | None, str | None]:
    """Where an executed notebook failed: (code cell number, line, that line's code, error)."""
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
                line = _traceback_line(out.get("traceback", []))
                lines = cell.source.splitlines()
                if line is None or not 1 <= line <= len(lines):
                    line = next((i for i, ln in enumerate(lines, 1) if ln.strip()), None)
                code = lines[line - 1] if line else None
                return number, line, code, f"{out.get('ename')}: {out.get('evalue')}"
    return None, None, None, None


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_FRAME = re.compile(r"^(?:Cell In ?\[\d*\]|Input In ?\[\d*\]), line (\d+)")


def _traceback_line(traceback: Sequence[str]) -> int | None:
    """The line of the cell's own frame in an IPython traceback (the first ``Cell In[..]``)."""
    for entry in traceback:
        match = _CELL_FRAME.match(_ANSI.sub("", entry).strip())
        if match:
            return int(match.group(1))
    return None


def prepare(source: Path, build: Path) -> tuple[Path, set[str]]:
    """Convert a jupytext notebook to ``.ipynb`` in ``build``; return it and its parameters."""
    import jupytext

    build.mkdir(parents=True, exist_ok=True)
    nb_in = build / f"{source.stem}.input.ipynb"
    nb = jupytext.read(source)
    nb.metadata.setdefault(
        "kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"}
    )
    jupytext.write(nb, nb_in)
    return nb_in, set(declared_parameters(source))


def params_for(
    name: str,
    declared: set[str],
    profile: Profile | Mapping[str, Mapping[str, Any]],
    results: str | None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One notebook's parameters: ``_all``, its own, ``--results``, then the command line's.

    ``_all``, ``--results`` and command-line parameters apply only where declared; the
    notebook's own profile entries always apply (an unknown one is reported by the run).
    """
    table = profile.parameters if isinstance(profile, Profile) else profile
    params = {k: v for k, v in table.get(ALL_KEY, {}).items() if k in declared}
    params.update(table.get(name, {}))
    for extra in ({} if results is None else {"results_dir": results}, overrides or {}):
        params.update({k: v for k, v in extra.items() if k in declared})
    return params


def run_notebook(
    nb_in: Path, name: str, params: dict[str, Any], declared: set[str], root: Path
) -> NotebookRun:
    """Execute a converted notebook with papermill; a failing cell is returned, not raised."""
    import papermill as pm
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from papermill.exceptions import PapermillExecutionError
    from traitlets.config import Config

    nb_out = nb_in.with_name(f"{name}.ipynb")
    start = time.perf_counter()
    try:  # the converted input is removed whatever happens
        unknown = sorted(set(params) - declared)
        if unknown:
            error = f"unknown parameters {unknown}; the notebook declares {sorted(declared)}"
            return NotebookRun(name, False, 0.0, nb_out, error=error)
        # the kernel's sockets are files in a private folder (ipc): a tcp port is picked free
        # and bound later, so another process can take it (jupyter_client#487)
        with tempfile.TemporaryDirectory(prefix="static-rteb-kernel-") as sockets:
            pm.execute_notebook(
                str(nb_in),
                str(nb_out),
                parameters=params,
                cwd=str(root),
                kernel_name="python3",
                progress_bar=False,
                config=Config(KernelManager={"transport": "ipc", "ip": f"{sockets}/kernel"}),
                # nbclient kills the kernel at the end or a stop: no wait for it to exit
                shutdown_kernel="immediate",
            )
    # a cell raised, the kernel died or a cell timed out; papermill saved the notebook first
    except (PapermillExecutionError, DeadKernelError, CellTimeoutError) as err:
        cell, line, code, message = (
            _failing_cell(nb_out) if nb_out.exists() else (None, None, None, None)
        )
        return NotebookRun(
            name,
            False,
            time.perf_counter() - start,
            nb_out,
            cell,
            message or f"{type(err).__name__}: {err}".strip(),
            line,
            code,
        )
    finally:
        nb_in.unlink(missing_ok=True)
    return NotebookRun(name, True, time.perf_counter() - start, nb_out)


def run_batch(
    profile: str,
    *,
    results: str | None = None,
    only: Sequence[str] | None = None,
    parameters: Mapping[str, Any] | None = None,
    build_dir: str | Path | None = None,
    root: str | Path | None = None,
    jobs: int = 1,
) -> list[NotebookRun]:
    """Run every notebook of the profile; returns one :class:`NotebookRun` each.

    ``profile`` is a name under ``params/`` or a YAML path; ``results`` (``os.pathsep``
    between folders) is every declaring notebook's ``results_dir``; ``only`` defaults to the
    profile's ``_notebooks``, else all; ``parameters`` (``-p`` etc.) win over the profile's.
    ``jobs`` notebooks run at once (each in its own kernel), started in the listed order.

    Raises:
        BatchError: Unknown profile or notebook, a command-line parameter that no selected notebook
            declares, or a results folder that does not exist (nothing has run then).
    """
    root = Path(root) if root else repo_root()
    prof = load_profile(profile, root)
    _check_profile_names(prof, (p.stem for p in notebook_sources(root)))
    sources = notebook_sources(root, only or prof.notebooks)
    _check_overrides(parameters or {}, sources)
    if missing := missing_folders(results):  # as the notebooks will look for them
        raise BatchError(f"results folder {missing[0]!r} not found (--results or "
                         f"${RESULTS_ENV}); no notebook ran")  # fmt: skip
    build = Path(build_dir) if build_dir else root / "build" / "notebooks" / prof.path.stem
    with mock.patch.dict(os.environ, PYTHONHASHSEED=KERNEL_HASH_SEED):  # kernels inherit it
        return _run_all(sources, prof, build, root, results, parameters or {}, jobs)


def _check_overrides(parameters: Mapping[str, Any], sources: Sequence[Path]) -> None:
    declared = {p.stem: set(declared_parameters(p)) for p in sources}
    unknown = sorted(set(parameters) - (set().union(*declared.values()) if declared else set()))
    if unknown:
        raise BatchError(
            f"No selected notebook declares {unknown}: "
            + "; ".join(f"{n}: {sorted(d)}" for n, d in declared.items())
            + "."
        )


#: Kernels started by the batch (and by `make lab`) use this hash seed: with a random one,
#: matplotlib's constrained layout rounds differently from run to run and SVG
#: coordinates change in the 6th decimal, so committed figures would never be stable.
KERNEL_HASH_SEED = "0"


def _run_all(
    sources: Sequence[Path],
    profile: Profile,
    build: Path,
    root: Path,
    results: str | None,
    overrides: Mapping[str, Any],
    jobs: int = 1,
) -> list[NotebookRun]:
    """Run the notebooks on ``jobs`` threads, each waiting on its kernel; this one waits.

    On Ctrl-C it stops every kernel started and raises :class:`BatchInterrupted`.
    """
    import psutil

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    queue = list(enumerate(sources, 1))[::-1]  # popped from the end: the first one first
    done, running = dict[int, NotebookRun](), dict[int, str]()
    errors: list[BaseException] = []
    lock, stopping = threading.Lock(), threading.Event()

    def say(line: str) -> None:  # one write: two threads' lines never interleave
        print(line + "\n", end="", flush=True)

    def work() -> None:
        while True:
            with lock:
                if stopping.is_set() or not queue or errors:
                    return
                i, source = queue.pop()
                running[i] = source.stem
            try:
                nb_in, declared = prepare(source, build)
                params = params_for(source.stem, declared, profile, results, overrides)
                if stopping.is_set():  # stopped while converting: no kernel starts after it
                    nb_in.unlink(missing_ok=True)
                    return
                tag = f"[{i}/{len(sources)}] {source.name}"
                say(f"{tag} {params}")
                done[i] = run = run_notebook(nb_in, source.stem, params, declared, root)
                if not stopping.is_set():  # after a stop, its one line says it all
                    status = "ok" if run.ok else f"FAILED in {run.where()}: {run.error}"
                    say(f"{tag}: {status} ({run.seconds:.0f} s) -> {run.output}")
            except BaseException as err:  # raised again by the waiting thread
                errors.append(err)
                return
            finally:
                with lock:
                    running.pop(i, None)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(min(jobs, len(sources)))]
    try:  # from the first start: every kernel is started inside
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    except KeyboardInterrupt as err:
        with lock:
            stopping.set()
            stopped = dict(sorted(running.items()))
            rest = [source.stem for _, source in reversed(queue)]
        _stop_children(before)  # the running notebooks' kernels
        deadline = time.monotonic() + 3
        for thread in (t for t in threads if t.is_alive()):  # each notes its notebook's end
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        finished = [done[i] for i in sorted(done) if i not in stopped]
        raise BatchInterrupted(finished, list(stopped.values()), rest, signal_of(err)) from None
    if errors:
        raise errors[0]
    return [done[i] for i in sorted(done)]


def batch_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``static-rteb batch``, parsed by :mod:`analysis.cli`.

    Returns:
        The exit status: 0 ok, 1 a notebook failed, 2 usage, 128 + the signal when stopped.
    """
    runs: list[NotebookRun] | None = None
    try:
        overrides = parameters_from_flags(args)
        # SIGINT and SIGTERM stop the batch as Ctrl-C does (a batch started with SIGINT
        # ignored, in the background, keeps ignoring it and stops on SIGTERM)
        with stop_on_signals():
            runs = run_batch(
                args.profile,
                results=os.pathsep.join(args.results) if args.results else None,
                only=args.only,
                parameters=overrides,
                build_dir=args.build_dir,
                root=args.root,
                jobs=args.jobs,
            )
    except (AnalysisError, OSError, yaml.YAMLError) as err:
        print(f"static-rteb batch: {err}", file=sys.stderr)
        return 2
    except BatchInterrupted as stop:  # its kernels are stopped
        print(_interrupted_message(stop, argv), flush=True)
        return 128 + stop.signum
    except KeyboardInterrupt as err:  # before the first notebook, or after the last one
        where = "before any notebook ran" if runs is None else f"after all {len(runs)} ran"
        print(f"\nInterrupted {where}.", flush=True)
        return 128 + signal_of(err)
    failed = [r for r in runs if not r.ok]
    print(f"\n{len(runs) - len(failed)} of {len(runs)} notebooks ran.")
    for r in failed:
        print(f"FAILED {r.name}: {r.where()}: {r.error} (executed copy: {r.output})")
    return 1 if failed else 0


def _interrupted_message(stop: BatchInterrupted, argv: Sequence[str]) -> str:
    """One line: what finished, what was stopped, the command that runs the rest."""
    finished = ", ".join(f"{r.name} ({'ok' if r.ok else 'failed'})" for r in stop.finished)
    rest = [*stop.stopped, *stop.rest]
    command = "static-rteb batch " + shlex.join([*_without_only(argv), "--only", *rest])
    return (
        f"\nInterrupted in {', '.join(stop.stopped)}; finished: {finished or 'none'}. "
        f"Run the rest with: {command}"
    )


def _without_only(argv: Sequence[str]) -> list[str]:
    """``argv`` without its ``--only`` names (the rerun names its own)."""
    out, skipping = [], False
    for arg in argv:
        skipping = arg == "--only" or (skipping and not arg.startswith("-"))
        if not skipping:
            out.append(arg)
    return out


def _stop_children(before: set[int], timeout: float = 2.0) -> None:
    """Terminate the child processes started since ``before`` (the kernel), then kill them."""
    import psutil

    children = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    for child in children:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.terminate()
    _, alive = psutil.wait_procs(children, timeout=timeout)
    for child in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
