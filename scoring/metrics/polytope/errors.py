"""Typed PolyTope errors: each names the offending item (subtype, label, segment, position)."""

from __future__ import annotations

from collections.abc import Sequence

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

    # Where the ids come from, in the message (empty: the segments scored).
    _place = ""

    def __init__(self, segment: str, *, index: int | None = None, first: int | None = None):
        where = f" (first given at position {first})" if first is not None else ""
        super().__init__(f"duplicate segment {segment!r}{self._place}{where}", index=index)
        self.segment = segment
        self.first = first


class NoSegmentsError(PolyTopeError):
    """A system score asked for over no segment at all (0 words)."""

    def __init__(self, detail: str | None = None) -> None:
        message = "no segments: a system score needs at least one summary"
        super().__init__(f"{message} ({detail})" if detail else message)


# How many segments an error message lists before it says "and N more".
_LISTED = 10


def format_segments(segments: Sequence[str]) -> str:
    """``'a', 'b' and 3 more`` for error messages.

    Args:
        segments: segment ids.

    Returns:
        The first ten ids, quoted and comma-separated, then how many more there are.

    Raises:
        Nothing.
    """
    listed = ", ".join(repr(segment) for segment in segments[:_LISTED])
    more = f" and {len(segments) - _LISTED} more" if len(segments) > _LISTED else ""
    return listed + more


class DuplicateExpectedSegmentError(DuplicateSegmentError):
    """The same segment id given twice in the expected segments.

    ``index`` and ``first`` are positions in the expected segments, not in the segments scored.
    """

    _place = " in the expected segments"


class MissingSegmentsError(PolyTopeError):
    """Expected segments have no summary (no :class:`Segment`), so the system is not covered.

    Attributes:
        missing: the expected segments without a summary, in the expected order.
        n_expected: how many segments were expected.
    """

    def __init__(self, missing: Sequence[str], n_expected: int):
        super().__init__(
            f"no summary for {len(missing)} of {n_expected} expected segments "
            f"({format_segments(missing)}); coverage would be "
            f"{n_expected - len(missing)}/{n_expected}. Allow partial coverage explicitly "
            "(allow_partial=True; --allow-partial on the CLI) to score the segments that are "
            "there and report the coverage."
        )
        self.missing = tuple(missing)
        self.n_expected = n_expected


class UnexpectedSegmentError(PolyTopeError):
    """Segments given for scoring that are not among the expected segments.

    ``segment`` and ``index`` name the first one (its position among the segments scored);
    ``segments`` holds them all, in input order.
    """

    def __init__(self, segments: Sequence[str], *, index: int | None = None):
        super().__init__(
            f"segment {segments[0]!r} is not among the expected segments "
            f"({len(segments)} unexpected: {format_segments(segments)})",
            index=index,
        )
        self.segment = segments[0]
        self.segments = tuple(segments)
