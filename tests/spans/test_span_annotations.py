"""Span annotations: the scheme check on save, versioned saves with 409, revisions, imports."""

import pytest
from django.core.exceptions import ValidationError

from annotation.fams.models import AnnotationSet
from annotation.spans.models import SpanAnnotation, output_texts
from annotation.spans.services import SpanRecord, span_annotation_save, span_annotations_replace
from annotation.spans.signals import scored_spans_changed
from annotation.systems.models import SystemOutput
from config.exceptions import ApplicationError, ConflictError


@pytest.fixture
def output(demo, dataset):
    return SystemOutput.objects.filter(document__dataset=dataset).select_related("document").first()


def _set(dataset, kind="human", scheme="polytope", slug="spans", read_only=False):
    return AnnotationSet.objects.create(
        dataset=dataset, slug=slug, name=slug, kind=kind, scheme=scheme, read_only=read_only
    )


def _first_word(output):
    summary, _ = output_texts(output)
    end = summary.index(" ")
    return {"side": "summary", "start": 0, "end": end, "type": "Addition", "label": "Subject"}


@pytest.fixture
def events():
    seen = []

    def receiver(**kwargs):
        seen.append(kwargs["annotation_set"].slug)

    scored_spans_changed.connect(receiver, weak=False)
    yield seen
    scored_spans_changed.disconnect(receiver)


def test_save_derives_the_severity_stores_a_revision_and_refuses_a_stale_base(
    output, dataset, users
):
    row = SpanAnnotation.objects.create(
        annotation_set=_set(dataset), output=output, annotator=users["annotator"]
    )
    saved = span_annotation_save(
        annotation=row,
        errors=[_first_word(output)],
        no_errors=False,
        base_version=1,
        user=users["annotator"],
    )
    assert saved.version == 2 and saved.errors[0]["severity"] == "Critical"
    summary, _ = output_texts(output)
    assert saved.errors[0]["words"] == summary[: summary.index(" ")]
    (revision,) = saved.revisions.all()
    assert revision.version == 2 and revision.changes[0].startswith("added Addition / Subject")
    # The same state again from the old base: a retry whose response was lost.
    again = span_annotation_save(
        annotation=row,
        errors=[_first_word(output)],
        no_errors=False,
        base_version=1,
        user=users["annotator"],
    )
    assert again.version == 2 and again.revisions.count() == 1
    # Another state from the old base: refused, with the server's state to choose from.
    with pytest.raises(ConflictError) as conflict:
        span_annotation_save(
            annotation=row, errors=[], no_errors=True, base_version=1, user=users["annotator"]
        )
    assert conflict.value.extra["server"]["version"] == 2
    assert conflict.value.extra["server"]["errors"][0]["type"] == "Addition"
    row.refresh_from_db()
    assert row.version == 2 and not row.no_errors


def test_refused_errors_leave_the_row_unchanged(output, dataset, users):
    row = SpanAnnotation.objects.create(
        annotation_set=_set(dataset), output=output, annotator=users["annotator"]
    )
    bad = dict(_first_word(output), type="Positive-Negative Aspect")
    with pytest.raises(ValidationError, match="N/A in the official severity matrix"):
        span_annotation_save(
            annotation=row, errors=[bad], no_errors=False, base_version=1, user=None
        )
    with pytest.raises(ValidationError, match="cannot list errors"):
        span_annotation_save(
            annotation=row, errors=[_first_word(output)], no_errors=True, base_version=1, user=None
        )
    row.refresh_from_db()
    assert (row.version, row.errors, row.no_errors, row.revisions.count()) == (1, [], False, 0)


def test_a_fam_set_another_dataset_and_a_read_only_set_are_refused(output, dataset, users):
    fam_set = _set(dataset, scheme="fam", slug="fams")
    with pytest.raises(ValidationError, match="holds FAMs"):
        SpanAnnotation(annotation_set=fam_set, output=output).full_clean()
    from annotation.corpus.models import Dataset

    other = Dataset.objects.create(slug="other", name="Other")
    with pytest.raises(ValidationError, match="another dataset"):
        SpanAnnotation(annotation_set=_set(other), output=output).full_clean()
    with pytest.raises(ValidationError, match="Choose fam or one of"):
        AnnotationSet(dataset=dataset, slug="x", name="x", kind="human", scheme="mqm").full_clean()
    locked = SpanAnnotation.objects.create(
        annotation_set=_set(dataset, slug="locked", read_only=True), output=output
    )
    with pytest.raises(ApplicationError, match="read-only"):
        span_annotation_save(
            annotation=locked, errors=[], no_errors=True, base_version=1, user=None
        )


def test_replace_writes_one_import_and_keeps_other_outputs(output, dataset, users, events):
    released = _set(dataset, kind="released", slug="polytope-release")
    others = list(SystemOutput.objects.filter(document__dataset=dataset).exclude(pk=output.pk)[:2])
    span_annotations_replace(
        annotation_set=released,
        records=[SpanRecord(others[0].pk, (), True)],
        output_ids=[others[0].pk],
    )
    written = span_annotations_replace(
        annotation_set=released,
        records=[SpanRecord(output.pk, (_first_word(output),), False)],
        output_ids=[output.pk, others[1].pk],
    )
    assert written == 1
    rows = {row.output_id: row for row in SpanAnnotation.objects.filter(annotation_set=released)}
    assert set(rows) == {output.pk, others[0].pk}
    assert rows[output.pk].errors[0]["severity"] == "Critical" and rows[others[0].pk].no_errors
    assert rows[output.pk].revisions.get().changes == ["imported"]
    assert events == ["polytope-release", "polytope-release"]


def test_a_refused_import_writes_nothing(output, dataset):
    released = _set(dataset, kind="released", slug="polytope-release")
    span_annotations_replace(
        annotation_set=released, records=[SpanRecord(output.pk, (), True)], output_ids=[output.pk]
    )
    bad = dict(_first_word(output), end=10_000)
    with pytest.raises(ValidationError, match="outside the summary"):
        span_annotations_replace(
            annotation_set=released,
            records=[SpanRecord(output.pk, (bad,), False)],
            output_ids=[output.pk],
        )
    assert SpanAnnotation.objects.get(annotation_set=released).no_errors


def test_only_scored_sets_announce_a_change(output, dataset, users, events):
    human = SpanAnnotation.objects.create(
        annotation_set=_set(dataset), output=output, annotator=users["annotator"]
    )
    span_annotation_save(annotation=human, errors=[], no_errors=True, base_version=1, user=None)
    gold = SpanAnnotation.objects.create(
        annotation_set=_set(dataset, kind="gold", slug="gold-spans"), output=output
    )
    span_annotation_save(annotation=gold, errors=[], no_errors=True, base_version=1, user=None)
    assert events == ["gold-spans"]
