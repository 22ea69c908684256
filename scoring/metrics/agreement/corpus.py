"""Annotations of several documents by several annotators, checked and in a canonical order."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from .errors import EmptyInputError, InvalidAnnotationError, TooFewAnnotatorsError
from .result import Pair

T = TypeVar("T")


@dataclass(frozen=True)
class Corpus(Generic[T]):
    """``data[document][annotator]`` holds one annotator's normalised annotation of a document.

    Attributes:
        documents: document ids in input order.
        annotators: annotator ids in order of first appearance.
        data: document -> annotator -> annotation (read-only mappings).
    """

    documents: tuple[Hashable, ...]
    annotators: tuple[Hashable, ...]
    data: Mapping[Hashable, Mapping[Hashable, T]]

    def pairs(self, document: Hashable) -> tuple[Pair, ...]:
        """Every annotator pair of one document.

        Args:
            document: a document of the corpus.

        Returns:
            ``(a, b)`` pairs of the annotators of ``document``, ``a`` before ``b`` in
            ``annotators``.

        Raises:
            KeyError: ``document`` is not in the corpus.
        """
        present = self.data[document]
        ordered = [a for a in self.annotators if a in present]
        return tuple(combinations(ordered, 2))

    def document_pairs(self) -> Iterator[tuple[Hashable, Pair]]:
        """Every document with each of its annotator pairs.

        Yields:
            ``(document, (a, b))`` in canonical order: documents in input order, then pairs as
            in :meth:`pairs`.

        Raises:
            Nothing.
        """
        for document in self.documents:
            for pair in self.pairs(document):
                yield document, pair


def build_corpus(
    documents: Mapping[Hashable, Mapping[Hashable, Any]],
    normalise: Callable[[Hashable, Hashable, Any], T],
) -> Corpus[T]:
    """Check the document/annotator structure and normalise each annotation.

    Args:
        documents: document id -> annotator id -> one annotation.
        normalise: ``(document, annotator, raw) -> annotation``; raises a typed error.

    Returns:
        The checked :class:`Corpus`.

    Raises:
        EmptyInputError: no document.
        InvalidAnnotationError: the input is not a mapping of mappings.
        TooFewAnnotatorsError: a document with fewer than two annotators.
    """
    if not isinstance(documents, Mapping):
        raise InvalidAnnotationError("expected a mapping document -> annotator -> annotation")
    if not documents:
        raise EmptyInputError("no documents to compare")
    annotators: dict[Hashable, None] = {}
    data: dict[Hashable, Mapping[Hashable, T]] = {}
    for document, by_annotator in documents.items():
        if not isinstance(by_annotator, Mapping):
            raise InvalidAnnotationError(
                "expected a mapping annotator -> annotation", document=document
            )
        if len(by_annotator) < 2:
            raise TooFewAnnotatorsError(
                f"has {len(by_annotator)} annotator(s) {sorted(map(repr, by_annotator))}; "
                "agreement needs at least two",
                document=document,
            )
        normalised = {}
        for annotator, raw in by_annotator.items():
            annotators.setdefault(annotator)
            normalised[annotator] = normalise(document, annotator, raw)
        data[document] = MappingProxyType(normalised)
    return Corpus(tuple(data), tuple(annotators), MappingProxyType(data))
