"""Bootstrap intervals of many columns at once: the same as bootstrap_ci column by column."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.metrics.errors import MetricsError
from scoring.metrics.stats import (
    ConfidenceInterval,
    NonFiniteValueError,
    StatsError,
    TooFewPointsError,
    bootstrap_ci,
    bootstrap_ci_columns,
)
from scoring.metrics.stats import bootstrap as bootstrap_module


def matrix(n: int, m: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(size=(n, m))


def assert_column_by_column(values: np.ndarray, **options) -> tuple[ConfidenceInterval, ...]:
    intervals = bootstrap_ci_columns(values, **options)
    assert len(intervals) == values.shape[1]
    for j, got in enumerate(intervals):
        alone = bootstrap_ci(values[:, j], **options)
        assert (got.n, got.level, got.method, got.resamples, got.seed) == (
            alone.n,
            alone.level,
            alone.method,
            alone.resamples,
            alone.seed,
        )
        assert got.mean == pytest.approx(alone.mean, abs=1e-12)
        assert got.low == pytest.approx(alone.low, abs=1e-12)
        assert got.high == pytest.approx(alone.high, abs=1e-12)
    return intervals


@pytest.mark.parametrize(("n", "m"), [(2, 1), (3, 2), (7, 4), (50, 6), (333, 3)])
def test_equals_bootstrap_ci_column_by_column(n, m):
    assert_column_by_column(matrix(n, m), resamples=2000, seed=3)


def test_equals_bootstrap_ci_with_the_defaults_and_other_levels():
    values = matrix(25, 3, seed=9)
    intervals = assert_column_by_column(values)
    assert {(ci.level, ci.resamples, ci.seed) for ci in intervals} == {(0.95, 10_000, 0)}
    for level in (0.5, 0.8, 0.99):
        assert_column_by_column(values, level=level, resamples=700, seed=42)


@pytest.mark.parametrize("n", [3, 5, 7, 11, 40])
def test_resamples_over_several_blocks(monkeypatch, n):
    # With a block of 36 indices, n = 5 takes 7 resamples per block (36 // 5; 5 does not
    # divide 36), so 100 resamples span 15 blocks, the last one partial; n = 40 exceeds the
    # block, which then holds a single resample (max(1, 36 // 40)). bootstrap_ci reads the same
    # block size, so both must still draw the same resamples.
    monkeypatch.setattr(bootstrap_module, "_BLOCK_INDICES", 36)
    rows = max(1, 36 // n)
    assert -(-100 // rows) > 1  # several blocks
    assert_column_by_column(matrix(n, 3, seed=n), resamples=100, seed=7)


def test_resamples_over_several_real_blocks():
    # With the real block size (2**20 indices), 300,000 rows give 3 resamples per block
    # (2**20 // 300,000 = 3, remainder 151,576), so 10 resamples take blocks of 3, 3, 3 and 1.
    n = 300_000
    assert bootstrap_module._BLOCK_INDICES // n == 3
    assert_column_by_column(matrix(n, 2, seed=5), resamples=10, seed=1)


def test_column_order_does_not_change_a_columns_interval():
    values = matrix(9, 4, seed=2)
    forward = bootstrap_ci_columns(values, resamples=300)
    backward = bootstrap_ci_columns(values[:, ::-1], resamples=300)
    for a, b in zip(forward, reversed(backward), strict=True):
        assert (a.mean, a.low, a.high) == pytest.approx((b.mean, b.low, b.high), abs=1e-12)


def test_constant_column_gives_a_degenerate_interval():
    values = np.column_stack([np.full(6, 0.25), np.arange(6.0), np.full(6, 3.0)])
    constant, varying, other = bootstrap_ci_columns(values, resamples=500)
    assert (constant.mean, constant.low, constant.high) == (0.25, 0.25, 0.25)
    assert (other.mean, other.low, other.high) == (3.0, 3.0, 3.0)
    assert varying.mean == 2.5 and varying.low < 2.5 < varying.high


def test_two_rows_hand_worked():
    # Resamples of two rows draw (r0, r0), (r0, r1), (r1, r0) or (r1, r1): the column means are
    # the row-0 value, the average or the row-1 value, with probability 1/4, 1/2, 1/4. With
    # 10,000 resamples the 2.5% and 97.5% quantiles are the two extremes.
    (first, second) = bootstrap_ci_columns([[0.0, 4.0], [1.0, 2.0]])
    assert (first.mean, first.low, first.high, first.n) == (0.5, 0.0, 1.0, 2)
    assert (second.mean, second.low, second.high, second.n) == (3.0, 2.0, 4.0, 2)


def test_accepts_nested_lists_and_no_columns():
    intervals = bootstrap_ci_columns([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]], resamples=50)
    assert len(intervals) == 2 and all(isinstance(ci, ConfidenceInterval) for ci in intervals)
    assert bootstrap_ci_columns(np.zeros((4, 0)), resamples=50) == ()


def test_deterministic_for_a_seed():
    values = matrix(12, 3, seed=4)
    first = bootstrap_ci_columns(values, resamples=400, seed=8)
    assert bootstrap_ci_columns(values, resamples=400, seed=8) == first


@pytest.mark.parametrize("shape", [(1, 3), (0, 3), (1, 1)])
def test_fewer_than_two_rows(shape):
    with pytest.raises(TooFewPointsError) as caught:
        bootstrap_ci_columns(np.zeros(shape))
    assert (caught.value.n, caught.value.needed) == (shape[0], 2)
    assert isinstance(caught.value, MetricsError)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_value_is_named_by_row_and_column(bad):
    values = matrix(5, 4)
    values[2, 1] = bad
    values[4, 3] = np.nan  # a later one: the first in row order is named
    with pytest.raises(NonFiniteValueError, match=r"\(2, 1\)") as caught:
        bootstrap_ci_columns(values)
    assert caught.value.item == (2, 1)
    assert caught.value.value == bad or np.isnan(caught.value.value)


@pytest.mark.parametrize(
    "bad",
    [[0.1, 0.2, 0.3], np.zeros((3, 2, 2)), 0.5, [[0.1, 0.2], [0.3]], [["a", "b"], ["c", "d"]]],
)
def test_not_a_numeric_matrix_raises_stats_error(bad):
    with pytest.raises(StatsError) as caught:
        bootstrap_ci_columns(bad)
    assert not isinstance(caught.value, TooFewPointsError | NonFiniteValueError)
    assert isinstance(caught.value, MetricsError)


@pytest.mark.parametrize(
    "options", [{"level": 0.0}, {"level": 1.0}, {"resamples": 0}, {"resamples": 2.0}]
)
def test_bad_level_or_resamples_raise_stats_error(options):
    with pytest.raises(StatsError):
        bootstrap_ci_columns(matrix(4, 2), **options)
