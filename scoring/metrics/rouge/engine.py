"""ROUGE-1/2/L for one pair, for all pairs of a document, and streamed over a dataset."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

import numpy as np

from .lcs import lcs_length, lcs_matrix
from .ngrams import clipped_overlap, ngram_counts, overlap_matrix
from .results import AllPairs, PairScores, prf, prf_matrix
from .tokens import tokenize


def _token_ids(token_lists: Sequence[Sequence[str]]) -> list[list[int]]:
    """Number the distinct tokens 0, 1, ... in order of appearance; equal ids, equal tokens."""
    vocabulary: dict[str, int] = {}
    return [
        [vocabulary.setdefault(token, len(vocabulary)) for token in tokens]
        for tokens in token_lists
    ]


def score_pair(target: str, prediction: str) -> PairScores:
    """ROUGE-1, ROUGE-2 and ROUGE-L of one pair, identical to rouge-score with stemming.

    Equal to ``RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True).score(target,
    prediction)``: target first, precision = overlap / prediction count, recall = overlap /
    target count, F = 2PR / (P + R). A text without tokens (empty, or no ASCII letter or digit;
    a one-token text for ROUGE-2) has a count of 0, and every score of the pair for that type
    is 0.0, as in rouge-score; no NaN is ever returned.

    Args:
        target: the reference text (a facet).
        prediction: the candidate text (a document sentence or a summary).

    Returns:
        The pair's :class:`PairScores`.

    Raises:
        TypeError: either text is not a ``str``.
    """
    target_tokens = tokenize(target)
    prediction_tokens = tokenize(prediction)
    n_target, n_prediction = len(target_tokens), len(prediction_tokens)
    ngram_scores = []
    for n in (1, 2):
        target_grams = ngram_counts(target_tokens, n)
        prediction_grams = ngram_counts(prediction_tokens, n)
        overlap = clipped_overlap(target_grams, prediction_grams)
        ngram_scores.append(prf(overlap, max(n_target - n + 1, 0), max(n_prediction - n + 1, 0)))
    target_ids, prediction_ids = _token_ids((target_tokens, prediction_tokens))
    lcs = lcs_length(target_ids, prediction_ids)
    return PairScores(*ngram_scores, prf(lcs, n_target, n_prediction))


def _texts(texts: Sequence[str], what: str) -> tuple[str, ...]:
    """Check a list of texts and return it as a tuple."""
    if isinstance(texts, str | bytes):
        raise TypeError(f"{what} must be a sequence of texts, not a single {type(texts).__name__}")
    texts = tuple(texts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{what}[{index}] must be a str, got {type(text).__name__}")
    return texts


def allpairs(facets: Sequence[str], sentences: Sequence[str]) -> AllPairs:
    """ROUGE-1/2/L of every facet (target) against every document sentence (prediction).

    Each text is tokenized once, its n-grams are counted once, overlaps come from small matrix
    products and LCS lengths from RapidFuzz. Every value equals ``score_pair(facets[i],
    sentences[j])`` and rouge-score's, bit for bit. Empty texts score 0.0, as in
    :func:`score_pair`.

    Args:
        facets: the targets, e.g. the reference sentences; rows of the result.
        sentences: the predictions, e.g. the document sentences; columns of the result.

    Returns:
        An :class:`AllPairs` whose matrices have shape (len(facets), len(sentences)).

    Raises:
        TypeError: ``facets`` or ``sentences`` is a single string, or holds a non-``str``.
    """
    facets = _texts(facets, "facets")
    sentences = _texts(sentences, "sentences")
    n_targets, n_texts = len(facets), len(facets) + len(sentences)
    id_lists = _token_ids([tokenize(text) for text in chain(facets, sentences)])
    lengths = np.fromiter(map(len, id_lists), dtype=np.int64, count=n_texts)
    ids = np.fromiter(chain.from_iterable(id_lists), dtype=np.int64, count=int(lengths.sum()))
    owners = np.repeat(np.arange(n_texts, dtype=np.int64), lengths)

    same_text = owners[:-1] == owners[1:]
    bigram_codes = ids[:-1][same_text] * max(ids.size, 1) + ids[1:][same_text]
    bigram_owners = owners[:-1][same_text]
    bigram_lengths = np.maximum(lengths - 1, 0)

    rouge1 = prf_matrix(
        overlap_matrix(ids, owners, n_targets, n_texts), lengths[:n_targets], lengths[n_targets:]
    )
    rouge2 = prf_matrix(
        overlap_matrix(bigram_codes, bigram_owners, n_targets, n_texts),
        bigram_lengths[:n_targets],
        bigram_lengths[n_targets:],
    )
    rouge_l = prf_matrix(
        lcs_matrix(id_lists[:n_targets], id_lists[n_targets:]),
        lengths[:n_targets],
        lengths[n_targets:],
    )
    return AllPairs(rouge1, rouge2, rouge_l)


def allpairs_dataset(
    documents: Iterable[tuple[str, Sequence[str], Sequence[str]]],
) -> Iterator[tuple[str, AllPairs]]:
    """Stream :func:`allpairs` over a dataset, one document at a time.

    Nothing is kept between documents except the bounded stem cache, so memory does not grow
    with the dataset when ``documents`` is itself a generator and the caller drops each result.

    Args:
        documents: ``(doc_id, facets, sentences)`` triples, e.g. a generator over a file.

    Yields:
        ``(doc_id, AllPairs)`` in input order.

    Raises:
        TypeError: as :func:`allpairs`, with the document id added to the message.
        ValueError: an item is not a ``(doc_id, facets, sentences)`` triple.
    """
    for item in documents:
        try:
            doc_id, facets, sentences = item
        except (TypeError, ValueError):
            raise ValueError(
                f"expected (doc_id, facets, sentences), got {type(item).__name__}"
            ) from None
        try:
            result = allpairs(facets, sentences)
        except TypeError as error:
            raise TypeError(f"document {doc_id!r}: {error}") from None
        yield doc_id, result
