"""PolyTope error spans: the span type, input checks, one-to-one matching and clusters."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from .corpus import Corpus, build_corpus
from .errors import InvalidAnnotationError, InvalidOptionError, UnknownDocumentError


@dataclass(frozen=True, order=True)
class Span:
    """One error span ``[start, end)`` (character or token offsets), its subtype and label.

    ``subtype`` and ``label`` are the names as given; once loaded with a normalizer
    (:func:`load_spans`), they hold what the normalizer returned for them.
    """

    start: int
    end: int
    subtype: str
    label: str


RawSpan = Span | Sequence[Any] | Mapping[str, Any]
SpanDocuments = Mapping[Hashable, Mapping[Hashable, Sequence[RawSpan]]]

#: Maps a subtype or label name to the category it stands for, e.g.
#: ``scoring.metrics.polytope.parse_subtype`` (so "Inaccuracy_internal" and "Inaccuracy
#: Intrinsic" are one category). It may return any hashable value other than ``None``, and it
#: refuses a name by raising ``ValueError``, ``KeyError`` or ``TypeError``.
Normalizer = Callable[[str], Hashable]


def normalizer_name(normalize: Normalizer | None) -> str | None:
    """How a normalizer is recorded in a result's ``options``: its dotted name, or ``None``.

    Args:
        normalize: the normalizer, or ``None`` (names compared as given).

    Returns:
        ``module.qualname`` of the callable (e.g.
        ``"scoring.metrics.polytope.taxonomy.parse_subtype"``), its ``repr`` when it has no
        name, or ``None``.

    Raises:
        InvalidOptionError: ``normalize`` is neither ``None`` nor callable.
    """
    if normalize is None:
        return None
    if not callable(normalize):
        raise InvalidOptionError(f"a normalizer must be callable or None, got {normalize!r}")
    name = getattr(normalize, "__qualname__", None)
    module = getattr(normalize, "__module__", None)
    if name is None:
        return repr(normalize)
    return f"{module}.{name}" if module else name


def _sort_key(span: Span) -> tuple:
    # Normalized categories need not be orderable (an Enum is not), so they sort by str().
    return (span.start, span.end, str(span.subtype), str(span.label))


@dataclass(frozen=True)
class SpanMatching:
    """How spans of two annotators are paired.

    Attributes:
        mode: ``"exact"`` pairs spans with the same start and end; ``"partial"`` pairs spans
            that share at least one offset and whose IoU is at least ``min_iou``.
        min_iou: lowest intersection-over-union for ``"partial"``, in [0, 1].
    """

    mode: Literal["exact", "partial"] = "partial"
    min_iou: float = 0.0

    def __post_init__(self) -> None:
        if self.mode not in ("exact", "partial"):
            raise InvalidOptionError(f"mode must be 'exact' or 'partial', got {self.mode!r}")
        if not 0.0 <= self.min_iou <= 1.0:
            raise InvalidOptionError(f"min_iou must be in [0, 1], got {self.min_iou!r}")


def _as_span(raw: RawSpan, where: dict) -> Span:
    if isinstance(raw, Span):
        return raw
    if isinstance(raw, Mapping):
        missing = {"start", "end", "subtype", "label"} - raw.keys()
        if missing:
            raise InvalidAnnotationError(f"span lacks {sorted(missing)}", **where)
        return Span(raw["start"], raw["end"], raw["subtype"], raw["label"])
    if isinstance(raw, Sequence) and not isinstance(raw, str | bytes) and len(raw) == 4:
        return Span(*raw)
    raise InvalidAnnotationError(
        f"expected a Span, (start, end, subtype, label) or a mapping, got {raw!r}", **where
    )


def _check_span(span: Span, length: int | None, where: dict) -> None:
    for name in ("start", "end"):
        value = getattr(span, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidAnnotationError(f"{name} {value!r} is not an integer", **where)
    if not 0 <= span.start < span.end:
        raise InvalidAnnotationError(
            f"[{span.start}, {span.end}) is not a non-empty span at offset >= 0", **where
        )
    if length is not None and span.end > length:
        raise InvalidAnnotationError(
            f"[{span.start}, {span.end}) ends after the text's length {length}", **where
        )
    for name in ("subtype", "label"):
        value = getattr(span, name)
        if not isinstance(value, str) or not value.strip():
            raise InvalidAnnotationError(f"{name} {value!r} is not a non-empty string", **where)


def _normalized(span: Span, normalizers: Mapping[str, Normalizer], where: dict) -> Span:
    changes = {}
    for name, normalize in normalizers.items():
        raw = getattr(span, name)
        try:
            value = normalize(raw)
            hash(value)
        except (ValueError, KeyError, TypeError) as error:
            raise InvalidAnnotationError(
                f"{name} {raw!r} is refused by the normalizer: {error}", **where
            ) from error
        if value is None:
            raise InvalidAnnotationError(f"{name} {raw!r}: the normalizer returned None", **where)
        changes[name] = value
    return dataclasses.replace(span, **changes) if changes else span


def load_spans(
    documents: SpanDocuments,
    *,
    lengths: Mapping[Hashable, int] | None = None,
    normalize_subtype: Normalizer | None = None,
    normalize_label: Normalizer | None = None,
) -> Corpus[tuple[Span, ...]]:
    """Check ``document -> annotator -> spans``, normalize their names and sort them.

    Args:
        documents: per document, per annotator, a list of spans (an empty list: no error found).
            A span is a :class:`Span`, a ``(start, end, subtype, label)`` sequence or a mapping
            with those keys.
        lengths: optional text length of each document, in the offsets' unit.
        normalize_subtype: maps each subtype name to its category (see :data:`Normalizer`);
            ``None`` (the default) keeps the name as given.
        normalize_label: the same for labels.

    Returns:
        The corpus; each annotator's spans, with normalized names, sorted by ``(start, end)``
        and then the ``str`` of their subtype and label (the names themselves when not
        normalized).

    Raises:
        EmptyInputError: no document.
        TooFewAnnotatorsError: a document with fewer than two annotators.
        UnknownDocumentError: a document missing from ``lengths``.
        InvalidAnnotationError: a malformed span, or a name the normalizer refuses (``span`` is
            its index in the input list).
        InvalidOptionError: a normalizer that is not callable.
    """
    normalizers = {
        name: normalize
        for name, normalize in (("subtype", normalize_subtype), ("label", normalize_label))
        if normalizer_name(normalize) is not None
    }

    def normalise(document, annotator, raw) -> tuple[Span, ...]:
        length = None
        if lengths is not None:
            if document not in lengths:
                raise UnknownDocumentError("not in the given text lengths", document=document)
            length = lengths[document]
        if isinstance(raw, str | bytes | Mapping) or not isinstance(raw, Sequence):
            raise InvalidAnnotationError(
                "expected a list of spans", document=document, annotator=annotator
            )
        spans = []
        for index, item in enumerate(raw):
            where = {"document": document, "annotator": annotator, "span": index}
            span = _as_span(item, where)
            _check_span(span, length, where)
            spans.append(_normalized(span, normalizers, where))
        return tuple(sorted(spans, key=_sort_key))

    return build_corpus(documents, normalise)


def iou(a: Span, b: Span) -> float:
    """Intersection over union of two spans' offsets.

    Args:
        a: one span.
        b: the other span.

    Returns:
        ``|overlap| / |union|`` in [0, 1]; 0.0 when they do not overlap.

    Raises:
        Nothing for checked spans (``start < end``).
    """
    overlap = min(a.end, b.end) - max(a.start, b.start)
    if overlap <= 0:
        return 0.0
    return overlap / ((a.end - a.start) + (b.end - b.start) - overlap)


def match_spans(
    spans_a: Sequence[Span], spans_b: Sequence[Span], matching: SpanMatching
) -> tuple[tuple[int, int, float], ...]:
    """Pair spans of A and B one-to-one, greedily by IoU.

    Candidates are the pairs allowed by ``matching``. They are taken in order of decreasing IoU,
    ties by A's index then B's index (both lists sorted); a candidate is kept when neither of its
    spans is taken yet.

    Args:
        spans_a: A's spans, sorted.
        spans_b: B's spans, sorted.
        matching: the matching rule.

    Returns:
        ``(index in A, index in B, IoU)`` per matched pair, in the order taken.

    Raises:
        Nothing for checked spans.
    """
    candidates = []
    for i, a in enumerate(spans_a):
        for j, b in enumerate(spans_b):
            if matching.mode == "exact":
                if (a.start, a.end) == (b.start, b.end):
                    candidates.append((1.0, i, j))
                continue
            value = iou(a, b)
            if value > 0 and value >= matching.min_iou:
                candidates.append((value, i, j))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used_a: set[int] = set()
    used_b: set[int] = set()
    matched = []
    for value, i, j in candidates:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            matched.append((i, j, value))
    return tuple(matched)


Node = tuple[Hashable, int]


def span_clusters(
    spans: Mapping[Hashable, Sequence[Span]],
    annotators: Sequence[Hashable],
    matching: SpanMatching,
) -> list[list[Node]]:
    """Group the spans of several annotators on one document into units, at most one per annotator.

    Every pairwise match (:func:`match_spans`) is an edge. Edges are taken by decreasing IoU,
    ties by annotator order then span indices; an edge joins its two clusters unless an annotator
    would then appear twice. With two annotators the clusters are exactly the matched pairs.

    Args:
        spans: annotator -> sorted spans.
        annotators: the annotators to use, in canonical order.
        matching: the matching rule.

    Returns:
        Every cluster as ``(annotator, span index)`` nodes, singletons (unmatched spans) too.

    Raises:
        KeyError: an annotator of ``annotators`` that is not in ``spans``.
    """
    edges = []
    for rank_a, rank_b in combinations(range(len(annotators)), 2):
        a, b = annotators[rank_a], annotators[rank_b]
        for i, j, value in match_spans(spans[a], spans[b], matching):
            edges.append((-value, rank_a, rank_b, i, j))
    edges.sort()
    cluster_of: dict[Node, int] = {}
    clusters: list[dict[Hashable, int]] = []
    for annotator in annotators:
        for index in range(len(spans[annotator])):
            cluster_of[(annotator, index)] = len(clusters)
            clusters.append({annotator: index})
    for _, rank_a, rank_b, i, j in edges:
        first = cluster_of[(annotators[rank_a], i)]
        second = cluster_of[(annotators[rank_b], j)]
        if first == second or clusters[first].keys() & clusters[second].keys():
            continue
        for annotator, index in clusters[second].items():
            cluster_of[(annotator, index)] = first
        clusters[first].update(clusters[second])
        clusters[second] = {}
    return [list(cluster.items()) for cluster in clusters if cluster]
