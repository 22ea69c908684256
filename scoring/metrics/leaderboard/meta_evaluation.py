"""Meta-evaluation against a per-document human study: which metrics agree with the humans?

As in Bhandari et al. (2020, REALSumm), every metric is correlated with the human score

* at **system level**: one point per system, its mean metric against its mean human score over
  the same documents, by Pearson's r, Spearman's rho and Kendall's tau-b with paired
  percentile-bootstrap intervals over documents (as
  :func:`~scoring.metrics.stats.system_correlations` computes them), over several **subsets**:
  all of them, the abstractive ones, the extractive ones, and the top k by mean human score
  for each k asked for (the paper's question: do metrics still rank the best systems well?);
* at **summary level**: on each document, the coefficient across the subset's systems, averaged
  over the documents (as :func:`~scoring.metrics.stats.summary_level`). A document where the
  metric or the human scores are the same for every system has no coefficient: it is left out
  of the average and counted in ``undefined``; ties otherwise count as tau-b counts them (and
  as average ranks for Spearman). The interval resamples documents as the system level's
  does (on the same draws): the mean coefficient of the drawn documents that have one.

Within a subset every metric is taken on the systems that have it and on the documents all of
those systems have both the metric and the human score for, so a subset's points are always
paired alike. A rank study (1 is best) is negated first, so a positive coefficient always means
agreement with the humans.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

import numpy as np

from ..stats import (
    LEVEL_SUMMARY,
    LEVEL_SYSTEM,
    METHODS,
    CoefficientWithInterval,
    Correlation,
    system_points,
    system_statistics,
)
from ..stats.bootstrap import DEFAULT_LEVEL, DEFAULT_SEED
from ..stats.clusters import (
    DEFAULT_CLUSTER_RESAMPLES,
    ClusterStatistic,
    cluster_bootstrap,
    ratio_statistic,
)
from ..stats.correlation import MIN_POINTS, row_coefficients
from ..stats.errors import canonical_key
from ..stats.order import Order, in_order, key_order
from .correlations import KIND_RANK, KINDS, JudgmentInputError, MetricScores

SUBSET_ALL = "all"
# System kinds (as registered) that name a subset of their own.
KIND_SUBSETS = ("abstractive", "extractive")
# The top-k subsets the leaderboard shows: REALSumm's question of whether metrics still rank
# the best systems well. The release's README does not list the paper's k; these are ours.
DEFAULT_TOP_K = (5, 10, 15, 20)


def top_k_subset(k: int) -> str:
    """The name of the subset of the ``k`` systems with the best mean human score."""
    return f"top-{k}"


@dataclass(frozen=True)
class SubsetCorrelation:
    """One metric against the human study on one subset of systems, at one level.

    Attributes:
        metric: the metric's key.
        subset: ``all``, ``abstractive``, ``extractive`` or ``top-<k>``.
        level: ``system`` or ``summary``.
        systems: the systems correlated (in canonical order).
        n_documents: the documents behind each point (system level) or averaged over at most
            (summary level).
        coefficients: method -> :class:`CoefficientWithInterval` (at summary level the mean
            of the per-document coefficients, ``n`` documents averaged).
    """

    metric: str
    subset: str
    level: str
    systems: tuple[Hashable, ...]
    n_documents: int
    coefficients: Mapping[str, CoefficientWithInterval]

    def as_dict(self) -> dict:
        """JSON-ready data: the fields, each coefficient by method (see their ``as_dict``).

        Returns:
            ``{"metric", "subset", "level", "n_systems", "n_documents", "pearson",
            "spearman", "kendall"}``.
        """
        return {
            "metric": self.metric,
            "subset": self.subset,
            "level": self.level,
            "n_systems": len(self.systems),
            "n_documents": self.n_documents,
            **{method: c.as_dict() for method, c in self.coefficients.items()},
        }


@dataclass(frozen=True)
class MetaEvaluation:
    """Every metric against one per-document human study, by subset and level.

    Attributes:
        study: the study's name.
        kind: ``score`` or ``rank``.
        human_means: each judged system's mean human value over its judged documents (as
            given: a rank study's ranks, not negated).
        judged_documents: how many documents each judged system has a human value for.
        subsets: subset -> its systems; a top-k subset ranks systems by mean human score (best
            first, then by key) and exists for each k from 3 to fewer than all.
        rows: the correlations, metric by metric in the order given, then by subset (the order
            of ``subsets``), system level before summary level.
    """

    study: str
    kind: str
    human_means: Mapping[Hashable, float]
    judged_documents: Mapping[Hashable, int]
    subsets: Mapping[str, tuple[Hashable, ...]]
    rows: tuple[SubsetCorrelation, ...]

    def as_dict(self) -> dict:
        """JSON-ready data (system keys as text).

        Returns:
            ``{"study", "kind", "human_means", "judged_documents", "subsets", "rows"}``;
            ``subsets`` is a list of ``{"subset", "systems"}`` in order (a stored snapshot keeps
            a list's order, not a JSON object's).
        """
        return {
            "study": self.study,
            "kind": self.kind,
            "human_means": {str(s): v for s, v in self.human_means.items()},
            "judged_documents": {str(s): n for s, n in self.judged_documents.items()},
            "subsets": [
                {"subset": name, "systems": [str(s) for s in systems]}
                for name, systems in self.subsets.items()
            ],
            "rows": [row.as_dict() for row in self.rows],
        }


def _subsets(
    signed_means: Mapping[Hashable, float], kinds: Mapping[Hashable, str], top_k: Sequence[int]
) -> dict[str, tuple[Hashable, ...]]:
    systems = tuple(sorted(signed_means, key=canonical_key))
    subsets = {SUBSET_ALL: systems}
    for kind in KIND_SUBSETS:
        subsets[kind] = tuple(s for s in systems if kinds.get(s) == kind)
    ranked = sorted(systems, key=lambda s: (-signed_means[s], canonical_key(s)))
    for k in sorted(set(top_k)):
        if MIN_POINTS <= k < len(systems):
            subsets[top_k_subset(k)] = tuple(sorted(ranked[:k], key=canonical_key))
    return subsets


def _undefined(metric, subset, systems, documents, reason) -> list[SubsetCorrelation]:
    """Both levels' rows with every coefficient None and the reason."""
    shape = dict(metric=metric, subset=subset, systems=systems, n_documents=len(documents))
    return [
        SubsetCorrelation(
            level=level,
            coefficients={
                method: CoefficientWithInterval(
                    Correlation(method, level, None, None, len(systems), reason), None
                )
                for method in METHODS
            },
            **shape,
        )
        for level in (LEVEL_SYSTEM, LEVEL_SUMMARY)
    ]


@dataclass
class _Pair:
    """One metric on one subset, ready to correlate: ``(documents, systems)`` arrays."""

    metric: str
    subset: str
    systems: tuple[Hashable, ...]
    documents: tuple[Hashable, ...]
    m: np.ndarray
    h: np.ndarray


def _summary_point(pair: _Pair, method: str) -> tuple[Correlation, ClusterStatistic | None]:
    """The mean per-document coefficient, and the bootstrap statistic of that mean: over drawn
    documents, the sum of their coefficients over the number that have one."""
    values = row_coefficients(pair.m, pair.h, method)
    defined = np.isfinite(values)
    undefined = tuple(d for d, ok in zip(pair.documents, defined, strict=True) if not ok)
    if not defined.any():
        reason = f"no document has a defined {method} coefficient across systems (constant scores)"
        return Correlation(method, LEVEL_SUMMARY, None, None, 0, reason, undefined), None
    kept = values[defined]
    point = Correlation(
        method, LEVEL_SUMMARY, float(kept.mean()), None, int(kept.size), None, undefined
    )
    columns = np.column_stack([np.where(defined, values, 0.0), defined.astype(np.float64)])
    return point, ClusterStatistic(columns, ratio_statistic)


def _correlated(pairs: list[_Pair], *, level, resamples, seed) -> list[SubsetCorrelation]:
    """Both levels of every pair over the same documents, all intervals on one draw."""
    points, statistics = {}, {}
    for index, pair in enumerate(pairs):
        found = system_points(pair.m, pair.h)
        defined = [method for method, point in found.items() if point.value is not None]
        for method, point in found.items():
            points[(index, LEVEL_SYSTEM, method)] = point
        for method, statistic in system_statistics(pair.m, pair.h, defined).items():
            statistics[(index, LEVEL_SYSTEM, method)] = statistic
        for method in METHODS:
            point, statistic = _summary_point(pair, method)
            points[(index, LEVEL_SUMMARY, method)] = point
            if statistic is not None:
                statistics[(index, LEVEL_SUMMARY, method)] = statistic
    intervals = cluster_bootstrap(
        statistics, len(pairs[0].documents), level=level, resamples=resamples, seed=seed
    )
    rows = []
    for index, pair in enumerate(pairs):
        for level_name in (LEVEL_SYSTEM, LEVEL_SUMMARY):
            coefficients = {
                method: CoefficientWithInterval(
                    points[(index, level_name, method)],
                    intervals.get((index, level_name, method)),
                )
                for method in METHODS
            }
            rows.append(
                SubsetCorrelation(
                    pair.metric,
                    pair.subset,
                    level_name,
                    pair.systems,
                    len(pair.documents),
                    coefficients,
                )  # fmt: skip
            )
    return rows


def meta_evaluate(
    metric_scores: MetricScores,
    human: Mapping[Hashable, Mapping[Hashable, float]],
    *,
    kinds: Mapping[Hashable, str],
    name: str,
    kind: str = "score",
    top_k: Sequence[int] = DEFAULT_TOP_K,
    order: Order = None,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_CLUSTER_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> MetaEvaluation:
    """Correlate every metric with a per-document human study, by subset and level.

    See the module docstring for the subsets, levels and intervals. Fewer than 3 systems in a
    subset, or no document they all share, never raise: every coefficient is then None with
    the reason.

    Args:
        metric_scores: metric -> system -> document -> value.
        human: system -> document -> the human value (a per-document study).
        kinds: system -> ``abstractive`` or ``extractive`` (for the kind subsets).
        name: the study's name, recorded in the result.
        kind: ``score`` (higher is better) or ``rank`` (1 is best: negated before correlating
            and before choosing the top k).
        top_k: the k of the top-k subsets (those from 3 to fewer than all systems are made).
        order: the documents' order (see :func:`scoring.metrics.stats.in_order`); None:
            canonical key order.
        level: confidence level of the intervals.
        resamples: bootstrap resamples of each interval.
        seed: the bootstrap's seed.

    Returns:
        The :class:`MetaEvaluation`.

    Raises:
        JudgmentInputError: an unknown ``kind``, a per-system study (a ``None`` document) or a
            value that is not a finite number.
        UnorderedKeyError: ``order`` does not list some document.
    """
    order = key_order(order)
    if kind not in KINDS:
        raise JudgmentInputError(f"kind must be one of {KINDS}, got {kind!r}")
    sign = -1.0 if kind == KIND_RANK else 1.0
    signed: dict[Hashable, dict[Hashable, float]] = {}
    for system, values in human.items():
        if None in values:
            raise JudgmentInputError(f"study {name!r} is per system: it needs per-document values")
        for document, value in values.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
            ):
                raise JudgmentInputError(
                    f"study {name!r}: value {value!r} of system {system!r} on {document!r} is "
                    "not a finite number"
                )
        if values:
            signed[system] = {d: sign * float(v) for d, v in values.items()}
    means = {s: fmean(v.values()) for s, v in signed.items()}
    subsets = _subsets(means, kinds, top_k)
    found: dict[tuple[str, str], list[SubsetCorrelation]] = {}
    groups: dict[tuple, list[_Pair]] = {}  # pairs over the same documents share one draw
    for metric, by_system in metric_scores.items():
        for subset, members in subsets.items():
            pair = _pair(metric, subset, members, by_system, signed, order)
            if isinstance(pair, _Pair):
                groups.setdefault(pair.documents, []).append(pair)
            else:
                found[(metric, subset)] = pair
    for pairs in groups.values():
        for row in _correlated(pairs, level=level, resamples=resamples, seed=seed):
            found.setdefault((row.metric, row.subset), []).append(row)
    rows = [row for metric in metric_scores for subset in subsets for row in found[metric, subset]]
    return MetaEvaluation(
        study=name,
        kind=kind,
        human_means={s: sign * m for s, m in means.items()},
        judged_documents={s: len(v) for s, v in signed.items()},
        subsets=subsets,
        rows=tuple(rows),
    )


def _pair(metric, subset, members, by_system, signed, order) -> _Pair | list[SubsetCorrelation]:
    """One metric on one subset as arrays, or its undefined rows with the reason."""
    systems = tuple(s for s in members if by_system.get(s))
    usable = [signed[s].keys() & by_system[s].keys() for s in systems]
    common = set.intersection(*map(set, usable)) if usable else set()
    documents = tuple(in_order(common, order, what=f"meta-evaluation of {metric}"))
    if len(systems) < MIN_POINTS:
        reason = (
            f"needs at least {MIN_POINTS} systems with both {metric} and human scores, "
            f"got {len(systems)}"
        )
        return _undefined(metric, subset, systems, documents, reason)
    if not documents:
        reason = f"no document has {metric} and human scores for all {len(systems)} systems"
        return _undefined(metric, subset, systems, documents, reason)
    m = np.array([[by_system[s][d] for s in systems] for d in documents], dtype=np.float64)
    h = np.array([[signed[s][d] for s in systems] for d in documents], dtype=np.float64)
    if not np.isfinite(m).all():
        raise JudgmentInputError(f"metric {metric!r}: a value is not a finite number")
    return _Pair(metric, subset, systems, documents, m, h)
