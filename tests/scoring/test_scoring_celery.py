"""Scoring jobs on real Celery workers: the FAR release's leaderboard, and a worker SIGKILLed."""

from __future__ import annotations

import time
import uuid

import pytest
from django.conf import settings

from annotation.corpus.services import dataset_import
from annotation.fams.models import Fam
from annotation.systems.models import SystemOutput
from scoring.leaderboards.models import LeaderboardSnapshot
from scoring.metrics.leaderboard import ROUGE_KEYS
from scoring.scores.models import OUTPUTS_KEY, JobStatus, ScoreArray, ScoringChunk, ScoringJob
from tests.conftest import FAR_RELEASE, needs_far
from tests.jobs.processes import kill_inside_a_chunk, sigkill
from tests.score_helpers import stored_scores

# Mao et al. (2020), release PROVENANCE.md: low abstraction (89 samples), k = 3.
PUBLISHED = {  # system: (SAP, SAR, SAF1, FAR)
    "lead-3": (0.610, 0.373, 0.445, 0.506),
    "fastrl-e": (0.648, 0.406, 0.479, 0.508),
    "banditsum": (0.586, 0.343, 0.417, 0.447),
    "neusum": (0.639, 0.395, 0.468, 0.512),
    "refresh": (0.610, 0.375, 0.447, 0.513),
    "unifiedsum-e": (0.669, 0.413, 0.488, 0.548),
}


def _wait_for(job: ScoringJob, timeout: float) -> ScoringJob:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.finished:
            return job
        time.sleep(0.5)
    raise AssertionError(f"job {job.pk} still {job.status} after {timeout} s: {job.chunks_done}")


def _wait_for_warm_leaderboards(dataset, timeout: float = 120) -> int:
    """After a job the worker stores the usual leaderboards (all, 4 categories, at k = 3)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        count = LeaderboardSnapshot.objects.filter(dataset=dataset).count()
        if count >= 5:
            return count
        time.sleep(0.25)
    return LeaderboardSnapshot.objects.filter(dataset=dataset).count()


def _expected_rows(dataset) -> set[tuple[int, int, str]]:
    """Every (version, document, metric) a complete job must store, from the rows themselves."""
    supported = {
        fam.document_id
        for fam in Fam.objects.filter(annotation_set__dataset=dataset)
        if any(facet["groups"] for facet in fam.facets)
    }
    expected = set()
    for version_id, document_id, extracted in SystemOutput.objects.filter(
        version__dataset=dataset
    ).values_list("version_id", "document_id", "extracted"):
        expected |= {(version_id, document_id, metric) for metric in ROUGE_KEYS}
        if extracted is not None and document_id in supported:
            expected |= {(version_id, document_id, f"{m}@3") for m in ("far", "sar", "sap", "saf1")}
    return expected


@needs_far
@pytest.mark.django_db(transaction=True)
def test_far_release_leaderboard_after_a_real_celery_job(celery_worker_process, client_for):
    dataset_import(format_name="far-release", source=FAR_RELEASE, slug="cnndm-far")
    job = _wait_for(ScoringJob.objects.get(dataset__slug="cnndm-far"), timeout=240)
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.trigger == "upload" and job.outputs_total == 760 and job.progress == 1.0
    # The job's callback built every version's score arrays: the board below reads them.
    built = ScoreArray.objects.filter(version__dataset=job.dataset, key=OUTPUTS_KEY)
    assert built.count() == len(PUBLISHED)
    response = client_for("researcher").get(
        "/api/datasets/cnndm-far/leaderboard/", {"category": "low", "k": 3}
    )
    assert response.status_code == 200
    board = response.json()
    assert board["n_documents"] == 89 and board["category"] == "low" and board["k"] == 3
    rows = {row["system"]: row for row in board["systems"]}
    assert set(rows) == set(PUBLISHED)
    for system, (sap, sar, saf1, far) in PUBLISHED.items():
        row = rows[system]
        measured = tuple(round(row[m]["mean"], 3) for m in ("sap", "sar", "saf1", "far"))
        assert measured == (sap, sar, saf1, far), system
        assert row["far"]["ci_low"] < row["far"]["mean"] < row["far"]["ci_high"]
        assert row["n_documents"] == 89 and row["far"]["n"] == 89
    assert [row["system"] for row in board["systems"]][:2] == ["unifiedsum-e", "refresh"]
    # The worker stored the usual leaderboards after the job: all documents and 4 categories.
    assert _wait_for_warm_leaderboards(job.dataset) == 5


@needs_far
@pytest.mark.skipif(
    settings.CELERY_EMBEDDED_BROKER,
    reason="a killed worker's task comes back only on a broker with acknowledgements (Redis): "
    "set CELERY_BROKER_URL",
)
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_job_leaves_no_duplicate_or_missing_rows(worker_factory):
    from config.celery import app

    queue = f"loupe-kill-{uuid.uuid4().hex[:8]}"
    previous, app.conf.task_default_queue = app.conf.task_default_queue, queue
    try:
        dataset_import(format_name="far-release", source=FAR_RELEASE, slug="cnndm-far")
        job = ScoringJob.objects.get(dataset__slug="cnndm-far")
        # Chunks of 20 outputs: the job is still running when the worker dies.
        first = worker_factory(queue, env={"LOUPE_SCORING_CHUNK": "20"})
        chunks = ScoringChunk.objects.filter(job=job)
        # Five chunks done, then the next one caught inside its write (the job's row held).
        caught = kill_inside_a_chunk(job, lambda: sigkill(first), done_first=5)
        job.refresh_from_db()
        interrupted = set(
            chunks.filter(attempts__gte=1, done_at__isnull=True).values_list("index", flat=True)
        )
        assert caught in interrupted
        assert job.status == JobStatus.RUNNING and 5 <= job.chunks_done < job.chunks_total == 38
        # A new worker takes the rest, and the killed worker's unacknowledged chunk comes back.
        worker_factory(
            queue, env={"CELERY_VISIBILITY_TIMEOUT": "5", "CELERY_RESTORE_INTERVAL": "1"}
        )
        job = _wait_for(job, timeout=240)
    finally:
        app.conf.task_default_queue = previous
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.chunks_done == job.chunks_total == 38 and job.outputs_total == 760
    stored = [s[:3] for s in stored_scores(version__dataset=job.dataset)]
    expected = _expected_rows(job.dataset)
    assert len(stored) == len(set(stored)) == len(expected)
    assert set(stored) == expected
    assert job.scores_written == len(expected)
    assert _wait_for_warm_leaderboards(job.dataset) == 5
    # The chunk the worker was inside when it died ran again, on the new worker.
    assert set(chunks.filter(attempts__gte=2).values_list("index", flat=True)) >= interrupted


@needs_far
@pytest.mark.django_db(transaction=True)
def test_two_workers_build_a_jobs_score_arrays_in_parts_then_complete_it(
    worker_factory, client_for
):
    from config.celery import app

    queue = f"loupe-parts-{uuid.uuid4().hex[:8]}"
    previous, app.conf.task_default_queue = app.conf.task_default_queue, queue
    try:
        dataset_import(format_name="far-release", source=FAR_RELEASE, slug="cnndm-far")
        # The release's 6 systems count as many: their arrays are built in 2 parts.
        parts = {"LOUPE_ARRAY_PARTS_FROM": "2", "LOUPE_ARRAY_PARTS": "2"}
        for _ in range(2):
            worker_factory(queue, env=parts)
        job = _wait_for(ScoringJob.objects.get(dataset__slug="cnndm-far"), timeout=240)
    finally:
        app.conf.task_default_queue = previous
    assert job.status == JobStatus.SUCCEEDED, job.error
    built = ScoreArray.objects.filter(version__dataset=job.dataset, key=OUTPUTS_KEY)
    assert built.count() == len(PUBLISHED)
    # Every array was built before the job was marked done (its first leaderboard reads them).
    assert max(built.values_list("built_at", flat=True)) <= job.finished_at
    board = client_for("researcher").get(
        "/api/datasets/cnndm-far/leaderboard/", {"category": "low", "k": 3}
    )
    rows = {row["system"]: row for row in board.json()["systems"]}
    for system, (sap, sar, saf1, far) in PUBLISHED.items():
        measured = tuple(round(rows[system][m]["mean"], 3) for m in ("sap", "sar", "saf1", "far"))
        assert measured == (sap, sar, saf1, far), system
