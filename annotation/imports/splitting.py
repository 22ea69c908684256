"""Sentence splitting for plain-text input, with pysbd (rule-based, maintained, offline)."""

from __future__ import annotations

from functools import lru_cache

import pysbd


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> tuple[str, ...]:
    """Split English text into sentences, dropping blank pieces and outer white space.

    Args:
        text: plain text (one paragraph or several).

    Returns:
        The sentences in order; an empty tuple for blank text.
    """
    if not text or not text.strip():
        return ()
    return tuple(piece.strip() for piece in _segmenter().segment(text) if piece.strip())
