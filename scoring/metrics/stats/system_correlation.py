"""System-level correlations with a paired percentile-bootstrap interval over documents.

Each system is one point: its mean over the documents of one side (a metric, or FAR under
machine FAMs) against its mean of the other (a human score). The coefficients are
:func:`~.correlation.correlate`'s (scipy, with p-values). Their intervals, which meta-evaluation
papers rarely give, resample documents with replacement
(:func:`~.clusters.cluster_bootstrap`) and recompute both sides' system means on the same draw,
so a document's two values stay paired; a resample where either side is constant across the
systems has no coefficient and is counted in the interval's ``undefined``. Every column and
method given in one call is computed on the same resamples.

For the rank coefficients (Spearman's and Kendall's), system means (and a resample's sums) are
rounded to :data:`TIE_DECIMALS` (:data:`SUM_TIE_DECIMALS`) decimals first: per-document scores
are often ratios of small integers, so two systems can have exactly the same mean (FastRL(E) and
Refresh both cover 473/912 of the facets of the FAR release's 76 documents) while summing their
documents in another order leaves them 1e-16 apart, which would decide their ranks by rounding
noise.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .bootstrap import DEFAULT_LEVEL, DEFAULT_SEED
from .clusters import (
    DEFAULT_CLUSTER_RESAMPLES,
    ClusterInterval,
    ClusterStatistic,
    cluster_bootstrap,
)
from .correlation import LEVEL_SYSTEM, METHODS, MIN_POINTS, Correlation, correlate, row_coefficients

# Means keep every real difference at 12 decimals and drop summation-order noise; a resample's
# sums (up to a few thousand) keep 9.
TIE_DECIMALS = 12
SUM_TIE_DECIMALS = 9
RANKED = ("spearman", "kendall")  # ties matter to these; Pearson's r takes the values as they are


@dataclass(frozen=True)
class CoefficientWithInterval:
    """One coefficient and its paired bootstrap interval over documents.

    Attributes:
        correlation: the coefficient on every document (``value`` None with a reason when
            undefined).
        interval: the percentile interval, or ``None`` when the coefficient itself is
            undefined.
    """

    correlation: Correlation
    interval: ClusterInterval | None

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"value", "p_value", "reason", "n", "undefined", "low", "high", "interval"}``:
            ``n`` the points (or, at summary level, the documents averaged), ``undefined`` the
            documents left out of a summary-level mean; ``low``/``high`` are ``None`` when
            there is no interval, ``interval`` its full record or ``None``.
        """
        interval = self.interval
        return {
            "value": self.correlation.value,
            "p_value": self.correlation.p_value,
            "reason": self.correlation.reason,
            "n": self.correlation.n,
            "undefined": len(self.correlation.undefined),
            "low": interval.low if interval else None,
            "high": interval.high if interval else None,
            "interval": interval.as_dict() if interval else None,
        }


def system_statistics(
    left: np.ndarray, right: np.ndarray, methods: Sequence[str] = METHODS
) -> dict[str, ClusterStatistic]:
    """The bootstrap statistics of system-level coefficients: drawn documents' sums of both
    ``(documents, systems)`` sides, correlated across the systems (one columns object for
    every method, so :func:`~.clusters.cluster_bootstrap` sums them once).

    Args:
        left: one side's ``(documents, systems)`` values.
        right: the other side's, the same shape.
        methods: the methods wanted.

    Returns:
        method -> :class:`~.clusters.ClusterStatistic` for :func:`~.clusters.cluster_bootstrap`.
    """
    n_systems = left.shape[1]
    columns = np.hstack([left, right])

    def statistic(method: str):
        def coefficients(sums: np.ndarray) -> np.ndarray:
            # Sums over the drawn documents are n times the means: correlation ignores scale.
            if method in RANKED:
                sums = np.round(sums, SUM_TIE_DECIMALS)
            return row_coefficients(sums[:, :n_systems], sums[:, n_systems:], method)

        return coefficients

    return {method: ClusterStatistic(columns, statistic(method)) for method in methods}


def system_points(
    left: np.ndarray, right: np.ndarray, methods: Sequence[str] = METHODS
) -> dict[str, Correlation]:
    """The system-level coefficients of two ``(documents, systems)`` sides, with p-values.

    Args:
        left: one side's values.
        right: the other side's, the same shape.
        methods: the methods wanted.

    Returns:
        method -> :class:`Correlation` at level ``"system"`` (None with the reason for fewer
        than 3 systems or a side whose means are all equal).
    """
    n_systems = left.shape[1]
    points = {}
    for method in methods:
        if n_systems < MIN_POINTS:
            reason = (
                f"{n_systems} system(s): a system-level correlation needs at least {MIN_POINTS}"
            )
            points[method] = Correlation(method, LEVEL_SYSTEM, None, None, n_systems, reason)
            continue
        x, y = left.mean(axis=0), right.mean(axis=0)
        if method in RANKED:
            x, y = np.round(x, TIE_DECIMALS), np.round(y, TIE_DECIMALS)
        found = correlate(x, y, method)
        points[method] = Correlation(
            method, LEVEL_SYSTEM, found.value, found.p_value, found.n, found.reason
        )
    return points


def system_correlations(
    pairs: Mapping[Hashable, tuple[np.ndarray, np.ndarray]],
    *,
    methods: Sequence[str] = METHODS,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_CLUSTER_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[Hashable, dict[str, CoefficientWithInterval]]:
    """Correlate system means of paired sides, each with its interval, on one draw.

    Fewer than 3 systems, or a side whose means are the same for every system, gives an
    undefined coefficient (``value`` None) with the reason and no interval, never 0 or NaN.

    Args:
        pairs: name -> ``(left, right)``, two ``(documents, systems)`` arrays (e.g. a metric's
            scores and the human scores), every pair over the same documents in the same
            order (the systems may differ between pairs).
        methods: among ``"pearson"``, ``"spearman"`` and ``"kendall"`` (default: all three).
        level: confidence level of the intervals (default 0.95).
        resamples: bootstrap resamples over documents (default 1,000; 0: no interval).
        seed: seed of ``numpy.random.default_rng`` (default 0).

    Returns:
        name -> method -> :class:`CoefficientWithInterval`, each at level ``"system"``.

    Raises:
        StatsError: a bad ``level``, ``resamples`` or method, or pairs over other numbers of
            documents.
    """
    points = {name: system_points(left, right, methods) for name, (left, right) in pairs.items()}
    statistics = {}
    for name, by_method in points.items():
        defined = [method for method, point in by_method.items() if point.value is not None]
        for method, statistic in system_statistics(*pairs[name], defined).items():
            statistics[(name, method)] = statistic
    intervals = {}
    if statistics and resamples != 0:
        n_documents = next(iter(pairs.values()))[0].shape[0]
        intervals = cluster_bootstrap(
            statistics, n_documents, level=level, resamples=resamples, seed=seed
        )
    return {
        name: {
            method: CoefficientWithInterval(point, intervals.get((name, method)))
            for method, point in by_method.items()
        }
        for name, by_method in points.items()
    }
