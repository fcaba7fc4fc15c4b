"""Resampling kernels: bootstrap indices and means, the one sign-pattern generator, quantiles.

Vectorised in numpy; memory is bounded by working in blocks. No argument checks here:
the public functions check first.

**Sign patterns.** Every sign-flip test of the package draws its patterns here, so one
seed gives the same patterns in :func:`paired_bootstrap`, :func:`pairwise_significance`,
:func:`rank_intervals` and :func:`compare`: random flips are
``rng.integers(0, 256, (n_resamples, ceil(n / 8)), dtype=uint8)`` unpacked to bits (bit
i set flips unit i), drawn once, before anything else; exact enumeration numbers the
patterns 0, 1, ... (bit i of the number flips unit i).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

_BLOCK = 1 << 22  # elements of one temporary block (32 MiB of float64)
_REL_TOL = 1e-9  # relative tolerance for "as extreme as observed" (float rounding)
_MAX_EXACT_SIGN_FLIP_N = 20  # 2**20 sign patterns at most


def _rows_per_block(row_len: int, total: int, budget: int = _BLOCK) -> int:
    return max(1, min(total, budget // max(row_len, 1)))


# --------------------------------------------------------------------------- bootstrap


def _bootstrap_index_blocks(
    n: int, n_resamples: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Blocks of bootstrap indices, ``rng.integers(0, n, (rows, n))`` each."""
    rows = _rows_per_block(n, n_resamples)
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, n, size=(min(rows, n_resamples - start), n))


def _bootstrap_means(X: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap means of every column of ``X`` (units x columns), rows resampled jointly."""
    n, m = X.shape
    out = np.empty((m, n_resamples))
    start = 0
    for idx in _bootstrap_index_blocks(n, n_resamples, rng):
        rows = idx.shape[0]
        flat = (idx + (np.arange(rows) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(float)
        out[:, start : start + rows] = (counts @ X).T  # (rows, n) @ (n, m): BLAS-friendly
        start += rows
    out /= n
    return out


# --------------------------------------------------------------------------- sign patterns


def _sign_patterns(n: int, start: int, stop: int) -> np.ndarray:
    """Sign patterns number ``start..stop-1`` over n units: bit i of the number flips unit i."""
    return 1.0 - 2.0 * ((np.arange(start, stop)[:, None] >> np.arange(n)) & 1)


def random_sign_bits(n: int, n_patterns: int, rng: np.random.Generator) -> np.ndarray:
    """Random flip indicators (n_patterns x n, 0/1 floats): bit i set flips unit i.

    Drawn as ``rng.integers(0, 256, (n_patterns, ceil(n / 8)), dtype=uint8)`` and
    unpacked (``numpy.unpackbits``, first n bits of each row): one draw, 8 units a byte.
    """
    packed = rng.integers(0, 256, size=(n_patterns, (n + 7) // 8), dtype=np.uint8)
    return np.unpackbits(packed, axis=1, count=n).astype(float)


def maxt_is_exact(n_units: int, n_resamples: int) -> bool:
    """Whether a max-T test enumerates its sign patterns: all 2**(n-1) fit in n_resamples.

    (s and -s give the same two-sided statistic, so half of the 2**n patterns count for
    all.) 14 units or fewer at the default 10,000.
    """
    return n_units <= _MAX_EXACT_SIGN_FLIP_N and 2 ** (n_units - 1) <= n_resamples


@dataclass(frozen=True)
class SignPatterns:
    """The sign patterns of one max-T test: all of them (exact) or random ones.

    Attributes:
        n_units: units (tasks, or clusters of tasks) a pattern flips.
        exact: True: the 2**(n_units - 1) patterns that keep the last unit's sign.
        bits: the random flips (Monte-Carlo), ``n_resamples x n_units`` 0/1, else None.
    """

    n_units: int
    exact: bool
    bits: np.ndarray | None

    @property
    def total(self) -> int:
        """Patterns enumerated or drawn."""
        return 2 ** (self.n_units - 1) if self.exact else len(self.bits)  # type: ignore[arg-type]

    def blocks(self, rows: int) -> Iterator[np.ndarray]:
        """The patterns as +-1 floats, ``rows`` at a time (each block: rows x n_units)."""
        rows = max(1, rows)
        if self.exact:
            for start in range(0, self.total, rows):
                yield _sign_patterns(self.n_units, start, min(start + rows, self.total))
            return
        assert self.bits is not None
        for start in range(0, self.total, rows):
            yield 1.0 - 2.0 * self.bits[start : start + rows]

    def pvalue(self, count: np.ndarray) -> np.ndarray:
        """P-values from counts of patterns at least as extreme (exact or (b+1)/(B+1))."""
        return np.minimum(_pvalue(count, self.total, self.exact), 1.0)

    @property
    def min_pvalue(self) -> float:
        """Smallest attainable two-sided p-value."""
        return 1.0 / self.total if self.exact else 1.0 / (self.total + 1.0)

    def describe(self) -> str:
        """e.g. ``"exact sign flips (2^13=8192 patterns)"``."""
        if self.exact:
            return f"exact sign flips (2^{self.n_units}={2 * self.total} patterns)"
        return f"{self.total} Monte-Carlo sign patterns"


def sign_patterns(n_units: int, n_resamples: int, rng: np.random.Generator) -> SignPatterns:
    """The one sign-pattern generator of the max-T tests (see the module notes)."""
    if maxt_is_exact(n_units, n_resamples):
        return SignPatterns(n_units=n_units, exact=True, bits=None)
    return SignPatterns(
        n_units=n_units, exact=False, bits=random_sign_bits(n_units, n_resamples, rng)
    )


# --------------------------------------------------------------------------- counts, quantiles


def _count_as_extreme(null: np.ndarray, observed: np.ndarray, tol: float) -> np.ndarray:
    """Per row of ``null`` (rows x resamples): how many are as extreme (two-sided, ``tol``)."""
    return (np.abs(null) >= np.abs(np.asarray(observed))[:, None] - tol).sum(axis=1)


def _pvalue(count: np.ndarray, total: int, exact: bool) -> np.ndarray:
    """P-value from the count of resamples at least as extreme as the observed data."""
    count = np.asarray(count, dtype=float)
    return count / total if exact else (count + 1.0) / (total + 1.0)


def permutation_critical(null: np.ndarray, alpha: float) -> tuple[float, int]:
    """The r-th largest of the sorted ``null`` (inf if r = 0) and r: p < alpha allows r above."""
    r = int(np.ceil(alpha * (len(null) + 1) - 1e-9)) - 1
    return (null[-r] / (1 - 1e-12) if r else np.inf), r


def permutation_pvalue(null: np.ndarray, observed: float) -> float:
    """``(b + 1) / (B + 1)``: the share of the absolute ``null`` at least ``|observed|``."""
    return float((1 + (null >= abs(observed) * (1 - 1e-12)).sum()) / (len(null) + 1))


def _min_pvalue(total: int, exact: bool, two_sided_pairs: bool) -> float:
    return (2.0 if two_sided_pairs else 1.0) / total if exact else 1.0 / (total + 1.0)


def _percentile_interval(
    dist: np.ndarray, confidence_level: float, alternative: str
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval per row of ``dist`` (partitioned in place), as scipy's."""
    alpha = 1.0 - confidence_level
    if alternative == "two-sided":
        alpha /= 2.0
    low, high = np.quantile(dist, [alpha, 1.0 - alpha], axis=1, overwrite_input=True)
    inf = np.full(dist.shape[0], np.inf)
    if alternative == "less":
        return -inf, high
    if alternative == "greater":
        return low, inf
    return low, high


# --------------------------------------------------------------------------- clustered units


def unit_sums(X: np.ndarray, codes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows of ``X`` (``(..., tasks, columns)``) summed within clusters.

    ``codes`` (tasks,) are cluster numbers 0..G-1 (None: every task its own unit). Returns
    the (..., G, columns) sums and the tasks per cluster (None without clusters). A sign
    flip of a cluster flips all its tasks together: the test then has G units.
    """
    if codes is None:
        return X, None
    member = np.zeros((int(codes.max()) + 1, len(codes)))
    member[codes, np.arange(len(codes))] = 1.0
    return member @ X, member.sum(axis=1)
