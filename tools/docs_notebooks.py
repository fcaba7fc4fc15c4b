"""The notebook pages of the documentation site: the figures batch's executed copies.

The site does not execute notebooks. Its pages "The blog's tables and figures" are the
executed copies that ``make figures`` (``static-rteb batch --profile figures``) leaves in
``build/notebooks/figures/``, one per notebook of ``params/figures.yaml``. A copy is
*stale* when it is missing, older than its source ``notebooks/<name>.py`` or than the
profile, or when a cell of it failed. Changes under ``analysis/`` are not tracked: after
one, ``make figures`` refreshes every copy.

``make docs`` asks this script for the stale ones, runs the batch for those alone, then
builds the site; ``docs/conf.py`` calls :func:`copy_pages`, which copies the copies into
``docs/notebooks/`` (ignored by git) and refuses stale ones, naming the fix.

Usage (from the repository root):

    python tools/docs_notebooks.py --stale    # the stale notebooks' names, for --only
    python tools/docs_notebooks.py            # each notebook and its state

``$STATIC_RTEB_DOCS_NOTEBOOKS`` names another folder of executed copies (the tests build
the site from a batch run in a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from analysis.notebook.batch import load_profile

ROOT = Path(__file__).resolve().parents[1]
PROFILE = "figures"
#: Environment variable naming the folder of executed copies (default: the batch's).
COPIES_ENV = "STATIC_RTEB_DOCS_NOTEBOOKS"
#: What to run when copies are stale.
FIX = "make docs RESULTS=../shared/mteb-cache (it runs the figures batch for them first)"


def copies_dir(root: Path = ROOT) -> Path:
    """Where the executed copies are: ``$STATIC_RTEB_DOCS_NOTEBOOKS``, else the batch's folder."""
    env = os.environ.get(COPIES_ENV)
    return Path(env) if env else root / "build" / "notebooks" / PROFILE


def page_names(root: Path = ROOT) -> list[str]:
    """The notebooks of the figures profile, in the profile's order: one page each."""
    return list(load_profile(PROFILE, root).notebooks or ())


def failed_cell(notebook: Path) -> int | None:
    """The number (from 1) of the first code cell with an error output, or ``None``."""
    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    code = [c for c in cells if c.get("cell_type") == "code"]
    for number, cell in enumerate(code, 1):
        if any(out.get("output_type") == "error" for out in cell.get("outputs", [])):
            return number
    return None


def staleness(name: str, copies: Path, root: Path = ROOT) -> str | None:
    """Why the executed copy of ``name`` cannot be a page as it is, or ``None`` if it can."""
    copy = copies / f"{name}.ipynb"
    if not copy.is_file():
        return f"no executed copy {copy}"
    built = copy.stat().st_mtime
    for source in (root / "notebooks" / f"{name}.py", root / "params" / f"{PROFILE}.yaml"):
        if source.stat().st_mtime > built:
            return f"{copy} is older than {source.relative_to(root)}"
    cell = failed_cell(copy)
    if cell is not None:
        return f"{copy} failed in code cell {cell}"
    return None


def stale(copies: Path | None = None, root: Path = ROOT) -> dict[str, str]:
    """Each notebook of the figures profile whose copy is stale, with the reason."""
    copies = copies or copies_dir(root)
    reasons = {name: staleness(name, copies, root) for name in page_names(root)}
    return {name: why for name, why in reasons.items() if why is not None}


class StaleCopiesError(RuntimeError):
    """Executed copies that cannot become pages (missing, stale or failed)."""


def copy_pages(dest: Path, copies: Path | None = None, root: Path = ROOT) -> list[str]:
    """Copy every notebook's executed copy to ``dest/<name>.ipynb``; returns the names.

    Unchanged copies are not rewritten (Sphinx then rebuilds only changed pages); other
    ``.ipynb`` files in ``dest`` are removed.

    Raises:
        StaleCopiesError: A copy is missing, stale or failed; the message names each and
            the command that refreshes them.
    """
    copies = copies or copies_dir(root)
    problems = stale(copies, root)
    if problems:
        lines = "\n".join(f"  {name}: {why}" for name, why in problems.items())
        raise StaleCopiesError(
            f"The notebook pages need fresh executed copies of the figures batch:\n{lines}\n"
            f"Run: {FIX}."
        )
    names = page_names(root)
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("*.ipynb"):
        if old.stem not in names:
            old.unlink()
    for name in names:
        src, out = copies / f"{name}.ipynb", dest / f"{name}.ipynb"
        if not out.is_file() or out.read_bytes() != src.read_bytes():
            shutil.copyfile(src, out)
    return names


def saved_figure(name: str, stem: str, copies: Path | None = None, root: Path = ROOT) -> bytes:
    """The PNG that notebook ``name`` saved as ``<stem>.png``, as its executed copy shows it.

    The figure is the output of the cell whose ``nb.figure(fig, stem)`` printed "Wrote
    .../<stem>.png" (the front page shows the very figure of the notebook's page).

    Raises:
        StaleCopiesError: The copy is stale, or no cell of it shows that figure.
    """
    import base64
    import re

    copies = copies or copies_dir(root)
    why = staleness(name, copies, root)
    if why is not None:
        raise StaleCopiesError(f"{why}. Run: {FIX}.")
    wrote = re.compile(rf"(^|[\s/]){re.escape(stem)}\.png\b")
    cells = json.loads((copies / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        outputs = cell.get("outputs", [])
        printed = "".join("".join(o.get("text", "")) for o in outputs if o.get("name") == "stdout")
        images = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
        if wrote.search(printed) and images:
            data = images[-1]
            return base64.b64decode(data if isinstance(data, str) else "".join(data))
    raise StaleCopiesError(
        f"{copies / name}.ipynb shows no figure saved as {stem}.png (nb.figure(fig, {stem!r}))."
    )


def main(argv: list[str] | None = None) -> int:
    """Print the stale notebooks (``--stale``: names only) or every notebook's state."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--stale",
        action="store_true",
        help="print only the stale notebooks' names, space-separated (for --only)",
    )
    args = parser.parse_args(argv)
    copies = copies_dir()
    problems = stale(copies)
    if args.stale:
        print(" ".join(problems))
        for name, why in problems.items():
            print(f"{name}: {why}", file=sys.stderr)
        return 0
    for name in page_names():
        print(f"{name}: {problems.get(name, f'fresh ({copies / name}.ipynb)')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
