"""Cross-dataset evaluation (CDEvalSumm, Chen et al., 2020): U matrix, stiffness, stableness.

A system trained on dataset ``i`` and tested on dataset ``j`` has the mean score ``U_ij``
(rows train, columns test). **Stiffness** is the mean of ``U``; **stableness** the mean of the
normalised matrix ``U_ij / U_jj`` (each column divided by its in-dataset score, so the
diagonal is 1); the **in-dataset** mean is the mean of the diagonal. The paper's formulas as
printed divide the sums by ``N`` instead (``stiffness_printed``, ``stableness_printed``). Pairs
of systems are tested with the paper's Wilcoxon signed-rank test and a permutation test. See
``README.md``.
"""

from .errors import (
    BadScoreError,
    CrossDatasetError,
    EmptyCellError,
    MismatchedCellsError,
    MismatchedUnitsError,
    MissingCellError,
    NoCellsError,
    NonPositiveDiagonalError,
    UnknownDatasetError,
)
from .matrix import (
    MISSING_ERROR,
    MISSING_EXCLUDE,
    MISSING_RULES,
    NORMALISATION_NOTE,
    CellMean,
    CrossDatasetMatrix,
    cell_mean,
    cells_from_nested,
    cross_dataset_matrix,
)
from .paired import (
    TEST_STIFFNESS_PERMUTATION,
    CrossDatasetTestResult,
    stiffness_permutation_test,
    units_of,
)
from .ranking import MEASURES, CrossDatasetRanking, SystemRank, rank_systems
from .wilcoxon import (
    MEASURE_STABLENESS,
    MEASURE_STIFFNESS,
    READING_CELLS,
    READING_DOCUMENTS,
    READINGS,
    TEST_WILCOXON,
    WILCOXON_MEASURES,
    CrossDatasetWilcoxon,
    SignedRankResult,
    WilcoxonTestResult,
    cross_dataset_wilcoxon,
    signed_rank_test,
)

__all__ = [
    "MEASURES",
    "MEASURE_STABLENESS",
    "MEASURE_STIFFNESS",
    "MISSING_ERROR",
    "MISSING_EXCLUDE",
    "MISSING_RULES",
    "NORMALISATION_NOTE",
    "READINGS",
    "READING_CELLS",
    "READING_DOCUMENTS",
    "TEST_STIFFNESS_PERMUTATION",
    "TEST_WILCOXON",
    "WILCOXON_MEASURES",
    "BadScoreError",
    "CellMean",
    "CrossDatasetError",
    "CrossDatasetMatrix",
    "CrossDatasetRanking",
    "CrossDatasetTestResult",
    "CrossDatasetWilcoxon",
    "EmptyCellError",
    "MismatchedCellsError",
    "MismatchedUnitsError",
    "MissingCellError",
    "NoCellsError",
    "NonPositiveDiagonalError",
    "SignedRankResult",
    "SystemRank",
    "UnknownDatasetError",
    "WilcoxonTestResult",
    "cell_mean",
    "cells_from_nested",
    "cross_dataset_matrix",
    "cross_dataset_wilcoxon",
    "rank_systems",
    "signed_rank_test",
    "stiffness_permutation_test",
    "units_of",
]
