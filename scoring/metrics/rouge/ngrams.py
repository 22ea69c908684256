"""N-gram counts and clipped overlaps of one pair (Counters); many pairs are in ``batch``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """Count the n-grams of a token sequence, as rouge-score's ``_create_ngrams`` does.

    Args:
        tokens: the tokens.
        n: n-gram order (1 or more).

    Returns:
        A Counter of n-gram tuples; empty when there are fewer than ``n`` tokens.
    """
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def clipped_overlap(target: Counter, prediction: Counter) -> int:
    """Matched n-grams: each n-gram counts ``min(count in target, count in prediction)`` times.

    Args:
        target: the target's n-gram counts.
        prediction: the prediction's n-gram counts.

    Returns:
        The overlap count.
    """
    return sum(min(count, prediction[gram]) for gram, count in target.items() if gram in prediction)
