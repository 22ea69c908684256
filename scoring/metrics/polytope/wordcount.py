"""The PolyTope word count: whitespace tokens that contain a letter or a digit."""

from __future__ import annotations


def is_word(token: str) -> bool:
    """Whether a whitespace token counts as a word (it holds at least one letter or digit).

    Args:
        token: one whitespace-separated token.

    Returns:
        False for pure punctuation such as ``.``, ``,``, ``--`` or ``````; True otherwise.

    Raises:
        Nothing.
    """
    return any(character.isalnum() for character in token)


def count_words(text: str) -> int:
    """Count a summary's words by the rule in the release's PROVENANCE.md.

    The text is split on any white space (spaces, tabs, newlines); tokens made only of
    punctuation are not words. This matches the annotated BART workbook's ``wordcount`` for
    66 of its 68 segments. The workbook's own VBA macro ``wdct`` counts runs of ASCII letters
    and digits instead (joined only by ``_-.,'``, and by ``.``/``,`` only before a digit), so
    it makes two words of "12:30" and "d.c."; that is the whole difference on BART.

    Args:
        text: the summary.

    Returns:
        The number of words (0 for empty or punctuation-only text).

    Raises:
        Nothing: an empty count is 0 here; :class:`Segment` is what refuses it.
    """
    return sum(1 for token in text.split() if is_word(token))
