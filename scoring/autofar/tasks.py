"""Celery tasks: an AutoFAR-L run fans its document chunks out with a chord."""

from __future__ import annotations

import logging

from celery import shared_task

from config.celery import BACKGROUND, chord_failure_task, chord_fan_out, long_job

from .models import AutoFarChunk, AutoFarRun
from .signals import autofar_run_finished

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=900, background=True)
# How often a run re-sends chunks that never finished before it gives up.
MAX_DISPATCHES = 4
# A chunk started this often without finishing kills its worker each time: the run fails
# naming it instead of sending it round for ever.
MAX_CHUNK_ATTEMPTS = 4


def _run(run_id: int) -> AutoFarRun | None:
    run = AutoFarRun.objects.select_related("dataset", "fit").filter(pk=run_id).first()
    if run is None:
        log.warning("AutoFAR-L run %s no longer exists; nothing to do", run_id)
    return run


@shared_task(name="loupe.autofar.run", **LONG_JOB)
def autofar_run_task(run_id: int) -> int:
    """Plan the run's chunks (once) and send the unfinished ones to the workers as a chord.

    Args:
        run_id: the run's primary key (re-fetched; a deleted or finished run is a no-op).

    Returns:
        How many chunks were sent.
    """
    from .services import autofar_run_fail, autofar_run_finish, autofar_run_plan

    run = _run(run_id)
    if run is None or run.finished:
        return 0
    if run.dispatches >= MAX_DISPATCHES:
        missing = list(run.chunks.filter(done_at__isnull=True).values_list("index", flat=True))
        autofar_run_fail(
            run=run, error=f"chunks {missing} did not finish after {run.dispatches} dispatches"
        )
        return 0
    chunks = autofar_run_plan(run=run)
    if not chunks:
        autofar_run_finish(run=run)
        return 0
    return chord_fan_out(
        [autofar_chunk_task.s(run_id, chunk.pk) for chunk in chunks],
        done=autofar_run_done,
        failed=autofar_run_failed,
        key=run_id,
    )


@shared_task(name="loupe.autofar.chunk", **LONG_JOB)
def autofar_chunk_task(run_id: int, chunk_id: int) -> int:
    """Compute one chunk and write its rows (idempotent: a redelivered chunk recomputes them).

    Args:
        run_id: the run's primary key.
        chunk_id: the chunk's primary key.

    Returns:
        How many scores were written.
    """
    from .services import autofar_chunk_compute, autofar_run_fail

    chunk = AutoFarChunk.objects.select_related("run").filter(pk=chunk_id).first()
    if chunk is None or chunk.run_id != run_id or chunk.done_at is not None:
        return 0
    if chunk.run.finished:
        return 0
    if chunk.attempts >= MAX_CHUNK_ATTEMPTS:
        autofar_run_fail(
            run=chunk.run,
            error=f"chunk {chunk.index} was started {chunk.attempts} times and never finished "
            "(its worker died each time)",
        )
        return 0
    return autofar_chunk_compute(chunk=chunk)


@shared_task(name="loupe.autofar.run_done", **BACKGROUND)
def autofar_run_done(results: list[int], run_id: int) -> int:
    """Chord callback: finish the run and announce it (to warm the boards), or re-send chunks.

    Args:
        results: scores written per chunk.
        run_id: the run's primary key.

    Returns:
        The scores written by this round of chunks.
    """
    from .services import autofar_run_finish

    run = _run(run_id)
    if run is None:
        return sum(results)
    if autofar_run_finish(run=run):
        # The leaderboards (above AutoFAR) warm their tables on this event.
        autofar_run_finished.send(
            sender=AutoFarRun, dataset_id=run.dataset_id, k=run.fit.k, run=run
        )
    else:
        log.warning("AutoFAR-L run %s has unfinished chunks; sending them again", run_id)
        autofar_run_task.delay(run_id)
    return sum(results)


def _run_failed(run_id: int, error: str) -> None:
    from .services import autofar_run_fail

    run = _run(run_id)
    if run is not None:
        autofar_run_fail(run=run, error=error)


autofar_run_failed = chord_failure_task(
    name="loupe.autofar.run_failed",
    record=_run_failed,
    doc="Chord error callback: record why the AutoFAR-L run failed.",
)
