"""Novel n-grams (See et al. 2017) and repeated n-grams within a summary, for orders 1 to 4."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import InvalidOrderError
from .fragments import check_tokens

# The orders the issue asks for: unigrams to 4-grams.
DEFAULT_MAX_ORDER = 4


@dataclass(frozen=True)
class NgramStats:
    """Novelty and repetition of a summary's n-grams, one value per order 1..max_order.

    ``novel[n - 1]`` is the share of the summary's *distinct* n-grams absent from the document;
    ``repeated[n - 1]`` the share of its distinct n-grams that occur more than once in it (both
    as summ-eval's ``DataStatsMetric``). Either is ``None`` when the summary has no n-gram of
    that order (fewer than n tokens): the share is 0/0, undefined, and left out of means.
    """

    novel: tuple[float | None, ...]
    repeated: tuple[float | None, ...]


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """The n-grams of a token list, in order, with repeats.

    Args:
        tokens: the tokens.
        n: the order, a positive integer.

    Returns:
        The ``len(tokens) - n + 1`` n-grams (none when there are fewer than ``n`` tokens).

    Raises:
        InvalidOrderError: ``n`` is not a positive integer.
    """
    _check_order(n, "n")
    return list(zip(*(tokens[i:] for i in range(n)), strict=False))


def _check_order(n: object, what: str) -> int:
    """Reject an order that is not a positive ``int`` (``bool`` included)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidOrderError(f"{what} must be a positive integer, got {n!r}")
    return n


def ngram_stats(
    summary: Sequence[str],
    document: Sequence[str],
    *,
    max_order: int = DEFAULT_MAX_ORDER,
    document_ngrams: Sequence[frozenset] | None = None,
) -> NgramStats:
    """Novel and repeated n-gram shares of one summary for orders 1..``max_order``.

    Args:
        summary: the summary's tokens.
        document: the document's tokens.
        max_order: the largest order (4 by default).
        document_ngrams: the document's n-gram sets for orders 1..``max_order``, if the
            caller has them (several summaries of one document); built when None.

    Returns:
        The summary's :class:`NgramStats`.

    Raises:
        TokensError: either token list is invalid.
        InvalidOrderError: ``max_order`` is not a positive integer.
    """
    summary = check_tokens(summary, "summary")
    document = check_tokens(document, "document")
    _check_order(max_order, "max_order")
    if document_ngrams is None:
        document_ngrams = tuple(frozenset(ngrams(document, n)) for n in range(1, max_order + 1))
    return ngrams_checked(summary, document_ngrams, max_order)


def ngrams_checked(
    summary: tuple[str, ...], document_ngrams: Sequence[frozenset], max_order: int
) -> NgramStats:
    """:func:`ngram_stats` of a checked summary against the document's n-gram sets.

    Args:
        summary: the summary's tokens.
        document_ngrams: the document's n-gram sets, orders 1..``max_order`` (at least).
        max_order: a checked positive integer.

    Returns:
        The summary's :class:`NgramStats`.
    """
    novel: list[float | None] = []
    repeated: list[float | None] = []
    for n in range(1, max_order + 1):
        counts = Counter(ngrams(summary, n))
        if not counts:
            novel.append(None)
            repeated.append(None)
            continue
        in_document = document_ngrams[n - 1]
        distinct = len(counts)
        novel.append(len(counts.keys() - in_document) / distinct)
        repeated.append((distinct - list(counts.values()).count(1)) / distinct)
    return NgramStats(tuple(novel), tuple(repeated))
