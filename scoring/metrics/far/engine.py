"""Bulk FAR-family scoring: many documents and systems with bit masks and numpy.

:class:`FarEngine` compiles a dataset's FAMs once: each document's support union and each
distinct support group become bit masks (sentence ``i`` is bit ``i % 64`` of word ``i // 64``).
Scoring a system then turns its extractions into masks and needs only whole-array operations:

* ``n_hit = popcount(extracted & support)``, ``n_considered = popcount(extracted)``;
* a group is covered when ``group & ~extracted == 0``; ``np.add.reduceat`` counts the covered
  groups per facet and then the covered (and redundant) facets per document.

The counts are the same integers as :func:`.document.score_document` computes with sets, and
:class:`.aggregate.FarScoreTable` turns both into the same floats; the tests check it.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from ..fam import FacetAwareMapping
from .aggregate import FarScoreTable, FarSystemScore, aggregate
from .document import DEFAULT_K, check_k, validate_extracted
from .errors import (
    EmptyExtractionError,
    ExtractedIndexError,
    MissingOutputsError,
    NoDocumentsError,
    NoSupportError,
)

_WORD = 64
_ONE = np.uint64(1)
_ABSENT = object()  # marks a document without output

if hasattr(np, "bitwise_count"):  # numpy >= 2.0

    def _popcount(masks: np.ndarray) -> np.ndarray:
        return np.bitwise_count(masks).sum(axis=-1, dtype=np.int64)

else:  # pragma: no cover - numpy 1.26
    _BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)

    def _popcount(masks: np.ndarray) -> np.ndarray:
        as_bytes = np.ascontiguousarray(masks).view(np.uint8)
        return _BYTE_COUNTS[as_bytes].sum(axis=-1)


def _to_words(masks: list[int], n_words: int) -> np.ndarray:
    """Python-int bit masks -> an ``(len(masks), n_words)`` uint64 array."""
    if n_words == 1:
        return np.array(masks, dtype=np.uint64).reshape(len(masks), 1)
    low = (1 << _WORD) - 1
    return np.array(
        [[(mask >> (_WORD * w)) & low for w in range(n_words)] for mask in masks], dtype=np.uint64
    ).reshape(len(masks), n_words)


def _mask(indices) -> int:
    mask = 0
    for index in indices:
        mask |= 1 << index
    return mask


class FarEngine:
    """A dataset's FAMs compiled for scoring many systems quickly.

    Args:
        fams: document id -> validated FAM. Every document is expected of every system, and
            every FAM needs at least one support group (see
            :func:`.document.scorable_documents`).
        include_unsupported: count facets without a support group in FAR's denominator.

    Raises:
        NoDocumentsError: ``fams`` is empty.
        NoSupportError: a FAM without any support group, naming the document.
    """

    def __init__(
        self, fams: Mapping[Hashable, FacetAwareMapping], *, include_unsupported: bool = False
    ):
        if not fams:
            raise NoDocumentsError("no document to score")
        self.documents: tuple[Hashable, ...] = tuple(fams)
        self.include_unsupported = include_unsupported
        n_sentences, support, denominators = [], [], []
        group_masks, facet_group_start, doc_facet_start = [], [], []
        for document, fam in fams.items():
            supported = [groups for groups in fam.groups if groups]
            if not supported:
                raise NoSupportError(document)
            n_sentences.append(fam.n_sentences)
            denominators.append(fam.n_facets if include_unsupported else len(supported))
            doc_facet_start.append(len(facet_group_start))
            union = 0
            for groups in supported:
                facet_group_start.append(len(group_masks))
                for group in dict.fromkeys(groups):  # distinct groups, in order
                    mask = _mask(group)
                    group_masks.append(mask)
                    union |= mask
            support.append(union)
        self.n_words = max(1, -(-max(n_sentences) // _WORD))
        self.n_sentences = np.array(n_sentences, dtype=np.int64)
        self.support = _to_words(support, self.n_words)
        self.n_support = _popcount(self.support)
        self.denominators = np.array(denominators, dtype=np.int64)
        self.group_masks = _to_words(group_masks, self.n_words)
        self.facet_group_start = np.array(facet_group_start, dtype=np.int64)
        self.doc_facet_start = np.array(doc_facet_start, dtype=np.int64)
        facets_per_doc = np.diff(self.doc_facet_start, append=len(facet_group_start))
        groups_per_facet = np.diff(self.facet_group_start, append=len(group_masks))
        facet_doc = np.repeat(np.arange(len(self.documents)), facets_per_doc)
        self.group_doc = np.repeat(facet_doc, groups_per_facet)

    def __len__(self) -> int:
        return len(self.documents)

    def score(
        self,
        system: str,
        extracted: Mapping[Hashable, Sequence[int]],
        k: int | None = DEFAULT_K,
        *,
        allow_partial: bool = False,
    ) -> FarSystemScore:
        """Score one system on every compiled document.

        Args:
            system: the system's name.
            extracted: document id -> extracted indices in order; outputs for documents that
                were not compiled are ignored.
            k: extracted entries to consider per document (``None``: all).
            allow_partial: score only the covered documents instead of raising.

        Raises:
            MissingOutputsError: documents without output, unless ``allow_partial``.
            NoDocumentsError: no compiled document has an output.
            and the errors of :func:`.document.score_document` (same messages).
        """
        k = check_k(k)
        rows = list(map(extracted.get, self.documents, itertools.repeat(_ABSENT)))
        present = None
        if any(map(operator.is_, rows, itertools.repeat(_ABSENT))):
            absent = [i for i, row in enumerate(rows) if row is _ABSENT]
            if not allow_partial:
                missing = [self.documents[i] for i in absent]
                raise MissingOutputsError(system, missing, len(self.documents))
            present = np.ones(len(rows), dtype=bool)
            present[absent] = False
            for i in absent:
                rows[i] = ()
        table = self.score_matrix(self.index_matrix(rows), k, present=present)
        return aggregate(
            table,
            system=system,
            expected=self.documents,
            allow_partial=allow_partial,
            include_unsupported=self.include_unsupported,
        )

    def index_matrix(self, rows: list[Sequence[int]]) -> np.ndarray:
        """Validate every extracted index and pad the rows into a matrix for :meth:`score_matrix`.

        Args:
            rows: one sequence of extracted indices per compiled document, in
                ``self.documents`` order (all of each, not only the first ``k``).

        Returns:
            A ``(len(self), longest row)`` int64 matrix; ``-1`` fills the slots after a row.

        Raises:
            ExtractedIndexError: the first bad index, with the message ``score_document``
                gives.
        """
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        flat_rows = itertools.chain.from_iterable(rows)
        if not set(map(type, itertools.chain.from_iterable(rows))) <= {int}:
            # Slow path: the per-document validator raises the same error as score_document,
            # or converts numpy integers to plain ints.
            rows = [
                validate_extracted(row, int(n), document=document)
                for row, n, document in zip(rows, self.n_sentences, self.documents, strict=True)
            ]
            flat_rows = itertools.chain.from_iterable(rows)
        total = int(lengths.sum())
        flat = np.fromiter(flat_rows, dtype=np.int64, count=total)
        width = max(1, int(lengths.max()))
        matrix = np.full((len(rows), width), -1, dtype=np.int64)
        row_of = np.repeat(np.arange(len(rows)), lengths)
        column = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        bad = (flat < 0) | (flat >= self.n_sentences[row_of])
        if bad.any():
            row = int(row_of[np.argmax(bad)])
            validate_extracted(rows[row], int(self.n_sentences[row]), document=self.documents[row])
        matrix[row_of, column] = flat
        return matrix

    def score_matrix(
        self, matrix: np.ndarray, k: int | None = DEFAULT_K, *, present: np.ndarray | None = None
    ) -> FarScoreTable:
        """Per-document counts from a matrix of extracted indices, one row per document.

        Args:
            matrix: ``(len(self), L)`` integers, row ``i`` for ``self.documents[i]``; entries
                are sentence indices in extraction order, ``-1`` marks an empty slot (padding).
                :meth:`index_matrix` builds it from lists.
            k: the first ``k`` columns are considered (``None``: all).
            present: which rows have an output (default: all); the others are left out.

        Raises:
            ValueError: a matrix that is not 2-D integers with one row per document.
            ExtractedIndexError: a considered index below -1 or past its document's end.
            EmptyExtractionError: a present row considers no sentence.
        """
        k = check_k(k)
        matrix = np.asarray(matrix)
        if matrix.ndim != 2 or len(matrix) != len(self.documents) or matrix.dtype.kind not in "iu":
            raise ValueError(
                f"expected a ({len(self.documents)}, L) integer matrix, got shape "
                f"{matrix.shape} of {matrix.dtype}"
            )
        considered = matrix if k is None else matrix[:, :k]
        bad = (considered < -1) | (considered >= self.n_sentences[:, None])
        if bad.any():
            row, position = (int(i) for i in np.argwhere(bad)[0])
            value = int(considered[row, position])
            raise ExtractedIndexError(
                f"sentence index {value} is out of range (the document has "
                f"{self.n_sentences[row]} sentences: 0..{self.n_sentences[row] - 1})",
                document=self.documents[row],
                position=position,
                value=value,
            )
        masks = self._masks(considered)
        rows = np.arange(len(self.documents)) if present is None else np.flatnonzero(present)
        n_considered = _popcount(masks)
        empty = rows[n_considered[rows] == 0]
        if len(empty):
            raise EmptyExtractionError(self.documents[int(empty[0])])
        n_hit = _popcount(masks & self.support)
        uncovered = self.group_masks & ~masks[self.group_doc]
        covered_groups = (~uncovered.any(axis=1)).astype(np.int64)
        per_facet = np.add.reduceat(covered_groups, self.facet_group_start)
        n_covered = np.add.reduceat((per_facet > 0).astype(np.int64), self.doc_facet_start)
        n_redundant = np.add.reduceat((per_facet > 1).astype(np.int64), self.doc_facet_start)
        documents = self.documents if present is None else tuple(self.documents[i] for i in rows)
        return FarScoreTable(
            documents=documents,
            k=k,
            n_considered=n_considered[rows],
            n_support=self.n_support[rows],
            n_hit=n_hit[rows],
            n_facets=self.denominators[rows],
            n_covered=n_covered[rows],
            n_redundant=n_redundant[rows],
        )

    def _masks(self, considered: np.ndarray) -> np.ndarray:
        """``(documents, words)`` uint64 masks of the considered sentences (``-1`` ignored)."""
        valid = considered >= 0
        safe = np.where(valid, considered, 0).astype(np.uint64)
        bits = np.where(valid, _ONE << (safe & np.uint64(_WORD - 1)), np.uint64(0))
        if self.n_words == 1:
            return np.bitwise_or.reduce(bits, axis=1).reshape(-1, 1)
        word = safe >> np.uint64(6)
        return np.stack(
            [
                np.bitwise_or.reduce(np.where(word == w, bits, np.uint64(0)), axis=1)
                for w in range(self.n_words)
            ],
            axis=1,
        )
