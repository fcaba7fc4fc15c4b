"""Result types shared by the statistics functions.

Every public function of :mod:`analysis.stats` returns a frozen dataclass deriving from
:class:`StatsResult`: a short ``repr`` (at most :data:`MAX_REPR_LINES` lines),
``to_frame()`` and a notebook rendering. Subclasses are declared
``@dataclass(frozen=True, repr=False)`` (so this ``__repr__`` is kept) and implement
:meth:`StatsResult.to_frame` and, where the default is not telling, ``_summary_lines``.
"""

from __future__ import annotations

import dataclasses
import html
import math
import operator
from typing import Any, NamedTuple

import pandas as pd

#: The longest ``repr`` a result may have.
MAX_REPR_LINES = 10


class ConfidenceInterval(NamedTuple):
    """A confidence interval; a one-sided interval has an infinite end.

    Examples:
        >>> import math
        >>> from analysis.stats import ConfidenceInterval
        >>> ci = ConfidenceInterval(0.01, 0.05)
        >>> ci.low < 0.03 < ci.high
        True
        >>> low, high = ConfidenceInterval(0.01, math.inf)  # one-sided ("greater")
        >>> high
        inf
    """

    low: float
    high: float


def _short(value: Any) -> str | None:
    """A one-token rendering of a scalar field, or None for fields too big for a repr."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    if isinstance(value, ConfidenceInterval):
        return f"({_short(float(value.low))}, {_short(float(value.high))})"
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, pd.DataFrame):
        return f"<{value.shape[0]} x {value.shape[1]} table>"
    if isinstance(value, (dict, list, tuple)):
        return f"<{len(value)} items>"
    return None


class StatsResult:
    """Base of every statistics result: short repr, ``to_frame()``, notebook rendering."""

    def to_frame(self) -> pd.DataFrame:
        """The result as one table (one row per unit of the result)."""
        raise NotImplementedError

    def _one_row(self, fields: str) -> pd.DataFrame:
        """One row of the space-separated ``fields``; ``column=attribute.path`` renames."""
        row = {}
        for spec in fields.split():
            column, _, path = spec.partition("=")
            row[column] = operator.attrgetter(path or column)(self)
        return pd.DataFrame([row])

    def _summary_lines(self) -> list[str]:
        """Lines of the repr after the class name: ``field=value`` for short fields."""
        shorts = {f.name: _short(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        parts = [f"{name}={text}" for name, text in shorts.items() if text is not None]
        lines, line = [], ""
        for part in parts:
            if line and len(line) + len(part) > 86:
                lines.append(line.rstrip(", "))
                line = ""
            line += part + ", "
        if line:
            lines.append(line.rstrip(", "))
        return lines

    def __repr__(self) -> str:
        """At most :data:`MAX_REPR_LINES` lines; ``to_frame()`` has the rest."""
        body = [f"  {line}" for line in self._summary_lines()]
        if len(body) > MAX_REPR_LINES - 2:
            body = [*body[: MAX_REPR_LINES - 3], "  ... (.to_frame() has the rest)"]
        return "\n".join([f"{type(self).__name__}(", *body, ")"])

    def _repr_html_(self) -> str:
        """Notebook view: the summary lines, then the frame."""
        head = "<br>".join(html.escape(line) for line in self._summary_lines())
        frame = self.to_frame()
        return f"<p><b>{html.escape(type(self).__name__)}</b><br>{head}</p>" + frame.to_html(
            float_format=lambda v: f"{v:.4g}", max_rows=60
        )


class TableResult(StatsResult):
    """A result whose ``table`` (one row per model, pair or predictor) is its frame."""

    table: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The result's table (a copy)."""
        return self.table.copy()
