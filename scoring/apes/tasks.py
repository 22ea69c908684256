"""Celery tasks: an APES run fans its chunks out with a chord; the callback checks completeness."""

from __future__ import annotations

import logging

from celery import shared_task

from config.celery import BACKGROUND, chord_failure_task, chord_fan_out, long_job

from .models import ApesChunk, ApesRun
from .signals import apes_run_finished

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=900, background=True)
# How often a run re-sends chunks that never finished before it gives up.
MAX_DISPATCHES = 4
# A chunk started this often without finishing kills its worker each time: the run fails
# naming it instead of sending it round for ever.
MAX_CHUNK_ATTEMPTS = 4


def _run(run_id: int) -> ApesRun | None:
    run = ApesRun.objects.select_related("dataset").filter(pk=run_id).first()
    if run is None:
        log.warning("APES run %s no longer exists; nothing to do", run_id)
    return run


@shared_task(name="loupe.apes.run", **LONG_JOB)
def apes_run_task(run_id: int) -> int:
    """Plan the run's chunks (once) and send the unfinished ones to the workers as a chord.

    Args:
        run_id: the run's primary key (re-fetched; a deleted or finished run is a no-op).

    Returns:
        How many chunks were sent.
    """
    from .services import apes_run_fail, apes_run_finish, apes_run_plan

    run = _run(run_id)
    if run is None or run.finished:
        return 0
    if run.dispatches >= MAX_DISPATCHES:
        missing = list(run.chunks.filter(done_at__isnull=True).values_list("index", flat=True))
        apes_run_fail(
            run=run, error=f"chunks {missing} did not finish after {run.dispatches} dispatches"
        )
        return 0
    chunks = apes_run_plan(run=run)
    if not chunks:
        if apes_run_finish(run=run):
            _warm(run)
        return 0
    return chord_fan_out(
        [apes_chunk_task.s(run_id, chunk.pk) for chunk in chunks],
        done=apes_run_done,
        failed=apes_run_failed,
        key=run_id,
    )


@shared_task(name="loupe.apes.chunk", **LONG_JOB)
def apes_chunk_task(run_id: int, chunk_id: int) -> int:
    """Answer one chunk's questions and upsert its scores (a redelivered chunk recomputes them).

    Args:
        run_id: the run's primary key.
        chunk_id: the chunk's primary key.

    Returns:
        How many scores were written.
    """
    from .services import apes_chunk_compute, apes_run_fail

    chunk = ApesChunk.objects.select_related("run__dataset").filter(pk=chunk_id).first()
    if chunk is None or chunk.run_id != run_id or chunk.done_at is not None:
        return 0
    if chunk.attempts >= MAX_CHUNK_ATTEMPTS:
        apes_run_fail(
            run=chunk.run,
            error=f"chunk {chunk.index} was started {chunk.attempts} times and never finished "
            "(its worker died each time)",
        )
        return 0
    return apes_chunk_compute(chunk=chunk)


def _warm(run: ApesRun) -> None:
    # The leaderboards (above APES) warm their tables on this event.
    apes_run_finished.send(sender=ApesRun, dataset_id=run.dataset_id, run=run)


@shared_task(name="loupe.apes.done", **BACKGROUND)
def apes_run_done(results: list[int], run_id: int) -> int:
    """Chord callback: finish the run, or re-send the chunks that are not done yet.

    Args:
        results: scores written per chunk.
        run_id: the run's primary key.

    Returns:
        The scores written by this round of chunks.
    """
    from .services import apes_run_finish

    run = _run(run_id)
    if run is None:
        return sum(results)
    if apes_run_finish(run=run):
        _warm(run)
    else:
        log.warning("APES run %s has unfinished chunks; sending them again", run_id)
        apes_run_task.delay(run_id)
    return sum(results)


def _run_failed(run_id: int, error: str) -> None:
    from .services import apes_run_fail

    run = _run(run_id)
    if run is not None:
        apes_run_fail(run=run, error=error)


apes_run_failed = chord_failure_task(
    name="loupe.apes.failed",
    record=_run_failed,
    doc="Chord error callback: record why the APES run failed.",
)
