"""Adjudication services (writes): adjudicators, the gold set, gold FAMs and spans, done/reopen.

Gold saves go through the versioned saves of the FAMs and spans apps (``fam_save``,
``span_annotation_save``): a stale ``base_version`` gets 409 with the server's state and every
change is a revision. A gold row that does not exist yet is version 0; its first save makes
version 1. A campaign's gold counts for scoring only for the documents marked done
(``annotation.adjudication.selectors.gold_counted_q``), so gold saves (always of a pending
document) announce nothing; marking a document done and reopening it announce the change
(``scored_fams_changed`` or ``scored_spans_changed``, inside the transaction), which queues one
rescoring on commit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.accounts.roles import ROLES, has_role
from annotation.campaigns.models import Campaign, CampaignKind, CampaignStatus, Task
from annotation.campaigns.selectors import CampaignItemNames, campaign_item_names
from annotation.corpus.models import Document
from annotation.fams.models import AnnotationSet, AnnotationSetKind, Fam
from annotation.fams.services import empty_facets, fam_save
from annotation.fams.signals import scored_fams_changed
from annotation.spans.models import SpanAnnotation
from annotation.spans.services import span_annotation_save
from annotation.spans.signals import scored_spans_changed
from config.exceptions import ApplicationError, ConflictError
from scoring.metrics.adjudication import (
    AdjudicationError,
    error_key,
    error_provenance_check,
    facet_decided,
    facet_provenance_check,
)

from .models import (
    AdjudicationStatus,
    CampaignAdjudicator,
    CampaignGold,
    DocumentAdjudication,
)
from .selectors import annotator_fams, annotator_spans

GOLD_SUFFIX = "-gold"


@transaction.atomic
def campaign_adjudicators_set(
    *, campaign: Campaign, usernames: Sequence[str], user=None
) -> list[CampaignAdjudicator]:
    """Make exactly ``usernames`` the campaign's adjudicators (admins are adjudicators anyway).

    Args:
        campaign: the campaign.
        usernames: who may adjudicate it; any Loupe role will do (an annotator of the campaign
            may adjudicate too). An empty list removes every grant.
        user: who grants (recorded on new grants).

    Returns:
        The campaign's grants, by username.

    Raises:
        ApplicationError: an unknown username or a user without a Loupe role (nothing changed).
    """
    names = list(dict.fromkeys(usernames))
    users = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
    unknown = [name for name in names if name not in users]
    if unknown:
        raise ApplicationError(
            f"Unknown user(s) {unknown}: no adjudicator was changed.",
            extra={"field": "adjudicators", "unknown": unknown},
        )
    roleless = [name for name in names if not has_role(users[name], *ROLES)]
    if roleless:
        raise ApplicationError(
            f"User(s) {roleless} have no Loupe role; give them one before they adjudicate.",
            extra={"field": "adjudicators", "roleless": roleless},
        )
    CampaignAdjudicator.objects.filter(campaign=campaign).exclude(user__username__in=names).delete()
    have = set(
        CampaignAdjudicator.objects.filter(campaign=campaign).values_list(
            "user__username", flat=True
        )
    )
    for name in names:
        if name not in have:
            grant = CampaignAdjudicator(campaign=campaign, user=users[name], granted_by=user)
            grant.full_clean(validate_constraints=False)
            grant.save()
    return list(
        CampaignAdjudicator.objects.filter(campaign=campaign)
        .select_related("user")
        .order_by("user__username")
    )


@transaction.atomic
def campaign_gold_set(*, campaign: Campaign) -> AnnotationSet:
    """The campaign's gold annotation set, made on first use.

    It is kind ``gold`` with the campaign's dataset and scheme, slug ``<campaign slug>-gold``
    and name ``<campaign name> (gold)``.

    Args:
        campaign: the campaign.

    Returns:
        The gold set.

    Raises:
        ApplicationError: the dataset already has another annotation set with that slug.
    """
    link = CampaignGold.objects.filter(campaign=campaign).select_related("annotation_set").first()
    if link is not None:
        return link.annotation_set
    # Lock the campaign so that two first gold saves make one set.
    campaign = (
        Campaign.objects.select_for_update(of=("self",))
        .select_related("annotation_set")
        .get(pk=campaign.pk)
    )
    link = CampaignGold.objects.filter(campaign=campaign).select_related("annotation_set").first()
    if link is not None:
        return link.annotation_set
    slug = campaign.slug[: 64 - len(GOLD_SUFFIX)] + GOLD_SUFFIX
    if AnnotationSet.objects.filter(dataset_id=campaign.dataset_id, slug=slug).exists():
        raise ApplicationError(
            f"The dataset already has an annotation set {slug!r} that is not this campaign's "
            "gold; rename it (admin) before adjudicating."
        )
    gold = AnnotationSet(
        dataset_id=campaign.dataset_id,
        slug=slug,
        name=f"{campaign.name} (gold)"[:200],
        kind=AnnotationSetKind.GOLD,
        scheme=campaign.annotation_set.scheme,
    )
    gold.full_clean(exclude=["dataset"])
    gold.save()
    link = CampaignGold(campaign=campaign, annotation_set=gold)
    link.full_clean(validate_constraints=False)
    link.save()
    return gold


def _check_writable(campaign: Campaign) -> None:
    if campaign.status == CampaignStatus.CLOSED:
        raise ApplicationError(
            "The campaign is closed (done): its adjudication can no longer change."
        )


def _check_member(campaign: Campaign, document: Document) -> None:
    if not campaign.documents.filter(pk=document.pk).exists():
        raise ApplicationError(
            f"Document {document.external_id!r} is not part of campaign {campaign.slug!r}.",
            status_code=404,
        )


def _check_kind(campaign: Campaign, kind: str) -> None:
    if campaign.kind != kind:
        noun = "FAMs" if kind == CampaignKind.FAM else "error spans"
        raise ApplicationError(
            f"This is a {campaign.get_kind_display()} campaign: its gold has no {noun}."
        )


def _document_state(campaign: Campaign, document: Document) -> DocumentAdjudication:
    """The document's adjudication row (pending when new), locked for this transaction.

    Gold saves, done and reopen of one document lock it, so they run one at a time.
    """
    row, _ = DocumentAdjudication.objects.get_or_create(campaign=campaign, document=document)
    return DocumentAdjudication.objects.select_for_update(of=("self",)).get(pk=row.pk)


def _check_pending(state: DocumentAdjudication, document: Document) -> None:
    if state.status == AdjudicationStatus.DONE:
        raise ApplicationError(
            f"Document {document.external_id!r} is adjudicated (done); reopen its adjudication "
            "to change the gold."
        )


def _prepared(campaign: Campaign, document: Document, kind: str) -> DocumentAdjudication:
    _check_kind(campaign, kind)
    _check_writable(campaign)
    _check_member(campaign, document)
    state = _document_state(campaign, document)
    _check_pending(state, document)
    return state


def _same_facet(a: dict, b: dict) -> bool:
    def key(facet: dict) -> tuple:
        return (
            {frozenset(group) for group in facet.get("groups", [])},
            facet.get("label", "supported"),
            facet.get("note", ""),
            facet.get("provenance"),
        )

    return key(a) == key(b)


def _check_groups_shape(groups: object, index: int) -> None:
    """Groups are lists of sentence indices (their range is checked by ``Fam.clean``)."""
    if not isinstance(groups, list) or not all(
        isinstance(group, list)
        and all(isinstance(i, int) and not isinstance(i, bool) for i in group)
        for group in groups
    ):
        raise ApplicationError(
            f"facet {index}: groups must be a list of lists of sentence indices.",
            extra={"facet": index},
        )


@transaction.atomic
def gold_fam_save(
    *, campaign: Campaign, document: Document, facets: list, base_version: int, user
) -> Fam:
    """Save the gold FAM of one campaign document, each facet with its provenance.

    A facet's ``provenance`` (``{"method", "annotators"}``) is checked against the annotators'
    current FAMs when the facet changed (:func:`scoring.metrics.adjudication.
    facet_provenance_check`): ``take``, ``union``, ``intersection`` and ``agreed`` must give
    exactly the facet's groups and label; a decided facet without provenance is ``edited``.
    The save itself is :func:`annotation.fams.services.fam_save` (409 on a stale version, a
    revision); it queues no rescoring, since the gold counts for scoring only once the
    document is marked done (:func:`document_adjudication_mark`).

    Args:
        campaign: a FAM campaign, open or in adjudication.
        document: one of its documents, not adjudicated (done).
        facets: one facet per reference sentence: ``{"groups", "label", "note"?,
            "provenance"?}``.
        base_version: the gold version the edit started from (0: none yet).
        user: the adjudicator.

    Returns:
        The gold FAM (version 0, not stored, when nothing was saved yet and nothing is).

    Raises:
        ApplicationError: a PolyTope campaign, a closed campaign, a document outside it or
            adjudicated, facets that are not a list of objects of the reference's length, or a
            provenance that does not hold.
        ConflictError: ``base_version`` is stale (409, with the server's state).
        django.core.exceptions.ValidationError: invalid groups or labels (named facet).
    """
    _prepared(campaign, document, CampaignKind.FAM)
    reference = document.references.get(position=campaign.reference_position)
    n_facets = reference.facet_count
    if not isinstance(facets, list) or not all(isinstance(facet, dict) for facet in facets):
        raise ApplicationError("facets must be a list of objects, one per reference sentence.")
    if len(facets) != n_facets:
        raise ApplicationError(
            f"Expected {n_facets} facets (one per reference sentence), got {len(facets)}."
        )
    for index, facet in enumerate(facets):
        _check_groups_shape(facet.get("groups", []), index)
    gold, _ = Fam.objects.get_or_create(
        annotation_set=campaign_gold_set(campaign=campaign),
        reference=reference,
        annotator=None,
        defaults={"document": document, "facets": empty_facets(n_facets), "version": 0},
    )
    others = {
        name: fam.facets
        for name, fam in annotator_fams(campaign=campaign, document=document).items()
    }
    current = gold.facets if len(gold.facets) == n_facets else empty_facets(n_facets)
    checked = []
    for index, facet in enumerate(facets):
        if _same_facet(facet, current[index]):
            checked.append(facet)  # unchanged: its provenance held when it was saved
            continue
        try:
            provenance = facet_provenance_check(
                facet,
                {name: theirs[index] for name, theirs in others.items() if len(theirs) == n_facets},
                where=f"facet {index}: ",
            )
        except AdjudicationError as error:
            raise ApplicationError(str(error), extra={"facet": index}) from error
        checked.append({**facet, "provenance": provenance})
    saved = fam_save(fam=gold, facets=checked, base_version=base_version, user=user, announce=False)
    if saved.version == 0:
        # Nothing was adjudicated: no empty gold FAM is left behind to be scored against.
        saved.delete()
        saved.version = 0
    return saved


def _item_output(raw: dict, names: CampaignItemNames, where: str) -> int:
    """The output an item of a gold save names: by ``item`` (its opaque id), or by ``output``
    for a user who is shown output ids."""
    if "output" in raw and not names.reveal:
        raise ApplicationError(
            f'{where}: name it by its "item" id (output ids are not shown to you while this '
            "system-blind campaign is not Done)."
        )
    if "item" in raw:
        key = raw["item"]
        if not isinstance(key, str) or key not in names.outputs:
            raise ApplicationError(
                f"{where}: {key!r} is not one of this document's items ({sorted(names.outputs)})."
            )
        output = names.outputs[key]
        if "output" in raw and raw["output"] != output:
            raise ApplicationError(f"{where}: item {key!r} is not output {raw['output']!r}.")
        return output
    if "output" not in raw:
        raise ApplicationError(f'{where}: give the item\'s "item" id.')
    output = raw["output"]
    if output not in names.ids:
        raise ApplicationError(
            f"{where}: output {output!r} is not one of this document's items ({sorted(names.ids)})."
        )
    return output


def _item(raw: object, names: CampaignItemNames, index: int) -> dict:
    where = f"item {index + 1}"
    if not isinstance(raw, dict):
        raise ApplicationError(f"{where}: must be an object.")
    output = _item_output(raw, names, where)
    base = raw.get("base_version")
    if not isinstance(base, int) or isinstance(base, bool) or base < 0:
        raise ApplicationError(f"{where}: base_version must be a whole number >= 0.")
    errors = raw.get("errors", [])
    if not isinstance(errors, list) or not all(isinstance(e, dict) for e in errors):
        raise ApplicationError(f"{where}: errors must be a list of objects.")
    no_errors = raw.get("no_errors", False)
    if not isinstance(no_errors, bool):
        raise ApplicationError(f"{where}: no_errors must be true or false.")
    return {"output": output, "base_version": base, "errors": errors, "no_errors": no_errors}


class GoldSpansSaved(list):
    """The gold rows a PolyTope gold save returns (a list, in the given order), with ``names``:
    how the document's items are named to the saver, for the response to name them the same
    way (:func:`annotation.campaigns.selectors.campaign_item_names`)."""

    def __init__(self, rows: list[SpanAnnotation], names: CampaignItemNames) -> None:
        super().__init__(rows)
        self.names = names


@transaction.atomic
def gold_spans_save(*, campaign: Campaign, document: Document, items: list, user) -> GoldSpansSaved:
    """Save the gold errors of one or more items (outputs) of a PolyTope campaign document.

    An item is named by its opaque ``item`` id
    (:func:`annotation.campaigns.selectors.campaign_item_id`), or by its ``output`` id by a
    user the campaign shows output ids to
    (:func:`annotation.campaigns.selectors.campaign_systems_hidden`); refusals name items the
    same way (``item``, and ``output`` when shown, in their ``extra``).

    All items are saved or none: a stale item gets 409 naming it. Each error's
    ``provenance`` is checked against the annotators' current errors when the error is new or
    its provenance changed (:func:`scoring.metrics.adjudication.error_provenance_check`); an
    error without one is ``edited``. Each item is saved with
    :func:`annotation.spans.services.span_annotation_save` (revisions); no rescoring is
    queued, since the gold counts for scoring only once the document is marked done.

    Args:
        campaign: a PolyTope campaign, open or in adjudication.
        document: one of its documents, not adjudicated (done).
        items: ``[{"item" (or "output"), "base_version" (0: no gold yet), "errors",
            "no_errors"}]``.
        user: the adjudicator.

    Returns:
        The gold rows in the given order (version 0, not stored, for an item still empty), a
        list whose ``names`` name the document's items to ``user``.

    Raises:
        ApplicationError: a FAM campaign, a closed campaign, a document outside it or
            adjudicated, a malformed item, an item that is not the document's (or an output
            id from a user who is not shown them), an error the scheme refuses, or a
            provenance that does not hold (naming the item).
        ConflictError: an item's ``base_version`` is stale (409, with ``item`` and the
            server's state).
    """
    _prepared(campaign, document, CampaignKind.POLYTOPE)
    outputs = {o.pk: o for o in campaign.outputs.filter(document=document)}
    names = campaign_item_names(campaign=campaign, user=user, outputs=outputs)
    if not isinstance(items, list) or not items:
        raise ApplicationError("items must be a non-empty list.")
    checked = [_item(raw, names, index) for index, raw in enumerate(items)]
    counts = Counter(item["output"] for item in checked)
    repeated = [output for output, n in counts.items() if n > 1]
    if repeated:
        raise ApplicationError(f"{names.listed(repeated)} are listed more than once.")
    gold_set = campaign_gold_set(campaign=campaign)
    others = annotator_spans(campaign=campaign, outputs=[item["output"] for item in checked])
    saved = []
    for item in checked:
        output = item["output"]
        label = names.label(output)
        row, _ = SpanAnnotation.objects.get_or_create(
            annotation_set=gold_set, output=outputs[output], annotator=None,
            defaults={"version": 0},
        )  # fmt: skip
        theirs = {name: a.errors for name, a in others.get(output, {}).items()}
        before = {(error_key(e), repr(e.get("provenance"))) for e in row.errors}
        errors = []
        for index, error in enumerate(item["errors"]):
            if (error_key(error), repr(error.get("provenance"))) in before:
                errors.append(error)
                continue
            try:
                provenance = error_provenance_check(
                    error, theirs, where=f"{label}, error {index + 1}: "
                )
            except AdjudicationError as problem:
                raise ApplicationError(str(problem), extra=names.extra(output)) from problem
            errors.append({**error, "provenance": provenance})
        try:
            row = span_annotation_save(
                annotation=row,
                errors=errors,
                no_errors=item["no_errors"],
                base_version=item["base_version"],
                user=user,
                announce=False,
            )
        except ConflictError as conflict:
            raise ConflictError(
                f"{label.capitalize()}: {conflict.message}",
                extra={**names.extra(output), **conflict.extra},
            ) from conflict
        except ValidationError as invalid:
            raise ApplicationError(
                f"{label.capitalize()}: {'; '.join(invalid.messages)}", extra=names.extra(output)
            ) from invalid
        if row.version == 0:
            row.delete()  # nothing adjudicated yet: no empty gold row to be scored against
            row.version = 0
        saved.append(row)
    return GoldSpansSaved(saved, names)


def _undecided_facets(fam: Fam | None) -> list[int]:
    if fam is None:
        return []
    return [index for index, facet in enumerate(fam.facets) if not facet_decided(facet)]


def _check_complete(campaign: Campaign, document: Document, user) -> None:
    gold = CampaignGold.objects.filter(campaign=campaign).select_related("annotation_set").first()
    if campaign.kind == CampaignKind.POLYTOPE:
        outputs = set(campaign.outputs.filter(document=document).values_list("pk", flat=True))
        done = set()
        if gold is not None:
            rows = SpanAnnotation.objects.filter(
                annotation_set=gold.annotation_set, output_id__in=outputs, annotator__isnull=True
            )
            done = {row.output_id for row in rows if row.annotated}
        missing = sorted(outputs - done)
        if missing:
            names = campaign_item_names(campaign=campaign, user=user, outputs=outputs)
            extra = {"missing_items": sorted(names.ids[o] for o in missing)}
            if names.reveal:
                extra["missing_outputs"] = missing
            raise ApplicationError(
                f"{names.listed(missing)} have no gold errors and no 'no errors' mark yet.",
                extra=extra,
            )
        return
    fam = None
    if gold is not None:
        fam = Fam.objects.filter(
            annotation_set=gold.annotation_set,
            document=document,
            reference__position=campaign.reference_position,
            annotator__isnull=True,
        ).first()
    if fam is None:
        raise ApplicationError("No gold FAM is saved for this document yet.")
    undecided = _undecided_facets(fam)
    if undecided:
        raise ApplicationError(
            f"Facet(s) {[i + 1 for i in undecided]} of the gold FAM have no support group and "
            "no no-support/noise label yet.",
            extra={"undecided_facets": undecided},
        )


def _announce_scored(campaign: Campaign, user) -> None:
    """The document's gold starts or stops counting for scoring: say so, inside the transaction,
    so that scoring queues one rescoring on commit (one waiting job covers a burst)."""
    link = (
        CampaignGold.objects.filter(campaign=campaign)
        .select_related("annotation_set__dataset")
        .first()
    )
    if link is None:  # no gold was ever saved: nothing counts, nothing changes
        return
    gold = link.annotation_set
    if campaign.kind == CampaignKind.POLYTOPE:
        scored_spans_changed.send(
            sender=DocumentAdjudication, dataset=gold.dataset, annotation_set=gold, user=user
        )
    else:
        scored_fams_changed.send(sender=DocumentAdjudication, dataset=gold.dataset, user=user)


@transaction.atomic
def document_adjudication_mark(
    *, campaign: Campaign, document: Document, user
) -> DocumentAdjudication:
    """Mark a document adjudicated (done): its gold is complete and its tasks stay submitted.

    From now on the document's gold counts for scoring: ``scored_fams_changed`` (FAM
    campaign) or ``scored_spans_changed`` (PolyTope) is sent, and a rescoring is queued on
    commit. The document's tasks are locked first, so a reopen running at the same time either
    finishes before (and the document is then marked with a task in progress) or sees the
    document done and is refused. Marking a done document again changes nothing.

    Args:
        campaign: the campaign (open or in adjudication).
        document: one of its documents.
        user: the adjudicator; ``self_adjudicated`` records that they annotated it too.

    Returns:
        The document's adjudication row.

    Raises:
        ApplicationError: a closed campaign, a document outside it, or an incomplete gold (a
            FAM facet undecided, an item without gold errors or mark: ``missing_items``, and
            ``missing_outputs`` for a user shown output ids).
    """
    _check_writable(campaign)
    _check_member(campaign, document)
    list(Task.objects.select_for_update().filter(campaign=campaign, document=document))
    state = _document_state(campaign, document)
    if state.status == AdjudicationStatus.DONE:
        return state
    _check_complete(campaign, document, user)
    state.status = AdjudicationStatus.DONE
    state.by = user
    state.at = timezone.now()
    state.self_adjudicated = Task.objects.filter(
        campaign=campaign, document=document, annotator=user
    ).exists()
    state.full_clean(exclude=["campaign", "document", "by"], validate_constraints=False)
    state.save()
    _announce_scored(campaign, user)
    return state


@transaction.atomic
def document_adjudication_reopen(
    *, campaign: Campaign, document: Document, user
) -> DocumentAdjudication:
    """Undo "done": the document's gold may change again and its tasks may be reopened.

    The document's gold no longer counts for scoring (its released FAM or spans, if any, do
    again): the change is announced as by :func:`document_adjudication_mark`. Reopening a
    pending document changes nothing.

    Args:
        campaign: the campaign (open or in adjudication).
        document: one of its documents.
        user: the adjudicator.

    Returns:
        The document's adjudication row, pending.

    Raises:
        ApplicationError: a closed campaign or a document outside it.
    """
    _check_writable(campaign)
    _check_member(campaign, document)
    state = _document_state(campaign, document)
    if state.status == AdjudicationStatus.PENDING:
        return state
    state.status = AdjudicationStatus.PENDING
    state.by = user
    state.at = timezone.now()
    state.self_adjudicated = False
    state.full_clean(exclude=["campaign", "document", "by"], validate_constraints=False)
    state.save()
    _announce_scored(campaign, user)
    return state
