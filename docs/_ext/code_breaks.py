"""Inline code wraps at sensible points only: after the separators of a long name or path.

Sphinx writes inline code as ``<code class="... literal ..."><span class="pre">word</span>
<span class="pre">word</span></code>``, one span per word, each kept on one line
(``white-space: nowrap``). A long dotted name or path
(``analysis.results.clusters.task_clusters(benchmark)``) is one word: with nothing to break
it at, it pushes its table or heading wider than the column; with ``overflow-wrap:
anywhere`` (this site's earlier CSS) it broke at any letter (``task_clu`` / ``sters``) and
at the hyphens of a flag (``--max-`` / ``parallel``).

This splits such a word, as the page is written (``html-page-context``), into one span per
part with a ``<wbr>`` between them: a line may end after a dot, slash or underscore between
two parts of a word longer than :data:`MIN_CHARS`, or after an opening bracket, a comma,
an ``=`` or a ``|`` with more after it; nowhere else (not inside a number, ``0.05`` or
``10_000``, and not at a flag's hyphens). ``<wbr>`` adds no character: a copied name is
unchanged, and the sources and the search index keep the text as it is. Two other places
get the same break points as plain text: a heading's words (a module's name, a path in an
included file's heading) and a cross-reference shown as a bare dotted name (the API page's
"Type:" fields). ``docs/_static/layout.css`` explains the rest of the wrapping.
"""

from __future__ import annotations

import html
import re
from typing import Any

#: Words of at most this many characters stay whole: ``rank_low`` never wraps as ``rank_``.
MIN_CHARS = 12

_CODE = re.compile(r'(<code class="[^"]*\bliteral\b[^"]*">)(.*?)(</code>)', re.S)
_WORD = re.compile(r'<span class="pre">([^<]*)</span>')
# A cross-reference written as a bare dotted name, not as code (the API page's "Type:").
_NAME_LINK = re.compile(r'(<a class="reference[^"]*"[^>]*>)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(</a>)')
_HEADING = re.compile(r"(<h([1-6])\b[^>]*>)(.*?)(</h\2>)", re.S)
_TAG = re.compile(r"(<[^>]+>)")
# After a separator that joins two parts: a dot or an underscore between letters (not a
# number's point, not 10_000; not after a one-letter prefix such as n_), a slash after a
# name or a placeholder (<org>/), an opening bracket, a comma, "=" or "|" before more.
_AFTER = re.compile(
    r"(?<=[^\W\d]{2}[._])(?=[^\W\d])|(?<=[\w>)\]]/)(?=\S)|(?<=\S[(\[,=|])(?=[^\s)\]])"
)


def split_word(word: str) -> list[str]:
    """``word`` (HTML, as Sphinx escaped it) cut at its sensible break points.

    Returns:
        The parts, escaped again; ``[word]`` unchanged when it is short or has none.
    """
    text = html.unescape(word)
    parts = _AFTER.split(text) if len(text) > MIN_CHARS else [text]
    return [word] if len(parts) == 1 else [html.escape(part) for part in parts]


def add_breaks(body: str) -> str:
    """A page's HTML body with the break points of its inline code, headings and names."""

    def code_word(match: re.Match[str]) -> str:
        spans = [f'<span class="pre">{part}</span>' for part in split_word(match.group(1))]
        return "<wbr>".join(spans)

    def code(match: re.Match[str]) -> str:
        opening, inner, closing = match.groups()
        return opening + _WORD.sub(code_word, inner) + closing

    def text(words: str) -> str:
        return re.sub(r"[^\s<>]+", lambda w: "<wbr>".join(split_word(w.group(0))), words)

    def name_link(match: re.Match[str]) -> str:
        return match.group(1) + text(match.group(2)) + match.group(3)

    def heading(match: re.Match[str]) -> str:
        opening, _level, inner, closing = match.groups()
        parts = _TAG.split(inner)  # text, tag, text, ...: the words between the tags
        parts[::2] = [text(part) for part in parts[::2]]
        return opening + "".join(parts) + closing

    return _HEADING.sub(heading, _NAME_LINK.sub(name_link, _CODE.sub(code, body)))


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if "body" in context:
        context["body"] = add_breaks(context["body"])


def setup(app: Any) -> dict[str, Any]:
    """Register the ``html-page-context`` handler."""
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
