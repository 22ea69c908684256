"""The bootstrap over clusters: shared draws, undefined resamples, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from scoring.metrics.stats import StatsError, bootstrap_ci
from scoring.metrics.stats.clusters import (
    ClusterStatistic,
    cluster_bootstrap,
    ratio_statistic,
    statistic_on_all,
)


def _mean_columns(values):
    return np.column_stack([values, np.ones(len(values))])


def test_a_mean_of_clusters_is_the_plain_bootstrap():
    values = np.array([0.1, 0.5, 0.2, 0.9, 0.4, 0.7, 0.3])
    ours = cluster_bootstrap(
        {"mean": ClusterStatistic(_mean_columns(values), ratio_statistic)},
        len(values),
        resamples=300,
        seed=4,
    )["mean"]
    plain = bootstrap_ci(values, resamples=300, seed=4)
    assert (ours.low, ours.high) == pytest.approx((plain.low, plain.high), abs=1e-12)
    assert ours.method == "percentile bootstrap over documents"


def test_dense_and_sparse_columns_give_the_same_interval():
    values = np.array([1.0, 0.0, 0.5, 0.25, 1.0, 0.75])
    dense = _mean_columns(values)
    both = cluster_bootstrap(
        {
            "dense": ClusterStatistic(dense, ratio_statistic),
            "sparse": ClusterStatistic(sparse.csr_matrix(dense), ratio_statistic),
        },
        6,
        resamples=100,
    )
    assert both["dense"] == both["sparse"]


def test_undefined_resamples_are_counted_and_left_out():
    # The denominator is 1 in one cluster only: resamples that miss it are undefined (0/0).
    columns = np.array([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    interval = cluster_bootstrap(
        {"x": ClusterStatistic(columns, ratio_statistic)}, 4, resamples=400, seed=0
    )["x"]
    # P(a resample misses the first cluster) = (3/4)^4, about 32% of 400.
    assert 80 < interval.undefined < 180
    assert interval.low == interval.high == 1.0  # every defined resample gives 1/1-ish ratios


def test_never_defined_and_too_few_clusters_give_reasons():
    zeros = np.zeros((3, 2))
    never = cluster_bootstrap({"x": ClusterStatistic(zeros, ratio_statistic)}, 3, resamples=10)
    assert never["x"].reason == "the statistic is undefined in every resample"
    assert never["x"].undefined == 10 and never["x"].low is None
    one = cluster_bootstrap({"x": ClusterStatistic(zeros[:1], ratio_statistic)}, 1)
    assert "at least two" in one["x"].reason


def test_bad_input_is_refused():
    columns = _mean_columns(np.array([0.1, 0.2, 0.3]))
    with pytest.raises(StatsError, match="3 rows of columns for 4 clusters"):
        cluster_bootstrap({"x": ClusterStatistic(columns, ratio_statistic)}, 4)
    with pytest.raises(StatsError, match="resamples"):
        cluster_bootstrap({"x": ClusterStatistic(columns, ratio_statistic)}, 3, resamples=0)
    with pytest.raises(StatsError, match="level"):
        cluster_bootstrap({"x": ClusterStatistic(columns, ratio_statistic)}, 3, level=1.5)


def test_the_full_sample_value():
    columns = np.array([[1.0, 2.0], [3.0, 2.0]])
    assert statistic_on_all(ClusterStatistic(columns, ratio_statistic)) == 1.0
