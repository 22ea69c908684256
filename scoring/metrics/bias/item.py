"""Every dataset-bias measure of one (document, summary) pair, and a tokenizer for them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rouge.tokens import NON_ALPHANUM_RE
from .fragments import FragmentStats, fragment_stats
from .ngrams import DEFAULT_MAX_ORDER, NgramStats, ngram_stats
from .sentences import DEFAULT_MIN_FRAGMENT_LENGTH, SentenceSupport, sentence_support


@dataclass(frozen=True)
class ItemBias:
    """The bias measures of one pair: fragments and n-grams over the whole texts, support per
    summary sentence."""

    fragments: FragmentStats
    ngrams: NgramStats
    support: SentenceSupport


def tokenize(text: str) -> tuple[str, ...]:
    """rouge-score's tokenization *without* stemming: lower-case ``[a-z0-9]+`` words.

    Loupe's ROUGE tokenizer (:mod:`scoring.metrics.rouge.tokens`) minus the Porter stemmer:
    stemming would count "said"/"says" as copied, which the extractive measures must not.

    Args:
        text: any text.

    Returns:
        The tokens (none for an empty text or one without an ASCII letter or digit).

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a str to tokenize, got {type(text).__name__}")
    return tuple(NON_ALPHANUM_RE.sub(" ", text.lower()).split())


def item_bias(
    summary_sentences: Sequence[Sequence[str]],
    document_sentences: Sequence[Sequence[str]],
    *,
    max_order: int = DEFAULT_MAX_ORDER,
    min_fragment_length: int = DEFAULT_MIN_FRAGMENT_LENGTH,
) -> ItemBias:
    """All bias measures of one (document, summary) pair, given as tokenized sentences.

    Fragments and n-grams are computed over the concatenated sentences (so n-grams may cross
    sentence boundaries, as in newsroom and summ-eval); fusion and positions per summary
    sentence (:func:`sentence_support`).

    Args:
        summary_sentences: the summary, one token list per sentence.
        document_sentences: the document, one token list per sentence.
        max_order: the largest n-gram order (4 by default).
        min_fragment_length: the shortest fragment taken as support (3 by default).

    Returns:
        The pair's :class:`ItemBias`.

    Raises:
        TokensError: a sentence is not a list of ``str`` tokens.
        InvalidOrderError: ``max_order`` is not a positive integer.
        BiasError: ``min_fragment_length`` is not a positive integer.
    """
    support = sentence_support(
        summary_sentences, document_sentences, min_fragment_length=min_fragment_length
    )
    summary = [token for sentence in summary_sentences for token in sentence]
    document = [token for sentence in document_sentences for token in sentence]
    return ItemBias(
        fragments=fragment_stats(summary, document),
        ngrams=ngram_stats(summary, document, max_order=max_order),
        support=support,
    )
