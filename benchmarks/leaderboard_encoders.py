"""Which encoder produced the leaderboard's static-model scores: model2vec's or ``StaticEmbedding``.

For every static model (``--models``, a regular expression; default: the potion, M2V and
static-*-mrl models) with scores on MTEB(eng, v2), MTEB(Multilingual, v2) and RTEB(beta)
(``--pins``: mteb's task lists now and as of the post), reads the result files the loader
takes each score from (``load_leaderboards``'s ``revision`` of each (model, task)): the
``mteb_version`` each file was written by, and the loader its revision folder's
``model_meta.json`` names. The encoder follows from the mteb release, by mteb's history
(embeddings-benchmark/mteb, read with git):

- before 1.21.8 mteb had no model2vec model: ``mteb/models/model2vec_models.py`` with its
  ``Model2VecWrapper`` (``StaticModel.encode``) arrived in 1.21.8 (commit 2ee8d44e9,
  2024-12-06); a file written by an older mteb was run by its submitter's own code, which
  the file does not record;
- from 1.21.8 to 2.13.1 the potion and M2V ModelMetas load with ``Model2VecWrapper``, then
  ``Model2VecModel``: model2vec's ``StaticModel.encode``;
- from 2.13.2 they load with ``SentenceTransformerEncoderWrapper``: sentence-transformers'
  ``StaticEmbedding`` (PR #4649, "Depreciate Model2VecModel and use
  SentenceTransformerEncoderWrapper instead", commit 0a1f8b6c1, 2026-05-12; first
  release containing it: 2.13.2);
- the static-*-mrl models are sentence-transformers models (no model2vec format), loaded
  with sentence-transformers in every release: ``StaticEmbedding``.

Writes benchmarks/results/leaderboard_encoders.md.

    python benchmarks/leaderboard_encoders.py --results ../shared/mteb-cache
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
BENCHMARKS = ("MTEB(eng, v2)", "MTEB(Multilingual, v2)", "RTEB(beta)")
STATIC = r"^minishlab/(?:potion-|M2V_)|^sentence-transformers/static-.*-mrl"
#: The mteb releases of the history above.
MODEL2VEC_WRAPPER_FROM = "1.21.8"
STATIC_EMBEDDING_FROM = "2.13.2"
MODEL2VEC = "model2vec `StaticModel.encode`"
STATIC_EMBEDDING = "sentence-transformers `StaticEmbedding`"


def encoder(version: str | None, model2vec_model: bool) -> str:
    """The encoder mteb ``version`` ran the model with (see the module docstring)."""
    from packaging.version import InvalidVersion, Version

    if not version:
        return "unknown (the file has no mteb_version)"
    try:
        release = Version(version)
    except InvalidVersion:
        return f"unknown (mteb_version {version!r})"
    if not model2vec_model:
        return STATIC_EMBEDDING
    if release < Version(MODEL2VEC_WRAPPER_FROM):
        return f"not recorded (mteb < {MODEL2VEC_WRAPPER_FROM} had no model2vec wrapper)"
    if release < Version(STATIC_EMBEDDING_FROM):
        return MODEL2VEC
    return STATIC_EMBEDDING


def model2vec_models() -> frozenset[str]:
    """The models mteb registers in its model2vec module (the potion and M2V family)."""
    from mteb.models import ModelMeta
    from mteb.models.model_implementations import model2vec_models as module

    return frozenset(
        str(value.name) for value in vars(module).values() if isinstance(value, ModelMeta)
    )


def file_facts(source: str, name: str, revision: str, task: str) -> tuple[str | None, str]:
    """``(mteb_version, loader in model_meta.json)`` of one result file of ``source``."""
    from analysis.core.errors import model_folder_name
    from analysis.results.folder import result_roots

    for root in result_roots(Path(source)):
        folder = root / model_folder_name(name) / revision
        if (folder / f"{task}.json").is_file():
            version = json.loads((folder / f"{task}.json").read_text(encoding="utf-8"))
            meta = folder / "model_meta.json"
            loader = (
                json.loads(meta.read_text(encoding="utf-8")).get("loader")
                if meta.is_file()
                else None
            )
            return version.get("mteb_version"), str(loader or "—")
    raise FileNotFoundError(f"no result file of {name} {revision} {task} in {source}")


def rows(board: Any, pin: str, pattern: str, family: frozenset[str]) -> list[dict[str, Any]]:
    """One row per (static model, revision) of ``board``: its files' versions and encoders."""
    scores = board.scores[board.scores["model"].str.contains(pattern, regex=True)]
    out = []
    for (model, revision), group in scores.groupby(["model", "revision"], sort=True):
        facts = [
            file_facts(s, model, revision, t)
            for s, t in zip(group["source"], group["task"], strict=True)
        ]
        versions = Counter(version or "none" for version, _ in facts)
        encoders = Counter(encoder(version, model in family) for version, _ in facts)
        out.append(
            {
                "benchmark": board.name,
                "pin": pin,
                "model": model,
                "revision": revision[:12],
                "tasks": len(group),
                "mteb_version (files)": ", ".join(
                    f"{v} ({n})" for v, n in sorted(versions.items())
                ),
                "model_meta.json loader": ", ".join(sorted({loader for _, loader in facts})),
                "encoder (tasks)": ", ".join(f"{e} ({n})" for e, n in sorted(encoders.items())),
            }
        )
    return out


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """The number of (model, task) scores of each encoder, per benchmark and pin."""
    parts = frame.assign(part=frame["encoder (tasks)"].str.split(", ")).explode("part")
    counted = parts["part"].str.extract(r"^(?P<encoder>.*) \((?P<n>\d+)\)$")
    parts = parts.assign(encoder=counted["encoder"], n=counted["n"].astype(int))
    table = parts.pivot_table(
        index=["benchmark", "pin"], columns="encoder", values="n", aggfunc="sum", fill_value=0
    )
    return table.reset_index().rename_axis(columns=None)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=str(SHARED / "mteb-cache"))
    parser.add_argument("--models", default=STATIC, help="regular expression of model names")
    parser.add_argument("--pins", nargs="+", default=["now", "as-of-post"])
    parser.add_argument(
        "--out", type=Path, default=REPO / "benchmarks/results/leaderboard_encoders.md"
    )
    args = parser.parse_args(argv)
    import mteb

    from analysis import load_leaderboards
    from analysis.core.errors import IncompleteBenchmarkWarning
    from analysis.core.io import atomic_write_text, markdown_table

    family = model2vec_models()
    table: list[dict[str, Any]] = []
    for pin in args.pins:
        with warnings.catch_warnings():  # incomplete means: this table reads scores, not means
            warnings.simplefilter("ignore", IncompleteBenchmarkWarning)
            boards = load_leaderboards(list(BENCHMARKS), results=args.results, pin=pin)
        for board in boards.values():
            table += rows(board, pin, args.models, family)
    frame = pd.DataFrame(table)
    lines = [
        f"<!-- generated by: python benchmarks/leaderboard_encoders.py --results {args.results} "
        f"(mteb {mteb.__version__}); do not edit by hand -->",
        "",
        f"Static models matching `{args.models}`; each score's result file, as the loader "
        "reads it (`revision` of `Leaderboard.scores`). The encoder follows from the file's "
        f"`mteb_version` by mteb's history: model2vec's encoder from mteb {MODEL2VEC_WRAPPER_FROM} "
        f"to the release before {STATIC_EMBEDDING_FROM}, `StaticEmbedding` from "
        f"{STATIC_EMBEDDING_FROM} on (PR #4649), `StaticEmbedding` always for the "
        "sentence-transformers static-*-mrl models (the script's docstring has the sources). "
        "A revision folder holds one `model_meta.json`, rewritten by each run: it names the "
        "loader of the folder's last run, not of every file in it.",
        "",
        "**(model, task) scores by encoder**",
        "",
        markdown_table(summary(frame)),
        "**Per model and revision**",
        "",
        markdown_table(frame),
    ]
    atomic_write_text(args.out, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
