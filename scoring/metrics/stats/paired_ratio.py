"""Paired tests between two systems' pooled ratios over the same units (permutation, bootstrap).

Each system gives ``{unit: (numerator, denominator)}``; the statistic is the difference of the
pooled ratios ``sum(num) / sum(den)``. See :mod:`.ratio` for why a pooled score needs this.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_resampling,
    resample_indices,
)
from .errors import (
    NonFiniteValueError,
    StatsError,
    TooFewPointsError,
)
from .order import Order
from .paired import _check_alternative, paired_keys, paired_result, permutation_null
from .ratio import _constant_ratio, _pooled, _positive, _quantiles

TEST_RATIO_PERMUTATION = "paired permutation of pooled ratios (unit swap)"
TEST_RATIO_BOOTSTRAP = "paired bootstrap of pooled ratios (shifted)"


@dataclass(frozen=True)
class PairedRatioTestResult:
    """The outcome of a paired test of system A's pooled ratio against system B's.

    Attributes:
        test: the test's name (``TEST_RATIO_PERMUTATION`` or ``TEST_RATIO_BOOTSTRAP``).
        statistic: ``ratio_a - ratio_b``.
        ratio_a: system A's pooled ratio over the units.
        ratio_b: system B's pooled ratio over the same units.
        p_value: the p-value under the test's null hypothesis (never 0).
        n: number of units.
        alternative: ``"two-sided"``, ``"greater"`` (A's ratio larger) or ``"less"``.
        resamples: swap patterns or resamples used (``2 ** n`` for an exact permutation test).
        exact: whether every swap pattern was enumerated (permutation test only).
        seed: seed of the random generator.
        low: lower end of the percentile interval of ``ratio_a - ratio_b`` (bootstrap test
            only, else ``None``).
        high: upper end of that interval (bootstrap test only, else ``None``).
        level: confidence level of that interval (bootstrap test only, else ``None``).
    """

    test: str
    statistic: float
    ratio_a: float
    ratio_b: float
    p_value: float
    n: int
    alternative: str
    resamples: int
    exact: bool
    seed: int
    low: float | None = None
    high: float | None = None
    level: float | None = None


@dataclass(frozen=True)
class _PairedTerms:
    units: tuple[Hashable, ...]
    num_a: np.ndarray
    den_a: np.ndarray
    num_b: np.ndarray
    den_b: np.ndarray


def _side(
    terms: Mapping[Hashable, Sequence[float]], units: Sequence[Hashable], side: str
) -> tuple[np.ndarray, np.ndarray]:
    what = f"paired ratio test, {side}"
    num, den = [], []
    for unit in units:
        value = terms[unit]
        try:
            if isinstance(value, str | bytes):
                raise TypeError
            pair = tuple(value)
        except TypeError:
            pair = ()
        if len(pair) != 2:
            raise StatsError(
                f"{what}: unit {unit!r} must be a (numerator, denominator) pair, got {value!r}"
            )
        for term, bucket in zip(pair, (num, den), strict=True):
            if (
                isinstance(term, bool)
                or not isinstance(term, int | float | np.number)
                or not np.isfinite(term)
            ):
                raise NonFiniteValueError(what, item=unit, value=term)
            bucket.append(float(term))
    den_array = np.array(den, dtype=float)
    _positive(den_array, what, units)
    return np.array(num, dtype=float), den_array


def _paired_terms(
    a: Mapping[Hashable, Sequence[float]],
    b: Mapping[Hashable, Sequence[float]],
    order: Order = None,
) -> _PairedTerms:
    """Pair two systems' ratio terms unit by unit, in ``order`` or a canonical order.

    Args:
        a: unit key -> ``(numerator, denominator)`` of system A.
        b: unit key -> ``(numerator, denominator)`` of system B (the same units).
        order: the units' order (see :func:`.order.in_order`); None: canonical key order.

    Returns:
        The units in that order (canonical: type name, then ``str`` of the key) and both
        systems' numerators and denominators in that order.

    Raises:
        MismatchedDocumentsError: the two mappings cover different units.
        UnorderedKeyError: ``order`` does not list some unit.
        StatsError: a value that is not a ``(numerator, denominator)`` pair.
        NonFiniteValueError: a term is NaN, infinite or not a number (names the unit).
        NonPositiveDenominatorError: a denominator is zero or negative (names the unit).
        TooFewPointsError: fewer than 2 units.
    """
    units = paired_keys(a, b, what="paired ratio test", order=order)
    if len(units) < 2:
        raise TooFewPointsError("paired ratio test", n=len(units), needed=2)
    num_a, den_a = _side(a, units, "system A")
    num_b, den_b = _side(b, units, "system B")
    return _PairedTerms(units, num_a, den_a, num_b, den_b)


# Why not scipy.stats.permutation_test: it permutes values, so the units go in as labels into a
# table of terms (tests/metrics/test_stats_scipy.py does so: the exact p-values are equal).
# Kept for the reasons at paired.paired_permutation_test (ties, the two-sided p, the seeded
# draws) and time: 11,490 units, 1,000 swap patterns, 0.36 s here against 3.0 s
# (bench/bench_stats_scipy.py).
def paired_ratio_permutation_test(
    a: Mapping[Hashable, Sequence[float]],
    b: Mapping[Hashable, Sequence[float]],
    *,
    alternative: str = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    order: Order = None,
) -> PairedRatioTestResult:
    """Paired permutation test of the difference between two systems' pooled ratios.

    The statistic is ``d = sum(num_a) / sum(den_a) - sum(num_b) / sum(den_b)`` over the same
    units. Under the null hypothesis the two systems are exchangeable on each unit, so a unit's
    two ``(numerator, denominator)`` pairs may be swapped: each swap pattern gives a ``d*``
    with both ratios recomputed from the swapped terms. Swapping every unit gives ``-d``. When
    ``2 ** n <= resamples`` and ``n <= MAX_EXACT_N``, every pattern is enumerated and the
    p-value is exact (count / 2**n; the identity pattern counts, so it is at least 2**-n);
    otherwise ``resamples`` random patterns are drawn with ``numpy.random.default_rng(seed)``
    and ``p = (1 + count) / (1 + resamples)``, which is never 0. Identical systems give
    ``p = 1``. As in :func:`~.paired.paired_permutation_test`, statistics within a relative
    1e-12 of ``d`` count as ties.

    For PolyTope, pass :meth:`scoring.metrics.polytope.PolytopeSystemScore.ratio_terms` of two
    systems scored on the same segments: ``d`` is then a difference of penalty rates, and the
    difference of system scores is ``-100 * d``.

    Args:
        a: unit key -> ``(numerator, denominator)`` of system A; denominators positive.
        b: unit key -> ``(numerator, denominator)`` of system B (exactly the same units).
        alternative: ``"two-sided"`` (default), ``"greater"`` (A's ratio larger) or ``"less"``.
        resamples: random swap patterns when the test is not exact (default 10,000).
        seed: seed of the random generator (default 0).
        order: the units' order (see :func:`.order.in_order`); None: canonical key order.

    Returns:
        A :class:`PairedRatioTestResult` (``low``, ``high`` and ``level`` are ``None``).

    Raises:
        MismatchedDocumentsError: the systems cover different units.
        UnorderedKeyError: ``order`` does not list some unit.
        NonFiniteValueError: a term is NaN, infinite or not a number.
        NonPositiveDenominatorError: a denominator is zero or negative.
        TooFewPointsError: fewer than 2 units.
        StatsError: a malformed pair of terms, or a bad ``alternative`` or ``resamples``.
    """
    _check_alternative(alternative)
    check_resampling(resamples)
    terms = _paired_terms(a, b, order)
    n = len(terms.units)
    ratio_a = _pooled(terms.num_a, terms.den_a)
    ratio_b = _pooled(terms.num_b, terms.den_b)
    observed = ratio_a - ratio_b
    total_num_a, total_den_a = terms.num_a.sum(), terms.den_a.sum()
    total_num_b, total_den_b = terms.num_b.sum(), terms.den_b.sum()
    shift_num = terms.num_b - terms.num_a  # what swapping a unit moves from B to A
    shift_den = terms.den_b - terms.den_a

    def null_of(swaps: np.ndarray) -> np.ndarray:
        moved_num, moved_den = swaps @ shift_num, swaps @ shift_den
        swapped_a = (total_num_a + moved_num) / (total_den_a + moved_den)
        swapped_b = (total_num_b - moved_num) / (total_den_b - moved_den)
        return swapped_a - swapped_b

    null, exact = permutation_null(
        n,
        resamples,
        seed,
        null_of,
        from_bits=lambda bits: bits.astype(float),
        draw=lambda rng, shape: rng.integers(0, 2, size=shape).astype(float),
    )
    return paired_result(
        PairedRatioTestResult,
        test=TEST_RATIO_PERMUTATION,
        observed=observed,
        null=null,
        alternative=alternative,
        exact=exact,
        n=n,
        seed=seed,
        ratio_a=ratio_a,
        ratio_b=ratio_b,
    )


# SciPy has no bootstrap test; the distribution is bootstrap_ratio_ci's (SciPy's; see there).
def paired_ratio_bootstrap_test(
    a: Mapping[Hashable, Sequence[float]],
    b: Mapping[Hashable, Sequence[float]],
    *,
    alternative: str = "two-sided",
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    order: Order = None,
) -> PairedRatioTestResult:
    """Paired bootstrap test of the difference between two pooled ratios, with its interval.

    Units are resampled with replacement (``numpy.random.default_rng(seed)``, the same
    resamples as :func:`bootstrap_ratio_ci`), keeping both systems' terms of a unit together;
    each resample's ``d* = ratio_a* - ratio_b*`` is recomputed from the resampled sums. The null
    distribution is the bootstrap distribution shifted to zero, ``d* - d`` (Efron and
    Tibshirani, 1993, Sec. 16.4); for the two-sided test
    ``p = (1 + #{|d* - d| >= |d|}) / (1 + resamples)``, never 0. The interval is the percentile
    interval of ``d*`` at ``level``; when both systems have a constant per-unit ratio it is
    ``[d, d]``. Identical systems give ``p = 1``.

    Args:
        a: unit key -> ``(numerator, denominator)`` of system A; denominators positive.
        b: unit key -> ``(numerator, denominator)`` of system B (exactly the same units).
        alternative: ``"two-sided"`` (default), ``"greater"`` (A's ratio larger) or ``"less"``.
        level: confidence level of the interval (default 0.95).
        resamples: number of bootstrap resamples (default 10,000).
        seed: seed of the random generator (default 0).
        order: the units' order (see :func:`.order.in_order`); None: canonical key order.

    Returns:
        A :class:`PairedRatioTestResult` whose ``low`` and ``high`` bound ``ratio_a - ratio_b``.

    Raises:
        MismatchedDocumentsError: the systems cover different units.
        UnorderedKeyError: ``order`` does not list some unit.
        NonFiniteValueError: a term is NaN, infinite or not a number.
        NonPositiveDenominatorError: a denominator is zero or negative.
        TooFewPointsError: fewer than 2 units.
        StatsError: a malformed pair of terms, or a bad ``alternative``, ``level`` or
            ``resamples``.
    """
    _check_alternative(alternative)
    check_resampling(resamples, level)
    terms = _paired_terms(a, b, order)
    ratio_a = _pooled(terms.num_a, terms.den_a)
    ratio_b = _pooled(terms.num_b, terms.den_b)
    observed = ratio_a - ratio_b
    rng = np.random.default_rng(seed)
    differences = np.concatenate(
        [
            terms.num_a[i].sum(axis=1) / terms.den_a[i].sum(axis=1)
            - terms.num_b[i].sum(axis=1) / terms.den_b[i].sum(axis=1)
            for i in resample_indices(len(terms.units), resamples, rng)
        ]
    )
    if _constant_ratio(terms.num_a, terms.den_a) and _constant_ratio(terms.num_b, terms.den_b):
        low = high = observed
    else:
        low, high = _quantiles(differences, level)
    return paired_result(
        PairedRatioTestResult,
        test=TEST_RATIO_BOOTSTRAP,
        observed=observed,
        null=differences - observed,
        alternative=alternative,
        exact=False,
        n=len(terms.units),
        seed=seed,
        resamples=resamples,
        ratio_a=ratio_a,
        ratio_b=ratio_b,
        low=low,
        high=high,
        level=float(level),
    )
