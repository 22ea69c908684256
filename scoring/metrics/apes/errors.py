"""Typed errors of the APES core: each names the entity, question or summary at fault."""

from __future__ import annotations

from collections.abc import Hashable

from ..errors import MetricsError


class ApesError(MetricsError):
    """Base class of every APES error (a ``ValueError``)."""


class EntitySpanError(ApesError):
    """An entity's offsets are not a valid span of the text, or its text is not that span."""

    def __init__(self, message: str, *, entity: object):
        super().__init__(f"entity {entity!r}: {message}")
        self.entity = entity


class PlaceholderInTextError(ApesError):
    """The reference already contains the placeholder token, so a question would be ambiguous."""

    def __init__(self, placeholder: str):
        super().__init__(
            f"the reference already contains the placeholder {placeholder!r}; choose another one"
        )
        self.placeholder = placeholder


class AnswerCountError(ApesError):
    """An answerer returned a different number of answers than it was given questions."""

    def __init__(self, *, expected: int, got: int):
        super().__init__(f"the answerer returned {got} answers for {expected} questions")
        self.expected = expected
        self.got = got


class NoSummariesError(ApesError):
    """A system score was asked for with no summary at all."""

    def __init__(self, system: Hashable | None = None):
        where = f"system {system!r}: " if system is not None else ""
        super().__init__(f"{where}no summary to score")
        self.system = system
