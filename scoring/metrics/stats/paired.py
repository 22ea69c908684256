"""Paired tests between two systems scored on the same documents: permutation and bootstrap."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

import numpy as np

from .bootstrap import (
    _BLOCK_INDICES,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ConfidenceInterval,
    as_finite_array,
    as_finite_matrix,
    bootstrap_means,
    check_resampling,
    percentile_interval,
)
from .errors import MismatchedDocumentsError, NonFiniteValueError, StatsError
from .order import Order, in_order

TEST_PERMUTATION = "paired permutation (sign flip)"
TEST_BOOTSTRAP = "paired bootstrap (shifted)"
ALTERNATIVES = ("two-sided", "greater", "less")

# The largest n whose 2**n sign patterns are enumerated (65,536 rows); beyond it, sampling.
MAX_EXACT_N = 16

# Two statistics closer than this (relative to the observed one) count as equal, so that sums
# that are equal in exact arithmetic are not split by rounding.
_TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PairedTestResult:
    """The outcome of a paired test of system A against system B.

    Attributes:
        test: the test's name (``TEST_PERMUTATION`` or ``TEST_BOOTSTRAP``).
        statistic: the mean over documents of ``score_a - score_b``.
        p_value: the p-value under the test's null hypothesis.
        n: number of documents.
        alternative: ``"two-sided"``, ``"greater"`` (A > B) or ``"less"`` (A < B).
        resamples: permutations or resamples used (``2 ** n`` for an exact permutation test).
        exact: whether every sign flip was enumerated (permutation test only).
        seed: seed of the random generator.
        ci: the bootstrap interval of the mean difference (bootstrap test only).
    """

    test: str
    statistic: float
    p_value: float
    n: int
    alternative: str
    resamples: int
    exact: bool
    seed: int
    ci: ConfidenceInterval | None = None


def paired_keys(
    a: Mapping[Hashable, object],
    b: Mapping[Hashable, object],
    *,
    what: str,
    order: Order = None,
):
    """The keys both systems cover, in ``order``; they must be the same keys.

    Args:
        a: key -> value of system A.
        b: key -> value of system B.
        what: the test's name, for the error.
        order: the keys' order (see :func:`.order.in_order`); None: canonical key order.

    Returns:
        The keys as a tuple in that order.

    Raises:
        MismatchedDocumentsError: the two mappings cover different keys.
        UnorderedKeyError: ``order`` does not list some key.
    """
    if a.keys() != b.keys():
        raise MismatchedDocumentsError(
            what,
            only_left=a.keys() - b.keys(),
            only_right=b.keys() - a.keys(),
            left="system A",
            right="system B",
        )
    return in_order(a, order, what=what)


def paired_differences(
    a: Mapping[Hashable, float], b: Mapping[Hashable, float], *, order: Order = None
) -> tuple[tuple[Hashable, ...], np.ndarray]:
    """Pair two systems' per-document scores and return ``score_a - score_b`` per document.

    Documents are put in ``order`` (e.g. the dataset's), or without one in a canonical order
    (type name, then ``str`` of the key), so the result never depends on the order of the
    mappings.

    Args:
        a: document key -> score of system A.
        b: document key -> score of system B.
        order: the documents' order (see :func:`.order.in_order`); None: canonical.

    Returns:
        The documents in that order and the array of differences in that order.

    Raises:
        MismatchedDocumentsError: the two mappings cover different documents.
        UnorderedKeyError: ``order`` does not list some document.
        NonFiniteValueError: a score is NaN or infinite (the error names the document).
        TooFewPointsError: fewer than 2 documents.
    """
    documents = paired_keys(a, b, what="paired test", order=order)
    left, right = ([scores[d] for d in documents] for scores in (a, b))
    # Plain floats (the usual case) subtract in arrays; anything else, or a non-finite
    # difference, is checked value by value so that the error names the document.
    plain = set(map(type, left)) | set(map(type, right)) <= {float}
    diffs = np.array(left, dtype=float) - np.array(right, dtype=float) if plain else None
    if diffs is None or not np.isfinite(diffs).all():
        for side, values in (("system A", left), ("system B", right)):
            for doc, value in zip(documents, values, strict=True):
                if not isinstance(value, int | float | np.number) or not np.isfinite(value):
                    raise NonFiniteValueError(f"paired test, {side}", item=doc, value=value)
        diffs = np.array([float(x) - float(y) for x, y in zip(left, right, strict=True)])
    return documents, as_finite_array(diffs, "paired test", needed=2)


def _p_value(null: np.ndarray, observed: float, alternative: str, *, exact: bool) -> float:
    """Share of null statistics at least as extreme as ``observed`` (add-one if sampled)."""
    tol = _TIE_TOLERANCE * max(1.0, abs(observed))
    if alternative == "two-sided":
        hits = np.count_nonzero(np.abs(null) >= abs(observed) - tol)
    elif alternative == "greater":
        hits = np.count_nonzero(null >= observed - tol)
    else:
        hits = np.count_nonzero(null <= observed + tol)
    if exact:
        return float(hits / null.size)
    return float((hits + 1) / (null.size + 1))


def paired_result(
    result_type: type,
    *,
    test: str,
    observed: float,
    null: np.ndarray,
    alternative: str,
    exact: bool,
    n: int,
    seed: int,
    resamples: int | None = None,
    **extra,
):
    """Build a paired test's result: the statistic, its p-value against ``null``, and settings.

    Args:
        result_type: :class:`PairedTestResult` or the ratio tests' result class.
        test: the test's name.
        observed: the observed statistic.
        null: the statistics of the null distribution (centred on zero).
        alternative: ``"two-sided"``, ``"greater"`` or ``"less"``.
        exact: whether ``null`` enumerates every pattern (no add-one in the p-value).
        n: documents or units compared.
        seed: the random generator's seed.
        resamples: resamples drawn; default ``null.size``.
        **extra: the result type's further fields (``ci``, ``ratio_a``, ``low``, ...).

    Returns:
        An instance of ``result_type``.
    """
    return result_type(
        test=test,
        statistic=observed,
        p_value=_p_value(null, observed, alternative, exact=exact),
        n=n,
        alternative=alternative,
        resamples=int(null.size) if resamples is None else resamples,
        exact=exact,
        seed=seed,
        **extra,
    )


def permutation_null(
    n: int,
    resamples: int,
    seed: int,
    null_of: Callable[[np.ndarray], np.ndarray],
    *,
    from_bits: Callable[[np.ndarray], np.ndarray],
    draw: Callable[[np.random.Generator, tuple[int, int]], np.ndarray],
) -> tuple[np.ndarray, bool]:
    """The null distribution of a paired permutation test, exact when small enough.

    When ``n <= MAX_EXACT_N`` and ``2 ** n <= resamples`` every pattern is enumerated (as
    0/1 bits, turned into the caller's patterns by ``from_bits``); otherwise ``resamples``
    random patterns are drawn by ``draw`` from ``numpy.random.default_rng(seed)``, in blocks
    of about a million entries so memory stays small.

    Args:
        n: number of paired units.
        resamples: random patterns when not exact.
        seed: seed of the random generator.
        null_of: patterns ``(rows, n)`` -> the statistic for each row.
        from_bits: 0/1 bit patterns -> the caller's patterns (e.g. signs ``1 - 2 * bits``).
        draw: ``(rng, shape)`` -> random patterns in the caller's encoding.

    Returns:
        ``(null statistics, exact)``.
    """
    if n <= MAX_EXACT_N and 2**n <= resamples:
        return null_of(from_bits((np.arange(2**n)[:, None] >> np.arange(n)) & 1)), True
    rng = np.random.default_rng(seed)
    rows = max(1, _BLOCK_INDICES // n)
    blocks = [
        null_of(draw(rng, (min(rows, resamples - start), n))) for start in range(0, resamples, rows)
    ]
    return np.concatenate(blocks), False


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise StatsError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")


# Why not scipy.stats.permutation_test(permutation_type="samples"): it is the same test, and its
# exact enumeration gives the same p-values (tests/metrics/test_stats_scipy.py), but
# - ties: SciPy counts a null statistic as a tie only within a relative 100 eps of the observed
#   one. A difference that is 0 in exact arithmetic but rounds to -1.9e-17 (systems summing to
#   24/7 each) gets p = 0.9375 from SciPy, 1 here (test_stats_scipy.py's
#   test_a_difference_zero_in_exact_arithmetic_counts_every_pattern). Scores that are ratios of
#   small integers (FAR, ROUGE) make such ties common;
# - two-sided p: SciPy doubles the smaller one-sided p, so a sampled test's floor is
#   2 / (resamples + 1); here it is 1 / (resamples + 1), as |d*| >= |d| counts;
# - draws: SciPy draws its patterns another way, so every seeded p-value would change;
# - time: 11,490 documents, 1,000 sign patterns: 0.30 s here against 1.6 s; 9 pairs at once
#   (a leaderboard's adjacent systems, paired_permutation_tests): 0.20 s against 2.6 s, and
#   1.1 s against 43 s with 10,000 (bench/bench_stats_scipy.py).
def paired_permutation_test(
    a: Mapping[Hashable, float],
    b: Mapping[Hashable, float],
    *,
    alternative: str = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    order: Order = None,
) -> PairedTestResult:
    """Paired permutation test of the mean difference between two systems (sign flips).

    Under the null hypothesis the two systems are exchangeable on each document, so each
    difference ``d_i = a_i - b_i`` is as likely to be ``-d_i``. The statistic is ``mean(d)``.
    When ``2 ** n <= resamples`` and ``n <= MAX_EXACT_N``, every sign pattern is enumerated and
    the p-value is exact (count / 2**n); otherwise ``resamples`` random sign patterns are drawn with
    ``numpy.random.default_rng(seed)`` and ``p = (1 + count) / (1 + resamples)``, which is never
    0 (Phipson and Smyth, 2010). Identical systems give ``p = 1``.

    Args:
        a: document key -> score of system A.
        b: document key -> score of system B (exactly the same documents).
        alternative: ``"two-sided"`` (default), ``"greater"`` (A better) or ``"less"``.
        resamples: random sign patterns when the test is not exact (default 10,000).
        seed: seed of the random generator (default 0).
        order: the documents' order for the sign patterns (see :func:`.order.in_order`);
            None: canonical key order.

    Returns:
        A :class:`PairedTestResult`.

    Raises:
        MismatchedDocumentsError: the systems cover different documents.
        UnorderedKeyError: ``order`` does not list some document.
        NonFiniteValueError: a score is NaN or infinite.
        TooFewPointsError: fewer than 2 documents.
        StatsError: a bad ``alternative`` or ``resamples``.
    """
    _check_alternative(alternative)
    check_resampling(resamples)
    _, diffs = paired_differences(a, b, order=order)
    return paired_permutation_tests(
        diffs[None, :], alternative=alternative, resamples=resamples, seed=seed
    )[0]


def paired_permutation_tests(
    differences,
    *,
    alternative: str = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[PairedTestResult, ...]:
    """:func:`paired_permutation_test` of many pairs of systems over the same documents at once.

    Each row of ``differences`` is one pair's ``score_a - score_b`` per document, the documents
    in the same order in every row. The same seed draws the same sign patterns for every row,
    so the patterns are drawn once and every row's null statistics are one matrix product.
    The results are exactly those of :func:`paired_permutation_test` on each pair alone: a
    product's sum may differ from the elementwise mean by rounding (at most about
    ``eps * sum(|d|)``), so every null statistic within four times that of the p-value's cut
    is recomputed elementwise, as the single test computes it, before it is counted.

    Args:
        differences: an ``(m, n)`` array-like: m pairs, n >= 2 finite differences each.
        alternative: ``"two-sided"`` (default), ``"greater"`` (A better) or ``"less"``.
        resamples: random sign patterns when the test is not exact (default 10,000).
        seed: seed of the random generator (default 0).

    Returns:
        One :class:`PairedTestResult` per row, in row order.

    Raises:
        NonFiniteValueError: a difference is NaN or infinite.
        TooFewPointsError: fewer than 2 documents.
        StatsError: not a 2-D array, or a bad ``alternative`` or ``resamples``.
    """
    _check_alternative(alternative)
    check_resampling(resamples)
    rows = as_finite_matrix(differences, "paired test", needed=2, axis=1)
    n = rows.shape[1]
    # Each row's statistic as the single test adds it up (a 1-D mean, pairwise summation).
    observed = [float(row.mean()) for row in rows]
    null, exact = permutation_null(
        n,
        resamples,
        seed,
        _SignedMeans(rows, observed, alternative),
        from_bits=lambda bits: 1 - 2 * bits,
        draw=lambda rng, shape: rng.choice(np.array([-1.0, 1.0]), size=shape),
    )
    return tuple(
        paired_result(
            PairedTestResult,
            test=TEST_PERMUTATION,
            observed=statistic,
            null=np.ascontiguousarray(null[:, j]),
            alternative=alternative,
            exact=exact,
            n=n,
            seed=seed,
        )
        for j, statistic in enumerate(observed)
    )


class _SignedMeans:
    """Every row's null statistics for a block of sign patterns: ``signs @ rows.T / n``.

    Called on each block :func:`permutation_null` draws or enumerates. A product's sum may
    differ from the elementwise mean by rounding; the statistics within that of a row's cut
    (where rounding could move them across) are recomputed as ``(signs * d).mean(axis=1)``,
    as the single test computes them.
    """

    def __init__(self, rows: np.ndarray, observed: list[float], alternative: str) -> None:
        self.rows = rows
        self.two_sided = alternative == "two-sided"
        tolerances = [_TIE_TOLERANCE * max(1.0, abs(statistic)) for statistic in observed]
        self.cuts = [
            abs(statistic) - tol
            if self.two_sided
            else statistic - tol
            if alternative == "greater"
            else statistic + tol
            for statistic, tol in zip(observed, tolerances, strict=True)
        ]
        # Both sums err by at most about eps * sum(|d|) after the division; 4x for margin.
        self.margins = 4.0 * np.finfo(float).eps * np.abs(rows).sum(axis=1) + np.finfo(float).tiny

    def __call__(self, signs: np.ndarray) -> np.ndarray:
        block = (signs @ self.rows.T) / self.rows.shape[1]
        for j, row in enumerate(self.rows):
            column = block[:, j]
            distance = (np.abs(column) if self.two_sided else column) - self.cuts[j]
            near = np.flatnonzero(np.abs(distance) <= self.margins[j])
            if near.size:
                column[near] = (signs[near] * row).mean(axis=1)
        return block


# SciPy has no bootstrap test (scipy.stats.bootstrap gives intervals only): the p-value from
# the shifted distribution is Loupe's, the distribution and the interval bootstrap_ci's (which
# equal SciPy's percentile bootstrap; see there).
def paired_bootstrap_test(
    a: Mapping[Hashable, float],
    b: Mapping[Hashable, float],
    *,
    alternative: str = "two-sided",
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    order: Order = None,
) -> PairedTestResult:
    """Paired bootstrap test of the mean difference, with its percentile interval.

    Documents are resampled with replacement (``numpy.random.default_rng(seed)``), keeping each
    document's pair together, and the mean difference ``m*`` of each resample is recorded. The
    null distribution is the bootstrap distribution shifted to mean zero, ``m* - m``
    (Efron and Tibshirani, 1993, Sec. 16.4); for the two-sided test
    ``p = (1 + #{|m* - m| >= |m|}) / (1 + resamples)``. The interval is the percentile interval
    of ``m*`` at ``level``. Identical systems give ``p = 1``.

    Args:
        a: document key -> score of system A.
        b: document key -> score of system B (exactly the same documents).
        alternative: ``"two-sided"`` (default), ``"greater"`` (A better) or ``"less"``.
        level: confidence level of the interval (default 0.95).
        resamples: number of bootstrap resamples (default 10,000).
        seed: seed of the random generator (default 0).
        order: the documents' order for the resamples (see :func:`.order.in_order`); None:
            canonical key order.

    Returns:
        A :class:`PairedTestResult` whose ``ci`` is the interval of the mean difference.

    Raises:
        MismatchedDocumentsError: the systems cover different documents.
        UnorderedKeyError: ``order`` does not list some document.
        NonFiniteValueError: a score is NaN or infinite.
        TooFewPointsError: fewer than 2 documents.
        StatsError: a bad ``alternative``, ``level`` or ``resamples``.
    """
    _check_alternative(alternative)
    check_resampling(resamples, level)
    _, diffs = paired_differences(a, b, order=order)
    means = bootstrap_means(diffs, resamples, np.random.default_rng(seed))
    ci = percentile_interval(diffs, means, level=level, resamples=resamples, seed=seed)
    observed = ci.mean
    return paired_result(
        PairedTestResult,
        test=TEST_BOOTSTRAP,
        observed=observed,
        null=means - observed,
        alternative=alternative,
        exact=False,
        n=int(diffs.size),
        seed=seed,
        resamples=resamples,
        ci=ci,
    )
