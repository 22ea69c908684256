"""The scoring job on the job kernel: plan (chunks of outputs), chunk (score them), finish
(the score arrays, then the leaderboards' first view through ``scoring_job_finishing``)."""

from __future__ import annotations

import logging

from celery import chord, signature
from django.conf import settings
from django.db import transaction

from annotation.jobs.kernel import JobKind, job_complete, job_kind_register

from ..models import ScoringChunk, ScoringJob
from ..selectors import score_array_missing
from ..signals import scoring_job_finishing, scoring_job_succeeded
from .arrays import array_parts, score_arrays_build_missing
from .chunks import scoring_chunk_compute, scoring_chunks_create

log = logging.getLogger(__name__)


def _chunk(chunk: ScoringChunk) -> int:
    return scoring_chunk_compute(chunk=chunk)


def _finish(job: ScoringJob) -> None:
    """In the transaction that marks the job succeeded: build the arrays still missing, then
    let the leaderboards store their first view. Neither may undo the job's success."""
    try:
        with transaction.atomic():
            score_arrays_build_missing(dataset=job.dataset)
    except Exception:  # noqa: BLE001 - the boards then read the score rows
        log.exception("could not build the score arrays of dataset %s", job.dataset_id)
    scoring_job_finishing.send(sender=ScoringJob, job=job)


def _after(job: ScoringJob) -> None:
    scoring_job_succeeded.send(sender=ScoringJob, job=job)


def _complete(*, job: ScoringJob) -> bool:
    """Complete the job; when its versions lack many score arrays (at least
    ``LOUPE_ARRAY_PARTS_FROM``), build them first in ``LOUPE_ARRAY_PARTS`` tasks beside each
    other, whose chord completes it (``loupe.scores.job_complete``)."""
    if not job.finished and not job.chunks.filter(done_at__isnull=True).exists():
        missing = score_array_missing(dataset=job.dataset)
        if len(missing) >= settings.LOUPE_ARRAY_PARTS_FROM:
            parts = array_parts(missing, settings.LOUPE_ARRAY_PARTS)
            # A part that fails all the same (killed at its time limit) completes the job too.
            complete = signature("loupe.scores.job_complete", args=(job.pk,))
            anyway = signature("loupe.scores.job_complete_anyway", args=(job.pk,))
            header = [
                signature("loupe.scores.arrays_part", args=(job.dataset_id, p)) for p in parts
            ]
            chord(header)(complete.on_error(anyway))
            return True
    return job_complete(kind=SCORING, job=job)


SCORING = job_kind_register(
    JobKind(
        name="scoring",
        job_model=ScoringJob,
        chunk_model=ScoringChunk,
        plan=scoring_chunks_create,
        chunk=_chunk,
        finish=_finish,
        after=_after,
        complete=_complete,
    )
)
