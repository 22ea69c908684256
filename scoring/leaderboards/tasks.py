"""Celery tasks: build a finished job's score arrays in parts, and compute a dataset's usual
leaderboards once the job is done."""

from __future__ import annotations

import logging

from celery import shared_task

from annotation.corpus.models import Dataset

from .selectors import CATEGORIES
from .services import leaderboard_arrays_build, leaderboard_serve

log = logging.getLogger(__name__)


def array_parts(version_ids: list[int], parts: int) -> list[list[int]]:
    """Versions dealt into ``parts`` lists of nearly equal size (every ``parts``-th one).

    Args:
        version_ids: the versions, in order.
        parts: how many lists (at least 1).

    Returns:
        The non-empty lists.
    """
    return [part for i in range(parts) if (part := version_ids[i::parts])]


@shared_task(
    name="loupe.leaderboards.arrays_part", acks_late=True, soft_time_limit=600, time_limit=660
)
def leaderboard_arrays_part(dataset_id: int, version_ids: list[int]) -> int:
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
        return leaderboard_arrays_build(dataset=dataset, version_ids=version_ids)
    except Exception:  # noqa: BLE001 - the job completes without these arrays
        log.exception("could not build the score arrays of versions %s", version_ids)
        return 0


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
        leaderboard_arrays_build(dataset=dataset)  # none to build after a job: a no-op
    except Exception:  # noqa: BLE001 - the boards are then computed from the score rows
        log.exception("could not build the score arrays of dataset %s", dataset_id)
    count = 0
    for k in ks:
        for category in (None, *CATEGORIES):
            leaderboard_serve(dataset=dataset, category=category, k=k)
            count += 1
    return count
