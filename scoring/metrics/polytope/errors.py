"""Typed PolyTope errors: each names the offending item (subtype, label, segment, position)."""

from __future__ import annotations

from ..errors import MetricsError


class PolyTopeError(MetricsError):
    """Base class of every PolyTope error.

    ``index`` is the item's position in the input it came from (the issue or segment list),
    when known, so a caller can point at a file line.
    """

    def __init__(self, message: str, *, index: int | None = None):
        super().__init__(message)
        self.index = index


class UnknownSubtypeError(PolyTopeError):
    """A subtype name that is none of the 8 official subtypes (or their workbook spellings)."""

    def __init__(self, name: object, *, index: int | None = None):
        super().__init__(f"unknown subtype {name!r}", index=index)
        self.name = name


class UnknownLabelError(PolyTopeError):
    """A label name that is none of the 8 official syntactic labels."""

    def __init__(self, name: object, *, index: int | None = None):
        super().__init__(f"unknown label {name!r}", index=index)
        self.name = name


class CombinationNotAllowedError(PolyTopeError):
    """A (subtype, label) pair whose Severity_Matrix cell is N/A."""

    def __init__(self, subtype: str, label: str, *, index: int | None = None):
        super().__init__(
            f"subtype {subtype!r} with label {label!r} is not allowed (N/A in the severity matrix)",
            index=index,
        )
        self.subtype = subtype
        self.label = label


class EmptySummaryError(PolyTopeError):
    """A segment whose summary has no word, so its score would divide by zero."""

    def __init__(self, segment: str, *, index: int | None = None):
        super().__init__(
            f"segment {segment!r}: empty summary (word count 0: no whitespace token holds a "
            "letter or digit)",
            index=index,
        )
        self.segment = segment


class UnknownSegmentError(PolyTopeError):
    """An error (issue) that refers to a segment the system has no summary for."""

    def __init__(self, segment: str, *, index: int | None = None):
        super().__init__(f"error refers to unknown segment {segment!r}", index=index)
        self.segment = segment


class DuplicateSegmentError(PolyTopeError):
    """The same segment id given twice."""

    def __init__(self, segment: str, *, index: int | None = None, first: int | None = None):
        where = f" (first given at position {first})" if first is not None else ""
        super().__init__(f"duplicate segment {segment!r}{where}", index=index)
        self.segment = segment
        self.first = first


class NoSegmentsError(PolyTopeError):
    """A system score asked for over no segment at all (0 words)."""

    def __init__(self) -> None:
        super().__init__("no segments: a system score needs at least one summary")
