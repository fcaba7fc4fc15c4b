"""Write the task lists of mteb benchmarks, as one mteb release defines them, to a pin file.

The blog post (2025-10-06) read the leaderboard as defined by the mteb release of that
time. Task lists change between releases (RTEB gained SWEbenchCodeRetrieval, CUREv1's
English subset changed), so `analysis` can evaluate a benchmark "as of" a pinned
definition. This script produces such a pin from any mteb version, old or new, using
only attributes that exist across releases (``task.metadata.name``, ``eval_splits``,
``hf_subsets``, ``metadata.type``).

Usage (in an environment where the wanted mteb release is installed, e.g. a throwaway
venv: ``python -m venv /tmp/m && /tmp/m/bin/pip install mteb==1.39.2 'transformers<4.50'``)::

    /tmp/m/bin/python tools/pin_benchmarks.py --label as-of-post \
        --note "last mteb release before the blog post (PyPI upload 2025-10-02)" \
        -o analysis/results/pins/as-of-post.json

"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

BENCHMARKS = [
    "RTEB(beta)",
    "RTEB(eng, beta)",
    "MTEB(eng, v2)",
    "MTEB(Multilingual, v2)",
    "MTEB(eng, v1)",
]


def describe(benchmark_name: str) -> list[dict]:
    import mteb

    bench = mteb.get_benchmark(benchmark_name)
    rows = []
    for task in bench.tasks:
        meta = task.metadata
        rows.append(
            {
                "task": meta.name,
                "type": meta.type,
                "eval_splits": list(task.eval_splits),
                "hf_subsets": sorted(task.hf_subsets) if task.hf_subsets else ["default"],
                "is_public": bool(getattr(meta, "is_public", True)),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--note", default="")
    parser.add_argument("--benchmarks", nargs="*", default=BENCHMARKS)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import mteb

    version = getattr(mteb, "__version__", None)
    if version is None:
        from importlib.metadata import version as pkg_version

        version = pkg_version("mteb")
    pin = {
        "label": args.label,
        "mteb_version": version,
        "note": args.note,
        "benchmarks": {name: describe(name) for name in args.benchmarks},
    }
    args.output.write_text(json.dumps(pin, indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {args.output}: "
        + ", ".join(f"{k} ({len(v)} tasks)" for k, v in pin["benchmarks"].items())
    )


if __name__ == "__main__":
    main()
