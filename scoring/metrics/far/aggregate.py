"""Aggregation of per-document FAR-family scores into a system's means, with coverage.

Per-document scores arrive as a :class:`FarScoreTable` (columns of exact counts), whether they came
from :func:`.document.score_document` one by one or from :class:`.engine.FarEngine` in bulk, so
both paths share one aggregation. Means are ``math.fsum(values) / n``: correctly rounded and
independent of the documents' order.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..fam import FacetAwareMapping
from .document import DEFAULT_K, FarDocumentScore, check_k, score_document
from .errors import MissingOutputsError, NoDocumentsError, UnknownMeasureError, format_documents

COUNT_FIELDS = ("n_considered", "n_support", "n_hit", "n_facets", "n_covered", "n_redundant")
MEASURES = ("sap", "sar", "saf1", "far", "far_per_sentence")
# What :meth:`FarSystemScore.per_document` accepts: the measures, the alternative reading of FAR
# per sentence, and ``redundant`` as 1.0 / 0.0 (its mean is the redundancy rate).
PER_DOCUMENT_MEASURES = (*MEASURES, "covered_per_sentence", "redundant")


@dataclass(frozen=True, eq=False)
class FarScoreTable:
    """Per-document counts as columns: ``documents[i]`` goes with row ``i`` of every array.

    The ratio columns are computed with the same formulas as :class:`FarDocumentScore`'s
    properties, so a row of this table and the document's score are bit-for-bit equal.
    """

    documents: tuple[Hashable, ...]
    k: int | None
    n_considered: np.ndarray
    n_support: np.ndarray
    n_hit: np.ndarray
    n_facets: np.ndarray
    n_covered: np.ndarray
    n_redundant: np.ndarray

    @classmethod
    def from_scores(cls, scores: Sequence[FarDocumentScore], k: int | None) -> FarScoreTable:
        """Stack per-document scores (all scored with the same ``k``) into columns.

        Args:
            scores: per-document scores, e.g. from :func:`.document.score_document`; their
                order becomes the table's row order. May be empty.
            k: the ``k`` they were scored with, recorded in the table (not checked against
                the scores' own ``k``).

        Returns:
            A :class:`FarScoreTable` with one int64 row per score.

        Raises:
            AttributeError: an item of ``scores`` is not a :class:`FarDocumentScore`-like record.
        """
        columns = {
            name: np.fromiter((getattr(s, name) for s in scores), np.int64, len(scores))
            for name in COUNT_FIELDS
        }
        return cls(documents=tuple(s.document for s in scores), k=k, **columns)

    def __len__(self) -> int:
        return len(self.documents)

    @property
    def sap(self) -> np.ndarray:
        return self.n_hit / self.n_considered

    @property
    def sar(self) -> np.ndarray:
        return self.n_hit / self.n_support

    @property
    def saf1(self) -> np.ndarray:
        return 2 * self.n_hit / (self.n_considered + self.n_support)

    @property
    def far(self) -> np.ndarray:
        return self.n_covered / self.n_facets

    @property
    def far_per_sentence(self) -> np.ndarray:
        return self.far / self.n_considered

    @property
    def covered_per_sentence(self) -> np.ndarray:
        return self.n_covered / self.n_considered

    @property
    def redundant(self) -> np.ndarray:
        return self.n_redundant > 0

    def rows(self) -> tuple[FarDocumentScore, ...]:
        """The table as one :class:`FarDocumentScore` per document."""
        columns = [getattr(self, name).tolist() for name in COUNT_FIELDS]
        return tuple(
            FarDocumentScore(document, self.k, *values)
            for document, *values in zip(self.documents, *columns, strict=True)
        )


def _mean(values: np.ndarray) -> float:
    return math.fsum(values.tolist()) / len(values)


@dataclass(frozen=True)
class FarSystemScore:
    """One system's FAR-family means over the documents it was scored on, with coverage.

    ``coverage`` is ``n_scored / n_expected``; ``missing`` lists the expected documents that
    had no output (empty unless the scores were computed with ``allow_partial=True``). The
    means are over the scored documents only, so read them together with the coverage.
    ``redundancy_rate`` is the share of documents with a redundant facet.

    Also exported as :data:`FarSystemScore`, a name that does not clash with
    :class:`scoring.metrics.polytope.FarSystemScore`.
    """

    system: str
    k: int | None
    include_unsupported: bool
    n_expected: int
    missing: tuple[Hashable, ...]
    sap: float
    sar: float
    saf1: float
    far: float
    far_per_sentence: float
    redundancy_rate: float
    mean_considered: float
    table: FarScoreTable = field(repr=False, compare=False)

    @property
    def n_scored(self) -> int:
        return len(self.table)

    @property
    def coverage(self) -> float:
        return self.n_scored / self.n_expected

    def documents(self) -> tuple[FarDocumentScore, ...]:
        """Every scored document's :class:`FarDocumentScore`, in scoring order."""
        return self.table.rows()

    @property
    def covered_per_sentence(self) -> float:
        """Mean of covered facets per distinct considered sentence (see
        :attr:`.document.FarDocumentScore.covered_per_sentence`); not part of :meth:`means`."""
        return _mean(self.table.covered_per_sentence)

    def means(self) -> dict[str, float]:
        """The means by name: SAP, SAR, SAF1, FAR, FAR per sentence, redundancy rate."""
        return {name: getattr(self, name) for name in (*MEASURES, "redundancy_rate")}

    def per_document(self, measure: str) -> dict[Hashable, float]:
        """One measure per scored document, e.g. for :mod:`scoring.metrics.stats`.

        The result goes straight into ``paired_permutation_test``, ``paired_bootstrap_test``
        or ``bootstrap_ci`` (after ``list(....values())``); pair two systems scored on the
        same documents.

        Args:
            measure: ``"sap"``, ``"sar"``, ``"saf1"``, ``"far"``, ``"far_per_sentence"``,
                ``"covered_per_sentence"`` or ``"redundant"`` (1.0 or 0.0 per document; its
                mean is :attr:`redundancy_rate`).

        Returns:
            Document id -> value (a plain ``float``), in scoring order. The keys are the ids
            as given to the scorer (``str`` for the web app and the CLI); documents that were
            not scored (:attr:`missing`) are absent.

        Raises:
            UnknownMeasureError: another measure name (the error lists the valid ones).
        """
        if measure not in PER_DOCUMENT_MEASURES:
            raise UnknownMeasureError(
                f"unknown FAR measure {measure!r}; choose one of {', '.join(PER_DOCUMENT_MEASURES)}"
            )
        values = getattr(self.table, measure).astype(np.float64).tolist()
        return dict(zip(self.table.documents, values, strict=True))

    def as_dict(self) -> dict:
        """The result as a JSON-ready dict: the ``far`` CLI's output record.

        Returns:
            ``{"system", "k", "include_unsupported", "coverage": {"scored", "expected",
            "ratio", "missing"}, "mean": {sap, sar, saf1, far, far_per_sentence,
            redundancy_rate, considered}, "documents": {document id: FarDocumentScore.as_dict()}}``,
            in that key order. Document ids are used as given (``json.dumps`` needs them to be
            strings, numbers, bools or None).
        """
        return {
            "system": self.system,
            "k": self.k,
            "include_unsupported": self.include_unsupported,
            "coverage": {
                "scored": self.n_scored,
                "expected": self.n_expected,
                "ratio": self.coverage,
                "missing": list(self.missing),
            },
            "mean": {**self.means(), "considered": self.mean_considered},
            "documents": {score.document: score.as_dict() for score in self.documents()},
        }


def aggregate(
    table: FarScoreTable,
    *,
    system: str,
    expected: Sequence[Hashable],
    allow_partial: bool = False,
    include_unsupported: bool = False,
) -> FarSystemScore:
    """Average a system's per-document scores, checking them against the expected documents.

    Args:
        table: the per-document scores.
        system: the system's name, for errors and the result.
        expected: every document the system should have been scored on.
        allow_partial: accept a table that misses expected documents; the result then reports
            the coverage and the missing documents. Without it, they raise.
        include_unsupported: how FAR's denominator was counted (recorded in the result).

    Raises:
        NoDocumentsError: nothing expected, nothing scored, or a scored document that is not
            expected (or scored twice).
        MissingOutputsError: expected documents are not in the table and ``allow_partial`` is
            false; the error names the system and the documents.
    """
    if not expected:
        raise NoDocumentsError(f"system {system!r}: no document to score")
    expected_set = set(expected)
    if len(expected_set) != len(expected):
        raise NoDocumentsError(f"system {system!r}: the expected documents repeat an id")
    if table.documents == tuple(expected):  # the common case, checked cheaply
        return _system_score(table, system, len(expected), (), include_unsupported)
    scored = set(table.documents)
    if len(scored) != len(table.documents) or not scored <= expected_set:
        unexpected = [d for d in table.documents if d not in expected_set]
        raise NoDocumentsError(
            f"system {system!r}: scored documents are repeated or not expected "
            f"({format_documents(unexpected)})"
        )
    missing = tuple(document for document in expected if document not in scored)
    if missing and not allow_partial:
        raise MissingOutputsError(system, missing, len(expected))
    if not table.documents:
        raise NoDocumentsError(
            f"system {system!r}: no document scored (coverage 0/{len(expected)}), so no mean"
        )
    return _system_score(table, system, len(expected), missing, include_unsupported)


def _system_score(table, system, n_expected, missing, include_unsupported) -> FarSystemScore:
    return FarSystemScore(
        system=system,
        k=table.k,
        include_unsupported=include_unsupported,
        n_expected=n_expected,
        missing=missing,
        sap=_mean(table.sap),
        sar=_mean(table.sar),
        saf1=_mean(table.saf1),
        far=_mean(table.far),
        far_per_sentence=_mean(table.far_per_sentence),
        redundancy_rate=int(table.redundant.sum()) / len(table),
        mean_considered=int(table.n_considered.sum()) / len(table),
        table=table,
    )


def score_system(
    system: str,
    fams: Mapping[Hashable, FacetAwareMapping],
    extracted: Mapping[Hashable, Sequence[int]],
    k: int | None = DEFAULT_K,
    *,
    include_unsupported: bool = False,
    allow_partial: bool = False,
) -> FarSystemScore:
    """Score one system on every document of ``fams``, one document at a time.

    Args:
        system: the system's name.
        fams: document id -> validated FAM; every document here is expected. Leave out
            documents without support (:func:`.document.scorable_documents`).
        extracted: document id -> extracted indices in order. Outputs for documents that are
            not in ``fams`` are ignored.
        k: extracted entries to consider per document (``None``: all).
        include_unsupported: count unsupported facets in FAR's denominator.
        allow_partial: score only the covered documents instead of raising, and report the
            coverage.

    Raises:
        MissingOutputsError: documents without output (checked before anything is scored).
        NoDocumentsError: ``fams`` is empty, or no document is covered.
        and every error of :func:`.document.score_document`.
    """
    k = check_k(k)
    expected = list(fams)
    if not expected:
        raise NoDocumentsError(f"system {system!r}: no document to score")
    missing = [document for document in expected if document not in extracted]
    if missing and not allow_partial:
        raise MissingOutputsError(system, missing, len(expected))
    scores = [
        score_document(
            fams[document],
            extracted[document],
            k,
            include_unsupported=include_unsupported,
            document=document,
        )
        for document in expected
        if document in extracted
    ]
    return aggregate(
        FarScoreTable.from_scores(scores, k),
        system=system,
        expected=expected,
        allow_partial=allow_partial,
        include_unsupported=include_unsupported,
    )
