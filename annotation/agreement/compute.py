"""Span agreement of one run, from plain rows: the core's input, its measures, the stored JSON.

No database here: the service hands over :class:`AgreementItem` records and stores the dict
:func:`span_agreement_compute` returns.

Conventions (also written into every result under ``conventions``):

- An item is one system output; an annotator's errors on it are one annotation, an empty list
  when the output was marked as having no errors. Only items with at least two annotators count.
- Offsets of summary spans are used as stored. Spans in the source (PolyTope Omissions) are
  shifted past the summary (``start + len(summary) + 1``), so a source span can match only a
  source span of the other annotator and never a summary span.
- Errors marked nowhere (side ``none``, only the issue words known) have no offsets, so they
  cannot be matched: they are left out of the span measures and counted per annotator
  (``counts.left_out_no_offsets``). They still count in the PolyTope segment score.
- Agreement on type, label and severity is over the spans paired by partial matching. The
  severity figures match spans with the severity in place of the label; matching ignores
  names, so the pairs are the same unless one annotator marked two spans with the same offsets
  and type but different labels (ties are then broken by the name that is compared).
- ``per_system`` repeats every overall figure over one system's items. The overall and
  per-system figures of span F1 (exact, partial), type kappa and alpha and segment-score alpha
  carry a percentile-bootstrap interval over items (``ci_low``, ``ci_high``, ``ci_level``;
  seeded, so a run is reproducible; see :mod:`.span_bootstrap`).
- ``lowest`` lists the items with the lowest partial span F1 (ties: more spans first, then by
  output id); items where nobody marked a span have no F1 and are not listed.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.metrics.agreement import (
    AgreementResult,
    Span,
    SpanMatching,
    score_abs_difference,
    score_alpha_interval,
    score_pearson,
    span_alpha,
    span_f1,
    span_kappa,
)
from scoring.metrics.agreement.spans import load_spans
from scoring.metrics.leaderboard.polytope import polytope_document
from scoring.metrics.polytope import EmptySummaryError
from scoring.metrics.spans import SIDE_NONE, SIDE_SOURCE, SpanScheme
from scoring.metrics.spans.agreement import EXACT, error_label, error_spans
from scoring.metrics.stats.bootstrap import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from scoring.metrics.stats.sums import bootstrap_sums_cis

from .span_bootstrap import CI_MEASURES, span_item_terms

log = logging.getLogger(__name__)

SPAN_MEASURES = (
    "span_f1_exact",
    "span_f1_partial",
    "kappa_type",
    "alpha_type",
    "kappa_label",
    "alpha_label",
    "kappa_severity",
    "alpha_severity",
)
SCORE_MEASURES = ("score_alpha_interval", "score_abs_difference", "score_pearson")
# What a reader calls each measure (the agreement pages' names, agreement-view.js).
MEASURE_LABELS = {
    "span_f1_exact": "Span F1, exact",
    "span_f1_partial": "Span F1, partial",
    "kappa_type": "κ, error type",
    "alpha_type": "α, error type",
    "kappa_label": "κ, label",
    "alpha_label": "α, label",
    "kappa_severity": "κ, severity",
    "alpha_severity": "α, severity",
    "score_alpha_interval": "α, segment score",
    "score_abs_difference": "Mean |score difference|",
    "score_pearson": "Pearson r, segment score",
}
# Measures that one item alone cannot have (they are given per pair and overall only).
NOT_PER_ITEM = ("score_alpha_interval", "score_pearson")
# The result's layout; part of the inputs digest, so a result of an older layout is stale.
RESULT_FORMAT = 2
# How many of the lowest-agreement items ``lowest`` lists, and by which per-item measure.
LOWEST = 10
LOWEST_MEASURE = "span_f1_partial"

CONVENTIONS = {
    "item": "one system output; only outputs annotated by at least two annotators count",
    "clean": "an output marked as having no errors is annotated, with zero spans",
    "source_spans": "Omission spans in the source are shifted past the summary, so they match "
    "only spans in the source",
    "no_offsets": "errors marked nowhere (issue words only) cannot be matched: left out of the "
    "span measures and counted in counts.left_out_no_offsets; they count in segment scores",
    "categories": "type, label and severity agreement is over the spans paired by partial matching",
    "per_item": "score_alpha_interval and score_pearson need several items: pair and overall "
    "levels only; measures listed in skipped are left out of per_item, and its figures omit "
    "excluded when 0 and reason when there is a value",
    "intervals": "overall and per-system span F1, type kappa and alpha and score alpha have a "
    "percentile-bootstrap interval over items (items resampled, each figure recomputed)",
    "lowest": "items with the lowest partial span F1; ties: more spans first, then output id",
}


@dataclass(frozen=True)
class AgreementItem:
    """One system output and its annotations.

    Attributes:
        output: the output's id (the item key).
        document: the document's external id.
        system: the system's slug.
        summary: the summary text the offsets index (sentences joined by one space).
        annotations: annotator key -> that annotator's errors (MarkedError dicts); an empty
            tuple for an output marked as clean.
        document_id: the document's primary key (links to its adjudication page), if known.
    """

    output: int
    document: str
    system: str
    summary: str
    annotations: Mapping[str, tuple[dict, ...]] = field(default_factory=dict)
    document_id: int | None = None


def polytope_segment_score(summary: str, errors: Sequence[dict]) -> float | None:
    """An annotator's PolyTope score of one summary: ``100 * (1 - penalty / words)``.

    Args:
        summary: the summary text (its words are counted by ``count_words``).
        errors: the annotator's errors (``MarkedError`` dicts); errors marked nowhere count too.

    Returns:
        The score, or None when the summary has no word.

    Raises:
        PolyTopeError: an error that is not a PolyTope error.
    """
    try:
        return polytope_document(summary, errors).segment.score
    except EmptySummaryError:
        return None


SegmentScorer = Callable[[str, Sequence[dict]], float | None]
SEGMENT_SCORERS: Mapping[str, SegmentScorer] = {"polytope": polytope_segment_score}


def _span_documents(
    items: Sequence[AgreementItem], label_of: Callable[[dict], str], rank: Mapping[str, int]
) -> dict[int, dict[str, list[Span]]]:
    """Per item, per annotator (in report order, so the core's annotator order is the same at
    every level), the spans with offsets."""
    return {
        item.output: {
            annotator: error_spans(item.annotations[annotator], len(item.summary), label_of)
            for annotator in sorted(item.annotations, key=rank.__getitem__)
        }
        for item in items
    }


def _score(result_score) -> dict:
    return result_score.as_dict()


def _compact(figure: dict) -> dict:
    """A per-item figure without its defaults (``excluded`` 0, ``reason`` None)."""
    found = {"value": figure["value"], "n": figure["n"]}
    if figure["excluded"]:
        found["excluded"] = figure["excluded"]
    if figure["reason"] is not None:
        found["reason"] = figure["reason"]
    return found


def _undefined(reason: str) -> dict:
    return {"value": None, "n": 0, "excluded": 0, "reason": reason}


class _Table:
    """Collects every measure's figures per level, keyed the way the stored result is."""

    def __init__(self, items: Sequence[AgreementItem], rank: Mapping[str, int]):
        self.rank = rank
        self.overall: dict[str, dict] = {}
        self.per_pair: dict[tuple[str, str], dict[str, Any]] = {}
        self.per_item: dict[int, dict[str, Any]] = {item.output: {} for item in items}

    def pair_key(self, a: Hashable, b: Hashable) -> tuple[str, str]:
        return tuple(sorted((str(a), str(b)), key=self.rank.__getitem__))  # type: ignore[return-value]

    def add(self, name: str, result: AgreementResult, *, per_item: bool = True) -> None:
        self.overall[name] = _score(result.overall)
        for (a, b), score in result.per_pair.items():
            self.per_pair.setdefault(self.pair_key(a, b), {})[name] = _score(score)
        if per_item:
            for item, score in result.per_document.items():
                self.per_item[item][name] = _score(score)

    def skip(self, name: str, reason: str, *, per_item: bool = True) -> None:
        self.overall[name] = _undefined(reason)
        for figures in self.per_pair.values():
            figures[name] = _undefined(reason)
        if per_item:
            for figures in self.per_item.values():
                figures[name] = _undefined(reason)


def _pairs_of(items: Sequence[AgreementItem], rank: Mapping[str, int]) -> dict:
    shared: dict[tuple[str, str], int] = {}
    for item in items:
        people = sorted(item.annotations, key=rank.__getitem__)
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                shared[(a, b)] = shared.get((a, b), 0) + 1
    return shared


@dataclass
class _Measured:
    """Every figure of one level (all items, or one system's) and what it was computed from."""

    table: _Table
    skipped: dict[str, str]
    spans: dict[int, dict[str, list[Span]]]
    segment_scores: dict[int, dict[str, float]] | None
    no_words: list[int]


def _measure(
    scheme: SpanScheme,
    items: Sequence[AgreementItem],
    rank: Mapping[str, int],
    matchings: tuple[SpanMatching, SpanMatching],
    scores: Mapping[int, dict[str, float | None]] | None,
) -> _Measured:
    """Every measure over ``items``: per item, per pair and overall (the core's levels)."""
    exact, partial = matchings
    table = _Table(items, rank)
    for (a, b), shared in _pairs_of(items, rank).items():
        table.per_pair[(a, b)] = {"items": shared}

    spans = _span_documents(items, error_label, rank)
    # The exact F1 is span_f1_exact's (the adjudication pages show it per document) at every
    # level: the same spans (error_spans), exact matching, counts pooled.
    table.add("span_f1_exact", span_f1(spans, matching=exact))
    table.add("span_f1_partial", span_f1(spans, matching=partial))
    table.add("kappa_type", span_kappa(spans, attribute="subtype", matching=partial))
    table.add("alpha_type", span_alpha(spans, attribute="subtype", matching=partial))
    skipped = {}
    if scheme.labels:
        table.add("kappa_label", span_kappa(spans, attribute="label", matching=partial))
        table.add("alpha_label", span_alpha(spans, attribute="label", matching=partial))
    else:
        for name in ("kappa_label", "alpha_label"):
            skipped[name] = f"the {scheme.title} scheme has no labels"
    if scheme.has_severity:
        severities = _span_documents(items, lambda error: error["severity"], rank)
        table.add("kappa_severity", span_kappa(severities, attribute="label", matching=partial))
        table.add("alpha_severity", span_alpha(severities, attribute="label", matching=partial))
    else:
        for name in ("kappa_severity", "alpha_severity"):
            skipped[name] = f"the {scheme.title} scheme has no severities"

    segment_scores: dict[int, dict[str, float]] | None = None
    no_words: list[int] = []
    if scores is None:
        for name in SCORE_MEASURES:
            skipped[name] = f"the {scheme.title} scheme defines no segment score"
    else:
        segment_scores = {}
        for item in items:
            given = scores[item.output]
            if any(value is None for value in given.values()):
                no_words.append(item.output)
                continue
            segment_scores[item.output] = given  # type: ignore[assignment]
        if segment_scores:
            table.add("score_alpha_interval", score_alpha_interval(segment_scores), per_item=False)
            table.add("score_abs_difference", score_abs_difference(segment_scores))
            table.add("score_pearson", score_pearson(segment_scores), per_item=False)
        else:
            for name in SCORE_MEASURES:
                skipped[name] = "no item has a summary with words to score"
    for name, reason in skipped.items():
        table.skip(name, reason, per_item=name not in NOT_PER_ITEM)
    for figures in table.per_pair.values():
        for name in SCORE_MEASURES:
            figures.setdefault(name, _undefined("the pair shares no item with a scored summary"))
    for output in no_words:
        table.per_item[output]["score_abs_difference"] = _undefined("the summary has no words")
    return _Measured(table, skipped, spans, segment_scores, no_words)


@dataclass(frozen=True)
class _Resampling:
    """How the intervals are drawn: confidence level, number of resamples, seed."""

    level: float
    resamples: int
    seed: int


def _add_intervals(
    measured: _Measured, matchings: tuple[SpanMatching, SpanMatching], how: _Resampling
) -> dict[str, dict]:
    """The level's overall figures, those of ``CI_MEASURES`` with a bootstrap interval."""
    figures = measured.table.overall
    names = [name for name in CI_MEASURES if name in figures]
    for name in names:
        figures[name].update(ci_low=None, ci_high=None, ci_level=how.level)
    reasons: dict[str, str] = {}
    for name in names:
        if figures[name]["value"] is None:
            reasons[name] = "the figure is undefined"
    asked = [name for name in names if name not in reasons]
    if asked and len(measured.spans) < 2:
        reasons.update(dict.fromkeys(asked, "one item: no interval over items"))
        asked = []
    if asked:
        terms = span_item_terms(
            load_spans(measured.spans),
            exact=matchings[0],
            partial=matchings[1],
            scores=measured.segment_scores,
        )
        whole = terms.terms.sum(axis=0)[None, :]
        statistics = {}
        for name in asked:
            point = float(terms.statistics[name](whole)[0])
            value = figures[name]["value"]
            if not math.isclose(point, value, rel_tol=1e-9, abs_tol=1e-12):
                log.error("span agreement: %s resampled as %r, not %r", name, point, value)
                reasons[name] = "the resampled statistic does not reproduce the figure"
            else:
                statistics[name] = terms.statistics[name]
        found = bootstrap_sums_cis(
            terms.terms, statistics, level=how.level, resamples=how.resamples, seed=how.seed
        ) if statistics else {}  # fmt: skip
        for name, interval in found.items():
            figures[name].update(ci_low=interval.low, ci_high=interval.high)
            if interval.undefined:
                figures[name]["ci_undefined_resamples"] = interval.undefined
            if interval.low is None:
                reasons[name] = "the figure is undefined in every resample"
    for name, reason in reasons.items():
        figures[name]["ci_reason"] = reason
    return figures


def _lowest(per_item: Sequence[dict]) -> list[dict]:
    """The items with the lowest partial span F1 (ties: more spans, then output id)."""
    ranked = sorted(
        (row for row in per_item if row[LOWEST_MEASURE]["value"] is not None),
        key=lambda row: (row[LOWEST_MEASURE]["value"], -row[LOWEST_MEASURE]["n"], row["output"]),
    )
    return [
        {
            "output": row["output"],
            "document_id": row["document_id"],
            "external_id": row["document"],
            "system": row["system"],
            "value": row[LOWEST_MEASURE]["value"],
            "n": row[LOWEST_MEASURE]["n"],
            "measure": LOWEST_MEASURE,
        }
        for row in ranked[:LOWEST]
    ]


def span_agreement_compute(
    *,
    scheme: SpanScheme,
    items: Sequence[AgreementItem],
    annotators: Sequence[str],
    min_iou: float = 0.0,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict:
    """Every span and score agreement measure of a run: per item, pair, system and overall.

    Args:
        scheme: the annotation sets' span scheme (decides label, severity and score measures).
        items: the outputs with at least two annotators each.
        annotators: every annotator key, in the order to report them.
        min_iou: the lowest intersection-over-union of a partial match (0: any overlap).
        level: confidence level of the bootstrap intervals.
        resamples: number of bootstrap resamples of the items.
        seed: seed of the resampling (the same inputs and seed give the same intervals).

    Returns:
        The JSON-ready result: ``overall``, ``per_system`` (system slug -> figures),
        ``per_pair`` and ``per_item`` figures (each a ``{"value", "n", "excluded", "reason"}``
        dict per measure; overall and per-system ones of ``CI_MEASURES`` also ``ci_low``,
        ``ci_high``, ``ci_level`` and, when there is no interval, ``ci_reason``), ``lowest``
        (the items of lowest partial span F1), ``skipped`` (measure -> why it has no value
        anywhere), ``counts``, ``matching``, ``bootstrap`` and ``conventions``.

    Raises:
        AgreementError: no item, or an item with fewer than two annotators (the service checks
            both first), or a malformed span.
        ValueError: a PolyTope error without a known severity.
        StatsError: a bad ``level`` or ``resamples``.
    """
    rank = {annotator: i for i, annotator in enumerate(annotators)}
    matchings = (EXACT, SpanMatching("partial", min_iou=min_iou))
    how = _Resampling(level=level, resamples=resamples, seed=seed)
    scorer = SEGMENT_SCORERS.get(scheme.name)
    scores = None
    if scorer is not None:
        scores = {
            item.output: {a: scorer(item.summary, errors) for a, errors in item.annotations.items()}
            for item in items
        }
    measured = _measure(scheme, items, rank, matchings, scores)
    table, skipped = measured.table, measured.skipped
    overall = _add_intervals(measured, matchings, how)
    systems = sorted({item.system for item in items})
    per_system = {}
    for system in systems:
        subset = [item for item in items if item.system == system]
        per_system[system] = _add_intervals(
            _measure(scheme, subset, rank, matchings, scores), matchings, how
        )

    left_out = dict.fromkeys(annotators, 0)
    in_source = dict.fromkeys(annotators, 0)
    marked = dict.fromkeys(annotators, 0)
    per_item = []
    for item in items:
        row_left_out = {}
        for annotator, errors in item.annotations.items():
            nowhere = sum(1 for error in errors if error["side"] == SIDE_NONE)
            left_out[annotator] += nowhere
            in_source[annotator] += sum(1 for error in errors if error["side"] == SIDE_SOURCE)
            marked[annotator] += len(errors)
            if nowhere:
                row_left_out[annotator] = nowhere
        entry = {
            "output": item.output,
            "document": item.document,
            "document_id": item.document_id,
            "system": item.system,
            "annotators": sorted(item.annotations, key=rank.__getitem__),
            "errors": {a: len(errors) for a, errors in item.annotations.items()},
            "left_out_no_offsets": row_left_out,
        }
        if measured.segment_scores is not None:
            entry["segment_scores"] = measured.segment_scores.get(item.output)
        entry.update(
            (name, _compact(figure))
            for name, figure in table.per_item[item.output].items()
            if name not in skipped
        )
        per_item.append(entry)

    per_pair = [
        {"annotators": list(pair), **figures}
        for pair, figures in sorted(
            table.per_pair.items(), key=lambda kv: (rank[kv[0][0]], rank[kv[0][1]])
        )
    ]
    return {
        "format": RESULT_FORMAT,
        "scheme": scheme.name,
        "matching": {
            "exact": {"mode": "exact"},
            "partial": {"mode": "partial", "min_iou": min_iou},
        },
        "bootstrap": {
            "unit": "item",
            "method": "percentile bootstrap over items, each figure recomputed per resample",
            "level": level,
            "resamples": resamples,
            "seed": seed,
            "measures": list(CI_MEASURES),
        },
        "conventions": CONVENTIONS,
        "counts": {
            "items": len(items),
            "items_per_system": {
                system: sum(1 for item in items if item.system == system) for system in systems
            },
            "pairs": len(per_pair),
            "errors": marked,
            "errors_in_source": in_source,
            "left_out_no_offsets": left_out,
            "items_without_words": len(measured.no_words),
        },
        "skipped": skipped,
        "overall": overall,
        "per_system": per_system,
        "per_pair": per_pair,
        "lowest": _lowest(per_item),
        "per_item": per_item,
    }
