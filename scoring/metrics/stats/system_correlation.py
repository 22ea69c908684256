"""System-level correlations with a paired percentile-bootstrap interval over documents.

Each system is one point: its mean over the documents of one side (a metric, or FAR under
machine FAMs) against its mean of the other (a human score). The coefficients are
:func:`~.correlation.correlate`'s (scipy, with p-values). Their intervals, which meta-evaluation
papers rarely give, resample documents with replacement
(:func:`~.clusters.cluster_bootstrap`) and recompute both sides' system means on the same draw,
so a document's two values stay paired; a resample where either side is constant across the
systems has no coefficient and is counted in the interval's ``undefined``. Every column and
method given in one call is computed on the same resamples.
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
            ``{"value", "p_value", "reason", "low", "high", "interval"}``; ``low``/``high``
            are ``None`` when there is no interval, ``interval`` its full record or ``None``.
        """
        interval = self.interval
        return {
            "value": self.correlation.value,
            "p_value": self.correlation.p_value,
            "reason": self.correlation.reason,
            "low": interval.low if interval else None,
            "high": interval.high if interval else None,
            "interval": interval.as_dict() if interval else None,
        }


def _statistic(method: str, n_systems: int):
    def statistic(sums: np.ndarray) -> np.ndarray:
        # Sums over the drawn documents are n times the means: correlation ignores the scale.
        return row_coefficients(sums[:, :n_systems], sums[:, n_systems:], method)

    return statistic


def system_correlations(
    columns: Mapping[Hashable, np.ndarray],
    human: np.ndarray,
    *,
    methods: Sequence[str] = METHODS,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_CLUSTER_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[Hashable, dict[str, CoefficientWithInterval]]:
    """Correlate each column's system means with the human system means, with intervals.

    Fewer than 3 systems, or a side whose means are the same for every system, gives an
    undefined coefficient (``value`` None) with the reason and no interval, never 0 or NaN.

    Args:
        columns: name -> ``(documents, systems)`` array of one side (e.g. a metric's scores),
            every one over the same documents and systems, in the same order, as ``human``.
        human: the ``(documents, systems)`` array of the other side.
        methods: among ``"pearson"``, ``"spearman"`` and ``"kendall"`` (default: all three).
        level: confidence level of the intervals (default 0.95).
        resamples: bootstrap resamples over documents (default 1,000).
        seed: seed of ``numpy.random.default_rng`` (default 0).

    Returns:
        name -> method -> :class:`CoefficientWithInterval`, each at level ``"system"``.

    Raises:
        StatsError: a bad ``level``, ``resamples`` or method, or arrays of other shapes.
        NonFiniteValueError: a value is NaN or infinite.
    """
    n_documents, n_systems = human.shape
    human_means = human.mean(axis=0)
    results: dict[Hashable, dict[str, CoefficientWithInterval]] = {}
    statistics = {}
    for name, values in columns.items():
        results[name] = {}
        means = np.asarray(values, dtype=np.float64).mean(axis=0)
        for method in methods:
            if n_systems < MIN_POINTS:
                reason = (
                    f"{n_systems} system(s): a system-level correlation needs at least {MIN_POINTS}"
                )
                point = Correlation(method, LEVEL_SYSTEM, None, None, n_systems, reason)
            else:
                found = correlate(means, human_means, method)
                point = Correlation(
                    method, LEVEL_SYSTEM, found.value, found.p_value, found.n, found.reason
                )
            results[name][method] = CoefficientWithInterval(point, None)
            if point.value is not None:
                stacked = np.hstack([values, human])
                statistics[(name, method)] = ClusterStatistic(
                    stacked, _statistic(method, n_systems)
                )
    if statistics:
        intervals = cluster_bootstrap(
            statistics, n_documents, level=level, resamples=resamples, seed=seed
        )
        for (name, method), interval in intervals.items():
            results[name][method] = CoefficientWithInterval(
                results[name][method].correlation, interval
            )
    return results
