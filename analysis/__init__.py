"""Analysis of static embedding models on MTEB and RTEB.

The public API is re-exported here; see the submodules for details.
"""

__version__ = "0.1.0"
