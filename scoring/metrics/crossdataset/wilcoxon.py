"""Wilcoxon signed-rank tests of two systems' stiffness and stableness (CDEvalSumm, Sec. 4).

The paper tests each pair of systems with the Wilcoxon signed-rank test at alpha = 0.05, the
null hypothesis being that the two systems' expected stiffness (or stableness) is the same. It
does not say what the paired samples are. Loupe's reading, ``cells``: the cells of the two U
matrices for stiffness, of the two normalised matrices for stableness (the measures are means of
those cells; the normalised diagonal is 1 for every system, so its zero differences drop out).
The other reading, ``documents``: every (train, test, document) unit both systems cover, its
score for stiffness and its score divided by the system's in-dataset mean ``U_jj`` for
stableness (each unit counts once, so a cell with more documents weighs more).

:func:`signed_rank_test` calls :func:`scipy.stats.wilcoxon` on the differences ``a - b``:

* the differences are first rounded to ``1e-12`` of the scores' scale, so two differences that
  are equal in exact arithmetic are one tie (SciPy's documentation asks for this);
* ``zero_method="wilcox"``: zero differences are dropped (Wilcoxon's own procedure and SciPy's
  default; the normalised diagonal's N zeros carry no information about the two systems);
* ``alternative="two-sided"`` by default (the paper's null hypothesis has no direction);
* the method is SciPy >= 1.15's ``"auto"`` spelled out, so each result records it: the exact
  null distribution when the non-zero differences are at most 50 and have no ties; when they
  have ties and are at most 13, every sign pattern of their ranks (``PermutationMethod`` with
  ``n_resamples=inf``, exact given the ties); otherwise the normal approximation with SciPy's
  tie correction and no continuity correction.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from ..lazy import scipy_stats
from ..stats.errors import StatsError, canonical_key
from ..stats.paired import ALTERNATIVES
from .errors import MismatchedCellsError, MissingCellError, NoCellsError
from .matrix import MISSING_EXCLUDE, Cells, cross_dataset_matrix, is_finite_number
from .paired import paired_units

TEST_WILCOXON = "Wilcoxon signed-rank (SciPy)"

MEASURE_STIFFNESS = "stiffness"
MEASURE_STABLENESS = "stableness"
WILCOXON_MEASURES = (MEASURE_STIFFNESS, MEASURE_STABLENESS)

READING_CELLS = "cells"
READING_DOCUMENTS = "documents"
READINGS = (READING_CELLS, READING_DOCUMENTS)

ZERO_METHOD = "wilcox"
# The largest number of non-zero differences tested with SciPy's exact distribution (no ties).
EXACT_MAX_N = 50
# The largest number of tied non-zero differences whose 2**n sign patterns are enumerated.
PERMUTATION_MAX_N = 13

METHOD_EXACT = "exact"
METHOD_EXACT_TIES = "exact with ties (every sign pattern)"
METHOD_ASYMPTOTIC = "normal approximation (tie-corrected)"
METHOD_ALL_ZERO = "none: every difference is zero"

# Differences are rounded to this fraction of the scores' scale before they are ranked.
_TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class SignedRankResult:
    """One Wilcoxon signed-rank test of paired samples ``a`` and ``b``.

    Attributes:
        statistic: SciPy's statistic: two-sided, the smaller of the sums of the ranks of the
            positive and of the negative differences; one-sided, the sum of the positive ranks
            (0.0 when every difference is zero).
        p_value: the p-value (1.0 when every difference is zero: nothing tells the two apart).
        n: the pairs given.
        zeros: the zero differences dropped (``zero_method="wilcox"``).
        method: how the p-value was computed (one of the ``METHOD_*`` names).
        alternative: ``"two-sided"``, ``"greater"`` (a above b) or ``"less"``.
        mean_difference: the mean of ``a - b`` over the ``n`` pairs.
    """

    statistic: float
    p_value: float
    n: int
    zeros: int
    method: str
    alternative: str
    mean_difference: float


def _finite_vector(values: Sequence[float], name: str) -> np.ndarray:
    if isinstance(values, str | bytes):
        raise StatsError(f"{name} must be a sequence of numbers, got a string")
    for index, value in enumerate(values):
        if not is_finite_number(value):
            raise StatsError(f"{name}[{index}] = {value!r} is not a finite number")
    return np.asarray(values, dtype=float)


def signed_rank_test(
    a: Sequence[float], b: Sequence[float], *, alternative: str = "two-sided"
) -> SignedRankResult:
    """The Wilcoxon signed-rank test of paired samples, by :func:`scipy.stats.wilcoxon`.

    See the module docstring for the rounding of the differences, the zero rule and the
    choice of method.

    Args:
        a: system A's values.
        b: system B's values, paired with ``a`` by position.
        alternative: ``"two-sided"`` (default), ``"greater"`` (A above B) or ``"less"``.

    Returns:
        A :class:`SignedRankResult`.

    Raises:
        StatsError: a bad ``alternative``, samples of different lengths, no pair, or a value
            that is not a finite number.
    """
    if alternative not in ALTERNATIVES:
        raise StatsError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    x = _finite_vector(a, "a")
    y = _finite_vector(b, "b")
    if len(x) != len(y):
        raise StatsError(f"paired samples differ in length: {len(x)} and {len(y)}")
    if not len(x):
        raise StatsError("the Wilcoxon signed-rank test needs at least one pair")
    step = _TIE_TOLERANCE * max(1.0, float(np.max(np.abs(x))), float(np.max(np.abs(y))))
    differences = np.round((x - y) / step) * step
    nonzero = differences[differences != 0]
    zeros = len(differences) - len(nonzero)
    mean_difference = math.fsum((x - y).tolist()) / len(x)
    if not len(nonzero):
        return SignedRankResult(
            statistic=0.0,
            p_value=1.0,
            n=len(x),
            zeros=zeros,
            method=METHOD_ALL_ZERO,
            alternative=alternative,
            mean_difference=mean_difference,
        )
    tied = len(np.unique(np.abs(nonzero))) < len(nonzero)
    if not tied and len(nonzero) <= EXACT_MAX_N:
        method, name = "exact", METHOD_EXACT
    elif tied and len(nonzero) <= PERMUTATION_MAX_N:
        method, name = scipy_stats().PermutationMethod(n_resamples=np.inf), METHOD_EXACT_TIES
    else:
        method, name = "asymptotic", METHOD_ASYMPTOTIC
    found = scipy_stats().wilcoxon(
        nonzero, zero_method=ZERO_METHOD, correction=False, alternative=alternative, method=method
    )
    return SignedRankResult(
        statistic=float(found.statistic),
        p_value=min(1.0, float(found.pvalue)),
        n=len(x),
        zeros=zeros,
        method=name,
        alternative=alternative,
        mean_difference=mean_difference,
    )


@dataclass(frozen=True)
class WilcoxonTestResult:
    """One measure's Wilcoxon test of system A against system B under one reading.

    Attributes:
        measure: ``"stiffness"`` or ``"stableness"``.
        reading: ``"cells"`` (the matrices' cells are the pairs) or ``"documents"`` (the
            (train, test, document) units are).
        result: the test; its ``mean_difference`` is ``measure(A) - measure(B)`` under the
            cells reading (the mean over the cells tested), the unweighted mean over the units
            under the documents reading.
    """

    measure: str
    reading: str
    result: SignedRankResult


@dataclass(frozen=True)
class CrossDatasetWilcoxon:
    """Both measures' Wilcoxon tests of system A against system B under both readings.

    Attributes:
        tests: stiffness then stableness over the cells, then the same over the documents.
        cells: the (train, test) cells paired under the cells reading.
        dropped_a: units of system A the documents reading left out (``shared_only``).
        dropped_b: units of system B it left out.
    """

    tests: tuple[WilcoxonTestResult, ...]
    cells: int
    dropped_a: int = 0
    dropped_b: int = 0

    def get(self, measure: str, reading: str) -> SignedRankResult:
        """The test of ``measure`` under ``reading``.

        Args:
            measure: ``"stiffness"`` or ``"stableness"``.
            reading: ``"cells"`` or ``"documents"``.

        Returns:
            Its :class:`SignedRankResult`.

        Raises:
            KeyError: no such test.
        """
        for test in self.tests:
            if (test.measure, test.reading) == (measure, reading):
                return test.result
        raise KeyError((measure, reading))


def _datasets(*cells: Cells) -> tuple[Hashable, ...]:
    named = {name for system in cells for cell in system for name in cell}
    return tuple(sorted(named, key=canonical_key))


def _cell_values(cells: Cells, system: str, datasets) -> dict:
    """``(train, test) -> (U, U / U_jj)`` of one system's present cells."""
    matrix = cross_dataset_matrix(cells, system=system, datasets=datasets, missing=MISSING_EXCLUDE)
    return {
        (train, test): (matrix.u[i][j], matrix.normalised[i][j])
        for i, train in enumerate(datasets)
        for j, test in enumerate(datasets)
        if matrix.u[i][j] is not None
    }


def _in_dataset_means(values: dict, system: str, tests) -> dict[Hashable, float]:
    """The system's ``U_jj`` (from :func:`_cell_values`) for every test dataset in ``tests``."""
    lacking = [(test, test) for test in tests if (test, test) not in values]
    if lacking:
        raise MissingCellError(
            system, lacking, "stableness per document divides by the in-dataset mean U_jj"
        )
    return {test: values[(test, test)][0] for test in tests}


def cross_dataset_wilcoxon(
    a: Cells,
    b: Cells,
    *,
    shared_only: bool = False,
    alternative: str = "two-sided",
) -> CrossDatasetWilcoxon:
    """Wilcoxon signed-rank tests of stiffness and stableness, over cells and over documents.

    Under the cells reading each system's U and normalised matrices are built from all its
    documents (as displayed), and the cells both have are paired, in canonical order. Under the
    documents reading the (train, test, document) units both cover are paired; a unit's
    stableness value is its score divided by its own system's ``U_jj``.

    Args:
        a: system A's ``(train, test)`` -> document key -> score.
        b: system B's, on the same cells and units.
        shared_only: test on the cells and units both systems cover (the units left out are
            counted) instead of refusing different ones.
        alternative: ``"two-sided"`` (default), ``"greater"`` (A better) or ``"less"``.

    Returns:
        A :class:`CrossDatasetWilcoxon`.

    Raises:
        MismatchedCellsError: the systems cover different cells and ``shared_only`` is False.
        MismatchedUnitsError: they cover different units and ``shared_only`` is False.
        NoCellsError: no cell or unit both cover.
        MissingCellError: a system lacks an in-dataset cell its stableness needs.
        CrossDatasetError: a bad score, an empty cell or a non-positive ``U_jj``.
        StatsError: a bad ``alternative``.
    """
    if alternative not in ALTERNATIVES:
        raise StatsError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    values_a = _cell_values(a, "A", _datasets(a))
    values_b = _cell_values(b, "B", _datasets(b))
    if values_a.keys() != values_b.keys() and not shared_only:
        raise MismatchedCellsError(
            "Wilcoxon test over cells: the systems cover different (train, test) cells "
            f"({len(values_a)} and {len(values_b)}); pass shared_only=True to test the shared ones"
        )
    cells = sorted(values_a.keys() & values_b.keys(), key=lambda c: tuple(map(canonical_key, c)))
    if not cells:
        raise NoCellsError("Wilcoxon test over cells: the systems share no (train, test) cell")
    paired = paired_units(a, b, shared_only=shared_only)
    units_a, units_b, units = paired.a, paired.b, paired.shared
    if not units:
        raise NoCellsError("Wilcoxon test over documents: the systems share no unit")
    tests = sorted({test for _, test, _ in units}, key=canonical_key)
    diagonal_a = _in_dataset_means(values_a, "A", tests)
    diagonal_b = _in_dataset_means(values_b, "B", tests)
    samples = {
        (MEASURE_STIFFNESS, READING_CELLS): (
            [values_a[c][0] for c in cells],
            [values_b[c][0] for c in cells],
        ),
        (MEASURE_STABLENESS, READING_CELLS): (
            [values_a[c][1] for c in cells],
            [values_b[c][1] for c in cells],
        ),
        (MEASURE_STIFFNESS, READING_DOCUMENTS): (
            [units_a[u] for u in units],
            [units_b[u] for u in units],
        ),
        (MEASURE_STABLENESS, READING_DOCUMENTS): (
            [units_a[u] / diagonal_a[u[1]] for u in units],
            [units_b[u] / diagonal_b[u[1]] for u in units],
        ),
    }
    return CrossDatasetWilcoxon(
        tests=tuple(
            WilcoxonTestResult(
                measure=measure,
                reading=reading,
                result=signed_rank_test(x, y, alternative=alternative),
            )
            for (measure, reading), (x, y) in samples.items()
        ),
        cells=len(cells),
        dropped_a=len(paired.only_a),
        dropped_b=len(paired.only_b),
    )
