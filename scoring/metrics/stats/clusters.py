"""Bootstrap over clusters (documents) of statistics built from per-cluster sums, one draw for all.

An agreement figure pooled over a campaign is rarely a mean of per-document values: Jaccard is a
mean over (facet, pair) units, alpha a ratio of disagreements, Light's kappa a mean of pairwise
kappas. Each is a function of **sums over documents** of a few per-document columns, so it is
resampled by drawing documents with replacement and recomputing the function from the resampled
sums. ``counts @ columns`` gives those sums for a block of resamples at once (``counts[r, d]`` is
how often resample ``r`` drew document ``d``), as :func:`~.columns.bootstrap_ci_columns` does for
plain means. Every statistic passed in one call is computed on the same resamples.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from .bootstrap import DEFAULT_LEVEL, DEFAULT_SEED, check_resampling, resample_indices
from .errors import StatsError

METHOD_CLUSTER = "percentile bootstrap over documents"
DEFAULT_CLUSTER_RESAMPLES = 1000

# statistic(sums) -> one value per row of ``sums`` (NaN where it is undefined for that resample).
Statistic = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class ClusterStatistic:
    """A statistic computed from the sums of per-cluster columns.

    Attributes:
        columns: ``(n_clusters, m)`` array (dense, or a SciPy sparse matrix) of per-cluster
            values; a resample's sums are ``counts @ columns``.
        statistic: maps a ``(rows, m)`` array of sums to ``rows`` values, NaN where the
            statistic is undefined for that resample.
    """

    columns: Any
    statistic: Statistic


@dataclass(frozen=True)
class ClusterInterval:
    """A percentile bootstrap interval over clusters, or why there is none.

    Attributes:
        low: lower end (``None`` with ``reason``).
        high: upper end (``None`` with ``reason``).
        level: confidence level, e.g. 0.95.
        resamples: number of resamples drawn.
        undefined: resamples where the statistic was undefined (left out of the percentiles).
        seed: seed of ``numpy.random.default_rng``.
        clusters: number of clusters (documents) resampled.
        method: ``METHOD_CLUSTER``.
        reason: why there is no interval, else ``None``.
    """

    low: float | None
    high: float | None
    level: float
    resamples: int
    undefined: int
    seed: int
    clusters: int
    method: str = METHOD_CLUSTER
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The interval for JSON.

        Returns:
            Every attribute by name.

        Raises:
            Nothing.
        """
        return {
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "resamples": self.resamples,
            "undefined": self.undefined,
            "seed": self.seed,
            "clusters": self.clusters,
            "method": self.method,
            "reason": self.reason,
        }


def statistic_on_all(item: ClusterStatistic) -> float:
    """The statistic on the full sample (every cluster once).

    Args:
        item: the statistic and its columns.

    Returns:
        Its value (NaN when undefined).

    Raises:
        StatsError: the statistic does not return one value.
    """
    columns = item.columns
    n = columns.shape[0]
    sums = np.asarray(np.ones((1, n)) @ columns, dtype=np.float64).reshape(1, -1)
    values = np.asarray(item.statistic(sums), dtype=np.float64).ravel()
    if values.shape != (1,):
        raise StatsError(f"a cluster statistic must give one value per row, got {values.shape}")
    return float(values[0])


def _interval(values: np.ndarray, *, level, resamples, seed, clusters) -> ClusterInterval:
    defined = values[np.isfinite(values)]
    undefined = int(values.size - defined.size)
    common = {
        "level": level,
        "resamples": resamples,
        "undefined": undefined,
        "seed": seed,
        "clusters": clusters,
    }
    if defined.size == 0:
        return ClusterInterval(
            None, None, reason="the statistic is undefined in every resample", **common
        )
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    if np.ptp(defined) == 0.0:  # every resample gives the same value: no spread at all
        low = high = defined[0]
    return ClusterInterval(float(low), float(high), **common)


# Why not scipy.stats.bootstrap: a resample where a statistic is undefined (NaN: say, a ratio
# whose resampled denominator is 0) makes SciPy's interval NaN with a DegenerateDataWarning,
# where here it is left out and counted in ``undefined``; several statistics (some over sparse
# columns) share one draw; and a resample's sums are one product counts @ columns.
def cluster_bootstrap(
    statistics: Mapping[str, ClusterStatistic],
    n_clusters: int,
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_CLUSTER_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, ClusterInterval]:
    """Percentile intervals of several statistics over the same resamples of clusters.

    Each resample draws ``n_clusters`` clusters with replacement
    (``numpy.random.default_rng(seed)``, in the blocks of :func:`~.bootstrap.resample_indices`);
    every statistic is computed from ``counts @ columns`` (statistics given the same columns
    object share its product). The interval is the ``(1 - level)/2``
    and ``(1 + level)/2`` quantiles (numpy's linear interpolation) of the resamples where the
    statistic is defined; the others are counted in ``undefined``. The same input, level,
    resamples and seed always give the same intervals.

    Args:
        statistics: name -> :class:`ClusterStatistic`; every ``columns`` has ``n_clusters`` rows.
        n_clusters: the number of clusters (documents).
        level: confidence level (default 0.95).
        resamples: number of resamples (default 1,000).
        seed: seed of the random generator (default 0).

    Returns:
        name -> :class:`ClusterInterval`. With fewer than two clusters every interval has a
        reason instead of bounds (one document says nothing about the spread).

    Raises:
        StatsError: a bad ``level`` or ``resamples``, or columns with another number of rows.
    """
    check_resampling(resamples, level)
    for name, item in statistics.items():
        if item.columns.shape[0] != n_clusters:
            raise StatsError(
                f"statistic {name!r}: {item.columns.shape[0]} rows of columns for "
                f"{n_clusters} clusters"
            )
    common = {"level": level, "resamples": resamples, "seed": seed, "clusters": n_clusters}
    if n_clusters < 2:
        reason = f"{n_clusters} document(s): an interval needs at least two to resample"
        return {
            name: ClusterInterval(None, None, undefined=0, reason=reason, **common)
            for name in statistics
        }
    values = {name: np.empty(resamples) for name in statistics}
    # Dense columns are stacked into one matrix, so each block takes one matrix product; the
    # statistics that share one columns object (say, three coefficients of the same pairs)
    # share its place in it.
    dense, offsets, start = [], {}, 0
    placed: dict[int, tuple[int, int]] = {}
    for name, item in statistics.items():
        if sparse.issparse(item.columns):
            continue
        if id(item.columns) not in placed:
            columns = np.asarray(item.columns, dtype=np.float64)
            dense.append(columns)
            placed[id(item.columns)] = (start, start + columns.shape[1])
            start += columns.shape[1]
        offsets[name] = placed[id(item.columns)]
    stacked = np.hstack(dense) if dense else np.zeros((n_clusters, 0))
    rng = np.random.default_rng(seed)
    done = 0
    for block in resample_indices(n_clusters, resamples, rng):
        rows = block.shape[0]
        flat = (np.arange(rows)[:, None] * n_clusters + block).ravel()
        counts = np.bincount(flat, minlength=rows * n_clusters).reshape(rows, n_clusters)
        counts = counts.astype(np.float64)
        all_sums = counts @ stacked
        for name, item in statistics.items():
            if name in offsets:
                low, high = offsets[name]
                sums = all_sums[:, low:high]
            else:
                sums = np.asarray(counts @ item.columns, dtype=np.float64)
            values[name][done : done + rows] = item.statistic(sums)
        done += rows
    return {name: _interval(values[name], **common) for name in statistics}


def ratio_statistic(sums: np.ndarray) -> np.ndarray:
    """``sums[:, 0] / sums[:, 1]``, NaN where the denominator is 0 (a pooled mean of units).

    Args:
        sums: ``(rows, 2)``: the summed numerators and denominators.

    Returns:
        One ratio per row.

    Raises:
        Nothing.
    """
    numerator, denominator = sums[:, 0], sums[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(denominator > 0, denominator, 1.0)
        return np.where(denominator > 0, numerator / safe, np.nan)
