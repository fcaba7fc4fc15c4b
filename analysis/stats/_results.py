"""Result types shared by the statistics functions."""

from __future__ import annotations

from typing import NamedTuple


class ConfidenceInterval(NamedTuple):
    """A confidence interval; a one-sided interval has an infinite end."""

    low: float
    high: float
