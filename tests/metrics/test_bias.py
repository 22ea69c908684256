"""Dataset-bias measures: hand-worked fragments, n-grams, fusion, positions and their means."""

import pytest

from scoring.metrics.bias import (
    BiasError,
    Fragment,
    InvalidOrderError,
    NoItemsError,
    TokensError,
    aggregate,
    aggregate_by,
    fragment_stats,
    greedy_fragments,
    item_bias,
    ngram_stats,
    ngrams,
    sentence_support,
    tokenize,
)
from scoring.metrics.errors import MetricsError


def t(text):
    return text.split()


# --- extractive fragments (Grusky et al. 2018) -------------------------------------------


def test_fragments_hand_worked():
    # "a b" copied from 0, "x" novel, "d e f" copied from 3.
    stats = fragment_stats(t("a b x d e f"), t("a b c d e f"))
    assert stats.fragments == (Fragment(0, 0, 2), Fragment(3, 3, 3))
    assert stats.coverage == pytest.approx(5 / 6)
    assert stats.density == pytest.approx((2**2 + 3**2) / 6)
    assert stats.compression == 1.0
    assert stats.copy_length == 2.5
    assert stats.max_copy_length == 3


def test_newsrooms_scan_resumes_after_a_match_exactly_as_published():
    # At summary position 0 the scan matches "a a" at document 0 and resumes at document 2,
    # so the longer "a a b" at document 1 is never tried: fragments "a a" and "b".
    assert greedy_fragments(t("a a b"), t("a a a b")) == (Fragment(0, 0, 2), Fragment(2, 3, 1))
    stats = fragment_stats(t("a a b"), t("a a a b"))
    assert stats.coverage == 1.0
    assert stats.density == pytest.approx(5 / 3)


def test_first_longest_match_wins_ties():
    assert greedy_fragments(t("p q"), t("p q z p q")) == (Fragment(0, 0, 2),)


def test_fully_copied_summary_has_density_equal_to_its_length_and_no_novel_ngram():
    document = t("the quick brown fox jumps over the lazy dog")
    summary = document[2:7]
    stats = fragment_stats(summary, document)
    assert stats.fragments == (Fragment(0, 2, 5),)
    assert (stats.coverage, stats.density, stats.compression) == (1.0, 5.0, 9 / 5)
    assert ngram_stats(summary, document).novel == (0.0, 0.0, 0.0, 0.0)


def test_empty_summary_and_empty_document():
    stats = fragment_stats([], t("a b"))
    assert stats.fragments == ()
    assert (stats.coverage, stats.density, stats.compression, stats.copy_length) == (0, 0, 0, 0)
    stats = fragment_stats(t("a b"), [])
    assert (stats.coverage, stats.compression, stats.max_copy_length) == (0.0, 0.0, 0)
    assert ngram_stats([], t("a b")) == ngram_stats([], []) == ngram_stats([], [], max_order=4)
    assert ngram_stats([], []).novel == (None,) * 4


def test_tokens_are_compared_as_given():
    assert greedy_fragments(["A"], ["a"]) == ()


@pytest.mark.parametrize("bad", ["a b c", b"a b", 3, ["a", 1]])
def test_bad_token_lists_are_typed_errors(bad):
    with pytest.raises(TokensError) as error:
        fragment_stats(bad, ["a"])
    assert isinstance(error.value, MetricsError)
    assert "summary" in str(error.value)


# --- novel and repeated n-grams ------------------------------------------------------------


def test_novel_and_repeated_ngrams_hand_worked():
    stats = ngram_stats(t("the cat sat the cat"), t("the cat ran"), max_order=6)
    # distinct unigrams the/cat/sat: sat novel; the, cat repeated.
    # distinct bigrams "the cat" (in document, twice), "cat sat", "sat the".
    # trigrams and 4-grams: all distinct and novel; one 5-gram; no 6-gram.
    assert stats.novel == (1 / 3, 2 / 3, 1.0, 1.0, 1.0, None)
    assert stats.repeated == (2 / 3, 1 / 3, 0.0, 0.0, 0.0, None)


def test_ngrams_and_orders():
    assert ngrams(t("a b c"), 2) == [("a", "b"), ("b", "c")]
    assert ngrams(t("a"), 2) == []
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InvalidOrderError):
            ngram_stats(["a"], ["a"], max_order=bad)


# --- fusion and position of the supporting content -----------------------------------------

DOCUMENT = [t("a b c d"), t("e f g h"), t("i j k l")]
SUMMARY = [t("a b c e f g"), t("k l x"), t("i j k l"), t("d e f")]


def test_sentence_support_hand_worked():
    support = sentence_support(SUMMARY, DOCUMENT)
    # "a b c" from sentence 0 + "e f g" from 1: fused; "k l" is shorter than 3 tokens: no
    # source; "i j k l" from 2; "d e f" crosses the 0/1 boundary: both count, fused.
    assert support.sources == ((0, 1), (), (2,), (0, 1))
    assert support.source_counts == (1, 1, 2, 0, 0)
    assert support.fusion == 0.5
    assert support.copied_from == (0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 0, 1, 1)
    # (4 * 0 + 5 * 1/3 + 4 * 2/3) / 13 = 1/3
    assert support.mean_position == pytest.approx(1 / 3)


def test_min_fragment_length_one_counts_every_shared_token():
    support = sentence_support([t("k l x")], DOCUMENT, min_fragment_length=1)
    assert support.sources == ((2,),)
    assert support.fusion == 0.0


def test_sentence_support_empty_and_bad_inputs():
    support = sentence_support([], DOCUMENT)
    assert (support.fusion, support.mean_position, support.sources) == (None, None, ())
    assert sentence_support([t("a b c")], []).sources == ((),)
    with pytest.raises(TokensError, match=r"summary_sentences\[0\]"):
        sentence_support(["a b c"], DOCUMENT)
    with pytest.raises(TokensError):
        sentence_support("a b c", DOCUMENT)
    with pytest.raises(BiasError, match="min_fragment_length"):
        sentence_support(SUMMARY, DOCUMENT, min_fragment_length=0)


# --- one pair, tokenizer, aggregation ------------------------------------------------------


def test_tokenize_is_rouge_scores_without_stemming():
    assert tokenize("He said: U.S. rates rose 2.5%!") == (
        "he",
        "said",
        "u",
        "s",
        "rates",
        "rose",
        "2",
        "5",
    )
    assert tokenize("") == ()
    with pytest.raises(TypeError):
        tokenize(None)


def test_item_bias_joins_the_sentences():
    item = item_bias(SUMMARY, DOCUMENT)
    # Flat summary a b c e f g k l x i j k l d e f (16) against a..l (12): fragments
    # "a b c" (0), "e f g" (4), "k l" (10), "i j k l" (8), "d e f" (3).
    assert [f.length for f in item.fragments.fragments] == [3, 3, 2, 4, 3]
    assert item.fragments.coverage == 15 / 16
    assert item.fragments.density == (9 + 9 + 4 + 16 + 9) / 16
    assert item.ngrams.novel[0] == 1 / 12  # x
    assert item.support.fusion == 0.5


def _pair(summary, document, **kwargs):
    return item_bias([t(summary)], [t(sentence) for sentence in document], **kwargs)


def test_aggregate_hand_worked():
    first = _pair("a b x d e f", ["a b c", "d e f"])  # cov 5/6, dens 13/6, compr 1
    second = _pair("", ["a b"])  # empty summary: newsroom's zeros
    third = _pair("d e f", ["a b c", "d e f"])  # cov 1, dens 3, compr 2
    means = aggregate([first, second, third], bins=2)
    assert means.n_items == 3 and means.n_empty_summaries == 1
    assert means.coverage == pytest.approx((5 / 6 + 0 + 1) / 3)
    assert means.density == pytest.approx((13 / 6 + 0 + 3) / 3)
    assert means.compression == pytest.approx((1 + 0 + 2) / 3)
    assert means.copy_length == pytest.approx((2.5 + 0 + 3) / 3)
    # unigrams: first 1/6 novel (x), third 0; the empty summary is left out.
    assert means.novel[0] == pytest.approx(1 / 12)
    # "d e f" has no 4-gram; the first summary's three 4-grams all hold x.
    assert means.ngram_counts == (2, 2, 2, 1)
    assert means.novel[3] == 1.0
    # fusion: in the first, "a b" is too short to count, so its sentence has one source
    # (sentence 1, via "d e f"): not fused; the third likewise.
    assert means.fusion == 0.0
    # copied tokens: first "d e f" from sentence 1 of 2, third "d e f" likewise.
    assert means.position_histogram == (0.0, 1.0)
    assert means.mean_position == 0.5


def test_histogram_bins_are_exact_at_their_edges():
    document = [[f"w{i}", f"v{i}", f"u{i}"] for i in range(49)]
    item = item_bias([document[1]], document)
    means = aggregate([item], bins=49)  # 1 / 49 * 49 < 1 in floats; the bin is still 1
    assert means.position_histogram[1] == 1.0


def test_aggregate_by_dataset_and_errors():
    a = _pair("a b c", ["a b c"])
    b = _pair("x y", ["a b c"])
    means = aggregate_by([("cnndm", a), ("xsum", b), ("cnndm", b)])
    assert list(means) == ["cnndm", "xsum"]
    assert means["cnndm"].coverage == 0.5 and means["xsum"].coverage == 0.0
    assert means["xsum"].fusion == 0.0 and means["xsum"].mean_position is None
    assert means["xsum"].position_histogram == (0.0,) * 10
    with pytest.raises(NoItemsError):
        aggregate([])
    with pytest.raises(NoItemsError):
        aggregate_by([])
    with pytest.raises(BiasError, match="bins"):
        aggregate([a], bins=0)
    mixed = _pair("a b c", ["a b c"], max_order=2)
    with pytest.raises(BiasError, match="group 'g'.*max_order"):
        aggregate_by([("g", a), ("g", mixed)])


def test_the_readmes_worked_example():
    document = [tokenize("The storm hit the coast on Monday."), tokenize("Thousands lost power.")]
    item = item_bias([tokenize("The storm hit the coast, and thousands lost power.")], document)
    assert item.fragments.fragments == (Fragment(0, 0, 5), Fragment(6, 7, 3))
    assert item.fragments.coverage == pytest.approx(8 / 9)
    assert item.fragments.density == pytest.approx(34 / 9)
    assert item.fragments.compression == pytest.approx(10 / 9)
    assert (item.fragments.copy_length, item.fragments.max_copy_length) == (4.0, 5)
    assert item.ngrams.novel == pytest.approx((1 / 8, 2 / 8, 3 / 7, 4 / 6))
    assert item.ngrams.repeated == pytest.approx((1 / 8, 0, 0, 0))
    assert item.support.sources == ((0, 1),)
    assert item.support.fusion == 1.0
    assert item.support.mean_position == pytest.approx((5 * 0 + 3 * 0.5) / 8)
