"""Notebook prose types no number that comes from data.

What a reader of a notebook can read as text: its markdown cells, and every string its code
holds with a space in it (sentences for ``nb.md``, titles, notes, axis labels, column
headers, the parts of an f-string around its fields; an f-string's format specs are not
text). Every string, not a list of the calls that write text, so that a sentence built
in a helper or a variable first is read too. A number there is either computed (an
f-string's field) or part of a definition listed in :data:`DEFINITIONS` or
:data:`EVERYWHERE` with the reason it is not data: a count of tasks or models, a
parameter's value or a library's threshold typed into the text goes stale when the data,
the parameter or the library changes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext
import pytest

from tests.conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.py"))
#: A number standing alone ("16", "95%", "0.05", ".05"), not a part of a name (``v2``,
#: ``nDCG@10``, ``mteb#3933``, ``2^n``, ``2/2ⁿ``) or of a path.
NUMBER = re.compile(r"(?<![\w@#.\-/^ⁿ])[-+]?(?:\d+(?:\.\d+)*|\.\d+)%?(?![\w/ⁿ^])")
#: A list item's or a heading's number ("1. error ...", "## 2. MiniLM ...").
ENUMERATOR = re.compile(r"^(#+ |\s*)\d+\. ", re.M)
#: Definitions any notebook may state: the words around the number -> why it is not data.
EVERYWHERE: dict[str, str] = {
    "×100": "the score scale",
    "x 100": "the score scale",
    "0-1 scale": "the score scale",
    "1 = best": "the rank scale",
    "excludes 0": "zero: the null value",
}
#: One notebook's definitions: (notebook, the words around the number) -> why.
DEFINITIONS: dict[tuple[str, str], str] = {
    ("blog_tables.py", "as mteb 1.39.2 defined them"): "the pin is named by its mteb release",
    ("blog_tables.py", 'on RTEB" (2025-10-06)'): "the post's date: a citation",
    ("goodhart_audit.py", "in January 2026 (mteb#3933)"): "a date in the leaderboard's history",
    ("goodhart_audit.py", "is unknown, never 0."): "zero is the value unknown must not become",
    ("goodhart_audit.py", "a side under 2 tasks has no spread"): "a spread needs two values",
    ("goodhart_audit.py", "it sums to 0 over the"): "relative advantages sum to zero by definition",
    ("goodhart_audit.py", "> 0: climbs on private"): "the sign convention",
    ("goodhart_audit.py", "(> 0: the model does better"): "the sign convention",
    ("goodhart_audit.py", "(> 0: the public mean predicts"): "the sign convention",
    ("leaderboard_uncertainty.py", "runs from 1 + the number"): "the rank interval's formula",
    ("leaderboard_uncertainty.py", "rank_high: 1 + models"): "the rank interval's formula",
    ("leaderboard_uncertainty.py", "from rank 1 at"): "the leader's rank",
    ("leaderboard_uncertainty.py", "must be 1 - confidence_level"): "the parameters' relation",
    ("public_private_gap.py", "(> 0: climbs"): "the sign convention",
    ("public_private_gap.py", "(its footnote 3)"): "the post's footnote: a citation",
    ("rank_correlations.py", "(Perlitz et al. 2024, arXiv:2407.13696"): "a citation",
    ("rank_correlations.py", "2.5-97.5%"): "benchmark_agreement's fixed quantiles",
    ("significance.py", "JMLR 2016"): "a citation",
}


def _strings(path: Path) -> list[str]:
    """Every string of the code with a space in it, f-strings' literal parts included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    specs = {
        id(node)
        for field in ast.walk(tree)
        if isinstance(field, ast.FormattedValue) and field.format_spec is not None
        for node in ast.walk(field.format_spec)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in specs and " " in node.value
    ]


def prose(path: Path) -> list[str]:
    """What a reader can read of a notebook: markdown cells, then its code's strings.

    Each as one line: a list item's or a heading's number dropped, whitespace runs as one
    space (a markdown cell's line breaks are spaces to its reader).
    """
    texts = [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]
    return [" ".join(ENUMERATOR.sub(r"\1", text).split()) for text in texts + _strings(path)]


def typed_numbers(path: Path) -> list[str]:
    """The numbers typed into ``path``'s prose outside the definitions, in context."""
    allowed = [*EVERYWHERE, *(text for (name, text) in DEFINITIONS if name == path.name)]
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
    texts = {path.name: prose(path) for path in NOTEBOOKS}  # each notebook read once
    everywhere = [
        words for words in EVERYWHERE if not any(words in t for ts in texts.values() for t in ts)
    ]
    stale = [key for key in DEFINITIONS if not any(key[1] in t for t in texts.get(key[0], []))]
    assert everywhere + stale == []


def test_the_check_finds_typed_numbers_and_passes_computed_ones(tmp_path: Path) -> None:
    notebook = tmp_path / "demo.py"
    notebook.write_text(
        "# %% [markdown]\n# RTEB(beta) has 16 public tasks; v2 and nDCG@10 are names.\n"
        "# ## 2. A section\n\n# %%\n"
        'nb.md(f"{n} of {k} models ({share:.0%}) at 95% confidence")\n'
        'nb.table(t, "x", title="top 8 models (score ×100)", note=f"{m} shown")\n'
        'sentence = f"significant at .05 (the {n} tasks)"\n'
        'ax.set(xlabel="rank among 41 tasks")\n'
    )
    found = typed_numbers(notebook)
    assert sorted(NUMBER.search(f).group() for f in found) == [".05", "16", "41", "8", "95%"]
