"""One marked error: a character span of the summary or the source (or nowhere), and its type."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

SIDE_SUMMARY = "summary"
SIDE_SOURCE = "source"
SIDE_NONE = "none"
SIDES = (SIDE_SUMMARY, SIDE_SOURCE, SIDE_NONE)


def join_sentences(sentences: Sequence[str]) -> str:
    """The text character offsets index: the sentences joined by one space.

    Args:
        sentences: a summary's or a document's sentences.

    Returns:
        ``" ".join(sentences)``; an empty string for no sentences.
    """
    return " ".join(sentences)


@dataclass(frozen=True)
class MarkedError:
    """One error as a scheme accepted it.

    ``side`` is ``summary`` or ``source`` for a span ``[start, end)`` of that text (``words``
    is then exactly the spanned text), or ``none`` when only the issue words are known (``start``
    and ``end`` are None). ``severity`` is derived by the scheme, never given; it is "" for a
    scheme without severities, and ``label`` is "" for a scheme without labels.
    """

    side: str
    start: int | None
    end: int | None
    words: str
    type: str
    label: str
    severity: str
    reason: str

    def as_dict(self) -> dict:
        """The JSON form stored and served: the dataclass's fields as a plain dict."""
        return asdict(self)
