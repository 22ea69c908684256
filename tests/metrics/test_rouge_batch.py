"""ROUGE batch internals, hand-worked: word values, encoding, n-gram entries, clipped overlaps."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scoring.metrics.rouge import (
    ROUGE_TYPES,
    RougeConfig,
    allpairs_many,
    batch,
    score_pair,
    tokenize,
)
from scoring.metrics.rouge.batch import (
    clipped_overlaps,
    distinct_values,
    document_pair_counts,
    encode,
    ngram_entries,
    word_values,
)


def ints(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def test_word_values_by_length_class():
    text = b"ab abcdefgh abcdefghi ab abcdefghijklm abcdefghi abcdefghijklmn abcdefghijklm"
    starts = ints([0, 3, 12, 22, 25, 39, 49, 64])
    ends = ints([2, 11, 21, 24, 38, 48, 63, 77])
    values = word_values(text + b" " * 20, starts, ends).tolist()
    # Up to 8 bytes: the bytes themselves, little-endian.
    assert values[0] == values[3] == ord("a") + (ord("b") << 8)
    assert values[1] == int.from_bytes(b"abcdefgh", "little")
    # 9 to 12: 2**63 + base-37 digits (a is 11, ..., i is 19), left-aligned over 12 places.
    assert values[2] == values[5] == 2**63 + sum((11 + k) * 37 ** (11 - k) for k in range(9))
    # Longer: 2**63 + 37**12 + the word's number in order of appearance.
    assert values[4] == values[7] == 2**63 + 37**12
    assert values[6] == 2**63 + 37**12 + 1
    assert word_values(b" " * 20, ints([]), ints([])).size == 0


def test_word_values_are_equal_exactly_for_equal_words():
    rng = random.Random(3)
    letters = "0123456789abcdefghijklmnopqrstuvwxyz"
    words = [
        "".join(rng.choice(letters[: rng.choice([2, 36])]) for _ in range(rng.randint(1, 20)))
        for _ in range(3000)
    ]
    text = " ".join(words).encode("ascii")
    ends = np.cumsum([len(w) + 1 for w in words]) - 1
    starts = ends - [len(w) for w in words]
    values = word_values(text + b" " * 20, starts, ends).tolist()
    first = {}
    for word, value in zip(words, values, strict=True):
        assert first.setdefault(value, word) == word
    assert len(first) == len(set(words))


@pytest.mark.parametrize("collide", [False, True])
def test_distinct_values_numbers_equal_values_alike(monkeypatch, collide):
    if collide:  # every value gets the same hash: the argsort fallback numbers them
        monkeypatch.setattr(batch, "_HASH_MULTIPLIER", np.uint64(0))
    values = np.array([7, 2**63 + 5, 7, 0, 2**64 - 1, 2**63 + 5, 7], dtype=np.uint64)
    numbers, first = distinct_values(values)
    assert numbers[0] == numbers[2] == numbers[6] and numbers[1] == numbers[5]
    assert set(numbers.tolist()) == {0, 1, 2, 3}  # 7, 2**63 + 5, 0 and 2**64 - 1
    assert np.array_equal(values[first][numbers], values)
    empty = distinct_values(np.zeros(0, dtype=np.uint64))
    assert [a.size for a in empty] == [0, 0]


def test_encode_hand_worked():
    # "Cats" and "cat" stem to "cat"; "!!" and "" have no token; "sat" repeats across texts.
    encoded = encode(["The cats sat.", "!!", "", "sat on the cat", "The"])
    assert encoded.bounds.tolist() == [0, 3, 3, 3, 7, 8]
    ids = encoded.ids.tolist()
    the, cat, sat, on = ids[0], ids[1], ids[2], ids[4]
    assert ids == [the, cat, sat, sat, on, the, cat, the]
    assert len({the, cat, sat, on}) == 4 == encoded.vocabulary
    empty = encode([])
    assert (empty.ids.size, empty.bounds.tolist(), empty.vocabulary) == (0, [0], 0)
    nothing = encode(["", " ... ", "\u00e9"])
    assert (nothing.ids.size, nothing.bounds.tolist()) == (0, [0, 0, 0, 0])


def test_encode_keeps_offsets_when_a_letter_lower_cases_to_two_characters():
    # U+0130 lower-cases to "i" and a combining dot (a separator): one character becomes two,
    # so "\u0130stanbul \u0130x" is i, stanbul, i, x; the Kelvin sign becomes "k".
    texts = ["\u0130stanbul \u0130x", "istanbul", "\u212aelvin kelvin"]
    encoded = encode(texts)
    assert encoded.lengths.tolist() == [len(tokenize(t)) for t in texts] == [4, 1, 2]
    ids = encoded.ids.tolist()
    assert ids[0] == ids[2] and ids[5] == ids[6] and len(set(ids)) == 5


def test_ngram_entries_count_each_text_and_drop_ngrams_of_one_text():
    # n-gram 3: text 0 once, text 1 once; 5: text 0 twice, text 2 once; 7: only text 1.
    codes, texts, counts = ngram_entries(ints([5, 3, 5, 7, 3, 5]), ints([0, 0, 0, 1, 1, 2]), 3)
    assert codes.tolist() == [3, 3, 5, 5]
    assert texts.tolist() == [0, 1, 0, 2]
    assert counts.tolist() == [1, 1, 2, 1]


def test_ngram_entries_of_nothing_and_of_huge_codes():
    assert [a.size for a in ngram_entries(ints([]), ints([]), 0)] == [0, 0, 0]
    assert [a.size for a in ngram_entries(ints([4]), ints([0]), 1)] == [0, 0, 0]
    # code * n_texts would overflow int64: the codes are renumbered first (0 and 1 here).
    big = 2**62
    codes, texts, counts = ngram_entries(ints([big + 1, big, big + 1, big]), ints([0, 1, 1, 3]), 4)
    assert codes.tolist() == [0, 0, 1, 1]
    assert texts.tolist() == [1, 3, 0, 1]
    assert counts.tolist() == [1, 1, 1, 1]


# Text 0 "a a b", text 1 "a b a a", text 2 "c" (unigram codes a=0, b=1, c=2; bigram codes
# aa=0, ab=1, ba=2: the two kinds never meet, whatever their codes).
UNIGRAMS = (ints([0, 0, 1, 0, 1, 0, 0, 2]), ints([0, 0, 0, 1, 1, 1, 1, 2]))
BIGRAMS = (ints([0, 1, 1, 2, 0]), ints([0, 0, 1, 1, 1]))


def test_clipped_overlaps_hand_worked_with_clipping():
    # (0, 1): a min(2, 3) + b min(1, 1) = 3 unigrams; aa min(1, 1) + ab min(1, 1) = 2 bigrams.
    # (1, 0): the same. (0, 2): nothing shared. (0, 0): all of text 0, 3 and 2. (1, 1): 4 and
    # 3. (2, 2): 1 and 0 ("c" is held by no other text, so the join never sees it).
    targets, predictions = ints([1, 0, 0, 0, 2, 0, 1]), ints([0, 1, 1, 0, 2, 2, 1])
    overlap1, overlap2 = clipped_overlaps(UNIGRAMS, BIGRAMS, 3, targets, predictions)
    assert overlap1.tolist() == [3, 3, 3, 3, 1, 0, 4]
    assert overlap2.tolist() == [2, 2, 2, 2, 0, 0, 3]
    assert overlap1.dtype == overlap2.dtype == np.int64


def test_clipped_overlaps_sorted_pairs_take_the_same_path_values():
    overlap1, overlap2 = clipped_overlaps(UNIGRAMS, BIGRAMS, 3, ints([0, 0, 1]), ints([1, 2, 2]))
    assert (overlap1.tolist(), overlap2.tolist()) == ([3, 0, 0], [2, 0, 0])


def test_clipped_overlaps_without_pairs_or_without_tokens():
    empty = clipped_overlaps(UNIGRAMS, BIGRAMS, 3, ints([]), ints([]))
    assert [a.tolist() for a in empty] == [[], []]
    none = (ints([]), ints([]))
    overlap1, overlap2 = clipped_overlaps(none, none, 2, ints([0, 1, 0]), ints([1, 0, 0]))
    assert (overlap1.tolist(), overlap2.tolist()) == ([0, 0, 0], [0, 0, 0])


def test_documents_without_pairs_between_others():
    documents = [
        (["a b a"], []),
        (["a b a b", ""], ["b a b", "!!", "a"]),
        ([], ["a b"]),
        (["b"], ["a b b"]),
    ]
    results = allpairs_many(documents)
    assert [r.shape for r in results] == [(1, 0), (2, 3), (0, 1), (1, 1)]
    for (facets, sentences), result in zip(documents, results, strict=True):
        for i, facet in enumerate(facets):
            for j, sentence in enumerate(sentences):
                assert result.pair(i, j) == score_pair(facet, sentence, RougeConfig(ROUGE_TYPES))


@pytest.mark.parametrize("repeat", [1, 3])
def test_no_ngram_crosses_documents(repeat):
    # The same words in two documents: each document's pairs only see their own n-grams.
    documents = [(["x y x y"] * repeat, ["x y"]), (["z"], ["x y x y x y"])]
    first, second = allpairs_many(documents)
    assert first.rouge1.recall.tolist() == [[0.5]] * repeat
    assert second.rouge1.fmeasure.tolist() == [[0.0]]


def test_document_pair_counts_hand_worked():
    # Document 0: target "a b a", predictions "b a", "" -> pairs (t0, p0), (t0, p1).
    # Document 1: no target, prediction "a". Document 2: targets "c", "a b"; prediction "a b c".
    encoded = encode(["a b a", "b a", "", "a", "c", "a b", "a b c"])
    counts = document_pair_counts(encoded, ints([1, 0, 2]), ints([2, 1, 1]))
    assert counts.target_tokens.tolist() == [3, 3, 1, 2]
    assert counts.prediction_tokens.tolist() == [2, 0, 3, 3]
    assert counts.overlap1.tolist() == [2, 0, 1, 2]  # a min(2, 1) + b 1; nothing; c; a + b
    assert counts.overlap2.tolist() == [1, 0, 0, 1]  # b-a; -; -; a-b
    assert counts.lcs.tolist() == [2, 0, 1, 2]
    empty = document_pair_counts(encode([]), ints([]), ints([]))
    assert empty.lcs.size == empty.overlap1.size == 0
    with pytest.raises(ValueError, match="hold 2 texts, not 7"):
        document_pair_counts(encoded, ints([1]), ints([1]))
