"""Result types of the agreement measures: one ``Score`` per level, all levels in one result."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .errors import UnknownAnnotatorError, UnknownDocumentError

Pair = tuple[Hashable, Hashable]


@dataclass(frozen=True)
class Score:
    """One agreement figure, or why there is none.

    Attributes:
        value: the figure, a finite float; ``None`` when the measure is undefined here.
        n: how many units stand behind it (the table in the package README says what a unit
            is for each measure).
        excluded: how many units (or pairs) were left out by a documented convention.
        reason: why ``value`` is ``None``; always set then, never set otherwise.
    """

    value: float | None
    n: int
    excluded: int = 0
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.value is None) != (self.reason is not None):
            raise ValueError("a Score has either a value or a reason, never both or neither")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"a Score value must be finite, got {self.value!r}")

    @property
    def defined(self) -> bool:
        return self.value is not None

    @classmethod
    def undefined(cls, reason: str, *, n: int = 0, excluded: int = 0) -> Score:
        """A score whose measure is undefined, with the reason.

        Args:
            reason: why there is no value.
            n: units behind it, if any.
            excluded: units left out by a convention.

        Returns:
            The :class:`Score`, ``value`` ``None``.

        Raises:
            ValueError: ``reason`` is ``None``.
        """
        return cls(value=None, n=n, excluded=excluded, reason=reason)

    def as_dict(self) -> dict[str, Any]:
        """The score for JSON.

        Returns:
            ``{"value", "n", "excluded", "reason"}``.

        Raises:
            Nothing.
        """
        return {"value": self.value, "n": self.n, "excluded": self.excluded, "reason": self.reason}


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class AgreementResult:
    """One measure at every level: overall, per document, per annotator pair, and both.

    Attributes:
        measure: the measure's name, e.g. ``"fam_jaccard"``.
        annotators: every annotator, in the order of first appearance in the input.
        overall: the figure over all documents and all annotators.
        per_document: document id -> figure over that document's annotators.
        per_pair: ``(a, b)`` -> figure over every document both annotated; ``a`` comes
            before ``b`` in ``annotators``.
        per_document_pair: ``(document, (a, b))`` -> figure for one pair on one document.
        options: the conventions the figures were computed with.
    """

    measure: str
    annotators: tuple[Hashable, ...]
    overall: Score
    per_document: Mapping[Hashable, Score]
    per_pair: Mapping[Pair, Score]
    per_document_pair: Mapping[tuple[Hashable, Pair], Score]
    options: Mapping[str, Any]

    def __post_init__(self) -> None:
        for name in ("per_document", "per_pair", "per_document_pair", "options"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def document(self, document: Hashable) -> Score:
        """The figure for one document.

        Args:
            document: the document id.

        Returns:
            Its :class:`Score` over all its annotators.

        Raises:
            UnknownDocumentError: the result holds no such document.
        """
        try:
            return self.per_document[document]
        except KeyError:
            raise UnknownDocumentError("not in this result", document=document) from None

    def pair(self, a: Hashable, b: Hashable) -> Score:
        """The figure for one annotator pair, in either order.

        Args:
            a: one annotator.
            b: the other annotator.

        Returns:
            The pair's :class:`Score` over every document both annotated.

        Raises:
            UnknownAnnotatorError: the two never annotated a document together.
        """
        return self._lookup(self.per_pair, None, a, b)

    def cell(self, document: Hashable, a: Hashable, b: Hashable) -> Score:
        """The figure for one annotator pair on one document.

        Args:
            document: the document id.
            a: one annotator.
            b: the other annotator (either order).

        Returns:
            The :class:`Score` of that pair on that document.

        Raises:
            UnknownDocumentError: the result holds no such document.
            UnknownAnnotatorError: the pair did not both annotate that document.
        """
        self.document(document)
        return self._lookup(self.per_document_pair, document, a, b)

    def _lookup(self, table: Mapping, document: Hashable | None, a: Hashable, b: Hashable):
        for key in ((a, b), (b, a)):
            full = key if document is None else (document, key)
            if full in table:
                return table[full]
        raise UnknownAnnotatorError(
            f"no figure for the annotator pair ({a!r}, {b!r})", document=document
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (document and annotator ids are kept as given).

        Returns:
            ``{"measure", "options", "annotators", "overall", "per_document", "per_pair",
            "per_document_pair"}``; the levels are lists of score dicts with their keys.

        Raises:
            Nothing.
        """
        return {
            "measure": self.measure,
            "options": dict(self.options),
            "annotators": list(self.annotators),
            "overall": self.overall.as_dict(),
            "per_document": [
                {"document": doc, **score.as_dict()} for doc, score in self.per_document.items()
            ],
            "per_pair": [
                {"annotators": list(pair), **score.as_dict()}
                for pair, score in self.per_pair.items()
            ],
            "per_document_pair": [
                {"document": doc, "annotators": list(pair), **score.as_dict()}
                for (doc, pair), score in self.per_document_pair.items()
            ],
        }
