"""Leaderboard services (writes): store a computed leaderboard, and serve one from its cache."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction

from annotation.corpus.models import Dataset
from scoring.metrics.far import DEFAULT_K
from scoring.scores.selectors import scoring_jobs_summary

from .models import LeaderboardSnapshot
from .selectors import leaderboard_read

log = logging.getLogger(__name__)


def leaderboard_snapshot_store(*, dataset: Dataset, params: str, stamp: str, payload: dict) -> None:
    """Store (or replace) the snapshot of one leaderboard.

    Args:
        dataset: the dataset.
        params: the leaderboard's parameters as a cache key.
        stamp: the digest of its inputs (see ``leaderboard_read``).
        payload: the computed leaderboard.
    """
    try:
        with transaction.atomic():
            LeaderboardSnapshot.objects.update_or_create(
                dataset=dataset, params=params, defaults={"stamp": stamp, "payload": payload}
            )
    except IntegrityError:
        pass  # a concurrent request stored the same snapshot first


def leaderboard_serve(
    *,
    dataset: Dataset,
    category: str | None = None,
    k: int = DEFAULT_K,
    sort: str | None = None,
    common_only: bool = False,
) -> dict:
    """The leaderboard as the API serves it: read (or computed and stored), with live jobs.

    Args:
        dataset: the dataset.
        category: ``noise``, ``low``, ``high``, ``low+high`` or None for all documents.
        k: the FAR cut-off.
        sort: the metric to sort and test by (default ``far``, else ``rouge1_f``).
        common_only: restrict every system to the documents all of them cover.

    Returns:
        The envelope of ``leaderboard_read``'s payload plus ``jobs`` (the live scoring jobs).

    Raises:
        LeaderboardParamsError: an unknown category, a bad k or a sort metric without data.
    """
    read = leaderboard_read(
        dataset=dataset, category=category, k=k, sort=sort, common_only=common_only
    )
    if not read.stored:
        leaderboard_snapshot_store(
            dataset=dataset, params=read.params, stamp=read.stamp, payload=read.payload
        )
    return {**read.payload, "jobs": scoring_jobs_summary(dataset=dataset)}


def leaderboard_first_view_store(*, dataset: Dataset, ks: list[int]) -> None:
    """Store the leaderboard page's default view: all documents, at the default k if computed
    (the scores app built the job's score arrays just before).

    Called in the transaction that marks a scoring job done. A failure is logged, not raised:
    it must not undo the job's success (a savepoint keeps the caller's transaction usable),
    and the first reader then computes the table from the score rows.

    Args:
        dataset: the dataset.
        ks: the FAR cut-offs the job computed.
    """
    k = DEFAULT_K if DEFAULT_K in ks or not ks else ks[0]
    try:
        with transaction.atomic():
            leaderboard_serve(dataset=dataset, k=k)
    except Exception:  # noqa: BLE001 - the job stays succeeded whatever the leaderboard does
        log.exception("could not store the first leaderboard of dataset %s", dataset.pk)
