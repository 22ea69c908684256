"""Statistics for evaluation: bootstrap intervals, paired tests and metric-human correlations."""

from .bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, ConfidenceInterval, bootstrap_ci
from .correlation import (
    LEVEL_PAIRS,
    LEVEL_SUMMARY,
    LEVEL_SYSTEM,
    METHODS,
    Correlation,
    correlate,
    summary_level,
    system_level,
)
from .errors import (
    MismatchedDocumentsError,
    MismatchedSystemsError,
    MismatchError,
    NonFiniteValueError,
    StatsError,
    TooFewPointsError,
)
from .paired import (
    TEST_BOOTSTRAP,
    TEST_PERMUTATION,
    PairedTestResult,
    paired_bootstrap_test,
    paired_permutation_test,
)

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "LEVEL_PAIRS",
    "LEVEL_SUMMARY",
    "LEVEL_SYSTEM",
    "METHODS",
    "TEST_BOOTSTRAP",
    "TEST_PERMUTATION",
    "ConfidenceInterval",
    "Correlation",
    "MismatchError",
    "MismatchedDocumentsError",
    "MismatchedSystemsError",
    "NonFiniteValueError",
    "PairedTestResult",
    "StatsError",
    "TooFewPointsError",
    "bootstrap_ci",
    "correlate",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "summary_level",
    "system_level",
]
