"""The public names of :mod:`analysis.notebook`, listed once: imported here (``X as X``).

Type checkers read this stub; at run time ``lazy_loader.attach_stub`` (scientific Python's
SPEC 1) reads the same imports and loads each name from its module on first use.
"""

from .context import NotebookContext as NotebookContext
from .context import resolve_results as resolve_results
from .context import setup as setup
from .display import styled as styled
from .explorer import RankExplorer as RankExplorer
from .explorer import rank_explorer as rank_explorer
from .style import OTHER_COLOR as OTHER_COLOR
from .style import POST_COLORS as POST_COLORS
from .style import apply_style as apply_style
from .style import for_figure as for_figure
from .style import is_post_model as is_post_model
from .style import model_palette as model_palette
from .style import short_name as short_name
