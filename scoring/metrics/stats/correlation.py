"""Pearson, Spearman and Kendall correlation (scipy) over pairs, systems and summaries."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..lazy import scipy_stats
from .bootstrap import as_finite_array
from .errors import (
    MismatchedDocumentsError,
    MismatchedSystemsError,
    StatsError,
    TooFewPointsError,
    canonical_key,
)
from .order import Order, in_order

METHODS = ("pearson", "spearman", "kendall")
LEVEL_PAIRS = "pairs"
LEVEL_SYSTEM = "system"
LEVEL_SUMMARY = "summary"
MIN_POINTS = 3  # with 2 points every coefficient is +-1: not evidence of anything
# Up to this many points Spearman's p-value is exact (all n! orderings), as Kendall's is in scipy.
MAX_EXACT_SPEARMAN_N = 8

Scores = Mapping[Hashable, Mapping[Hashable, float]]  # system -> document -> score


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient, or ``None`` with the reason it is undefined.

    Attributes:
        method: ``"pearson"``, ``"spearman"`` or ``"kendall"`` (Kendall's tau-b).
        level: ``"pairs"``, ``"system"`` or ``"summary"``.
        value: the coefficient, or ``None`` when undefined (never NaN).
        p_value: the two-sided p-value (scipy's; for Spearman with at most 8 points the exact
            permutation p); ``None`` when undefined and at summary level.
        n: points correlated (pairs, systems) or documents averaged (summary level).
        reason: why ``value`` is ``None``; ``None`` when it is defined.
        undefined: summary level only: documents left out because their coefficient is
            undefined (the metric or the human scores are constant across systems there).
    """

    method: str
    level: str
    value: float | None
    p_value: float | None
    n: int
    reason: str | None = None
    undefined: tuple[Hashable, ...] = ()


def _coefficient(
    x: np.ndarray, y: np.ndarray, method: str
) -> tuple[float | None, float | None, str | None]:
    """``(value, p_value, reason)`` for two checked arrays of equal length."""
    constant = [name for name, v in (("x", x), ("y", y)) if np.ptp(v) == 0.0]
    if constant:
        return None, None, f"constant input ({' and '.join(constant)}): {method} is undefined"
    if method == "pearson":
        result = scipy_stats().pearsonr(x, y)
    elif method == "spearman":
        result = scipy_stats().spearmanr(x, y)
        if x.size <= MAX_EXACT_SPEARMAN_N:
            value = float(result.statistic)
            return value, _exact_spearman_p(x, y, value), None
    else:
        result = scipy_stats().kendalltau(x, y)
    value, p_value = float(result.statistic), float(result.pvalue)
    if not np.isfinite(value):
        return None, None, f"scipy returned {value} for {method}"
    return value, (p_value if np.isfinite(p_value) else None), None


# Why not scipy.stats.permutation_test(permutation_type="pairings"): the tests take it as the
# reference (tests/metrics/spearman_reference.py), and without ties the p-values agree. With
# ties the null is not symmetric, and SciPy's two-sided p doubles the smaller one-sided p
# where this counts |rho*| >= |rho|: x = (2, 1, 0, 2, 2), y = (3, 0, 0, 3, 0), rho = 0.645,
# gives 0.4 here and 0.6 from SciPy.
def _exact_spearman_p(x: np.ndarray, y: np.ndarray, observed: float) -> float:
    """Two-sided exact p of Spearman's rho: the share of all n! orderings of ``y`` whose rho is
    at least as extreme. scipy's t approximation says p = 0 for a perfect rank order of 3
    systems, where the exact p is 1/3."""
    rx = scipy_stats().rankdata(x)
    ry = scipy_stats().rankdata(y)
    permutations = np.array(list(itertools.permutations(ry)))
    rx_c = rx - rx.mean()
    rys_c = permutations - permutations.mean(axis=1, keepdims=True)
    denominator = np.sqrt((rx_c**2).sum() * (rys_c**2).sum(axis=1))
    rhos = (rys_c @ rx_c) / denominator
    tolerance = 1e-12 * max(1.0, abs(observed))
    return float(np.mean(np.abs(rhos) >= abs(observed) - tolerance))


# Rows of Kendall's tau computed together: each takes four n x n boolean comparisons.
_KENDALL_CELLS = 1 << 22


def _kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair (``(rows, n)``), NaN where a row is constant.

    tau-b = (concordant - discordant) / sqrt((pairs - ties in x) (pairs - ties in y)), over the
    pairs of columns: scipy's ``kendalltau`` (variant b), for many rows at once. Each ordered
    pair of columns is compared (so every pair counts twice, which the ratio cancels), in
    blocks of rows that keep the comparisons to a few megabytes.
    """
    rows, n = x.shape
    out = np.full(rows, np.nan)
    step = max(1, _KENDALL_CELLS // max(n * n, 1))
    for start in range(0, rows, step):
        a, b = x[start : start + step], y[start : start + step]
        above_x, below_x = a[:, :, None] > a[:, None, :], a[:, :, None] < a[:, None, :]
        above_y, below_y = b[:, :, None] > b[:, None, :], b[:, :, None] < b[:, None, :]
        concordant = np.count_nonzero((above_x & above_y) | (below_x & below_y), axis=(1, 2))
        discordant = np.count_nonzero((above_x & below_y) | (below_x & above_y), axis=(1, 2))
        untied_x = np.count_nonzero(above_x | below_x, axis=(1, 2)).astype(np.float64)
        untied_y = np.count_nonzero(above_y | below_y, axis=(1, 2))
        denominator = np.sqrt(untied_x * untied_y)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = (concordant - discordant) / denominator
        out[start : start + step] = np.where(denominator > 0, np.clip(values, -1.0, 1.0), np.nan)
    return out


def row_coefficients(x: np.ndarray, y: np.ndarray, method: str) -> np.ndarray:
    """One coefficient per row of ``x`` and ``y`` (``(rows, points)`` arrays), all at once.

    The same coefficients as :func:`correlate` (Pearson's r; Spearman's rho, ties at their
    average rank; Kendall's tau-b), up to rounding, without p-values: for bootstrap resamples
    (one row each) and for per-document coefficients across systems.

    Args:
        x: one side, a row per correlation.
        y: the other side, the same shape.
        method: ``"pearson"``, ``"spearman"`` or ``"kendall"``.

    Returns:
        One value per row, NaN where a row of either side is constant (undefined).

    Raises:
        StatsError: an unknown method.
    """
    _check_method(method)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if method == "kendall":
        return _kendall_rows(x, y)
    constant = (np.ptp(x, axis=1) == 0.0) | (np.ptp(y, axis=1) == 0.0)
    if method == "spearman":
        x = scipy_stats().rankdata(x, axis=1)
        y = scipy_stats().rankdata(y, axis=1)
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (xc * yc).sum(axis=1) / np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    return np.where(constant, np.nan, np.clip(values, -1.0, 1.0))


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise StatsError(f"method must be one of {METHODS}, got {method!r}")


def correlate(x: Sequence[float], y: Sequence[float], method: str = "pearson") -> Correlation:
    """Correlate two paired sequences with scipy.

    ``pearson`` is ``scipy.stats.pearsonr``, ``spearman`` is ``scipy.stats.spearmanr`` (ties get
    their average rank) and ``kendall`` is ``scipy.stats.kendalltau`` (tau-b, which corrects for
    ties); p-values are scipy's two-sided ones, except Spearman's with at most 8 points, which
    is exact (every ordering of ``y``): scipy's t approximation gives p = 0 for 3 points in
    perfect order, where the exact p is 1/3.

    Args:
        x: the first values (e.g. metric scores).
        y: the paired second values (e.g. human scores), same length.
        method: ``"pearson"`` (default), ``"spearman"`` or ``"kendall"``.

    Returns:
        A :class:`Correlation` at level ``"pairs"``; ``value`` is ``None`` with a reason when
        either input is constant.

    Raises:
        TooFewPointsError: fewer than 3 pairs.
        NonFiniteValueError: a value is NaN or infinite.
        StatsError: an unknown method or sequences of different lengths.
    """
    _check_method(method)
    xs = as_finite_array(x, f"{method} correlation, x")
    ys = as_finite_array(y, f"{method} correlation, y")
    if xs.size != ys.size:
        raise StatsError(f"{method} correlation: x has {xs.size} values but y has {ys.size}")
    if xs.size < MIN_POINTS:
        raise TooFewPointsError(f"{method} correlation", n=int(xs.size), needed=MIN_POINTS)
    value, p_value, reason = _coefficient(xs, ys, method)
    return Correlation(method, LEVEL_PAIRS, value, p_value, int(xs.size), reason)


def _matrices(
    metric: Scores, human: Scores, what: str, order: Order = None
) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Check coverage and return ``(metric, human)`` as (systems x documents) arrays, the
    documents in ``order`` (canonical key order without one)."""
    if metric.keys() != human.keys():
        raise MismatchedSystemsError(
            what,
            only_left=metric.keys() - human.keys(),
            only_right=human.keys() - metric.keys(),
            left="the metric scores",
            right="the human scores",
        )
    systems = sorted(metric, key=canonical_key)
    if len(systems) < MIN_POINTS:
        raise TooFewPointsError(f"{what} (systems)", n=len(systems), needed=MIN_POINTS)
    first = systems[0]
    documents = in_order(metric[first], order, what=what)
    if not documents:
        raise TooFewPointsError(f"{what} (documents of {first!r})", n=0, needed=1)
    rows = {}
    for source, scores in (("metric", metric), ("human", human)):
        table = []
        for system in systems:
            if scores[system].keys() != metric[first].keys():
                raise MismatchedDocumentsError(
                    f"{what}: {source} scores of system {system!r}",
                    only_left=scores[system].keys() - metric[first].keys(),
                    only_right=metric[first].keys() - scores[system].keys(),
                    left=f"system {system!r}",
                    right=f"the metric scores of system {first!r}",
                )
            label = f"{what}, {source} scores of system {system!r}"
            table.append(as_finite_array([scores[system][d] for d in documents], label))
        rows[source] = np.vstack(table)
    return rows["metric"], rows["human"], documents


def system_level(
    metric: Scores, human: Scores, method: str = "pearson", *, order: Order = None
) -> Correlation:
    """System-level correlation: one point per system, its mean score over the documents.

    Every system must have metric and human scores on exactly the same documents; a system
    with missing documents is an error, never a silent average over fewer documents.

    Args:
        metric: system -> document -> metric score.
        human: system -> document -> human score (same systems and documents).
        method: ``"pearson"`` (default), ``"spearman"`` or ``"kendall"``.
        order: the documents' order for the means (see :func:`.order.in_order`); None:
            canonical key order.

    Returns:
        A :class:`Correlation` at level ``"system"`` with ``n`` = number of systems.

    Raises:
        MismatchedSystemsError: the two sources cover different systems.
        MismatchedDocumentsError: some system covers different documents.
        UnorderedKeyError: ``order`` does not list some document.
        TooFewPointsError: fewer than 3 systems, or no document.
        NonFiniteValueError: a score is NaN or infinite.
        StatsError: an unknown method.
    """
    _check_method(method)
    m, h, _ = _matrices(metric, human, f"system-level {method} correlation", order)
    value, p_value, reason = _coefficient(m.mean(axis=1), h.mean(axis=1), method)
    return Correlation(method, LEVEL_SYSTEM, value, p_value, int(m.shape[0]), reason)


def summary_level(
    metric: Scores, human: Scores, method: str = "pearson", *, order: Order = None
) -> Correlation:
    """Summary-level correlation: correlate across systems per document, then average.

    The exact variant: for each document ``d``, ``r_d = corr([metric[s][d] for s],
    [human[s][d] for s])`` over the systems ``s``; the result is the plain mean of the defined
    ``r_d`` (as in Louis and Nenkova, 2013, and Bhandari et al., 2020). A document where the
    metric or the human scores are the same for every system has no ``r_d``; it is left out of
    the mean and listed in ``undefined``. If no document has a coefficient, ``value`` is
    ``None`` with the reason. ``p_value`` is always ``None``: a mean of coefficients has no
    scipy p-value (use a bootstrap over documents for an interval).

    Args:
        metric: system -> document -> metric score.
        human: system -> document -> human score (same systems and documents).
        method: ``"pearson"`` (default), ``"spearman"`` or ``"kendall"``.
        order: the documents' order for the average and ``undefined`` (see
            :func:`.order.in_order`); None: canonical key order.

    Returns:
        A :class:`Correlation` at level ``"summary"``; ``n`` is the number of documents
        averaged.

    Raises:
        MismatchedSystemsError: the two sources cover different systems.
        MismatchedDocumentsError: some system covers different documents.
        UnorderedKeyError: ``order`` does not list some document.
        TooFewPointsError: fewer than 3 systems, or no document.
        NonFiniteValueError: a score is NaN or infinite.
        StatsError: an unknown method.
    """
    documents, coefficients = summary_coefficients(metric, human, method, order=order)
    defined = np.isfinite(coefficients)
    values = coefficients[defined]
    undefined = [document for document, ok in zip(documents, defined, strict=True) if not ok]
    if not values.size:
        reason = f"no document has a defined {method} coefficient across systems (constant scores)"
        return Correlation(method, LEVEL_SUMMARY, None, None, 0, reason, tuple(undefined))
    mean = float(np.mean(values))
    return Correlation(method, LEVEL_SUMMARY, mean, None, int(values.size), None, tuple(undefined))


def summary_coefficients(
    metric: Scores, human: Scores, method: str = "pearson", *, order: Order = None
) -> tuple[tuple[Hashable, ...], np.ndarray]:
    """Each document's coefficient across the systems (what :func:`summary_level` averages).

    Args:
        metric: system -> document -> metric score.
        human: system -> document -> human score (same systems and documents).
        method: ``"pearson"`` (default), ``"spearman"`` or ``"kendall"``.
        order: the documents' order (see :func:`.order.in_order`); None: canonical key order.

    Returns:
        ``(documents, coefficients)``: the documents in order and one coefficient each (by
        :func:`row_coefficients`), NaN where the metric or the human scores are the same for
        every system there.

    Raises:
        The errors of :func:`summary_level`.
    """
    _check_method(method)
    m, h, documents = _matrices(metric, human, f"summary-level {method} correlation", order)
    return documents, row_coefficients(m.T, h.T, method)
