"""Campaign services: create a FAM or PolyTope campaign (and staff it, and queue its suggestions),
edit it, move its state."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, AnnotationSetKind
from annotation.systems.models import OutputVersion, System, SystemOutput
from config.exceptions import ApplicationError
from scoring.metrics.polytope import count_words
from scoring.metrics.spans import join_sentences

from ..hooks import adjudicators_set
from ..models import (
    CAMPAIGN_TRANSITIONS,
    Campaign,
    CampaignKind,
    CampaignStatus,
)
from .choice import campaign_documents_choose, field_error
from .suggestions import suggestion_job_create

DEFAULT_SCORERS = ["rougeavg-f", "tfidf"]


def _slug_free(slug: str) -> None:
    if Campaign.objects.filter(slug=slug).exists():
        raise field_error("slug", f"A campaign {slug!r} already exists; choose another slug.")


@contextmanager
def _slug_race(slug: str, dataset: Dataset):
    """Make the campaign's rows in a savepoint: a create of the same slug that committed since
    :func:`_slug_free` makes them fail on a unique index (or a uniqueness check); answer it as
    the taken slug."""
    try:
        with transaction.atomic():
            yield
    except (IntegrityError, ValidationError):
        if (
            Campaign.objects.filter(slug=slug).exists()
            or AnnotationSet.objects.filter(dataset=dataset, slug=f"campaign-{slug}"[:64]).exists()
        ):
            raise field_error(
                "slug", f"A campaign {slug!r} already exists; choose another slug."
            ) from None
        raise


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
    categories: Sequence[str] | None = None,
    sample: dict | None = None,
    reference_position: int = 0,
    annotators_per_document: int = 1,
    scorers: Sequence[str] | None = None,
    top_k: int = 3,
    blind: bool = True,
    instructions: str = "",
    rouge_use_stemmer: bool = True,
) -> Campaign:
    """Create a FAM campaign and queue the precomputation of its suggestions.

    The documents are chosen in at most one way (see
    :func:`annotation.campaigns.services.choice.campaign_documents_choose`).

    Args:
        dataset: the dataset whose documents are annotated.
        slug: unique campaign slug.
        name: display name.
        user: the admin creating it.
        documents: external ids to annotate (default: every document of the dataset).
        categories: or every document in these categories.
        sample: or a seeded random sample, ``{"size", "seed", "categories"?}``.
        reference_position: which reference of each document is annotated.
        annotators_per_document: how many annotators each document gets.
        scorers: suggestion scorers shown (registry names; default ROUGE-AVG F and TF-IDF).
        top_k: suggestions per facet and scorer.
        blind: annotators never see each other's labels.
        instructions: shown to the annotators.
        rouge_use_stemmer: the ROUGE suggestions stem words (rouge-score's ``use_stemmer``).

    Returns:
        The campaign; a suggestion job (the job kernel's) computes its suggestions after the
        commit.

    Raises:
        ApplicationError: a taken slug, a bad choice of documents, or documents without that
            reference (``extra["field"]`` names the field).
        django.core.exceptions.ValidationError: invalid fields (scorers, top_k, ...).
    """
    _slug_free(slug)
    chosen, record = campaign_documents_choose(
        dataset=dataset, documents=documents, categories=categories, sample=sample
    )
    having = set(
        Reference.objects.filter(document__in=chosen, position=reference_position).values_list(
            "document_id", flat=True
        )
    )
    lacking = [d.external_id for d in chosen if d.pk not in having]
    if lacking:
        raise field_error(
            "reference_position",
            f"Documents without reference {reference_position}: {lacking[:10]}",
        )
    with _slug_race(slug, dataset):
        annotation_set = _human_set(dataset, slug, name, scheme=AnnotationSet.FAM_SCHEME)
        campaign = Campaign(
            dataset=dataset,
            slug=slug,
            name=name,
            reference_position=reference_position,
            annotators_per_document=annotators_per_document,
            scorers=list(DEFAULT_SCORERS if scorers is None else scorers),
            rouge_use_stemmer=rouge_use_stemmer,
            top_k=top_k,
            blind=blind,
            instructions=instructions,
            sample=record,
            annotation_set=annotation_set,
            created_by=user,
        )
        campaign.full_clean()
        campaign.save()
    campaign.documents.set(chosen)
    if campaign.scorers:
        suggestion_job_create(campaign=campaign)
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
    categories: Sequence[str] | None = None,
    sample: dict | None = None,
    annotators_per_document: int = 1,
    blind: bool = True,
    system_blind: bool = True,
    instructions: str = "",
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
        categories: or every document in these categories.
        sample: or a seeded random sample, ``{"size", "seed", "categories"?}``.
        annotators_per_document: how many annotators each document (all its items) gets.
        blind: annotators never see each other's errors.
        system_blind: annotators are not told which system an item comes from.
        instructions: shown to the annotators.

    Returns:
        The campaign.

    Raises:
        ApplicationError: a taken slug, no system, unknown or repeated systems, a bad choice
            of documents, a system without an output for a chosen document, or an output
            without a word to score (``extra["field"]`` names the field).
        django.core.exceptions.ValidationError: invalid fields (overlap, ...).
    """
    if isinstance(systems, str) or not systems:
        raise field_error(
            "systems", "A PolyTope campaign needs at least one system (a list of slugs)."
        )
    repeated = sorted({s for s in systems if list(systems).count(s) > 1})
    if repeated:
        raise field_error("systems", f"Systems listed twice: {repeated}.")
    _slug_free(slug)
    chosen, record = campaign_documents_choose(
        dataset=dataset, documents=documents, categories=categories, sample=sample
    )
    found = {s.slug: s for s in System.objects.filter(slug__in=list(systems))}
    unknown = [s for s in systems if s not in found]
    if unknown:
        raise field_error("systems", f"Unknown systems: {unknown}.")
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
        raise field_error(
            "systems",
            "; ".join(problems) + ". Choose other systems or documents.",
            problems=problems,
        )
    with _slug_race(slug, dataset):
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
            instructions=instructions,
            sample=record,
            annotation_set=annotation_set,
            created_by=user,
        )
        campaign.full_clean()
        campaign.save()
    campaign.documents.set(chosen)
    campaign.systems.set(ordered)
    campaign.outputs.set(list(outputs.values()))
    return campaign


@dataclass
class CampaignLaunch:
    """What :func:`campaign_launch` did: the campaign, the tasks it assigned, and notes."""

    campaign: Campaign
    tasks: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _adjudicators_store(campaign: Campaign, usernames: Sequence[str], user) -> list[str]:
    """Give the campaign its adjudicators through the setter the adjudication app installs.

    Returns:
        Notes for the admin (empty when they were stored).
    """
    try:
        stored = adjudicators_set(campaign=campaign, usernames=usernames, user=user)
    except ApplicationError as error:
        extra = {k: v for k, v in error.extra.items() if k not in ("field", "fields")}
        raise field_error("adjudicators", error.message, **extra) from error
    if not stored:
        return [
            f"The adjudicators {list(usernames)} were not stored: this Loupe has no "
            "adjudication app; admins adjudicate."
        ]
    return []


@transaction.atomic
def campaign_launch(
    *,
    dataset: Dataset,
    slug: str,
    name: str,
    kind: str = CampaignKind.FAM,
    user=None,
    systems: Sequence[str] | None = None,
    documents: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
    sample: dict | None = None,
    reference_position: int = 0,
    annotators_per_document: int = 1,
    scorers: Sequence[str] | None = None,
    top_k: int = 3,
    rouge_use_stemmer: bool = True,
    blind: bool = True,
    system_blind: bool = True,
    instructions: str = "",
    annotators: Sequence[str] | None = None,
    adjudicators: Sequence[str] | None = None,
) -> CampaignLaunch:
    """Create a FAM or PolyTope campaign and, optionally, assign its annotators at once.

    Everything happens in one transaction: a refusal anywhere writes nothing. The annotators
    get the documents round-robin, ``annotators_per_document`` each (see
    :func:`annotation.campaigns.assignment.round_robin`).

    Args:
        dataset: the dataset.
        slug: unique campaign slug.
        name: display name.
        kind: ``fam`` or ``polytope``.
        user: the admin creating it.
        systems: a PolyTope campaign's systems (slugs); a FAM campaign takes none.
        documents: external ids; or ``categories``; or ``sample``; or none of them (all).
        categories: every document in these categories.
        sample: a seeded random sample, ``{"size", "seed", "categories"?}``.
        reference_position: the annotated reference (FAM).
        annotators_per_document: the overlap: how many annotators each document gets.
        scorers: the FAM suggestion scorers (default ROUGE-AVG F and TF-IDF); a PolyTope
            campaign takes none.
        top_k: suggestions per facet and scorer (FAM).
        rouge_use_stemmer: the ROUGE suggestions stem words (FAM; rouge-score's
            ``use_stemmer``).
        blind: annotators never see each other's work.
        system_blind: hide which system a PolyTope item comes from.
        instructions: shown to the annotators.
        annotators: usernames to assign now (optional).
        adjudicators: usernames who may adjudicate the campaign (optional; stored by the
            adjudication app).

    Returns:
        A :class:`CampaignLaunch`.

    Raises:
        ApplicationError: any refused choice, naming its field in ``extra["field"]``.
        django.core.exceptions.ValidationError: invalid model fields.
    """
    from .staffing import annotators_checked

    if kind not in CampaignKind.values:
        raise field_error("kind", f"kind must be one of {CampaignKind.values}; got {kind!r}.")
    users = annotators_checked(annotators, "annotators") if annotators else None
    if users is not None and annotators_per_document > len(users):
        raise field_error(
            "annotators_per_document",
            f"{annotators_per_document} annotators per document, but only {len(users)} "
            "annotator(s) are given: add annotators or lower the overlap.",
        )
    common = {
        "dataset": dataset,
        "slug": slug,
        "name": name,
        "user": user,
        "documents": documents,
        "categories": categories,
        "sample": sample,
        "annotators_per_document": annotators_per_document,
        "blind": blind,
        "instructions": instructions,
    }
    if kind == CampaignKind.POLYTOPE:
        if scorers:
            raise field_error("scorers", "A PolyTope campaign has no suggestions: give no scorers.")
        if not rouge_use_stemmer:
            raise field_error(
                "rouge_use_stemmer", "A PolyTope campaign has no ROUGE suggestions to stem."
            )
        campaign = polytope_campaign_create(
            systems=systems or [], system_blind=system_blind, **common
        )
    else:
        if systems:
            raise field_error("systems", "A FAM campaign annotates documents: give no systems.")
        campaign = campaign_create(
            reference_position=reference_position, scorers=scorers, top_k=top_k,
            rouge_use_stemmer=rouge_use_stemmer, **common,
        )  # fmt: skip
    launch = CampaignLaunch(campaign=campaign)
    if users:
        from .assignments import tasks_assign_round_robin

        launch.tasks = tasks_assign_round_robin(
            campaign=campaign, annotators=[u.username for u in users]
        )
    if adjudicators:
        launch.notes += _adjudicators_store(campaign, adjudicators, user)
    return launch


@transaction.atomic
def campaign_status_set(*, campaign: Campaign, status: str) -> Campaign:
    """Move a campaign to another state: Annotating -> Adjudicating -> Done.

    From Adjudicating it may also go back to Annotating; Done is final. Asking for the state
    it is in changes nothing. Annotators save, submit and reopen tasks while it is Annotating
    or Adjudicating (not the tasks of a document marked adjudicated); once it is Done they
    can do none of these, and annotators can be added only while it is Annotating.

    Args:
        campaign: the campaign.
        status: ``open`` (Annotating), ``adjudication`` (Adjudicating) or ``closed`` (Done).

    Returns:
        The campaign in its new state.

    Raises:
        ApplicationError: an unknown state, or a move the rules do not allow (``extra``
            names the allowed ones).
    """
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if status not in CampaignStatus.values:
        raise field_error(
            "status", f"Unknown status {status!r}; choose one of {CampaignStatus.values}."
        )
    if status == campaign.status:
        return campaign
    allowed = CAMPAIGN_TRANSITIONS[campaign.status]
    current = campaign.get_status_display()
    wanted = CampaignStatus(status).label
    if not allowed:
        raise field_error("status", f"The campaign is {current}: that state is final.", allowed=[])
    if status not in allowed:
        choices = " or ".join(f"{CampaignStatus(s).label} ({s})" for s in allowed)
        raise field_error(
            "status",
            f"A campaign that is {current} can move to {choices}, not to {wanted}.",
            allowed=list(allowed),
        )
    campaign.status = status
    campaign.full_clean(exclude=["dataset", "annotation_set", "created_by"])
    campaign.save(update_fields=["status"])
    return campaign


@transaction.atomic
def campaign_update(
    *,
    campaign: Campaign,
    name: str | None = None,
    instructions: str | None = None,
    rouge_use_stemmer: bool | None = None,
) -> Campaign:
    """Rename a campaign, change the instructions its annotators read, or the stemming of its
    ROUGE suggestions (those computed with the other stemming are deleted and computed again,
    on commit; their status is ``pending`` until then).

    Args:
        campaign: the campaign.
        name: the new display name (None: unchanged).
        instructions: the new instructions (None: unchanged; ``""`` removes them).
        rouge_use_stemmer: whether the ROUGE suggestions stem words (None: unchanged).

    Returns:
        The saved campaign.

    Raises:
        ApplicationError: a blank name, or stemming for a campaign without ROUGE suggestions.
        django.core.exceptions.ValidationError: too long a name or instructions.
    """
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    changed = []
    if name is not None:
        if not name.strip():
            raise field_error("name", "The name cannot be blank.")
        campaign.name, changed = name.strip(), [*changed, "name"]
    if instructions is not None:
        campaign.instructions, changed = instructions, [*changed, "instructions"]
    rescore = rouge_use_stemmer is not None and rouge_use_stemmer != campaign.rouge_use_stemmer
    if rescore:
        if not any(name.startswith("rouge") for name in campaign.scorers):
            raise field_error(
                "rouge_use_stemmer", "This campaign shows no ROUGE suggestion to stem or not."
            )
        campaign.rouge_use_stemmer = rouge_use_stemmer
        changed.append("rouge_use_stemmer")
    if changed:
        campaign.full_clean(exclude=["dataset", "annotation_set", "created_by"])
        campaign.save(update_fields=changed)
    if rescore:
        # The ROUGE suggestions of the other stemming go now: none is shown while pending.
        campaign.suggestions.filter(scorer__startswith="rouge").delete()
        suggestion_job_create(campaign=campaign)
    return campaign
