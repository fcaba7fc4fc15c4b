"""Results: loading, benchmark task lists and pins, the blog's tables, groups, placement.

No module here imports torch or mteb's model code.
"""
