"""Atomic file writes, markdown tables with a provenance header, and figure saving."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Read once at import: ``os.umask`` can only be read by setting it, which is process-wide
#: and would race with other threads if done on every write.
_FILE_MODE = 0o666 & ~_read_umask()


@contextlib.contextmanager
def _atomic_target(path: Path, suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temp path beside ``path``; on success it replaces ``path``, on error it is removed.

    A reader never sees a half-written file, and an interrupted write leaves the old
    file (or none) in place. ``suffix`` keeps writers that infer the format from the
    extension (matplotlib) working.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, _FILE_MODE)  # mkstemp makes 0600; give the usual file mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, rename)."""
    path = Path(path)
    with _atomic_target(path) as tmp, tmp.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_parquet(path: str | Path, frame: pd.DataFrame) -> Path:
    """Write ``frame`` as parquet atomically."""
    path = Path(path)
    with _atomic_target(path) as tmp:
        frame.to_parquet(tmp, index=False)
    return path


def format_pvalue(p: float | None, *, digits: int = 3) -> str:
    """A p-value as text: ``0.0004 -> "<0.001"``, ``0.0123 -> "0.012"``, missing -> "—".

    Never prints ``0.000``: a p-value below ``10**-digits`` is shown as ``<0.001``.

    Args:
        p: The p-value, in [0, 1], or None/NaN for missing.
        digits: Decimals shown (at least 1).

    Raises:
        ValueError: If ``p`` is outside [0, 1] or ``digits`` < 1.
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}.")
    if p is None or p != p:
        return "—"
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p}.")
    threshold = 10.0**-digits
    if p < threshold:
        return f"<{threshold:.{digits}f}"
    return f"{p:.{digits}f}"


def pvalue_phrase(p: float | None, *, digits: int = 3) -> str:
    """A p-value for prose after "p": ``"= 0.012"`` or ``"< 0.001"`` (see :func:`format_pvalue`)."""
    text = format_pvalue(p, digits=digits)
    return f"< {text[1:]}" if text.startswith("<") else f"= {text}"


def results_display(results: str | Path) -> str:
    """How a results folder is named in headers: the same on every machine with the same layout.

    Relative to the repository root when the folder is inside it or beside it (e.g.
    ``../shared/mteb-cache``), ``~/...`` under the home folder, else absolute.
    """
    from .paths import repo_root

    path = Path(os.path.abspath(Path(results).expanduser()))  # symlinks kept, as given
    root = repo_root()
    if path == root or root in path.parents or root.parent in path.parents:
        return os.path.relpath(path, root)
    home = Path.home()
    if home in path.parents:
        return "~/" + path.relative_to(home).as_posix()
    return path.as_posix()


def results_provenance(results: str | Path) -> dict[str, Any]:
    """Header entries naming a results folder: where it is, a stable fingerprint, file count.

    The fingerprint hashes relative paths and sizes (not mtimes), so a copy or a fresh
    checkout of the same results gives the same header.
    """
    from .results.leaderboard import results_fingerprint

    fingerprint, n_files = results_fingerprint(results)
    return {
        "results": results_display(results),
        "results_fingerprint": fingerprint,
        "result_files": n_files,
    }


def results_label(results: str | Path) -> str:
    """``"../shared/mteb-cache (fingerprint 1a2b..., 43111 files)"`` for prose."""
    info = results_provenance(results)
    return (
        f"{info['results']} (fingerprint {info['results_fingerprint']}, "
        f"{info['result_files']} files)"
    )


def provenance_line(
    notebook: str, parameters: Mapping[str, Any], *, results: str | Path | None = None
) -> str:
    """The header line of a generated table: which notebook and parameters made it.

    Args:
        notebook: The notebook's file name (under ``notebooks/``).
        parameters: Its resolved parameters.
        results: The RESOLVED results folder the table was computed from. Given, the
            header names it and its fingerprint (see :func:`results_provenance`) in
            place of any ``results_dir`` parameter, whichever way the folder was chosen.
    """
    params = dict(parameters)
    if results is not None:
        params.pop("results_dir", None)
        params.update(results_provenance(results))
    text = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return f"<!-- generated by notebooks/{notebook} with {text}; do not edit by hand -->"


def markdown_table(frame: pd.DataFrame, *, floatfmt: str = ".2f", na: str = "—") -> str:
    """Render ``frame`` as a GitHub markdown table (no index), without extra dependencies.

    Floats are formatted with ``floatfmt``; missing values are shown as ``na``.
    """

    def cell(value: Any) -> str:
        if value is None or (isinstance(value, float) and value != value):
            return na
        if isinstance(value, float):
            return format(value, floatfmt)
        return str(value).replace("|", "\\|")

    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows]) + "\n"


def write_markdown_table(
    path: str | Path,
    frame: pd.DataFrame,
    *,
    notebook: str,
    parameters: Mapping[str, Any],
    title: str | None = None,
    note: str | None = None,
    floatfmt: str = ".2f",
    results: str | Path | None = None,
) -> Path:
    """Write ``frame`` as a markdown table whose first line names its notebook and parameters.

    ``results`` (the resolved results folder) is recorded with its fingerprint; see
    :func:`provenance_line`.
    """
    parts = [provenance_line(notebook, parameters, results=results)]
    if title:
        parts.append(f"\n**{title}**\n")
    parts.append("\n" + markdown_table(frame, floatfmt=floatfmt))
    if note:
        parts.append(f"\n{note}\n")
    return atomic_write_text(path, "".join(parts))


def save_figure(fig: Any, path_stem: str | Path) -> list[Path]:
    """Save a matplotlib figure as ``<stem>.png`` and ``<stem>.svg``; returns both paths.

    The extension is appended (a stem may contain dots, e.g. ``plot.as-of-post``).
    """
    from matplotlib import rc_context

    stem = Path(path_stem)
    out = []
    for ext, kwargs in ((".png", {"dpi": 150}), (".svg", {"metadata": {"Date": None}})):
        target = stem.parent / f"{stem.name}{ext}"
        # a fixed hash salt makes SVG element ids, and so the files, reproducible
        with _atomic_target(target, suffix=ext) as tmp, rc_context({"svg.hashsalt": "static-rteb"}):
            fig.savefig(tmp, bbox_inches="tight", **kwargs)
        out.append(target)
    return out
