"""Suggestion services: precompute top-k suggestions and log what annotators did."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from annotation.corpus.models import Document
from config.exceptions import ApplicationError
from scoring.metrics.suggest import get_scorer, suggest

from ..models import (
    Campaign,
    CampaignKind,
    SuggestionAction,
    SuggestionEvent,
    SuggestionSet,
    Task,
)


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
