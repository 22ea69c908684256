"""Cross-dataset evaluation (CDEvalSumm, Chen et al., 2020): U matrix, stiffness, stableness.

A system trained on dataset ``i`` and tested on dataset ``j`` has the mean score ``U_ij``
(rows train, columns test). **Stiffness** is the mean of ``U``; **stableness** the mean of the
normalised matrix ``U_ij / U_jj`` (each column divided by its in-dataset score, so the
diagonal is 1); the **in-dataset** mean is the mean of the diagonal. See ``README.md``.
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

__all__ = [
    "MEASURES",
    "MISSING_ERROR",
    "MISSING_EXCLUDE",
    "MISSING_RULES",
    "TEST_STIFFNESS_PERMUTATION",
    "BadScoreError",
    "CellMean",
    "CrossDatasetError",
    "CrossDatasetMatrix",
    "CrossDatasetRanking",
    "CrossDatasetTestResult",
    "EmptyCellError",
    "MismatchedCellsError",
    "MismatchedUnitsError",
    "MissingCellError",
    "NoCellsError",
    "NonPositiveDiagonalError",
    "SystemRank",
    "UnknownDatasetError",
    "cell_mean",
    "cells_from_nested",
    "cross_dataset_matrix",
    "rank_systems",
    "stiffness_permutation_test",
    "units_of",
]
