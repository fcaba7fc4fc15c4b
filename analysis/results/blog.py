"""The blog post's two tables: read them from the post, regenerate them from results.

The post's values are *read from the post* (``shared/reference/blog-...md``) so the
comparison never types a score into code. Regenerated values come from
:func:`analysis.results.leaderboard.load_leaderboards`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.io import markdown_table
from ..core.paths import from_root, shared_dir
from .groups import model_groups
from .leaderboard import Leaderboard

#: The post's file name in the shared folder's ``reference/``.
POST_NAME = "blog-evaluating-static-models-on-rteb.md"


def default_post() -> Path:
    """The post in ``$SHARED_DIR/reference/``, else in ``../shared/reference/`` beside the repo."""
    return shared_dir() / "reference" / POST_NAME


_LINK = re.compile(r"\[(?P<label>[^\]]+)\]\(https?://huggingface\.co/(?P<model>[^)\s]+)\)")


@dataclass(frozen=True)
class BlogTables:
    """The post's tables, one row per model.

    Attributes:
        mteb: columns ``model``, ``name``, ``mteb_avg``, ``subset`` (``english`` or
            ``multilingual``), ``mteb_avg_decimals``.
        rteb: columns ``model``, ``name``, ``public``, ``private`` and their decimals.
    """

    mteb: pd.DataFrame
    rteb: pd.DataFrame


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def _tables(text: str) -> list[list[list[str]]]:
    runs = itertools.groupby(text.splitlines(), key=lambda line: line.lstrip().startswith("|"))
    return [[_cells(line) for line in lines] for in_table, lines in runs if in_table]


def _score_columns(
    rows: list[tuple[re.Match[str], list[str]]], names: list[str]
) -> dict[str, list[Any]]:
    """``model``, ``name`` (from the link), then each score cell and its decimals, in order."""
    out: dict[str, list[Any]] = {
        "model": [link["model"] for link, _ in rows],
        "name": [link["label"] for link, _ in rows],
    }
    for i, name in enumerate(names):
        out[name] = [float(cells[i]) for _, cells in rows]
        out[f"{name}_decimals"] = [_decimals(cells[i]) for _, cells in rows]
    return out


def parse_blog_tables(path: str | Path) -> BlogTables:
    """Read the MTEB-average and RTEB tables from the blog post's markdown.

    Model ids come from the Hugging Face links in the Name column.

    Raises:
        FileNotFoundError: the post is not at ``path``.
        ValueError: the post does not hold the two expected tables.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"Blog post not found at {path}. Set SHARED_DIR to the shared folder that holds "
            f"reference/{POST_NAME} (default: ../shared beside the repository); the notebook "
            "blog_tables also takes the post's path as its parameter `blog_path`."
        )
    found: dict[str, pd.DataFrame] = {}
    for table in _tables(path.read_text(encoding="utf-8")):
        rows = [(link, r[1:]) for r in table[2:] if r and (link := _LINK.search(r[0]))]
        if table[0][1:3] == ["MTEB avg score", "MTEB subset"]:
            subset = {"subset": [cells[1] for _, cells in rows]}
            found["mteb"] = pd.DataFrame(_score_columns(rows, ["mteb_avg"]) | subset)
        elif table[0][1:3] == ["RTEB public score", "RTEB private score"]:
            found["rteb"] = pd.DataFrame(_score_columns(rows, ["public", "private"]))
    if set(found) != {"mteb", "rteb"}:
        raise ValueError(f"{path} does not hold both blog tables (found: {sorted(found)}).")
    return BlogTables(found["mteb"], found["rteb"])


def post_models(path: str | Path | None = None) -> list[str]:
    """The models the post compares, in the order of its RTEB table (read from the post).

    Args:
        path: The post's markdown (a relative path is taken from the repository root);
            None: :func:`default_post`.

    Returns:
        Hugging Face model ids.
    """
    return list(parse_blog_tables(from_root(path or default_post())).rteb["model"])


def post_comparisons(path: str | Path | None = None) -> list[tuple[str, str, str]]:
    """The post's comparisons: per MTEB subset, (supervised, distilled, subset).

    The subset (``english``, ``multilingual``) comes from the post's MTEB table; which
    model is supervised and which distilled comes from their model cards
    (:func:`analysis.results.groups.model_groups`, ``static_kinds.csv``).

    Raises:
        ValueError: a subset does not hold exactly one supervised and one distilled static model.
    """
    mteb_table = parse_blog_tables(from_root(path or default_post())).mteb
    kinds = model_groups(mteb_table["model"]).set_index("model")["static_kind"]
    pairs = []
    for subset, rows in mteb_table.groupby("subset", sort=False):
        by_kind = {kinds[m]: m for m in rows["model"]}
        if set(by_kind) != {"supervised", "distilled"} or len(rows) != 2:
            raise ValueError(
                f"The post's {subset!r} models {list(rows['model'])} are not one supervised "
                f"and one distilled static model (model_groups says {dict(kinds[rows['model']])})."
            )
        pairs.append((by_kind["supervised"], by_kind["distilled"], str(subset)))
    return pairs


#: The model2vec partial-results report in the shared folder's ``reference/``.
REPORT_NAME = "model2vec-mteb-partial-results-report.md"


def report_scores(path: str | Path | None = None) -> pd.DataFrame:
    """The "Completed Tasks" table of the model2vec partial-results report.

    Returns:
        Columns ``task``, ``category``, ``score`` (0-1 scale, as the report prints it).

    Raises:
        FileNotFoundError: the report is not there.
        ValueError: it holds no such table.
    """
    path = from_root(path) if path else default_post().parent / REPORT_NAME
    if not path.is_file():
        raise FileNotFoundError(f"The model2vec report is not at {path}; pass its path.")
    for table in _tables(path.read_text(encoding="utf-8")):
        if table[0][:3] == ["Task", "Category", "Score"]:
            rows = [r[:3] for r in table[2:] if len(r) >= 3]
            frame = pd.DataFrame(rows, columns=["task", "category", "score"])
            return frame.astype({"score": float})
    raise ValueError(f"{path} holds no 'Task | Category | Score' table.")


#: The benchmarks behind the post's tables, per MTEB subset of its MTEB table.
MTEB_BENCHMARKS = {"english": "MTEB(eng, v2)", "multilingual": "MTEB(Multilingual, v2)"}
RTEB_BENCHMARKS = {"english": "RTEB(eng, beta)", "multilingual": "RTEB(beta)"}


def golden_tables(post: BlogTables, boards: Mapping[str, Leaderboard], pin: str) -> dict[str, str]:
    """The two regenerated tables as markdown, keyed by golden file name.

    ``tools/regen_goldens.py`` writes them to ``tests/golden/``; ``tests/results/test_blog.py``
    compares against those files and never writes them.
    """
    mteb_table, rteb_table = regenerate(
        post, boards, mteb_benchmarks=MTEB_BENCHMARKS, rteb_benchmarks=RTEB_BENCHMARKS
    )
    return {
        f"blog_mteb_table.{pin}.md": markdown_table(
            mteb_table[["Name", "MTEB avg score", "MTEB subset"]]
        ),
        f"blog_rteb_table.{pin}.md": markdown_table(
            rteb_table[["Name", "RTEB public score", "RTEB private score"]]
        ),
    }


def _value(lb: Leaderboard, model: str, column: str) -> float:
    if model not in lb.summary.index:
        return float("nan")
    return float(lb.summary.loc[model, column]) * 100


def regenerate(
    blog: BlogTables,
    leaderboards: Mapping[str, Leaderboard],
    *,
    mteb_benchmarks: Mapping[str, str],
    rteb_benchmarks: Mapping[str, str],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Recompute both tables (0-100 scale) with the models and subsets of the post.

    Each model is scored on the benchmark of its subset (the post's "MTEB subset"
    column): ``mteb_benchmarks[subset]`` for the MTEB average (Mean (Task)) and
    ``rteb_benchmarks[subset]`` for RTEB (Mean (Public), Mean (Private)). A mean is
    NaN when the model misses a task of that benchmark (see ``Leaderboard.summary``).

    Returns:
        ``(mteb_table, rteb_table)`` in the post's layout, with model ids kept in a
        ``model`` column and the benchmark used in a ``benchmark`` column.
    """
    subset = dict(zip(blog.mteb["model"], blog.mteb["subset"], strict=True))
    mteb_rows = []
    for row in blog.mteb.itertuples():
        bench = mteb_benchmarks[row.subset]
        mteb_rows.append(
            {
                "model": row.model,
                "Name": f"[{row.name}](https://huggingface.co/{row.model})",
                "MTEB avg score": _value(leaderboards[bench], row.model, "mean_task"),
                "MTEB subset": row.subset,
                "benchmark": bench,
            }
        )
    rteb_rows = []
    for row in blog.rteb.itertuples():
        bench = rteb_benchmarks[subset[row.model]]
        lb = leaderboards[bench]
        rteb_rows.append(
            {
                "model": row.model,
                "Name": f"[{row.name}](https://huggingface.co/{row.model})",
                "RTEB public score": _value(lb, row.model, "mean_public"),
                "RTEB private score": _value(lb, row.model, "mean_private"),
                "benchmark": bench,
            }
        )
    return pd.DataFrame(mteb_rows), pd.DataFrame(rteb_rows)


def compare_cells(
    blog: BlogTables, mteb_table: pd.DataFrame, rteb_table: pd.DataFrame
) -> pd.DataFrame:
    """The 12 cells: the post's value, ours, and whether they agree at the post's precision.

    A cell matches when our value rounded to the number of decimals the post printed
    (two, or one for "53.3") equals the post's value.
    """
    rows = []
    cells = [
        (blog.mteb, mteb_table, "mteb_avg", "MTEB avg score"),
        (blog.rteb, rteb_table, "public", "RTEB public score"),
        (blog.rteb, rteb_table, "private", "RTEB private score"),
    ]
    for source, ours, blog_col, our_col in cells:
        for row in source.itertuples():
            mine = ours.loc[ours["model"] == row.model].iloc[0]
            value, blog_value = float(mine[our_col]), float(getattr(row, blog_col))
            decimals = int(getattr(row, f"{blog_col}_decimals"))
            rows.append(
                {
                    "model": row.model,
                    "cell": our_col,
                    "benchmark": mine["benchmark"],
                    "blog": blog_value,
                    "regenerated": value,
                    "difference": value - blog_value,
                    "match": bool(
                        np.isfinite(value) and round(value, decimals) == round(blog_value, decimals)
                    ),
                }
            )
    return pd.DataFrame(rows)


_SIDE = {"MTEB avg score": None, "RTEB public score": True, "RTEB private score": False}


def explain_cell(cell: pd.Series, lb: Leaderboard, *, reference: Leaderboard | None = None) -> str:
    """Explain, from the data, why a regenerated cell differs from the post (markdown).

    For a NaN cell it names the tasks the model misses and why, gives the mean over the tasks that
    are there (a partial mean, labelled as such), and, when one task is missing, the score that task
    would need for the post's value. When ``reference`` (the same benchmark under another task list)
    is given, it lists how the two task lists differ.
    """
    model, side = cell["model"], _SIDE[cell["cell"]]
    names = {t.task for t in lb.spec.tasks if side is None or t.is_public == side}
    have = lb.scores[(lb.scores["model"] == model) & lb.scores["task"].isin(names)]
    gone = lb.missing[(lb.missing["model"] == model) & lb.missing["task"].isin(names)]
    scope = {None: "tasks", True: "public tasks", False: "private tasks"}[side]
    lines = [
        f"**{model}, {cell['cell']}** on {lb.name} ({lb.spec.source}): the post has "
        f"{cell['blog']:.2f}, the data give {cell['regenerated']:.2f}."
    ]
    if len(gone):
        listed = "; ".join(f"{r.task} ({r.reason})" for r in gone.itertuples())
        partial = have["main_score"].mean() * 100
        lines.append(
            f"The model has {len(have)} of the {len(names)} {scope}; missing: {listed}. "
            f"A mean over the {len(have)} present {scope} would be {partial:.2f} "
            "(a partial mean, not a benchmark score)."
        )
        if len(gone) == 1:
            implied = cell["blog"] / 100 * len(names) - have["main_score"].sum()
            task = gone.iloc[0]["task"]
            others = lb.scores.loc[lb.scores["task"] == task, "main_score"]
            partial = lb.missing["reason"].str.startswith("missing ")
            partial_files = int(((lb.missing["task"] == task) & partial).sum())
            context = (
                f" {len(others)} other models have a complete score for it, from {others.min():.3f}"
                f" to {others.max():.3f} (median {others.median():.3f})."
                if len(others)
                else " No model in this results folder has a complete score for it "
                f"({partial_files} have a result file with missing subsets)."
            )
            lines.append(
                f"The post's value needs {task} = {implied:.3f} (0-1 scale) over all "
                f"{len(names)} {scope}.{context}"
            )
    if reference is not None:
        ours, theirs = {t.task: t for t in lb.spec.tasks}, {t.task: t for t in reference.spec.tasks}
        added, removed = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
        changed = sorted(
            t
            for t in set(ours) & set(theirs)
            if (ours[t].hf_subsets, ours[t].eval_splits)
            != (theirs[t].hf_subsets, theirs[t].eval_splits)
        )
        diffs = [f"added {added}"] if added else []
        diffs += [f"removed {removed}"] if removed else []
        diffs += [
            f"{t} subsets {list(theirs[t].hf_subsets)} → {list(ours[t].hf_subsets)}"
            for t in changed
        ]
        if diffs:
            listed = "; ".join(diffs)
            lines.append(f"Compared with {reference.spec.source}, this task list has {listed}.")
        column = {None: "mean_task", True: "mean_public", False: "mean_private"}[side]
        if model in reference.summary.index:
            value = reference.summary.loc[model, column] * 100
            lines.append(f"Under {reference.spec.source} the same data give {value:.2f}.")
    return " ".join(lines)


def readme_mentions(results_dir: str | Path, words: set[str]) -> list[str]:
    """Lines of the results folder's README.md that mention any of ``words``.

    A snapshot of the results repository may document what it left out; this is
    how the notebook shows that from the folder itself.
    """
    readme = Path(results_dir) / "README.md"
    if not readme.is_file() or not words:
        return []
    text = readme.read_text(encoding="utf-8", errors="replace")
    return [line.strip() for line in text.splitlines() if any(w in line for w in words)]
