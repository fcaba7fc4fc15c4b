"""Notebook prose types no number that comes from data.

What a reader of a notebook reads as text: its markdown cells, and the literal parts of the
text its code writes (``nb.md``; the ``title``, ``note`` and ``label`` of tables and
figures; axis titles). A number there is either computed (an f-string's field: not a
literal part) or part of a definition listed in :data:`DEFINITIONS` with the reason it is
not data. A count of tasks or models, a parameter's value or a threshold of a derived file
typed into the text goes stale when the data, the parameter or the file changes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import jupytext
import pytest

from tests.conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.py"))
#: A number standing alone: not a part of a name (``v2``, ``nDCG@10``, ``mteb#3933``,
#: ``2^n``, ``2/2ⁿ``), of a path, or of a parenthesised name such as ``MTEB(eng, v2)``.
NUMBER = re.compile(r"(?<![\w@#.\-/(^ⁿ])[-+]?\d+(?:\.\d+)*%?(?![\w)/ⁿ^])")
#: A list item's or a heading's number ("1. error ...", "## 2. MiniLM ...").
ENUMERATOR = re.compile(r"^(#+ |\s*)\d+\. ", re.M)
#: What a number may stand in: (notebook, the text around it) -> why it is not data.
DEFINITIONS: dict[tuple[str, str], str] = {
    (
        "blog_tables.py",
        "as mteb 1.39.2 defined them",
    ): "the as-of-post pin is named by its mteb release",
    ("goodhart_audit.py", "in January 2026 (mteb#3933)"): "a date in the leaderboard's history",
    ("goodhart_audit.py", "is unknown, never 0."): "zero is the value unknown must not become",
    ("goodhart_audit.py", "its interval excludes 0"): "zero: the null value",
    ("goodhart_audit.py", "relative private mean, 0-1 scale"): "the score scale",
    ("leaderboard_uncertainty.py", "runs from 1 + the number"): "the rank interval's formula",
    ("leaderboard_uncertainty.py", "rank: 1 = best"): "the rank scale",
    ("leaderboard_uncertainty.py", "rank_high: 1 + models"): "the rank interval's formula",
    ("leaderboard_uncertainty.py", "from rank 1 at"): "the leader's rank",
    ("leaderboard_uncertainty.py", "Mean (Task) x 100"): "the score scale",
    ("distill_and_place.py", "rank 1 = best"): "the rank scale",
    ("my_model.py", "score ×100"): "the score scale",
    ("public_private_gap.py", "(> 0: climbs"): "the sign convention",
    ("public_private_gap.py", "interval excludes 0"): "zero: the null value",
    ("rank_correlations.py", "et al. 2024, arXiv:2407.13696"): "a citation",
    ("rank_correlations.py", "Rank 1 = best"): "the rank scale",
    ("rank_correlations.py", "median and 2.5-97.5% range"): "benchmark_agreement's fixed quantiles",
    ("run_models.py", "main score, 0-1 scale"): "the score scale",
    ("significance.py", "excludes 0"): "zero: the null value",
    ("significance.py", "score ×100"): "the score scale",
}
_TEXT_KEYWORDS = ("title", "note", "label")
_TEXT_METHODS = ("set_title", "set_xlabel", "set_ylabel", "suptitle")


def _literal_parts(call: ast.Call) -> Iterator[str]:
    """The literal text a call writes for a reader (an f-string's format specs left out)."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    roots = [k.value for k in call.keywords if k.arg in _TEXT_KEYWORDS]
    if name == "md" or name in _TEXT_METHODS:
        roots += call.args[:1]
    specs = {
        id(node)
        for field in ast.walk(call)
        if isinstance(field, ast.FormattedValue) and field.format_spec is not None
        for node in ast.walk(field.format_spec)
    }
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) not in specs:
                    yield node.value


def prose(path: Path) -> list[str]:
    """Every text of a notebook a reader reads: markdown cells, then what its code writes.

    Each as one line: a list item's or a heading's number dropped, whitespace runs as one
    space (a markdown cell's line breaks are spaces to its reader).
    """
    texts = [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]
    calls = (
        n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)
    )
    texts += [text for call in calls for text in _literal_parts(call)]
    return [" ".join(ENUMERATOR.sub(r"\1", text).split()) for text in texts]


def typed_numbers(path: Path) -> list[str]:
    """The numbers typed into ``path``'s prose outside :data:`DEFINITIONS`, in context."""
    allowed = [text for (name, text) in DEFINITIONS if name == path.name]
    found = []
    for text in prose(path):
        for words in allowed:
            text = text.replace(words, "")
        found += [text[max(0, m.start() - 40) : m.end() + 20] for m in NUMBER.finditer(text)]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_prose_types_no_number_from_data(path: Path) -> None:
    assert typed_numbers(path) == [], (
        "a number typed into the prose: compute it in an f-string, or (a definition, not "
        "data) add the words around it to DEFINITIONS with the reason"
    )


def test_every_definition_is_still_in_its_notebook() -> None:
    stale = [
        key
        for key in DEFINITIONS
        if not any(key[1] in text for text in prose(REPO / "notebooks" / key[0]))
    ]
    assert stale == []


def test_the_check_finds_typed_numbers_and_passes_computed_ones(tmp_path: Path) -> None:
    notebook = tmp_path / "demo.py"
    notebook.write_text(
        "# %% [markdown]\n# RTEB(beta) has 16 public tasks; v2 and nDCG@10 are names.\n"
        "# ## 2. A section\n\n# %%\n"
        'nb.md(f"{n} of {k} models ({share:.0%}) at 95% confidence")\n'
        'nb.table(t, "x", title="top 8 models", note=f"{m} shown")\n'
    )
    found = typed_numbers(notebook)
    assert [re.search(r"\d+%?", f).group() for f in found] == ["16", "95%", "8"], found
