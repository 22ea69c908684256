"""Word-level faithfulness (Maynez et al. 2020): hand-worked cases, both rules, bad input."""

from __future__ import annotations

import pytest

from scoring.metrics.errors import MetricsError
from scoring.metrics.spans import (
    RULE_INSIDE,
    RULE_OVERLAP,
    Faithfulness,
    FaithfulnessError,
    faithfulness,
    faithfulness_detail,
)
from scoring.metrics.spans.faithfulness import hallucinated_words, summary_words


def test_words_are_white_space_runs_with_their_punctuation():
    assert summary_words("the cat, sat.") == ((0, 3), (4, 8), (9, 13))
    assert summary_words("  two\tspaced \n words ") == ((2, 5), (6, 12), (15, 20))
    assert summary_words("") == ()
    assert summary_words(" \n ") == ()


def test_hand_worked_three_annotators():
    # "a b c d": 4 words. Annotator 1 marks "a" (3 of 4 left: 0.75), annotator 2 nothing (1.0),
    # annotator 3 marks [2, 5) = "b c" (2 of 4 left: 0.5). Mean: (0.75 + 1 + 0.5) / 3 = 0.75.
    result = faithfulness_detail("a b c d", [[(0, 1)], [], [(2, 5)]])
    assert result == Faithfulness(
        score=0.75, words=4, per_annotator=(0.75, 1.0, 0.5), hallucinated=(1, 0, 2)
    )
    assert faithfulness("a b c d", [[(0, 1)], [], [(2, 5)]]) == 0.75


def test_one_annotator_and_a_clean_summary():
    assert faithfulness("all clear here", [[]]) == 1.0
    assert faithfulness("all clear here", [[], [], []]) == 1.0
    assert faithfulness("all wrong here", [[(0, 14)]]) == 0.0


def test_a_span_inside_a_word_marks_it_only_under_overlap():
    summary = "a 24-year-old man died."
    # "24" is [2, 4): part of the word "24-year-old".
    assert faithfulness(summary, [[(2, 4)]]) == 0.75
    assert faithfulness(summary, [[(2, 4)]], RULE_OVERLAP) == 0.75
    assert faithfulness(summary, [[(2, 4)]], RULE_INSIDE) == 1.0


def test_a_span_that_leaves_out_the_full_stop():
    # The release's tconvs2s_37245935: all three workers marked "all images are copyrighted"
    # without the full stop. Its Faithful is 0.25 (the word "copyrighted." is not wholly inside).
    summary = "all images are copyrighted."
    spans = [[(0, 26)], [(0, 26)], [(0, 26)]]
    assert faithfulness(summary, spans, RULE_INSIDE) == 0.25
    assert faithfulness(summary, spans) == 0.0


def test_golden_value_from_the_release():
    # bert_withckpt_39017131: every worker marked "24" [2, 4) and "sheffield street" [49, 65);
    # the release's Faithful is 11/12 ("sheffield" is the one word wholly inside a span).
    summary = "a 24-year-old man has died after being shot in a sheffield street."
    spans = [[(2, 4), (49, 65)]] * 3
    assert faithfulness(summary, spans, RULE_INSIDE) == pytest.approx(11 / 12, abs=1e-12)
    # Touching words: "24-year-old", "sheffield", "street." -> 9 of 12 left.
    assert faithfulness(summary, spans) == pytest.approx(9 / 12, abs=1e-12)


def test_overlapping_and_repeated_spans_count_a_word_once():
    assert faithfulness_detail("a b c", [[(0, 3), (2, 5)]]).hallucinated == (3,)
    assert faithfulness_detail("a b c", [[(0, 1), (0, 1)]]).hallucinated == (1,)
    assert hallucinated_words(((0, 1), (2, 3)), [(0, 3), (1, 2)]) == frozenset({0, 1})


def test_a_span_over_white_space_only_marks_nothing():
    assert faithfulness("a  b", [[(1, 3)]]) == 1.0
    assert faithfulness("a  b", [[(1, 3)]], RULE_INSIDE) == 1.0


def test_inside_needs_the_whole_word():
    words = summary_words("abc def")
    assert hallucinated_words(words, [(0, 3)], RULE_INSIDE) == frozenset({0})
    assert hallucinated_words(words, [(0, 2)], RULE_INSIDE) == frozenset()
    assert hallucinated_words(words, [(1, 5)], RULE_INSIDE) == frozenset()
    assert hallucinated_words(words, [(1, 5)], RULE_OVERLAP) == frozenset({0, 1})
    assert hallucinated_words(words, [(3, 4)], RULE_OVERLAP) == frozenset()


@pytest.mark.parametrize("summary", ["", "   ", "\n\t"])
def test_a_summary_without_words_is_refused(summary):
    with pytest.raises(FaithfulnessError, match="no words"):
        faithfulness(summary, [[]])


def test_no_annotators_is_refused():
    with pytest.raises(FaithfulnessError, match="at least one annotator"):
        faithfulness("a b", [])
    with pytest.raises(FaithfulnessError, match="at least one annotator"):
        faithfulness("a b", "")


@pytest.mark.parametrize(
    ("spans", "message"),
    [
        ([[(1, 1)]], r"annotator 1: span \[1, 1\) is outside the summary"),
        ([[], [(-1, 2)]], r"annotator 2: span \[-1, 2\) is outside"),
        ([[(0, 4)]], r"valid: 0 <= start < end <= 3"),
        ([[(2, 1)]], r"span \[2, 1\)"),
        ([[(0.0, 1)]], "whole numbers"),
        ([[(True, 2)]], "whole numbers"),
        ([[(0, 1, 2)]], r"a \(start, end\) pair"),
        ([["ab"]], r"a \(start, end\) pair"),
        ([[0]], r"a \(start, end\) pair"),
        (["ab"], "annotator 1: spans must be a list"),
        ([None], "annotator 1: spans must be a list"),
    ],
)
def test_bad_spans_are_refused_with_the_annotator(spans, message):
    with pytest.raises(FaithfulnessError, match=message):
        faithfulness("a b", spans)


def test_an_unknown_rule_is_refused():
    with pytest.raises(FaithfulnessError, match="rule must be one of overlap, inside"):
        faithfulness("a b", [[]], "touching")
    with pytest.raises(FaithfulnessError, match="rule must be one of"):
        hallucinated_words(((0, 1),), [], "any")


def test_errors_are_metrics_errors():
    assert issubclass(FaithfulnessError, MetricsError)
    assert issubclass(FaithfulnessError, ValueError)


def test_the_result_is_frozen():
    result = faithfulness_detail("a b", [[]])
    with pytest.raises(AttributeError):
        result.score = 0.0  # type: ignore[misc]
