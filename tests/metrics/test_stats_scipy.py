"""Loupe's bootstraps and permutation tests against scipy.stats where both compute the same thing.

SciPy's ``bootstrap`` given ``numpy.random.default_rng(seed)`` draws exactly Loupe's resamples,
so the bootstrap distributions are equal value for value and Loupe's percentile interval is
numpy's quantiles of SciPy's distribution (SciPy's own quantile rounds otherwise in the last
bits). SciPy's ``permutation_test`` draws its random patterns another way, so only the exact
enumeration of every pattern can agree: there the p-values are equal, except where a tie exists
only in exact arithmetic (the last test). The comments at the functions in
``scoring/metrics/stats`` say why Loupe keeps its own code (bench/bench_stats_scipy.py times
both).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.metrics.stats import (
    bootstrap_ci,
    bootstrap_ratio_ci,
    paired_permutation_test,
    paired_permutation_tests,
    paired_ratio_permutation_test,
)
from scoring.metrics.stats.bootstrap import bootstrap_means
from scoring.metrics.stats.ratio import _resampled_ratios

ALTERNATIVES = ("two-sided", "greater", "less")


def _same_percentile_interval(ours, theirs, level: float) -> None:
    """Loupe's bounds are numpy's quantiles of SciPy's bootstrap distribution, exactly. SciPy
    interpolates between the same two order statistics with another formula (1.17: its
    ``stats.quantile``), which rounds otherwise in the last bits, so its bounds are checked
    to lie between those order statistics."""
    drawn = theirs.bootstrap_distribution
    tail = (1.0 - level) / 2.0
    assert [ours.low, ours.high] == np.quantile(drawn, [tail, 1.0 - tail]).tolist()
    ordered = np.sort(drawn)
    for q, bound in zip((tail, 1.0 - tail), theirs.confidence_interval, strict=True):
        j = int(np.floor(q * (drawn.size - 1)))
        assert ordered[j] <= bound <= ordered[j + 1]


@pytest.mark.parametrize(("n", "seed"), [(2, 0), (37, 1), (2_500, 2)])
def test_bootstrap_ci_is_scipys_percentile_bootstrap(n, seed):
    values = np.random.default_rng(100 + seed).beta(2.0, 5.0, size=n)
    theirs = scipy_stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=3_000,
        method="percentile",
        confidence_level=0.9,
        rng=np.random.default_rng(seed),
    )
    drawn = bootstrap_means(values, 3_000, np.random.default_rng(seed))
    assert np.array_equal(drawn, theirs.bootstrap_distribution)
    _same_percentile_interval(
        bootstrap_ci(values, level=0.9, resamples=3_000, seed=seed), theirs, level=0.9
    )


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_ratio_ci_is_scipys_paired_percentile_bootstrap(seed):
    rng = np.random.default_rng(200 + seed)
    penalties = rng.integers(0, 12, size=300) / 2.0
    words = rng.integers(5, 80, size=300).astype(float)
    theirs = scipy_stats.bootstrap(
        (penalties, words),
        lambda num, den, axis: num.sum(axis=axis) / den.sum(axis=axis),
        n_resamples=2_000,
        paired=True,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    drawn = _resampled_ratios(penalties, words, 2_000, np.random.default_rng(seed))
    assert np.array_equal(drawn, theirs.bootstrap_distribution)
    _same_percentile_interval(
        bootstrap_ratio_ci(penalties, words, resamples=2_000, seed=seed), theirs, level=0.95
    )


def _exact_permutation_p(samples, statistic, alternative):
    return scipy_stats.permutation_test(
        samples,
        statistic,
        permutation_type="samples",
        n_resamples=np.inf,  # every pattern: 2**n
        alternative=alternative,
        vectorized=True,
    ).pvalue


def _mean_difference(u, v, axis):
    return np.mean(u - v, axis=axis)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize(("n", "seed"), [(2, 0), (5, 1), (9, 2), (13, 3)])
def test_exact_permutation_p_is_scipys(alternative, n, seed):
    # Continuous scores: no two sign patterns tie by rounding (see paired_permutation_tests).
    rng = np.random.default_rng(300 + seed)
    a, b = rng.normal(size=n), rng.normal(size=n) + 0.3
    ours = paired_permutation_test(dict(enumerate(a)), dict(enumerate(b)), alternative=alternative)
    assert ours.exact and ours.resamples == 2**n
    assert ours.p_value == _exact_permutation_p((a, b), _mean_difference, alternative)


def test_batched_exact_permutation_p_values_are_scipys():
    rng = np.random.default_rng(7)
    differences = rng.normal(0.1, 1.0, size=(6, 11))
    ours = paired_permutation_tests(differences)
    for row, result in zip(differences, ours, strict=True):
        assert result.exact
        assert result.p_value == _exact_permutation_p(
            (row,), lambda d, axis: np.mean(d, axis=axis), "two-sided"
        )


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(4))
def test_exact_pooled_ratio_permutation_p_is_scipys(alternative, seed):
    # SciPy permutes values, so each system's units go in as labels into one table of terms:
    # swapping a unit's two labels swaps its (penalty, words) pairs. Half-integer penalties and
    # integer word counts keep every sum exact, so both null distributions hold the same values.
    rng = np.random.default_rng(400 + seed)
    n = 10
    num = rng.integers(0, 14, size=2 * n) / 2.0
    den = rng.integers(5, 40, size=2 * n).astype(float)
    a = {f"s{i}": (num[i], den[i]) for i in range(n)}
    b = {f"s{i}": (num[n + i], den[n + i]) for i in range(n)}

    def pooled_difference(x, y, axis):
        return num[x].sum(axis=axis) / den[x].sum(axis=axis) - num[y].sum(axis=axis) / den[y].sum(
            axis=axis
        )

    ours = paired_ratio_permutation_test(a, b, alternative=alternative)
    assert ours.exact and ours.resamples == 2**n
    theirs = _exact_permutation_p(
        (np.arange(n), np.arange(n, 2 * n)), pooled_difference, alternative
    )
    assert ours.p_value == theirs


def test_a_difference_zero_in_exact_arithmetic_counts_every_pattern():
    # Both systems sum to 24/7, so the mean difference is 0 and every sign pattern is at least
    # as extreme: p = 1. In floating point the mean is -1.9e-17; Loupe's tie tolerance (1e-12)
    # counts the patterns that round to other tiny values, where SciPy's relative one
    # (100 eps x 1.9e-17) does not: scipy.stats.permutation_test gives p = 0.9375.
    a = dict(enumerate(np.array([3, 3, 5, 2, 5, 6]) / 7))
    b = dict(enumerate(np.array([6, 0, 7, 5, 5, 1]) / 7))
    result = paired_permutation_test(a, b)
    assert result.exact and abs(result.statistic) < 1e-16
    assert result.p_value == 1.0
