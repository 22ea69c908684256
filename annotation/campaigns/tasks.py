"""Celery tasks: precompute a campaign's suggestions, fanned out over chunks of documents."""

from __future__ import annotations

import logging

from celery import chord, shared_task

from .models import Campaign, SuggestionStatus

log = logging.getLogger(__name__)
CHUNK = 25

LONG_JOB = {"acks_late": True, "soft_time_limit": 600, "time_limit": 660}


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
    header = [suggestions_compute_chunk.s(campaign_id, chunk) for chunk in chunks]
    chord(header)(
        campaign_suggestions_finish.s(campaign_id).on_error(
            campaign_suggestions_failed.s(campaign_id)
        )
    )
    return len(chunks)


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


@shared_task(name="loupe.campaigns.suggestions_failed")
def campaign_suggestions_failed(request, exc, traceback, campaign_id: int) -> None:
    """Chord error callback: record why the suggestions could not be computed.

    Args:
        request: the failed task's request.
        exc: the exception.
        traceback: its traceback text.
        campaign_id: the campaign's primary key.
    """
    from .services import campaign_suggestions_status_set

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None:
        campaign_suggestions_status_set(
            campaign=campaign, status=SuggestionStatus.FAILED, error=f"{type(exc).__name__}: {exc}"
        )
