"""The agreement runs (span, FAM) and the campaigns' suggestion precomputation on the job kernel:
a chunk whose worker went silent is re-sent by the watchdog and the job then ends with the right
figures; a planning error fails the job with the reason."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.agreement.fam_selectors import campaign_agreement_get
from annotation.agreement.fam_services import FAM_AGREEMENT
from annotation.agreement.models import FamAgreementChunk, FamAgreementRun, SpanAgreementChunk
from annotation.agreement.selectors import run_as_dict
from annotation.agreement.services import SPAN_AGREEMENT, span_agreement_run_create
from annotation.campaigns.models import Campaign, SuggestionChunk, SuggestionSet
from annotation.campaigns.services import (
    SUGGESTIONS,
    campaign_create,
    suggestion_job_create,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset
from annotation.jobs import kernel
from annotation.jobs.kernel import job_chunk_run, job_dispatch, job_done, job_plan
from annotation.jobs.kernel import job_watchdog_sweep as sweep
from tests.span_agreement_helpers import build, polytope_campaign
from tests.test_fam_agreement import annotate, build_world

pytestmark = pytest.mark.django_db

LOST = "re-sent 1 computation after a worker was lost"


@pytest.fixture
def sent(monkeypatch):
    """What the kernel sends (run tasks and chunk fan-outs), recorded instead of published."""
    calls = []

    def send(kind, job_id, **options):
        calls.append(("run", kind.name, job_id))
        return True

    def fan_out(kind, job, chunks):
        calls.append(("chunks", kind.name, job.pk, [chunk.index for chunk in chunks]))

    monkeypatch.setattr(kernel, "job_send", send)
    monkeypatch.setattr(kernel, "_fan_out", fan_out)
    return calls


def _silence(chunk_model, chunk, settings) -> None:
    """The chunk's worker started it and died: its heartbeat stopped long enough ago."""
    silent = timezone.now() - timedelta(seconds=settings.LOUPE_JOB_LOST_SECONDS + 1)
    chunk_model.objects.filter(pk=chunk.pk).update(
        attempts=1, started_at=silent, heartbeat_at=silent
    )


def _recovered(kind, job, chunk_model, sent, settings, capture, note: str):
    """Plan the job, lose its one chunk's worker, sweep: the chunk is re-sent; then the chunk
    runs (as the re-sent task) and the chord's callback completes the job."""
    (chunk,) = job_plan(kind=kind, job=job)
    _silence(chunk_model, chunk, settings)
    with capture(execute=True):
        acted = sweep()
    assert acted[f"{kind.name}:{job.pk}"] == note
    assert sent == [("chunks", kind.name, job.pk, [0])]
    job.refresh_from_db()
    chunk.refresh_from_db()
    assert (job.status, job.recoveries, job.recovery_note) == ("running", 1, note)
    assert chunk.started_at is None and chunk.done_at is None
    assert job_chunk_run(kind=kind, job_id=job.pk, chunk_id=chunk.pk) > 0
    assert job_done(kind=kind, job_id=job.pk)
    job.refresh_from_db()
    chunk.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert chunk.attempts == 2 and chunk.done_at is not None
    return job


def test_a_span_run_whose_worker_was_lost_is_sent_again_and_ends_with_its_figures(
    sent, settings, django_capture_on_commit_callbacks
):
    campaign = polytope_campaign(build())
    run = span_agreement_run_create(campaign=campaign.pk, queue=False)
    run = _recovered(
        SPAN_AGREEMENT, run, SpanAgreementChunk, sent, settings,
        django_capture_on_commit_callbacks, LOST,
    )  # fmt: skip
    shown = run_as_dict(run)
    assert (shown["status"], shown["recoveries"], shown["recovery_note"]) == ("succeeded", 1, LOST)
    # The span helpers' hand-worked campaign: partial span F1 3/4 over alice and bob.
    assert shown["result"]["overall"]["span_f1_partial"]["value"] == pytest.approx(3 / 4)
    assert shown["inputs_digest"] == shown["current_digest"] and not shown["stale"]


def test_a_fam_run_whose_worker_was_lost_is_sent_again_and_ends_with_its_figures(
    sent, settings, django_capture_on_commit_callbacks
):
    world = build_world()
    annotate(world)  # the submissions queued one run (held: no broker here)
    campaign = world["campaign"]
    run = FamAgreementRun.objects.get(campaign=campaign)
    sent.clear()
    _recovered(
        FAM_AGREEMENT, run, FamAgreementChunk, sent, settings,
        django_capture_on_commit_callbacks, LOST,
    )  # fmt: skip
    body = campaign_agreement_get(campaign=campaign)
    assert (body["status"], body["stale"], body["run"]["recoveries"]) == ("succeeded", False, 1)
    assert body["run"]["recovery_note"] == LOST
    jaccard = body["result"]["measures"]["jaccard_union"]["overall"]
    assert jaccard["value"] == pytest.approx(13 / 18)


def test_suggestions_whose_worker_was_lost_are_sent_again_and_end_ready(
    demo, sent, settings, django_capture_on_commit_callbacks, client_for
):
    with django_capture_on_commit_callbacks(execute=True):
        campaign = campaign_create(
            dataset=Dataset.objects.get(slug="demo"), slug="lost", name="Lost", scorers=["tfidf"]
        )
    job = campaign.suggestions_job
    assert ("run", "suggestions", job.pk) in sent  # queued on commit, through the kernel
    sent.clear()
    note = "re-sent 1 chunk after a worker was lost"
    job = _recovered(
        SUGGESTIONS, job, SuggestionChunk, sent, settings, django_capture_on_commit_callbacks, note
    )
    assert job.sets_written == 6 == SuggestionSet.objects.filter(campaign=campaign).count()
    body = client_for("admin").get(f"/api/campaigns/{campaign.pk}/").json()
    assert body["suggestions_status"] == "ready"


def test_a_planning_error_fails_an_agreement_run_with_the_reason(db):
    def broken(run):
        raise ValueError("the campaign was deleted meanwhile")

    campaign = polytope_campaign(build())
    run = span_agreement_run_create(campaign=campaign.pk, queue=False)
    with pytest.raises(ValueError):
        job_dispatch(kind=replace(SPAN_AGREEMENT, plan=broken), job_id=run.pk)
    shown = run_as_dict(type(run).objects.get(pk=run.pk))
    assert (shown["status"], shown["error"]) == (
        "failed",
        "ValueError: the campaign was deleted meanwhile",
    )
    assert shown["result"] is None and shown["finished_at"] is not None

    world = build_world()
    annotate(world)
    fam = FamAgreementRun.objects.get(campaign=world["campaign"])
    with pytest.raises(ValueError):
        job_dispatch(kind=replace(FAM_AGREEMENT, plan=broken), job_id=fam.pk)
    body = campaign_agreement_get(campaign=world["campaign"])
    assert (body["status"], body["error"]) == (
        "failed",
        "ValueError: the campaign was deleted meanwhile",
    )


def test_a_suggestion_job_with_an_unknown_scorer_fails_when_planned(demo, client_for, users):
    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="bad", name="Bad", scorers=["tfidf"]
    )
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "t-annotator")])
    # A scorer that left the registry since the campaign was made (its row is not re-checked).
    Campaign.objects.filter(pk=campaign.pk).update(scorers=["tfidf", "gone"])
    job = campaign.suggestions_job
    with pytest.raises(Exception, match="unknown scorer 'gone'"):
        job_dispatch(kind=SUGGESTIONS, job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith("UnknownScorerError: unknown scorer")
    assert not SuggestionChunk.objects.filter(job=job).exists()  # nothing planned
    campaign = Campaign.objects.get(pk=campaign.pk)
    assert (campaign.suggestions_status, campaign.suggestions_error) == ("failed", job.error)
    admin = client_for("admin").get(f"/api/campaigns/{campaign.pk}/").json()
    assert admin["suggestions_status"] == "failed"
    mine = client_for("annotator").get(f"/api/tasks/{task.pk}/suggestions/").json()
    assert mine == {"status": "failed", "scorers": {}}


def test_a_newer_run_or_job_supersedes_one_that_failed_for_the_broker(
    demo, sent, django_capture_on_commit_callbacks
):
    """The watchdog queues again a job that failed only because the broker was down, unless a
    newer one of the same campaign waits: a FAM campaign has one queued run at most, and the
    newer run (or suggestion job) covers the older one."""
    from annotation.agreement.fam_services import fam_agreement_run_queue
    from annotation.jobs.kernel import job_fail

    world = build_world()
    annotate(world)
    campaign = world["campaign"]
    down = FamAgreementRun.objects.get(campaign=campaign)
    job_fail(kind=FAM_AGREEMENT, job=down, error="could not reach the task broker", broker=True)
    waiting, created = fam_agreement_run_queue(campaign=campaign)
    assert created and waiting.status == "queued"
    fam = campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="down", name="Down", scorers=["tfidf"]
    )
    lost = fam.suggestions_job
    job_fail(kind=SUGGESTIONS, job=lost, error="could not reach the task broker", broker=True)
    with django_capture_on_commit_callbacks(execute=True):
        newer = suggestion_job_create(campaign=fam)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        acted = sweep()
    assert f"fam_agreement:{down.pk}" not in acted and f"suggestions:{lost.pk}" not in acted
    assert sent == []
    down.refresh_from_db()
    lost.refresh_from_db()
    assert (down.status, down.broker_failed, lost.status, lost.broker_failed) == (
        "failed", False, "failed", False,
    )  # fmt: skip
    assert FamAgreementRun.objects.get(campaign=campaign, status="queued") == waiting
    assert Campaign.objects.get(pk=fam.pk).suggestions_job == newer
