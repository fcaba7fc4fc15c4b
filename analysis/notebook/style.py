"""One look for every figure: the plotting style, the post's models' colours, short labels.

Figures are byte-identical from the same inputs: :func:`analysis.core.io.save_figure`
fixes the SVG hash salt and leaves the date out, and numbers that carry float noise
(own runs, BLAS-dependent fits) are plotted through :func:`for_figure`. The post's four
models are read from the post the first time a palette needs them (:func:`post_highlight`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar, cast

_Values = TypeVar("_Values")

#: The color of every model that is not one of the post's four.
OTHER_COLOR = "#b0b0b0"
#: Colors of the post's models, in the order of the post's RTEB table (colorblind-safe).
POST_COLORS = ("#0173b2", "#de8f05", "#029e73", "#cc78bc")
#: Decimals :func:`for_figure` keeps of a score ×100: 0.001 points, a hundredth of a pixel
#: on a 100-point axis.
FIGURE_DECIMALS = 3


def for_figure(values: _Values, decimals: int = FIGURE_DECIMALS) -> _Values:
    """``values`` rounded to ``decimals`` for plotting (a DataFrame, Series, array or number).

    An own model's scores or a ridge fit's last bits depend on the machine's kernels, and
    matplotlib writes SVG coordinates to six decimals: rounded first, a figure's bytes
    depend only on what it shows.
    """
    import numpy as np

    rounded: Any = np.round(cast(Any, values), decimals)  # pandas objects round as themselves
    return cast(_Values, rounded)


def apply_style() -> None:
    """The project's one plotting style: seaborn whitegrid, readable fonts, tight layouts."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook", font_scale=0.95)
    mpl.rcParams.update(
        {
            "figure.dpi": 100,
            "figure.constrained_layout.use": True,
            "axes.titlesize": "medium",
            "axes.titleweight": "bold",
            "legend.fontsize": "small",
            "legend.frameon": False,
        }
    )


@functools.cache
def post_highlight() -> tuple[str, ...]:
    """The post's models, read from the post on first use and then kept for the process.

    Raises:
        FileNotFoundError: The post is not where :func:`analysis.results.blog.default_post`
            looks (``$SHARED_DIR/reference/`` or ``../shared/reference/``).
    """
    from ..results.blog import post_models

    return tuple(post_models())


def model_palette(models: Iterable[str], *, post: Sequence[str] | None = None) -> dict[str, str]:
    """``{model: hex color}``: the post's four always get the same color, every other model grey.

    ``post`` are the highlighted models (default: :func:`post_highlight`); a ValueError when
    there are more than ``len(POST_COLORS)``.
    """
    highlighted = tuple(post) if post is not None else post_highlight()
    if len(highlighted) > len(POST_COLORS):
        raise ValueError(
            f"post names {len(highlighted)} models; there are {len(POST_COLORS)} highlight colors."
        )
    colors = dict(zip(highlighted, POST_COLORS, strict=False))
    return {m: colors.get(m, OTHER_COLOR) for m in models}


def is_post_model(model: str) -> bool:
    """True for one of the post's models (those :func:`model_palette` highlights)."""
    return model in post_highlight()


def short_name(model: str) -> str:
    """A label for plots: ``"minishlab/potion-base-8M"`` -> ``"potion-base-8M"``.

    Results-folder names (``org__name``) are shortened the same way.
    """
    return model.split("/")[-1].split("__")[-1]
