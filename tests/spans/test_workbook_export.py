"""Exports: the official layout, escaped text, round trips (xlsx and JSONL), the APIs."""

import io
import json

import openpyxl
import pytest
from django.core.management import call_command

from annotation.campaigns.services import polytope_campaign_create
from annotation.fams.models import AnnotationSet
from annotation.imports.bundle import ImportValidationError
from annotation.spans.models import SpanAnnotation, output_texts
from annotation.spans.selectors_workbook import span_set_export
from annotation.spans.services import SpanRecord, span_annotations_replace
from annotation.spans.services_workbook import polytope_workbook_import, span_jsonl_import
from scoring.metrics.polytope import Issue, Segment, score_system
from scoring.metrics.polytope.severity import SHEET_LABELS, SHEET_ROWS
from tests.spans.workbook_helpers import OFFICIAL, build_workbook, demo_output, row, target_of

pytestmark = pytest.mark.django_db

LOUPE = ["Annotator", "System", "Span Side", "Span Start", "End"]
NASTY = ["=cmd|' /C calc'!A0", "+SUM(1,2)", "-- dashes", "@SUM(A1)", "\t=tab", "\r=cr", "'=q"]


def _span(output, words, type_="Addition", label="Attribute", side="summary", reason=""):
    summary, source = output_texts(output)
    text = source if side == "source" else summary
    start = text.index(words)
    return {
        "side": side,
        "start": start,
        "end": start + len(words),
        "words": words,
        "type": type_,
        "label": label,
        "reason": reason,
    }


def _nowhere(words, reason=""):
    return {
        "side": "none",
        "words": words,
        "type": "Addition",
        "label": "Subject",
        "reason": reason,
    }


@pytest.fixture
def released(demo, dataset):
    """A released PolyTope set of the demo: errors in two outputs, one clean, one of lead-3."""
    annotation_set = AnnotationSet.objects.create(
        dataset=dataset, slug="polytope-release", name="r", kind="released", scheme="polytope"
    )
    first, second, third = (
        demo_output("demo-abs", d) for d in ("demo-001", "demo-002", "demo-003")
    )
    lead = demo_output("lead-3", "demo-001")
    records = [
        SpanRecord(
            output_id=first.pk,
            errors=(
                _span(first, "Kestrel Street", label="Place & Name"),
                # "the" occurs more than once: only the offsets say which one.
                _span(first, "the", type_="Duplication", label="Function Word"),
                _span(first, "The decision ends", "Omission", "Subject", side="source"),
                *(_nowhere(text, reason=text) for text in NASTY),
            ),
            no_errors=False,
        ),
        SpanRecord(output_id=second.pk, errors=(), no_errors=True),
        SpanRecord(
            output_id=third.pk,
            errors=(_span(third, "2-1", "Inaccuracy Intrinsic", "Number & Time"),),
            no_errors=False,
        ),
        SpanRecord(output_id=lead.pk, errors=(_nowhere("x"),), no_errors=False),
    ]
    span_annotations_replace(
        annotation_set=annotation_set, records=records, output_ids=[r.output_id for r in records]
    )
    return annotation_set


def _state(annotation_set, system=None):
    rows = SpanAnnotation.objects.filter(annotation_set=annotation_set)
    if system:
        rows = rows.filter(output__system__slug=system)
    return {(r.output_id, r.annotator_id): (r.errors, r.no_errors) for r in rows}


def _score(annotation_set, system):
    rows = SpanAnnotation.objects.filter(
        annotation_set=annotation_set, output__system__slug=system
    ).select_related("output__document")
    segments = [Segment(str(r.output_id), output_texts(r.output)[0]) for r in rows]
    issues = [Issue(str(r.output_id), e["type"], e["label"]) for r in rows for e in r.errors]
    result = score_system(segments, issues)
    return result.score, result.severity_counts()


def test_the_workbook_has_the_official_layout_and_escaped_text(released):
    export = span_set_export(annotation_set=released, file_format="xlsx", system="demo-abs")
    assert export.filename == "demo-polytope-release-demo-abs.xlsx" and export.segments == 3
    book = openpyxl.load_workbook(io.BytesIO(export.body))
    assert book.sheetnames == ["ScoreCard", "Error Log", "Scores per segment", "Severity_Matrix"]
    log = book["Error Log"]
    headers = [cell.value for cell in log[1]]
    assert headers == [*OFFICIAL, "Annotator", "System", "Span Side", "Span Start", "Span End"]
    rows = list(log.iter_rows(min_row=2, values_only=True))
    assert len(rows) == 10 + 1 + 1  # demo-001's ten errors, demo-002's "No errors", demo-003's
    first = rows[0]
    assert first[0] == "demo-001-demo-abs" and first[1] == 1
    assert first[4:10] == ("Accuracy", "Addition", "Place&Name", "Kestrel Street", None, "Major")
    assert first[11:] == ("demo-abs", "summary", first[13], first[13] + 14)
    # Every text cell is a string; formula-like text carries the one apostrophe in front (and
    # a carriage return is written as Excel writes it, _x000D_).
    stored = ["'" + text.replace("\r", "_x000D_") for text in NASTY]
    nasty = [r for r in rows if r[7] in stored]
    assert [r[7] for r in nasty] == stored and [r[8] for r in nasty] == stored
    for cells in log.iter_rows(min_row=2):
        for cell in cells:
            assert cell.data_type in ("s", "n"), (cell.coordinate, cell.value)
    clean = rows[10]
    assert clean[0] == "demo-002-demo-abs" and clean[5] is None and clean[9] == "No errors"
    matrix = book["Severity_Matrix"]
    assert [c.value for c in matrix[2]][:10] == ["Issue_Type", "Sub_Issue_Type", *SHEET_LABELS]
    assert [
        (matrix.cell(r, 2).value, tuple(matrix.cell(r, c).value for c in range(3, 11)))
        for r in range(3, 11)
    ] == list(SHEET_ROWS)
    assert set(book.defined_names) >= {"Issue_Type", "Accuracy", "Fluency", "Word_Form"}
    card = book["ScoreCard"]
    score, counts = _score(released, "demo-abs")
    assert card["H4"].value == "LQI:" and card["I4"].value == pytest.approx(score)
    assert (card["D18"].value, card["E18"].value, card["F18"].value) == tuple(counts.values())
    assert card["F6"].value == card["L36"].value == 10 + 1
    scores = book["Scores per segment"]
    assert [c.value for c in scores[1]][:10] == [
        "ID",
        "Source",
        "Target",
        "wordcount",
        "Critical",
        "Major",
        "Minor",
        "Invalid Source",
        "Invalid Target",
        "Score",
    ]


def test_an_exported_workbook_imports_back_identically(released, dataset):
    export = span_set_export(annotation_set=released, file_format="xlsx")
    result = polytope_workbook_import(
        dataset=dataset,
        system_slug="demo-abs",
        source=export.body,
        filename=export.filename,
        set_slug="round-trip",
    )
    assert [str(line) for line in result.report] == [
        "Error Log [System]: 1 row(s) of system 'lead-3' skipped (importing 'demo-abs')"
    ]
    again = AnnotationSet.objects.get(dataset=dataset, slug="round-trip")
    assert _state(again) == _state(released, "demo-abs")
    assert _score(again, "demo-abs") == _score(released, "demo-abs")
    lead = polytope_workbook_import(
        dataset=dataset,
        system_slug="lead-3",
        source=export.body,
        filename=export.filename,
        set_slug="round-trip",
    )
    assert lead.placed == 1 and _state(again) == _state(released)


def test_jsonl_round_trip_and_command(released, dataset, tmp_path, capsys):
    out = tmp_path / "spans.jsonl"
    call_command(
        "export_spans", str(out), "--set=polytope-release", "--dataset=demo", "--format=jsonl"
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 4 and lines[0]["system"] == "demo-abs" and lines[0]["annotator"] is None
    assert lines[0]["document"] == "demo-001" and lines[0]["version"] == 1
    call_command("import_spans", str(out), "--dataset=demo", "--set=jsonl-copy")
    assert "Imported 4 annotation(s) of 4 output(s)" in capsys.readouterr().out
    copy = AnnotationSet.objects.get(dataset=dataset, slug="jsonl-copy")
    assert copy.kind == "released" and _state(copy) == _state(released)


def test_a_human_set_carries_its_annotators(demo, dataset, users):
    campaign = polytope_campaign_create(
        dataset=dataset, slug="spans", name="S", systems=["demo-abs"], user=users["admin"]
    )
    human = campaign.annotation_set
    output = demo_output("demo-abs", "demo-001")
    records = [
        SpanRecord(output_id=output.pk, errors=(_nowhere("a"),), no_errors=False, annotator_id=u.pk)
        for u in (users["annotator"], users["researcher"])
    ]
    span_annotations_replace(annotation_set=human, records=records, output_ids=[output.pk])
    body = span_set_export(annotation_set=human, file_format="jsonl").body.decode()
    assert [json.loads(line)["annotator"] for line in body.splitlines()] == [
        "t-annotator",
        "t-researcher",
    ]
    book = openpyxl.load_workbook(
        io.BytesIO(span_set_export(annotation_set=human, file_format="xlsx").body)
    )
    assert [r[10] for r in book["Error Log"].iter_rows(min_row=2, values_only=True)] == [
        "t-annotator",
        "t-researcher",
    ]
    # Into another human set, annotators and all; a released set refuses annotators.
    result = span_jsonl_import(
        dataset=dataset,
        source=io.BytesIO(body.encode()),
        filename="h.jsonl",
        set_slug="h2",
        kind="human",
    )
    assert result.annotations == 2
    assert _state(AnnotationSet.objects.get(slug="h2")) == _state(human)
    with pytest.raises(ImportValidationError) as refused:
        span_jsonl_import(
            dataset=dataset, source=io.BytesIO(body.encode()), filename="h.jsonl", set_slug="r2"
        )
    assert [str(i) for i in refused.value.issues] == [
        "h.jsonl:1: annotator 't-annotator' in a released set: released and gold sets hold one "
        "annotation per output, without annotator",
        "h.jsonl:2: annotator 't-researcher' in a released set: released and gold sets hold "
        "one annotation per output, without annotator",
    ]


def test_a_bad_jsonl_file_is_refused_line_by_line(demo, dataset):
    lines = [
        '{"document": "demo-001", "system": "demo-abs", "errors": []}',
        "{not json",
        '{"document": "nope", "system": "demo-abs"}',
        '{"document": "demo-002", "system": "demo-abs", "errors": [{"type": "Addition"}]}',
        '{"document": "demo-001", "system": "demo-abs", "colour": 1}',
        '{"document": "demo-003", "system": "demo-abs", "annotator": "ghost"}',
    ]
    source = io.BytesIO("\n".join(lines).encode())
    with pytest.raises(ImportValidationError) as refused:
        span_jsonl_import(dataset=dataset, source=source, filename="s.jsonl", set_slug="x")
    assert [str(i) for i in refused.value.issues] == [
        "s.jsonl:2: not valid JSON: Expecting property name enclosed in double quotes (column 2)",
        "s.jsonl:5: unknown field(s) colour (known: document, system, version, annotator, "
        "no_errors, errors, annotated_text)",
    ]
    source = io.BytesIO("\n".join(lines[:1] + lines[2:4] + lines[5:]).encode())
    with pytest.raises(ImportValidationError) as refused:
        span_jsonl_import(dataset=dataset, source=source, filename="s.jsonl", set_slug="x")
    assert [str(i) for i in refused.value.issues] == [
        "s.jsonl:2: no output of system 'demo-abs' for document 'nope' on dataset 'demo'",
        "s.jsonl:3: error 1: Addition needs a label (one of Subject, Object, Predicate, "
        "Number & Time, Place & Name, Attribute, Function Word, Whole Sentence) to have a "
        "severity",
        "s.jsonl:4: annotator 'ghost' in a released set: released and gold sets hold one "
        "annotation per output, without annotator",
    ]
    assert not AnnotationSet.objects.filter(slug="x").exists()


def test_export_command_names_the_set_by_campaign(demo, dataset, users, tmp_path, capsys):
    polytope_campaign_create(dataset=dataset, slug="c1", name="C", systems=["demo-abs"])
    out = tmp_path / "c.xlsx"
    call_command("export_spans", str(out), "--campaign=c1", "--format=xlsx")
    assert "Wrote 0 annotation(s) of set" in capsys.readouterr().out
    assert openpyxl.load_workbook(out).sheetnames[1] == "Error Log"
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="holds FAMs"):
        call_command("export_spans", str(out), "--set=gold", "--dataset=demo", "--format=xlsx")
    with pytest.raises(CommandError, match="No campaign 'nope'"):
        call_command("export_spans", str(out), "--campaign=nope", "--format=jsonl")


# --- the APIs --------------------------------------------------------------------------------


def test_export_api_permissions_and_formats(released, dataset, client_for, users):
    url = f"/api/annotation-sets/{released.pk}/export/"
    response = client_for("researcher").get(url + "?format=xlsx")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    assert 'filename="demo-polytope-release.xlsx"' in response["Content-Disposition"]
    jsonl = client_for("admin").get(url + "?format=jsonl&system=lead-3")
    assert [json.loads(line)["system"] for line in jsonl.content.decode().splitlines()] == [
        "lead-3"
    ]
    assert client_for("annotator").get(url).status_code == 403
    bad = client_for("admin").get(url + "?format=csv")
    assert bad.status_code == 400 and "format" in bad.json()["extra"]["fields"]
    gold = dataset.annotation_sets.get(slug="gold")
    fam = client_for("admin").get(f"/api/annotation-sets/{gold.pk}/export/")
    assert fam.status_code == 400 and "FAMs" in fam.json()["message"]
    campaign = polytope_campaign_create(
        dataset=dataset, slug="c2", name="C", systems=["demo-abs"], user=users["admin"]
    )
    human = f"/api/annotation-sets/{campaign.annotation_set.pk}/export/?format=jsonl"
    assert client_for("researcher").get(human).status_code == 403
    assert client_for("admin").get(human).status_code == 200
    # The creator of a set's campaign may export it whatever their role.
    own = polytope_campaign_create(
        dataset=dataset, slug="c3", name="C", systems=["demo-abs"], user=users["researcher"]
    )
    mine = f"/api/annotation-sets/{own.annotation_set.pk}/export/?format=xlsx"
    assert client_for("researcher").get(mine).status_code == 200
    # Another span scheme exports as JSONL; the workbook layout is PolyTope's.
    xsum = AnnotationSet.objects.create(
        dataset=dataset, slug="x", name="x", kind="released", scheme="xsum-hallucinations"
    )
    other = f"/api/annotation-sets/{xsum.pk}/export/"
    assert client_for("researcher").get(other + "?format=jsonl").status_code == 200
    refused = client_for("researcher").get(other + "?format=xlsx")
    assert refused.status_code == 400 and "export it as jsonl" in refused.json()["message"]


def _upload(data: bytes, name="Human_Annotation_Demo.xlsx", **fields):
    upload = io.BytesIO(data)
    upload.name = name
    return {"file": upload, "system": "demo-abs", **fields}


def test_upload_api_imports_reports_and_refuses(demo, dataset, client_for):
    admin = client_for("admin")
    output = demo_output("demo-abs", "demo-001")
    data = build_workbook(
        [
            row("a", target_of(output), "Addition", "Place&Name", "Kestrel Street", "Critical"),
            row("b", target_of(demo_output("demo-abs", "demo-002")), severity="No errors"),
        ]
    )
    url = "/api/datasets/demo/polytope-workbooks/"
    dry = admin.post(url, _upload(data, dry_run="true"), format="multipart")
    assert dry.status_code == 200 and dry.json()["dry_run"]
    assert not SpanAnnotation.objects.exists()
    done = admin.post(url, _upload(data), format="multipart")
    assert done.status_code == 201
    body = done.json()
    assert (body["placed"], body["errors"], body["severities"]) == (
        2,
        1,
        {"critical": 0, "major": 1, "minor": 0},
    )
    assert body["report"] == [
        "Error Log:2 [ID a]: Severity Critical differs from the matrix (Addition x Place&Name "
        "is Major): stored as Major and counted so; the sheet counts Critical"
    ]
    refused = admin.post(url, _upload(b"PK not really", system="ghost"), format="multipart")
    assert refused.status_code == 400
    assert [i["message"] for i in refused.json()["extra"]["issues"]] == [
        "unknown system 'ghost'",
        "is not an Excel workbook (.xlsx or .xlsm): it is not a zip archive",
    ]
    assert (
        admin.post(
            "/api/datasets/nope/polytope-workbooks/", _upload(data), format="multipart"
        ).status_code
        == 404
    )


def test_upload_api_checks_the_size_first(demo, client_for, settings):
    settings.LOUPE_UPLOAD_MAX_BYTES = 1000
    data = build_workbook([row("a", "x " * 2000, severity="No errors")])
    response = client_for("admin").post(
        "/api/datasets/demo/polytope-workbooks/", _upload(data), format="multipart"
    )
    assert response.status_code == 413
    assert response.json()["message"].startswith("Human_Annotation_Demo.xlsx is ")
