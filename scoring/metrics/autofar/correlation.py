"""System-level correlation of FAR under machine FAMs with FAR under human FAMs (Table 7).

Each system is one point: its mean FAR over the documents under one scorer's machine FAMs
(top-N sentences per facet) against its mean FAR under the human FAMs. Pearson's r,
Spearman's rho and Kendall's tau-b and their intervals, which the paper does not give, come from
:func:`scoring.metrics.stats.system_correlation.system_correlations`: a paired percentile
bootstrap over documents, so the pairing of a document's machine and human FAR is kept. System
means are rounded before they are ranked (``TIE_DECIMALS`` there): FastRL(E) and Refresh both
cover 473/912 of the facets of the FAR release's 76 documents, and the order their documents
are summed in must not decide their ranks.

:func:`system_agreement` correlates any two per-system figures the same way (the paper's
protocol of Table 7, where the two sides are means over different documents, and Table 8's
FAR against AutoFAR).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import numpy as np

from ..stats import METHODS, Correlation
from ..stats.bootstrap import DEFAULT_LEVEL, DEFAULT_SEED, as_finite_array
from ..stats.clusters import DEFAULT_CLUSTER_RESAMPLES
from ..stats.errors import canonical_key
from ..stats.order import Order, in_order
from ..stats.system_correlation import (
    TIE_DECIMALS,
    CoefficientWithInterval,
    system_correlations,
    system_points,
)
from .errors import AutoFarInputError

Scores = Mapping[Hashable, Mapping[Hashable, float]]  # system -> document -> FAR


@dataclass(frozen=True)
class SystemAgreement:
    """Pearson's r, Spearman's rho and Kendall's tau-b between two figures per system.

    Attributes:
        n_systems: systems correlated.
        estimated: system -> the estimate (machine-FAM FAR, AutoFAR).
        truth: system -> the ground truth (human-FAM FAR).
        pearson: Pearson's r (``value`` None with the reason when undefined).
        spearman: Spearman's rho.
        kendall: Kendall's tau-b.
    """

    n_systems: int
    estimated: Mapping[Hashable, float]
    truth: Mapping[Hashable, float]
    pearson: Correlation
    spearman: Correlation
    kendall: Correlation

    def values(self) -> tuple[float | None, float | None, float | None]:
        """The three coefficients.

        Returns:
            ``(pearson, spearman, kendall)``, each ``None`` when undefined.
        """
        return (self.pearson.value, self.spearman.value, self.kendall.value)

    def as_dict(self) -> dict:
        """JSON-ready data (system keys as text).

        Returns:
            ``{"n_systems", "estimated", "truth", "pearson", "spearman", "kendall"}``, each
            coefficient as ``{"value", "p_value", "reason"}``.
        """
        data: dict = {
            "n_systems": self.n_systems,
            "estimated": {str(k): v for k, v in self.estimated.items()},
            "truth": {str(k): v for k, v in self.truth.items()},
        }
        for method in METHODS:
            item = getattr(self, method)
            data[method] = {"value": item.value, "p_value": item.p_value, "reason": item.reason}
        return data


def system_agreement(
    estimated: Mapping[Hashable, float], truth: Mapping[Hashable, float]
) -> SystemAgreement:
    """Correlate an estimate with the ground truth across systems (one point per system).

    The coefficients are the stats core's system-level ones (:func:`system_points`: means
    rounded so that equal figures tie; fewer than 3 systems, or a side that is the same for
    every system, gives ``value=None`` with the reason, never 0 or NaN).

    Args:
        estimated: system -> estimated figure.
        truth: system -> true figure, for exactly the same systems.

    Returns:
        The :class:`SystemAgreement` (systems in canonical key order).

    Raises:
        AutoFarInputError: the sides name different systems, none, or a value that is not a
            finite number.
    """
    what = "system-level agreement"
    if not estimated:
        raise AutoFarInputError(f"{what}: no system")
    if estimated.keys() != truth.keys():
        only = sorted(estimated.keys() ^ truth.keys(), key=canonical_key)
        raise AutoFarInputError(f"{what}: the two sides cover different systems ({only!r})")
    systems = tuple(sorted(estimated, key=canonical_key))
    try:
        x = as_finite_array([estimated[s] for s in systems], f"{what}, estimate")
        y = as_finite_array([truth[s] for s in systems], f"{what}, truth")
    except ValueError as exc:
        raise AutoFarInputError(str(exc)) from exc
    x, y = np.round(x, TIE_DECIMALS), np.round(y, TIE_DECIMALS)  # as reported, equal ties
    points = system_points(x[np.newaxis, :], y[np.newaxis, :])
    return SystemAgreement(
        len(systems),
        dict(zip(systems, (float(v) for v in x), strict=True)),
        dict(zip(systems, (float(v) for v in y), strict=True)),
        points["pearson"],
        points["spearman"],
        points["kendall"],
    )


@dataclass(frozen=True)
class FarCorrelation:
    """A row of Table 7: one scorer and N, correlated with human FAR across systems.

    Attributes:
        scorer: the scorer's name.
        top_n: sentences per facet of its machine FAMs (``None`` when not given).
        n_systems: systems correlated.
        n_documents: documents behind each system mean.
        machine_means: system -> mean FAR under the machine FAMs.
        human_means: system -> mean FAR under the human FAMs.
        pearson: Pearson's r and its interval.
        spearman: Spearman's rho and its interval.
        kendall: Kendall's tau-b and its interval.
    """

    scorer: str
    top_n: int | None
    n_systems: int
    n_documents: int
    machine_means: Mapping[Hashable, float]
    human_means: Mapping[Hashable, float]
    pearson: CoefficientWithInterval
    spearman: CoefficientWithInterval
    kendall: CoefficientWithInterval

    def as_dict(self) -> dict:
        """This row of Table 7 as JSON-ready data (system keys as text).

        Returns:
            ``{"scorer", "top_n", "n_systems", "n_documents", "machine_means",
            "human_means", "pearson", "spearman", "kendall"}``; each coefficient as in
            :meth:`CoefficientWithInterval.as_dict`.
        """
        data: dict = {
            "scorer": self.scorer,
            "top_n": self.top_n,
            "n_systems": self.n_systems,
            "n_documents": self.n_documents,
            "machine_means": {str(k): v for k, v in self.machine_means.items()},
            "human_means": {str(k): v for k, v in self.human_means.items()},
        }
        return data | {method: getattr(self, method).as_dict() for method in METHODS}


def far_matrices(
    machine: Scores, human: Scores, *, order: Order = None, what: str = "FAR correlation"
) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...], np.ndarray, np.ndarray]:
    """Check that both sides cover the same systems and documents; return them as arrays.

    Args:
        machine: system -> document -> FAR under machine FAMs.
        human: system -> document -> FAR under human FAMs.
        order: the documents' order (see :func:`scoring.metrics.stats.in_order`); None:
            canonical key order. Systems are always in canonical key order.
        what: names the caller in errors.

    Returns:
        ``(systems, documents, machine, human)``, the two arrays ``(documents, systems)``.

    Raises:
        AutoFarInputError: no system or document, different systems or documents between
            the sides or the systems, or a value that is not a finite number.
        UnorderedKeyError: ``order`` does not list some document.
    """
    if not machine or not human:
        raise AutoFarInputError(f"{what}: no system")
    if machine.keys() != human.keys():
        only = sorted(machine.keys() ^ human.keys(), key=canonical_key)
        raise AutoFarInputError(
            f"{what}: the machine and human FAR cover different systems ({only!r})"
        )
    systems = tuple(sorted(machine, key=canonical_key))
    documents_set = machine[systems[0]].keys()
    if not documents_set:
        raise AutoFarInputError(f"{what}: system {systems[0]!r} has no document")
    for system in systems:
        for side, scores in (("machine", machine), ("human", human)):
            if scores[system].keys() != documents_set:
                differ = sorted(scores[system].keys() ^ documents_set, key=canonical_key)[:5]
                raise AutoFarInputError(
                    f"{what}: {side} FAR of system {system!r} covers other documents than "
                    f"the machine FAR of {systems[0]!r} (e.g. {differ!r})"
                )
    documents = in_order(documents_set, order, what=what)
    arrays = []
    for side, scores in (("machine", machine), ("human", human)):
        columns = []
        for system in systems:
            try:
                columns.append(
                    as_finite_array(
                        [scores[system][d] for d in documents], f"{what}, {side} FAR of {system!r}"
                    )
                )
            except ValueError as exc:
                raise AutoFarInputError(str(exc)) from exc
        arrays.append(np.column_stack(columns))
    return systems, documents, arrays[0], arrays[1]


def far_correlation(
    scorer: str,
    machine: Scores,
    human: Scores,
    *,
    top_n: int | None = None,
    order: Order = None,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_CLUSTER_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> FarCorrelation:
    """Correlate systems' mean FAR under one scorer's machine FAMs with their human FAR.

    Fewer than 3 systems, or a side whose mean FAR is the same for every system, gives
    undefined coefficients (``value`` None) with the reason, never 0 or NaN.

    Args:
        scorer: the scorer's name, recorded in the result.
        machine: system -> document -> FAR under the scorer's machine FAMs.
        human: system -> document -> FAR under the human FAMs (same systems and documents).
        top_n: sentences per facet of the machine FAMs, recorded in the result.
        order: the documents' order for the means and resamples (None: canonical).
        level: confidence level of the intervals (default 0.95).
        resamples: bootstrap resamples over documents (default 1,000); 0 computes no
            interval (``interval`` is then ``None``).
        seed: seed of ``numpy.random.default_rng`` (default 0).

    Returns:
        The :class:`FarCorrelation`.

    Raises:
        AutoFarInputError: see :func:`far_matrices`.
        StatsError: a bad ``level`` or ``resamples``.
    """
    systems, documents, m, h = far_matrices(machine, human, order=order)
    points = system_agreement(
        dict(zip(systems, (float(v) for v in m.mean(axis=0)), strict=True)),
        dict(zip(systems, (float(v) for v in h.mean(axis=0)), strict=True)),
    )
    results = system_correlations({scorer: (m, h)}, level=level, resamples=resamples, seed=seed)[
        scorer
    ]
    return FarCorrelation(
        scorer,
        top_n,
        len(systems),
        len(documents),
        points.estimated,
        points.truth,
        results["pearson"],
        results["spearman"],
        results["kendall"],
    )
