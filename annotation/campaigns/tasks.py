"""Celery tasks: precompute a campaign's suggestions, fanned out over chunks of documents."""

from __future__ import annotations

import logging

from celery import shared_task

from config.celery import chord_failure_task, chord_fan_out, long_job

from .models import Campaign, SuggestionStatus

log = logging.getLogger(__name__)
CHUNK = 25

LONG_JOB = long_job(soft_time_limit=600)


@shared_task(name="loupe.campaigns.suggestions_compute", **LONG_JOB)
def campaign_suggestions_compute(campaign_id: int) -> int:
    """Fan the campaign's documents out in chunks; a chord callback marks the result.

    Args:
        campaign_id: the campaign's primary key (re-fetched; a deleted campaign is a no-op).

    Returns:
        How many chunks were queued.
    """
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        log.warning("campaign %s no longer exists; nothing to compute", campaign_id)
        return 0
    ids = list(campaign.documents.order_by("position", "id").values_list("pk", flat=True))
    chunks = [ids[i : i + CHUNK] for i in range(0, len(ids), CHUNK)]
    return chord_fan_out(
        [suggestions_compute_chunk.s(campaign_id, chunk) for chunk in chunks],
        done=campaign_suggestions_finish,
        failed=campaign_suggestions_failed,
        key=campaign_id,
    )


@shared_task(name="loupe.campaigns.suggestions_chunk", **LONG_JOB)
def suggestions_compute_chunk(campaign_id: int, document_ids: list[int]) -> int:
    """Compute and upsert suggestions for some documents (idempotent: recompute and overwrite).

    Args:
        campaign_id: the campaign's primary key.
        document_ids: the documents of this chunk.

    Returns:
        How many (document, scorer) rows were written.
    """
    from .services import suggestions_compute_documents

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return 0
    return suggestions_compute_documents(campaign=campaign, document_ids=document_ids)


@shared_task(name="loupe.campaigns.suggestions_finish")
def campaign_suggestions_finish(results: list[int], campaign_id: int) -> int:
    """Chord callback: every chunk succeeded, so the suggestions are ready.

    Args:
        results: rows written per chunk.
        campaign_id: the campaign's primary key.

    Returns:
        The total rows written.
    """
    from .services import campaign_suggestions_status_set

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None:
        campaign_suggestions_status_set(campaign=campaign, status=SuggestionStatus.READY)
    return sum(results)


def _suggestions_failed(campaign_id: int, error: str) -> None:
    from .services import campaign_suggestions_status_set

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None:
        campaign_suggestions_status_set(
            campaign=campaign, status=SuggestionStatus.FAILED, error=error
        )


campaign_suggestions_failed = chord_failure_task(
    name="loupe.campaigns.suggestions_failed",
    record=_suggestions_failed,
    doc="Chord error callback: record why the campaign's suggestions could not be computed.",
)
