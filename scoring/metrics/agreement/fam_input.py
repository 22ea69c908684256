"""Read several annotators' FAMs of several documents into a checked corpus of support groups."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..fam import FacetAwareMapping
from .corpus import Corpus, build_corpus
from .errors import (
    FacetCountMismatchError,
    InvalidAnnotationError,
    SentenceCountMismatchError,
    UnknownDocumentError,
)

# One annotator's FAM of one document: a validated FacetAwareMapping, or a list indexed by facet
# of support groups, each an iterable of document-sentence indices.
RawFam = FacetAwareMapping | Sequence[Sequence[Iterable[int]]]


@dataclass(frozen=True)
class FamAnnotation:
    """One annotator's support groups per facet; a repeated group is kept once.

    Attributes:
        groups: ``groups[f]`` holds facet ``f``'s alternative support groups.
        n_sentences: the sentence count a :class:`FacetAwareMapping` was validated against,
            else ``None``.
    """

    groups: tuple[tuple[frozenset[int], ...], ...]
    n_sentences: int | None = None

    def support(self, facet: int) -> frozenset[int]:
        """The facet's support sentences: the union of its groups.

        Args:
            facet: the facet's index.

        Returns:
            The sentence indices (empty when the facet has no group).

        Raises:
            IndexError: no such facet.
        """
        return frozenset().union(*self.groups[facet])


def _unique(groups: Iterable[frozenset[int]]) -> tuple[frozenset[int], ...]:
    return tuple(dict.fromkeys(groups))


def _group(document, annotator, facet: int, index: int, raw: Any) -> frozenset[int]:
    where = {"document": document, "annotator": annotator, "facet": facet, "group": index}
    if isinstance(raw, str | bytes | Mapping) or not isinstance(raw, Iterable):
        raise InvalidAnnotationError(
            f"a group must be a set of sentence indices, got {raw!r}", **where
        )
    members = list(raw)
    if not members:
        raise InvalidAnnotationError("empty support group", **where)
    for sentence in members:
        if isinstance(sentence, bool) or not isinstance(sentence, int) or sentence < 0:
            raise InvalidAnnotationError(
                f"sentence index {sentence!r} is not a non-negative integer", **where
            )
    return frozenset(members)


def normalise_fam(document: Hashable, annotator: Hashable, raw: RawFam) -> FamAnnotation:
    """Turn one annotator's FAM into a :class:`FamAnnotation`.

    Args:
        document: the document id (for error messages).
        annotator: the annotator id (for error messages).
        raw: a :class:`FacetAwareMapping`, or a list indexed by facet of lists of groups.

    Returns:
        The annotation, with repeated groups kept once.

    Raises:
        InvalidAnnotationError: not a FacetAwareMapping or a list of facets; an empty group; a
            negative or non-integer sentence index.
    """
    if isinstance(raw, FacetAwareMapping):
        return FamAnnotation(tuple(_unique(groups) for groups in raw.groups), raw.n_sentences)
    if isinstance(raw, str | bytes | Mapping) or not isinstance(raw, Sequence):
        raise InvalidAnnotationError(
            "expected a FacetAwareMapping or a list indexed by facet of support groups "
            f"(validate a dict with scoring.metrics.fam.validate_fam), got {type(raw).__name__}",
            document=document,
            annotator=annotator,
        )
    facets = []
    for facet, groups in enumerate(raw):
        if isinstance(groups, str | bytes | Mapping) or not isinstance(groups, Iterable):
            raise InvalidAnnotationError(
                f"expected a list of support groups, got {groups!r}",
                document=document,
                annotator=annotator,
                facet=facet,
            )
        facets.append(
            _unique(_group(document, annotator, facet, i, group) for i, group in enumerate(groups))
        )
    return FamAnnotation(tuple(facets))


def _check_document(document, fams: Mapping[Hashable, FamAnnotation], expected: int | None):
    counts = {annotator: len(fam.groups) for annotator, fam in fams.items()}
    reference = expected if expected is not None else next(iter(counts.values()))
    for annotator, count in counts.items():
        if count != reference:
            source = "the reference" if expected is not None else "the first annotator"
            raise FacetCountMismatchError(
                f"has {count} facets but {source} has {reference} ({counts})",
                document=document,
                annotator=annotator,
            )
    sizes = {a: fam.n_sentences for a, fam in fams.items() if fam.n_sentences is not None}
    if len(set(sizes.values())) > 1:
        raise SentenceCountMismatchError(
            f"FAMs validated against different sentence counts {sizes}", document=document
        )


def load_fams(
    documents: Mapping[Hashable, Mapping[Hashable, RawFam]],
    *,
    n_facets: Mapping[Hashable, int] | None = None,
) -> Corpus[FamAnnotation]:
    """Check and normalise ``document -> annotator -> FAM``.

    Args:
        documents: per document, per annotator, a :class:`FacetAwareMapping` or a list of
            facets' groups.
        n_facets: optional facet count of each document's reference, to check every FAM against.

    Returns:
        The corpus of :class:`FamAnnotation`.

    Raises:
        EmptyInputError: no document.
        TooFewAnnotatorsError: a document with fewer than two annotators.
        UnknownDocumentError: a document missing from ``n_facets``.
        FacetCountMismatchError: FAMs of one document with different facet counts.
        SentenceCountMismatchError: Fams of one document validated for different sentence counts.
        InvalidAnnotationError: a malformed FAM.
    """
    corpus = build_corpus(documents, normalise_fam)
    for document in corpus.documents:
        expected = None
        if n_facets is not None:
            if document not in n_facets:
                raise UnknownDocumentError("not in the given facet counts", document=document)
            expected = n_facets[document]
        _check_document(document, corpus.data[document], expected)
    return corpus
