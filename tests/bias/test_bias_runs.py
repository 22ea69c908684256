"""Bias runs: the README's worked example through the chunks, a lost chunk, the digest, events."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest

from annotation.corpus.models import Dataset, Document
from annotation.jobs.tasks import job_chunk_task, job_done_task, job_run_task
from annotation.systems.models import System
from scoring.bias.models import BiasChunk, BiasRun, BiasSourceRow, RunStatus, RunTrigger
from scoring.bias.selectors import bias_run_waits_for_scoring, dataset_bias_get
from scoring.bias.services import (
    BIAS,
    bias_run_inline,
    bias_run_plan,
    bias_run_request,
    bias_run_start,
)
from scoring.scores.models import ScoringJob
from tests.bias.conftest import add_output as _output


def _rows(run) -> dict[str, BiasSourceRow]:
    return {row.source: row for row in BiasSourceRow.objects.filter(run=run)}


def _by_tasks(run) -> BiasRun:
    """Run as a worker would, without a broker: plan, each chunk's task, the chord callback."""
    chunks = bias_run_plan(run=run, chunk_size=1)
    results = [job_chunk_task("bias", run.pk, chunk.pk) for chunk in chunks]
    job_done_task(results, "bias", run.pk)
    run.refresh_from_db()
    return run


def test_the_readmes_worked_example_through_a_run_of_two_chunks(storm):
    run, created = bias_run_request(dataset=storm, trigger=RunTrigger.MANUAL, queue=False)
    assert created and run.status == RunStatus.QUEUED
    run = _by_tasks(run)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert (run.chunks_total, run.chunks_done, run.documents_total) == (2, 2, 2)
    # references 2, abs 1 (its version 2 on d1), lead-1 2; d3 has no text: left out
    assert run.pairs_total == 5
    assert run.meta["documents"] == 3 and run.meta["documents_without_text_left_out"] == 1
    assert run.meta["pairs"] == {"reference": 2, "abs": 1, "lead-1": 2}
    assert run.meta["output_versions"] == {"abs": 2, "lead-1": 1}
    rows = BiasSourceRow.objects.filter(run=run).order_by("position")
    assert [(r.source, r.kind) for r in rows] == [
        ("reference", "reference"),
        ("abs", "abstractive"),
        ("lead-1", "extractive"),
    ]
    rows = _rows(run)
    # abs = the worked example alone, by hand: fragments of 5 and 3 of 9 tokens, 10 in D.
    abs_row = rows["abs"]
    assert abs_row.version.number == 2 and abs_row.n_items == 1
    assert abs_row.coverage == pytest.approx(8 / 9)
    assert abs_row.density == pytest.approx(34 / 9)
    assert abs_row.compression == pytest.approx(10 / 9)
    assert abs_row.copy_length == pytest.approx(4.0)
    assert abs_row.novel == pytest.approx([1 / 8, 2 / 8, 3 / 7, 4 / 6])
    assert abs_row.repeated == pytest.approx([1 / 8, 0, 0, 0])
    assert abs_row.fusion == 1.0
    assert abs_row.mean_position == pytest.approx(0.1875)
    assert abs_row.position_histogram[0] == pytest.approx(5 / 8)
    assert abs_row.position_histogram[5] == pytest.approx(3 / 8)
    # references: the worked example, and "rain fell all night" copied whole from sentence 0
    # of 2 of a 8-token document (4 tokens: coverage 1, density 4, compression 2).
    ref = rows["reference"]
    assert ref.n_items == 2
    assert ref.coverage == pytest.approx((8 / 9 + 1) / 2)
    assert ref.density == pytest.approx((34 / 9 + 4) / 2)
    assert ref.compression == pytest.approx((10 / 9 + 2) / 2)
    assert ref.copy_length == pytest.approx((4 + 4) / 2)
    assert ref.novel[0] == pytest.approx((1 / 8 + 0) / 2)
    assert ref.fusion == pytest.approx((1 + 0) / 2)
    # copied tokens pooled: 5 at 0, 3 at 0.5, then 4 at 0: (3 * 0.5) / 12
    assert ref.mean_position == pytest.approx(1.5 / 12)
    assert ref.position_histogram[0] == pytest.approx(9 / 12)
    # Lead-1 copies whole first sentences: 7 and 4 tokens, density 7 and 4.
    lead = rows["lead-1"]
    assert lead.coverage == 1.0 and lead.novel == [0.0, 0.0, 0.0, 0.0]
    assert lead.density == pytest.approx((7 + 4) / 2)
    assert lead.mean_position == 0.0 and lead.fusion == 0.0

    data = dataset_bias_get(dataset=storm)
    assert data["status"] == "succeeded" and data["stale"] is False
    assert [row["source"] for row in data["rows"]] == ["reference", "abs", "lead-1"]
    assert data["rows"][1]["coverage"] == pytest.approx(8 / 9)
    assert data["run"]["progress"] == 1.0 and data["computed_by"]["id"] == run.pk


def test_a_chunk_lost_with_its_worker_is_redone_alone(storm):
    run, _ = bias_run_request(dataset=storm, trigger=RunTrigger.MANUAL, queue=False)
    first, second = bias_run_plan(run=run, chunk_size=1)
    assert job_chunk_task("bias", run.pk, first.pk) == 3  # d1: reference, abs, lead-1
    # The worker running the second chunk dies after it marked the chunk started.
    BiasChunk.objects.filter(pk=second.pk).update(attempts=1)
    # The chord callback finds a missing chunk: the run stays running (the job kernel's
    # watchdog sends the lost chunk again once its heartbeat is old).
    job_done_task([3], "bias", run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.chunks_done == 1
    assert not BiasSourceRow.objects.filter(run=run).exists()
    # Planning again plans nothing new and lists only the unfinished chunk.
    assert [c.pk for c in bias_run_plan(run=run, chunk_size=1)] == [second.pk]
    # A redelivered first chunk is a no-op; the second is computed once more.
    assert job_chunk_task("bias", run.pk, first.pk) == 0
    assert job_chunk_task("bias", run.pk, second.pk) == 2
    job_done_task([2], "bias", run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and run.chunks_done == run.chunks_total == 2
    assert BiasChunk.objects.get(pk=first.pk).attempts == 1
    assert BiasChunk.objects.get(pk=second.pk).attempts == 2
    # The same rows as an uninterrupted run over the same inputs would give.
    assert BiasSourceRow.objects.filter(run=run).count() == 3
    fresh = BiasRun.objects.create(dataset=storm, trigger=RunTrigger.MANUAL)
    fresh = _by_tasks(fresh)
    assert fresh.reused_from_id == run.pk  # same digest: nothing recomputed
    # A chord callback arriving twice changes nothing.
    job_done_task([2], "bias", run.pk)
    assert BiasSourceRow.objects.filter(run=run).count() == 3


def test_a_chunk_that_kills_its_worker_each_time_fails_the_run(storm):
    run, _ = bias_run_request(dataset=storm, trigger=RunTrigger.MANUAL, queue=False)
    chunk = bias_run_plan(run=run, chunk_size=1)[0]
    BiasChunk.objects.filter(pk=chunk.pk).update(attempts=BIAS.max_attempts)
    assert job_chunk_task("bias", run.pk, chunk.pk) == 0
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "chunk 0 was started 4 times" in run.error


def test_an_unchanged_dataset_is_not_recomputed_and_a_change_makes_it_stale(storm):
    run = bias_run_inline(run=bias_run_request(dataset=storm, trigger="manual", queue=False)[0])
    assert run.status == RunStatus.SUCCEEDED and run.chunks_total == 1
    # Asking again: the inputs' digest is unchanged, the latest run is the answer.
    again, queued = bias_run_start(dataset=storm, user=None)
    assert (again.pk, queued) == (run.pk, False)
    # A run that was queued anyway (an import, say) reuses the rows instead of computing.
    other = bias_run_inline(run=bias_run_request(dataset=storm, trigger="import", queue=False)[0])
    assert other.status == RunStatus.SUCCEEDED and other.reused_from_id == run.pk
    assert other.chunks_total == 0 and not BiasChunk.objects.filter(run=other).exists()
    data = dataset_bias_get(dataset=storm)
    assert data["computed_by"]["id"] == other.pk and data["computed_by"]["reused_from"] == run.pk
    assert [r["source"] for r in data["rows"]] == ["reference", "abs", "lead-1"]
    # A new output version changes the inputs: the figures are stale, and a new run computes.
    abstractive = System.objects.get(slug="abs")
    _output(abstractive, storm, Document.objects.get(external_id="d2"), 3, ["Rain fell."])
    assert dataset_bias_get(dataset=storm)["stale"] is True
    newer, queued = bias_run_start(dataset=storm, user=None)
    assert queued and newer.status == RunStatus.QUEUED
    newer = bias_run_inline(run=newer)
    assert newer.reused_from_id is None and newer.chunks_total == 1
    assert _rows(newer)["abs"].n_items == 1 and _rows(newer)["abs"].version.number == 3
    assert dataset_bias_get(dataset=storm)["stale"] is False


def test_one_waiting_run_covers_a_burst_and_a_lost_one_is_replaced(storm):
    from datetime import timedelta

    from django.utils import timezone

    run, created = bias_run_request(dataset=storm, trigger="upload", queue=False)
    same, again = bias_run_request(dataset=storm, trigger="upload", queue=False)
    assert created and not again and same.pk == run.pk
    BiasRun.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(hours=1))
    newer, created = bias_run_request(dataset=storm, trigger="upload", queue=False)
    assert created and newer.pk != run.pk
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "never started" in run.error
    # The lost run's task, arriving after all, finds it finished and does nothing.
    assert job_run_task("bias", run.pk) == 0
    assert not BiasChunk.objects.filter(run=run).exists()


def test_nothing_to_measure_is_a_clear_failure(db):
    dataset = Dataset.objects.create(slug="empty", name="Empty")
    run = bias_run_inline(run=bias_run_request(dataset=dataset, trigger="manual", queue=False)[0])
    assert run.status == RunStatus.FAILED
    assert "'empty' has no reference or system output on a document with text" in run.error


@pytest.mark.django_db
def test_an_import_and_an_upload_each_queue_a_run(users):
    from annotation.corpus.services import dataset_import
    from annotation.imports.bundle import ImportValidationError, SystemRecord
    from scoring.uploads.services import system_outputs_upload

    source = io.BytesIO(
        b'{"id": "a1", "sentences": ["The storm hit the coast.", "Power failed."], '
        b'"references": [["The storm hit."]]}\n'
    )
    source.name = "storm.jsonl"
    bad = io.BytesIO(b"not json\n")
    bad.name = "bad.jsonl"
    with pytest.raises(ImportValidationError):  # refused before anything is written
        dataset_import(format_name="jsonl", source=bad, slug="bad")
    assert not BiasRun.objects.exists()
    dataset_import(format_name="jsonl", source=source, slug="storm-import")
    dataset = Dataset.objects.get(slug="storm-import")
    run = BiasRun.objects.get(dataset=dataset)
    assert run.trigger == RunTrigger.IMPORT and run.status == RunStatus.QUEUED
    bias_run_inline(run=run)
    upload = io.BytesIO(b'{"doc_id": "a1", "summary": "The storm hit the coast."}\n')
    system_outputs_upload(
        dataset=dataset,
        system=SystemRecord(slug="abs", name="Abs", kind="abstractive"),
        source=upload,
        filename="abs.jsonl",
        user=users["researcher"],
    )
    queued = BiasRun.objects.get(dataset=dataset, status=RunStatus.QUEUED)
    assert queued.trigger == RunTrigger.UPLOAD and queued.created_by == users["researcher"]
    queued = bias_run_inline(run=queued)
    assert [r.source for r in BiasSourceRow.objects.filter(run=queued)] == ["reference", "abs"]
    assert _rows(queued)["abs"].coverage == 1.0


@pytest.mark.parametrize(
    ("job_status", "minutes_since_asked", "waits"),
    [
        ("queued", 0, True),
        ("running", 9, True),
        ("running", 10, False),  # asked for too long ago: a stuck job holds it back no longer
        ("succeeded", 0, False),
        ("failed", 0, False),
        (None, 0, False),  # no scoring job at all
    ],
)
def test_a_queued_run_waits_for_its_datasets_scoring_job(
    storm, job_status, minutes_since_asked, waits
):
    run, _ = bias_run_request(dataset=storm, trigger=RunTrigger.UPLOAD, queue=False)
    if job_status is not None:
        ScoringJob.objects.create(dataset=storm, trigger="upload", status=job_status)
    now = run.created_at + timedelta(minutes=minutes_since_asked)
    assert bias_run_waits_for_scoring(run=run, now=now) is waits
    # Another dataset's job is not this run's business.
    other = Dataset.objects.create(slug="other", name="Other")
    ScoringJob.objects.filter(dataset=storm).update(dataset=other)
    assert bias_run_waits_for_scoring(run=run, now=now) is False


def test_a_run_that_started_never_waits(storm):
    run, _ = bias_run_request(dataset=storm, trigger=RunTrigger.UPLOAD, queue=False)
    ScoringJob.objects.create(dataset=storm, trigger="upload", status="running")
    bias_run_plan(run=run)  # the run is running now
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    assert bias_run_waits_for_scoring(run=run) is False
