"""Span schemes: hand-worked PolyTope and XSum errors, the derived severity and every refusal."""

import pytest

from scoring.metrics.spans import (
    MarkedError,
    SpanSchemeError,
    join_sentences,
    scheme_get,
    scheme_names,
    validate_errors,
)

SUMMARY = join_sentences(["The senator resigned on Monday .", "He denied the claims ."])
SOURCE = join_sentences(["Senator Jo Smith resigned on Monday .", "Police are investigating ."])
POLYTOPE = scheme_get("polytope")
XSUM = scheme_get("xsum-hallucinations")


def test_join_sentences_uses_one_space_and_handles_no_sentence():
    assert SUMMARY == "The senator resigned on Monday . He denied the claims ."
    assert join_sentences([]) == ""


def test_registered_schemes():
    assert scheme_names() == ("polytope", "xsum-hallucinations")
    with pytest.raises(SpanSchemeError, match="unknown span scheme 'mqm'"):
        scheme_get("mqm")


def test_polytope_error_gets_its_severity_from_the_matrix_and_its_words_from_the_span():
    # "Monday" is SUMMARY[24:30]; Inaccuracy Intrinsic x Number & Time is Critical in the matrix.
    (error,) = validate_errors(
        POLYTOPE,
        [
            {
                "side": "summary",
                "start": 24,
                "end": 30,
                "type": "inaccuracy intrinsic",
                "label": "Number&Time",
                "severity": "Minor",  # typed in: ignored, the matrix decides
                "reason": "the source says Sunday",
            }
        ],
        summary=SUMMARY,
        source=SOURCE,
    )
    assert error == MarkedError(
        "summary",
        24,
        30,
        "Monday",
        "Inaccuracy Intrinsic",
        "Number & Time",
        "Critical",
        "the source says Sunday",
    )


def test_omission_lives_in_the_source_and_nowhere_else():
    # "Police are investigating" is SOURCE[38:62]: Omission x Whole Sentence is Critical.
    (error,) = validate_errors(
        POLYTOPE,
        [{"side": "source", "start": 38, "end": 62, "type": "Omission", "label": "Whole Sentence"}],
        summary=SUMMARY,
        source=SOURCE,
    )
    assert (error.words, error.severity) == ("Police are investigating", "Critical")
    with pytest.raises(SpanSchemeError, match="error 1: a Omission error is marked in the source"):
        validate_errors(
            POLYTOPE,
            [{"side": "summary", "start": 0, "end": 3, "type": "Omission", "label": "Subject"}],
            summary=SUMMARY,
            source=SOURCE,
        )
    with pytest.raises(SpanSchemeError, match="Addition error is marked in the summary or none"):
        validate_errors(
            POLYTOPE,
            [{"side": "source", "start": 0, "end": 7, "type": "Addition", "label": "Subject"}],
            summary=SUMMARY,
            source=SOURCE,
        )


def test_issue_words_without_a_span():
    (error,) = validate_errors(
        POLYTOPE,
        [{"side": "none", "words": "denied", "type": "Word Form", "label": "Predicate"}],
        summary=SUMMARY,
        source=None,
    )
    assert (error.start, error.end, error.words, error.severity) == (None, None, "denied", "Minor")


def test_not_allowed_combination_says_why():
    with pytest.raises(SpanSchemeError) as refused:
        validate_errors(
            POLYTOPE,
            [
                {"side": "summary", "start": 0, "end": 3, "type": "Addition", "label": "Subject"},
                {
                    "side": "summary",
                    "start": 4,
                    "end": 11,
                    "type": "Word Order",
                    "label": "Subject",
                },
            ],
            summary=SUMMARY,
            source=SOURCE,
        )
    assert str(refused.value).startswith(
        "error 2: Word Order with the label Subject is N/A in the official severity matrix"
    )
    assert refused.value.index == 1


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"side": "summary", "start": 0, "end": 3, "type": "Typo", "label": "Subject"}, "subtype"),
        ({"side": "summary", "start": 0, "end": 3, "type": "Addition", "label": "Verb"}, "label"),
        ({"side": "summary", "start": 0, "end": 3, "type": "Addition"}, "needs a label"),
        ({"side": "left", "start": 0, "end": 3, "type": "Addition", "label": "Subject"}, "side"),
        (
            {"side": "summary", "start": 5, "end": 5, "type": "Addition", "label": "Subject"},
            "[5, 5)",
        ),
        (
            {"side": "summary", "start": 50, "end": 99, "type": "Addition", "label": "Subject"},
            "outside",
        ),
        (
            {"side": "summary", "start": "0", "end": 3, "type": "Addition", "label": "Subject"},
            "whole",
        ),
        (
            {"side": "summary", "start": True, "end": 3, "type": "Addition", "label": "Subject"},
            "whole",
        ),
        (
            {
                "side": "summary",
                "start": 0,
                "end": 3,
                "words": "Thx",
                "type": "Addition",
                "label": "Subject",
            },
            "not the spanned summary text 'The'",
        ),
        (
            {"side": "none", "start": 0, "end": 3, "type": "Addition", "label": "Subject"},
            "no start",
        ),
        (
            {
                "side": "summary",
                "start": 0,
                "end": 3,
                "type": "Addition",
                "label": "Subject",
                "reason": 7,
            },
            "text",
        ),
        ("Addition", "must be an object"),
    ],
)
def test_refusals_name_the_error_and_the_reason(raw, message):
    with pytest.raises(
        SpanSchemeError, match="error 1: .*" + message.replace("[", r"\[").replace(")", r"\)")
    ):
        validate_errors(POLYTOPE, [raw], summary=SUMMARY, source=SOURCE)


def test_a_source_span_needs_the_source_text():
    with pytest.raises(SpanSchemeError, match="the source text is not available"):
        validate_errors(
            POLYTOPE,
            [{"side": "source", "start": 0, "end": 3, "type": "Omission", "label": "Subject"}],
            summary=SUMMARY,
            source=None,
        )


def test_repeated_span_is_refused_but_repeated_issue_words_are_not():
    same = {"side": "summary", "start": 0, "end": 3, "type": "Addition", "label": "Subject"}
    with pytest.raises(SpanSchemeError, match="error 2: repeats error 1"):
        validate_errors(POLYTOPE, [same, dict(same)], summary=SUMMARY, source=SOURCE)
    words = {"side": "none", "words": "the", "type": "Duplication", "label": "Function Word"}
    assert len(validate_errors(POLYTOPE, [words, dict(words)], summary=SUMMARY, source=None)) == 2


def test_empty_list_is_valid_and_a_non_list_is_not():
    assert validate_errors(POLYTOPE, [], summary=SUMMARY, source=SOURCE) == ()
    with pytest.raises(SpanSchemeError, match="errors must be a list"):
        validate_errors(POLYTOPE, "Addition", summary=SUMMARY, source=SOURCE)


def test_xsum_scheme_has_types_but_no_label_and_no_severity():
    (error,) = validate_errors(
        XSUM, [{"start": 4, "end": 11, "type": "Extrinsic"}], summary=SUMMARY, source=None
    )
    assert (error.words, error.type, error.label, error.severity) == (
        "senator",
        "extrinsic",
        "",
        "",
    )
    with pytest.raises(SpanSchemeError, match="has no labels"):
        validate_errors(
            XSUM,
            [{"start": 4, "end": 11, "type": "intrinsic", "label": "Subject"}],
            summary=SUMMARY,
            source=None,
        )


def test_describe_gives_pages_the_matrix_with_na_as_none():
    described = POLYTOPE.describe()
    assert described["severity"]["Positive-Negative Aspect"]["Subject"] is None
    assert described["severity"]["Addition"]["Subject"] == "Critical"
    assert described["severity"]["Word Form"]["Whole Sentence"] is None
    assert described["sides"]["Omission"] == ["source", "none"]
    assert len(described["types"]) == 8 and len(described["labels"]) == 8
    assert XSUM.describe()["severity"] == {} and XSUM.describe()["labels"] == []
