"""Sentence alignment: exact matches, hand-worked TF-IDF cosines, truncated stubs, empty input."""

from __future__ import annotations

import dataclasses
import math

import pytest

from scoring.metrics.align import (
    LOW_CONFIDENCE_THRESHOLD,
    METHOD_EXACT,
    METHOD_TFIDF,
    Alignment,
    align_sentences,
    normalize_space,
    split_on_document_sentences,
)

FRUIT = ("apple banana", "cherry date")


def test_threshold_is_a_similarity():
    assert 0.0 < LOW_CONFIDENCE_THRESHOLD < 1.0


def test_empty_summary_gives_nothing():
    assert align_sentences([], FRUIT) == ()
    assert align_sentences((), ()) == ()


def test_summary_without_document_is_an_error():
    with pytest.raises(ValueError, match="without sentences"):
        align_sentences(["a sentence ."], [])


def test_exact_match_after_white_space_normalisation():
    document = ["first sentence .", "second  sentence\there .", "third ."]
    result = align_sentences(["  second sentence here . ", "first sentence ."], document)
    assert result == (Alignment(1, 1.0, METHOD_EXACT), Alignment(0, 1.0, METHOD_EXACT))


def test_exact_match_is_case_sensitive_and_falls_back_to_tfidf():
    (found,) = align_sentences(["First Sentence ."], ["first sentence .", "other words ."])
    assert found.method == METHOD_TFIDF
    assert found.index == 0
    assert found.similarity == pytest.approx(1.0)


def test_repeated_document_sentence_takes_the_first_unused_occurrence():
    document = ["same text .", "other text here .", "same text ."]
    result = align_sentences(["same text .", "same text ."], document)
    assert [a.index for a in result] == [0, 2]


def test_tfidf_cosine_hand_worked():
    # Vocabulary apple, banana, cherry, date; every idf is equal (each word in one of two
    # sentences), so "apple banana" is (1, 1, 0, 0) / sqrt(2) and "apple" is (1, 0, 0, 0):
    # cosine = 1 / sqrt(2).
    (found,) = align_sentences(["apple"], FRUIT)
    assert found == Alignment(0, pytest.approx(1 / math.sqrt(2)), METHOD_TFIDF)


def test_tfidf_tie_goes_to_the_earliest_sentence():
    # "apple cherry" is (1, 0, 1, 0) / sqrt(2): cosine 1/2 with both sentences.
    (found,) = align_sentences(["apple cherry"], FRUIT)
    assert found.index == 0
    assert found.similarity == pytest.approx(0.5)


def test_no_shared_word_gives_zero_similarity():
    (found,) = align_sentences(["zebra"], FRUIT)
    assert (found.index, found.similarity, found.method) == (0, 0.0, METHOD_TFIDF)


def test_document_without_vocabulary_does_not_crash():
    (found,) = align_sentences(["b"], ["a", "?"])
    assert (found.index, found.similarity) == (0, 0.0)


def test_truncated_sentence_is_matched_to_the_sentence_it_begins():
    document = [
        "since the storm , roads are closed",
        "the storm passed since the morning and the night",
    ]
    # Plain TF-IDF prefers sentence 1 (0.65 against 0.47: "the" occurs three times there), but
    # "since the" is how sentence 0 begins: a sentence cut off by a word limit.
    (found,) = align_sentences(["since the"], document)
    assert found.index == 0
    assert found.method == METHOD_TFIDF
    assert found.similarity == pytest.approx(0.4734, abs=1e-4)


def test_mixed_summary_keeps_order_and_methods():
    document = ["the cat sat on the mat .", "dogs bark at night .", "birds sing at dawn ."]
    result = align_sentences(["birds sing at dawn .", "a dog barks at night"], document)
    assert [a.method for a in result] == [METHOD_EXACT, METHOD_TFIDF]
    assert [a.index for a in result] == [2, 1]
    assert 0.0 < result[1].similarity < 1.0


def test_alignment_is_frozen():
    (found,) = align_sentences(["apple banana"], FRUIT)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.index = 1  # type: ignore[misc]


def test_normalize_space():
    assert normalize_space("  a \t b\n c  ") == "a b c"


def test_split_run_together_extract_with_truncated_tail():
    document = [
        "david harrison is awaiting sentencing",
        "the trio filmed the abuse .",
        "police found a tattoo gun",
    ]
    text = "david harrison is awaiting sentencing the trio filmed the abuse . police found a"
    assert split_on_document_sentences(text, document) == (
        "david harrison is awaiting sentencing",
        "the trio filmed the abuse .",
        "police found a",
    )


def test_split_prefers_the_longest_document_sentence():
    document = ["please stop .", "please stop . ' she cried", "then it ended ."]
    text = "please stop . ' she cried then it ended ."
    assert split_on_document_sentences(text, document) == (
        "please stop . ' she cried",
        "then it ended .",
    )


def test_split_keeps_unmatched_text_between_matches():
    document = ["one two three .", "seven eight ."]
    assert split_on_document_sentences("one two three . four five six seven eight .", document) == (
        "one two three .",
        "four five six",
        "seven eight .",
    )


def test_split_blank_text():
    assert split_on_document_sentences("   ", ["a ."]) == ()
