"""Typed errors of the agreement measures; each names the document, annotator, facet or span."""

from __future__ import annotations

from collections.abc import Hashable

from ..errors import MetricsError


class AgreementError(MetricsError):
    """Base class of every agreement error; the message starts with the item it concerns."""

    def __init__(
        self,
        message: str,
        *,
        document: Hashable | None = None,
        annotator: Hashable | None = None,
        facet: int | None = None,
        group: int | None = None,
        span: int | None = None,
    ):
        where = [
            f"{name} {value!r}"
            for name, value in (
                ("document", document),
                ("annotator", annotator),
                ("facet", facet),
                ("group", group),
                ("span", span),
            )
            if value is not None
        ]
        prefix = f"{', '.join(where)}: " if where else ""
        super().__init__(prefix + message)
        self.document = document
        self.annotator = annotator
        self.facet = facet
        self.group = group
        self.span = span


class EmptyInputError(AgreementError):
    """No document was given at all."""


class TooFewAnnotatorsError(AgreementError):
    """A document has fewer than two annotators, so there is no pair to compare."""


class UnknownDocumentError(AgreementError, KeyError):
    """A document id that the input or the result does not hold."""

    __str__ = ValueError.__str__


class UnknownAnnotatorError(AgreementError, KeyError):
    """An annotator (or an annotator pair) that the result does not hold."""

    __str__ = ValueError.__str__


class FacetCountMismatchError(AgreementError):
    """Two annotators of one document (or an annotator and the reference) disagree on the facets."""


class SentenceCountMismatchError(AgreementError):
    """Two FAMs of one document were validated against different sentence counts."""


class InvalidAnnotationError(AgreementError):
    """A malformed support group or span: empty, negative, not an integer, or out of range."""


class InvalidOptionError(AgreementError):
    """An option outside its documented values."""
