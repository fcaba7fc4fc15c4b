"""``python -m analysis.cli``: the ``static-rteb`` command."""

from . import console

console()
