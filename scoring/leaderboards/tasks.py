"""Celery tasks: compute a dataset's usual leaderboards once its scoring job is done."""

from __future__ import annotations

import logging

from celery import shared_task

from annotation.corpus.models import Dataset
from scoring.scores.services.arrays import score_arrays_build_missing

from .selectors import CATEGORIES
from .services import leaderboard_serve

log = logging.getLogger(__name__)


@shared_task(name="loupe.leaderboards.warm", acks_late=True, soft_time_limit=600, time_limit=660)
def leaderboard_warm(dataset_id: int, ks: list[int]) -> int:
    """Store the leaderboards a reader opens first, so the first page view is not the slow one.

    Idempotent: a leaderboard whose inputs did not change is read back, not recomputed.

    Args:
        dataset_id: the dataset's primary key (re-fetched; a deleted dataset is a no-op).
        ks: the FAR cut-offs the job computed.

    Returns:
        How many leaderboards were computed or confirmed.
    """
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        return 0
    try:
        score_arrays_build_missing(dataset=dataset)  # none to build after a job: a no-op
    except Exception:  # noqa: BLE001 - the boards are then computed from the score rows
        log.exception("could not build the score arrays of dataset %s", dataset_id)
    count = 0
    for k in ks:
        for category in (None, *CATEGORIES):
            leaderboard_serve(dataset=dataset, category=category, k=k)
            count += 1
    return count
