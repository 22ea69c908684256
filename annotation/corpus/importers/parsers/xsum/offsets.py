"""The release's offset convention, checked row by row against the spanned text.

The annotation tool showed each summary after a line break, and its offsets are 0-based, end
exclusive, into that text (``"\\n" + summary``). Into the summary itself a span is therefore
``[start - 1, end - 1)``: a 1-based start with an exclusive end. A span that begins at the line
break (start 0, text ``"\\n..."``) is clipped to the summary. The release writes an apostrophe
as ``\\'`` and that line break as ``\\n``; the offsets count each as one character.
"""

from __future__ import annotations

from dataclasses import dataclass

LINE_BREAK = "\n"

PLACED = "placed"
CLIPPED = "clipped"  # began at the tool's line break: clipped to the summary
UNPLACED = "unplaced"  # no convention matches: the words are kept, the offsets are not

# Every convention tried on a row the release's own does not explain (for the report).
_TRIED = {
    "0-based, end exclusive": (0, 0),
    "0-based, end inclusive": (0, 1),
    "1-based, end exclusive": (-1, -1),
    "1-based, end inclusive": (-1, 0),
}


def unescape(text: str) -> str:
    r"""The release's text with ``\'`` read as ``'`` and ``\n`` as a line break.

    Args:
        text: a ``summary`` or ``hallucinated_span`` cell.

    Returns:
        The text the offsets count.
    """
    return text.replace("\\'", "'").replace("\\n", LINE_BREAK)


@dataclass(frozen=True)
class Placement:
    """Where a released span lies in the summary.

    ``kind`` is ``placed`` or ``clipped`` with ``[start, end)`` into the summary and ``words``
    the spanned summary text, or ``unplaced`` with ``start`` and ``end`` None and ``words`` the
    span's own text without line breaks at its ends.
    """

    kind: str
    start: int | None
    end: int | None
    words: str


def place_span(summary: str, span: str, start: int, end: int) -> Placement:
    """Place one released span with the release's convention (see the module docstring).

    Args:
        summary: the unescaped summary.
        span: the unescaped ``hallucinated_span``.
        start: ``hallucinated_span_start``.
        end: ``hallucinated_span_end``.

    Returns:
        The :class:`Placement`; ``unplaced`` when the offsets do not give the span's text.
    """
    shown = LINE_BREAK + summary
    if 0 <= start < end <= len(shown) and shown[start:end] == span:
        lo, hi = max(start - 1, 0), end - 1
        if hi > lo:
            kind = CLIPPED if start == 0 else PLACED
            return Placement(kind, lo, hi, summary[lo:hi])
    return Placement(UNPLACED, None, None, span.strip(LINE_BREAK))


def matching_conventions(summary: str, span: str, start: int, end: int) -> tuple[str, ...]:
    """Which common conventions give ``span`` from the offsets (for the import report).

    Args:
        summary: the unescaped summary.
        span: the unescaped span.
        start: the released start.
        end: the released end.

    Returns:
        The names of the conventions (0- or 1-based start, end inclusive or exclusive) under
        which ``summary`` (or the tool's ``"\\n" + summary``) gives exactly ``span``.
    """
    found = []
    for text, where in ((summary, "the summary"), (LINE_BREAK + summary, "line break + summary")):
        for name, (shift_start, shift_end) in _TRIED.items():
            lo, hi = start + shift_start, end + shift_end
            if 0 <= lo < hi <= len(text) and text[lo:hi] == span:
                found.append(f"{name} into {where}")
    return tuple(found)
