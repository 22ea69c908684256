"""Seeded percentile-bootstrap intervals for statistics of summed per-unit terms, same draws.

Pooled ratios, and kappa or alpha from per-item counts; several statistics are resampled with
the same draws.

Many agreement figures pooled over items are a function of sums over the items: span F1 is
``sum(2 * matched) / sum(spans)``, Cohen's kappa comes from the summed contingency counts,
Krippendorff's alpha from the summed coincidences. Each unit (an item) contributes a row of
terms; a resample of the units is a row of counts ``w`` (how often each unit was drawn), its
sums are ``w @ terms``, and the statistic is recomputed from them. Resamples where the
statistic is undefined (say, a kappa whose resampled items hold no matched span) are left out
of the quantiles and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    as_finite_matrix,
    check_resampling,
    resample_indices,
)
from .errors import StatsError

METHOD_SUMS = "percentile bootstrap over units of a statistic of summed unit terms"

#: Maps summed terms, shape ``(r, k)``, to one value per row, shape ``(r,)``; NaN where the
#: statistic is undefined for that row.
Statistic = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class StatisticInterval:
    """A percentile-bootstrap interval of a statistic of summed unit terms.

    Attributes:
        value: the statistic of the whole sample (the point estimate).
        low: lower end of the interval; ``None`` when every resample was undefined.
        high: upper end of the interval; ``None`` likewise.
        n: number of units resampled.
        level: confidence level, e.g. 0.95.
        method: how the interval was computed (``METHOD_SUMS``).
        resamples: number of bootstrap resamples drawn.
        seed: seed of the random generator (``numpy.random.default_rng``).
        undefined: resamples where the statistic was undefined, left out of the quantiles.
    """

    value: float
    low: float | None
    high: float | None
    n: int
    level: float
    method: str
    resamples: int
    seed: int
    undefined: int


def _terms(terms) -> np.ndarray:
    return as_finite_matrix(terms, "bootstrap of sums", needed=2, axis=0)


# Why not scipy.stats.bootstrap: see clusters.cluster_bootstrap (undefined resamples left out
# and counted, where SciPy's interval becomes NaN; several statistics on one draw; sums as
# counts @ terms).
def bootstrap_sums_cis(
    terms,
    statistics: Mapping[str, Statistic],
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, StatisticInterval]:
    """Percentile-bootstrap intervals of several statistics of the units' summed terms.

    ``resamples`` samples of the n units are drawn with replacement with
    ``numpy.random.default_rng(seed)``, by :func:`~.bootstrap.resample_indices` (so the draws
    are those of :func:`~.bootstrap.bootstrap_ci` for the same n and seed: with the statistic
    ``sums[:, 0] / n`` the interval is the mean's). Each resample's sums are ``counts @ terms``
    and every statistic is evaluated on them; the interval of a statistic is the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles (numpy's default linear
    interpolation) of its defined resampled values. When those values are all equal the
    interval is that value. The same inputs, order, level, resamples and seed always give the
    same intervals.

    Args:
        terms: an ``(n, k)`` array-like of finite numbers: per unit, its k additive terms.
        statistics: name -> statistic of the summed terms (see :data:`Statistic`).
        level: confidence level (default 0.95).
        resamples: number of bootstrap resamples (default 10,000).
        seed: seed of the random generator (default 0).

    Returns:
        name -> :class:`StatisticInterval`, in the order of ``statistics``.

    Raises:
        TooFewPointsError: fewer than 2 units.
        NonFiniteValueError: a term is NaN or infinite (the error names its row and column).
        StatsError: terms that are not a 2-D numeric matrix, a bad ``level`` or
            ``resamples``, or a statistic undefined (NaN) on the whole sample.
    """
    check_resampling(resamples, level)
    array = _terms(terms)
    n, k = array.shape
    whole = array.sum(axis=0)[None, :]
    points = {}
    for name, statistic in statistics.items():
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(np.asarray(statistic(whole), dtype=np.float64)[0])
        if not np.isfinite(value):
            raise StatsError(f"bootstrap of sums: {name} is undefined on the whole sample")
        points[name] = value
    # Columns that are zero for every unit stay zero in every resample: skip them in the product.
    used = np.flatnonzero(array.any(axis=0))
    compact = array[:, used]
    values = {name: np.empty(resamples) for name in statistics}
    done = 0
    for block in resample_indices(n, resamples, np.random.default_rng(seed)):
        rows = block.shape[0]
        flat = (np.arange(rows)[:, None] * n + block).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n)
        sums = np.zeros((rows, k))
        sums[:, used] = counts @ compact
        with np.errstate(divide="ignore", invalid="ignore"):
            for name, statistic in statistics.items():
                values[name][done : done + rows] = statistic(sums)
        done += rows
    alpha = 1.0 - level
    found = {}
    for name, drawn in values.items():
        defined = drawn[np.isfinite(drawn)]
        if defined.size == 0:
            low = high = None
        elif np.ptp(defined) == 0.0:
            low = high = float(defined[0])
        else:
            low, high = (float(q) for q in np.quantile(defined, [alpha / 2.0, 1 - alpha / 2.0]))
        found[name] = StatisticInterval(
            value=points[name],
            low=low,
            high=high,
            n=int(n),
            level=float(level),
            method=METHOD_SUMS,
            resamples=resamples,
            seed=seed,
            undefined=int(drawn.size - defined.size),
        )
    return found
