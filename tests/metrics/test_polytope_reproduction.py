"""PolyTope reproduction on the released BART workbook, read in place from ../shared.

Where the inputs live in ``Human_Annotation_Summarization_BART.xlsm``:

- ``Error Log`` has one row per error (columns A ID, D Target, F Subtypes, G Labels, J
  Severity); the 140 rows with an ID cover 68 segments. A row with no subtype and Severity
  "No errors" marks a clean summary. Rows below the data carry a stray "No errors" formula
  value but no ID, and are ignored.
- The summary text is the ``Target`` column (D). ``Scores per segment`` column C is a formula
  (INDEX/MATCH) that copies the Target of the *first* Error Log row of each ID, so that is the
  text used here. Two IDs (b166-10, b121-10) have Targets that differ between their rows: Excel's
  fill-series incremented a number when rows were dragged ("40,000" -> "40,001" ...; "38" ->
  "39"), which changes no word count.

The expected figures come from ../shared/data/polytope-release/PROVENANCE.md, never from the
workbook's score cells: everything is recomputed from the Error Log's subtype and label (through
the severity matrix kept in the code) and from the summary texts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.metrics.polytope import (
    Issue,
    Segment,
    Severity,
    count_words,
    parse_subtype,
    score_system,
    severity_of,
)
from scoring.metrics.polytope.severity import SHEET_LABELS, SHEET_ROWS

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
RELEASE = SHARED / "polytope-release"
BART = RELEASE / "outputs_with_human_annotation" / "Human_Annotation_Summarization_BART.xlsm"
TEMPLATE = RELEASE / "AnnotationTemplate.xlsm"

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(
        not BART.is_file(), reason=f"{BART} is absent (the public PolyTope release in ../shared)"
    ),
]

# From PROVENANCE.md: "BART's workbook gives 89.449 (57 critical, 69 major, 1 minor, 4,341
# words over its 68 annotated segments)".
PUBLISHED_SCORE = 89.449
PUBLISHED_COUNTS = {Severity.CRITICAL: 57, Severity.MAJOR: 69, Severity.MINOR: 1}
PUBLISHED_WORDS = 4341
PUBLISHED_SEGMENTS = 68

# Error Log columns (0-based).
ID, TARGET, SUBTYPE, LABEL, SEVERITY = 0, 3, 5, 6, 9


@pytest.fixture(scope="module")
def workbook():
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.load_workbook(BART, data_only=True)
    yield book
    book.close()


@pytest.fixture(scope="module")
def error_rows(workbook):
    rows = workbook["Error Log"].iter_rows(min_row=2, values_only=True)
    return [row for row in rows if row[ID] is not None]


@pytest.fixture(scope="module")
def segments(error_rows):
    """One Segment per ID, in sheet order, with the first row's Target as its summary."""
    first: dict[str, str] = {}
    for row in error_rows:
        first.setdefault(str(row[ID]), row[TARGET])
    return [Segment(segment, summary) for segment, summary in first.items()]


@pytest.fixture(scope="module")
def issues(error_rows):
    found = []
    for row in error_rows:
        if row[SUBTYPE] is None and row[LABEL] is None:
            assert row[SEVERITY] == "No errors", row
            continue
        found.append(Issue(str(row[ID]), row[SUBTYPE], row[LABEL]))
    return found


def test_bart_system_score_and_severity_counts(segments, issues):
    result = score_system(segments, issues)
    assert len(result.segments) == PUBLISHED_SEGMENTS
    assert result.severity_counts() == PUBLISHED_COUNTS
    assert result.words == PUBLISHED_WORDS
    assert result.score == pytest.approx(PUBLISHED_SCORE, abs=0.0005)
    assert sum(1 for s in result.segments if s.errors == 0) == 13


def test_matrix_agrees_with_the_sheets_severity_column(error_rows):
    disagreements = [
        (row[ID], row[SUBTYPE], row[LABEL], row[SEVERITY])
        for row in error_rows
        if row[SUBTYPE] is not None and severity_of(row[SUBTYPE], row[LABEL]).value != row[SEVERITY]
    ]
    assert disagreements == []


def test_word_counts_match_the_sheet_for_every_segment(workbook, segments):
    # The sheet's cached wordcount (its VBA wdct), which count_words implements.
    sheet = {
        row[0]: row[3]
        for row in workbook["Scores per segment"].iter_rows(min_row=2, values_only=True)
        if row[0] not in (None, 0)
    }
    differ = {s.id: (s.words, sheet[s.id]) for s in segments if s.words != sheet[s.id]}
    assert differ == {}


def test_the_summary_text_is_the_first_error_log_target(workbook, segments):
    texts = {
        row[0]: row[2]
        for row in workbook["Scores per segment"].iter_rows(min_row=2, values_only=True)
        if row[0] not in (None, 0)
    }
    assert texts == {s.id: s.summary for s in segments}


def _matrix(sheet) -> tuple[tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]]:
    labels = tuple(sheet.cell(2, column).value for column in range(3, 11))
    rows = tuple(
        (sheet.cell(row, 2).value, tuple(sheet.cell(row, column).value for column in range(3, 11)))
        for row in range(3, 11)
    )
    return labels, rows


def test_severity_matrix_literal_equals_the_workbook(workbook):
    sheet = workbook["Severity_Matrix"]
    assert _matrix(sheet) == (SHEET_LABELS, SHEET_ROWS)
    # Column A names the aspect of the block of rows below it (A3 Accuracy, A8 Fluency).
    aspect = None
    for row in range(3, 11):
        aspect = sheet.cell(row, 1).value or aspect
        assert parse_subtype(sheet.cell(row, 2).value).aspect.value == aspect


def test_the_template_matrix_differs_in_one_cell():
    openpyxl = pytest.importorskip("openpyxl")
    if not TEMPLATE.is_file():
        pytest.skip(f"{TEMPLATE} is absent")
    book = openpyxl.load_workbook(TEMPLATE, data_only=True)
    labels, rows = _matrix(book["Severity_Matrix"])
    book.close()
    assert labels[:3] == ("Subject", "Object", "Predicate")
    cells = {
        (subtype, SHEET_LABELS[j]): (cell, ours[1][j])
        for (subtype, cells), ours in zip(rows, SHEET_ROWS, strict=True)
        for j, cell in enumerate(cells)
        if cell != ours[1][j]
    }
    assert cells == {("Inaccuracy_external", "Grammar Function Words"): ("Minor", "N/A")}


def test_word_rule_on_a_release_summary(segments):
    first = segments[0]
    assert first.id == "b383-10"
    assert count_words(first.summary) == 51
