"""Suggestion services: precompute top-k suggestions (a job of the job kernel, ``SUGGESTIONS``)
and log what annotators did."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from annotation.corpus.models import Document
from annotation.jobs.kernel import (
    JobKind,
    job_cancel,
    job_chunk_done,
    job_kind_register,
    job_run_inline,
    job_send_on_commit,
)
from annotation.jobs.models import JobStatus
from config.exceptions import ApplicationError
from scoring.metrics.suggest import get_scorer, suggest

from ..models import (
    Campaign,
    CampaignKind,
    SuggestionAction,
    SuggestionChunk,
    SuggestionEvent,
    SuggestionJob,
    SuggestionSet,
    Task,
)

#: Documents per chunk of a suggestion job.
SUGGESTION_CHUNK = 25
#: Why an unfinished job stops when a newer one replaces it.
SUPERSEDED = "replaced by a newer computation of the campaign's suggestions"


@transaction.atomic
def suggestion_events_log(*, task: Task, events: Sequence[dict]) -> int:
    """Record which suggestions were shown, accepted or ignored, with the scorer's version.

    Args:
        task: the task the events happened in.
        events: dicts with ``facet``, ``sentence``, ``scorer``, ``scorer_version``, ``action``.

    Returns:
        How many events were stored.

    Raises:
        ApplicationError: an unknown action, a facet/sentence outside the task's document, or a
            PolyTope task (no suggestions).
    """
    if task.campaign.kind != CampaignKind.FAM:
        raise ApplicationError("A PolyTope campaign shows no suggestions: there is nothing to log.")
    reference = task.document.references.get(position=task.campaign.reference_position)
    objects = []
    for event in events:
        if event["scorer"] not in task.campaign.scorers:
            raise ApplicationError(f"Scorer {event['scorer']!r} is not shown in this campaign.")
        if event["action"] not in SuggestionAction.values:
            raise ApplicationError(f"Unknown suggestion action {event['action']!r}.")
        if (
            not 0 <= event["facet"] < reference.facet_count
            or not 0 <= event["sentence"] < task.document.sentence_count
        ):
            raise ApplicationError(f"Suggestion event outside the document: {event}.")
        objects.append(
            SuggestionEvent(
                task=task,
                **{
                    k: event[k] for k in ("facet", "sentence", "scorer", "scorer_version", "action")
                },
            )
        )
    SuggestionEvent.objects.bulk_create(objects)
    return len(objects)


def suggestions_compute_documents(*, campaign: Campaign, document_ids: Sequence[int]) -> int:
    """Compute and upsert the top-k suggestions of every campaign scorer for some documents.

    Idempotent: running it again recomputes and overwrites the same rows.

    Args:
        campaign: the campaign.
        document_ids: primary keys of campaign documents.

    Returns:
        How many (document, scorer) rows were written.

    Raises:
        scoring.metrics.suggest.ScorerUnavailableError: a scorer's optional extra is missing.
    """
    stem = campaign.rouge_use_stemmer
    scorers = [get_scorer(name, rouge_use_stemmer=stem) for name in campaign.scorers]
    written = 0
    for document in Document.objects.filter(pk__in=document_ids).prefetch_related("references"):
        reference = next(
            r for r in document.references.all() if r.position == campaign.reference_position
        )
        for scorer in scorers:
            ranked = suggest(scorer, reference.sentences, document.sentences, k=campaign.top_k)
            facets = [
                [{"sentence": s.sentence, "score": round(s.score, 6), "rank": s.rank} for s in row]
                for row in ranked
            ]
            SuggestionSet.objects.update_or_create(
                campaign=campaign,
                document=document,
                scorer=scorer.name,
                defaults={"scorer_version": scorer.version, "facets": facets},
            )
            written += 1
    return written


def _plan(job: SuggestionJob) -> None:
    """The suggestion kind's plan: the campaign's scorers are checked (an unknown or unavailable
    one fails the job with the reason) and its documents cut into chunks, in campaign order."""
    campaign = Campaign.objects.get(pk=job.campaign_id)
    for name in campaign.scorers:
        get_scorer(name, rouge_use_stemmer=campaign.rouge_use_stemmer)
    ids = list(campaign.documents.order_by("position", "id").values_list("pk", flat=True))
    SuggestionChunk.objects.bulk_create(
        SuggestionChunk(job=job, index=n, document_ids=ids[i : i + SUGGESTION_CHUNK])
        for n, i in enumerate(range(0, len(ids), SUGGESTION_CHUNK))
    )


def _chunk(chunk: SuggestionChunk) -> int:
    """The suggestion kind's chunk: compute and upsert its documents' suggestions, and mark it
    done with them (idempotent: a chunk computed again overwrites the same rows)."""
    campaign = Campaign.objects.get(pk=chunk.job.campaign_id)
    with transaction.atomic():
        written = suggestions_compute_documents(campaign=campaign, document_ids=chunk.document_ids)
        job_chunk_done(chunk=chunk, sets_written=written)
    return written


SUGGESTIONS = job_kind_register(
    JobKind(
        name="suggestions",
        job_model=SuggestionJob,
        chunk_model=SuggestionChunk,
        plan=_plan,
        chunk=_chunk,
        soft_time_limit=600,
    )
)


@transaction.atomic
def suggestion_job_create(*, campaign: Campaign, queue: bool = True) -> SuggestionJob:
    """Queue the computation of a campaign's suggestions (on commit); the campaign's unfinished
    computations are cancelled (their chunks do nothing), and those that failed for the broker
    are no longer queued again, so its status is the new job's.

    Args:
        campaign: a FAM campaign with scorers.
        queue: send the job to the workers on commit (False: the caller runs it, see
            :func:`suggestion_job_run_inline`).

    Returns:
        The queued job.

    Raises:
        ApplicationError: a campaign without suggestions (PolyTope, or no scorer).
    """
    if campaign.kind != CampaignKind.FAM or not campaign.scorers:
        raise ApplicationError(f"Campaign {campaign.slug!r} shows no suggestions to compute.")
    unfinished = SuggestionJob.objects.filter(
        campaign=campaign, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
    )
    for old in unfinished:
        job_cancel(kind=SUGGESTIONS, job=old, reason=SUPERSEDED)
    # Nor is one that failed only because the broker was down queued again by the watchdog.
    SuggestionJob.objects.filter(
        campaign=campaign, status=JobStatus.FAILED, broker_failed=True
    ).update(broker_failed=False)
    job = SuggestionJob(campaign=campaign)
    job.full_clean()
    job.save()
    if queue:
        job_send_on_commit(SUGGESTIONS, job.pk)
    return job


def suggestion_job_run_inline(*, job: SuggestionJob) -> SuggestionJob:
    """Compute a suggestion job in this process through the job kernel (tests, scripts).

    Args:
        job: a queued job (or one left running by a worker).

    Returns:
        The finished job.

    Raises:
        Exception: what planning or a chunk raised (the job is failed with it first).
    """
    return job_run_inline(kind=SUGGESTIONS, job=job)
