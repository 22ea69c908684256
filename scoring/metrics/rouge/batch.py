"""ROUGE of many (target, prediction) pairs at once: all pairs of documents, or independent pairs.

For all pairs of many documents (:func:`document_pair_counts`): every text is tokenized once
and its tokens numbered; a *group* (a document) makes n-gram codes local, so texts of
different groups never share an n-gram. Clipped n-gram overlaps are then one sort and one join
over all groups at once (an n-gram's texts meet within its group), LCS lengths one RapidFuzz
call per document, and P/R/F the same IEEE operations as rouge-score, so every value equals
its bit for bit (ROUGE-1/2/L, with or without stemming). For independent pairs
(:func:`score_pairs`, any of rouge-score's types and options), where no text is shared,
rouge-score-rs's compiled batch scorer is faster, and it is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import chain
from operator import itemgetter

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import LCSseq

from .config import DEFAULT_ROUGE, RougeConfig
from .results import MEASURES, PRF, ByType, PairScores, PRFMatrix, prf_arrays
from .sentences import on_lines
from .tokens import stem_words

# Token ids become code points for RapidFuzz's string LCS: skip the surrogate block, and keep
# below the last code point. A larger vocabulary falls back to sequences of integers.
_SURROGATES, _SURROGATE_SPAN = 0xD800, 0x800
_MAX_CHAR_VOCABULARY = 0x110000 - _SURROGATE_SPAN
_DROPPED = -1  # the id of a word whose stem rouge-score drops
# bytes.translate table: [a-z0-9] stay, A-Z become a-z, every other byte becomes a space.
_LOWER_AND_SEPARATE = bytes(
    ord(chr(c).lower()) if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256)
)
# The non-ASCII characters that str.lower() turns into ASCII letters (U+0130 becomes "i" and
# a combining dot, which separates), checked against every code point in the tests. Every
# other non-ASCII character stays non-ASCII when lower-cased, so it only separates words.
ASCII_LOWERED = {"\u0130": "i?", "\u212a": "k"}


@dataclass(frozen=True)
class Encoded:
    """Texts as token ids: ``ids[bounds[i]:bounds[i + 1]]`` are text ``i``'s tokens, in order.

    Equal ids are equal tokens (across all the texts); ``vocabulary`` is the number of ids.
    """

    ids: np.ndarray
    bounds: np.ndarray
    vocabulary: int

    @property
    def lengths(self) -> np.ndarray:
        """Tokens per text (int64)."""
        return np.diff(self.bounds)


# Words are numbered by value, not by a dictionary: a word of up to 8 bytes is its own bytes
# as a little-endian integer (below 2**63: ASCII); one of 9 to 12 characters its base-37
# digits ([0-9a-z] are 1 to 36, padded with 0 at the end, so below 37**12) plus 2**63; a longer
# one its number in a dictionary plus 2**63 + 37**12. Equal values, equal words.
_BYTE_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_BASE37_WIDTH = 12
_BASE37_POWERS = 37 ** np.arange(_BASE37_WIDTH - 1, -1, -1, dtype=np.int64)
_BASE37_DIGITS = np.zeros(256, dtype=np.int64)
_BASE37_DIGITS[np.frombuffer(b"0123456789abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)] = np.arange(
    1, 37
)
_MEDIUM_WORDS = 1 << 63
_LONG_WORDS = _MEDIUM_WORDS + 37**_BASE37_WIDTH
_PADDING = b" " * (_BASE37_WIDTH + 8)  # lets every word's windows read past its end


def word_values(lowered: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A number for each word of a byte string: equal numbers for equal words, and only for them.

    Args:
        lowered: runs of ``[a-z0-9]`` separated by spaces, followed by at least 20 spaces.
        starts: int64 offset of each word's first byte.
        ends: int64 offset just past each word's last byte.

    Returns:
        uint64 values, one per word (see the comment above for how they are made).
    """
    lengths = ends - starts
    buffer = np.frombuffer(lowered, dtype=np.uint8)
    # Eight bytes from every offset (unaligned reads of one buffer), keeping the word's own.
    windows = np.ndarray((buffer.size - 7,), dtype="<u8", buffer=lowered, strides=(1,))
    values = windows[starts] & _BYTE_MASKS[np.minimum(lengths, 8)]
    medium = np.flatnonzero(lengths > 8)
    if medium.size:
        chars = buffer[starts[medium, np.newaxis] + np.arange(_BASE37_WIDTH)]
        inside = np.arange(_BASE37_WIDTH) < lengths[medium, np.newaxis]
        digits = _BASE37_DIGITS[chars] * inside
        values[medium] = (digits @ _BASE37_POWERS).astype(np.uint64) + np.uint64(_MEDIUM_WORDS)
        long = medium[lengths[medium] > _BASE37_WIDTH]
        if long.size:
            numbers: dict[bytes, int] = {}
            found = [
                numbers.setdefault(lowered[start:end], len(numbers))
                for start, end in zip(starts[long].tolist(), ends[long].tolist(), strict=True)
            ]
            values[long] = np.asarray(found, dtype=np.uint64) + np.uint64(_LONG_WORDS)
    return values


def _run_starts(ordered: np.ndarray) -> np.ndarray:
    """Where each run of equal values of a sorted array begins (a boolean mask)."""
    starts = np.ones(ordered.size, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    return starts


# Odd, so that multiplying by it (modulo 2**64) loses nothing: the top bits of the product
# make a hash of a word's value (Fibonacci hashing).
_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def distinct_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct values of a uint64 array 0, 1, ... (in no particular order).

    A value's hash goes in the high bits and its position in the low bits of one sort key, so a
    plain sort (much faster than an argsort) groups equal values; two different values with
    the same hash (rare: ``64 - log2(n)`` bits of hash) are found, and then an argsort of the
    values themselves numbers them instead.

    Args:
        values: uint64 values.

    Returns:
        ``(numbers, first)``: the int64 number of each value, and the position of one
        occurrence of each number's value.
    """
    n = values.size
    bits = np.uint64(max(n - 1, 1).bit_length())
    keys = np.sort(((values * _HASH_MULTIPLIER) >> bits << bits) | np.arange(n, dtype=np.uint64))
    order = (keys & ((np.uint64(1) << bits) - np.uint64(1))).astype(np.int64)
    ordered = values[order]
    hashes = keys >> bits
    if np.any((ordered[1:] != ordered[:-1]) & (hashes[1:] == hashes[:-1])):
        order = np.argsort(values)
        ordered = values[order]
    first = _run_starts(ordered)
    numbers = np.empty(n, dtype=np.int64)
    numbers[order] = np.cumsum(first) - 1
    return numbers, order[first]


def _lowered(texts: Sequence[str]) -> tuple[bytes, np.ndarray]:
    """The texts lower-cased and split as rouge-score does, joined by spaces, and their offsets.

    rouge-score's steps on all texts at once: lower-case, then every character outside
    [a-z0-9] separates words. The two non-ASCII letters that lower-case to ASCII are replaced
    by what they become, every other non-ASCII character by "?" (a separator; one byte for one
    code point, so the texts' offsets stay those of the joined string); then one byte table
    lower-cases A-Z and turns every other byte into a space.
    """
    joined = " ".join(texts)
    if not joined.isascii() and any(char in joined for char in ASCII_LOWERED):
        for char, lowered in ASCII_LOWERED.items():
            texts = [text.replace(char, lowered) for text in texts]
        joined = " ".join(texts)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1
    offsets = np.cumsum(lengths) - lengths
    lowered = joined.encode("ascii", "replace").translate(_LOWER_AND_SEPARATE) + _PADDING
    return lowered, offsets


def encode(texts: Sequence[str], use_stemmer: bool = True) -> Encoded:
    """Tokenize the texts (rouge-score's tokenizer) and number the tokens.

    The texts are lower-cased and split as one byte string; its words are numbered by value in
    array operations (:func:`word_values`), and with stemming each distinct word is stemmed
    once, in one call to the compiled stemmer. The tokens are those of
    :func:`~scoring.metrics.rouge.tokens.tokenize` on each text.

    Args:
        texts: the texts.
        use_stemmer: Porter-stem the words, as rouge-score's ``use_stemmer``.

    Returns:
        The :class:`Encoded` texts.

    Raises:
        TypeError: a text is not a ``str``.
    """
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"text {index} must be a str, got {type(text).__name__}")
    lowered, offsets = _lowered(texts)
    is_word = (np.frombuffer(lowered, dtype=np.uint8) != ord(" ")).view(np.int8)
    edges = np.diff(is_word, prepend=np.int8(0))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    numbers, first = distinct_values(word_values(lowered, starts, ends))
    if not use_stemmer:  # every word is a valid token, its own
        bounds = np.empty(len(texts) + 1, dtype=np.int64)
        bounds[:-1] = np.searchsorted(starts, offsets)
        bounds[-1] = starts.size
        return Encoded(numbers, bounds, int(first.size))
    # The distinct words, each with the space after it, gathered from the byte string.
    sizes = ends[first] - starts[first] + 1
    gathered = np.arange(int(sizes.sum())) + np.repeat(
        starts[first] - (np.cumsum(sizes) - sizes), sizes
    )
    words = np.frombuffer(lowered, dtype=np.uint8)[gathered].tobytes().decode("ascii")
    tokens: dict[str, int] = {}
    token_ids = np.fromiter(
        (
            _DROPPED if t is None else tokens.setdefault(t, len(tokens))
            for t in stem_words(words, first.size)
        ),
        dtype=np.int64,
        count=first.size,
    )
    ids = token_ids[numbers]
    kept = ids >= 0  # rouge-score drops a word whose stem is not a valid token
    bounds = np.empty(len(texts) + 1, dtype=np.int64)
    bounds[:-1] = np.searchsorted(starts[kept], offsets)
    bounds[-1] = int(kept.sum())
    return Encoded(ids[kept], bounds, len(tokens))


def _owners(encoded: Encoded) -> np.ndarray:
    """The text index of every token."""
    return np.repeat(np.arange(encoded.lengths.size, dtype=np.int64), encoded.lengths)


def ngram_entries(
    codes: np.ndarray, owners: np.ndarray, n_texts: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (n-gram, text) of n-grams that more than one text holds, with their counts.

    One sort of ``code << b | text`` (``b`` the bits of the largest text index; the codes are
    first renumbered 0, 1, ... when that could exceed int64) groups the occurrences; an n-gram
    held by a single text can match no other text, so it is left out.

    Args:
        codes: int64 code (0 or more) of every n-gram occurrence (equal codes, equal n-grams).
        owners: int64 text index (0 to ``n_texts - 1``) of every occurrence.
        n_texts: number of texts.

    Returns:
        ``(codes, texts, counts)``, int64 arrays sorted by code, then by text: each n-gram
        held by at least two texts, a text holding it and how many times it does.
    """
    empty = np.zeros(0, dtype=np.int64)
    if codes.size == 0:
        return empty, empty, empty
    bits = max(n_texts - 1, 1).bit_length()
    if int(codes.max()) >= 1 << (63 - bits):
        codes = np.unique(codes, return_inverse=True)[1].reshape(-1)
    keys = np.sort((codes << bits) | owners)
    starts = np.flatnonzero(_run_starts(keys))
    code = keys[starts] >> bits
    same = code[1:] == code[:-1]  # the next entry holds the same n-gram
    shared = np.empty(code.size, dtype=bool)
    shared[:-1] = same
    shared[-1] = False
    shared[1:] |= same
    kept = np.flatnonzero(shared)
    counts = np.diff(starts, append=keys.size)[kept]
    first = starts[kept]
    return code[kept], keys[first] & ((1 << bits) - 1), counts


def clipped_overlaps(
    unigrams: tuple[np.ndarray, np.ndarray],
    bigrams: tuple[np.ndarray, np.ndarray],
    n_texts: int,
    pair_targets: np.ndarray,
    pair_predictions: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Matched unigrams and bigrams of each pair: ``sum of min(target count, prediction count)``.

    The (n-gram, text, count) entries of n-grams held by several texts (:func:`ngram_entries`)
    are joined on the n-gram: every entry of a target text meets every entry of a prediction
    text with the same n-gram, and ``min`` of their counts goes to the pair of the two texts,
    if it is one of the pairs. Codes must be local to a group of texts (a document), so that a
    join only meets texts of one group and stays small. A pair of a text with itself matches
    all its n-grams. Exact in integers.

    Args:
        unigrams: ``(codes, owners)``: int64 code of every unigram (equal codes, equal tokens
            of the same group) and the text index it belongs to.
        bigrams: the same for the bigrams.
        n_texts: number of texts.
        pair_targets: text index of each pair's target.
        pair_predictions: text index of each pair's prediction.

    Returns:
        Two int64 arrays, the unigram and the bigram overlap of each pair.
    """
    n_pairs = pair_targets.size
    if n_pairs == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # Unigram codes are even and bigram codes odd, so one join counts both.
    code, text, count = ngram_entries(
        np.concatenate([unigrams[0] * 2, bigrams[0] * 2 + 1]),
        np.concatenate([unigrams[1], bigrams[1]]),
        n_texts,
    )
    pair_keys = pair_targets * n_texts + pair_predictions
    if np.all(pair_keys[1:] > pair_keys[:-1]):
        keys, pair_rows = pair_keys, None
    else:  # unsorted or repeated pairs: join on the distinct ones
        keys, pair_rows = np.unique(pair_keys, return_inverse=True)
    is_target = np.zeros(n_texts, dtype=bool)
    is_target[pair_targets] = True
    is_prediction = np.zeros(n_texts, dtype=bool)
    is_prediction[pair_predictions] = True
    left, right = is_target[text], is_prediction[text]
    t_code, t_text, t_count = code[left], text[left], count[left]
    p_code, p_text, p_count = code[right], text[right], count[right]
    # Target entry i meets the prediction entries first[i], ..., first[i] + width[i] - 1.
    first = np.searchsorted(p_code, t_code, side="left")
    width = np.searchsorted(p_code, t_code, side="right") - first
    ends = np.cumsum(width)
    meets = int(ends[-1]) if ends.size else 0
    t_index = np.repeat(np.arange(t_code.size, dtype=np.int64), width)
    p_index = np.arange(meets, dtype=np.int64) + np.repeat(first - (ends - width), width)
    met = t_text[t_index] * n_texts + p_text[p_index]
    row = np.minimum(np.searchsorted(keys, met), keys.size - 1)
    is_pair = keys[row] == met
    matched = np.minimum(t_count[t_index], p_count[p_index])[is_pair]
    slot = row[is_pair] * 2 + (t_code[t_index[is_pair]] & 1)
    sums = np.bincount(slot, weights=matched, minlength=2 * keys.size)  # exact below 2**53
    overlaps = sums.astype(np.int64).reshape(-1, 2)
    if pair_rows is not None:
        overlaps = overlaps[pair_rows.reshape(-1)]
    itself = np.flatnonzero(pair_targets == pair_predictions)
    if itself.size:  # its n-grams held by no other text were left out of the join
        totals = np.stack(
            [
                np.bincount(unigrams[1], minlength=n_texts),
                np.bincount(bigrams[1], minlength=n_texts),
            ],
            axis=1,
        )
        overlaps[itself] = totals[pair_targets[itself]]
    return overlaps[:, 0].copy(), overlaps[:, 1].copy()


def _lcs_lengths(
    encoded: Encoded, first: np.ndarray, n_targets: np.ndarray, n_predictions: np.ndarray
) -> np.ndarray:
    """LCS length of every (target, prediction) pair of each document, row-major, by RapidFuzz.

    One ``cdist`` per document with pairs: RapidFuzz prepares each target once for all the
    document's predictions.
    """
    bounds = encoded.bounds.tolist()
    if encoded.vocabulary <= _MAX_CHAR_VOCABULARY:
        # One code point per token id: one decode for all texts, then slices.
        points = encoded.ids + (encoded.ids >= _SURROGATES) * _SURROGATE_SPAN
        joined = points.astype("<u4").tobytes().decode("utf-32-le")
        texts = [joined[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]
    else:
        ids = encoded.ids.tolist()
        texts = [ids[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]
    blocks = [
        process.cdist(
            texts[start : start + rows],
            texts[start + rows : start + rows + columns],
            scorer=LCSseq.similarity,
            dtype=np.int64,
        ).reshape(-1)
        for start, rows, columns in zip(
            first.tolist(), n_targets.tolist(), n_predictions.tolist(), strict=True
        )
        if rows and columns
    ]
    return np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class PairCounts:
    """Per pair: token counts of both sides, unigram and bigram overlaps, the LCS length."""

    target_tokens: np.ndarray
    prediction_tokens: np.ndarray
    overlap1: np.ndarray
    overlap2: np.ndarray
    lcs: np.ndarray

    def prf(self) -> tuple[PRFMatrix, PRFMatrix, PRFMatrix]:
        """ROUGE-1, -2 and -L as :class:`PRFMatrix` of one dimension (one value per pair)."""
        bigrams_t = np.maximum(self.target_tokens - 1, 0)
        bigrams_p = np.maximum(self.prediction_tokens - 1, 0)
        return (
            prf_arrays(self.overlap1, self.target_tokens, self.prediction_tokens),
            prf_arrays(self.overlap2, bigrams_t, bigrams_p),
            prf_arrays(self.lcs, self.target_tokens, self.prediction_tokens),
        )


def document_pair_counts(
    encoded: Encoded, n_targets: np.ndarray, n_predictions: np.ndarray
) -> PairCounts:
    """Count what ROUGE-1/2/L need for every (target, prediction) pair of each document.

    Document ``d``'s texts are its ``n_targets[d]`` targets followed by its
    ``n_predictions[d]`` predictions, the documents one after the other. Pair ``k`` of
    document ``d`` is (target ``k // n_predictions[d]``, prediction ``k % n_predictions[d]``):
    row-major, document after document. No pair crosses documents, and neither does an n-gram.

    Args:
        encoded: the texts of all documents.
        n_targets: int64 number of targets of each document.
        n_predictions: int64 number of predictions of each document.

    Returns:
        The :class:`PairCounts` of the ``sum(n_targets * n_predictions)`` pairs.

    Raises:
        ValueError: the documents do not hold exactly the encoded texts.
    """
    sizes = n_targets + n_predictions
    ids, n_texts = encoded.ids, encoded.lengths.size
    if int(sizes.sum()) != n_texts:
        raise ValueError(f"the documents hold {int(sizes.sum())} texts, not {n_texts}")
    first = np.cumsum(sizes) - sizes
    n_pairs = n_targets * n_predictions
    document = np.repeat(np.arange(sizes.size, dtype=np.int64), n_pairs)
    within = np.arange(int(n_pairs.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(n_pairs) - n_pairs, n_pairs
    )
    row, column = np.divmod(within, np.maximum(n_predictions[document], 1))
    pair_targets = first[document] + row
    pair_predictions = first[document] + n_targets[document] + column
    owners = _owners(encoded)
    width = max(encoded.vocabulary, 1)
    # Unigram a of document d: d * V + a; bigram (a, b): ((d * V) + a) * V + b.
    local = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)[owners] * width + ids
    same_text = owners[:-1] == owners[1:]
    bigrams = local[:-1][same_text] * width + ids[1:][same_text]
    lengths = encoded.lengths
    overlap1, overlap2 = clipped_overlaps(
        (local, owners),
        (bigrams, owners[:-1][same_text]),
        n_texts,
        pair_targets,
        pair_predictions,
    )
    return PairCounts(
        target_tokens=lengths[pair_targets],
        prediction_tokens=lengths[pair_predictions],
        overlap1=overlap1,
        overlap2=overlap2,
        lcs=_lcs_lengths(encoded, first, n_targets, n_predictions),
    )


@dataclass(frozen=True, eq=False, init=False)
class PairwiseScores(ByType):
    """ROUGE of n (target, prediction) pairs: a :class:`PRFMatrix` of read-only arrays of shape
    (n,) per type, in order (``scores.rouge1``, ``scores["rougeLsum"]``)."""

    types: tuple[str, ...]
    values: tuple[PRFMatrix, ...]

    def __len__(self) -> int:
        return self.values[0].fmeasure.size

    def pair(self, index: int) -> PairScores:
        """The scores of pair ``index``, as :func:`~scoring.metrics.rouge.score_pair` gives them.

        Args:
            index: the pair's position.

        Returns:
            Its :class:`PairScores` (Python floats).

        Raises:
            IndexError: no such pair.
        """
        return PairScores(
            *(
                PRF(*(float(getattr(matrix, name)[index]) for name in MEASURES))
                for matrix in self.values
            ),
            types=self.types,
        )

    def pair_list(self) -> list[PairScores]:
        """Every pair's scores, as :meth:`pair` gives them (each array is converted once).

        Returns:
            One :class:`PairScores` per pair, in order.
        """
        columns = [[getattr(matrix, name).tolist() for name in MEASURES] for matrix in self.values]
        prfs = [[PRF(*values) for values in zip(*measures, strict=True)] for measures in columns]
        return [PairScores(*scores, types=self.types) for scores in zip(*prfs, strict=True)]


def score_pairs(
    targets: Sequence[str], predictions: Sequence[str], config: RougeConfig = DEFAULT_ROUGE
) -> PairwiseScores:
    """ROUGE of each (target, prediction) pair, identical to rouge-score with ``config``.

    ``score_pairs(targets, predictions, config).pair(i) == score_pair(targets[i],
    predictions[i], config)``, and both equal ``RougeScorer(**config.as_dict()).score(
    targets[i], predictions[i])``. ROUGE-Lsum's sentences are each text's lines (or Punkt's
    sentences with ``split_summaries``). Each text here is scored once, so nothing is shared
    between pairs; rouge-score-rs's batch scorer (compiled, the same values as rouge-score) does
    it faster than array operations in Python can, and its scores come back as arrays. With
    ``split_summaries`` the texts are first put one Punkt sentence a line (:func:`.on_lines`).

    Args:
        targets: the references.
        predictions: the candidates, as many as the targets.
        config: the types and options (default: Loupe's, :data:`.DEFAULT_ROUGE`).

    Returns:
        The :class:`PairwiseScores`, of ``config.rouge_types``.

    Raises:
        TypeError: a text is not a ``str``, or either side is a single string.
        ValueError: the two sides differ in length.
    """
    for side, what in ((targets, "targets"), (predictions, "predictions")):
        if isinstance(side, str | bytes):
            raise TypeError(f"{what} must be a sequence of texts, not a single str")
        for index, text in enumerate(side):
            if not isinstance(text, str):
                raise TypeError(f"{what}[{index}] must be a str, got {type(text).__name__}")
    targets, predictions = list(targets), list(predictions)
    if len(targets) != len(predictions):
        raise ValueError(f"{len(targets)} targets but {len(predictions)} predictions")
    if config.split_summaries and config.sentences:  # each distinct text split once
        lines = {text: on_lines(text) for text in {*targets, *predictions}}
        targets, predictions = [lines[t] for t in targets], [lines[p] for p in predictions]
    types = config.rouge_types
    rows = _batch_scorer(types, config.use_stemmer).score_batch(targets, predictions)
    # Each row's scores are (precision, recall, fmeasure) named tuples: (pairs, types, 3).
    pick = itemgetter(*types) if len(types) > 1 else (lambda row: (row[types[0]],))
    values = np.fromiter(
        chain.from_iterable(chain.from_iterable(map(pick, rows))),
        dtype=np.float64,
        count=len(rows) * len(types) * len(MEASURES),
    ).reshape(len(rows), len(types), len(MEASURES))
    return PairwiseScores(
        *(PRFMatrix(*(values[:, t, m] for m in range(len(MEASURES)))) for t in range(len(types))),
        types=types,
    )


@cache
def _batch_scorer(types: tuple[str, ...], use_stemmer: bool):
    """rouge-score-rs's scorer of some types, made once per configuration."""
    from rouge_score_rs import RougeScorer

    return RougeScorer(list(types), use_stemmer=use_stemmer)
