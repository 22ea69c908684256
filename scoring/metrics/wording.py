"""Counts in words: "1 row", "2 rows" (the Python side of the pages' plural.js)."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """A count followed by its noun, singular for exactly one.

    Args:
        n: the count.
        noun: the singular noun (or noun phrase, whose last word takes the plural).
        plural: the plural when it is not ``noun + "s"`` ("summaries", "judgements").

    Returns:
        ``"1 row"``, ``"0 rows"``, ``"3 summaries"``.
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
