"""Per-document FAR-family scores: plain set arithmetic on one FAM and one extraction.

This is the readable definition. :mod:`.engine` computes the same numbers for many documents
at once, and the tests check that both agree exactly.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from ..fam import FacetAwareMapping
from .errors import EmptyExtractionError, ExtractedIndexError, InvalidKError, NoSupportError

DEFAULT_K = 3


def check_k(k: int | None) -> int | None:
    """Return ``k`` if it is a positive integer or ``None`` (every extracted sentence).

    Args:
        k: how many extracted entries to consider, or ``None`` for all of them.

    Returns:
        ``k`` unchanged.

    Raises:
        InvalidKError: anything else (0, negative, a bool, a float).
    """
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidKError(f"k must be a positive integer or None (all sentences), got {k!r}")
    return k


def validate_extracted(
    extracted: Sequence[int], n_sentences: int, *, document: Hashable | None = None
) -> tuple[int, ...]:
    """Check every extracted index (not only the first ``k``) and return them as plain ints.

    Args:
        extracted: document-sentence indices in extraction order; repeats are allowed (the FAR
            release has a few) and count once.
        n_sentences: the document's sentence count; indices must lie in ``0..n_sentences-1``.
        document: the document's id, for error messages.

    Returns:
        The indices as plain ``int`` (``numpy`` integers are converted), in the given order.

    Raises:
        ExtractedIndexError: a bool, a non-integer, a negative index or one past the end.
    """
    checked = []
    for position, value in enumerate(extracted):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ExtractedIndexError(
                f"{value!r} is not an integer", document=document, position=position, value=value
            )
        index = int(value)
        if not 0 <= index < n_sentences:
            raise ExtractedIndexError(
                f"sentence index {index} is out of range (the document has {n_sentences} "
                f"sentences: 0..{n_sentences - 1})",
                document=document,
                position=position,
                value=value,
            )
        checked.append(index)
    return tuple(checked)


def considered_sentences(extracted: Sequence[int], k: int | None = DEFAULT_K) -> frozenset[int]:
    """The set of the first ``k`` extracted entries (all of them when ``k`` is None).

    The release's notebook takes the first ``k`` entries and then their set, so a repeated index
    inside the first ``k`` leaves fewer than ``k`` sentences; the published table depends on it.

    Args:
        extracted: validated sentence indices in extraction order
            (:func:`validate_extracted`); this function does not check them.
        k: how many entries to take, in order; ``None`` takes every one. Not checked here
            (see :func:`check_k`).

    Returns:
        The distinct indices among the first ``k`` entries; empty when ``extracted`` is.
    """
    return frozenset(extracted if k is None else extracted[:k])


def covered_groups(fam: FacetAwareMapping, considered: frozenset[int]) -> tuple[int, ...]:
    """Per facet, how many *distinct* support groups lie wholly inside ``considered``.

    A group listed twice for one facet (the FAR release repeats one) counts once.

    Args:
        fam: a validated FAM.
        considered: the considered sentence indices (:func:`considered_sentences`).

    Returns:
        One count per facet, in facet order; 0 for a facet without a group.
    """
    return tuple(sum(1 for group in set(groups) if group <= considered) for groups in fam.groups)


def all_support(fam: FacetAwareMapping) -> frozenset[int]:
    """The union of every support sentence of every facet.

    Args:
        fam: a validated FAM.

    Returns:
        The support sentence indices; empty when no facet has a support group.
    """
    return frozenset(index for groups in fam.groups for group in groups for index in group)


def scorable_documents(fams: Mapping[Hashable, FacetAwareMapping]) -> list[Hashable]:
    """The documents whose FAM has at least one support group, in the mapping's order.

    Only these can be scored: for the others SAR and FAR are undefined (:class:`NoSupportError`).

    Args:
        fams: document id -> validated FAM.

    Returns:
        The ids of the documents with support, in ``fams``' order (possibly empty; this
        function raises nothing).
    """
    return [document for document, fam in fams.items() if any(fam.groups)]


@dataclass(frozen=True)
class FarDocumentScore:
    """The FAR family for one document and one extraction, kept as exact counts.

    Counts:
        n_considered: distinct sentences among the first ``k`` extracted.
        n_support: distinct support sentences of all facets (their union).
        n_hit: considered sentences that are support sentences.
        n_facets: facets in FAR's denominator: the facets with a support group, or every facet
            when scored with ``include_unsupported=True``.
        n_covered: facets with at least one support group inside the considered sentences.
        n_redundant: facets with more than one distinct support group inside them.

    The ratios are properties; none can be 0/0, because :func:`score_document` refuses a
    document without support (:class:`NoSupportError`) or without a considered sentence
    (:class:`EmptyExtractionError`).
    """

    document: Hashable | None
    k: int | None
    n_considered: int
    n_support: int
    n_hit: int
    n_facets: int
    n_covered: int
    n_redundant: int

    @property
    def sap(self) -> float:
        """Support precision: ``n_hit / n_considered``."""
        return self.n_hit / self.n_considered

    @property
    def sar(self) -> float:
        """Support recall: ``n_hit / n_support``."""
        return self.n_hit / self.n_support

    @property
    def saf1(self) -> float:
        """F1 of SAP and SAR: ``2PR / (P + R) = 2 n_hit / (n_considered + n_support)``.

        Both forms are equal; this one is 0 (not 0/0) when nothing is hit.
        """
        return 2 * self.n_hit / (self.n_considered + self.n_support)

    @property
    def far(self) -> float:
        """Facet-aware recall: ``n_covered / n_facets``."""
        return self.n_covered / self.n_facets

    @property
    def far_per_sentence(self) -> float:
        """FAR divided by the number of distinct considered sentences: ``far / n_considered``.

        Our reading of the FAR paper's footnote 5 ("One can also normalize FAR by the number
        of extracted sentences"; see the package docstring). ``n_considered`` counts the *distinct*
        sentences among the first ``k`` extracted, not ``k`` and not the whole extraction.
        """
        return self.far / self.n_considered

    @property
    def covered_per_sentence(self) -> float:
        """Covered facets per distinct considered sentence: ``n_covered / n_considered``.

        An alternative reading of footnote 5 that does not depend on FAR's denominator (so it
        is the same with and without ``include_unsupported``). Not in the published table.
        """
        return self.n_covered / self.n_considered

    @property
    def redundant(self) -> bool:
        """Whether some facet has more than one distinct support group covered."""
        return self.n_redundant > 0

    def as_dict(self) -> dict:
        """The document's scores and counts as a JSON-ready dict (the ``far`` CLI's record).

        Returns:
            ``sap``, ``sar``, ``saf1``, ``far``, ``far_per_sentence`` (floats), ``redundant``
            (bool), and the counts ``considered``, ``support_sentences``, ``support_hit``,
            ``facets``, ``facets_covered``, ``redundant_facets`` (ints), in that order.
        """
        return {
            "sap": self.sap,
            "sar": self.sar,
            "saf1": self.saf1,
            "far": self.far,
            "far_per_sentence": self.far_per_sentence,
            "redundant": self.redundant,
            "considered": self.n_considered,
            "support_sentences": self.n_support,
            "support_hit": self.n_hit,
            "facets": self.n_facets,
            "facets_covered": self.n_covered,
            "redundant_facets": self.n_redundant,
        }


def score_document(
    fam: FacetAwareMapping,
    extracted: Sequence[int],
    k: int | None = DEFAULT_K,
    *,
    include_unsupported: bool = False,
    document: Hashable | None = None,
) -> FarDocumentScore:
    """Score one extraction against one validated FAM.

    Args:
        fam: the document's validated FAM (:func:`scoring.metrics.fam.validate_fam`).
        extracted: document-sentence indices in extraction order. Every entry is validated
            against ``fam.n_sentences``, also those after the first ``k``.
        k: how many extracted entries to consider, in order (default 3, as in the paper);
            ``None`` considers them all.
        include_unsupported: count facets without a support group in FAR's denominator (they
            are never covered). By default they are left out, as in the release's notebook.
        document: the document's id, carried into the score and into error messages.

    Returns:
        The document's :class:`FarDocumentScore`.

    Raises:
        InvalidKError: a bad ``k``.
        ExtractedIndexError: a bad extracted index.
        NoSupportError: the FAM has no support group (SAR, SAF1 and FAR are undefined).
        EmptyExtractionError: no sentence is considered (SAP is undefined).
    """
    k = check_k(k)
    indices = validate_extracted(extracted, fam.n_sentences, document=document)
    support = all_support(fam)
    if not support:
        raise NoSupportError(document)
    considered = considered_sentences(indices, k)
    if not considered:
        raise EmptyExtractionError(document)
    counts = covered_groups(fam, considered)
    supported = [count for count, groups in zip(counts, fam.groups, strict=True) if groups]
    return FarDocumentScore(
        document=document,
        k=k,
        n_considered=len(considered),
        n_support=len(support),
        n_hit=len(considered & support),
        n_facets=fam.n_facets if include_unsupported else len(supported),
        n_covered=sum(1 for count in supported if count > 0),
        n_redundant=sum(1 for count in supported if count > 1),
    )
