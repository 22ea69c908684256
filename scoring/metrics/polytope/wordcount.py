"""The PolyTope word count: the official workbooks' VBA ``wdct`` rule (ASCII letters and digits)."""

from __future__ import annotations

# Characters that join two runs of letters and digits into one word ("3-pointers", "don't",
# "1,000", "3.5"), when a letter or digit follows; "." and "," join only before a digit.
JOINERS = frozenset("_-.,'")
JOIN_BEFORE_DIGIT_ONLY = frozenset(".,")


def _alnum(character: str) -> bool:
    return character.isascii() and character.isalnum()


def _joins(character: str, following: str) -> bool:
    if character not in JOINERS or not _alnum(following):
        return False
    return not (character in JOIN_BEFORE_DIGIT_ONLY and following.isalpha())


def count_words(text: str) -> int:
    """Count a summary's words as the release's annotation workbooks do (their macro ``wdct``).

    A word is a run of ASCII letters and digits. The run goes on across one of ``_ - . , '``
    when the next character is a letter or digit, except that ``.`` or ``,`` followed by a
    letter ends the word. So "3-pointers", "1,000", "3.5" and "don't" are one word each, "u.s"
    and "12:30" are two, and punctuation or non-ASCII characters count as nothing ("café" is
    one word, "naïve" two). This reproduces the cached word count of every segment of the
    annotated BART workbook (``tests/metrics/test_polytope_reproduction.py``).

    Args:
        text: the summary.

    Returns:
        The number of words (0 for empty or punctuation-only text).

    Raises:
        Nothing: an empty count is 0 here; :class:`Segment` is what refuses it.
    """
    words = 0
    in_word = False
    last = len(text) - 1
    for position, character in enumerate(text):
        if _alnum(character):
            if not in_word:
                words += 1
                in_word = True
        elif not (in_word and position < last and _joins(character, text[position + 1])):
            in_word = False
    return words


def is_word(token: str) -> bool:
    """Whether a token holds at least one word by :func:`count_words`'s rule.

    Args:
        token: one whitespace-separated token.

    Returns:
        False for pure punctuation such as ``.``, ``,``, ``--`` or non-ASCII text; True otherwise.

    Raises:
        Nothing.
    """
    return count_words(token) > 0
