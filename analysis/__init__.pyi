"""The public names of :mod:`analysis`, listed once: imported here (``X as X``).

Type checkers read this stub; at run time ``lazy_loader.attach_stub`` (scientific Python's
SPEC 1) reads the same imports and loads each name from its module on first use.
"""

from .core.errors import DroppedModelsWarning as DroppedModelsWarning
from .core.errors import ResultFileWarning as ResultFileWarning
from .core.errors import ResultsNotFoundError as ResultsNotFoundError
from .core.errors import UnknownModelError as UnknownModelError
from .core.errors import UnknownNameError as UnknownNameError
from .core.errors import UnknownTaskError as UnknownTaskError
from .notebook.explorer import rank_explorer as rank_explorer
from .results.folder import ResultsFolders as ResultsFolders
from .results.leaderboard import Leaderboard as Leaderboard
from .results.leaderboard import load_leaderboard as load_leaderboard
from .results.leaderboard import load_leaderboards as load_leaderboards
from .results.specs import BenchmarkSpec as BenchmarkSpec
from .results.specs import TaskSpec as TaskSpec
from .results.specs import available_pins as available_pins
from .results.specs import resolve_spec as resolve_spec
from .runs.distill import distill_model as distill_model
from .runs.local_tasks import load_local_task as load_local_task
from .runs.models import load_model as load_model
from .runs.retrieval_metrics import per_query_ndcg as per_query_ndcg
from .runs.runner import ModelSpec as ModelSpec
from .runs.runner import run_evaluation as run_evaluation
from .stats import BenchmarkAgreementResult as BenchmarkAgreementResult
from .stats import ComparisonReport as ComparisonReport
from .stats import ConfidenceInterval as ConfidenceInterval
from .stats import GroupContrastResult as GroupContrastResult
from .stats import PairedTestResult as PairedTestResult
from .stats import RankCorrelationResult as RankCorrelationResult
from .stats import RankIntervalsResult as RankIntervalsResult
from .stats import adjust_pvalues as adjust_pvalues
from .stats import benchmark_agreement as benchmark_agreement
from .stats import compare as compare
from .stats import group_contrast as group_contrast
from .stats import paired_bootstrap as paired_bootstrap
from .stats import pairwise_significance as pairwise_significance
from .stats import public_private_gap as public_private_gap
from .stats import rank_correlation as rank_correlation
from .stats import rank_intervals as rank_intervals
from .stats.estimate.predict import BenchmarkPrediction as BenchmarkPrediction
from .stats.estimate.predict import next_tasks as next_tasks
from .stats.estimate.predict import predict_benchmark as predict_benchmark
from .stats.estimate.selection import TaskSelectionResult as TaskSelectionResult
from .stats.estimate.selection import select_tasks as select_tasks
