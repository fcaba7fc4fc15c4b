"""Seed streams: one independent random generator per table or figure, derived by name.

A notebook has one ``seed`` parameter. If all its tables drew from one shared generator, adding a
claim would change the Monte-Carlo draws of every table after it. Here each table draws from its own
stream, ``numpy.random.SeedSequence(seed, spawn_key=(k,))`` with ``k`` a hash of the table's name:
exactly the child that ``SeedSequence(seed).spawn`` would give at position ``k``. The stream depends
only on the seed and the name, so adding, removing or reordering other tables never changes it.
"""

from __future__ import annotations

import hashlib
import numbers

import numpy as np


def stream_key(name: str) -> int:
    """The spawn key of a name: the first 8 bytes of its SHA-256, as an unsigned integer.

    Stable across processes, platforms and Python versions (unlike ``hash``).
    """
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "little")


def seed_sequence(seed: int, *key: str) -> np.random.SeedSequence:
    """The :class:`numpy.random.SeedSequence` of the stream ``key`` under ``seed``.

    Args:
        seed: The notebook's seed, a non-negative integer.
        key: One or more names (e.g. the table's name, then a sub-analysis); each adds
            one level of ``spawn``.

    Raises:
        TypeError: ``seed`` is not an integer or a key part is not a string.
        ValueError: ``seed`` is negative, or no key is given.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer, got {seed!r} ({type(seed).__name__}).")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}.")
    if not key:
        raise ValueError("name the stream: seed_sequence(seed, 'table_name').")
    bad = [part for part in key if not isinstance(part, str) or not part]
    if bad:
        raise TypeError(f"stream names must be non-empty strings, got {bad!r}.")
    return np.random.SeedSequence(int(seed), spawn_key=tuple(stream_key(part) for part in key))


def seed_stream(seed: int, *key: str) -> np.random.Generator:
    """A fresh generator for the stream ``key`` under ``seed`` (see :func:`seed_sequence`).

    Example:
        >>> a = seed_stream(1, "significance_claims").random()
        >>> a == seed_stream(1, "significance_claims").random()
        True
        >>> a == seed_stream(1, "significance_pairwise").random()
        False
    """
    return np.random.default_rng(seed_sequence(seed, *key))
