"""ROUGE for one pair (any type), for all pairs of one or many documents, or over a dataset."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

import numpy as np

from .batch import document_pair_counts, encode
from .config import DEFAULT_ROUGE, RougeConfig
from .lcs import lcs_length, summary_lcs_hits
from .ngrams import clipped_overlap, ngram_counts
from .results import MEASURES, PRF, AllPairs, PairScores, PRFMatrix, prf
from .sentences import summary_sentences
from .tokens import tokenize

# Documents that allpairs_dataset scores together: enough to amortise the array calls, few
# enough to keep memory small (a CNN/DM-sized document has about 120 pairs).
DOCUMENTS_PER_BATCH = 256


def _token_ids(token_lists: Sequence[Sequence[str]]) -> list[list[int]]:
    """Number the distinct tokens 0, 1, ... in order of appearance; equal ids, equal tokens."""
    vocabulary: dict[str, int] = {}
    return [
        [vocabulary.setdefault(token, len(vocabulary)) for token in tokens]
        for tokens in token_lists
    ]


def score_pair(target: str, prediction: str, config: RougeConfig = DEFAULT_ROUGE) -> PairScores:
    """ROUGE of one pair, identical to rouge-score with the same options.

    Equal to ``RougeScorer(list(config.rouge_types), use_stemmer=config.use_stemmer,
    split_summaries=config.split_summaries).score(target, prediction)``: target first,
    precision = overlap / prediction count, recall = overlap / target count, F = 2PR / (P + R).
    ROUGE-N counts clipped n-grams, ROUGE-L the longest common subsequence and ROUGE-Lsum the
    summary-level union LCS over the texts' sentences (their lines, or Punkt's sentences with
    ``split_summaries``). A text without tokens (empty, or no ASCII letter or digit; fewer than
    n tokens for ROUGE-N) has a count of 0, and every score of the pair for that type is 0.0,
    as in rouge-score; no NaN is ever returned.

    Args:
        target: the reference text (a facet, or a reference with a sentence a line).
        prediction: the candidate text (a document sentence or a summary).
        config: the types and options (default: Loupe's, :data:`.DEFAULT_ROUGE`).

    Returns:
        The pair's :class:`PairScores`, of ``config.rouge_types``.

    Raises:
        TypeError: either text is not a ``str``.
    """
    stem = config.use_stemmer
    target_tokens = tokenize(target, stem)
    prediction_tokens = tokenize(prediction, stem)
    n_target, n_prediction = len(target_tokens), len(prediction_tokens)
    scores = []
    for rouge_type in config.rouge_types:
        if rouge_type == "rougeL":
            target_ids, prediction_ids = _token_ids((target_tokens, prediction_tokens))
            lcs = lcs_length(target_ids, prediction_ids)
            scores.append(prf(lcs, n_target, n_prediction))
        elif rouge_type == "rougeLsum":
            scores.append(_summary_lcs(target, prediction, config))
        else:
            n = int(rouge_type[5:])
            target_grams = ngram_counts(target_tokens, n)
            prediction_grams = ngram_counts(prediction_tokens, n)
            overlap = clipped_overlap(target_grams, prediction_grams)
            scores.append(prf(overlap, max(n_target - n + 1, 0), max(n_prediction - n + 1, 0)))
    return PairScores(*scores, types=config.rouge_types)


def _summary_lcs(target: str, prediction: str, config: RougeConfig) -> PRF:
    """ROUGE-Lsum of one pair: each text's sentences tokenized apart, then the union LCS."""
    sides = [
        [tokenize(s, config.use_stemmer) for s in summary_sentences(text, config.split_summaries)]
        for text in (target, prediction)
    ]
    ids = _token_ids([tokens for side in sides for tokens in side])
    reference, candidate = ids[: len(sides[0])], ids[len(sides[0]) :]
    hits = summary_lcs_hits(reference, candidate)
    return prf(hits, sum(map(len, reference)), sum(map(len, candidate)))


def _texts(texts: Sequence[str], what: str) -> tuple[str, ...]:
    """Check a list of texts and return it as a tuple."""
    if isinstance(texts, str | bytes):
        raise TypeError(f"{what} must be a sequence of texts, not a single {type(texts).__name__}")
    texts = tuple(texts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{what}[{index}] must be a str, got {type(text).__name__}")
    return texts


def allpairs_many(
    documents: Sequence[tuple[Sequence[str], Sequence[str]]],
    names: Sequence[object] | None = None,
    use_stemmer: bool = True,
) -> list[AllPairs]:
    """:func:`allpairs` of several documents at once, vectorised across them.

    Every text is tokenized once; the n-gram overlaps of all documents come from one sort and
    one join (each document's n-grams coded apart, so no pair crosses documents), the
    LCS lengths from one RapidFuzz call per document and P/R/F from one pass over all pairs.

    Args:
        documents: ``(facets, sentences)`` of each document.
        names: each document's name for error messages (default: its position).
        use_stemmer: Porter-stem the words, as rouge-score's ``use_stemmer``.

    Returns:
        One :class:`AllPairs` per document, in order.

    Raises:
        TypeError: as :func:`allpairs`, naming the document.
    """
    checked, texts = [], []
    for position, (facets, sentences) in enumerate(documents):
        try:
            pair = (_texts(facets, "facets"), _texts(sentences, "sentences"))
        except TypeError as error:
            name = position if names is None else names[position]
            raise TypeError(f"document {name!r}: {error}") from None
        checked.append(pair)
        texts.extend(chain(*pair))
    encoded = encode(texts, use_stemmer)
    n_facets = np.fromiter((len(f) for f, _ in checked), dtype=np.int64, count=len(checked))
    n_sentences = np.fromiter((len(s) for _, s in checked), dtype=np.int64, count=len(checked))
    counts = document_pair_counts(encoded, n_facets, n_sentences)
    shapes = list(zip(n_facets.tolist(), n_sentences.tolist(), strict=True))
    flat = counts.prf()
    results, start = [], 0
    for shape in shapes:
        end = start + shape[0] * shape[1]
        results.append(
            AllPairs(
                *(
                    PRFMatrix(
                        *(getattr(matrix, name)[start:end].reshape(shape) for name in MEASURES)
                    )
                    for matrix in flat
                )
            )
        )
        start = end
    return results


def allpairs(facets: Sequence[str], sentences: Sequence[str], use_stemmer: bool = True) -> AllPairs:
    """ROUGE-1/2/L of every facet (target) against every document sentence (prediction).

    Each text is tokenized once, its n-grams are counted once, overlaps come from a join of
    n-gram counts and LCS lengths from RapidFuzz. Every value equals ``score_pair(facets[i],
    sentences[j], RougeConfig(ROUGE_TYPES, use_stemmer))`` and rouge-score's, bit for bit.
    Empty texts score 0.0, as in :func:`score_pair`.

    Args:
        facets: the targets, e.g. the reference sentences; rows of the result.
        sentences: the predictions, e.g. the document sentences; columns of the result.
        use_stemmer: Porter-stem the words, as rouge-score's ``use_stemmer``.

    Returns:
        An :class:`AllPairs` whose matrices have shape (len(facets), len(sentences)).

    Raises:
        TypeError: ``facets`` or ``sentences`` is a single string, or holds a non-``str``.
    """
    facets = _texts(facets, "facets")
    sentences = _texts(sentences, "sentences")
    return allpairs_many([(facets, sentences)], use_stemmer=use_stemmer)[0]


def allpairs_dataset(
    documents: Iterable[tuple[str, Sequence[str], Sequence[str]]],
    batch: int = DOCUMENTS_PER_BATCH,
    use_stemmer: bool = True,
) -> Iterator[tuple[str, AllPairs]]:
    """Stream :func:`allpairs` over a dataset, vectorised over batches of documents.

    Only one batch of documents and results is held at a time (and the tokenizer's bounded
    stem cache), so memory does not grow with the dataset when ``documents`` is itself a
    generator and the caller drops each result.

    Args:
        documents: ``(doc_id, facets, sentences)`` triples, e.g. a generator over a file.
        batch: documents scored together (default :data:`DOCUMENTS_PER_BATCH`).
        use_stemmer: Porter-stem the words, as rouge-score's ``use_stemmer``.

    Yields:
        ``(doc_id, AllPairs)`` in input order.

    Raises:
        TypeError: as :func:`allpairs`, with the document id added to the message.
        ValueError: an item is not a ``(doc_id, facets, sentences)`` triple.
    """
    pending: list[tuple[str, Sequence[str], Sequence[str]]] = []

    def flush() -> Iterator[tuple[str, AllPairs]]:
        names = [doc_id for doc_id, _, _ in pending]
        results = allpairs_many(
            [(facets, sentences) for _, facets, sentences in pending], names, use_stemmer
        )
        pending.clear()
        yield from zip(names, results, strict=True)

    for item in documents:
        try:
            doc_id, facets, sentences = item
        except (TypeError, ValueError):
            raise ValueError(
                f"expected (doc_id, facets, sentences), got {type(item).__name__}"
            ) from None
        pending.append((doc_id, facets, sentences))
        if len(pending) >= batch:
            yield from flush()
    if pending:
        yield from flush()
