"""BART's official workbook on the imported PolyTope release (needs ../shared): the acceptance
figures, the official layout of the export, and export -> re-import giving the same spans.

The expected figures come from ../shared/data/polytope-release/PROVENANCE.md ("BART's workbook
gives 89.449 (57 critical, 69 major, 1 minor, 4,341 words over its 68 annotated segments)"),
never from what the import prints. Loupe counts words by ``scoring.metrics.polytope.count_words``
over the stored summaries; the sheet's VBA ``wdct`` counts a few more (see
tests/metrics/test_polytope_reproduction.py), which moves the score by less than 0.01.
"""

import io

import openpyxl
import pytest
from django.core.management import call_command

from annotation.fams.models import AnnotationSet
from annotation.spans.models import SpanAnnotation, output_texts
from annotation.spans.selectors_workbook import span_set_export
from annotation.spans.services_workbook import polytope_workbook_import
from scoring.metrics.polytope import Issue, Segment, Severity, score_system
from tests.conftest import POLYTOPE_OUTPUTS, needs_polytope

BART = POLYTOPE_OUTPUTS.parent / "outputs_with_human_annotation"
BART = BART / "Human_Annotation_Summarization_BART.xlsm"

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.shared,
    needs_polytope,
    pytest.mark.skipif(not BART.is_file(), reason=f"{BART} is absent (the PolyTope release)"),
]

PUBLISHED_SCORE = 89.449
PUBLISHED_COUNTS = {Severity.CRITICAL: 57, Severity.MAJOR: 69, Severity.MINOR: 1}
PUBLISHED_SEGMENTS = 68


@pytest.fixture
def release(capsys):
    call_command(
        "import_dataset",
        str(POLYTOPE_OUTPUTS),
        "--format",
        "polytope-release",
        "--slug",
        "cnndm-polytope",
    )
    capsys.readouterr()
    call_command("import_polytope_workbook", str(BART), "--dataset=cnndm-polytope", "--system=bart")
    return capsys.readouterr().out.splitlines()


def _score(slug: str):
    rows = SpanAnnotation.objects.filter(
        annotation_set__slug=slug, annotation_set__dataset__slug="cnndm-polytope"
    ).select_related("output__document")
    segments = [Segment(str(row.output_id), output_texts(row.output)[0]) for row in rows]
    issues = [Issue(str(r.output_id), e["type"], e["label"]) for r in rows for e in r.errors]
    return score_system(segments, issues)


def _state(slug: str):
    rows = SpanAnnotation.objects.filter(annotation_set__slug=slug)
    return {row.output_id: (row.errors, row.no_errors) for row in rows}


def test_bart_imports_at_the_published_score(release):
    result = _score("polytope-release")
    assert len(result.segments) == PUBLISHED_SEGMENTS
    assert result.severity_counts() == PUBLISHED_COUNTS
    assert result.score == pytest.approx(PUBLISHED_SCORE, abs=0.01)
    assert sum(1 for segment in result.segments if segment.errors == 0) == 13
    annotation_set = AnnotationSet.objects.get(slug="polytope-release")
    assert (annotation_set.kind, annotation_set.scheme) == ("released", "polytope")
    assert set(
        SpanAnnotation.objects.filter(annotation_set=annotation_set).values_list(
            "output__system__slug", flat=True
        )
    ) == {"bart"}
    # The report places every segment; it only notes the two IDs whose Targets Excel's fill
    # series changed on later rows (tests/metrics/test_polytope_reproduction.py explains them).
    assert release[0].startswith("Imported 68 of 68 segment(s) of 'bart'")
    assert release[1].endswith(f"The workbook's ScoreCard LQI: {PUBLISHED_SCORE}.")
    assert release[2] == "Report (5 line(s)):"
    assert [line.split("]")[0] for line in release[3:]] == [
        "  Error Log:51 [ID b166-10",
        "  Error Log:52 [ID b166-10",
        "  Error Log:53 [ID b166-10",
        "  Error Log:66 [ID b121-10",
        "  Error Log:67 [ID b121-10",
    ]
    # "hunter" is twice in b121-10's summary: no span; an Omission's words found once in the
    # source are a source span.
    rows = {
        r.output.document.meta["trial"]: r
        for r in SpanAnnotation.objects.select_related("output__document")
    }
    hunter = [e for e in rows[112].errors if e["type"] == "Inaccuracy Intrinsic"]
    assert [(e["side"], e["words"]) for e in hunter] == [("none", " hunter")]
    summary, source = output_texts(rows[112].output)
    assert summary.count("hunter") == 2
    in_source = [e for r in rows.values() for e in r.errors if e["side"] == "source"]
    assert in_source and all(e["type"] == "Omission" for e in in_source)


def test_the_export_has_bart_workbooks_layout_and_imports_back_identically(release, tmp_path):
    dataset = AnnotationSet.objects.get(slug="polytope-release").dataset
    annotation_set = dataset.annotation_sets.get(slug="polytope-release")
    export = span_set_export(annotation_set=annotation_set, file_format="xlsx")
    ours = openpyxl.load_workbook(io.BytesIO(export.body), read_only=True)
    theirs = openpyxl.load_workbook(BART, read_only=True, data_only=True, keep_vba=False)

    def cells(book, sheet, rows, columns):
        return [
            list(row)
            for row in book[sheet].iter_rows(
                min_row=rows[0], max_row=rows[1], max_col=columns, values_only=True
            )
        ]

    for sheet in ("Error Log", "Scores per segment"):
        assert cells(ours, sheet, (1, 1), 10) == cells(theirs, sheet, (1, 1), 10), sheet
    assert cells(ours, "Severity_Matrix", (1, 10), 10) == cells(
        theirs, "Severity_Matrix", (1, 10), 10
    )
    # The ScoreCard's labels sit in the same cells (its figures are ours: values, no formulas).
    ours_card, theirs_card = (
        cells(ours, "ScoreCard", (1, 36), 12),
        cells(theirs, "ScoreCard", (1, 36), 12),
    )
    labels = [
        (r, c)
        for r, row in enumerate(theirs_card)
        for c, value in enumerate(row)
        # Labels hold letters (not the cached "0" of I8 and I10, nor F8's #REF!).
        if isinstance(value, str) and value[:1].isalpha()
    ]
    assert [ours_card[r][c] for r, c in labels] == [theirs_card[r][c] for r, c in labels]
    assert ours_card[3][8] == pytest.approx(PUBLISHED_SCORE, abs=0.01)  # I4, the LQI
    ours.close()
    theirs.close()

    again = polytope_workbook_import(
        dataset=dataset,
        system_slug="bart",
        source=export.body,
        filename=export.filename,
        set_slug="re-imported",
    )
    assert again.report == ()
    assert _state("re-imported") == _state("polytope-release")
    assert _score("re-imported") == _score("polytope-release")

    out = tmp_path / "bart.jsonl"
    call_command(
        "export_spans",
        str(out),
        "--set=polytope-release",
        "--dataset=cnndm-polytope",
        "--format=jsonl",
    )
    call_command("import_spans", str(out), "--dataset=cnndm-polytope", "--set=from-jsonl")
    assert _state("from-jsonl") == _state("polytope-release")
    assert _score("from-jsonl") == _score("polytope-release")
