"""The markdown tables every notebook, bench and command writes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.core.io import markdown_table


def test_every_kind_of_missing_value_is_the_dash() -> None:
    """NaN, None, pandas' NA (nullable integers and booleans) and NaT are all shown as ``na``:
    a table's note says what "—" means (e.g. unknown training data), never "<NA>"."""
    frame = pd.DataFrame(
        {
            "model": ["a", "b|c"],
            "score": [0.12345, np.nan],
            "rank": pd.array([1, None], dtype="Int64"),
            "known": pd.array([True, None], dtype="boolean"),
            "date": pd.to_datetime(["2026-01-15", None]),
            "note": ["", None],
        }
    )
    lines = markdown_table(frame, floatfmt=".3f").splitlines()
    assert lines[0] == "| model | score | rank | known | date | note |"
    assert lines[2] == "| a | 0.123 | 1 | True | 2026-01-15 00:00:00 |  |"
    assert lines[3] == "| b\\|c | — | — | — | — | — |"
    assert markdown_table(frame, na="n/a").splitlines()[3].count("n/a") == 5
