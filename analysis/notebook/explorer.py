"""The rank-interval explorer: every ranked model of a leaderboard, searchable, in one page.

What the page offers (board tabs, search, group and zero-shot filters, own runs marked):
``docs/notebooks_guide.md``, "The rank explorer". plotly draws one figure per board
(:meth:`RankExplorer.figure`); ``explorer.js`` beside this module adds the controls.
plotly.js is embedded inline (no request), so the same HTML works in JupyterLab, on the
documentation site and as a file. The HTML is byte-identical from the same inputs
(numbers rounded, no random id, JSON keys in a fixed order).
"""

from __future__ import annotations

import functools
import html
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..core.io import atomic_write_text
from ..stats.ranks import RankIntervalsResult
from .style import POST_COLORS, short_name

if TYPE_CHECKING:
    import plotly.graph_objects as go

#: One colour per group (colour-blind safe; grey for the many transformers).
GROUP_COLORS = {
    "transformer": "#8c8c8c",
    "static · model2vec": "#56b4e9",
    "static · distilled": POST_COLORS[2],
    "static · supervised": POST_COLORS[0],
    "static · hybrid": "#fbafe4",
    "static · unknown": POST_COLORS[1],
    "baseline": "#ca9161",
    "unknown": POST_COLORS[3],
}
#: The groups in the order the filter lists them; each is ``family`` or ``family · kind``
#: of :func:`analysis.results.groups.model_groups`.
GROUPS = tuple(GROUP_COLORS)
#: Own runs: black diamonds, as in ``my_model``'s figure.
OWN_COLOR = "#000000"
#: The models a search finds.
FOUND_COLOR = "#d55e00"
#: Height of one model's row, in pixels.
ROW_PX = 16
#: Top and bottom margins of a board's figure (its rank axis above and below the rows).
MARGIN_TOP, MARGIN_BOTTOM = 64, 44
#: Columns of :attr:`RankExplorer.frame`.
COLUMNS = "board model score rank rank_low rank_high n_better n_worse tied_with_leader".split()
COLUMNS += ["group", "own", "post", "zero_shot"]


def group_label(family: str, static_kind: str = "") -> str:
    """The explorer's group of a model from its ``model_groups`` row.

    Examples:
        >>> group_label("static", "distilled"), group_label("transformer")
        ('static · distilled', 'transformer')
    """
    return f"{family} · {static_kind}" if family == "static" and static_kind else family


@functools.cache
def plotly_js() -> str:
    """plotly.js as the pinned plotly package ships it (minified), read once per process."""
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def _asset(name: str) -> str:
    return (files(__package__) / name).read_text(encoding="utf-8")


def _number(value: Any, decimals: int) -> float | None:
    """A finite number rounded for the page, else None (JSON null)."""
    if value is None or pd.isna(value):
        return None
    number = round(float(value), decimals)
    return number if math.isfinite(number) else None


def _json_for_script(data: Any) -> str:
    """JSON that can stand inside ``<script>``: every ``<`` escaped, so nothing ends it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


@dataclass(frozen=True)
class _Board:
    """One board's ranks and what its caption says (from the :class:`RankIntervalsResult`)."""

    name: str
    caption: str
    n_models: int
    unranked: dict[str, str]


@dataclass(frozen=True)
class RankExplorer:
    """What :func:`rank_explorer` returns: the boards' rows, their figures, the page.

    Shown inline by Jupyter (``text/html``: the page's fragment, plotly.js embedded);
    :meth:`write` saves the whole page.

    Attributes:
        frame: One row per (board, ranked model), boards in the order given, models in
            rank order: ``board, model, score, rank, rank_low, rank_high, n_better,
            n_worse, tied_with_leader, group, own, post`` (``score`` on the shown scale).
        title: The page's title.
        score_label: What the score is (e.g. ``"Mean (Task) ×100"``).
        found: The model highlighted when the page opens ("" for none).
    """

    frame: pd.DataFrame
    title: str
    score_label: str
    found: str = ""
    score_decimals: int = 2
    _boards: tuple[_Board, ...] = field(default=(), repr=False)
    zero_shot: bool = False

    @property
    def boards(self) -> list[str]:
        """The boards' names, in order."""
        return [b.name for b in self._boards]

    def figure(self, board: str) -> go.Figure:
        """One board's plotly figure: every model's rank interval, one trace per group.

        Rows are models in rank order (the best on top); a dot is a model's rank, its line the
        interval; own runs are black diamonds. Each point's ``customdata`` starts with the model's
        row (the page's script filters the points by it), then the hover's text.

        Raises:
            KeyError: ``board`` is not one of :attr:`boards`.
        """
        import plotly.graph_objects as go

        spec = {b.name: b for b in self._boards}[board]
        rows = self.frame[self.frame["board"] == board].reset_index(drop=True)
        fig = go.Figure()
        for name, color, mask in self._traces(rows):
            part = rows[mask]
            own = name == "your runs"
            fig.add_trace(
                go.Scatter(
                    name=name,
                    x=part["rank"].tolist(),
                    y=part.index.tolist(),
                    mode="markers",
                    marker={
                        "color": color,
                        "size": 9 if own else 6,
                        "symbol": "diamond" if own else "circle",
                    },
                    error_x={
                        "type": "data",
                        "symmetric": False,
                        "array": (part["rank_high"] - part["rank"]).tolist(),
                        "arrayminus": (part["rank"] - part["rank_low"]).tolist(),
                        "color": color,
                        "thickness": 2.5 if own else 1.6,
                        "width": 0,
                    },
                    customdata=[self._hover(r, i) for i, r in part.iterrows()],
                    hovertemplate=(
                        "<b>%{customdata[1]}</b><br>%{customdata[2]}<br>"
                        f"{html.escape(self.score_label)}: %{{customdata[3]}}<br>"
                        "rank %{customdata[4]} · interval %{customdata[5]}<br>%{customdata[6]}"
                        + ("<br>zero-shot %{customdata[7]}" if self.zero_shot else "")
                        + "<extra></extra>"
                    ),
                    showlegend=False,
                )
            )
        n, ticks = len(rows), _rank_ticks(spec.n_models)
        fig.update_layout(
            template="plotly_white",
            height=MARGIN_TOP + MARGIN_BOTTOM + ROW_PX * max(n, 1),
            margin={"t": MARGIN_TOP, "b": MARGIN_BOTTOM, "r": 16, "l": 8, "autoexpand": True},
            hovermode="y unified",  # anywhere on a row: that model's label
            hoverdistance=ROW_PX // 2,
            hoverlabel={"align": "left"},
            font={"size": 11},
            xaxis={
                "range": [0.5, spec.n_models + 0.5],
                "fixedrange": True,
                "showgrid": True,
                "zeroline": False,
                "automargin": False,
                "side": "top",
                "tickmode": "array",
                "tickvals": ticks,
                "title": {"text": f"rank (1 = best) of {spec.n_models} models", "standoff": 6},
            },
            # the rank axis's labels below the rows too (the rows scroll). A second x axis
            # would do it, but plotly then turns the hover labels on their side.
            annotations=[
                {
                    "x": t,
                    "y": 0,
                    "xref": "x",
                    "yref": "paper",
                    "text": str(t),
                    "showarrow": False,
                    "yanchor": "top",
                    "yshift": -4,
                    "font": {"color": "#506784"},
                }
                for t in ticks
            ],
            yaxis={
                "range": [n - 0.5, -0.5],
                "fixedrange": True,
                "showgrid": False,
                "zeroline": False,
                "tickmode": "array",
                "tickvals": list(range(n)),
                "ticktext": [self._tick(r) for _, r in rows.iterrows()],
                "automargin": True,
            },
        )
        return fig

    @staticmethod
    def _traces(rows: pd.DataFrame) -> list[tuple[str, str, pd.Series]]:
        """(trace name, colour, rows) per group present, own runs last in their own trace."""
        traces = [
            (g, GROUP_COLORS[g], (rows["group"] == g) & ~rows["own"])
            for g in GROUPS
            if ((rows["group"] == g) & ~rows["own"]).any()
        ]
        if rows["own"].any():
            traces.append(("your runs", OWN_COLOR, rows["own"]))
        return traces

    def _hover(self, row: pd.Series, index: int) -> list[Any]:
        """``[row, model, group, score, rank, interval, tests, zero-shot]``: the hover's fields."""
        group = (
            row["group"]
            + (" · your run" if row["own"] else "")
            + (" · the post's model" if row["post"] else "")
        )
        score = "—" if pd.isna(row["score"]) else f"{row['score']:.{self.score_decimals}f}"
        rank = f"{row['rank']:.0f}"
        shot = "unknown" if pd.isna(row["zero_shot"]) else f"{row['zero_shot']:.0f}%"
        if pd.isna(row["rank_low"]):
            return [index, row["model"], group, score, rank, "none", "too few tasks to test", shot]
        interval = f"[{row['rank_low']:.0f}, {row['rank_high']:.0f}]"
        tests = f"{row['n_better']:.0f} significantly better, {row['n_worse']:.0f} worse" + (
            " · tied with the leader" if row["tied_with_leader"] else ""
        )
        return [index, row["model"], group, score, rank, interval, tests, shot]

    @staticmethod
    def _tick(row: pd.Series) -> str:
        label = html.escape(short_name(row["model"]))
        return f"<b>{label}</b>" if row["own"] or row["post"] else label

    def data(self) -> dict[str, Any]:
        """What the page's script reads: the boards, their figures and rows, the groups."""
        boards = []
        for board in self._boards:
            rows = self.frame[self.frame["board"] == board.name]
            boards.append(
                {
                    "name": board.name,
                    "caption": board.caption,
                    "figure": self.figure(board.name).to_plotly_json(),
                    "models": [
                        [m, short_name(m), g, int(o), int(p), int(r)]
                        for m, g, o, p, r in rows[
                            ["model", "group", "own", "post", "rank"]
                        ].itertuples(index=False)
                    ],
                    "unranked": board.unranked,
                    "zeroShot": [_number(z, 0) for z in rows["zero_shot"]],
                }
            )
        return {
            "title": self.title,
            "boards": boards,
            "groups": [[g, GROUP_COLORS[g]] for g in GROUPS if g in set(self.frame["group"])],
            "found": self.found,
            "zeroShot": self.zero_shot,
            "colors": {"found": FOUND_COLOR, "own": OWN_COLOR},
            "layout": {"row": ROW_PX, "top": MARGIN_TOP, "bottom": MARGIN_BOTTOM},
        }

    def html(self, *, page: bool = False, comment: str = "") -> str:
        """The explorer as HTML, plotly.js and the data embedded (nothing is fetched).

        ``page``: a whole document (for a file) instead of a fragment; ``comment``: an HTML
        comment on the line after its doctype (which notebook made the file).
        """
        from plotly.utils import PlotlyJSONEncoder

        data = json.loads(json.dumps(self.data(), cls=PlotlyJSONEncoder))
        fragment = "".join(
            [
                '<div class="rank-explorer">',
                f"<style>{_asset('explorer.css')}</style>",
                '<div class="rx-fallback">The rank explorer needs JavaScript: in JupyterLab, '
                "run the cell (or trust the notebook); elsewhere open the HTML file in a "
                "browser.</div>",
                f'<script type="application/json" class="rx-data">{_json_for_script(data)}'
                "</script>",
                f"<script>{plotly_js()}</script>",
                f"<script>{_asset('explorer.js')}</script>",
                "</div>",
            ]
        )
        if not page:
            return fragment
        return (
            "<!DOCTYPE html>\n"
            + (f"{comment}\n" if comment else "")
            + '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(self.title)}</title>\n"
            "<style>body{font-family:system-ui,sans-serif;margin:1.5rem auto;"
            "max-width:1100px;padding:0 1rem}</style>\n</head>\n<body>\n"
            f"{fragment}\n</body>\n</html>\n"
        )

    def write(self, path: str | Path, *, comment: str = "") -> Path:
        """Write the whole page to ``path`` and return it (self-contained, works offline)."""
        return atomic_write_text(path, self.html(page=True, comment=comment))

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        counts = self.frame.groupby("board", sort=False).size()
        boards = ", ".join(f"{b} ({counts.get(b, 0)} models)" for b in self.boards)
        return f"RankExplorer({boards})"


def _rank_ticks(n_models: int) -> list[int]:
    """Round ranks for the axis: at most ten of them and 1.

    Examples:
        >>> _rank_ticks(183), _rank_ticks(9)
        ([1, 20, 40, 60, 80, 100, 120, 140, 160, 180], [1, 2, 3, 4, 5, 6, 7, 8, 9])
    """
    steps = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500)
    step = next((s for s in steps if n_models / s <= 10), 1000)
    return [1, *range(step, n_models + 1, step)] if step > 1 else list(range(1, n_models + 1))


def _board_caption(name: str, res: RankIntervalsResult, n_unranked: int) -> str:
    kind = "simultaneous" if res.simultaneous else "per-model"
    left = f"; {n_unranked} models without every task are not ranked" if n_unranked else ""
    intervals = (
        f"no rank interval ({res.caveat})"
        if res.caveat
        else (f"{res.confidence_level:.0%} {kind} rank intervals")
    )
    return (
        f"{name}: {res.n_models} models ranked over {res.n_tasks} tasks "
        f"({res.n_units} independent units), {intervals}{left}."
    )


def rank_explorer(
    ranks: Mapping[str, RankIntervalsResult],
    *,
    groups: pd.DataFrame | None = None,
    own: Iterable[str] = (),
    post: Iterable[str] = (),
    unranked: Mapping[str, Mapping[str, str]] | None = None,
    found: str = "",
    title: str = "Rank intervals",
    score_label: str = "score",
    score_scale: float = 1.0,
    score_decimals: int = 2,
    zero_shot: Mapping[str, Mapping[str, Any]] | None = None,
) -> RankExplorer:
    """An interactive explorer of every ranked model's rank interval, board by board.

    Args:
        ranks: Board name -> its :func:`analysis.stats.rank_intervals` result, in the
            order the tabs show them.
        groups: :func:`analysis.results.groups.model_groups` of the models (at least
            ``model``, ``family``, ``static_kind``); default: read from mteb's model
            metadata for every ranked model. A model it does not list is ``unknown``.
        own: The user's own runs (highlighted, always shown); names not ranked are ignored.
        post: Models marked in bold (the post's models).
        unranked: Board name -> {model: why it is not ranked there} (e.g. missing
            tasks): a search for such a model says why instead of "no match".
        found: A model highlighted when the page opens (e.g. the user's own model).
        title: The page's title.
        score_label: What the score is, shown on hover.
        score_scale: Factor applied to the results' ``score`` (100 for a mean on mteb's
            0-1 scale shown ×100).
        score_decimals: Decimals of the score shown (the page holds no more).
        zero_shot: Board name -> {model: zero-shot % on that board's tasks, None when
            unknown} (:func:`analysis.results.training.zero_shot`): shown on hover, with
            a filter on it. None: no zero-shot column.

    Returns:
        A :class:`RankExplorer`: shown inline by Jupyter, written by ``.write(path)``.

    Raises:
        ValueError: ``ranks`` is empty.

    Examples:
        Two boards of five models (synthetic scores; no model is registered in mteb, so
        the groups are given):

        >>> import numpy as np, pandas as pd
        >>> from analysis.stats import rank_intervals
        >>> rng = np.random.default_rng(0)
        >>> models = ["org/big", "org/mid", "org/small", "me/static", "mteb/baseline-bm25"]
        >>> wide = pd.DataFrame(rng.normal(0.5, 0.1, (8, 5)), columns=models)
        >>> wide += np.array([0.2, 0.1, 0.05, 0.0, -0.1])
        >>> ranks = {
        ...     "all tasks": rank_intervals(wide, n_resamples=999, rng=1),
        ...     "first half": rank_intervals(wide.iloc[:4], n_resamples=999, rng=1),
        ... }
        >>> groups = pd.DataFrame({
        ...     "model": models,
        ...     "family": ["transformer"] * 3 + ["static", "baseline"],
        ...     "static_kind": ["", "", "", "distilled", ""],
        ... })
        >>> explorer = rank_explorer(ranks, groups=groups, own=["me/static"], score_scale=100)
        >>> explorer
        RankExplorer(all tasks (5 models), first half (5 models))
        >>> explorer.frame.query("board == 'all tasks'")[["model", "rank", "group", "own"]]
                      model  rank               group    own
        0           org/big     1         transformer  False
        1           org/mid     2         transformer  False
        2         org/small     3         transformer  False
        3         me/static     4  static · distilled   True
        4  mteb/baseline-bm25   5            baseline  False
        >>> page = explorer.html(page=True)  # its scripts are inline: plotly.js, data, controls
        >>> import re
        >>> re.findall(r"<script[^>]*>", page), "org/small" in page
        (['<script type="application/json" class="rx-data">', '<script>', '<script>'], True)
    """
    if not ranks:
        raise ValueError("`ranks` is empty: give at least one board's rank_intervals result.")
    mine, marked = set(own), set(post)
    models = list(dict.fromkeys(m for res in ranks.values() for m in res.table.index))
    if groups is None:
        from ..results.groups import model_groups

        groups = model_groups(models)
    labels = {
        m: group_label(f, k)
        for m, f, k in zip(groups["model"], groups["family"], groups["static_kind"], strict=True)
    }
    frames, boards = [], []
    for name, res in ranks.items():
        t = res.table.reset_index()
        frame = pd.DataFrame(
            {
                "board": name,
                "model": t["model"],
                "score": [_number(s * score_scale, score_decimals) for s in t["score"]],
                "rank": t["rank"].astype(int),
                **t[["rank_low", "rank_high", "n_better", "n_worse"]].astype(float),
                "tied_with_leader": t["tied_with_leader"].eq(True),  # NaN: untested
                "group": [labels.get(m, "unknown") for m in t["model"]],
                "own": t["model"].isin(mine),
                "post": t["model"].isin(marked),
                "zero_shot": pd.array(
                    [(zero_shot or {}).get(name, {}).get(m) for m in t["model"]], dtype="Float64"
                ),
            }
        )
        frames.append(frame)
        why = {m: w for m, w in (unranked or {}).get(name, {}).items() if m not in set(t["model"])}
        boards.append(_Board(name, _board_caption(name, res, len(why)), res.n_models, dict(why)))
    frame = pd.concat(frames, ignore_index=True)[COLUMNS].astype(
        {"score": float, "zero_shot": float}
    )
    return RankExplorer(
        frame, title, score_label, found, score_decimals, tuple(boards), zero_shot is not None
    )


def unranked_models(summary: pd.DataFrame, scope: str = "all") -> dict[str, str]:
    """Why each model of a leaderboard without every task of ``scope`` is not ranked.

    Returns:
        ``{model: "has 12 of the 41 tasks"}`` for the models not complete on ``scope``.

    Examples:
        >>> summary = pd.DataFrame(
        ...     {"n_tasks": [3, 1], "n_expected": [3, 3], "complete": [True, False]},
        ...     index=pd.Index(["org/A", "org/B"], name="model"),
        ... )
        >>> unranked_models(summary)
        {'org/B': 'has 1 of the 3 tasks'}
    """
    done, expected, flag = {
        "all": ("n_tasks", "n_expected", "complete"),
        "public": ("n_public", "n_public_expected", "complete_public"),
        "private": ("n_private", "n_private_expected", "complete_private"),
    }[scope]
    kind = "" if scope == "all" else f" {scope}"
    rows = summary[~summary[flag].astype(bool)]
    return {
        str(m): f"has {int(d)} of the {int(e)}{kind} tasks"
        for m, d, e in zip(rows.index, rows[done], rows[expected], strict=True)
    }
