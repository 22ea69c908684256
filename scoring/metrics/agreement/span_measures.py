"""Agreement on PolyTope error spans: span F1, Cohen's kappa and Krippendorff's alpha."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .coefficients import cohen_kappa, krippendorff_alpha
from .corpus import Corpus
from .errors import InvalidOptionError
from .levels import grouped, mean_of_scores, result, sorted_pairs
from .result import AgreementResult, Pair, Score
from .sets import nominal_distance
from .spans import (
    Normalizer,
    Span,
    SpanDocuments,
    SpanMatching,
    load_spans,
    match_spans,
    normalizer_name,
    span_clusters,
)

Attribute = Literal["subtype", "label"]
DEFAULT_MATCHING = SpanMatching()


@dataclass(frozen=True)
class _PairMatch:
    """The matched spans of one pair on one document."""

    pairs: tuple[tuple[Span, Span], ...]
    n_a: int
    n_b: int

    @property
    def unmatched(self) -> int:
        return self.n_a + self.n_b - 2 * len(self.pairs)


def _matches(corpus: Corpus[tuple[Span, ...]], matching: SpanMatching) -> dict:
    cells = {}
    for doc, (a, b) in corpus.document_pairs():
        spans_a, spans_b = corpus.data[doc][a], corpus.data[doc][b]
        found = match_spans(spans_a, spans_b, matching)
        pairs = tuple((spans_a[i], spans_b[j]) for i, j, _ in found)
        cells[(doc, (a, b))] = _PairMatch(pairs, len(spans_a), len(spans_b))
    return cells


def _options(matching: SpanMatching, **more) -> dict:
    return {"mode": matching.mode, "min_iou": matching.min_iou, **more}


def _pooled_f1(parts: Sequence[_PairMatch]) -> Score:
    matched = sum(len(part.pairs) for part in parts)
    spans = sum(part.n_a + part.n_b for part in parts)
    if spans == 0:
        return Score.undefined("neither annotator marked a span")
    return Score(2 * matched / spans, n=spans)


def span_f1(
    documents: SpanDocuments,
    *,
    matching: SpanMatching = DEFAULT_MATCHING,
    lengths: Mapping[Hashable, int] | None = None,
) -> AgreementResult:
    """Span-overlap F1 between annotators: ``2 * matched / (spans of A + spans of B)``.

    Spans are paired one-to-one by :func:`~scoring.metrics.agreement.spans.match_spans`; the
    counts are pooled (summed) over the cells of each level before the division.

    Args:
        documents: per document, per annotator, a list of spans.
        matching: exact or partial matching (default: partial, any overlap).
        lengths: optional text length per document, to check the offsets.

    Returns:
        The measure ``span_f1`` at every level; ``n`` counts spans.

    Raises:
        AgreementError: see :func:`~scoring.metrics.agreement.spans.load_spans`.
    """
    corpus = load_spans(documents, lengths=lengths)
    levels = grouped(corpus, _matches(corpus, matching), _pooled_f1)
    return result("span_f1", corpus, levels, _options(matching))


def _attribute(attribute: str) -> None:
    if attribute not in ("subtype", "label"):
        raise InvalidOptionError(f"attribute must be 'subtype' or 'label', got {attribute!r}")


def _kappa(parts: Sequence[_PairMatch], attribute: Attribute) -> Score:
    pairs = [
        (getattr(a, attribute), getattr(b, attribute)) for part in parts for a, b in part.pairs
    ]
    score = cohen_kappa(pairs)
    return dataclasses.replace(score, excluded=sum(part.unmatched for part in parts))


def span_kappa(
    documents: SpanDocuments,
    *,
    attribute: Attribute = "subtype",
    matching: SpanMatching = DEFAULT_MATCHING,
    lengths: Mapping[Hashable, int] | None = None,
    normalize: Normalizer | None = None,
) -> AgreementResult:
    """Cohen's kappa on the subtype or label of matched spans.

    A pair on one document, and a pair over all documents (matched spans pooled), get Cohen's
    kappa. A document, and the overall figure, get the mean of the defined pair kappas (Light's
    kappa); ``excluded`` there counts undefined pair kappas, elsewhere unmatched spans.

    Args:
        documents: as for :func:`span_f1`.
        attribute: ``"subtype"`` (issue type) or ``"label"``.
        matching: as for :func:`span_f1`.
        lengths: as for :func:`span_f1`.
        normalize: maps a name of ``attribute`` to its category before comparing, e.g.
            ``scoring.metrics.polytope.parse_subtype`` for subtypes or ``parse_label`` for
            labels, so that workbook spellings ("Inaccuracy_internal") agree with official
            names ("Inaccuracy Intrinsic"). ``None`` (the default) compares the raw strings.

    Returns:
        The measure ``span_kappa_<attribute>`` at every level; ``n`` counts matched span pairs.
        ``options["normalize"]`` names the normalizer (``None`` for raw strings).

    Raises:
        AgreementError: as for :func:`span_f1`; InvalidOptionError for an unknown attribute or
            a normalizer that is not callable; InvalidAnnotationError for a name the normalizer
            refuses.
    """
    _attribute(attribute)
    corpus = load_spans(documents, lengths=lengths, **{f"normalize_{attribute}": normalize})
    cells_data = _matches(corpus, matching)
    cells, _, per_pair, _ = grouped(corpus, cells_data, lambda parts: _kappa(parts, attribute))
    by_document: dict[Hashable, list[Score]] = {doc: [] for doc in corpus.documents}
    for (doc, _), score in cells.items():
        by_document[doc].append(score)
    per_document = {doc: mean_of_scores(s, "pair kappa") for doc, s in by_document.items()}
    overall = mean_of_scores(list(per_pair.values()), "pair kappa")
    levels = (cells, per_document, per_pair, overall)
    options = _options(matching, attribute=attribute, normalize=normalizer_name(normalize))
    return result(f"span_kappa_{attribute}", corpus, levels, options)


def _alpha(corpus, documents, annotators, attribute: Attribute, matching) -> Score:
    units = []
    for doc in documents:
        present = [a for a in annotators if a in corpus.data[doc]]
        spans = corpus.data[doc]
        for cluster in span_clusters(spans, present, matching):
            units.append([getattr(spans[a][i], attribute) for a, i in cluster])
    return krippendorff_alpha(units, nominal_distance)


def span_alpha(
    documents: SpanDocuments,
    *,
    attribute: Attribute = "subtype",
    matching: SpanMatching = DEFAULT_MATCHING,
    lengths: Mapping[Hashable, int] | None = None,
    normalize: Normalizer | None = None,
) -> AgreementResult:
    """Krippendorff's alpha (nominal) on the subtype or label of matched spans.

    Units are the clusters of :func:`~scoring.metrics.agreement.spans.span_clusters` built from
    the annotators of each level (two for a pair: its matched spans). Unmatched spans are units
    with one value and count in ``excluded``.

    Args:
        documents: as for :func:`span_f1`.
        attribute: ``"subtype"`` (issue type) or ``"label"``.
        matching: as for :func:`span_f1`.
        lengths: as for :func:`span_f1`.
        normalize: as for :func:`span_kappa`.

    Returns:
        The measure ``span_alpha_<attribute>`` at every level; ``n`` counts pairable values.
        ``options["normalize"]`` names the normalizer (``None`` for raw strings).

    Raises:
        AgreementError: as for :func:`span_kappa`.
    """
    _attribute(attribute)
    corpus = load_spans(documents, lengths=lengths, **{f"normalize_{attribute}": normalize})

    def alpha(docs: Sequence[Hashable], people: Sequence[Hashable]) -> Score:
        return _alpha(corpus, docs, people, attribute, matching)

    keys = list(corpus.document_pairs())
    cells = {(doc, pair): alpha([doc], pair) for doc, pair in keys}
    per_pair: dict[Pair, Score] = {
        pair: alpha([doc for doc, other in keys if other == pair], pair)
        for pair in sorted_pairs(corpus, {pair for _, pair in keys})
    }
    per_document = {doc: alpha([doc], corpus.annotators) for doc in corpus.documents}
    overall = alpha(corpus.documents, corpus.annotators)
    levels = (cells, per_document, per_pair, overall)
    options = _options(matching, attribute=attribute, normalize=normalizer_name(normalize))
    return result(f"span_alpha_{attribute}", corpus, levels, options)


@dataclass(frozen=True)
class SpanAgreement:
    """Every span measure, each at every level."""

    f1: AgreementResult
    kappa_subtype: AgreementResult
    kappa_label: AgreementResult
    alpha_subtype: AgreementResult
    alpha_label: AgreementResult


def span_agreement(
    documents: SpanDocuments,
    *,
    matching: SpanMatching = DEFAULT_MATCHING,
    lengths: Mapping[Hashable, int] | None = None,
    normalize_subtype: Normalizer | None = None,
    normalize_label: Normalizer | None = None,
) -> SpanAgreement:
    """Span F1, and kappa and alpha on subtype and label, with one matching rule.

    For PolyTope vocabulary, pass ``normalize_subtype=scoring.metrics.polytope.parse_subtype``
    and ``normalize_label=scoring.metrics.polytope.parse_label``: every spelling of one subtype
    or label is then one category, and a name outside the taxonomy is an error naming its span.

    Args:
        documents: as for :func:`span_f1`.
        matching: as for :func:`span_f1`.
        lengths: as for :func:`span_f1`.
        normalize_subtype: the ``normalize`` of the subtype kappa and alpha (default: raw).
        normalize_label: the ``normalize`` of the label kappa and alpha (default: raw).

    Returns:
        A :class:`SpanAgreement`.

    Raises:
        AgreementError: as for :func:`span_kappa`.
    """
    common = {"matching": matching, "lengths": lengths}
    subtype = {"attribute": "subtype", "normalize": normalize_subtype, **common}
    label = {"attribute": "label", "normalize": normalize_label, **common}
    return SpanAgreement(
        f1=span_f1(documents, **common),
        kappa_subtype=span_kappa(documents, **subtype),
        kappa_label=span_kappa(documents, **label),
        alpha_subtype=span_alpha(documents, **subtype),
        alpha_label=span_alpha(documents, **label),
    )
