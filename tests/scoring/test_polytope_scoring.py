"""PolyTope scoring jobs in-process: hand-worked segment and pooled scores, gold over released,
stale rows, the spans trigger and the value-range rule."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from annotation.fams.models import AnnotationSet
from annotation.spans.models import SpanAnnotation
from annotation.spans.services import SpanRecord, span_annotation_save, span_annotations_replace
from scoring.scores.models import DocumentScore, ErrorBreakdown, JobStatus, ScoringJob
from scoring.scores.services import (
    StaleScores,
    document_scores_delete,
    scoring_job_create,
    scoring_job_run_inline,
)
from tests.score_helpers import score_plant, stored_scores
from tests.scoring.polytope_helpers import build, error

pytestmark = pytest.mark.django_db


@pytest.fixture
def pt(users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # no broker: jobs run inline
        return build()


def _run(dataset, trigger="manual") -> ScoringJob:
    job = scoring_job_create(dataset=dataset, trigger=trigger, queue=False)
    return scoring_job_run_inline(job=job)


def _values(output) -> dict[str, float]:
    return {
        s.metric: s.value
        for s in stored_scores(version=output.version, document=output.document)
        if s.metric.startswith("polytope")
    }


def test_segment_figures_are_stored_per_annotated_output(pt):
    job = _run(pt["dataset"])
    assert job.status == JobStatus.SUCCEEDED, job.error
    out = pt["outputs"]
    # a/d1: one Addition x Subject (Critical, 5) over 10 words.
    assert _values(out["a", "d1"]) == {
        "polytope": 50.0,
        "polytope_penalty": 5.0,
        "polytope_words": 10.0,
        "polytope_critical": 1.0,
        "polytope_major": 0.0,
        "polytope_minor": 0.0,
    }
    # a/d2: Duplication x Subject (Major 2.5) + Word Form x Object (Minor 0.5) over 20 words.
    a2 = _values(out["a", "d2"])
    assert (a2["polytope"], a2["polytope_penalty"]) == (85.0, 3.0)
    assert (a2["polytope_major"], a2["polytope_minor"]) == (1.0, 1.0)
    # b/d1 is marked clean: 100, no error.
    assert _values(out["b", "d1"])["polytope"] == 100.0
    # b/d2: an Omission marked in the source still counts (Critical over the summary's words).
    assert _values(out["b", "d2"])["polytope"] == 75.0
    # b/d3: 10 penalty words over 5 words: the score goes negative, and is stored as such.
    assert _values(out["b", "d3"])["polytope"] == -100.0
    # a/d3 was never annotated: no PolyTope row at all (not annotated is not clean).
    assert _values(out["a", "d3"]) == {}
    # ROUGE is there for every output, annotated or not.
    assert len(stored_scores("rouge1_f")) == 6


def test_breakdowns_record_subtype_x_label_and_the_set(pt):
    _run(pt["dataset"])
    rows = {
        (b.version.system.slug, b.document.external_id): b
        for b in ErrorBreakdown.objects.select_related("version__system", "document")
    }
    assert set(rows) == {("a", "d1"), ("a", "d2"), ("b", "d1"), ("b", "d2"), ("b", "d3")}
    assert rows["a", "d2"].counts == {"Duplication": {"Subject": 1}, "Word Form": {"Object": 1}}
    assert rows["b", "d1"].counts == {}
    assert rows["b", "d3"].counts == {
        "Addition": {"Subject": 1},
        "Inaccuracy Intrinsic": {"Predicate": 1},
    }
    assert {b.annotation_set_id for b in rows.values()} == {pt["released"].pk}


def test_gold_wins_over_released_and_rescoring_is_idempotent(pt):
    _run(pt["dataset"])
    gold = AnnotationSet.objects.create(
        dataset=pt["dataset"], slug="gold", name="Gold", kind="gold", scheme="polytope"
    )
    b3 = pt["outputs"]["b", "d3"]
    span_annotations_replace(
        annotation_set=gold, records=[SpanRecord(b3.pk, (), True)], output_ids=[b3.pk]
    )
    job = ScoringJob.objects.get(trigger="spans")  # queued by the gold import's signal
    scoring_job_run_inline(job=job)
    assert _values(b3)["polytope"] == 100.0
    breakdown = ErrorBreakdown.objects.get(version=b3.version, document=b3.document)
    assert (breakdown.annotation_set_id, breakdown.counts) == (gold.pk, {})
    before = stored_scores()
    _run(pt["dataset"])
    assert [s[:4] for s in stored_scores()] == [s[:4] for s in before]
    assert ErrorBreakdown.objects.count() == 5


def test_a_spans_job_rescores_spans_only_and_removes_stale_rows(pt):
    _run(pt["dataset"])
    a1 = pt["outputs"]["a", "d1"]
    rouge = {
        s.metric: s.value
        for s in stored_scores(version=a1.version, document=a1.document)
        if s.metric.startswith("rouge")
    }
    # The release no longer annotates a/d1: its PolyTope rows and breakdown must go.
    span_annotations_replace(annotation_set=pt["released"], records=[], output_ids=[a1.pk])
    job = ScoringJob.objects.get(trigger="spans")
    scoring_job_run_inline(job=job)
    assert job.status == JobStatus.SUCCEEDED
    assert _values(a1) == {}
    assert not ErrorBreakdown.objects.filter(version=a1.version, document=a1.document).exists()
    # The spans job left ROUGE alone (the same values) and wrote only span values.
    rouge_after = {
        s.metric: s.value
        for s in stored_scores(version=a1.version, document=a1.document)
        if s.metric.startswith("rouge")
    }
    assert rouge_after == rouge and len(rouge) == 12
    assert job.scores_written == 4 * 6


def test_one_waiting_spans_job_covers_a_burst_of_saves(pt, users):
    gold = AnnotationSet.objects.create(
        dataset=pt["dataset"], slug="gold", name="Gold", kind="gold", scheme="polytope"
    )
    b1 = pt["outputs"]["b", "d1"]
    row = SpanAnnotation.objects.create(annotation_set=gold, output=b1, no_errors=True)
    for version, errors in ((1, [error("Addition", "Subject")]), (2, [])):
        span_annotation_save(
            annotation=row, errors=errors, no_errors=not errors, base_version=version,
            user=users["admin"],
        )  # fmt: skip
    # The build's import queued one; the two saves found it still queued.
    assert ScoringJob.objects.filter(trigger="spans", status="queued").count() == 1
    # A human (campaign) set does not touch the scores at all.
    human = AnnotationSet.objects.create(
        dataset=pt["dataset"], slug="campaign", name="Campaign", kind="human", scheme="polytope"
    )
    span_annotations_replace(
        annotation_set=human,
        records=[SpanRecord(b1.pk, (), True, annotator_id=users["annotator"].pk)],
        output_ids=[b1.pk],
    )
    assert ScoringJob.objects.filter(trigger="spans").count() == 1


def test_the_value_rule_keeps_fractions_and_allows_polytope_ranges(pt):
    _run(pt["dataset"])
    a3 = pt["outputs"]["a", "d3"]  # not annotated: it has no PolyTope row to collide with
    row = DocumentScore.objects.get(version=a3.version, document=a3.document)
    before = dict(row.metrics)
    bad = (("rouge1_f", 1.5), ("rouge1_f", -0.1), ("polytope", 100.5), ("polytope_words", -1.0))
    for metric, value in bad:
        with pytest.raises(ValidationError, match="out of its range"):
            score_plant(version=a3.version, document=a3.document, metric=metric, value=value)
        with pytest.raises(ValidationError, match="out of its range"):
            DocumentScore(version=a3.version, document=a3.document, metrics={metric: value}).clean()
    assert DocumentScore.objects.get(pk=row.pk).metrics == before
    # A negative segment score and counts above 1 are PolyTope's normal values.
    for metric, value in (("polytope", -250.0), ("polytope_critical", 7.0)):
        score_plant(version=a3.version, document=a3.document, metric=metric, value=value)
        assert DocumentScore.objects.get(pk=row.pk).metrics[metric] == value


def test_an_output_without_words_fails_the_job_naming_it(pt):
    from annotation.systems.models import SystemOutput

    a1 = pt["outputs"]["a", "d1"]
    SystemOutput.objects.filter(pk=a1.pk).update(sentences=["...", "--"])
    job = scoring_job_create(dataset=pt["dataset"], trigger="manual", queue=False)
    with pytest.raises(ValueError, match="document 'd1'"):
        scoring_job_run_inline(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert "no whitespace token holds a letter or digit" in job.error


def test_sync_runs_the_waiting_spans_job_and_fills_missing_polytope(pt):
    from scoring.scores.services import scoring_pending_run_inline

    # The build's import left a spans job waiting; --sync runs it (and a first full job).
    assert scoring_pending_run_inline(dataset=pt["dataset"]) == 2
    a1 = pt["outputs"]["a", "d1"]
    assert _values(a1)["polytope"] == 50.0
    stale = StaleScores()
    for s in stored_scores(version=a1.version):
        if s.metric.startswith("polytope"):
            stale.add(version_id=s.version_id, document_id=s.document_id, metrics=[s.metric])
    document_scores_delete(stale=stale)
    assert scoring_pending_run_inline(dataset=pt["dataset"]) == 1  # annotated, not scored
    assert _values(a1)["polytope"] == 50.0
    assert scoring_pending_run_inline(dataset=pt["dataset"]) == 0
