"""Word-level faithfulness (Maynez et al. 2020): hand-worked cases, both rules, bad input."""

from __future__ import annotations

import json

import pytest

from scoring.metrics import cli
from scoring.metrics.errors import MetricsError
from scoring.metrics.spans import (
    DEFAULT_RULE,
    RULE_DESCRIPTIONS,
    RULE_INSIDE,
    RULE_OVERLAP,
    Faithfulness,
    FaithfulnessError,
    faithfulness,
    faithfulness_detail,
)
from scoring.metrics.spans.faithfulness import hallucinated_words, summary_words


def test_the_rules_are_named_and_described():
    assert set(RULE_DESCRIPTIONS) == {RULE_INSIDE, RULE_OVERLAP} == {"inside", "overlap"}
    assert "release" in RULE_DESCRIPTIONS[RULE_INSIDE]
    assert "touches" in RULE_DESCRIPTIONS[RULE_OVERLAP]


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
    # "24" is [2, 4): part of the word "24-year-old". The default is the release's rule.
    assert DEFAULT_RULE == RULE_INSIDE
    assert faithfulness(summary, [[(2, 4)]]) == 1.0
    assert faithfulness(summary, [[(2, 4)]], RULE_INSIDE) == 1.0
    assert faithfulness(summary, [[(2, 4)]], RULE_OVERLAP) == 0.75


def test_a_span_that_leaves_out_the_full_stop():
    # The release's tconvs2s_37245935: all three workers marked "all images are copyrighted"
    # without the full stop. Its Faithful is 0.25 (the word "copyrighted." is not wholly inside).
    summary = "all images are copyrighted."
    spans = [[(0, 26)], [(0, 26)], [(0, 26)]]
    assert faithfulness(summary, spans, RULE_INSIDE) == 0.25
    assert faithfulness(summary, spans) == 0.25
    assert faithfulness(summary, spans, RULE_OVERLAP) == 0.0


def test_golden_value_from_the_release():
    # bert_withckpt_39017131: every worker marked "24" [2, 4) and "sheffield street" [49, 65);
    # the release's Faithful is 11/12 ("sheffield" is the one word wholly inside a span).
    summary = "a 24-year-old man has died after being shot in a sheffield street."
    spans = [[(2, 4), (49, 65)]] * 3
    assert faithfulness(summary, spans, RULE_INSIDE) == pytest.approx(11 / 12, abs=1e-12)
    assert faithfulness(summary, spans) == pytest.approx(11 / 12, abs=1e-12)
    # Touching words: "24-year-old", "sheffield", "street." -> 9 of 12 left.
    assert faithfulness(summary, spans, RULE_OVERLAP) == pytest.approx(9 / 12, abs=1e-12)


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
    with pytest.raises(FaithfulnessError, match="rule must be one of inside, overlap"):
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


# ---------------------------------------------------------------- the command line


GOLDEN = {
    "id": "bert_withckpt_39017131",
    "summary": "a 24-year-old man has died after being shot in a sheffield street.",
    "spans": [[[2, 4], [49, 65]]] * 3,
}


def _cli(args, capsys):
    status = cli.main(["faithfulness", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_cli_scores_by_the_releases_rule_unless_asked_for_overlap(tmp_path, capsys):
    path = tmp_path / "summaries.jsonl"
    clean = {"id": "clean", "summary": "all clear here", "spans": [[], []]}
    path.write_text("\n".join(json.dumps(r) for r in (GOLDEN, clean)) + "\n")
    status, out, _ = _cli(["--summaries", str(path)], capsys)
    assert status == 0
    golden, other = (json.loads(line) for line in out.splitlines())
    # The release's Faithful for this summary is 11/12 (see test_golden_value_from_the_release).
    assert golden["rule"] == "inside"
    assert golden["score"] == pytest.approx(11 / 12, abs=1e-12)
    assert (golden["words"], golden["hallucinated"]) == (12, [1, 1, 1])
    assert (other["id"], other["score"], other["per_annotator"]) == ("clean", 1.0, [1.0, 1.0])
    status, out, _ = _cli(["--summaries", str(path), "--rule", "overlap"], capsys)
    touched = json.loads(out.splitlines()[0])
    assert touched["rule"] == "overlap" and touched["score"] == pytest.approx(9 / 12, abs=1e-12)
    status, out, _ = _cli(["--summaries", str(path), "--table"], capsys)
    lines = out.splitlines()
    assert lines[0].split() == ["id", "words", "score", "annotator", "1", "annotator", "2",
                                "annotator", "3"]  # fmt: skip
    assert lines[1].split() == ["bert_withckpt_39017131", "12", "0.9167", "0.9167", "0.9167",
                                "0.9167"]  # fmt: skip
    assert lines[2].split() == ["clean", "3", "1.0000", "1.0000", "1.0000"]


def test_the_cli_names_the_line_of_bad_input(tmp_path, capsys):
    path = tmp_path / "summaries.jsonl"
    path.write_text(json.dumps(GOLDEN) + "\n" + json.dumps({**GOLDEN, "spans": [[[0, 99]]]}))
    status, _, err = _cli(["--summaries", str(path)], capsys)
    assert status == 2 and "summaries.jsonl:2: annotator 1: span [0, 99) is outside" in err
    path.write_text(json.dumps({"summary": "a b", "spans": "a"}) + "\n")
    status, _, err = _cli(["--summaries", str(path)], capsys)
    assert status == 2 and "'spans' must be a list" in err
    path.write_text(json.dumps({"summary": "a b"}) + "\n")
    status, _, err = _cli(["--summaries", str(path)], capsys)
    assert status == 2 and "missing key 'spans'" in err
    with pytest.raises(SystemExit):
        cli.main(["faithfulness", "--summaries", str(path), "--rule", "touching"])


def test_the_cli_help_names_both_rules(capsys):
    with pytest.raises(SystemExit):
        cli.main(["faithfulness", "--help"])
    text = capsys.readouterr().out
    for rule, description in RULE_DESCRIPTIONS.items():
        assert rule in text and description[:40] in " ".join(text.split())
