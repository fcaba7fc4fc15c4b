"""A busy machine beside a measurement: every benchmark here times its "busy" rows this way.

``with cpu_hogs(n):`` starts ``n`` CPU-bound processes (a tight integer loop each, daemonic)
and stops and joins them when the block ends, however it ends. Benchmarks report the
1-minute load average before and after the block beside their figures.
``busy_arguments(parser)`` gives a benchmark's command line its ``--busy`` levels and its
``--note`` about the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
from collections.abc import Iterator
from typing import Any


def _spin(stop: Any) -> None:
    x = 0
    while not stop.is_set():
        for i in range(100_000):
            x ^= i


@contextlib.contextmanager
def cpu_hogs(n: int) -> Iterator[None]:
    """``n`` CPU-bound processes running while the block runs (0: none)."""
    stop = mp.Event()
    hogs = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(n)]
    for hog in hogs:
        hog.start()
    try:
        yield
    finally:
        stop.set()
        for hog in hogs:
            hog.join()


def busy_arguments(parser: argparse.ArgumentParser) -> None:
    """``--busy N [N ...]`` (hogs beside each round, default 0 then 2) and ``--note``."""
    parser.add_argument(
        "--busy", type=int, nargs="+", default=[0, 2], help="CPU hogs beside (cpu_hogs)"
    )
    parser.add_argument(
        "--note", default="", help="a line about the machine's state, e.g. 'a busy shared machine'"
    )
