"""The job kernel's rules, on the scoring job type: planning errors, the finished guard, the
chunk attempts' bound, cancel, and each of the watchdog's recoveries."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.jobs import kernel
from annotation.jobs.kernel import (
    job_cancel,
    job_chunk_run,
    job_dispatch,
    job_fail,
    job_watchdog_sweep,
)
from annotation.jobs.models import JobStatus
from scoring.scores.models import ScoringChunk, ScoringJob
from scoring.scores.services import scoring_job_create, scoring_job_plan
from scoring.scores.services.kind import SCORING
from tests.scoring.test_scoring_jobs import dead_broker, tiny  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """What the kernel sends (run tasks and chord fan-outs), recorded instead of published."""
    calls = []

    def send(kind, job_id, **options):
        calls.append(("run", job_id))
        return True

    def fan_out(kind, job, chunks):
        calls.append(("chunks", [chunk.index for chunk in chunks]))

    monkeypatch.setattr(kernel, "job_send", send)
    monkeypatch.setattr(kernel, "_fan_out", fan_out)
    return calls


def _job(tiny, **fields) -> ScoringJob:  # noqa: F811 - the fixture's value
    job = scoring_job_create(dataset=tiny["dataset"], trigger="manual", queue=False)
    ScoringJob.objects.filter(pk=job.pk).update(**fields)
    job.refresh_from_db()
    return job


def test_a_planning_error_fails_the_job_with_it(tiny):  # noqa: F811
    def broken(job):
        raise ValueError("the dataset has no documents left")

    job = _job(tiny)
    with pytest.raises(ValueError):
        job_dispatch(kind=replace(SCORING, plan=broken), job_id=job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error == "ValueError: the dataset has no documents left"


def test_a_chunk_of_a_finished_or_cancelled_job_does_nothing(tiny):  # noqa: F811
    job = _job(tiny)
    chunk = scoring_job_plan(job=job)[0]
    job_cancel(kind=SCORING, job=job, reason="cancelled by the admin")
    assert job_chunk_run(kind=SCORING, job_id=job.pk, chunk_id=chunk.pk) == 0
    chunk.refresh_from_db()
    job.refresh_from_db()
    assert chunk.done_at is None and chunk.attempts == 0
    assert job.status == JobStatus.CANCELLED and job.finished
    # A cancelled job stays cancelled whatever fails later.
    job_fail(kind=SCORING, job=job, error="late failure")
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED


def test_a_chunk_started_too_often_fails_the_job_naming_it(tiny):  # noqa: F811
    job = _job(tiny)
    chunk = scoring_job_plan(job=job)[0]
    ScoringChunk.objects.filter(pk=chunk.pk).update(attempts=SCORING.max_attempts)
    assert job_chunk_run(kind=SCORING, job_id=job.pk, chunk_id=chunk.pk) == 0
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error == (
        "chunk 0 was started 4 times and never finished (its worker died each time)"
    )


def test_a_chunk_computes_once_and_advances_the_job(tiny):  # noqa: F811
    job = _job(tiny)
    chunk = scoring_job_plan(job=job)[0]
    assert job_chunk_run(kind=SCORING, job_id=job.pk, chunk_id=chunk.pk) > 0
    assert job_chunk_run(kind=SCORING, job_id=job.pk, chunk_id=chunk.pk) == 0  # redelivered
    chunk.refresh_from_db()
    job.refresh_from_db()
    assert chunk.attempts == 1 and chunk.done_at is not None and chunk.heartbeat_at is not None
    assert job.chunks_done == job.chunks_total == 1 and job.progress_at is not None


def test_the_watchdog_resends_a_chunk_whose_worker_went_silent(
    tiny,  # noqa: F811
    sent,
    settings,
    django_capture_on_commit_callbacks,
):
    job = _job(tiny)
    chunk = scoring_job_plan(job=job)[0]
    silent = timezone.now() - timedelta(seconds=settings.LOUPE_JOB_LOST_SECONDS + 1)
    ScoringChunk.objects.filter(pk=chunk.pk).update(
        attempts=1, started_at=silent, heartbeat_at=silent
    )
    with django_capture_on_commit_callbacks(execute=True):
        acted = job_watchdog_sweep()
    assert acted == {f"scoring:{job.pk}": "re-sent 1 chunk after a worker was lost"}
    assert sent == [("chunks", [0])]
    job.refresh_from_db()
    chunk.refresh_from_db()
    assert job.recoveries == 1 and job.recovery_note == "re-sent 1 chunk after a worker was lost"
    assert chunk.started_at is None and job.status == JobStatus.RUNNING


def test_a_beating_chunk_is_left_alone(tiny, sent, django_capture_on_commit_callbacks):  # noqa: F811
    job = _job(tiny)
    chunk = scoring_job_plan(job=job)[0]
    ScoringChunk.objects.filter(pk=chunk.pk).update(
        attempts=1, started_at=timezone.now() - timedelta(hours=1), heartbeat_at=timezone.now()
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert job_watchdog_sweep() == {}
    assert sent == []


def test_chunks_the_broker_lost_are_sent_again(
    tiny,  # noqa: F811
    sent,
    settings,
    django_capture_on_commit_callbacks,
):
    # The broker lost the messages: the job's queue is empty (a queue nobody used).
    settings.CELERY_TASK_DEFAULT_QUEUE = f"loupe-empty-{uuid.uuid4().hex[:8]}"
    job = _job(tiny)
    scoring_job_plan(job=job)
    quiet = timezone.now() - timedelta(seconds=settings.LOUPE_JOB_RESEND_SECONDS + 1)
    ScoringJob.objects.filter(pk=job.pk).update(
        progress_at=quiet, started_at=quiet, created_at=quiet
    )
    with django_capture_on_commit_callbacks(execute=True):
        acted = job_watchdog_sweep()
    assert acted == {f"scoring:{job.pk}": "re-sent 1 chunk after the broker lost them"}
    assert sent == [("chunks", [0])]


def test_a_job_without_progress_fails_with_the_reason(tiny, sent, settings):  # noqa: F811
    settings.LOUPE_JOB_RESEND_SECONDS = 10_000  # only the stall applies
    job = _job(tiny)
    scoring_job_plan(job=job)
    quiet = timezone.now() - timedelta(seconds=settings.LOUPE_JOB_STALL_SECONDS + 5)
    ScoringJob.objects.filter(pk=job.pk).update(
        progress_at=quiet, started_at=quiet, created_at=quiet
    )
    assert job_watchdog_sweep() == {f"scoring:{job.pk}": "failed"}
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error.startswith(f"no progress for {settings.LOUPE_JOB_STALL_SECONDS + 5} s")
    assert "are the workers running?" in job.error


def test_one_broken_job_does_not_stop_the_sweep(tiny, sent, settings, monkeypatch):  # noqa: F811
    first, second = _job(tiny), _job(tiny)
    for job in (first, second):
        scoring_job_plan(job=job)
    quiet = timezone.now() - timedelta(seconds=settings.LOUPE_JOB_STALL_SECONDS + 5)
    ScoringJob.objects.update(progress_at=quiet, started_at=quiet, created_at=quiet)
    settings.LOUPE_JOB_RESEND_SECONDS = 10_000
    real = kernel._recover

    def recover(kind, job_id, now, busy):
        if job_id == first.pk:
            raise RuntimeError("a row the sweep cannot read")
        return real(kind, job_id, now, busy)

    monkeypatch.setattr(kernel, "_recover", recover)
    assert job_watchdog_sweep() == {f"scoring:{second.pk}": "failed"}


def test_a_job_failed_for_the_broker_is_queued_again_when_it_answers(
    tiny,  # noqa: F811
    dead_broker,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        job = scoring_job_create(dataset=tiny["dataset"], trigger="manual")
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.broker_failed
    assert job.error.startswith("could not reach the task broker")


def test_the_watchdog_requeues_a_broker_failure(tiny, sent):  # noqa: F811
    job = _job(tiny)
    job_fail(kind=SCORING, job=job, error="could not reach the task broker: x", broker=True)
    assert job_watchdog_sweep() == {f"scoring:{job.pk}": "requeued"}
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED and not job.broker_failed and job.error == ""
    assert job.recovery_note == "queued again once the task broker answered"
    assert sent == [("run", job.pk)]
