"""ROUGE engine: hand-worked scores, empty texts, stemming, all-pairs matrices and streaming."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from rouge_score.tokenizers import DefaultTokenizer

from scoring.metrics.rouge import (
    MEASURES,
    PRF,
    ROUGE_TYPES,
    AllPairs,
    PairScores,
    PRFMatrix,
    RougeConfig,
    allpairs,
    allpairs_dataset,
    score_pair,
    tokenize,
)
from scoring.metrics.rouge import tokens as tokens_module

# What the all-pairs engine computes, as one pair's configuration.
ALLPAIRS = RougeConfig(ROUGE_TYPES)


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r)


def test_hand_worked_pair():
    # target     "the cat sat on the mat": the cat sat on the mat      (6 tokens, 5 bigrams)
    # prediction "The cat on the mat."   : the cat on the mat          (5 tokens, 4 bigrams)
    # ROUGE-1 overlap: the min(2,2)=2 + cat 1 + on 1 + mat 1 = 5 -> P 5/5, R 5/6, F 10/11.
    # ROUGE-2: target {the-cat, cat-sat, sat-on, on-the, the-mat}, prediction {the-cat,
    #   cat-on, on-the, the-mat}: overlap 3 -> P 3/4, R 3/5, F 2/3.
    # ROUGE-L: the prediction is a subsequence of the target, LCS 5 -> P 1, R 5/6, F 10/11.
    scores = score_pair("the cat sat on the mat", "The cat on the mat.")
    assert scores.rouge1 == PRF(1.0, 5 / 6, f1(1.0, 5 / 6))
    assert scores.rouge1.fmeasure == pytest.approx(10 / 11, abs=1e-15)
    assert scores.rouge2 == PRF(3 / 4, 3 / 5, f1(3 / 4, 3 / 5))
    assert scores.rouge2.fmeasure == pytest.approx(2 / 3, abs=1e-15)
    assert scores.rougeL == PRF(1.0, 5 / 6, f1(1.0, 5 / 6))


def test_hand_worked_clipping_and_direction():
    # target "a a a b" (4 tokens), prediction "a b b" (3 tokens).
    # ROUGE-1: a min(3,1)=1 + b min(1,2)=1 = 2 -> P 2/3 (of the prediction), R 2/4, F 4/7.
    # ROUGE-2: target {a-a x2, a-b}, prediction {a-b, b-b}: overlap 1 -> P 1/2, R 1/3, F 2/5.
    # ROUGE-L: "a b" -> 2 -> P 2/3, R 1/2, F 4/7.
    scores = score_pair("a a a b", "a b b")
    assert (scores.rouge1.precision, scores.rouge1.recall) == (2 / 3, 2 / 4)
    assert scores.rouge1.fmeasure == pytest.approx(4 / 7, abs=1e-15)
    assert (scores.rouge2.precision, scores.rouge2.recall) == (1 / 2, 1 / 3)
    assert scores.rouge2.fmeasure == pytest.approx(2 / 5, abs=1e-15)
    assert (scores.rougeL.precision, scores.rougeL.recall) == (2 / 3, 1 / 2)
    # Swapping the texts swaps precision and recall.
    swapped = score_pair("a b b", "a a a b")
    for name in ROUGE_TYPES:
        assert getattr(swapped, name).precision == getattr(scores, name).recall
        assert getattr(swapped, name).recall == getattr(scores, name).precision


def test_lcs_is_a_subsequence_not_a_substring():
    # "a b c d e" vs "a x c y e": the LCS is "a c e" (3), no common bigram.
    scores = score_pair("a b c d e", "a x c y e")
    assert scores.rougeL.recall == 3 / 5
    assert scores.rouge2 == PRF(0.0, 0.0, 0.0)


@pytest.mark.parametrize("empty", ["", "   ", "!!! ...", "\u00e9\u00e8 \u4e2d\u6587", "\n\t"])
def test_texts_without_tokens_score_zero_never_nan(empty):
    assert tokenize(empty) == ()
    zero = PairScores(*[PRF(0.0, 0.0, 0.0)] * 4, types=("rouge1", "rouge2", "rougeL", "rougeLsum"))
    assert score_pair(empty, "a real sentence") == zero
    assert score_pair("a real sentence", empty) == zero
    assert score_pair(empty, empty) == zero
    result = allpairs([empty, "a real sentence"], [empty, "a real sentence", ""])
    for name in ROUGE_TYPES:
        for measure in MEASURES:
            matrix = getattr(result, name).measure(measure)
            assert np.isfinite(matrix).all()
            assert (
                (matrix[0] == 0).all() and (matrix[:, 0] == 0).all() and (matrix[:, 2] == 0).all()
            )
    assert result.rouge1.fmeasure[1, 1] == 1.0


def test_one_token_texts_have_no_bigram():
    scores = score_pair("Cats", "cat")
    assert scores.rouge1 == PRF(1.0, 1.0, 1.0)  # both stem to "cat"
    assert scores.rouge2 == PRF(0.0, 0.0, 0.0)
    assert scores.rougeL == PRF(1.0, 1.0, 1.0)


def test_stemming_and_tokenization():
    # Expected tokens as rouge-score's DefaultTokenizer(use_stemmer=True) gives them.
    assert tokenize("The runners were running to the organizations") == (
        "the",
        "runner",
        "were",
        "run",
        "to",
        "the",
        "organ",
    )
    assert tokenize("skies dying lying news") == ("sky", "die", "lie", "news")  # NLTK's pool
    assert tokenize("was has ies") == ("was", "has", "ies")  # 3 letters or fewer: not stemmed
    assert tokenize("state-of-the-art don't 3.14 U.S.") == (
        "state",
        "of",
        "the",
        "art",
        "don",
        "t",
        "3",
        "14",
        "u",
        "s",
    )
    # Non-ASCII letters split words; the Kelvin sign lower-cases to an ASCII k.
    assert tokenize("na\u00efve caf\u00e9 \u212aelvin") == ("na", "ve", "caf", "kelvin")


def test_tokenize_rejects_non_strings():
    with pytest.raises(TypeError, match="bytes"):
        tokenize(b"bytes")
    with pytest.raises(TypeError):
        score_pair("text", None)


def test_stem_cache_is_bounded_and_stays_correct(monkeypatch):
    monkeypatch.setattr(tokens_module, "STEM_CACHE_SIZE", 5)
    tokens_module.clear_stem_cache()
    words = [f"walking{i}s" for i in range(20)] + ["running", "organizations"]
    text = " ".join(words)
    assert list(tokenize(text)) == DefaultTokenizer(use_stemmer=True).tokenize(text)
    assert len(tokens_module._STEMS) <= 5
    tokens_module.clear_stem_cache()
    assert tokens_module._STEMS == {}


def test_allpairs_shape_orientation_and_pairs():
    facets = ["the cat sat on the mat", "a a a b"]
    sentences = ["The cat on the mat.", "a b b", "", "cats sit"]
    result = allpairs(facets, sentences)
    assert isinstance(result, AllPairs)
    assert result.shape == (2, 4)
    for name in ROUGE_TYPES:
        for measure in MEASURES:
            matrix = getattr(result, name).measure(measure)
            assert matrix.dtype == np.float64 and matrix.shape == (2, 4)
    for i, facet in enumerate(facets):
        for j, sentence in enumerate(sentences):
            assert result.pair(i, j) == score_pair(facet, sentence, ALLPAIRS)
    assert result.rouge1.recall[0, 0] == 5 / 6  # facet 0 is the target of the hand-worked case


def test_avg_f_is_the_mean_of_the_three_f_measures():
    result = allpairs(["the cat sat on the mat"], ["The cat on the mat."])
    # Hand-worked above: F1 10/11, F2 2/3, FL 10/11.
    assert result.avg_f()[0, 0] == pytest.approx((10 / 11 + 2 / 3 + 10 / 11) / 3, abs=1e-15)
    assert result.avg_f().shape == (1, 1)


def test_results_are_immutable():
    result = allpairs(["a b"], ["a b"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.rouge1 = result.rouge2
    with pytest.raises(ValueError, match="read-only"):
        result.rouge1.fmeasure[0, 0] = 0.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        score_pair("a", "a").rouge1.precision = 0.0
    with pytest.raises(ValueError, match="unknown measure"):
        result.rouge1.measure("f1")
    assert isinstance(result.rougeL, PRFMatrix)


@pytest.mark.parametrize(
    ("facets", "sentences", "shape"),
    [([], ["a b"], (0, 1)), (["a b"], [], (1, 0)), ([], [], (0, 0)), ([""], [""], (1, 1))],
)
def test_allpairs_empty_sides(facets, sentences, shape):
    result = allpairs(facets, sentences)
    assert result.shape == shape
    assert result.avg_f().shape == shape
    assert not np.isnan(result.avg_f()).any()


def test_allpairs_rejects_a_single_string_or_non_strings():
    with pytest.raises(TypeError, match="not a single str"):
        allpairs("one facet", ["a sentence"])
    with pytest.raises(TypeError, match=r"sentences\[1\] must be a str"):
        allpairs(["a facet"], ["a sentence", 3])


def test_repeated_and_long_sentences_match_score_pair():
    # Longer than 64 tokens (RapidFuzz's multi-word bit-parallel path) and heavy repetition.
    long_a = " ".join(["alpha beta gamma"] * 30 + ["delta"] * 10)
    long_b = " ".join(["gamma beta alpha delta"] * 25)
    result = allpairs([long_a, long_b], [long_b, long_a, "alpha " * 70])
    for i, facet in enumerate([long_a, long_b]):
        for j, sentence in enumerate([long_b, long_a, "alpha " * 70]):
            assert result.pair(i, j) == score_pair(facet, sentence, ALLPAIRS)


@pytest.mark.parametrize("batch", [1, 2])
def test_allpairs_dataset_streams_lazily(batch):
    """Documents are pulled one batch at a time: at most ``batch`` before the first result."""
    pulled = []

    def documents():
        for number in range(3):
            pulled.append(number)
            yield f"doc-{number}", [f"facet {number}"], ["sentence one", f"facet {number}"]

    stream = allpairs_dataset(documents(), batch=batch)
    doc_id, result = next(stream)
    assert (doc_id, pulled) == ("doc-0", list(range(batch)))
    assert result.rouge1.fmeasure[0, 1] == 1.0
    assert [doc for doc, _ in stream] == ["doc-1", "doc-2"]
    assert pulled == [0, 1, 2]


def test_allpairs_dataset_errors_name_the_document():
    with pytest.raises(TypeError, match="document 'bad'"):
        list(allpairs_dataset([("bad", ["facet"], [None])]))
    with pytest.raises(ValueError, match=r"\(doc_id, facets, sentences\)"):
        list(allpairs_dataset([("only-two", ["facet"])]))
