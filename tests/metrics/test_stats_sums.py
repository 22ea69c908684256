"""Bootstrap of statistics of summed unit terms, against bootstrap_ci and bootstrap_ratio_ci.

Undefined resamples are counted, and bad input is refused.
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.metrics.stats import (
    NonFiniteValueError,
    StatsError,
    TooFewPointsError,
    bootstrap_ci,
    bootstrap_ratio_ci,
)
from scoring.metrics.stats import bootstrap as bootstrap_module
from scoring.metrics.stats.sums import METHOD_SUMS, bootstrap_sums_cis


def _ratio(sums: np.ndarray) -> np.ndarray:
    return np.where(sums[:, 1] > 0, sums[:, 0] / sums[:, 1], np.nan)


@pytest.mark.parametrize(("n", "seed"), [(2, 0), (7, 3), (60, 11)])
def test_a_mean_is_bootstrap_ci(n, seed):
    values = np.random.default_rng(seed).uniform(size=n)
    terms = np.column_stack([values, np.ones(n)])
    got = bootstrap_sums_cis(terms, {"mean": _ratio}, resamples=3000, seed=seed)["mean"]
    alone = bootstrap_ci(values, resamples=3000, seed=seed)
    assert got.value == pytest.approx(alone.mean, abs=1e-12)
    assert got.low == pytest.approx(alone.low, abs=1e-12)
    assert got.high == pytest.approx(alone.high, abs=1e-12)
    assert (got.n, got.resamples, got.seed, got.level, got.undefined) == (n, 3000, seed, 0.95, 0)
    assert got.method == METHOD_SUMS


def test_a_pooled_ratio_is_bootstrap_ratio_ci_and_statistics_share_the_draws():
    rng = np.random.default_rng(5)
    num, den = rng.integers(0, 6, size=40), rng.integers(1, 9, size=40)
    terms = np.column_stack([num, den, den, num])
    found = bootstrap_sums_cis(
        terms,
        {"ratio": _ratio, "again": lambda sums: _ratio(sums[:, [3, 2]])},
        resamples=2500,
        seed=7,
    )
    alone = bootstrap_ratio_ci(num, den, resamples=2500, seed=7)
    assert found["ratio"].value == pytest.approx(alone.ratio, abs=1e-12)
    assert (found["ratio"].low, found["ratio"].high) == pytest.approx((alone.low, alone.high))
    # Columns 3 and 2 hold the same units' terms as 0 and 1, so the same draws give the same
    # interval for the second statistic.
    assert (found["again"].low, found["again"].high) == (found["ratio"].low, found["ratio"].high)


def test_undefined_resamples_are_left_out_and_counted():
    # Unit 0 has ratio 1/1, unit 1 has 0/0. A resample of unit 1 twice is 0/0 (undefined);
    # every other resample has ratio 1, so the interval is [1, 1].
    got = bootstrap_sums_cis([[1, 1], [0, 0]], {"ratio": _ratio}, resamples=400, seed=1)["ratio"]
    assert got.value == 1.0 and (got.low, got.high) == (1.0, 1.0)
    draws = np.concatenate(
        list(bootstrap_module.resample_indices(2, 400, np.random.default_rng(1)))
    )
    assert got.undefined == int((draws == 1).all(axis=1).sum())
    assert 50 < got.undefined < 150  # 400 / 4 = 100 expected


def test_every_resample_undefined_gives_no_interval():
    # Units 1 and 2: the statistic is defined only when the sum is 3 (one of each unit, as in
    # the whole sample). Find a seed whose single resample draws one unit twice.
    def one_of_each(sums: np.ndarray) -> np.ndarray:
        return np.where(sums[:, 0] == 3, 1.0, np.nan)

    seed = next(
        seed
        for seed in range(100)
        if len(set(next(bootstrap_module.resample_indices(2, 1, np.random.default_rng(seed)))[0]))
        == 1
    )
    got = bootstrap_sums_cis([[1], [2]], {"s": one_of_each}, resamples=1, seed=seed)["s"]
    assert got.value == 1.0 and got.undefined == 1
    assert got.low is None and got.high is None


def test_reproducible_and_seed_dependent():
    terms = np.column_stack([np.arange(20.0) % 7, np.ones(20)])
    first = bootstrap_sums_cis(terms, {"mean": _ratio}, resamples=500, seed=4)
    assert first == bootstrap_sums_cis(terms, {"mean": _ratio}, resamples=500, seed=4)
    other = bootstrap_sums_cis(terms, {"mean": _ratio}, resamples=500, seed=5)
    assert (other["mean"].low, other["mean"].high) != (first["mean"].low, first["mean"].high)


def test_bad_input_is_refused():
    with pytest.raises(TooFewPointsError):
        bootstrap_sums_cis([[1, 1]], {"ratio": _ratio})
    with pytest.raises(NonFiniteValueError, match=r"\(1, 0\)"):
        bootstrap_sums_cis([[1, 1], [np.nan, 1]], {"ratio": _ratio})
    with pytest.raises(StatsError, match="2-D"):
        bootstrap_sums_cis([1, 2, 3], {"ratio": _ratio})
    with pytest.raises(StatsError, match="ratio is undefined on the whole sample"):
        bootstrap_sums_cis([[0, 0], [0, 0]], {"ratio": _ratio})
    with pytest.raises(StatsError, match="resamples"):
        bootstrap_sums_cis([[1, 1], [2, 1]], {"ratio": _ratio}, resamples=0)
