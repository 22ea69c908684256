"""Celery tasks: a scoring job fans chunks out with a chord; the callback checks completeness."""

from __future__ import annotations

import logging

from celery import chord, shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import F

from config.celery import chord_failure_task, chord_fan_out, long_job

from .models import ScoringChunk, ScoringJob

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=900)
# How often a job re-sends chunks that never finished before it gives up.
MAX_DISPATCHES = 4
# A chunk started this often without finishing kills its worker each time (say, out of
# memory): the job fails naming it instead of sending it round for ever.
MAX_CHUNK_ATTEMPTS = 4


def _job(job_id: int) -> ScoringJob | None:
    job = ScoringJob.objects.select_related("dataset").filter(pk=job_id).first()
    if job is None:
        log.warning("scoring job %s no longer exists; nothing to do", job_id)
    return job


@shared_task(name="loupe.scores.job_run", **LONG_JOB)
def scoring_job_run(job_id: int, dispatch: int = 0) -> int:
    """Plan the job's chunks (once) and send the unfinished ones to the workers as a chord.

    A dispatch is counted once its chord is sent. A message whose dispatch was already sent
    (the broker redelivers it when the worker died after sending, before acknowledging) sends
    nothing: the chunks it sent are queued, and a dead worker's chunk comes back by itself.

    Args:
        job_id: the job's primary key (re-fetched; a deleted or finished job is a no-op).
        dispatch: how many dispatches the job had when this message was sent.

    Returns:
        How many chunks were sent.
    """
    from .services import scoring_job_fail, scoring_job_finish, scoring_job_plan

    job = _job(job_id)
    if job is None or job.finished:
        return 0
    if job.dispatches > dispatch:
        log.info("scoring job %s: dispatch %s was already sent; nothing to do", job_id, dispatch)
        return 0
    if job.dispatches >= MAX_DISPATCHES:
        missing = list(job.chunks.filter(done_at__isnull=True).values_list("index", flat=True))
        scoring_job_fail(
            job=job,
            error=f"chunks {missing} did not finish after {job.dispatches} dispatches",
        )
        return 0
    chunks = scoring_job_plan(job=job)
    if not chunks:
        scoring_job_finish(job=job)
        return 0
    sent = chord_fan_out(
        [scoring_chunk_run.s(job_id, chunk.pk) for chunk in chunks],
        done=scoring_job_done,
        failed=scoring_job_failed,
        key=job_id,
    )
    ScoringJob.objects.filter(pk=job_id).update(dispatches=F("dispatches") + 1)
    return sent


@shared_task(name="loupe.scores.chunk_run", **LONG_JOB)
def scoring_chunk_run(job_id: int, chunk_id: int) -> int:
    """Score one chunk and upsert its rows (idempotent: a redelivered chunk recomputes them).

    Args:
        job_id: the job's primary key.
        chunk_id: the chunk's primary key.

    Returns:
        How many scores were written.
    """
    from .services import scoring_chunk_compute, scoring_job_fail

    chunk = ScoringChunk.objects.select_related("job__dataset").filter(pk=chunk_id).first()
    if chunk is None or chunk.job_id != job_id or chunk.done_at is not None:
        return 0
    if chunk.attempts >= MAX_CHUNK_ATTEMPTS:
        scoring_job_fail(
            job=chunk.job,
            error=f"chunk {chunk.index} was started {chunk.attempts} times and never finished "
            "(its worker died each time)",
        )
        return 0
    return scoring_chunk_compute(chunk=chunk)


@shared_task(name="loupe.scores.job_done")
def scoring_job_done(results: list[int], job_id: int) -> int:
    """Chord callback: complete the job, or re-send the chunks that are not done yet.

    When every chunk is done and the dataset's versions lack many score arrays (at least
    ``LOUPE_ARRAY_PARTS_FROM``: a job over many systems), they are built first in
    ``LOUPE_ARRAY_PARTS`` tasks beside each other, and :func:`scoring_job_complete` follows
    them; otherwise the job completes here.

    Args:
        results: scores written per chunk.
        job_id: the job's primary key.

    Returns:
        The scores written by this round of chunks.
    """
    from scoring.leaderboards.tasks import array_parts, leaderboard_arrays_part

    from .selectors import score_array_missing

    job = _job(job_id)
    if job is None:
        return sum(results)
    if not job.finished and not job.chunks.filter(done_at__isnull=True).exists():
        missing = score_array_missing(dataset=job.dataset)
        if len(missing) >= settings.LOUPE_ARRAY_PARTS_FROM:
            parts = array_parts(missing, settings.LOUPE_ARRAY_PARTS)
            # A part that fails all the same (killed at its time limit) completes the job too.
            complete = scoring_job_complete.si(job_id).on_error(
                scoring_job_complete_anyway.s(job_id)
            )
            chord([leaderboard_arrays_part.s(job.dataset_id, part) for part in parts])(complete)
            return sum(results)
    _complete(job)
    return sum(results)


@shared_task(name="loupe.scores.job_complete")
def scoring_job_complete(job_id: int) -> bool:
    """After the score arrays' parts: complete the job (see :func:`scoring_job_done`).

    Args:
        job_id: the job's primary key (re-fetched; a deleted job is a no-op).

    Returns:
        Whether the job is finished.
    """
    job = _job(job_id)
    return False if job is None else _complete(job)


def _complete_anyway(job_id: int, error: str) -> None:
    log.warning(
        "scoring job %s: building its score arrays failed (%s); completing it", job_id, error
    )
    job = _job(job_id)
    if job is not None:
        _complete(job)  # builds the arrays still missing, else the board reads the rows


scoring_job_complete_anyway = chord_failure_task(
    name="loupe.scores.job_complete_anyway",
    record=_complete_anyway,
    doc="Error callback of the score arrays' parts: complete the job all the same.",
)


def _complete(job: ScoringJob) -> bool:
    """Finish the job and store its first leaderboard in the same transaction (building the
    score arrays still missing), then warm the rest; or re-send its unfinished chunks."""
    from scoring.leaderboards.services import leaderboard_first_view_store
    from scoring.leaderboards.tasks import leaderboard_warm

    from .services import scoring_job_finish

    with transaction.atomic():
        finished = scoring_job_finish(job=job)
        if finished:
            # The leaderboard a reader opens first is stored in the transaction that marks
            # the job done: whoever sees "succeeded" reads it instead of computing it again.
            leaderboard_first_view_store(dataset=job.dataset, ks=job.ks)
    if finished:
        leaderboard_warm.delay(job.dataset_id, job.ks)  # the category tables
    else:
        log.warning("scoring job %s has unfinished chunks; sending them again", job.pk)
        scoring_job_run.delay(job.pk, job.dispatches)
    return finished


def _job_failed(job_id: int, error: str) -> None:
    from .services import scoring_job_fail

    job = _job(job_id)
    if job is not None:
        scoring_job_fail(job=job, error=error)


scoring_job_failed = chord_failure_task(
    name="loupe.scores.job_failed",
    record=_job_failed,
    doc="Chord error callback: record why the scoring job failed.",
)
