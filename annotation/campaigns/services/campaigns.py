"""Campaign services: create a FAM or PolyTope campaign and record its suggestion status."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet, AnnotationSetKind
from annotation.systems.models import OutputVersion, System, SystemOutput
from config.exceptions import ApplicationError
from scoring.metrics.polytope import count_words
from scoring.metrics.spans import join_sentences

from ..models import (
    Campaign,
    CampaignKind,
    SuggestionStatus,
)

DEFAULT_SCORERS = ["rougeavg-f", "tfidf"]


def _documents_chosen(dataset: Dataset, documents: Sequence[str] | None) -> list[Document]:
    chosen = Document.objects.filter(dataset=dataset)
    if documents is not None:
        if isinstance(documents, str):
            raise ApplicationError("documents must be a list of document ids, not one string.")
        chosen = chosen.filter(external_id__in=list(documents))
        unknown = sorted(set(documents) - set(chosen.values_list("external_id", flat=True)))
        if unknown:
            raise ApplicationError(f"Unknown documents in {dataset.slug!r}: {unknown[:10]}")
    chosen = list(chosen.order_by("position", "id"))
    if not chosen:
        raise ApplicationError("A campaign needs at least one document.")
    return chosen


def _human_set(dataset: Dataset, slug: str, name: str, *, scheme: str) -> AnnotationSet:
    annotation_set = AnnotationSet(
        dataset=dataset,
        slug=f"campaign-{slug}"[:64],
        name=f"Campaign {name}",
        kind=AnnotationSetKind.HUMAN,
        scheme=scheme,
    )
    annotation_set.full_clean()
    annotation_set.save()
    return annotation_set


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
    chosen = _documents_chosen(dataset, documents)
    lacking = [
        d.external_id
        for d in chosen
        if not d.references.filter(position=reference_position).exists()
    ]
    if lacking:
        raise ApplicationError(f"Documents without reference {reference_position}: {lacking[:10]}")
    annotation_set = _human_set(dataset, slug, name, scheme=AnnotationSet.FAM_SCHEME)
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


def _latest_outputs(
    dataset: Dataset, systems: list[System], documents: list[Document]
) -> dict[tuple[int, int], SystemOutput]:
    """(system id, document id) -> the output of each system's latest version on the dataset."""
    latest: dict[int, tuple[int, int]] = {}
    versions = OutputVersion.objects.filter(dataset=dataset, system__in=systems)
    for pk, system_id, number in versions.values_list("pk", "system_id", "number"):
        if number > latest.get(system_id, (0, 0))[0]:
            latest[system_id] = (number, pk)
    outputs = SystemOutput.objects.filter(
        version_id__in=[pk for _, pk in latest.values()], document__in=documents
    ).select_related("document", "system")
    return {(o.system_id, o.document_id): o for o in outputs}


@transaction.atomic
def polytope_campaign_create(
    *,
    dataset: Dataset,
    slug: str,
    name: str,
    systems: Sequence[str],
    user=None,
    documents: Sequence[str] | None = None,
    annotators_per_document: int = 1,
    blind: bool = True,
    system_blind: bool = True,
) -> Campaign:
    """Create a PolyTope campaign: error spans in chosen systems' outputs of chosen documents.

    Its items are the outputs of each system's latest version on the dataset, pinned now (a
    later upload does not change what is annotated). Its annotation set is a HUMAN set with
    the ``polytope`` scheme. There are no suggestions.

    Args:
        dataset: the dataset whose outputs are annotated.
        slug: unique campaign slug.
        name: display name.
        systems: slugs of the systems whose outputs are annotated (at least one).
        user: the admin creating it.
        documents: external ids to annotate (default: every document of the dataset).
        annotators_per_document: how many annotators each document (all its items) gets.
        blind: annotators never see each other's errors.
        system_blind: annotators are not told which system an item comes from.

    Returns:
        The campaign.

    Raises:
        ApplicationError: no system, unknown or repeated systems, unknown documents, a system
            without an output for a chosen document, or an output without a word to score.
        django.core.exceptions.ValidationError: invalid fields (slug, overlap, ...).
    """
    if isinstance(systems, str) or not systems:
        raise ApplicationError("A PolyTope campaign needs at least one system (a list of slugs).")
    repeated = sorted({s for s in systems if list(systems).count(s) > 1})
    if repeated:
        raise ApplicationError(f"Systems listed twice: {repeated}.")
    chosen = _documents_chosen(dataset, documents)
    found = {s.slug: s for s in System.objects.filter(slug__in=list(systems))}
    unknown = [s for s in systems if s not in found]
    if unknown:
        raise ApplicationError(f"Unknown systems: {unknown}.")
    ordered = [found[s] for s in sorted(systems)]
    outputs = _latest_outputs(dataset, ordered, chosen)
    problems = []
    for system in ordered:
        lacking = [d.external_id for d in chosen if (system.pk, d.pk) not in outputs]
        if lacking:
            problems.append(
                f"System {system.slug!r} has no output for {len(lacking)} of the chosen "
                f"document(s) of {dataset.slug!r}: {lacking[:10]}"
            )
    empty = [
        f"{o.system.slug}/{o.document.external_id}"
        for o in outputs.values()
        if count_words(join_sentences(o.sentences)) == 0
    ]
    if empty:
        problems.append(f"Outputs without a word to score: {sorted(empty)[:10]}")
    if problems:
        raise ApplicationError(
            "; ".join(problems) + ". Choose other systems or documents.",
            extra={"problems": problems},
        )
    annotation_set = _human_set(dataset, slug, name, scheme="polytope")
    campaign = Campaign(
        dataset=dataset,
        slug=slug,
        name=name,
        kind=CampaignKind.POLYTOPE,
        annotators_per_document=annotators_per_document,
        scorers=[],
        blind=blind,
        system_blind=system_blind,
        annotation_set=annotation_set,
        created_by=user,
        suggestions_status=SuggestionStatus.READY,
    )
    campaign.full_clean()
    campaign.save()
    campaign.documents.set(chosen)
    campaign.systems.set(ordered)
    campaign.outputs.set(list(outputs.values()))
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
