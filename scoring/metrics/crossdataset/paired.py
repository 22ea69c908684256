"""Paired significance test between two systems over shared (train, test, document) units.

The statistic is the difference of the two systems' stiffness: each unit's difference
``d = score_a - score_b`` is weighted by ``1 / (cells * documents in its cell)``, so
``sum(w * d)`` is the mean over cells of the cell-mean differences. Under the null hypothesis
the two systems are exchangeable on every unit, so each ``d`` is as likely as ``-d`` (sign
flips, exact when there are few units), as in :func:`scoring.metrics.stats.paired_permutation_test`
whose machinery it reuses. :func:`units_of` flattens a system's cells into units for the
unweighted paired tests of :mod:`scoring.metrics.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from ..stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, check_resampling
from ..stats.errors import StatsError, canonical_key
from ..stats.paired import (
    ALTERNATIVES,
    PairedTestResult,
    paired_result,
    permutation_null,
)
from .errors import BadScoreError, MismatchedUnitsError, NoCellsError
from .matrix import Cells, is_finite_number

TEST_STIFFNESS_PERMUTATION = "paired permutation (sign flip), cell-weighted"

Unit = tuple[Hashable, Hashable, Hashable]


@dataclass(frozen=True)
class CrossDatasetTestResult:
    """A paired test of system A against system B over (train, test, document) units.

    Attributes:
        result: the test itself; its ``statistic`` is ``stiffness_a - stiffness_b`` on the
            units tested and its ``n`` the number of units.
        cells: number of (train, test) cells tested.
        dropped_a: units of system A left out (only with ``shared_only=True``).
        dropped_b: units of system B left out (only with ``shared_only=True``).
    """

    result: PairedTestResult
    cells: int
    dropped_a: int = 0
    dropped_b: int = 0


def units_of(cells: Cells, *, system: Hashable = "system") -> dict[Unit, float]:
    """Flatten one system's cells into ``(train, test, document) -> score``.

    Args:
        cells: ``(train, test)`` -> document key -> score.
        system: the system's name, for error messages.

    Returns:
        The units and their scores.

    Raises:
        BadScoreError: a score is not a finite number.
    """
    units = {}
    for (train, test), scores in cells.items():
        for document, value in scores.items():
            if not is_finite_number(value):
                raise BadScoreError(system, (train, test), document, value)
            units[(train, test, document)] = float(value)
    return units


def _unit_key(unit: Unit) -> tuple:
    return tuple(canonical_key(part) for part in unit)


@dataclass(frozen=True)
class PairedUnits:
    """Two systems' units, paired.

    Attributes:
        a: system A's ``(train, test, document) -> score``.
        b: system B's.
        shared: the units both cover, in canonical order (type name, then ``str`` of each part).
        only_a: units only system A covers.
        only_b: units only system B covers.
    """

    a: dict[Unit, float]
    b: dict[Unit, float]
    shared: list[Unit]
    only_a: frozenset[Unit]
    only_b: frozenset[Unit]


def paired_units(a: Cells, b: Cells, *, shared_only: bool) -> PairedUnits:
    """Flatten two systems' cells into units and pair them.

    Args:
        a: system A's ``(train, test)`` -> document key -> score.
        b: system B's.
        shared_only: keep the units both cover (the others are counted) instead of refusing
            different units.

    Returns:
        A :class:`PairedUnits`.

    Raises:
        MismatchedUnitsError: the systems cover different units and ``shared_only`` is False.
        BadScoreError: a score is not a finite number.
    """
    units_a = units_of(a, system="A")
    units_b = units_of(b, system="B")
    only_a = frozenset(units_a.keys() - units_b.keys())
    only_b = frozenset(units_b.keys() - units_a.keys())
    if (only_a or only_b) and not shared_only:
        raise MismatchedUnitsError(only_a, only_b)
    shared = sorted(units_a.keys() & units_b.keys(), key=_unit_key)
    return PairedUnits(a=units_a, b=units_b, shared=shared, only_a=only_a, only_b=only_b)


def stiffness_permutation_test(
    a: Cells,
    b: Cells,
    *,
    shared_only: bool = False,
    alternative: str = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> CrossDatasetTestResult:
    """Paired sign-flip test of the stiffness difference between two systems.

    Units are put in canonical order (type name, then ``str`` of train, test, document), so the
    result never depends on the order of the mappings. When there are at most
    ``MAX_EXACT_N`` units and ``2 ** n <= resamples`` every sign pattern is enumerated and
    the p-value is exact; otherwise ``resamples`` patterns are drawn with
    ``numpy.random.default_rng(seed)`` and ``p = (1 + count) / (1 + resamples)``.

    Args:
        a: system A's ``(train, test)`` -> document key -> score.
        b: system B's, on the same units.
        shared_only: test on the units both systems cover (the others are counted in the
            result) instead of refusing different units.
        alternative: ``"two-sided"`` (default), ``"greater"`` (A better) or ``"less"``.
        resamples: random sign patterns when the test is not exact (default 10,000).
        seed: seed of the random generator (default 0).

    Returns:
        A :class:`CrossDatasetTestResult`.

    Raises:
        MismatchedUnitsError: the systems cover different units and ``shared_only`` is False.
        NoCellsError: fewer than 2 units to test.
        BadScoreError: a score is not a finite number.
        StatsError: a bad ``alternative`` or ``resamples``.
    """
    if alternative not in ALTERNATIVES:
        raise StatsError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    check_resampling(resamples)
    paired = paired_units(a, b, shared_only=shared_only)
    units_a, units_b, units = paired.a, paired.b, paired.shared
    if len(units) < 2:
        raise NoCellsError(
            f"paired cross-dataset test: needs at least 2 shared units, got {len(units)}"
        )
    per_cell: dict[tuple[Hashable, Hashable], int] = {}
    for train, test, _ in units:
        per_cell[(train, test)] = per_cell.get((train, test), 0) + 1
    weights = np.array([1.0 / (len(per_cell) * per_cell[(tr, te)]) for tr, te, _ in units])
    diffs = np.array([units_a[u] - units_b[u] for u in units])
    weighted = weights * diffs
    n = len(units)
    null, exact = permutation_null(
        n,
        resamples,
        seed,
        lambda signs: signs @ weighted,
        from_bits=lambda bits: 1 - 2 * bits,
        draw=lambda rng, shape: rng.choice(np.array([-1.0, 1.0]), size=shape),
    )
    result = paired_result(
        PairedTestResult,
        test=TEST_STIFFNESS_PERMUTATION,
        observed=math.fsum(weighted.tolist()),
        null=null,
        alternative=alternative,
        exact=exact,
        n=n,
        seed=seed,
    )
    return CrossDatasetTestResult(
        result=result,
        cells=len(per_cell),
        dropped_a=len(paired.only_a),
        dropped_b=len(paired.only_b),
    )
