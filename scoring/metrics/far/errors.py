"""Typed errors of the FAR family: each names the document, the system or the position at fault."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from ..errors import MetricsError

# How many missing documents an error message lists before it says "and N more".
_LISTED = 10


class FarError(MetricsError):
    """Base class of every FAR-family error (a ``ValueError``)."""


class InvalidKError(FarError):
    """``k`` is not a positive integer (or ``None`` for every extracted sentence)."""


class ExtractedIndexError(FarError):
    """An extracted sentence index is not an integer, is negative or is past the document's end."""

    def __init__(self, message: str, *, document: Hashable | None, position: int, value: object):
        where = f"document {document!r}, " if document is not None else ""
        super().__init__(f"{where}extracted position {position}: {message}")
        self.document = document
        self.position = position
        self.value = value


class EmptyExtractionError(FarError):
    """No sentence is considered for a document, so support precision (SAP) is undefined."""

    def __init__(self, document: Hashable | None):
        where = f"document {document!r}: " if document is not None else ""
        super().__init__(f"{where}no extracted sentence to score (SAP would be 0/0)")
        self.document = document


class NoSupportError(FarError):
    """A document's FAM has no support group at all, so SAR, SAF1 and FAR are undefined.

    Such a document (all facets noise or high abstraction) cannot be scored: leave it out of the
    documents to score, as the FAR release's notebook scores only its low-abstraction samples
    (:func:`scorable_documents` picks them).
    """

    def __init__(self, document: Hashable | None):
        where = f"document {document!r}: " if document is not None else ""
        super().__init__(
            f"{where}the FAM has no support group, so SAR, SAF1 and FAR are undefined; "
            "leave the document out of the documents to score"
        )
        self.document = document


class MissingOutputsError(FarError):
    """A system has no output for some of the documents it is expected to be scored on."""

    def __init__(self, system: str, missing: Sequence[Hashable], n_expected: int):
        super().__init__(
            f"system {system!r} has no output for {len(missing)} of {n_expected} documents "
            f"({format_documents(missing)}); coverage would be "
            f"{n_expected - len(missing)}/{n_expected}. "
            "Allow partial coverage explicitly (allow_partial=True; --allow-partial on the CLI) "
            "to score the documents it covers and report the coverage."
        )
        self.system = system
        self.missing = tuple(missing)
        self.n_expected = n_expected


class NoDocumentsError(FarError):
    """There is nothing to score or to average over (a mean of nothing is undefined)."""


class UnknownMeasureError(FarError):
    """A per-document measure name that the FAR family does not have."""


def format_documents(documents: Sequence[Hashable]) -> str:
    """``'a', 'b' and 3 more`` for error messages."""
    listed = ", ".join(repr(document) for document in documents[:_LISTED])
    more = f" and {len(documents) - _LISTED} more" if len(documents) > _LISTED else ""
    return listed + more
