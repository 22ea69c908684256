"""Campaign services: create a campaign and record its suggestion status."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet, AnnotationSetKind
from config.exceptions import ApplicationError

from ..models import (
    Campaign,
    SuggestionStatus,
)

DEFAULT_SCORERS = ["rougeavg-f", "tfidf"]


@transaction.atomic
def campaign_create(
    *,
    dataset: Dataset,
    slug: str,
    name: str,
    user=None,
    documents: Sequence[str] | None = None,
    reference_position: int = 0,
    annotators_per_document: int = 1,
    scorers: Sequence[str] | None = None,
    top_k: int = 3,
    blind: bool = True,
) -> Campaign:
    """Create a FAM campaign and queue the precomputation of its suggestions.

    Args:
        dataset: the dataset whose documents are annotated.
        slug: unique campaign slug.
        name: display name.
        user: the admin creating it.
        documents: external ids to annotate (default: every document of the dataset).
        reference_position: which reference of each document is annotated.
        annotators_per_document: how many annotators each document gets.
        scorers: suggestion scorers shown (registry names; default ROUGE-AVG F and TF-IDF).
        top_k: suggestions per facet and scorer.
        blind: annotators never see each other's labels.

    Returns:
        The campaign; a Celery task computes its suggestions after the commit.

    Raises:
        ApplicationError: unknown documents, or documents without that reference.
        django.core.exceptions.ValidationError: invalid fields (slug, scorers, top_k, ...).
    """
    chosen = Document.objects.filter(dataset=dataset)
    if documents is not None:
        chosen = chosen.filter(external_id__in=list(documents))
        unknown = sorted(set(documents) - set(chosen.values_list("external_id", flat=True)))
        if unknown:
            raise ApplicationError(f"Unknown documents in {dataset.slug!r}: {unknown[:10]}")
    chosen = list(chosen.order_by("position", "id"))
    if not chosen:
        raise ApplicationError("A campaign needs at least one document.")
    lacking = [
        d.external_id
        for d in chosen
        if not d.references.filter(position=reference_position).exists()
    ]
    if lacking:
        raise ApplicationError(f"Documents without reference {reference_position}: {lacking[:10]}")
    annotation_set = AnnotationSet(
        dataset=dataset,
        slug=f"campaign-{slug}"[:64],
        name=f"Campaign {name}",
        kind=AnnotationSetKind.HUMAN,
    )
    annotation_set.full_clean()
    annotation_set.save()
    campaign = Campaign(
        dataset=dataset,
        slug=slug,
        name=name,
        reference_position=reference_position,
        annotators_per_document=annotators_per_document,
        scorers=list(DEFAULT_SCORERS if scorers is None else scorers),
        top_k=top_k,
        blind=blind,
        annotation_set=annotation_set,
        created_by=user,
        suggestions_status=SuggestionStatus.PENDING
        if (scorers is None or scorers)
        else SuggestionStatus.READY,
    )
    campaign.full_clean()
    campaign.save()
    campaign.documents.set(chosen)
    if campaign.scorers:
        from ..tasks import campaign_suggestions_compute

        campaign_suggestions_compute.delay_on_commit(campaign.pk)
    return campaign


def campaign_suggestions_status_set(
    *, campaign: Campaign, status: str, error: str = ""
) -> Campaign:
    """Record whether the campaign's suggestions are pending, ready or failed.

    Args:
        campaign: the campaign.
        status: a ``SuggestionStatus`` value.
        error: why they failed (shown to admins).

    Returns:
        The campaign.
    """
    Campaign.objects.filter(pk=campaign.pk).update(
        suggestions_status=status, suggestions_error=error
    )
    campaign.suggestions_status, campaign.suggestions_error = status, error
    return campaign
