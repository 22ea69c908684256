"""Statistics for evaluation: bootstrap intervals, paired tests and metric-human correlations.

Means of per-document scores use :func:`bootstrap_ci` and the paired tests of :mod:`.paired`;
system-level correlations with document-bootstrap intervals use :func:`system_correlations`;
scores pooled over units as a ratio of sums (the PolyTope system score: penalty over words)
use :func:`bootstrap_ratio_ci` (:mod:`.ratio`) and the paired tests of :mod:`.paired_ratio`.
Each takes documents in a caller's ``order`` (a :class:`KeyOrder`, e.g. a dataset's), or in
canonical key order without one (:mod:`.order`).
"""

from .bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, ConfidenceInterval, bootstrap_ci
from .columns import bootstrap_ci_columns
from .correlation import (
    LEVEL_PAIRS,
    LEVEL_SUMMARY,
    LEVEL_SYSTEM,
    METHODS,
    Correlation,
    correlate,
    row_coefficients,
    summary_coefficients,
    summary_level,
    system_level,
)
from .errors import (
    MismatchedDocumentsError,
    MismatchedSystemsError,
    MismatchError,
    NonFiniteValueError,
    NonPositiveDenominatorError,
    StatsError,
    TooFewPointsError,
)
from .order import KeyOrder, UnorderedKeyError, in_order, key_order
from .paired import (
    TEST_BOOTSTRAP,
    TEST_PERMUTATION,
    PairedTestResult,
    paired_bootstrap_test,
    paired_permutation_test,
    paired_permutation_tests,
)
from .paired_ratio import (
    TEST_RATIO_BOOTSTRAP,
    TEST_RATIO_PERMUTATION,
    PairedRatioTestResult,
    paired_ratio_bootstrap_test,
    paired_ratio_permutation_test,
)
from .ratio import METHOD_RATIO, RatioInterval, bootstrap_ratio_ci
from .system_correlation import (
    CoefficientWithInterval,
    system_correlations,
    system_points,
    system_statistics,
)

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "LEVEL_PAIRS",
    "LEVEL_SUMMARY",
    "LEVEL_SYSTEM",
    "METHODS",
    "METHOD_RATIO",
    "TEST_BOOTSTRAP",
    "TEST_PERMUTATION",
    "TEST_RATIO_BOOTSTRAP",
    "TEST_RATIO_PERMUTATION",
    "CoefficientWithInterval",
    "ConfidenceInterval",
    "Correlation",
    "KeyOrder",
    "MismatchError",
    "MismatchedDocumentsError",
    "MismatchedSystemsError",
    "NonFiniteValueError",
    "NonPositiveDenominatorError",
    "PairedRatioTestResult",
    "PairedTestResult",
    "RatioInterval",
    "StatsError",
    "TooFewPointsError",
    "UnorderedKeyError",
    "bootstrap_ci",
    "bootstrap_ci_columns",
    "bootstrap_ratio_ci",
    "correlate",
    "in_order",
    "key_order",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "paired_permutation_tests",
    "paired_ratio_bootstrap_test",
    "paired_ratio_permutation_test",
    "row_coefficients",
    "summary_coefficients",
    "summary_level",
    "system_correlations",
    "system_level",
    "system_points",
    "system_statistics",
]
