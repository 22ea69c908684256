"""Every dataset-bias measure of one (document, summary) pair, and a tokenizer for them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rouge.tokens import NON_ALPHANUM_RE
from .fragments import FragmentStats, stats_checked, token_positions
from .ngrams import DEFAULT_MAX_ORDER, NgramStats, _check_order, ngrams, ngrams_checked
from .sentences import (
    DEFAULT_MIN_FRAGMENT_LENGTH,
    SentenceSupport,
    check_min_fragment_length,
    check_sentences,
    support_of,
)


@dataclass(frozen=True)
class ItemBias:
    """The bias measures of one pair: fragments and n-grams over the whole texts, support per
    summary sentence."""

    fragments: FragmentStats
    ngrams: NgramStats
    support: SentenceSupport


@dataclass(frozen=True)
class PreparedDocument:
    """A tokenized document with what every summary of it is matched against, built once.

    ``sentences`` are the checked token lists, ``flat`` their concatenation, ``owner`` the
    sentence of each of its tokens, ``positions`` its
    :func:`~scoring.metrics.bias.fragments.token_positions` and ``ngrams`` its n-gram sets for
    orders 1..``max_order``.
    """

    sentences: tuple[tuple[str, ...], ...]
    flat: tuple[str, ...]
    owner: tuple[int, ...]
    positions: dict[str, list[int]]
    ngrams: tuple[frozenset, ...]


def prepare_document(
    document_sentences: Sequence[Sequence[str]], *, max_order: int = DEFAULT_MAX_ORDER
) -> PreparedDocument:
    """Prepare a document once for several summaries (references, systems) of it.

    Args:
        document_sentences: the document, one token list per sentence, or its
            :class:`PreparedDocument` (prepared with at least ``max_order``).
        max_order: the largest n-gram order the summaries are scored with (4 by default).

    Returns:
        The :class:`PreparedDocument`, to pass to :func:`item_bias` in place of the sentences.

    Raises:
        TokensError: a sentence is not a list of ``str`` tokens.
        InvalidOrderError: ``max_order`` is not a positive integer.
    """
    _check_order(max_order, "max_order")
    sentences = check_sentences(document_sentences, "document_sentences")
    flat = tuple(token for sentence in sentences for token in sentence)
    return PreparedDocument(
        sentences=sentences,
        flat=flat,
        owner=tuple(index for index, sentence in enumerate(sentences) for _ in sentence),
        positions=token_positions(flat),
        ngrams=tuple(frozenset(ngrams(flat, n)) for n in range(1, max_order + 1)),
    )


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
    document_sentences: Sequence[Sequence[str]] | PreparedDocument,
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
        document_sentences: the document, one token list per sentence, or its
            :class:`PreparedDocument` (prepared with at least ``max_order``).
        max_order: the largest n-gram order (4 by default).
        min_fragment_length: the shortest fragment taken as support (3 by default).

    Returns:
        The pair's :class:`ItemBias`.

    Raises:
        TokensError: a sentence is not a list of ``str`` tokens.
        InvalidOrderError: ``max_order`` is not a positive integer.
        BiasError: ``min_fragment_length`` is not a positive integer.
    """
    _check_order(max_order, "max_order")
    if isinstance(document_sentences, PreparedDocument):
        prepared = document_sentences
        if len(prepared.ngrams) < max_order:
            prepared = prepare_document(prepared.sentences, max_order=max_order)
    else:
        prepared = prepare_document(document_sentences, max_order=max_order)
    check_min_fragment_length(min_fragment_length)
    summary_checked = check_sentences(summary_sentences, "summary_sentences")
    support = support_of(
        summary_checked,
        prepared.flat,
        prepared.owner,
        prepared.positions,
        len(prepared.sentences),
        min_fragment_length,
    )
    summary = tuple(token for sentence in summary_checked for token in sentence)
    return ItemBias(
        fragments=stats_checked(summary, prepared.flat, prepared.positions),
        ngrams=ngrams_checked(summary, prepared.ngrams, max_order),
        support=support,
    )
