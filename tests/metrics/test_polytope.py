"""PolyTope: taxonomy, severity matrix, word count, hand-worked scores, typed errors and the CLI."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

import scoring.metrics.cli as cli
from scoring.metrics.errors import MetricsError
from scoring.metrics.polytope import (
    LABELS,
    SEVERITY_MATRIX,
    SUBTYPES,
    WEIGHTS,
    Aspect,
    Breakdown,
    CombinationNotAllowedError,
    DuplicateExpectedSegmentError,
    DuplicateSegmentError,
    EmptySummaryError,
    Issue,
    Label,
    MissingSegmentsError,
    NoSegmentsError,
    PolyTopeError,
    PolytopeSegmentScore,
    Segment,
    Severity,
    Subtype,
    UnexpectedSegmentError,
    UnknownLabelError,
    UnknownSegmentError,
    UnknownSubtypeError,
    breakdown,
    count_words,
    is_allowed,
    parse_label,
    parse_subtype,
    polytope_score,
    score_segment,
    score_system,
    severity_of,
)
from scoring.metrics.stats import bootstrap_ratio_ci, paired_ratio_permutation_test

TEN_WORDS = "one two three four five six seven eight nine ten ."


# --- taxonomy -------------------------------------------------------------------------------


def test_eight_subtypes_under_two_aspects_with_official_names():
    assert [s.value for s in Subtype if s.aspect is Aspect.ACCURACY] == [
        "Addition",
        "Omission",
        "Inaccuracy Intrinsic",
        "Inaccuracy Extrinsic",
        "Positive-Negative Aspect",
    ]
    assert [s.value for s in Subtype if s.aspect is Aspect.FLUENCY] == [
        "Word Order",
        "Duplication",
        "Word Form",
    ]


def test_eight_labels_with_official_names():
    assert [label.value for label in Label] == [
        "Subject",
        "Object",
        "Predicate",
        "Number & Time",
        "Place & Name",
        "Attribute",
        "Function Word",
        "Whole Sentence",
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Inaccuracy_internal", Subtype.INACCURACY_INTRINSIC),
        ("inaccuracy intrinsic", Subtype.INACCURACY_INTRINSIC),
        ("Inacc Extrinsic", Subtype.INACCURACY_EXTRINSIC),
        ("Inaccuracy Extrinsic ", Subtype.INACCURACY_EXTRINSIC),
        ("Positive_Negative_Aspect", Subtype.POSITIVE_NEGATIVE_ASPECT),
        ("Grammar - Word Order", Subtype.WORD_ORDER),
        ("Word_From", Subtype.WORD_FORM),
        ("WORD_FORM", Subtype.WORD_FORM),
        (Subtype.OMISSION, Subtype.OMISSION),
    ],
)
def test_subtype_workbook_spellings(name, expected):
    assert parse_subtype(name) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Event Entity-Subject", Label.SUBJECT),
        ("Event Entity-Object", Label.OBJECT),
        ("Event Relation-Predicate", Label.PREDICATE),
        ("Number&Time", Label.NUMBER_TIME),
        ("place & name", Label.PLACE_NAME),
        ("Grammar Function Words", Label.FUNCTION_WORD),
        ("Function Word ", Label.FUNCTION_WORD),
        (Label.WHOLE_SENTENCE, Label.WHOLE_SENTENCE),
    ],
)
def test_label_workbook_spellings(name, expected):
    assert parse_label(name) is expected


@pytest.mark.parametrize("name", ["Omision", "", "Accuracy", None, 3])
def test_unknown_subtype_is_named(name):
    with pytest.raises(UnknownSubtypeError, match="unknown subtype") as caught:
        parse_subtype(name)
    assert caught.value.name == name
    assert isinstance(caught.value, PolyTopeError)


@pytest.mark.parametrize("name", ["Verb", "Whole", None])
def test_unknown_label_is_named(name):
    with pytest.raises(UnknownLabelError, match=re.escape(repr(name))):
        parse_label(name)


# --- severity matrix ------------------------------------------------------------------------


def test_weights():
    assert WEIGHTS == {Severity.MINOR: 0.5, Severity.MAJOR: 2.5, Severity.CRITICAL: 5.0}
    assert [s.weight for s in (Severity.MINOR, Severity.MAJOR, Severity.CRITICAL)] == [
        0.5,
        2.5,
        5.0,
    ]


def test_matrix_covers_every_pair_and_has_15_not_allowed_cells():
    assert set(SEVERITY_MATRIX) == {(s, label) for s in Subtype for label in Label}
    not_allowed = {(s.value, label.value) for (s, label), v in SEVERITY_MATRIX.items() if v is None}
    assert len(not_allowed) == 15
    assert ("Inaccuracy Extrinsic", "Function Word") in not_allowed
    assert ("Word Form", "Whole Sentence") in not_allowed
    assert ("Positive-Negative Aspect", "Subject") in not_allowed
    with pytest.raises(TypeError):
        SEVERITY_MATRIX[Subtype.OMISSION, Label.SUBJECT] = Severity.MINOR  # read-only


@pytest.mark.parametrize(
    ("subtype", "label", "expected"),
    [
        ("Omission", "Whole Sentence", Severity.CRITICAL),
        ("Addition", "Whole Sentence", Severity.MAJOR),
        ("Addition", "Function Word", Severity.MINOR),
        ("Omission", "Place & Name", Severity.MAJOR),
        ("Inaccuracy_internal", "Event Entity-Subject", Severity.CRITICAL),
        ("Positive-Negative Aspect", "Predicate", Severity.CRITICAL),
        ("Word Order", "Attribute", Severity.MAJOR),
        ("Duplication", "Whole Sentence", Severity.MAJOR),
        ("Word Form", "Number & Time", Severity.MINOR),
    ],
)
def test_matrix_cells(subtype, label, expected):
    assert severity_of(subtype, label) is expected
    assert is_allowed(subtype, label)


def test_not_allowed_combination_names_subtype_and_label():
    assert not is_allowed("Word_Form", "Whole Sentence")
    with pytest.raises(CombinationNotAllowedError) as caught:
        severity_of("Word_Form", "Whole Sentence", index=4)
    error = caught.value
    assert (error.subtype, error.label, error.index) == ("Word Form", "Whole Sentence", 4)
    assert "'Word Form'" in str(error) and "'Whole Sentence'" in str(error)
    with pytest.raises(CombinationNotAllowedError, match="Positive-Negative Aspect"):
        Issue("s1", "Positive_Negative_Aspect", "Number&Time")


# --- word count -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", 0),
        ("   \n\t ", 0),
        (". , -- `` '' ... ! ?", 0),
        ("hello .", 1),
        ("hello.", 1),
        ("alzheimer 's disease", 3),
        ("an 84-year-old man , 2-0 up", 5),
        # The workbook's wdct: ":" joins nothing, and "." before a letter ends a word.
        ("12:30 am in d.c.", 6),
        ("don't u.s 1,000 3.5 3-pointers", 6),
        ("rock_n_roll a--b x' 'tis", 5),
        ("naïve résumé", 4),
        ("`` quoted '' words", 2),
        ("line one .\nline\ttwo .", 4),
        ("café über 17.2%", 3),
        ("$5 ( 3 )", 2),
    ],
)
def test_word_count(text, words):
    assert count_words(text) == words


# --- hand-worked scores ---------------------------------------------------------------------


def test_segment_score_hand_worked():
    # 10 words (the final "." is no word); one critical (5) + one minor (0.5) = 5.5;
    # (1 - 5.5 / 10) * 100 = 45.
    segment = Segment("a", TEN_WORDS)
    issues = [Issue("a", "Omission", "Whole Sentence"), Issue("a", "Addition", "Function Word")]
    result = score_segment(segment, issues)
    assert result == PolytopeSegmentScore("a", words=10, critical=1, major=0, minor=1)
    assert result.penalty == 5.5
    assert result.score == 45.0
    assert result.errors == 2


def test_clean_segment_scores_100():
    assert score_segment(Segment("b", "x y"), []).score == 100.0


def test_system_score_is_pooled_over_words_not_a_mean():
    # a: 10 words, penalty 2.5 (one major) -> 75.0; b: 2 words, "No errors" -> 100.
    # Pooled: (1 - 2.5 / 12) * 100 = 79.1666...; the mean of segment scores would be 87.5.
    result = score_system(
        [Segment("a", TEN_WORDS), Segment("b", "x y")],
        [Issue("a", "Addition", "Whole Sentence")],
    )
    assert [s.score for s in result.segments] == [75.0, 100.0]
    assert result.words == 12
    assert result.penalty == 2.5
    assert result.score == pytest.approx(100 * (1 - 2.5 / 12))
    assert result.score != pytest.approx(87.5)
    summary = result.as_dict()
    assert summary["clean_segments"] == 1
    assert summary["severity_counts"] == {"critical": 0, "major": 1, "minor": 0}
    assert summary["aspect_counts"] == {"Accuracy": 1, "Fluency": 0}
    assert summary["breakdown"]["Addition"]["Whole Sentence"] == 1


def test_score_can_go_below_zero_as_in_the_formula():
    # 2 words, one critical: (1 - 5 / 2) * 100 = -150.
    result = score_segment(Segment("s", "two words"), [Issue("s", "Omission", "Subject")])
    assert result.score == -150.0


def test_polytope_score_refuses_zero_words():
    with pytest.raises(ValueError, match="positive"):
        polytope_score(0.0, 0)


def test_breakdown_counts():
    issues = [
        Issue("a", "Omission", "Whole Sentence"),
        Issue("a", "Omission", "Whole Sentence"),
        Issue("b", "Duplication", "Attribute"),
        Issue("b", "Word Form", "Function Word"),
        Issue("c", "Inaccuracy Intrinsic", "Number & Time"),
    ]
    counts = breakdown(issues)
    assert counts.count(Subtype.OMISSION, Label.WHOLE_SENTENCE) == 2
    assert counts.count(Subtype.DUPLICATION, Label.ATTRIBUTE) == 1
    assert counts.total == 5
    assert counts.by_aspect() == {Aspect.ACCURACY: 3, Aspect.FLUENCY: 2}
    assert counts.by_severity() == {Severity.CRITICAL: 3, Severity.MAJOR: 1, Severity.MINOR: 1}
    assert counts.by_label()[Label.WHOLE_SENTENCE] == 2
    assert counts.by_subtype()[Subtype.WORD_FORM] == 1
    as_dict = counts.as_dict()
    assert as_dict["severities"] == {"critical": 3, "major": 1, "minor": 1}
    assert as_dict["matrix"]["Inaccuracy Intrinsic"]["Number & Time"] == 1
    assert len(as_dict["matrix"]) == len(SUBTYPES) == 8
    assert all(len(row) == len(LABELS) == 8 for row in as_dict["matrix"].values())


def test_breakdown_refuses_a_count_in_a_not_allowed_cell():
    rows = [[0] * 8 for _ in range(8)]
    rows[SUBTYPES.index(Subtype.WORD_FORM)][LABELS.index(Label.WHOLE_SENTENCE)] = 1
    with pytest.raises(CombinationNotAllowedError, match="Word Form"):
        Breakdown(tuple(map(tuple, rows)))
    with pytest.raises(ValueError, match="8 x 8"):
        Breakdown(((0,),))


def test_values_are_frozen():
    issue = Issue("a", "Omission", "Subject")
    assert issue.subtype is Subtype.OMISSION and issue.severity is Severity.CRITICAL
    assert issue.aspect is Aspect.ACCURACY
    with pytest.raises(dataclasses.FrozenInstanceError):
        issue.segment = "b"
    with pytest.raises(dataclasses.FrozenInstanceError):
        Segment("a", "text").summary = "other"


# --- typed errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("summary", ["", "  ", ". , ! --"])
def test_empty_summary_names_the_segment(summary):
    with pytest.raises(EmptySummaryError, match="segment 'doc-7': empty summary") as caught:
        Segment("doc-7", summary)
    assert caught.value.segment == "doc-7"


def test_segment_ids_are_strings():
    with pytest.raises(TypeError, match="segment id"):
        Segment(7, "text")
    with pytest.raises(TypeError, match="segment id"):
        Issue(7, "Omission", "Subject")


def test_unknown_subtype_and_label_in_an_issue():
    with pytest.raises(UnknownSubtypeError, match="'Grammar'"):
        Issue("a", "Grammar", "Subject")
    with pytest.raises(UnknownLabelError, match="'Verb'"):
        Issue("a", "Omission", "Verb")


def test_error_on_an_unknown_segment_is_named_with_its_position():
    with pytest.raises(UnknownSegmentError, match="unknown segment 'zzz'") as caught:
        score_system(
            [Segment("a", TEN_WORDS)],
            [Issue("a", "Omission", "Subject"), Issue("zzz", "Omission", "Subject")],
        )
    assert (caught.value.segment, caught.value.index) == ("zzz", 1)
    with pytest.raises(UnknownSegmentError, match="'b'"):
        score_segment(Segment("a", TEN_WORDS), [Issue("b", "Omission", "Subject")])


def test_duplicate_segment_and_no_segments():
    with pytest.raises(DuplicateSegmentError, match="duplicate segment 'a'") as caught:
        score_system([Segment("a", "x"), Segment("b", "y"), Segment("a", "z")], [])
    assert (caught.value.index, caught.value.first) == (2, 0)
    with pytest.raises(NoSegmentsError):
        score_system([], [])


# --- coverage: expected segments -----------------------------------------------------------

# a: 10 words, one major (2.5); b: 2 words, clean; c: 10 words, one critical (5).
SEGMENTS = [Segment("a", TEN_WORDS), Segment("b", "x y"), Segment("c", TEN_WORDS)]
ISSUES = [Issue("a", "Addition", "Whole Sentence"), Issue("c", "Omission", "Whole Sentence")]


def test_full_coverage_with_expected():
    result = score_system(SEGMENTS, ISSUES, expected=["c", "b", "a"])
    assert (result.n_expected, result.n_scored, result.missing, result.coverage) == (3, 3, (), 1.0)
    assert result.score == score_system(SEGMENTS, ISSUES).score == polytope_score(7.5, 22)
    assert result.as_dict()["coverage"] == {
        "scored": 3,
        "expected": 3,
        "ratio": 1.0,
        "missing": [],
    }


def test_without_expected_the_given_segments_are_the_expected_ones():
    result = score_system(SEGMENTS, ISSUES)
    assert (result.n_expected, result.missing, result.coverage) == (3, (), 1.0)


def test_missing_segments_are_an_error_naming_them():
    with pytest.raises(MissingSegmentsError) as caught:
        score_system(SEGMENTS[:1], ISSUES[:1], expected=["a", "b", "c"])
    error = caught.value
    assert isinstance(error, PolyTopeError) and isinstance(error, MetricsError)
    assert (error.missing, error.n_expected) == (("b", "c"), 3)
    message = str(error)
    assert "no summary for 2 of 3 expected segments ('b', 'c')" in message
    assert "coverage would be 1/3" in message and "allow_partial=True" in message


def test_a_clean_segment_is_not_missing():
    # b has no issue at all: it is a "No errors" segment, scored 100, and counts its words.
    result = score_system(SEGMENTS, ISSUES[:1], expected=["a", "b", "c"])
    assert result.missing == () and result.segments[1].score == 100.0
    assert result.words == 22


def test_partial_coverage_is_reported_and_scores_only_the_covered_segments():
    result = score_system(
        [SEGMENTS[2], SEGMENTS[0]], ISSUES, expected=["a", "b", "c", "d"], allow_partial=True
    )
    assert result.missing == ("b", "d")  # in the expected order
    assert (result.n_scored, result.n_expected, result.coverage) == (2, 4, 0.5)
    assert [s.segment for s in result.segments] == ["c", "a"]  # input order
    assert result.words == 20 and result.penalty == 7.5
    assert result.score == polytope_score(7.5, 20) == 62.5
    coverage = result.as_dict()["coverage"]
    assert coverage == {"scored": 2, "expected": 4, "ratio": 0.5, "missing": ["b", "d"]}


def test_a_long_list_of_missing_segments_is_shortened():
    expected = ["a"] + [f"m{i}" for i in range(12)]
    with pytest.raises(MissingSegmentsError, match=r"'m9' and 2 more\); coverage would be 1/13"):
        score_system(SEGMENTS[:1], [], expected=expected)


def test_segments_that_are_not_expected_are_an_error():
    with pytest.raises(UnexpectedSegmentError) as caught:
        score_system(SEGMENTS, ISSUES, expected=["a"], allow_partial=True)
    error = caught.value
    assert (error.segment, error.index, error.segments) == ("b", 1, ("b", "c"))
    assert "segment 'b' is not among the expected segments (2 unexpected: 'b', 'c')" in str(error)


def test_expected_segments_are_checked():
    with pytest.raises(DuplicateExpectedSegmentError) as caught:
        score_system(SEGMENTS, ISSUES, expected=["a", "b", "c", "b"])
    assert isinstance(caught.value, DuplicateSegmentError)
    assert (caught.value.segment, caught.value.index, caught.value.first) == ("b", 3, 1)
    assert "duplicate segment 'b' in the expected segments" in str(caught.value)
    with pytest.raises(NoSegmentsError, match="no segment is expected"):
        score_system(SEGMENTS, ISSUES, expected=[])
    with pytest.raises(TypeError, match="strings"):
        score_system(SEGMENTS, ISSUES, expected=["a", "b", 3])
    with pytest.raises(TypeError, match="not one string"):
        score_system(SEGMENTS, ISSUES, expected="abc")


def test_no_covered_segment_has_no_score_even_when_partial_is_allowed():
    with pytest.raises(MissingSegmentsError):
        score_system([], [], expected=["a", "b"])
    with pytest.raises(NoSegmentsError, match="coverage 0/2"):
        score_system([], [], expected=["a", "b"], allow_partial=True)


def test_an_error_on_a_missing_segment_is_still_an_unknown_segment():
    with pytest.raises(UnknownSegmentError, match="'c'") as caught:
        score_system(SEGMENTS[:2], ISSUES, expected=["a", "b", "c"], allow_partial=True)
    assert caught.value.index == 1


# --- ratio terms: the pooled score's statistics -------------------------------------------


def test_ratio_terms_are_each_segments_penalty_and_words():
    result = score_system(SEGMENTS, ISSUES)
    terms = result.ratio_terms()
    assert terms == {"a": (2.5, 10), "b": (0.0, 2), "c": (5.0, 10)}
    penalties, words = zip(*terms.values(), strict=True)
    assert polytope_score(sum(penalties), sum(words)) == result.score


def test_ratio_terms_feed_the_ratio_interval_and_the_paired_tests():
    result = score_system(SEGMENTS, ISSUES)
    penalties, words = zip(*result.ratio_terms().values(), strict=True)
    ci = bootstrap_ratio_ci(penalties, words)
    assert ci.ratio == result.penalty / result.words
    low, high = 100 * (1 - ci.high), 100 * (1 - ci.low)
    assert low <= result.score <= high
    clean = score_system(SEGMENTS, [])
    test = paired_ratio_permutation_test(result.ratio_terms(), clean.ratio_terms())
    assert -100 * test.statistic == pytest.approx(result.score - clean.score)
    # Swapping b (clean in both) changes nothing; of the patterns of a and c, only "neither"
    # and "both" reach |d|: 2 * 2 of the 8 patterns.
    assert test.exact and test.p_value == 4 / 8


# --- CLI ------------------------------------------------------------------------------------


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """``run_cli(args) -> (status, stdout, stderr)`` for the polytope command alone.

    Only the polytope module is registered, so these tests do not depend on the other
    commands' modules.
    """
    assert "polytope" in cli.COMMAND_MODULES
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("polytope",))

    def run(*args: str) -> tuple[int, str, str]:
        status = cli.main(["polytope", *args])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    errors = _write(
        tmp_path / "errors.jsonl",
        [
            {"segment": "a", "subtype": "Omission", "label": "Whole Sentence"},
            {"segment": "a", "subtype": "Addition", "label": "Function Word"},
        ],
    )
    segments = _write(
        tmp_path / "segments.jsonl",
        [{"segment": "a", "summary": TEN_WORDS}, {"segment": 7, "summary": "x y"}],
    )
    return errors, segments


def test_cli_json(run_cli, files):
    errors, segments = files
    status, out, err = run_cli("--errors", errors, "--segments", segments)
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert [s["segment"] for s in result["segments"]] == ["a", "7"]
    assert result["segments"][0] == {
        "segment": "a",
        "words": 10,
        "critical": 1,
        "major": 0,
        "minor": 1,
        "penalty": 5.5,
        "score": 45.0,
    }
    assert result["segments"][1]["score"] == 100.0
    system = result["system"]
    assert system["score"] == pytest.approx(100 * (1 - 5.5 / 12))
    assert system["words"] == 12
    assert system["severity_counts"] == {"critical": 1, "major": 0, "minor": 1}
    assert system["errors"] == 2 and system["segments"] == 2 and system["clean_segments"] == 1


def test_cli_table(run_cli, files):
    errors, segments = files
    status, out, _ = run_cli("--errors", errors, "--segments", segments, "--table")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "segment",
        "words",
        "critical",
        "major",
        "minor",
        "penalty",
        "score",
    ]
    assert lines[1].split() == ["a", "10", "1", "0", "1", "5.5", "45.000"]
    assert lines[-2].split() == ["(system)", "12", "1", "0", "1", "5.5", "54.167"]
    assert lines[-1].split() == ["(coverage)", "2/2"]


def test_cli_no_errors_file_lines_means_all_clean(run_cli, files, tmp_path):
    _, segments = files
    empty = tmp_path / "none.jsonl"
    empty.write_text("\n", encoding="utf-8")
    status, out, _ = run_cli("--errors", str(empty), "--segments", segments)
    assert status == 0
    assert json.loads(out)["system"]["score"] == 100.0


def test_cli_help_documents_both_formats(run_cli, capsys):
    with pytest.raises(SystemExit):
        cli.main(["polytope", "--help"])
    text = capsys.readouterr().out
    assert '{"segment": "doc-1", "subtype": "Omission", "label": "Whole Sentence"}' in text
    assert '{"segment": "doc-1", "summary":' in text
    assert "Inaccuracy Intrinsic" in text and "Number & Time" in text


@pytest.mark.parametrize(
    ("which", "records", "message"),
    [
        ("errors", [{"segment": "a", "subtype": "Omision", "label": "Subject"}], "unknown subtype"),
        ("errors", [{"segment": "a", "subtype": "Omission", "label": "Verb"}], "unknown label"),
        ("errors", [{"segment": "a", "subtype": "Word Form", "label": "Whole Sentence"}], "N/A"),
        ("errors", [{"segment": "nope", "subtype": "Omission", "label": "Subject"}], "unknown"),
        ("errors", [{"segment": "a", "subtype": "Omission"}], "missing field 'label'"),
        ("errors", [{"segment": True, "subtype": "Omission", "label": "Subject"}], "'segment'"),
        ("segments", [{"segment": "b", "summary": " . , "}], "empty summary"),
        ("segments", [{"segment": "a", "summary": "again"}], "duplicate segment 'a'"),
        ("segments", [{"segment": "b", "summary": ["list"]}], "'summary' must be str"),
    ],
)
def test_cli_bad_input_names_file_and_line(run_cli, tmp_path, which, records, message):
    good_errors = [{"segment": "a", "subtype": "Omission", "label": "Subject"}]
    good_segments = [{"segment": "a", "summary": TEN_WORDS}]
    errors = good_errors + (records if which == "errors" else [])
    segments = good_segments + (records if which == "segments" else [])
    errors_path = _write(tmp_path / "e.jsonl", errors)
    segments_path = _write(tmp_path / "s.jsonl", segments)
    status, out, err = run_cli("--errors", errors_path, "--segments", segments_path)
    assert status == 2 and out == ""
    bad_file = errors_path if which == "errors" else segments_path
    assert err.startswith(f"error: {bad_file}:2: ")
    assert message in err


def test_cli_invalid_json_missing_file_and_no_segments(run_cli, tmp_path, files):
    errors, segments = files
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"segment": "a"}\n{oops\n', encoding="utf-8")
    status, _, err = run_cli("--errors", str(broken), "--segments", segments)
    assert status == 2 and f"{broken}:2: invalid JSON" in err
    status, _, err = run_cli("--errors", errors, "--segments", str(tmp_path / "absent.jsonl"))
    assert status == 2 and "file not found" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    status, _, err = run_cli("--errors", str(empty), "--segments", str(empty))
    assert status == 2 and f"{empty}: no segments" in err


# --- CLI: coverage --------------------------------------------------------------------------


@pytest.fixture
def three(tmp_path):
    """ERRORS and SEGMENTS for a and 7, and EXPECTED listing a, 7 and c."""
    errors = _write(
        tmp_path / "errors.jsonl",
        [{"segment": "a", "subtype": "Omission", "label": "Whole Sentence"}],
    )
    segments = _write(
        tmp_path / "segments.jsonl",
        [{"segment": "a", "summary": TEN_WORDS}, {"segment": 7, "summary": "x y"}],
    )
    expected = _write(
        tmp_path / "expected.jsonl",
        [{"segment": "a"}, {"segment": 7, "summary": "ignored"}, {"segment": "c"}],
    )
    return errors, segments, expected


def test_cli_missing_segment_is_an_error_naming_it(run_cli, three):
    errors, segments, expected = three
    status, out, err = run_cli("--errors", errors, "--segments", segments, "--expected", expected)
    assert status == 2 and out == ""
    assert err.startswith(f"error: {segments}: no summary for 1 of 3 expected segments ('c')")
    assert "--allow-partial" in err and expected in err


def test_cli_allow_partial_reports_the_coverage(run_cli, three):
    errors, segments, expected = three
    args = ("--errors", errors, "--segments", segments, "--expected", expected, "--allow-partial")
    status, out, err = run_cli(*args)
    assert (status, err) == (0, "")
    system = json.loads(out)["system"]
    assert system["coverage"] == {"scored": 2, "expected": 3, "ratio": 2 / 3, "missing": ["c"]}
    assert system["score"] == pytest.approx(100 * (1 - 5 / 12))
    status, out, _ = run_cli(*args, "--table")
    assert out.splitlines()[-1].split() == ["(coverage)", "2/3"]


def test_cli_full_coverage_and_no_expected_file(run_cli, three):
    errors, segments, _ = three
    status, out, _ = run_cli("--errors", errors, "--segments", segments)
    assert status == 0
    assert json.loads(out)["system"]["coverage"]["missing"] == []
    status, _, err = run_cli("--errors", errors, "--segments", segments, "--allow-partial")
    assert status == 2 and "--allow-partial needs --expected" in err


@pytest.mark.parametrize(
    ("records", "which", "message"),
    [
        ([{"segment": "a"}, {"segment": 7}, {"segment": "a"}], "expected", ":3: duplicate "),
        ([{"segment": "a"}, {"id": 7}], "expected", ":2: missing field 'segment'"),
        ([{"segment": "a"}], "segments", ":2: segment '7' is not among the expected"),
        ([], "expected", ": no segments: a system score needs at least one summary (no segment"),
    ],
)
def test_cli_bad_expected_names_file_and_line(run_cli, three, tmp_path, records, which, message):
    errors, segments, _ = three
    expected = _write(tmp_path / "bad-expected.jsonl", records)
    status, _, err = run_cli(
        "--errors", errors, "--segments", segments, "--expected", expected, "--allow-partial"
    )
    assert status == 2
    assert err.startswith(f"error: {expected if which == 'expected' else segments}{message}")
