"""Wide tables of included files lead with the answer; the other columns fold away.

The benchmark scripts write tables of 10 to 18 columns into ``benchmarks/results/*.md``;
the site includes those files as they are (``{include}``, never retyped), and a table that
wide would stand past the page's column or scroll in a box. For the files named in
``conf.py``'s ``wide_table_columns``, each table wider than ``wide_table_max_columns`` (or
the file's own ``wide_table_max_columns_by_file``: long headers make a table of few columns wide) is
rewritten as it is read (Sphinx's ``include-read`` event): the columns named for that
file, in their order (the table's first column always first), then a collapsed
``<details>`` part "More columns" holding the others, a few at a time beside the first
column. The file on disk keeps every column; no number is changed or retyped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: A markdown table's delimiter row: ``|---|:--:|---:|``.
_DELIMITER = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def split_row(line: str) -> list[str]:
    r"""The cells of one markdown table row (``\\|`` inside a cell stays a pipe)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells, current, k = [], [], 0
    while k < len(body):
        if body[k] == "\\" and k + 1 < len(body) and body[k + 1] == "|":
            current.append("\\|")
            k += 2
            continue
        if body[k] == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(body[k])
        k += 1
    cells.append("".join(current).strip())
    return cells


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(rows: Sequence[Sequence[str]], delimiter: Sequence[str], keep: Sequence[int]) -> str:
    header, *body = rows
    lines = [_row([header[i] for i in keep]), _row([delimiter[i] for i in keep])]
    lines += [_row([row[i] if i < len(row) else "" for i in keep]) for row in body]
    return "\n".join(lines)


def fold_table(
    lines: Sequence[str], columns: Sequence[str], *, source: str, chunk: int = 6
) -> str | None:
    """One wide markdown table, its answer columns first and the others folded away.

    Args:
        lines: The table's lines (header, delimiter, rows).
        columns: The columns to show, in order; those the table lacks are skipped. The
            table's first column is always shown first.
        source: The file the table is in, named in the collapsed part's summary.
        chunk: How many of the other columns each table of the collapsed part holds.

    Returns:
        The markdown (the narrow table, then an HTML ``<details>`` part with the others
        beside the first column, and the model column when shown), or ``None`` when no
        column would fold away.
    """
    rows = [split_row(line) for line in lines if not _DELIMITER.match(line)]
    delimiter = split_row(lines[1])
    header = rows[0]
    shown = [0] + [header.index(c) for c in columns if c in header and header.index(c) != 0]
    others = [i for i in range(len(header)) if i not in shown]
    if not others or len(shown) < 2:
        return None
    names = ", ".join(html.escape(header[i]) for i in others)
    parts = [
        _table(rows, delimiter, shown),
        "",
        '<details class="more-columns">',
        f"<summary>{len(others)} more column{'s' if len(others) > 1 else ''}: {names} "
        f"(every column: <code>{html.escape(source)}</code>)</summary>",
        "",
    ]
    key = [0] + [i for i in shown[1:] if header[i] == "model"]  # what names a row
    step = chunk if len(key) == 1 else 1  # a row named by two columns leaves room for one
    for start in range(0, len(others), step):
        parts += [_table(rows, delimiter, [*key, *others[start : start + step]]), ""]
    parts.append("</details>")
    return "\n".join(parts)


def fold_wide_tables(
    text: str, columns: Sequence[str], *, source: str, max_columns: int = 7
) -> str:
    """``text`` (markdown) with every table of more than ``max_columns`` columns folded."""
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        is_table = (
            lines[k].lstrip().startswith("|")
            and k + 1 < len(lines)
            and _DELIMITER.match(lines[k + 1].strip())
        )
        if not is_table:
            out.append(lines[k])
            k += 1
            continue
        end = k + 2
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        table = lines[k:end]
        folded = None
        if len(split_row(table[0])) > max_columns:
            folded = fold_table(table, columns, source=source)
        out.extend(table if folded is None else folded.split("\n"))
        k = end
    return "\n".join(out)


def _on_include_read(
    app: Any, relative_path: Path, parent_docname: str, content: list[str]
) -> None:
    """Fold the wide tables of an included file named in ``wide_table_columns``."""
    root = Path(app.srcdir).resolve().parent
    path = (Path(app.srcdir) / relative_path).resolve()
    try:
        key = path.relative_to(root).as_posix()
    except ValueError:
        return
    config: Mapping[str, Sequence[str]] = app.config.wide_table_columns
    if key in config:
        most = app.config.wide_table_max_columns_by_file.get(key, app.config.wide_table_max_columns)
        content[0] = fold_wide_tables(content[0], config[key], source=key, max_columns=most)


def setup(app: Any) -> dict[str, Any]:
    """Register the configuration values and the ``include-read`` handler."""
    app.add_config_value("wide_table_columns", {}, "env")
    app.add_config_value("wide_table_max_columns", 7, "env")
    app.add_config_value("wide_table_max_columns_by_file", {}, "env")
    app.connect("include-read", _on_include_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
