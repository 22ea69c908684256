"""Text helpers of the PolyTope parser: word keys, overlaps and sentence pieces."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from annotation.imports.splitting import split_sentences

from .records import Lines

_SEPARATOR = re.compile(r"\s{2,}")
_NON_WORD = re.compile(r"[\W_]+")
# A stand-alone ". ", "? " or "! " token (PTB-tokenised text) followed by a new word.
_TOKENISED_END = re.compile(r"(?<=\s[.!?])\s+(?=[^\s'`\".!?])")


def _key(text: str) -> str:
    """Letters and digits only, lower-cased: equal keys mean equal text up to tokenisation."""
    return _NON_WORD.sub("", text.lower())


def _words(text: str) -> Counter:
    return Counter(word for word in (_key(token) for token in text.split()) if word)


def _containment(part: Counter, whole: Counter) -> float:
    """Share of ``part``'s words (with multiplicity) that ``whole`` also has."""
    total = sum(part.values())
    return sum((part & whole).values()) / total if total else 0.0


def _overlap(first: Counter, second: Counter) -> float:
    """Shared words over the smaller text's word count (1.0 when one text contains the other)."""
    smaller = min(sum(first.values()), sum(second.values()))
    return sum((first & second).values()) / smaller if smaller else 0.0


def _is_separator(text: str) -> bool:
    """A stray line such as ``≠≠`` or ``---``: not blank, but without a letter or digit."""
    return bool(text.strip()) and not any(char.isalnum() for char in text)


def _pieces(lines: Iterable[tuple[int, str]]) -> Lines:
    """Split lines on runs of two or more spaces (the release's other sentence separator)."""
    return [(n, p.strip()) for n, text in lines for p in _SEPARATOR.split(text) if p.strip()]


def _split_prose(text: str) -> list[str]:
    """Split one line of summary text with pysbd, then at stand-alone ``.``/``?``/``!`` tokens.

    pysbd misses some boundaries in lower-cased, PTB-tokenised text (e.g. after a quote); a
    period separated by blanks on both sides never ends an abbreviation in that text. A piece
    without a letter or digit (pysbd may cut off a closing quote) joins the previous one.
    """
    sentences: list[str] = []
    for sentence in split_sentences(text):
        for part in _TOKENISED_END.split(sentence):
            if sentences and not any(char.isalnum() for char in part):
                sentences[-1] = f"{sentences[-1]} {part}"
            else:
                sentences.append(part)
    return sentences
