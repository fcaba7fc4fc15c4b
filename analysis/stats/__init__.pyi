"""The public names of :mod:`analysis.stats`, listed once: imported here (``X as X``).

Type checkers read this stub; at run time ``lazy_loader.attach_stub`` (scientific Python's
SPEC 1) reads the same imports and loads each name from its module on first use.
"""

from ._checks import DroppedModelsWarning as DroppedModelsWarning
from ._checks import LabelMismatchError as LabelMismatchError
from ._checks import UnknownModelError as UnknownModelError
from ._results import ConfidenceInterval as ConfidenceInterval
from ._results import StatsResult as StatsResult
from .advantage import AdvantagePredictorsResult as AdvantagePredictorsResult
from .advantage import PublicAdvantageResult as PublicAdvantageResult
from .advantage import TrainedTaskResult as TrainedTaskResult
from .advantage import advantage_predictors as advantage_predictors
from .advantage import public_advantage as public_advantage
from .advantage import trained_task_effect as trained_task_effect
from .agreement import BenchmarkAgreementResult as BenchmarkAgreementResult
from .agreement import benchmark_agreement as benchmark_agreement
from .compare import ComparisonReport as ComparisonReport
from .compare import compare as compare
from .contrast import GroupContrastResult as GroupContrastResult
from .contrast import group_contrast as group_contrast
from .correlation import RankCorrelationResult as RankCorrelationResult
from .correlation import rank_correlation as rank_correlation
from .estimate import BenchmarkPrediction as BenchmarkPrediction
from .estimate import NextTasksResult as NextTasksResult
from .estimate import TaskSelectionResult as TaskSelectionResult
from .estimate import next_tasks as next_tasks
from .estimate import predict_benchmark as predict_benchmark
from .estimate import select_tasks as select_tasks
from .friedman import FriedmanNemenyiResult as FriedmanNemenyiResult
from .friedman import friedman_nemenyi as friedman_nemenyi
from .gap import PublicPrivateGapResult as PublicPrivateGapResult
from .gap import public_private_gap as public_private_gap
from .paired import PairedTestResult as PairedTestResult
from .paired import paired_bootstrap as paired_bootstrap
from .pairwise import PairwiseResult as PairwiseResult
from .pairwise import adjust_pvalues as adjust_pvalues
from .pairwise import pairwise_significance as pairwise_significance
from .predictive import PredictiveComparisonResult as PredictiveComparisonResult
from .predictive import predictive_comparison as predictive_comparison
from .ranks import RankIntervalsResult as RankIntervalsResult
from .ranks import rank_intervals as rank_intervals
