"""Bias runs on real Celery workers: an import's run through the chord, and a worker SIGKILLed
mid-run on the PolyTope release (its chunk comes back; nothing is lost or counted twice)."""

from __future__ import annotations

import io
import time
import uuid

import pytest
from django.conf import settings

from annotation.corpus.services import dataset_import
from scoring.bias.models import BiasChunk, BiasRun, BiasSourceRow, RunStatus
from tests.conftest import POLYTOPE_OUTPUTS, needs_polytope
from tests.jobs.processes import kill_inside_a_chunk, sigkill

JSONL = (
    b'{"id": "a1", "sentences": ["The storm hit the coast on Monday.", "Thousands lost power."],'
    b' "references": [["The storm hit the coast, and thousands lost power."]]}\n'
    b'{"id": "a2", "sentences": ["Rain fell all night.", "Roads closed at dawn."],'
    b' "references": [["Rain fell all night."]]}\n'
)


def _wait_for(run: BiasRun, timeout: float) -> BiasRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.finished:
            return run
        time.sleep(0.25)
    raise AssertionError(f"bias run {run.pk} still {run.status}: {run.chunks_done} chunks done")


@pytest.mark.django_db(transaction=True)
def test_an_imported_dataset_is_measured_by_a_real_worker(celery_worker_process):
    source = io.BytesIO(JSONL)
    source.name = "storm.jsonl"
    dataset_import(format_name="jsonl", source=source, slug="storm-worker")
    run = _wait_for(BiasRun.objects.get(dataset__slug="storm-worker"), timeout=120)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.trigger == "import" and run.pairs_total == 2 and run.progress == 1.0
    (row,) = BiasSourceRow.objects.filter(run=run)
    # By hand: the worked example (cov 8/9) and a whole copied sentence (cov 1), references.
    assert row.source == "reference" and row.n_items == 2
    assert row.coverage == pytest.approx((8 / 9 + 1) / 2)
    assert row.density == pytest.approx((34 / 9 + 4) / 2)


@needs_polytope
@pytest.mark.skipif(
    settings.CELERY_EMBEDDED_BROKER,
    reason="a killed worker's task comes back only on a broker with acknowledgements (Redis): "
    "set CELERY_BROKER_URL",
)
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(worker_factory):
    from config.celery import app
    from scoring.bias.services import bias_run_inline

    queue = f"loupe-kill-{uuid.uuid4().hex[:8]}"
    previous, app.conf.task_default_queue = app.conf.task_default_queue, queue
    try:
        dataset_import(format_name="polytope-release", source=POLYTOPE_OUTPUTS, slug="polytope")
        run = BiasRun.objects.get(dataset__slug="polytope")
        # One document per chunk (11 pairs).
        first = worker_factory(queue, env={"LOUPE_BIAS_CHUNK": "1"})
        chunks = BiasChunk.objects.filter(run=run)
        # Five chunks done, then the next one caught inside its write (the run's row held).
        caught = kill_inside_a_chunk(run, lambda: sigkill(first), done_first=5)
        run.refresh_from_db()
        interrupted = set(
            chunks.filter(attempts__gte=1, done_at__isnull=True).values_list("index", flat=True)
        )
        assert caught in interrupted
        assert run.status == RunStatus.RUNNING and 5 <= run.chunks_done < run.chunks_total == 150
        done_before = set(chunks.filter(done_at__isnull=False).values_list("index", flat=True))
        worker_factory(
            queue, env={"CELERY_VISIBILITY_TIMEOUT": "5", "CELERY_RESTORE_INTERVAL": "1"}
        )
        run = _wait_for(run, timeout=240)
    finally:
        app.conf.task_default_queue = previous
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.chunks_done == run.chunks_total == 150
    # The chunks finished before the kill were not computed again; the interrupted one was.
    assert set(chunks.filter(attempts=1).values_list("index", flat=True)) >= done_before
    assert set(chunks.filter(attempts__gte=2).values_list("index", flat=True)) >= interrupted
    assert sum(chunks.values_list("pairs", flat=True)) == run.pairs_total
    rows = {row.source: row for row in BiasSourceRow.objects.filter(run=run)}
    assert len(rows) == 11 and rows["reference"].n_items == 150
    # The same figures as an uninterrupted run in one piece (a fresh run over a changed bins
    # count cannot reuse it, so it computes; bins do not touch the other measures).
    fresh = BiasRun.objects.create(dataset=run.dataset, trigger="manual", bins=5)
    fresh = bias_run_inline(run=fresh, chunk_size=150)
    assert fresh.reused_from_id is None and fresh.chunks_total == 1
    for row in BiasSourceRow.objects.filter(run=fresh):
        other = rows[row.source]
        assert row.n_items == other.n_items, row.source
        for key in ("coverage", "density", "compression", "copy_length", "fusion"):
            assert getattr(row, key) == pytest.approx(getattr(other, key), rel=1e-9)
        assert row.novel == pytest.approx(other.novel, rel=1e-9)
