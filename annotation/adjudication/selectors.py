"""Adjudication selectors (reads): who may adjudicate, the documents to adjudicate, one document's
annotations side by side with their differences (computed by ``scoring.metrics.adjudication``)
and its gold."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from django.db.models import Exists, OuterRef, Q
from django.http import Http404

from annotation.accounts.roles import ADMIN, has_role
from annotation.campaigns.models import Campaign, CampaignKind, Task, TaskStatus
from annotation.campaigns.selectors import campaign_item_names, campaign_items
from annotation.corpus.models import Document
from annotation.fams.models import AnnotationSet, Fam
from annotation.fams.services import empty_facets
from annotation.spans.models import SpanAnnotation
from config.exceptions import ApplicationError
from scoring.metrics.adjudication import (
    errors_diff,
    fam_diff,
    fam_document_agreement,
)
from scoring.metrics.spans import join_sentences, scheme_get
from scoring.metrics.spans.agreement import span_f1_exact

from .models import AdjudicationStatus, CampaignAdjudicator, CampaignGold, DocumentAdjudication

# The per-document agreement of the list: for FAM campaigns the mean pairwise Jaccard index of
# facet supports (facets neither of a pair supports left out), for PolyTope campaigns the
# agreement page's exact span F1 (scoring.metrics.spans.agreement.span_f1_exact: errors paired
# by offsets, type and label not compared) pooled over items and pairs; both over submitted
# annotations only.
FAM_AGREEMENT = "jaccard_union"
SPANS_AGREEMENT = "span_f1_exact"


def _spans_agreement(outputs: list[list[tuple[str, str, list, bool]]]) -> float | None:
    """A document's exact span F1 from its submitted rows, counted as the agreement page does.

    Args:
        outputs: per output, ``(summary text the offsets index, annotator, errors,
            no_errors)`` per submitted annotator.

    Returns:
        :func:`span_f1_exact` over the outputs whose judged rows (with errors, or marked clean)
        index one text; None when nothing is compared.
    """
    items = []
    for rows in outputs:
        judged = [
            (text, name, errors, clean) for text, name, errors, clean in rows if clean or errors
        ]
        if len({text for text, _, _, _ in judged}) != 1:
            continue  # nobody judged it, or annotators marked different texts (left out)
        annotations = {name: [] if clean else errors for _, name, errors, clean in judged}
        items.append((len(judged[0][0]), annotations))
    return span_f1_exact(items)


def user_may_adjudicate(*, user, campaign_id: int) -> bool:
    """Whether ``user`` may adjudicate the campaign: admins always, others when granted.

    Args:
        user: a Django user (or anonymous user).
        campaign_id: the campaign's primary key.

    Returns:
        True for admins and for the campaign's adjudicators.
    """
    if user is None or not user.is_authenticated:
        return False
    if has_role(user, ADMIN):
        return True
    return CampaignAdjudicator.objects.filter(campaign_id=campaign_id, user_id=user.pk).exists()


def campaign_adjudicator_names(*, campaign: Campaign) -> list[str]:
    """The usernames granted adjudicator on the campaign (admins are not listed).

    Args:
        campaign: the campaign.

    Returns:
        Sorted usernames.
    """
    return list(
        CampaignAdjudicator.objects.filter(campaign=campaign)
        .order_by("user__username")
        .values_list("user__username", flat=True)
    )


def document_adjudicated(*, campaign_id: int, document_id: int) -> bool:
    """Whether the campaign's document is adjudicated (done).

    Args:
        campaign_id: the campaign's primary key.
        document_id: the document's primary key.

    Returns:
        True when it is marked done.
    """
    return DocumentAdjudication.objects.filter(
        campaign_id=campaign_id, document_id=document_id, status=AdjudicationStatus.DONE
    ).exists()


def gold_counted_q(*, document_field: str = "document_id") -> Q:
    """The condition under which a gold (or any other) set's row counts for scoring.

    A campaign's gold set (registered in :class:`CampaignGold`) is built document by document
    while adjudicators work: its rows count only for the documents whose adjudication is done.
    Rows of every other set (a release's, an imported or admin-made gold set) always count.
    Reopening a document's adjudication takes its gold out again.

    Args:
        document_field: the path from the filtered model to its document's id
            (``document_id`` for a FAM, ``output__document_id`` for a span annotation). The
            model must have an ``annotation_set`` foreign key.

    Returns:
        A ``Q`` to filter FAMs or span annotations with.
    """
    campaign_gold = CampaignGold.objects.filter(annotation_set_id=OuterRef("annotation_set_id"))
    done = DocumentAdjudication.objects.filter(
        campaign__gold__annotation_set_id=OuterRef("annotation_set_id"),
        document_id=OuterRef(document_field),
        status=AdjudicationStatus.DONE,
    )
    return Q(~Exists(campaign_gold)) | Q(Exists(done))


def adjudicated_task_reopen_guard(task: Task) -> str | None:
    """The campaigns app's reopen guard: a task whose document is adjudicated stays submitted.

    Args:
        task: the task being reopened (locked by ``task_reopen``).

    Returns:
        The reason to refuse, or None.
    """
    if document_adjudicated(campaign_id=task.campaign_id, document_id=task.document_id):
        external_id = Document.objects.values_list("external_id", flat=True).get(
            pk=task.document_id
        )
        return (
            f"Document {external_id!r} is adjudicated: its tasks can no longer be reopened "
            "(an adjudicator can reopen its adjudication first)."
        )
    return None


def annotator_fams(*, campaign: Campaign, document: Document) -> dict[str, Fam]:
    """The campaign annotators' FAMs of one document (of the campaign's reference).

    Args:
        campaign: a FAM campaign.
        document: one of its documents.

    Returns:
        username -> FAM.
    """
    fams = Fam.objects.filter(
        annotation_set_id=campaign.annotation_set_id,
        document=document,
        reference__position=campaign.reference_position,
        annotator__isnull=False,
    ).select_related("annotator")
    return {fam.annotator.username: fam for fam in fams}


def annotator_spans(*, campaign: Campaign, outputs: Sequence[int]) -> dict[int, dict]:
    """The campaign annotators' span annotations of some of its outputs.

    Args:
        campaign: a PolyTope campaign.
        outputs: output ids.

    Returns:
        output id -> username -> span annotation.
    """
    rows = SpanAnnotation.objects.filter(
        annotation_set_id=campaign.annotation_set_id,
        output_id__in=list(outputs),
        annotator__isnull=False,
    ).select_related("annotator")
    found: dict[int, dict] = {}
    for row in rows:
        found.setdefault(row.output_id, {})[row.annotator.username] = row
    return found


def campaign_gold_get(*, campaign: Campaign) -> AnnotationSet | None:
    """The campaign's gold set, if a gold save made it.

    Args:
        campaign: the campaign.

    Returns:
        The gold annotation set, or None.
    """
    link = CampaignGold.objects.filter(campaign=campaign).select_related("annotation_set").first()
    return link.annotation_set if link else None


def adjudication_campaign_get(*, campaign_id: int) -> Campaign:
    """A campaign with what adjudication reads of it.

    Args:
        campaign_id: its primary key.

    Returns:
        The campaign with its dataset and annotation set.

    Raises:
        Http404: no such campaign.
    """
    campaign = (
        Campaign.objects.select_related("dataset", "annotation_set").filter(pk=campaign_id).first()
    )
    if campaign is None:
        raise Http404("No such campaign.")
    return campaign


def adjudication_document_get(*, campaign: Campaign, document_id: int) -> Document:
    """One of the campaign's documents.

    Args:
        campaign: the campaign.
        document_id: the document's primary key.

    Returns:
        The document.

    Raises:
        Http404: not a document of the campaign.
    """
    document = campaign.documents.filter(pk=document_id).first()
    if document is None:
        raise Http404("No such document in this campaign.")
    return document


def adjudication_unfinished_documents(*, campaign: Campaign, user) -> set[int]:
    """The campaign's documents the user may not adjudicate yet: their own task on it (any of
    its items, in PolyTope) is not submitted. Reading peers' work there would unblind them.

    Args:
        campaign: the campaign.
        user: who asks (admins who do not annotate a document are not concerned by it).

    Returns:
        Document ids.
    """
    return set(
        Task.objects.filter(campaign=campaign, annotator_id=user.pk)
        .exclude(status=TaskStatus.SUBMITTED)
        .values_list("document_id", flat=True)
    )


def adjudication_document_check_open(*, campaign: Campaign, document: Document, user) -> None:
    """Refuse to show a document to a user whose own task on it is not submitted.

    Args:
        campaign: the campaign.
        document: one of its documents.
        user: who asks.

    Raises:
        ApplicationError: 403, naming the document and why.
    """
    if (
        Task.objects.filter(campaign=campaign, document=document, annotator_id=user.pk)
        .exclude(status=TaskStatus.SUBMITTED)
        .exists()
    ):
        raise ApplicationError(
            f"You annotate document {document.external_id!r} in this campaign and have not "
            "submitted it: you may adjudicate it once your own annotation is submitted.",
            status_code=403,
        )


def adjudication_neighbours(*, campaign: Campaign, document: Document, user) -> dict:
    """The document's place among those the user may open, in the list's (campaign) order.

    Args:
        campaign: the campaign.
        document: one of its documents.
        user: who asks.

    Returns:
        ``{"previous", "next", "index", "count"}``: the neighbours' ids (None at either end),
        the document's 1-based place and how many documents the user may open.
    """
    hidden = adjudication_unfinished_documents(campaign=campaign, user=user)
    ids = [
        pk
        for pk in campaign.documents.order_by("position", "id").values_list("id", flat=True)
        if pk not in hidden
    ]
    at = ids.index(document.pk) if document.pk in ids else None
    if at is None:
        return {"previous": None, "next": None, "index": None, "count": len(ids)}
    return {
        "previous": ids[at - 1] if at > 0 else None,
        "next": ids[at + 1] if at + 1 < len(ids) else None,
        "index": at + 1,
        "count": len(ids),
    }


def _campaign_summary(campaign: Campaign, user) -> dict:
    gold = campaign_gold_get(campaign=campaign)
    return {
        "id": campaign.pk,
        "slug": campaign.slug,
        "name": campaign.name,
        "kind": campaign.kind,
        "dataset": campaign.dataset.slug,
        "status": campaign.status,
        "status_label": campaign.get_status_display(),
        "reference_position": campaign.reference_position,
        "annotators_per_document": campaign.annotators_per_document,
        "gold_set": {"id": gold.pk, "slug": gold.slug} if gold else None,
        "adjudicators": campaign_adjudicator_names(campaign=campaign),
        "writable": campaign.status != "closed",
    }


def _states(campaign: Campaign) -> dict[int, DocumentAdjudication]:
    return {
        row.document_id: row
        for row in DocumentAdjudication.objects.filter(campaign=campaign).select_related("by")
    }


def adjudication_list(*, campaign: Campaign, user) -> dict:
    """The campaign's documents with their annotators, agreement and adjudication state.

    ``annotators`` counts who has the document (a PolyTope annotator counts once for all its
    items), ``submitted`` those who submitted it (every item, for PolyTope). ``agreement`` is
    computed over submitted annotations (see :data:`FAM_AGREEMENT` and
    :data:`SPANS_AGREEMENT`; None below two annotators). ``gold_version`` is the gold FAM's
    version, or for PolyTope the highest version among the items' gold rows (None: no gold).

    Args:
        campaign: the campaign.
        user: who asks.

    Returns:
        ``{"campaign": {...}, "agreement_measure", "documents": [{"id", "external_id",
        "category", "annotators", "submitted", "agreement", "status", "gold_version",
        "gold_items"?}]}`` in the campaign's document order, without the documents the user
        annotates and has not submitted (see :func:`adjudication_unfinished_documents`).
    """
    polytope = campaign.kind == CampaignKind.POLYTOPE
    documents = list(
        campaign.documents.order_by("position", "id").only("id", "external_id", "category")
    )
    # (document, annotator) -> statuses of their tasks (several items in PolyTope).
    statuses: dict[tuple[int, str], list[str]] = defaultdict(list)
    submitted_item: set[tuple[int | None, str]] = set()
    for document_id, output_id, name, status in Task.objects.filter(campaign=campaign).values_list(
        "document_id", "output_id", "annotator__username", "status"
    ):
        statuses[(document_id, name)].append(status)
        if status == TaskStatus.SUBMITTED:
            submitted_item.add((output_id if polytope else document_id, name))
    by_document: dict[int, list[str]] = defaultdict(list)
    done_by_document: dict[int, set[str]] = defaultdict(set)
    for (document_id, name), task_statuses in statuses.items():
        by_document[document_id].append(name)
        if all(s == TaskStatus.SUBMITTED for s in task_statuses):
            done_by_document[document_id].add(name)
    gold = campaign_gold_get(campaign=campaign)
    gold_versions: dict[int, int] = {}
    gold_items: dict[int, int] = defaultdict(int)
    agreement: dict[int, float | None] = {}
    if polytope:
        items: dict[int, dict[int, list]] = defaultdict(lambda: defaultdict(list))
        for (
            document_id,
            output_id,
            name,
            errors,
            no_errors,
            text,
            sentences,
        ) in SpanAnnotation.objects.filter(
            annotation_set_id=campaign.annotation_set_id, annotator__isnull=False
        ).values_list(
            "output__document_id",
            "output_id",
            "annotator__username",
            "errors",
            "no_errors",
            "annotated_text",
            "output__sentences",
        ):
            if (output_id, name) in submitted_item:
                text = text or join_sentences(sentences)
                items[document_id][output_id].append((text, name, errors, no_errors))
        for document_id, outputs in items.items():
            agreement[document_id] = _spans_agreement(list(outputs.values()))
        if gold is not None:
            for document_id, version in SpanAnnotation.objects.filter(
                annotation_set=gold, annotator__isnull=True
            ).values_list("output__document_id", "version"):
                gold_versions[document_id] = max(version, gold_versions.get(document_id, 0))
                gold_items[document_id] += 1
    else:
        fams: dict[int, dict[str, list]] = defaultdict(dict)
        for document_id, name, facets in Fam.objects.filter(
            annotation_set_id=campaign.annotation_set_id,
            reference__position=campaign.reference_position,
            annotator__isnull=False,
        ).values_list("document_id", "annotator__username", "facets"):
            if (document_id, name) in submitted_item:
                fams[document_id][name] = facets
        for document_id, annotations in fams.items():
            agreement[document_id] = fam_document_agreement(annotations)
        if gold is not None:
            gold_versions = dict(
                Fam.objects.filter(
                    annotation_set=gold,
                    reference__position=campaign.reference_position,
                    annotator__isnull=True,
                ).values_list("document_id", "version")
            )
    states = _states(campaign)
    hidden = adjudication_unfinished_documents(campaign=campaign, user=user)
    rows = []
    for document in documents:
        if document.pk in hidden:
            continue
        state = states.get(document.pk)
        row = {
            "id": document.pk,
            "external_id": document.external_id,
            "category": document.category,
            "annotators": len(by_document.get(document.pk, [])),
            "submitted": len(done_by_document.get(document.pk, ())),
            "agreement": agreement.get(document.pk),
            "status": state.status if state else AdjudicationStatus.PENDING,
            "gold_version": gold_versions.get(document.pk),
        }
        if polytope:
            row["gold_items"] = gold_items.get(document.pk, 0)
        rows.append(row)
    return {
        "campaign": _campaign_summary(campaign, user),
        "agreement_measure": SPANS_AGREEMENT if polytope else FAM_AGREEMENT,
        "documents": rows,
    }


def _state_dict(campaign: Campaign, document: Document, user) -> dict:
    state = DocumentAdjudication.objects.filter(campaign=campaign, document=document).first()
    done = state is not None and state.status == AdjudicationStatus.DONE
    return {
        "status": state.status if state else AdjudicationStatus.PENDING,
        "status_by": state.by.username if state and state.by else None,
        "status_at": state.at if state else None,
        "self_adjudicated": bool(state and state.self_adjudicated),
        "you_annotated": Task.objects.filter(
            campaign=campaign, document=document, annotator_id=user.pk
        ).exists(),
        "editable": campaign.status != "closed" and not done,
        **adjudication_neighbours(campaign=campaign, document=document, user=user),
    }


def latest_author(row) -> str | None:
    """Who saved the latest revision of a FAM or span annotation.

    Args:
        row: a ``Fam`` or ``SpanAnnotation`` (unsaved rows have no author).

    Returns:
        The author's username, or None (no revision, or an author since deleted).
    """
    if row.pk is None:
        return None
    latest = row.revisions.select_related("author").first()
    return latest.author.username if latest and latest.author else None


def _tasks(campaign: Campaign, document: Document) -> list[Task]:
    return list(
        Task.objects.filter(campaign=campaign, document=document)
        .select_related("annotator")
        .order_by("annotator__username", "output_id")
    )


def adjudication_fam_document(*, campaign: Campaign, document: Document, user) -> dict:
    """One document of a FAM campaign: every annotator's FAM side by side, the differences per
    facet, and the gold FAM with each facet's provenance.

    ``annotations`` holds every annotator who has started the document (their task is in
    progress or submitted), by username; ``waiting`` names those who have not. ``diff`` compares
    exactly the annotations listed (see :func:`scoring.metrics.adjudication.fam_diff`).

    Args:
        campaign: a FAM campaign.
        document: one of its documents.
        user: who asks.

    Returns:
        A JSON-ready dict (see docs/guides/admin.md, Adjudication).
    """
    reference = document.references.get(position=campaign.reference_position)
    fams = annotator_fams(campaign=campaign, document=document)
    annotations, waiting = [], []
    for task in _tasks(campaign, document):
        name = task.annotator.username
        fam = fams.get(name)
        if task.status == TaskStatus.TODO or fam is None:
            waiting.append(name)
            continue
        annotations.append(
            {
                "annotator": name,
                "task_status": task.status,
                "facets": [
                    {
                        "groups": facet.get("groups", []),
                        "label": facet.get("label", "supported"),
                        "note": facet.get("note", ""),
                    }
                    for facet in fam.facets
                ],
                "version": fam.version,
                "updated_at": fam.updated_at,
            }
        )
    diff = fam_diff({a["annotator"]: a["facets"] for a in annotations})
    submitted = {
        a["annotator"]: a["facets"] for a in annotations if a["task_status"] == TaskStatus.SUBMITTED
    }
    gold_set = campaign_gold_get(campaign=campaign)
    gold_fam = (
        Fam.objects.filter(
            annotation_set=gold_set, reference=reference, annotator__isnull=True
        ).first()
        if gold_set
        else None
    )
    if gold_fam is None:
        gold = {
            "version": 0,
            "facets": [
                {**facet, "provenance": None} for facet in empty_facets(reference.facet_count)
            ],
            "updated_at": None,
            "updated_by": None,
        }
    else:
        gold = {
            "version": gold_fam.version,
            "facets": [{"provenance": None, **facet} for facet in gold_fam.facets],
            "updated_at": gold_fam.updated_at,
            "updated_by": latest_author(gold_fam),
        }
    return {
        "kind": CampaignKind.FAM,
        "campaign": _campaign_summary(campaign, user),
        "document": {
            "id": document.pk,
            "external_id": document.external_id,
            "category": document.category,
            "sentences": document.sentences,
        },
        "reference": {"position": reference.position, "facets": reference.sentences},
        "annotations": annotations,
        "waiting": waiting,
        "diff": [entry.as_dict() for entry in diff],
        "agreement": fam_document_agreement(submitted),
        "agreement_measure": FAM_AGREEMENT,
        "gold": gold,
        **_state_dict(campaign, document, user),
    }


def adjudication_spans_document(*, campaign: Campaign, document: Document, user) -> dict:
    """One document of a PolyTope campaign: per item (output), every annotator's errors side by
    side, which annotators marked each distinct error, and the item's gold errors.

    Items are named as :func:`annotation.campaigns.selectors.campaign_item_names` names them:
    each by its opaque ``item`` id; its system (``system``: its slug, ``system_name``) and its
    ``output`` id are None for a reader from whom the campaign hides them (until a system-blind
    campaign is Done, anyone who annotates it and readers who are not admins).

    Args:
        campaign: a PolyTope campaign.
        document: one of its documents.
        user: who asks.

    Returns:
        A JSON-ready dict (see docs/guides/admin.md, Adjudication).
    """
    outputs = campaign_items(campaign=campaign, document_id=document.pk).get(document.pk, [])
    rows = annotator_spans(campaign=campaign, outputs=[o.pk for o in outputs])
    tasks: dict[int, list[Task]] = defaultdict(list)
    for task in _tasks(campaign, document):
        tasks[task.output_id].append(task)
    gold_set = campaign_gold_get(campaign=campaign)
    gold_rows = (
        {
            row.output_id: row
            for row in SpanAnnotation.objects.filter(
                annotation_set=gold_set, output__in=outputs, annotator__isnull=True
            )
        }
        if gold_set
        else {}
    )
    items, submitted_items = [], []
    names = campaign_item_names(campaign=campaign, user=user, outputs=[o.pk for o in outputs])
    for output in outputs:
        annotations, waiting, submitted = [], [], []
        for task in tasks.get(output.pk, []):
            name = task.annotator.username
            row = rows.get(output.pk, {}).get(name)
            if task.status == TaskStatus.TODO or row is None:
                waiting.append(name)
                continue
            annotations.append(
                {
                    "annotator": name,
                    "task_status": task.status,
                    "errors": row.errors,
                    "no_errors": row.no_errors,
                    "version": row.version,
                    "updated_at": row.updated_at,
                }
            )
            if task.status == TaskStatus.SUBMITTED:
                text = row.annotated_text or join_sentences(output.sentences)
                submitted.append((text, name, row.errors, row.no_errors))
        submitted_items.append(submitted)
        gold_row = gold_rows.get(output.pk)
        items.append(
            {
                "item": names.ids[output.pk],
                "output": names.shown(output.pk),
                "system": output.system.slug if names.reveal else None,
                "system_name": output.system.name if names.reveal else None,
                "summary": output.sentences,
                "annotations": annotations,
                "waiting": waiting,
                "diff": [
                    entry.as_dict()
                    for entry in errors_diff({a["annotator"]: a["errors"] for a in annotations})
                ],
                "gold": {
                    "version": gold_row.version if gold_row else 0,
                    "errors": gold_row.errors if gold_row else [],
                    "no_errors": gold_row.no_errors if gold_row else False,
                    "updated_at": gold_row.updated_at if gold_row else None,
                    "updated_by": latest_author(gold_row) if gold_row else None,
                },
            }
        )
    text_missing = document.text_missing
    return {
        "kind": CampaignKind.POLYTOPE,
        "campaign": _campaign_summary(campaign, user),
        "document": {
            "id": document.pk,
            "external_id": document.external_id,
            "category": document.category,
            "sentences": [] if text_missing else document.sentences,
            "text_missing": text_missing,
        },
        "scheme": scheme_get(campaign.annotation_set.scheme).describe(),
        "items": items,
        "agreement": _spans_agreement(submitted_items),
        "agreement_measure": SPANS_AGREEMENT,
        **_state_dict(campaign, document, user),
    }


def adjudication_document(*, campaign: Campaign, document: Document, user) -> dict:
    """One document to adjudicate, FAM or PolyTope (see the two selectors).

    Args:
        campaign: the campaign.
        document: one of its documents.
        user: who asks.

    Returns:
        A JSON-ready dict.
    """
    if campaign.kind == CampaignKind.POLYTOPE:
        return adjudication_spans_document(campaign=campaign, document=document, user=user)
    return adjudication_fam_document(campaign=campaign, document=document, user=user)


def adjudication_state(*, campaign: Campaign, document: Document) -> dict:
    """A document's adjudication state as the done/reopen APIs answer.

    Args:
        campaign: the campaign.
        document: one of its documents.

    Returns:
        ``{"document", "external_id", "status", "status_by", "status_at",
        "self_adjudicated"}``.
    """
    state = DocumentAdjudication.objects.filter(campaign=campaign, document=document).first()
    return {
        "document": document.pk,
        "external_id": document.external_id,
        "status": state.status if state else AdjudicationStatus.PENDING,
        "status_by": state.by.username if state and state.by else None,
        "status_at": state.at if state else None,
        "self_adjudicated": bool(state and state.self_adjudicated),
    }
