"""Runs: models, local task folders, the runner, its command line, plans and executors.

Also per-query retrieval metrics. Importing this room imports mteb's model code and
torch (the ``runs`` extra).
"""
