"""APES on the PolyTope release: both answerers in-process, and a real worker SIGKILLed mid-run."""

from __future__ import annotations

import json
import time
import uuid
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from annotation.corpus.services import dataset_import
from annotation.systems.models import SystemOutput
from scoring.apes.models import ApesChunk, ApesQuestionSet, ApesRun, RunStatus
from scoring.apes.services import apes_run_create
from tests.conftest import POLYTOPE_OUTPUTS, needs_polytope
from tests.jobs.processes import kill_inside_a_chunk, sigkill
from tests.score_helpers import stored_scores

SYSTEMS = {
    "bart", "bertsumext", "bertsumextabs", "bottom-up", "lead-3", "pointer-generator",
    "pointer-generator-coverage", "seq2seq", "summarunner", "textrank",
}  # fmt: skip


def _import():
    dataset_import(format_name="polytope-release", source=POLYTOPE_OUTPUTS, slug="polytope")


@needs_polytope
@pytest.mark.django_db
def test_ten_systems_both_answerers_and_every_output_accounted_for(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=False):  # no broker: nothing is queued
        _import()
    out = StringIO()
    call_command("apes", "--dataset", "polytope", "--format", "json", stdout=out)
    report = json.loads(out.getvalue())
    run = report["meta"]["run"]
    assert run["status"] == "succeeded" and run["answerers"] == ["apes", "apes_embedding"]
    # The release has 10 x 150 summaries, TextRank's 25_.txt a duplicate of 24_.txt (the
    # importer keeps one and reports the other): 1,499 outputs, each scored or undefined.
    assert run["outputs_total"] == 1499
    assert sum(run["outcomes"].values()) == 1499 and run["outcomes"]["no_reference"] == 0
    rows = report["systems"]
    assert {(r["answerer"], r["system"]) for r in rows} == {
        (a, s) for a in ("apes", "apes_embedding") for s in SYSTEMS
    }
    for row in rows:
        assert 0.0 <= row["value"] <= 1.0 and 0.0 <= row["pooled"] <= 1.0, row
        # Every one of the 150 documents: a scored summary, an undefined one (with its
        # reason), or no summary in the release.
        assert row["n_scored"] + row["n_undefined"] + row["n_documents_without_output"] == 150
        assert sum(row["undefined_reasons"].values()) == row["n_undefined"]
        assert row["n_questions"] > 0 and 0 <= row["n_correct"] <= row["n_questions"]
    assert sum(r["n_summaries"] + r["n_documents_without_output"] for r in rows) == 2 * 1500
    # Every system answers the same references' questions; its scored summaries have rows.
    for answerer in ("apes", "apes_embedding"):
        assert len(stored_scores(answerer)) == run["outcomes"]["scored"]
    # Each reference's questions were computed once, not once per system.
    assert ApesQuestionSet.objects.count() == 150
    # seq2seq (repetitive, generic output) is the lowest system with both answerers.
    for answerer in ("apes", "apes_embedding"):
        mine = {r["system"]: r["value"] for r in rows if r["answerer"] == answerer}
        assert min(mine, key=mine.get) == "seq2seq"


def _wait_for(run: ApesRun, timeout: float) -> ApesRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.finished:
            return run
        time.sleep(0.5)
    raise AssertionError(f"run {run.pk} still {run.status} after {timeout} s: {run.chunks_done}")


@needs_polytope
@pytest.mark.skipif(
    settings.CELERY_EMBEDDED_BROKER,
    reason="a killed worker's task comes back only on a broker with acknowledgements (Redis): "
    "set CELERY_BROKER_URL",
)
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_run_leaves_no_duplicate_or_missing_rows(worker_factory):
    from config.celery import app

    _import()  # its scoring job goes to the default queue, which no worker here reads
    queue = f"loupe-apes-kill-{uuid.uuid4().hex[:8]}"
    previous, app.conf.task_default_queue = app.conf.task_default_queue, queue
    try:
        from annotation.corpus.models import Dataset

        dataset = Dataset.objects.get(slug="polytope")
        first = worker_factory(queue)
        run = apes_run_create(dataset=dataset, answerers=["apes"], chunk_size=30)
        chunks = ApesChunk.objects.filter(run=run)
        # Five chunks done, then the next one caught inside its write (the run's row held).
        caught = kill_inside_a_chunk(run, lambda: sigkill(first), done_first=5)
        run.refresh_from_db()
        interrupted = set(
            chunks.filter(attempts__gte=1, done_at__isnull=True).values_list("index", flat=True)
        )
        assert caught in interrupted
        assert run.status == RunStatus.RUNNING and 5 <= run.chunks_done < run.chunks_total == 50
        # A new worker takes the rest, and the killed worker's unacknowledged chunk comes back.
        worker_factory(
            queue, env={"CELERY_VISIBILITY_TIMEOUT": "5", "CELERY_RESTORE_INTERVAL": "1"}
        )
        run = _wait_for(run, timeout=300)
    finally:
        app.conf.task_default_queue = previous
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.chunks_done == run.chunks_total == 50 and run.outputs_total == 1499
    assert sum(run.outcomes.values()) == 1499
    with_questions = set(
        ApesQuestionSet.objects.filter(n_questions__gt=0).values_list(
            "reference__document_id", flat=True
        )
    )
    expected = {
        (version_id, document_id)
        for version_id, document_id in SystemOutput.objects.filter(
            version__dataset=dataset
        ).values_list("version_id", "document_id")
        if document_id in with_questions
    }
    stored = [
        (s.version_id, s.document_id) for s in stored_scores("apes", version__dataset=dataset)
    ]
    assert len(stored) == len(set(stored)) == len(expected) == run.outcomes["scored"]
    assert set(stored) == expected
    assert run.scores_written == len(expected)
    # The chunk the worker was inside when it died ran again, on the new worker.
    assert set(chunks.filter(attempts__gte=2).values_list("index", flat=True)) >= interrupted
