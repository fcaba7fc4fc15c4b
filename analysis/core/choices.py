"""The values a choice accepts, each written once: the code checks them, the CLI offers them.

Here on the ground floor so that the command line's ``--help`` (which must import neither
mteb nor torch) and the rooms that act on the values read the same tuple.
"""

from __future__ import annotations

from typing import Literal, get_args

#: How a run treats results already on disk (``run_evaluation(overwrite=...)``,
#: ``static-rteb run --overwrite``): mteb's ``overwrite_strategy`` values.
Overwrite = Literal["only-missing", "always", "never"]
OVERWRITE_STRATEGIES: tuple[str, ...] = get_args(Overwrite)

#: Where a plan's jobs run (``make_executor``, ``--executor``).
Executor = Literal["local", "slurm"]
EXECUTORS: tuple[str, ...] = get_args(Executor)

#: How a model is encoded (``load_model(encoder=...)``, ``--encoder``): ``mteb`` as mteb runs
#: it (its registered loader, else sentence-transformers), ``model2vec`` with model2vec's own
#: ``StaticModel.encode`` (model2vec models only; filed under an experiment of its own).
Encoder = Literal["mteb", "model2vec"]
ENCODERS: tuple[str, ...] = get_args(Encoder)

#: A distilled student's embedding dimensions by default (model2vec's default;
#: ``distill_model(pca_dims=...)``, ``static-rteb distill --pca-dims``).
PCA_DIMS = 256

#: What a load does when two results folders hold different results for one (model,
#: revision, task) (``load_leaderboard(on_conflict=...)``, ``--on-conflict``).
OnConflict = Literal["error", "first"]
ON_CONFLICT: tuple[str, ...] = get_args(OnConflict)
