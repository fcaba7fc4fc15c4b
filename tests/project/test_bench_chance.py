"""The chance columns of the estimate benchmark's section 6 (``benchmarks/bench_estimate_newer.py``).

They say whether a coverage below a target could come from an interval that holds its
level: checked against scipy's binomial test and against a simulation of such intervals.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.conftest import REPO, load_file


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    load_file(REPO / "benchmarks" / "_estimate_limits.py", "_estimate_limits")  # its import
    return load_file(REPO / "benchmarks" / "bench_estimate_newer.py", "bench_estimate_newer")


@pytest.mark.parametrize("n", [15, 50, 85, 147, 191])
def test_band_chance_is_what_calibrated_intervals_reach(bench: ModuleType, n: int) -> None:
    """Simulated: each of n models covered with probability 0.95, independently."""
    covered = np.random.default_rng(n).random((100_000, n)) < 0.95
    rate = covered.mean(axis=1)
    simulated = np.mean((rate >= 0.93 - 1e-12) & (rate <= 0.97 + 1e-12))
    assert bench.band_chance(n) == pytest.approx(simulated, abs=0.006)  # 4 standard errors


def test_cut_chance_is_scipys_one_sided_binomial_test(bench: ModuleType) -> None:
    covered = np.r_[np.ones(15, bool), np.zeros(5, bool), np.ones(38, bool), np.zeros(2, bool)]
    frame = pd.DataFrame(
        {"cut": np.repeat(["2024-06-01", "2024-07-01"], [20, 40]), "covered": covered}
    )
    frame["level"] = np.where(frame["cut"] == "2024-06-01", 0.95, 0.9)  # a small cut's level
    table = bench.cut_chance(frame).set_index("cut")
    for cut, n, hit, level in (("2024-06-01", 20, 15, 0.95), ("2024-07-01", 40, 38, 0.9)):
        row = table.loc[cut]
        assert row["n"] == n and row["coverage"] == hit / n
        want = stats.binomtest(hit, n, level, alternative="less").pvalue
        assert row["p_low"] == pytest.approx(want, rel=1e-9)
        below = sum(stats.binom.pmf(x, n, level) for x in range(n + 1) if x / n < 0.85)
        assert row["p_below_085"] == pytest.approx(below, rel=1e-9)


def test_random_chance_is_the_two_sided_test_and_the_band(bench: ModuleType) -> None:
    covered = np.r_[np.ones(84, bool), np.zeros(1, bool)]
    got = bench.random_chance(covered)
    assert got["random split p"] == pytest.approx(stats.binomtest(84, 85, 0.95).pvalue)
    assert got["random split band chance"] == bench.band_chance(85)
