"""Importing PolyTope workbooks built here for the demo: placement, spans, severities, report."""

import io
import os
import subprocess
import sys

import pytest
from django.core.management import call_command

from annotation.corpus.models import Dataset
from annotation.fams.models import AnnotationSet
from annotation.imports.bundle import ImportValidationError
from annotation.spans.models import SpanAnnotation, output_texts
from annotation.spans.services import SpanRecord, span_annotations_replace
from annotation.spans.services_workbook import polytope_workbook_import
from scoring.metrics.polytope import count_words
from tests.conftest import ROOT, _test_database_url
from tests.spans.workbook_helpers import (
    Formula,
    build_workbook,
    demo_output,
    row,
    source_of,
    target_of,
)

pytestmark = pytest.mark.django_db


def _import(dataset, data, system="demo-abs", **options):
    return polytope_workbook_import(
        dataset=dataset, system_slug=system, source=data, filename="book.xlsx", **options
    )


def _lines(result):
    return [str(line) for line in result.report]


@pytest.fixture
def outputs(demo):
    return {doc: demo_output("demo-abs", doc) for doc in ("demo-001", "demo-002", "demo-003")}


@pytest.fixture
def book(outputs):
    first, second, third = outputs["demo-001"], outputs["demo-002"], outputs["demo-003"]
    t1, s1 = target_of(first), source_of(first)
    return build_workbook(
        [
            # Row 2: words that occur once in the summary become a summary span.
            row("x1", t1, "Addition", "Place&Name", "Kestrel Street", "Major", source=s1),
            # Row 3: an Omission's words found once in the source become a source span.
            row(
                "x1",
                t1,
                "Omission",
                "Whole Sentence",
                "The decision ends a four-year dispute over the site",
                "Critical",
                source=s1,
                n=2,
            ),
            # Row 4: the sheet says Major, the matrix says Critical (stored and counted).
            row("x1", t1, "Inaccuracy_internal", "Number&Time", "six", "Major", n=3),
            # Row 5: an N/A combination: not stored.
            row("x1", t1, "Word_Form", "Whole Sentence", "Work", "N/A", n=4),
            # Row 6: an empty Severity: the sheet does not count it, so neither does Loupe.
            row("x1", t1, "Addition", "Event Entity-Subject", "councillors", None, n=5),
            # Row 7: words that occur several times: no span.
            row("x1", t1, "Duplication", "Grammar Function Words", "and", "Minor", n=6),
            # Row 8: a clean summary.
            row("x2", target_of(second), severity="No errors"),
            # Row 9: an invalid segment: left out.
            row(
                "x3",
                target_of(third),
                "Target",
                None,
                None,
                "Invalid",
                issue_type="Invalid_Segment",
            ),
            # Row 10: words without an ID.
            row(None, None, "Addition", "Attribute", "lost", "Major"),
            # Row 11: the official sheets' stray formula value below the data.
            [None] * 9 + ["No errors"],
        ]
    )


def test_a_workbook_is_placed_spanned_and_reported(dataset, outputs, book):
    result = _import(dataset, book)
    assert (result.segments, result.placed, result.with_errors, result.clean) == (2, 2, 1, 1)
    assert result.annotation_set == "polytope-release" and result.set_created
    annotation_set = AnnotationSet.objects.get(dataset=dataset, slug="polytope-release")
    assert (annotation_set.kind, annotation_set.scheme, annotation_set.read_only) == (
        "released",
        "polytope",
        True,
    )
    first = SpanAnnotation.objects.get(annotation_set=annotation_set, output=outputs["demo-001"])
    summary, source = output_texts(outputs["demo-001"])
    kestrel = summary.index("Kestrel Street")
    dispute = source.index("The decision ends")
    six = summary.index(" six ") + 1
    assert first.errors == [
        {
            "side": "summary",
            "start": kestrel,
            "end": kestrel + 14,
            "words": "Kestrel Street",
            "type": "Addition",
            "label": "Place & Name",
            "severity": "Major",
            "reason": "",
        },
        {
            "side": "source",
            "start": dispute,
            "end": dispute + 51,
            "words": "The decision ends a four-year dispute over the site",
            "type": "Omission",
            "label": "Whole Sentence",
            "severity": "Critical",
            "reason": "",
        },
        {
            "side": "summary",
            "start": six,
            "end": six + 3,
            "words": "six",
            "type": "Inaccuracy Intrinsic",
            "label": "Number & Time",
            "severity": "Critical",
            "reason": "",
        },
        {
            "side": "none",
            "start": None,
            "end": None,
            "words": "and",
            "type": "Duplication",
            "label": "Function Word",
            "severity": "Minor",
            "reason": "",
        },
    ]
    assert not first.no_errors
    second = SpanAnnotation.objects.get(annotation_set=annotation_set, output=outputs["demo-002"])
    assert second.errors == [] and second.no_errors
    assert not SpanAnnotation.objects.filter(output=outputs["demo-003"]).exists()
    assert result.severities == {"critical": 2, "major": 1, "minor": 1}
    assert _lines(result) == [
        "Error Log:4 [ID x1]: Severity Major differs from the matrix (Inaccuracy_internal x "
        "Number&Time is Critical): stored as Critical and counted so; the sheet counts Major",
        "Error Log:5 [ID x1]: Word_Form x Whole Sentence is N/A in the severity matrix: not "
        "stored, not counted; the sheet does not count it either (Severity 'N/A')",
        "Error Log:6 [ID x1]: Severity is empty, so the sheet does not count the row: not "
        "stored, not counted (Addition x Event Entity-Subject is Critical; --keep-uncounted "
        "stores it)",
        "Error Log:9 [ID x3]: marks the Target invalid: the segment is not imported (Loupe has "
        "no invalid mark; the ScoreCard scores an invalid Target -150 and leaves an invalid "
        "Source out)",
        "Error Log:10: no ID: skipped (the sheet's scores ignore it)",
    ]


def test_the_score_is_pooled_over_the_placed_segments(dataset, outputs, book):
    result = _import(dataset, book, dry_run=True)
    words = sum(count_words(output_texts(outputs[d])[0]) for d in ("demo-001", "demo-002"))
    # Penalty: two critical (5 each), one major (2.5) and one minor (0.5): 13 words' worth.
    assert result.words == words
    assert result.score == pytest.approx(100 * (1 - 13 / words))
    assert result.dry_run and not AnnotationSet.objects.filter(slug="polytope-release").exists()


def test_keep_uncounted_stores_a_row_with_an_empty_severity(dataset, outputs, book):
    result = _import(dataset, book, keep_uncounted=True)
    assert result.severities == {"critical": 3, "major": 1, "minor": 1}
    assert (
        "Error Log:6 [ID x1]: Severity is empty, so the sheet does not count the row; stored "
        "as Critical and counted (--keep-uncounted)" in _lines(result)
    )


def test_strict_refuses_any_report_line_and_writes_nothing(dataset, book):
    with pytest.raises(ImportValidationError) as refused:
        _import(dataset, book, strict=True)
    assert len(refused.value.issues) == 5
    assert str(refused.value.issues[0]).endswith("(refused: --strict)")
    assert (
        not SpanAnnotation.objects.exists()
        and not AnnotationSet.objects.filter(slug="polytope-release").exists()
    )


def test_an_uncached_severity_formula_uses_the_matrix_and_says_so(dataset, outputs):
    t1 = target_of(outputs["demo-001"])
    data = build_workbook(
        [
            row(
                "x1",
                t1,
                "Addition",
                "Attribute",
                "old",
                Formula("=INDEX(Severity_Matrix!C3:J10,1,6)"),
            ),
            row("x1", t1, "Addition", "Place&Name", "Kestrel Street", Formula("=1+1"), n=2),
        ]
    )
    result = _import(dataset, data)
    assert result.severities == {"critical": 0, "major": 2, "minor": 0}
    assert _lines(result) == [
        "Error Log [Severity]: 2 row(s) (2, 3) have a Severity formula without a cached value "
        "(the file was saved by a program that computes nothing); the matrix severity is "
        "stored and counted"
    ]


def test_ids_name_documents_and_text_decides(dataset, outputs):
    """An ID of Loupe's form (document id, '-', system) or the release's <trial>-<n> only
    hints: the Target decides, and a disagreement is reported."""
    second = target_of(outputs["demo-002"])
    data = build_workbook([row("demo-001-demo-abs", second, severity="No errors")])
    result = _import(dataset, data)
    assert _lines(result) == [
        "Error Log:2 [ID demo-001-demo-abs]: placed by its Target on demo-002; the ID suggests "
        "demo-001"
    ]
    assert SpanAnnotation.objects.get(output=outputs["demo-002"]).no_errors


def test_a_slightly_different_target_is_placed_by_word_overlap_and_kept(dataset, outputs):
    """The annotators judged the Target: it is kept as the annotated text, its spans index it
    and its words are counted, and the report says how it differs from the stored summary."""
    summary = " ".join(outputs["demo-001"].sentences)
    changed = summary.replace("a new public", "the new public")
    n = len(summary.split())
    data = build_workbook(
        [
            row("a", target_of(outputs["demo-002"]), severity="No errors"),
            row("b", changed, "Addition", "Grammar Function Words", "the new", "Minor"),
        ]
    )
    result = _import(dataset, data)
    # Dice over word counts: one "a" became "the", so (n - 1) of n words are shared.
    assert _lines(result) == [
        f"Error Log:3 [ID b]: the Target differs from the stored summary of demo-001 (word "
        f"overlap {(n - 1) / n:.2f}); the Target is kept as the annotated text: its spans and "
        "its words count",
        f"Error Log [Target]: the 2 Targets against the stored summaries: 1 equal, 1 different "
        f"(word overlap {(n - 1) / n:.2f}); where they differ, the Target (what the annotators "
        "judged) is kept, spanned and counted",
    ]
    row_b = SpanAnnotation.objects.get(output=outputs["demo-001"])
    assert row_b.annotated_text == changed
    (error,) = row_b.errors
    assert (error["start"], error["words"]) == (changed.index("the new"), "the new")
    assert SpanAnnotation.objects.get(output=outputs["demo-002"]).annotated_text == ""


def test_word_counts_and_ids_that_differ_from_the_sheets_scores_per_segment_are_reported(
    dataset, outputs
):
    """What the ScoreCard pools over is the IDs and word counts cached in 'Scores per
    segment': where Loupe counts otherwise, the report says so, segment by segment."""
    t1, t2 = target_of(outputs["demo-001"]), target_of(outputs["demo-002"])
    words = count_words(" ".join(outputs["demo-001"].sentences))
    data = build_workbook(
        [row("a", t1, severity="No errors"), row("b", t2, severity="No errors")],
        segment_words={"a": words + 2, "zz": 7},
    )
    result = _import(dataset, data)
    assert _lines(result) == [
        f"Error Log:2 [ID a]: the sheet counts {words + 2} words in the Target, Loupe {words}",
        "Error Log:3 [ID b]: 'Scores per segment' does not list this ID, so the ScoreCard leaves "
        f"it out; Loupe counts it ({count_words(' '.join(outputs['demo-002'].sentences))} words)",
    ]


def test_repeated_span_becomes_no_span_and_loupe_span_columns_are_used(dataset, outputs):
    summary, _ = output_texts(outputs["demo-001"])
    headers = [
        "ID",
        "#error",
        "Source",
        "Target",
        "Issue Types",
        "Subtypes",
        "Labels",
        "Issue Words",
        "Reason for Error (optional)",
        "Severity",
        "Annotator",
        "System",
        "Span Side",
        "Span Start",
        "Span End",
    ]
    t1 = target_of(outputs["demo-001"])
    the = summary.index("the old")
    data = build_workbook(
        [
            row("x", t1, "Addition", "Place&Name", "Kestrel Street", "Major"),
            row("x", t1, "Addition", "Place&Name", "Kestrel Street", "Major", n=2),
            # An exported span: "the" occurs several times, the columns say which one.
            row("x", t1, "Addition", "Grammar Function Words", "the", "Minor", n=3)
            + [None, "demo-abs", "summary", the, the + 3],
            # Another system's rows in a multi-system export are skipped.
            row("y", t1, "Addition", "Attribute", "old", "Major") + [None, "lead-3"],
        ],
        headers=headers,
    )
    result = _import(dataset, data)
    errors = SpanAnnotation.objects.get(output=outputs["demo-001"]).errors
    assert [(e["side"], e["start"], e["words"]) for e in errors] == [
        ("summary", summary.index("Kestrel"), "Kestrel Street"),
        ("none", None, "Kestrel Street"),
        ("summary", the, "the"),
    ]
    assert _lines(result) == [
        "Error Log:3 [ID x]: repeats row 2's error on the same span; kept without a span",
        "Error Log [System]: 1 row(s) of system 'lead-3' skipped (importing 'demo-abs')",
    ]


def test_importing_a_system_replaces_only_its_own_rows(dataset, outputs, users):
    annotation_set = AnnotationSet.objects.create(
        dataset=dataset, slug="polytope-release", name="r", kind="released", scheme="polytope"
    )
    lead = demo_output("lead-3", "demo-001")
    span_annotations_replace(
        annotation_set=annotation_set,
        records=[
            SpanRecord(output_id=lead.pk, errors=(), no_errors=True),
            SpanRecord(output_id=outputs["demo-003"].pk, errors=(), no_errors=True),
        ],
        output_ids=[lead.pk, outputs["demo-003"].pk],
    )
    data = build_workbook([row("a", target_of(outputs["demo-001"]), severity="No errors")])
    result = _import(dataset, data, user=users["admin"])
    assert not result.set_created
    rows = SpanAnnotation.objects.filter(annotation_set=annotation_set)
    # demo-abs's demo-003 row is gone (the workbook replaces the system's rows); lead-3's stays.
    assert sorted(rows.values_list("output_id", flat=True)) == sorted(
        [lead.pk, outputs["demo-001"].pk]
    )
    assert rows.get(output=outputs["demo-001"]).revisions.get().author == users["admin"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"ID,Target\nx,y\n",
            "book.xlsx: is not an Excel workbook (.xlsx or .xlsm): it is not a zip archive",
        ),
        (
            bytes.fromhex("d0cf11e0a1b11ae1") + bytes(512),
            "book.xlsx: is not an Excel workbook (.xlsx or .xlsm): it is an old .xls or a "
            "password-protected workbook; save it unprotected as .xlsx or .xlsm",
        ),
        (
            lambda: _zip({"hello.txt": b"hi"}),
            "book.xlsx: is not an Excel workbook (.xlsx or .xlsm): the archive has no "
            "xl/workbook.xml",
        ),
        (
            lambda: _zip({"xl/workbook.xml": b"<not-xml", "[Content_Types].xml": b"<x/>"}),
            "book.xlsx: cannot be read as a workbook: ",
        ),
        (
            lambda: build_workbook([["x"]], sheet="Errors", other_sheets=["ScoreCard"]),
            "book.xlsx: has no sheet named 'Error Log' (sheets: Errors, ScoreCard); is it a "
            "PolyTope annotation workbook?",
        ),
        (
            lambda: build_workbook(
                [["x", 1, "s", "t"]], headers=["ID", "#error", "Source", "Target"]
            ),
            "Error Log:1 [headers]: missing column(s) Subtypes, Labels, Issue Words, Severity in "
            "row 1 (found: ID, #error, Source, Target); the official Error Log starts with ID, "
            "#error, Source, Target, Issue Types, Subtypes, Labels, Issue Words, Reason for Error "
            "(optional), Severity",
        ),
        (
            lambda: build_workbook([]),
            "book.xlsx: the Error Log holds no segment to import (no row with an ID)",
        ),
    ],
    ids=[
        "not-a-zip",
        "xls-or-encrypted",
        "zip-not-workbook",
        "broken-xml",
        "no-error-log",
        "missing-headers",
        "empty",
    ],
)
def test_malformed_workbooks_are_refused_clearly_and_write_nothing(dataset, demo, data, message):
    with pytest.raises(ImportValidationError) as refused:
        _import(dataset, data() if callable(data) else data)
    assert [str(issue) for issue in refused.value.issues][0].startswith(message)
    assert not AnnotationSet.objects.filter(scheme="polytope").exists()


def _zip(members: dict) -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_wrong_system_wrong_dataset_and_unknown_system_are_refused(dataset, outputs):
    data = build_workbook([row("x", target_of(outputs["demo-001"]), severity="No errors")])
    with pytest.raises(ImportValidationError) as refused:
        _import(dataset, data, system="lead-3")
    assert [str(i) for i in refused.value.issues] == [
        "book.xlsx: the Target of only 0 of its 1 segment(s) is equal to, a prefix of, longer "
        "than or close to (word overlap 0.9 or more) a summary of the system on this dataset: "
        "is it the workbook of another system or dataset?"
    ]
    with pytest.raises(ImportValidationError) as refused:
        _import(dataset, data, system="no-such-system")
    assert [str(i) for i in refused.value.issues] == ["book.xlsx: unknown system 'no-such-system'"]
    other = Dataset.objects.create(slug="other", name="Other")
    with pytest.raises(ImportValidationError) as refused:
        _import(other, data)
    assert [str(i) for i in refused.value.issues] == [
        "book.xlsx: system 'demo-abs' has no outputs on dataset 'other'"
    ]
    assert not AnnotationSet.objects.filter(scheme="polytope").exists()


def test_a_set_of_another_kind_and_two_ids_on_one_output_are_refused(dataset, outputs):
    AnnotationSet.objects.create(
        dataset=dataset, slug="mine", name="m", kind="human", scheme="polytope"
    )
    t1 = target_of(outputs["demo-001"])
    data = build_workbook([row("a", t1, severity="No errors"), row("b", t1, severity="No errors")])
    with pytest.raises(ImportValidationError) as refused:
        _import(dataset, data, set_slug="mine")
    assert [str(i) for i in refused.value.issues] == [
        "book.xlsx: annotation set 'mine' is a human set; this import writes released sets only"
    ]
    with pytest.raises(ImportValidationError) as refused:
        _import(dataset, data)
    assert [str(i) for i in refused.value.issues] == [
        "Error Log:3 [ID b]: holds the same summary (demo-001) as ID a (row 2); one output "
        "takes one annotation: remove one of them"
    ]


def test_rows_of_several_annotators_in_one_id_are_refused(dataset, outputs):
    t1 = target_of(outputs["demo-001"])
    headers = [
        *["ID", "#error", "Source", "Target", "Issue Types", "Subtypes", "Labels"],
        *["Issue Words", "Reason for Error (optional)", "Severity", "Annotator"],
    ]
    data = build_workbook(
        [
            row("a", t1, "Addition", "Attribute", "old", "Major") + ["ann"],
            row("a", t1, "Addition", "Attribute", "new", "Major", n=2) + ["bob"],
        ],
        headers=headers,
    )
    with pytest.raises(ImportValidationError) as refused:
        _import(dataset, data)
    assert [str(i) for i in refused.value.issues] == [
        "Error Log:2 [ID a]: rows of several annotators (ann, bob): a released set holds one "
        "annotation per summary; split the workbook by annotator"
    ]


def test_the_command_prints_the_report_and_a_refusal_exits_1(
    dataset, outputs, book, tmp_path, capsys
):
    path = tmp_path / "Human_Annotation_Demo.xlsx"
    path.write_bytes(book)
    call_command("import_polytope_workbook", str(path), "--dataset=demo", "--system=demo-abs")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "Imported 2 of 2 segment(s) of 'demo-abs' on 'demo' into new set 'polytope-release': "
        "1 with errors, 1 without; 4 error(s) from 8 row(s)."
    )
    words = sum(count_words(output_texts(outputs[d])[0]) for d in ("demo-001", "demo-002"))
    assert out[1] == (
        f"PolyTope over the imported segments: {100 * (1 - 13 / words):.3f} (2 critical, "
        f"1 major, 1 minor; {words} words). The workbook's ScoreCard LQI: not cached."
    )
    assert out[2] == "Report (5 line(s)):" and len(out) == 8


@pytest.mark.django_db(transaction=True)
def test_a_refused_import_exits_1_with_every_problem_on_stderr(tmp_path):
    Dataset.objects.create(slug="cli", name="CLI")
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"not a workbook")
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "import_polytope_workbook",
            "--dataset=cli",
            "--system=nobody",
            str(bad),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "SECRET_KEY": "t", "DATABASE_URL": _test_database_url()},
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "  bad.xlsx: unknown system 'nobody'\n"
        "  bad.xlsx: is not an Excel workbook (.xlsx or .xlsm): it is not a zip archive\n"
        "CommandError: Import refused: 2 problem(s) (listed above); nothing was written.\n"
    )
