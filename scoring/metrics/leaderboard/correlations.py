"""Correlations between automatic metrics and a human judgment study, per system and per summary."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace
from numbers import Real
from statistics import fmean

from ..errors import MetricsError
from ..stats import LEVEL_SUMMARY, LEVEL_SYSTEM, METHODS, Correlation, correlate, summary_level
from ..stats.correlation import MIN_POINTS
from ..stats.errors import NonFiniteValueError, canonical_key
from ..stats.order import Order, in_order, key_order

KIND_SCORE = "score"  # higher is better
KIND_RANK = "rank"  # 1 is best: negated before correlating
KINDS = (KIND_SCORE, KIND_RANK)

MetricScores = Mapping[str, Mapping[Hashable, Mapping[Hashable, float]]]
HumanScores = Mapping[Hashable, Mapping[Hashable | None, float]]


class JudgmentInputError(MetricsError):
    """Malformed human judgments or metric scores given to :func:`correlate_with_human`.

    For example an unknown kind, a value that is not a number, a system without any judgment,
    or a study mixing per-system values (key ``None``) with per-document ones.
    """


@dataclass(frozen=True)
class MetricCorrelation:
    """How well one automatic metric agrees with one human judgment study, at one level.

    Attributes:
        judgment: the study's name.
        metric: the metric key.
        level: ``"system"`` (one point per system) or ``"summary"`` (per document, averaged).
        n_systems: systems correlated (those with both metric and human scores).
        n_documents: documents used, the same for every system (their intersection).
        pearson: Pearson's r (:class:`~scoring.metrics.stats.Correlation`).
        spearman: Spearman's rho.
        kendall: Kendall's tau-b.
    """

    judgment: str
    metric: str
    level: str
    n_systems: int
    n_documents: int
    pearson: Correlation
    spearman: Correlation
    kendall: Correlation

    def as_dict(self) -> dict:
        """This result as JSON-ready data (no NaN: an undefined coefficient is ``None``).

        Returns:
            ``{"judgment", "metric", "level", "n_systems", "n_documents", "pearson",
            "spearman", "kendall"}``; each coefficient is ``{"value", "p_value", "reason",
            "n"}``, where ``n`` is the number of points (system level) or of documents whose
            coefficient was averaged (summary level).
        """
        data: dict = {
            "judgment": self.judgment,
            "metric": self.metric,
            "level": self.level,
            "n_systems": self.n_systems,
            "n_documents": self.n_documents,
        }
        return data | coefficients_dict(self)


def coefficients_dict(result) -> dict[str, dict]:
    """The three coefficients of a correlation result as JSON-ready data.

    Shared by :class:`MetricCorrelation` and
    :class:`~scoring.metrics.leaderboard.instance.HumanScoreCorrelation`.

    Args:
        result: anything with ``pearson``, ``spearman`` and ``kendall``
            :class:`~scoring.metrics.stats.Correlation` attributes.

    Returns:
        ``{method: {"value", "p_value", "reason", "n"}}`` in the order of ``METHODS`` (an
        undefined coefficient is ``None`` with its reason).
    """
    data = {}
    for method in METHODS:
        coefficient: Correlation = getattr(result, method)
        data[method] = {
            "value": coefficient.value,
            "p_value": coefficient.p_value,
            "reason": coefficient.reason,
            "n": coefficient.n,
        }
    return data


def undefined_coefficients(level: str, n: int, reason: str) -> dict[str, Correlation]:
    """Every method's coefficient as undefined, with the reason.

    Args:
        level: the level recorded in each result.
        n: the points there were.
        reason: why no coefficient is defined.

    Returns:
        ``{method: Correlation}`` with ``value`` and ``p_value`` None.
    """
    return {method: Correlation(method, level, None, None, n, reason) for method in METHODS}


def level_coefficients(x: list[float], y: list[float], level: str) -> dict[str, Correlation]:
    """Every method's coefficient of the paired points, recorded at ``level``.

    Args:
        x: one side's values.
        y: the other side's, in the same order.
        level: the level recorded in each result.

    Returns:
        ``{method: Correlation}`` (a constant side gives None with the reason).

    Raises:
        NonFiniteValueError: a value is NaN or infinite.
    """
    return {method: replace(correlate(x, y, method), level=level) for method in METHODS}


def _number(value, what: str, item: Hashable) -> float:
    """``value`` as a finite float; anything else is an error naming ``item``."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise JudgmentInputError(f"{what}: value {value!r} for {item!r} is not a number")
    number = float(value)
    if not math.isfinite(number):
        raise NonFiniteValueError(what, item=item, value=number)
    return number


def _checked_human(
    human: HumanScores, kind: str
) -> tuple[dict[Hashable, dict[Hashable | None, float]], bool]:
    """The human values, negated for ranks, and whether the study is per document."""
    sign = -1.0 if kind == KIND_RANK else 1.0
    checked: dict[Hashable, dict[Hashable | None, float]] = {}
    per_document: bool | None = None
    first: Hashable = None
    for system, values in human.items():
        what = f"human judgments of system {system!r}"
        if not isinstance(values, Mapping) or not values:
            raise JudgmentInputError(f"{what}: expected a non-empty mapping document -> value")
        if None in values and len(values) > 1:
            raise JudgmentInputError(
                f"{what}: a per-system value (key None) mixed with per-document values"
            )
        this = None not in values
        if per_document is None:
            per_document, first = this, system
        elif this != per_document:
            shapes = {True: "per document", False: "per system (key None)"}
            raise JudgmentInputError(
                f"{what} are {shapes[this]} but those of system {first!r} are "
                f"{shapes[per_document]}; a study is one or the other"
            )
        checked[system] = {d: sign * _number(v, what, d) for d, v in values.items()}
    return checked, bool(per_document)


def _checked_metric(metric: str, scores) -> dict[Hashable, dict[Hashable, float]]:
    """The metric's scores as floats, refusing NaN, infinities and a ``None`` document."""
    if not isinstance(scores, Mapping):
        raise JudgmentInputError(f"metric {metric!r}: expected a mapping system -> scores")
    checked = {}
    for system, values in scores.items():
        what = f"metric {metric!r}, system {system!r}"
        if not isinstance(values, Mapping):
            raise JudgmentInputError(f"{what}: expected a mapping document -> score")
        if None in values:
            raise JudgmentInputError(f"{what}: a document key is None")
        checked[system] = {d: _number(v, what, d) for d, v in values.items()}
    return checked


def _system_level(x: list[float], y: list[float], metric: str) -> dict[str, Correlation]:
    """Correlate the per-system points; a constant side gives ``None`` with a plain reason."""
    constant = [
        side for side, values in ((f"{metric}'s", x), ("the human", y)) if len(set(values)) == 1
    ]
    if constant:
        reason = f"{' and '.join(constant)} system values are all equal: correlation is undefined"
        return undefined_coefficients(LEVEL_SYSTEM, len(x), reason)
    return level_coefficients(x, y, LEVEL_SYSTEM)


def correlate_with_human(
    metric_scores: MetricScores,
    human: HumanScores,
    *,
    kind: str = KIND_SCORE,
    name: str = "human",
    order: Order = None,
) -> tuple[MetricCorrelation, ...]:
    """Pearson, Spearman and Kendall between each automatic metric and one human study.

    A system is used when it has at least one document with a metric score and, in a
    per-document study, a human score there too. For a fair comparison every system is then
    judged on the same documents: the intersection of the documents each used system has
    (``n_documents``).

    * **System level**: one point per system, the metric's mean over those documents against
      the human value (per-system study) or the mean of the human values over the same
      documents (per-document study); correlated with :func:`scoring.metrics.stats.correlate`.
    * **Summary level** (per-document studies only): on each of those documents, correlate the
      metric with the human values across the systems, then average the coefficients
      (:func:`scoring.metrics.stats.summary_level`; documents where either side is the same
      for every system have no coefficient and are left out of the average).

    With ``kind="rank"`` (1 is best) the human values are negated before correlating, so the
    reported coefficients keep the usual sign: positive means the metric agrees with the humans.
    Fewer than 3 systems, no common document or a constant side never raise: every
    coefficient is then ``None`` with the reason. The documents are taken in ``order`` (the
    dataset's), or in canonical key order without one.

    Args:
        metric_scores: metric key -> system -> document -> automatic score.
        human: system -> document -> human value; a per-system study uses the single key
            ``None`` for every system (``{system: {None: value}}``).
        kind: ``"score"`` (higher is better, the default) or ``"rank"`` (lower is better).
        name: the study's name, recorded in each result.
        order: the documents' order (see :func:`scoring.metrics.stats.in_order`); None:
            canonical key order.

    Returns:
        For each metric in the order given, its system-level result and then, for a
        per-document study, its summary-level result.

    Raises:
        NonFiniteValueError: a metric or human value is NaN or infinite.
        JudgmentInputError: an unknown ``kind``; a value that is not a number; a system without
            any human value; a study mixing per-system and per-document values; or a metric's
            scores that are not nested mappings.
        UnorderedKeyError: ``order`` does not list some document both sides score.
    """
    order = key_order(order)
    if kind not in KINDS:
        raise JudgmentInputError(f"kind must be one of {KINDS}, got {kind!r}")
    values, per_document = _checked_human(human, kind)
    results: list[MetricCorrelation] = []
    for metric, raw in metric_scores.items():
        scores = _checked_metric(metric, raw)
        usable = {
            system: (scores[system].keys() & values[system].keys())
            if per_document
            else set(scores[system])
            for system in scores
            if system in values
        }
        systems = sorted((s for s, docs in usable.items() if docs), key=canonical_key)
        common = set.intersection(*(usable[s] for s in systems)) if systems else set()
        documents = in_order(common, order, what=f"correlations of {metric}")
        shape = dict(judgment=name, metric=metric, n_systems=len(systems))
        shape["n_documents"] = len(documents)
        reason = None
        if len(systems) < MIN_POINTS:
            reason = (
                f"needs at least {MIN_POINTS} systems with both {metric} and human scores, "
                f"got {len(systems)}"
            )
        elif not documents:
            reason = f"no document has {metric} and human scores for all {len(systems)} systems"
        if reason:
            system_results = undefined_coefficients(LEVEL_SYSTEM, len(systems), reason)
        else:
            x = [fmean(scores[s][d] for d in documents) for s in systems]
            if per_document:
                y = [fmean(values[s][d] for d in documents) for s in systems]
            else:
                y = [values[s][None] for s in systems]
            system_results = _system_level(x, y, metric)
        results.append(MetricCorrelation(level=LEVEL_SYSTEM, **shape, **system_results))
        if not per_document:
            continue
        if reason:
            summary_results = undefined_coefficients(LEVEL_SUMMARY, 0, reason)
        else:
            m = {s: {d: scores[s][d] for d in documents} for s in systems}
            h = {s: {d: values[s][d] for d in documents} for s in systems}
            summary_results = {
                method: summary_level(m, h, method, order=order) for method in METHODS
            }
        results.append(MetricCorrelation(level=LEVEL_SUMMARY, **shape, **summary_results))
    return tuple(results)
