"""Analysis of static embedding models on MTEB and RTEB.

The public names (listed once in ``__init__.pyi``) come from the rooms
:mod:`analysis.results`, :mod:`analysis.stats`, :mod:`analysis.runs` (the ``runs`` extra,
loaded on first use so that the analysis half never imports torch) and the notebook layer
:mod:`analysis.notebook`, over the ground floor :mod:`analysis.core`. What is where:
``README.md``; the layers: ``docs/development.md``.
"""

import lazy_loader

__version__ = "0.1.0"

# Every public name loads on first use (scientific Python's SPEC 1): ``import analysis`` (and
# so every ``--help`` of the command line) imports neither pandas nor scipy; the names that
# run models (mteb, torch) load only when used. The names are listed once, in __init__.pyi.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
