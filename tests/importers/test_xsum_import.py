"""The XSum hallucination release on the database: import, refusals, documents without text."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db.models import Count

from annotation.corpus.importers.parsers.xsum import parse_xsum_release
from annotation.corpus.importers.span_sets import check_span_sets
from annotation.corpus.models import Dataset, Document
from annotation.corpus.services import bundle_import
from annotation.fams.models import AnnotationSet
from annotation.imports.bundle import (
    DatasetRecord,
    DocumentRecord,
    ImportBundle,
    ImportValidationError,
    OutputRecord,
    ReferenceRecord,
    SpanAnnotationRecord,
    SpanSetRecord,
    SystemRecord,
)
from annotation.spans.models import SpanAnnotation
from annotation.spans.services import span_annotation_save
from annotation.systems.models import System, SystemOutput
from config.exceptions import ApplicationError
from tests.importers.test_xsum_parser import SHARED, _tiny_rows, needs_release, write_release

pytestmark = pytest.mark.django_db

SYSTEM_SLUGS = {"berts2s", "trans2s", "ptgen", "tconvs2s"}


def _counts(dataset):
    return (
        Document.objects.filter(dataset=dataset).count(),
        SystemOutput.objects.filter(document__dataset=dataset).count(),
        SpanAnnotation.objects.filter(annotation_set__dataset=dataset).count(),
        AnnotationSet.objects.filter(dataset=dataset).count(),
    )


# =============================================================================================
# A tiny release, end to end
# =============================================================================================


@pytest.fixture
def tiny_bundle(tmp_path):
    return parse_xsum_release(write_release(tmp_path / "tiny", _tiny_rows()), expected_documents=2)


def test_tiny_import_writes_documents_outputs_and_worker_sets(tiny_bundle, users):
    summary = bundle_import(bundle=tiny_bundle, slug="xsum-tiny", user=users["admin"])
    assert (summary.documents, summary.outputs, summary.annotation_sets) == (2, 3, 3)
    # berts2s/101: wid_0 and wid_1 (wid_2 gave only a NULL-typed word); ptgen/101: wid_0 and
    # wid_1 (no wid_2 row); tconvs2s/102: all three.
    assert summary.span_annotations == 2 + 2 + 3
    dataset = Dataset.objects.get(slug="xsum-tiny")
    first = Document.objects.get(dataset=dataset, external_id="101")
    assert first.sentences == [] and first.text_missing and first.sentence_count == 0
    assert first.references.get().sentences == ["andy murray won."]
    sets = {s.slug: s for s in AnnotationSet.objects.filter(dataset=dataset)}
    assert set(sets) == {"xsum-wid_0", "xsum-wid_1", "xsum-wid_2"}
    assert {(s.scheme, s.kind, s.read_only) for s in sets.values()} == {
        ("xsum-hallucinations", "human", True)
    }
    murray = SpanAnnotation.objects.get(
        annotation_set=sets["xsum-wid_0"], output__system__slug="berts2s"
    )
    assert murray.annotator is None and murray.version == 1
    assert [
        (e["start"], e["end"], e["words"], e["type"], e["severity"]) for e in murray.errors
    ] == [
        (27, 32, "fabio", "extrinsic", ""),
        (0, 9, "britain's", "intrinsic", ""),
    ]
    assert murray.output.sentences == ["britain's andy murray beat fabio fognini."]
    assert murray.revisions.get().changes == ["imported"]
    clean = SpanAnnotation.objects.get(
        annotation_set=sets["xsum-wid_1"], output__system__slug="berts2s"
    )
    assert clean.no_errors and clean.errors == []
    # wid_2 wrote only a NULL-typed word for it: no row, so the output is not annotated by wid_2.
    assert not SpanAnnotation.objects.filter(
        annotation_set=sets["xsum-wid_2"], output__system__slug="berts2s"
    ).exists()
    unplaced = SpanAnnotation.objects.get(
        annotation_set=sets["xsum-wid_0"], output__system__slug="ptgen"
    )
    assert [(e["side"], e["start"], e["words"]) for e in unplaced.errors] == [
        ("none", None, "lost")
    ]


def test_tiny_import_is_refused_a_second_time_and_dry_runs_write_nothing(tiny_bundle):
    dry = bundle_import(bundle=tiny_bundle, slug="xsum-tiny", dry_run=True)
    assert dry.dry_run and dry.span_annotations == 7
    assert not Dataset.objects.filter(slug="xsum-tiny").exists()
    bundle_import(bundle=tiny_bundle, slug="xsum-tiny")
    dataset = Dataset.objects.get(slug="xsum-tiny")
    before = _counts(dataset)
    with pytest.raises(
        ImportValidationError, match="already exists .2 documents.; importing twice"
    ):
        bundle_import(bundle=tiny_bundle, slug="xsum-tiny")
    assert _counts(dataset) == before


def test_released_worker_spans_are_read_only(tiny_bundle, users):
    bundle_import(bundle=tiny_bundle, slug="xsum-tiny")
    row = SpanAnnotation.objects.filter(annotation_set__slug="xsum-wid_1").first()
    with pytest.raises(ApplicationError, match="read-only"):
        span_annotation_save(
            annotation=row, errors=[], no_errors=False, base_version=1, user=users["admin"]
        )


def test_span_sets_into_an_existing_dataset_with_that_set_are_refused(tiny_bundle):
    bundle_import(bundle=tiny_bundle, slug="xsum-tiny")
    dataset = Dataset.objects.get(slug="xsum-tiny")
    again = ImportBundle(
        dataset=tiny_bundle.dataset,
        systems=tiny_bundle.systems,
        outputs=tiny_bundle.outputs,
        span_sets=tiny_bundle.span_sets[:1],
    )
    before = _counts(dataset)
    with pytest.raises(ImportValidationError) as caught:
        bundle_import(bundle=again, slug="xsum-tiny", dataset=dataset)
    assert "span set xsum-wid_0 [slug]: the dataset has this set already" in str(caught.value)
    assert _counts(dataset) == before


# =============================================================================================
# Span sets of any bundle: checked before anything is written
# =============================================================================================

_SYSTEM = SystemRecord("sys-a", "System A", "abstractive")


def _bundle(*annotations, scheme="xsum-hallucinations", slug="spans", kind="human", fams=()):
    documents = [
        DocumentRecord("d1", (), (ReferenceRecord(("ref one.",)),), meta={"text_missing": True}),
        DocumentRecord("d2", ("a source.",), (ReferenceRecord(("ref two.",)),)),
    ]
    outputs = [
        OutputRecord("sys-a", "d1", ("the cat sat.",)),
        OutputRecord("sys-a", "d2", ("a dog ran.",)),
    ]
    span_set = SpanSetRecord(slug, "Spans", scheme, kind=kind, annotations=tuple(annotations))
    return ImportBundle(
        dataset=DatasetRecord("spans-ds", "Spans"),
        documents=documents,
        systems=[_SYSTEM],
        outputs=outputs,
        span_sets=[span_set],
        annotation_sets=list(fams),
    )


def _error(start, end, type_="extrinsic", **more):
    return {"side": "summary", "start": start, "end": end, "type": type_, **more}


def test_check_span_sets_accepts_good_records():
    bundle = _bundle(
        SpanAnnotationRecord("sys-a", "d1", (_error(4, 7),)),
        SpanAnnotationRecord("sys-a", "d2", (), no_errors=True),
    )
    assert check_span_sets(bundle) == []


def test_check_span_sets_names_every_problem():
    bundle = _bundle(
        SpanAnnotationRecord("sys-a", "d1", (_error(4, 99),)),
        SpanAnnotationRecord("sys-a", "d1", ()),
        SpanAnnotationRecord("sys-b", "d2", ()),
        SpanAnnotationRecord("sys-a", "d2", (_error(0, 1),), no_errors=True),
    )
    assert [str(issue) for issue in check_span_sets(bundle)] == [
        "span set spans: sys-a/d1: sys-a/d1: error 1: span [4, 99) is outside the summary "
        "(valid: 0 <= start < end <= 12)",
        "span set spans: sys-a/d1: sys-a/d1 is annotated twice in the set",
        "span set spans: sys-b/d2: no output of sys-b for document 'd2'",
        "span set spans: sys-a/d2: marked as having no errors but lists errors",
    ]


def test_check_span_sets_refuses_a_bad_set():
    assert [
        str(i) for i in check_span_sets(_bundle(scheme="stars", slug="bad slug!", kind="x"))
    ] == [
        "span set bad slug! [slug]: 'bad slug!' is not a valid slug: use letters, digits, "
        "hyphens and underscores",
        "span set bad slug! [kind]: kind must be one of released, human, gold, machine",
        "span set bad slug! [scheme]: unknown span scheme 'stars' (known: polytope, "
        "xsum-hallucinations)",
    ]


def test_check_span_sets_uses_the_scheme():
    # PolyTope needs a label; an XSum type is not a PolyTope subtype.
    bundle = _bundle(SpanAnnotationRecord("sys-a", "d2", (_error(0, 1),)), scheme="polytope")
    (issue,) = check_span_sets(bundle)
    assert "error 1: subtype 'extrinsic' is not one of Addition" in str(issue)
    # An Omission lives in the source, which a document without text does not have.
    omission = {"side": "source", "start": 0, "end": 1, "type": "Omission", "label": "Subject"}
    bundle = _bundle(SpanAnnotationRecord("sys-a", "d1", (omission,)), scheme="polytope")
    (issue,) = check_span_sets(bundle)
    assert "the source text is not available to mark a span in" in str(issue)
    bundle = _bundle(SpanAnnotationRecord("sys-a", "d2", (omission,)), scheme="polytope")
    assert check_span_sets(bundle) == []


def test_a_refused_span_set_writes_nothing_even_in_a_dry_run():
    bundle = _bundle(SpanAnnotationRecord("sys-a", "d1", (_error(4, 99),)))
    for dry_run in (True, False):
        with pytest.raises(ImportValidationError, match=r"span \[4, 99\) is outside"):
            bundle_import(bundle=bundle, slug="spans-ds", dry_run=dry_run)
    assert not Dataset.objects.filter(slug="spans-ds").exists()
    assert not System.objects.filter(slug="sys-a").exists()


def test_a_good_span_set_is_written():
    bundle = _bundle(SpanAnnotationRecord("sys-a", "d1", (_error(4, 7, "intrinsic"),)))
    summary = bundle_import(bundle=bundle, slug="spans-ds")
    assert (summary.annotation_sets, summary.span_annotations) == (1, 1)
    row = SpanAnnotation.objects.get(annotation_set__dataset__slug="spans-ds")
    assert row.errors[0]["words"] == "cat" and row.errors[0]["type"] == "intrinsic"


# =============================================================================================
# Documents without text
# =============================================================================================


def _document(dataset, **fields):
    return Document(dataset=dataset, external_id="x", **fields)


def test_a_document_has_no_sentences_only_when_its_release_has_no_text():
    dataset = Dataset.objects.create(slug="textless", name="Textless")
    _document(dataset, sentences=[], meta={"text_missing": True}).full_clean()
    _document(dataset, sentences=["One."], meta={}).full_clean()
    with pytest.raises(ValidationError, match="Must be a non-empty list of sentences"):
        _document(dataset, sentences=[], meta={}).full_clean()
    with pytest.raises(ValidationError, match="cannot say"):
        _document(dataset, sentences=["One."], meta={"text_missing": True}).full_clean()
    with pytest.raises(ValidationError, match="true or false"):
        _document(dataset, sentences=[], meta={"text_missing": "yes"}).full_clean()
    with pytest.raises(ValidationError, match="non-empty string"):
        _document(dataset, sentences=["One.", " "], meta={}).full_clean()
    with pytest.raises(ValidationError, match="Must be a list"):
        _document(dataset, sentences="One.", meta={}).full_clean()


def test_a_jsonl_document_without_sentences_is_still_refused(tmp_path):
    record = {"id": "d1", "sentences": [], "references": [["A reference."]]}
    path = tmp_path / "docs.jsonl"
    path.write_text(__import__("json").dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match="sentences"):
        call_command("import_dataset", str(path), "--format", "jsonl", "--slug", "empty-docs")
    assert not Dataset.objects.filter(slug="empty-docs").exists()


def test_the_document_apis_serve_a_document_without_text(tiny_bundle, client_for):
    bundle_import(bundle=tiny_bundle, slug="xsum-tiny")
    client = client_for("researcher")
    document = Document.objects.get(dataset__slug="xsum-tiny", external_id="101")
    body = client.get(f"/api/documents/{document.pk}/").json()
    assert body["sentences"] == [] and body["meta"]["text_missing"] is True
    assert body["references"][0]["sentences"] == ["andy murray won."]
    listed = client.get("/api/datasets/xsum-tiny/documents/").json()["results"]
    assert [(d["external_id"], d["sentence_count"]) for d in listed] == [("101", 0), ("102", 0)]
    view = client.get("/api/datasets/xsum-tiny/systems/berts2s/documents/101/")
    assert view.status_code == 200, view.content
    assert view.json()["document"]["sentences"] == []
    assert view.json()["summary"] == ["britain's andy murray beat fabio fognini."]


# =============================================================================================
# The real release
# =============================================================================================


@needs_release
def test_real_release_import(capsys, django_capture_on_commit_callbacks, client_for):
    from annotation.jobs.tasks import job_chunk_task
    from scoring.scores.models import DocumentScore, ScoringJob
    from scoring.scores.services import scoring_job_finish, scoring_job_plan

    args = ("import_dataset", str(SHARED), "--format", "xsum-hallucinations")
    with django_capture_on_commit_callbacks(execute=False):  # the scoring job is run below
        call_command(*args, "--slug", "xsum-faith")
    out = capsys.readouterr().out
    assert (
        "Imported dataset 'xsum-faith': 500 documents, 500 references, 2000 system outputs, "
        "0 FAMs, 5998 error-span annotations in 3 annotation set(s)."
    ) in out
    assert "Report (60 line(s))" in out
    assert "13 match no convention" in out
    dataset = Dataset.objects.get(slug="xsum-faith")
    assert dataset.license.startswith("CC BY 4.0")
    assert not Document.objects.filter(dataset=dataset).exclude(sentences=[]).exists()
    assert Document.objects.filter(dataset=dataset, meta__text_missing=True).count() == 500
    assert dict(
        System.objects.filter(slug__in=SYSTEM_SLUGS).values_list("slug", "kind")
    ) == dict.fromkeys(SYSTEM_SLUGS, "abstractive")
    per_system = dict(
        SystemOutput.objects.filter(document__dataset=dataset)
        .values_list("system__slug")
        .annotate(n=Count("id"))
    )
    assert per_system == dict.fromkeys(SYSTEM_SLUGS, 500)
    per_set = {
        s.slug: (s.span_annotations.count(), s.span_annotations.filter(no_errors=True).count())
        for s in AnnotationSet.objects.filter(dataset=dataset)
    }
    # Clean judgements: 776 in all, of which the Gold rows' are kept in the documents' meta.
    gold_clean = sum(
        judgement["no_errors"]
        for meta in Document.objects.filter(dataset=dataset).values_list("meta", flat=True)
        for judgement in meta["reference_hallucinations"].values()
    )
    assert sum(clean for _, clean in per_set.values()) + gold_clean == 776
    assert {slug: n for slug, (n, _) in per_set.items()} == {
        "xsum-wid_0": 2000,
        "xsum-wid_1": 2000,
        "xsum-wid_2": 1998,
    }

    # A second import of the same slug is refused and changes nothing.
    before = _counts(dataset)
    with pytest.raises(CommandError, match="'xsum-faith' already exists .500 documents."):
        call_command(*args, "--slug", "xsum-faith")
    assert _counts(dataset) == before

    # ROUGE is scored against the Gold references though the documents have no text.
    job = ScoringJob.objects.filter(dataset=dataset).latest("pk")
    for chunk in scoring_job_plan(job=job):
        job_chunk_task("scoring", job.pk, chunk.pk)
    scoring_job_finish(job=job)
    assert (
        DocumentScore.objects.filter(document__dataset=dataset, metrics__has_key="rouge1_f").count()
        == 2000
    )
    board = client_for("researcher").get("/api/datasets/xsum-faith/leaderboard/")
    assert board.status_code == 200, board.content
    assert {row["system"] for row in board.json()["systems"]} == SYSTEM_SLUGS
