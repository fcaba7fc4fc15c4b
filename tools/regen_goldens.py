"""Regenerate the golden markdown tables of tests/golden/ from the shared results snapshot.

The golden files pin the blog's regenerated tables; tests/results/test_blog.py compares against
them and never writes them. Run this after a deliberate change (new mteb pin, loader
change), review the diff, and commit it:

    python tools/regen_goldens.py --results ../shared/mteb-cache
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="../shared/mteb-cache", help="ResultCache folder")
    parser.add_argument(
        "--post",
        default="../shared/reference/blog-evaluating-static-models-on-rteb.md",
        help="the blog post's markdown",
    )
    parser.add_argument("--out", default=str(REPO / "tests" / "golden"), help="golden folder")
    parser.add_argument("--check", action="store_true", help="only report files that differ")
    args = parser.parse_args(argv)

    from analysis.core.io import atomic_write_text
    from analysis.core.paths import from_root
    from analysis.results import blog
    from analysis.results.leaderboard import load_leaderboards

    post = blog.parse_blog_tables(from_root(args.post))
    names = sorted({*blog.MTEB_BENCHMARKS.values(), *blog.RTEB_BENCHMARKS.values()})
    changed = []
    for pin in ("as-of-post", "now"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            boards = load_leaderboards(
                names, results=from_root(args.results), models=list(post.mteb["model"]), pin=pin
            )
        for name, text in blog.golden_tables(post, boards, pin).items():
            target = Path(args.out) / name
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                changed.append(name)
                if not args.check:
                    atomic_write_text(target, text)
    verb = "differ" if args.check else "rewritten"
    print(f"{len(changed)} golden file(s) {verb}: {', '.join(changed) or '-'}")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
