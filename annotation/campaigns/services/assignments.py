"""Task services: assign annotators (round-robin or manual), start, submit, reopen."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.accounts.roles import ANNOTATOR, has_role
from annotation.corpus.models import Document
from annotation.fams.models import Fam
from annotation.fams.services import empty_facets, fam_save
from config.exceptions import ApplicationError

from ..assignment import AssignmentError, round_robin
from ..models import (
    Campaign,
    CampaignKind,
    CampaignStatus,
    Task,
    TaskStatus,
)
from ..signals import task_submitted


def _annotator(username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ApplicationError(f"Unknown user {username!r}.")
    if not has_role(user, ANNOTATOR):
        raise ApplicationError(f"User {username!r} is not an annotator.")
    return user


def _task_create(campaign: Campaign, document: Document, annotator, position: int) -> Task | None:
    if Task.objects.filter(campaign=campaign, document=document, annotator=annotator).exists():
        return None
    reference = document.references.get(position=campaign.reference_position)
    fam, _ = Fam.objects.get_or_create(
        annotation_set=campaign.annotation_set,
        reference=reference,
        annotator=annotator,
        defaults={"document": document, "facets": empty_facets(reference.facet_count)},
    )
    task = Task(campaign=campaign, document=document, annotator=annotator, position=position)
    task.full_clean(validate_constraints=False)
    task.save()
    return task


def _item_tasks_create(campaign: Campaign, pairs: Sequence[tuple], per_document: int) -> list[Task]:
    """Create the item tasks of ``(document, annotator, system slug or None)`` triples.

    ``None`` means every item of the document. A task's position is document-major: the
    document's place in the campaign, then the item's place in the document's order. Existing
    tasks are kept, not duplicated.
    """
    from annotation.campaigns.selectors import campaign_items

    items = campaign_items(campaign=campaign)
    order = {
        pk: index
        for index, pk in enumerate(
            campaign.documents.order_by("position", "id").values_list("pk", flat=True)
        )
    }
    existing = set(Task.objects.filter(campaign=campaign).values_list("output_id", "annotator_id"))
    created = []
    for document, annotator, system in pairs:
        for rank, output in enumerate(items.get(document.pk, [])):
            if system is not None and output.system.slug != system:
                continue
            if (output.pk, annotator.pk) in existing:
                continue
            existing.add((output.pk, annotator.pk))
            task = Task(
                campaign=campaign,
                document=document,
                output=output,
                annotator=annotator,
                position=order[document.pk] * per_document + rank,
            )
            # The rows were just read: checking each foreign key again would cost four queries.
            task.full_clean(
                exclude=["campaign", "document", "output", "annotator"],
                validate_constraints=False,
            )
            created.append(task)
    return Task.objects.bulk_create(created, batch_size=500)


@transaction.atomic
def tasks_assign_round_robin(*, campaign: Campaign, annotators: Sequence[str]) -> list[Task]:
    """Assign every campaign document to ``annotators_per_document`` annotators, round-robin.

    In a PolyTope campaign an annotator who gets a document gets all its items (one per
    system), one after the other, so the source is read once.

    Args:
        campaign: the campaign.
        annotators: usernames of annotators, in a fixed order.

    Returns:
        The tasks created (existing assignments are kept, not duplicated).

    Raises:
        ApplicationError: unknown users, users without the Annotator role, or more annotators
            per document than given.
    """
    users = [_annotator(name) for name in annotators]
    documents = list(campaign.documents.order_by("position", "id"))
    try:
        pairs = round_robin(documents, users, campaign.annotators_per_document)
    except AssignmentError as error:
        raise ApplicationError(str(error)) from error
    if campaign.kind == CampaignKind.POLYTOPE:
        per_document = max(1, campaign.systems.count())
        return _item_tasks_create(
            campaign, [(doc, user, None) for doc, user in pairs], per_document
        )
    created = [
        _task_create(campaign, doc, user, position) for position, (doc, user) in enumerate(pairs)
    ]
    return [task for task in created if task is not None]


@transaction.atomic
def tasks_assign_manual(*, campaign: Campaign, assignments: Sequence[tuple]) -> list[Task]:
    """Assign given documents to given annotators.

    Args:
        campaign: the campaign.
        assignments: ``(document external id, username)`` pairs; in a PolyTope campaign a pair
            gives the annotator every item of the document, and a triple ``(document,
            username, system slug)`` only that system's item.

    Returns:
        The tasks created (existing assignments are kept, not duplicated).

    Raises:
        ApplicationError: a document outside the campaign, a user who is not an annotator, or
            a system outside the (PolyTope) campaign.
    """
    documents = {d.external_id: d for d in campaign.documents.all()}
    polytope = campaign.kind == CampaignKind.POLYTOPE
    systems = set(campaign.systems.values_list("slug", flat=True)) if polytope else set()
    checked = []
    for assignment in assignments:
        external_id, username, *rest = assignment
        system = rest[0] if rest else None
        if external_id not in documents:
            raise ApplicationError(f"Document {external_id!r} is not part of this campaign.")
        if system is not None and not polytope:
            raise ApplicationError("A FAM campaign's tasks are documents: give no system.")
        if system is not None and system not in systems:
            raise ApplicationError(
                f"System {system!r} is not part of this campaign (its systems: {sorted(systems)})."
            )
        checked.append((documents[external_id], _annotator(username), system))
    if polytope:
        return _item_tasks_create(campaign, checked, max(1, len(systems)))
    created = []
    for position, (document, user, _system) in enumerate(checked):
        task = _task_create(campaign, document, user, position)
        if task is not None:
            created.append(task)
    return created


def _locked(task: Task) -> Task:
    # Lock the task row only: saves, submit and reopen of one task run one at a time.
    return Task.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=task.pk)


def _check_open(task: Task) -> None:
    # Annotators work while the campaign is open or in adjudication (a task reopened then,
    # its document not adjudicated yet, can be fixed and submitted again); closed is final.
    if task.campaign.status == CampaignStatus.CLOSED:
        raise ApplicationError(
            f"The campaign is {task.campaign.status}: it no longer accepts changes."
        )


@transaction.atomic
def task_fam_save(
    *, task: Task, user, facets: list[dict], base_version: int, category: str | None = None
) -> Fam:
    """Save the task's FAM (see :func:`annotation.fams.services.fam_save` for the 409 rule).

    The task row is locked, so a save and a submit of the same task never interleave.

    Args:
        task: the task.
        user: its annotator.
        facets: the new facets.
        base_version: the version the edit started from.
        category: the annotator's category override (``None``: unchanged).

    Returns:
        The saved FAM.

    Raises:
        ApplicationError: not the task's annotator, the campaign is closed, or the task is
            submitted.
        ConflictError: ``base_version`` is stale (HTTP 409, with the server's state).
    """
    from annotation.campaigns.selectors import task_fam

    task = _locked(task)
    _check_editable(task, user, kind=CampaignKind.FAM, noun="FAM")
    fam = fam_save(
        fam=task_fam(task=task),
        facets=facets,
        base_version=base_version,
        user=user,
        category_override=category,
    )
    task_started(task)
    return fam


def _check_editable(task: Task, user, *, kind: str, noun: str) -> None:
    """The task's annotator may change it while the campaign is open and it is not submitted.

    Args:
        task: the task, locked, with its campaign.
        user: who saves.
        kind: the campaign kind the save is for (a FAM save of a PolyTope task is refused).
        noun: what is saved ("FAM", "errors"), for the messages.

    Raises:
        ApplicationError: 403 for anyone but the task's annotator; 400 for a task of another
            kind, a closed campaign or a submitted task.
    """
    if task.annotator_id != user.pk:
        raise ApplicationError("Only the task's annotator may change it.", status_code=403)
    if task.campaign.kind != kind:
        raise ApplicationError(
            f"This task is in a {task.campaign.get_kind_display()} campaign: "
            f"it has no {noun} to save."
        )
    _check_open(task)
    if task.status == TaskStatus.SUBMITTED:
        raise ApplicationError(f"The task is submitted; reopen it to change the {noun}.")


def task_started(task: Task) -> None:
    """Move a to-do task (locked by the caller) to in progress on its first save.

    Args:
        task: the task, locked.
    """
    if task.status == TaskStatus.TODO:
        task.status = TaskStatus.IN_PROGRESS
        # Only the status changes: its foreign keys were just read under the lock (checking
        # them again would cost four queries on every first save).
        task.full_clean(
            exclude=["campaign", "document", "output", "annotator"], validate_constraints=False
        )
        task.save(update_fields=["status", "updated_at"])


def unfinished_facets(fam: Fam) -> list[int]:
    """Facets that have neither a support group nor a no-support/noise label.

    Args:
        fam: the FAM.

    Returns:
        Their indices (empty when the FAM is complete).
    """
    return [
        index
        for index, facet in enumerate(fam.facets)
        if not facet["groups"] and facet.get("label", "supported") == "supported"
    ]


@transaction.atomic
def task_submit(*, task: Task) -> Task:
    """Mark a task done once it is complete (submitting twice is a no-op).

    A FAM task is complete when every facet has a group or a label; a PolyTope task when its
    output has at least one error or the "no errors" mark.

    Args:
        task: the task.

    Returns:
        The submitted task.

    Raises:
        ApplicationError: the campaign is closed, a facet is unfinished, or an output is
            not annotated.
    """
    from annotation.campaigns.selectors import task_fam, task_span_annotation

    task = _locked(task)
    _check_open(task)
    if task.status == TaskStatus.SUBMITTED:
        return task
    if task.campaign.kind == CampaignKind.POLYTOPE:
        annotation = task_span_annotation(task=task)
        if annotation is None or not annotation.annotated:
            raise ApplicationError(
                "Mark at least one error in this summary, or mark it as having no errors "
                "(key 0), before submitting."
            )
    else:
        missing = unfinished_facets(task_fam(task=task))
        if missing:
            raise ApplicationError(
                f"Facet(s) {[i + 1 for i in missing]} have no support group and no "
                "no-support/noise label yet.",
                extra={"unfinished_facets": missing},
            )
    task.status = TaskStatus.SUBMITTED
    task.submitted_at = timezone.now()
    task.full_clean(validate_constraints=False)
    task.save(update_fields=["status", "submitted_at", "updated_at"])
    task_submitted.send(sender=Task, task=task, campaign=task.campaign)
    return task


@transaction.atomic
def task_reopen(*, task: Task) -> Task:
    """Reopen a submitted task; allowed until the campaign is closed or its document adjudicated.

    Every guard registered with :func:`annotation.campaigns.hooks.reopen_guard_register` (the
    adjudication app refuses a task whose document is adjudicated) is asked first.

    Args:
        task: the task.

    Returns:
        The task, in progress again.

    Raises:
        ApplicationError: the task is not submitted, the campaign is closed, or a guard
            refused.
    """
    from ..hooks import reopen_guards

    task = _locked(task)
    if task.campaign.status == CampaignStatus.CLOSED:
        raise ApplicationError("Submitted tasks can no longer be reopened: the campaign is closed.")
    for guard in reopen_guards():
        reason = guard(task)
        if reason:
            raise ApplicationError(reason)
    if task.status != TaskStatus.SUBMITTED:
        raise ApplicationError("Only a submitted task can be reopened.")
    task.status = TaskStatus.IN_PROGRESS
    task.submitted_at = None
    task.full_clean(validate_constraints=False)
    task.save(update_fields=["status", "submitted_at", "updated_at"])
    return task
