"""Scoring jobs run in-process: hand-worked scores, idempotent upserts, stale rows, FAM triggers."""

from __future__ import annotations

import pytest

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, Fam
from annotation.fams.services import fam_save
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.scores.models import DocumentScore, JobStatus, ScoringJob
from scoring.scores.services import (
    scoring_job_create,
    scoring_job_run_inline,
    scoring_pending_run_inline,
)
from tests.score_helpers import stored_scores

pytestmark = pytest.mark.django_db

SENTENCES = ["The cat sat on the mat.", "Dogs bark loudly.", "Birds fly south.", "Fish swim."]


@pytest.fixture
def tiny(users):
    """One document, a two-facet reference, a gold FAM and one extractive output [0, 1]."""
    dataset = Dataset.objects.create(slug="tiny", name="Tiny")
    document = Document.objects.create(
        dataset=dataset, external_id="d1", sentences=SENTENCES, category="low"
    )
    reference = Reference.objects.create(
        document=document, sentences=["The cat sat.", "Birds fly."]
    )
    gold = AnnotationSet.objects.create(dataset=dataset, slug="gold", name="Gold", kind="gold")
    fam = Fam.objects.create(
        annotation_set=gold,
        document=document,
        reference=reference,
        facets=[{"groups": [[0]], "label": "supported"}, {"groups": [[2]], "label": "supported"}],
    )
    system = System.objects.create(slug="ext", name="Ext", kind="extractive")
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    SystemOutput.objects.create(
        system=system,
        version=version,
        document=document,
        sentences=SENTENCES[:2],
        extracted=[0, 1],
        extraction_method="given",
    )
    return {"dataset": dataset, "document": document, "fam": fam, "version": version}


def _scores(version) -> dict[str, float]:
    row = DocumentScore.objects.filter(version=version).first()
    return dict(row.metrics) if row else {}


def _run(dataset, **kwargs) -> ScoringJob:
    job = scoring_job_create(dataset=dataset, trigger="manual", queue=False, **kwargs)
    return scoring_job_run_inline(job=job)


def test_hand_worked_rouge_and_far_scores(tiny):
    job = _run(tiny["dataset"])
    assert job.status == JobStatus.SUCCEEDED
    assert (job.chunks_total, job.chunks_done, job.outputs_total) == (1, 1, 1)
    scores = _scores(tiny["version"])
    # Reference "the cat sat bird fli" (5 stemmed tokens) against the summary "the cat sat on
    # the mat dog bark loudli" (9): 3 unigrams match, 2 of 4 reference bigrams, LCS 3.
    assert scores["rouge1_p"] == pytest.approx(3 / 9)
    assert scores["rouge1_r"] == pytest.approx(3 / 5)
    assert scores["rouge1_f"] == pytest.approx(3 / 7)
    assert scores["rouge2_p"] == pytest.approx(2 / 8)
    assert scores["rouge2_r"] == pytest.approx(2 / 4)
    assert scores["rouge2_f"] == pytest.approx(1 / 3)
    assert scores["rougeL_f"] == pytest.approx(3 / 7)
    # ROUGE-Lsum, sentence by sentence: "the cat sat" finds its LCS in "the cat sat on the mat",
    # "bird fli" nothing in either summary sentence: 3 hits, as ROUGE-L.
    assert (scores["rougeLsum_p"], scores["rougeLsum_r"]) == (3 / 9, 3 / 5)
    assert scores["rougeLsum_f"] == pytest.approx(3 / 7)
    # Extracted {0, 1} against support {0, 2}: one hit; facet 0's group [0] is covered.
    assert scores["sap@3"] == scores["sar@3"] == scores["saf1@3"] == scores["far@3"] == 0.5
    assert len(scores) == 16  # P, R, F of 4 ROUGE types and the 4 FAR measures
    assert job.scores_written == 16


def test_rescoring_is_idempotent_and_never_duplicates(tiny):
    _run(tiny["dataset"], ks=[1, 3])
    first = _scores(tiny["version"])
    assert first["far@1"] == 0.5 and first["sap@1"] == 1.0  # only sentence 0 considered
    _run(tiny["dataset"], ks=[1, 3])
    assert _scores(tiny["version"]) == first
    assert len(stored_scores()) == 12 + 4 * 2


def test_a_gold_fam_change_queues_a_job_that_updates_and_removes_scores(tiny, users):
    _run(tiny["dataset"])
    fam = tiny["fam"]
    fam_save(
        fam=fam,
        facets=[{"groups": [[0]], "label": "supported"}, {"groups": [[1]], "label": "supported"}],
        base_version=1,
        user=users["admin"],
    )
    queued = ScoringJob.objects.get(trigger="fams")
    assert queued.status == JobStatus.QUEUED
    # A second save while that job waits does not queue another one.
    fam_save(
        fam=fam,
        facets=[
            {"groups": [[0]], "label": "supported"},
            {"groups": [[0, 1]], "label": "supported"},
        ],
        base_version=2,
        user=users["admin"],
    )
    assert ScoringJob.objects.filter(trigger="fams").count() == 1
    scoring_job_run_inline(job=queued)
    scores = _scores(tiny["version"])
    assert scores["far@3"] == 1.0 and scores["sar@3"] == 1.0
    # With no support left the FAR family is undefined: the old rows go, ROUGE stays.
    fam_save(
        fam=fam,
        facets=[{"groups": [], "label": "noise"}, {"groups": [], "label": "no_support"}],
        base_version=3,
        user=users["admin"],
    )
    scoring_job_run_inline(job=ScoringJob.objects.get(trigger="fams", status=JobStatus.QUEUED))
    assert sorted(_scores(tiny["version"])) == sorted(
        f"rouge{n}_{p}" for n in ("1", "2", "L", "Lsum") for p in "prf"
    )


def test_a_corrupt_output_fails_the_job_with_its_error(tiny):
    SystemOutput.objects.update(extracted=[0, 9])  # bypasses validation, as a bad row would
    job = scoring_job_create(dataset=tiny["dataset"], trigger="manual", queue=False)
    with pytest.raises(Exception, match="9"):
        scoring_job_run_inline(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert "9" in job.error and job.finished_at is not None


def test_sync_runs_queued_jobs_and_fills_missing_k(tiny):
    queued = scoring_job_create(dataset=tiny["dataset"], trigger="upload", queue=False)
    assert scoring_pending_run_inline(dataset=tiny["dataset"], ks=[3]) == 1
    queued.refresh_from_db()
    assert queued.status == JobStatus.SUCCEEDED
    assert scoring_pending_run_inline(dataset=tiny["dataset"], ks=[3]) == 0
    assert scoring_pending_run_inline(dataset=tiny["dataset"], ks=[2]) == 1
    assert _scores(tiny["version"])["far@2"] == 0.5


def test_jobs_api_starts_and_reports_a_job(tiny, client_for):
    api = client_for("researcher")
    started = api.post("/api/datasets/tiny/scoring-jobs/start/", {"ks": [3, 5]}, format="json")
    assert started.status_code == 202
    body = started.json()
    assert body["status"] == "queued" and body["ks"] == [3, 5] and body["trigger"] == "manual"
    scoring_job_run_inline(job=ScoringJob.objects.get(pk=body["id"]))
    detail = api.get(f"/api/scoring-jobs/{body['id']}/").json()
    assert detail["status"] == "succeeded" and detail["progress"] == 1.0
    assert detail["scores_written"] == 12 + 4 * 2 and detail["seconds"] >= 0
    listed = api.get("/api/datasets/tiny/scoring-jobs/").json()
    assert [job["id"] for job in listed] == [body["id"]]
    bad = api.post("/api/datasets/tiny/scoring-jobs/start/", {"ks": [0]}, format="json")
    assert bad.status_code == 400


@pytest.fixture
def dead_broker():
    """The Celery app publishing to a port nothing listens on (a broker that is down); the
    real connection pools are put back untouched afterwards."""
    from config.celery import app

    names = (
        "broker_url",
        "broker_write_url",
        "broker_transport",
        "broker_connection_timeout",
        "task_publish_retry",
    )
    saved = {name: app.conf[name] for name in names}
    pools = (app._pool, app.amqp._producer_pool)
    app._pool = app.amqp._producer_pool = None
    app.conf.update(
        broker_url="redis://127.0.0.1:1/0",
        broker_write_url="redis://127.0.0.1:1/0",
        broker_transport=None,  # the URL's (the embedded broker names its own transport)
        broker_connection_timeout=1,
        task_publish_retry=False,
    )
    yield
    app.pool.force_close_all()
    app._pool, app.amqp._producer_pool = pools
    app.conf.update(saved)


def test_a_broker_that_is_down_fails_the_job_and_keeps_the_saved_fam(
    tiny, users, dead_broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        fam_save(
            fam=tiny["fam"],
            facets=[
                {"groups": [[1]], "label": "supported"},
                {"groups": [[2]], "label": "supported"},
            ],
            base_version=1,
            user=users["admin"],
        )
    tiny["fam"].refresh_from_db()
    assert tiny["fam"].version == 2 and tiny["fam"].facets[0]["groups"] == [[1]]
    job = ScoringJob.objects.get(trigger="fams")
    assert job.status == JobStatus.FAILED and "could not reach the task broker" in job.error
    # Nothing waits on that job: the next save queues a new one.
    with django_capture_on_commit_callbacks(execute=True):
        fam_save(
            fam=tiny["fam"],
            facets=[
                {"groups": [[0]], "label": "supported"},
                {"groups": [[2]], "label": "supported"},
            ],
            base_version=2,
            user=users["admin"],
        )
    assert ScoringJob.objects.filter(trigger="fams").count() == 2


def test_gold_fam_edits_in_the_admin_queue_a_rescoring(tiny, users, client):
    client.force_login(users["admin"])
    fam = tiny["fam"]
    deleted = client.post(f"/admin/fams/fam/{fam.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and not Fam.objects.filter(pk=fam.pk).exists()
    job = ScoringJob.objects.get(trigger="fams")
    scoring_job_run_inline(job=job)
    assert "far@3" not in _scores(tiny["version"])  # no FAM left: no FAR
    gold = AnnotationSet.objects.get(slug="gold")
    changed = client.post(
        f"/admin/fams/annotationset/{gold.pk}/change/",
        {"dataset": gold.dataset_id, "slug": "gold", "name": "Gold", "kind": "human"},
    )
    assert changed.status_code == 302
    assert ScoringJob.objects.filter(trigger="fams", status=JobStatus.QUEUED).count() == 1


def _chunks_done(dataset) -> ScoringJob:
    from scoring.scores.services import scoring_chunk_compute, scoring_job_plan

    job = scoring_job_create(dataset=dataset, trigger="manual", queue=False)
    for chunk in scoring_job_plan(job=job):
        scoring_chunk_compute(chunk=chunk)
    return job


def test_the_job_callback_stores_the_first_leaderboard_with_the_success(tiny):
    from annotation.jobs.tasks import job_done_task
    from scoring.leaderboards.models import LeaderboardSnapshot
    from scoring.leaderboards.selectors import leaderboard_read

    job = _chunks_done(tiny["dataset"])
    assert not LeaderboardSnapshot.objects.filter(dataset=tiny["dataset"]).exists()
    job_done_task([13], "scoring", job.pk)  # the chord's callback, called as the worker calls it
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    # The page's default view is stored: its first reader reads it, nobody computes it again.
    assert leaderboard_read(dataset=tiny["dataset"], k=3).stored


def test_a_leaderboard_that_fails_does_not_undo_the_jobs_success(tiny, monkeypatch, caplog):
    from annotation.jobs.tasks import job_done_task
    from scoring.leaderboards import services as leaderboard_services

    def broken(**kwargs):
        raise RuntimeError("the table could not be built")

    monkeypatch.setattr(leaderboard_services, "leaderboard_serve", broken)
    job = _chunks_done(tiny["dataset"])
    job_done_task([13], "scoring", job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert "could not store the first leaderboard" in caplog.text


def test_a_job_over_many_versions_plans_document_major_chunks(tiny):
    """Chunks hold every version's outputs of a few documents (their references and FAMs are
    read once for all versions), and the scores are those of one version at a time."""
    dataset, first = tiny["dataset"], tiny["version"]
    document2 = Document.objects.create(
        dataset=dataset, external_id="d2", position=1, sentences=SENTENCES, category="low"
    )
    Reference.objects.create(document=document2, sentences=["Fish swim."])
    system = System.objects.create(slug="ext2", name="Ext 2", kind="extractive")
    second = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    outputs = {}
    for version in (first, second):
        for document in (tiny["document"], document2):
            outputs[(version.pk, document.pk)], _ = SystemOutput.objects.get_or_create(
                system=version.system,
                version=version,
                document=document,
                defaults={
                    "sentences": SENTENCES[2:4],
                    "extracted": [2, 3],
                    "extraction_method": "given",
                },
            )
    from scoring.scores.services import scoring_job_plan

    job = scoring_job_create(dataset=dataset, trigger="manual", queue=False)
    chunks = scoring_job_plan(job=job, chunk_size=2)
    assert [chunk.output_ids for chunk in chunks] == [
        [outputs[(first.pk, tiny["document"].pk)].pk, outputs[(second.pk, tiny["document"].pk)].pk],
        [outputs[(first.pk, document2.pk)].pk, outputs[(second.pk, document2.pk)].pk],
    ]
    scoring_job_run_inline(job=job)

    def values(version):
        return {(s.document_id, s.metric): s.value for s in stored_scores(version=version)}

    together = values(second)
    DocumentScore.objects.all().delete()
    alone = scoring_job_create(dataset=dataset, trigger="manual", versions=[second], queue=False)
    scoring_job_run_inline(job=alone)
    assert values(second) == together  # the same values as when scored on its own
    # Facet 2 is supported by sentence 2, which [2, 3] extracts; facet 1 (sentence 0) is not.
    assert together[(tiny["document"].pk, "far@3")] == 0.5
    assert (document2.pk, "far@3") not in together  # no FAM for that document


def test_a_redelivered_job_run_sends_no_chunk_twice(tiny):
    """job_run's message comes back when its worker died after sending the chunks: the
    dispatch it carries was already counted, so it sends nothing (the chunks are queued)."""
    from annotation.jobs.tasks import job_run_task
    from scoring.scores.services import scoring_job_plan

    job = scoring_job_create(dataset=tiny["dataset"], trigger="manual", queue=False)
    planned = scoring_job_plan(job=job)
    assert len(planned) == 1
    job.refresh_from_db()
    assert job.dispatches == 0  # planning alone sends nothing and counts nothing
    ScoringJob.objects.filter(pk=job.pk).update(dispatches=1)  # dispatch 0 went out
    assert job_run_task("scoring", job.pk, 0) == 0
    job.refresh_from_db()
    assert job.dispatches == 1 and job.status == JobStatus.RUNNING
    assert job.chunks.get().attempts == 0  # nothing ran it here either
