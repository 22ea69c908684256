"""Celery tasks: a bias run fans its chunks out with a chord; the callback merges their sums."""

from __future__ import annotations

import logging

from celery import shared_task

from config.celery import BACKGROUND, chord_failure_task, chord_fan_out, long_job

from .models import BiasChunk, BiasRun

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=900, background=True)
# Seconds between two looks of a queued run at its dataset's scoring job (see
# selectors.bias_run_waits_for_scoring).
SCORING_RECHECK = 2
# How often a run re-sends chunks that never finished before it gives up.
MAX_DISPATCHES = 4
# A chunk started this often without finishing kills its worker each time (say, out of
# memory): the run fails naming it instead of sending it round for ever.
MAX_CHUNK_ATTEMPTS = 4


def _run(run_id: int) -> BiasRun | None:
    run = BiasRun.objects.select_related("dataset").filter(pk=run_id).first()
    if run is None:
        log.warning("bias run %s no longer exists; nothing to do", run_id)
    return run


@shared_task(name="loupe.bias.run", **LONG_JOB)
def bias_run_task(run_id: int) -> int:
    """Plan the run's chunks (once) and send the unfinished ones to the workers as a chord.

    Args:
        run_id: the run's primary key (re-fetched; a deleted or finished run is a no-op).

    Returns:
        How many chunks were sent.
    """
    from .selectors import bias_run_waits_for_scoring
    from .services import bias_run_fail, bias_run_finish, bias_run_plan

    run = _run(run_id)
    if run is None or run.finished:
        return 0
    if bias_run_waits_for_scoring(run=run):
        # An upload queues this run and a scoring job together: the run would take a worker
        # from the job's chunks. It looks again in a few seconds (the worker is free meanwhile).
        bias_run_task.apply_async((run_id,), countdown=SCORING_RECHECK)
        return 0
    if run.dispatches >= MAX_DISPATCHES:
        missing = list(run.chunks.filter(done_at__isnull=True).values_list("index", flat=True))
        bias_run_fail(
            run=run, error=f"chunks {missing} did not finish after {run.dispatches} dispatches"
        )
        return 0
    try:
        chunks = bias_run_plan(run=run)
    except Exception as error:
        bias_run_fail(run=run, error=f"{type(error).__name__}: {error}")
        raise
    if not chunks:
        bias_run_finish(run=run)
        return 0
    return chord_fan_out(
        [bias_chunk_task.s(run_id, chunk.pk) for chunk in chunks],
        done=bias_run_done,
        failed=bias_run_failed,
        key=run_id,
    )


@shared_task(name="loupe.bias.chunk", **LONG_JOB)
def bias_chunk_task(run_id: int, chunk_id: int) -> int:
    """Score one chunk and store its sums (idempotent: a redelivered chunk recomputes them).

    Args:
        run_id: the run's primary key.
        chunk_id: the chunk's primary key.

    Returns:
        How many pairs were scored.
    """
    from .services import bias_chunk_compute, bias_run_fail

    chunk = BiasChunk.objects.select_related("run__dataset").filter(pk=chunk_id).first()
    if chunk is None or chunk.run_id != run_id or chunk.done_at is not None:
        return 0
    if chunk.run.finished:
        return 0
    if chunk.attempts >= MAX_CHUNK_ATTEMPTS:
        bias_run_fail(
            run=chunk.run,
            error=f"chunk {chunk.index} was started {chunk.attempts} times and never finished "
            "(its worker died each time)",
        )
        return 0
    return bias_chunk_compute(chunk=chunk)


@shared_task(name="loupe.bias.run_done", **BACKGROUND)
def bias_run_done(results: list[int], run_id: int) -> int:
    """Chord callback: merge the chunks into rows, or re-send the chunks not done yet.

    Args:
        results: pairs scored per chunk.
        run_id: the run's primary key.

    Returns:
        The pairs scored by this round of chunks.
    """
    from .services import bias_run_finish

    run = _run(run_id)
    if run is not None and not bias_run_finish(run=run):
        log.warning("bias run %s has unfinished chunks; sending them again", run_id)
        bias_run_task.delay(run_id)
    return sum(results)


def _run_failed(run_id: int, error: str) -> None:
    from .services import bias_run_fail

    run = _run(run_id)
    if run is not None:
        bias_run_fail(run=run, error=error)


bias_run_failed = chord_failure_task(
    name="loupe.bias.run_failed",
    record=_run_failed,
    doc="Chord error callback: record why the bias run failed.",
)
