"""Celery tasks of the scores app beyond the job kernel's: a finished scoring job's score
arrays built in parts beside each other, then the job's completion."""

from __future__ import annotations

import logging

from celery import shared_task

from annotation.corpus.models import Dataset
from annotation.jobs.kernel import job_complete

from .models import ScoringJob
from .services.arrays import score_arrays_build_missing
from .services.kind import SCORING

log = logging.getLogger(__name__)


@shared_task(name="loupe.scores.arrays_part", acks_late=True, soft_time_limit=600, time_limit=660)
def score_arrays_part(dataset_id: int, version_ids: list[int]) -> int:
    """Build the score arrays of some of a dataset's versions: one part of a finished job's
    build, run beside the others (one per worker) before the job's first leaderboard.

    Idempotent (versions whose arrays are current are skipped). Never raises: the arrays are
    an index of the score rows, and the job's completion runs after every part whatever
    happened; a version left without arrays is read from its rows.

    Args:
        dataset_id: the dataset's primary key (re-fetched; a deleted dataset is a no-op).
        version_ids: the versions to build.

    Returns:
        How many versions were built.
    """
    try:
        dataset = Dataset.objects.filter(pk=dataset_id).first()
        if dataset is None:
            return 0
        return score_arrays_build_missing(dataset=dataset, version_ids=version_ids)
    except Exception:  # noqa: BLE001 - the job completes without these arrays
        log.exception("could not build the score arrays of versions %s", version_ids)
        return 0


@shared_task(name="loupe.scores.job_complete", acks_late=True)
def scoring_job_complete(job_id: int) -> bool:
    """After the score arrays' parts: complete the job (builds what the parts left).

    Args:
        job_id: the job's primary key (re-fetched; a deleted job is a no-op).

    Returns:
        Whether the job is finished.
    """
    job = ScoringJob.objects.filter(pk=job_id).first()
    return False if job is None else job_complete(kind=SCORING, job=job)


@shared_task(name="loupe.scores.job_complete_anyway", acks_late=True)
def scoring_job_complete_anyway(request, exc, traceback, job_id: int) -> bool:
    """Error callback of the score arrays' parts: complete the job all the same.

    Args:
        request: the failed part's request.
        exc: its exception.
        traceback: its traceback.
        job_id: the job's primary key.

    Returns:
        Whether the job is finished.
    """
    log.warning("scoring job %s: building its score arrays failed (%s); completing it", job_id, exc)
    return scoring_job_complete(job_id)
