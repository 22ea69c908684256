"""Task services: assign annotators (round-robin or manual), start, submit, reopen."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.accounts.roles import ANNOTATOR, has_role
from annotation.corpus.models import Document
from annotation.fams.models import Fam
from annotation.fams.services import empty_facets
from config.exceptions import ApplicationError

from ..assignment import AssignmentError, round_robin
from ..models import (
    Campaign,
    CampaignStatus,
    Task,
    TaskStatus,
)


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


@transaction.atomic
def tasks_assign_round_robin(*, campaign: Campaign, annotators: Sequence[str]) -> list[Task]:
    """Assign every campaign document to ``annotators_per_document`` annotators, round-robin.

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
    created = [
        _task_create(campaign, doc, user, position) for position, (doc, user) in enumerate(pairs)
    ]
    return [task for task in created if task is not None]


@transaction.atomic
def tasks_assign_manual(
    *, campaign: Campaign, assignments: Sequence[tuple[str, str]]
) -> list[Task]:
    """Assign given documents to given annotators.

    Args:
        campaign: the campaign.
        assignments: ``(document external id, username)`` pairs.

    Returns:
        The tasks created (existing assignments are kept, not duplicated).

    Raises:
        ApplicationError: a document outside the campaign, or a user who is not an annotator.
    """
    documents = {d.external_id: d for d in campaign.documents.all()}
    created = []
    for position, (external_id, username) in enumerate(assignments):
        if external_id not in documents:
            raise ApplicationError(f"Document {external_id!r} is not part of this campaign.")
        task = _task_create(campaign, documents[external_id], _annotator(username), position)
        if task is not None:
            created.append(task)
    return created


@transaction.atomic
def task_mark_started(*, task: Task) -> Task:
    """Move a task from to-do to in progress (on its first save).

    Args:
        task: the task.

    Returns:
        The task.
    """
    if task.status == TaskStatus.TODO:
        task.status = TaskStatus.IN_PROGRESS
        task.save(update_fields=["status", "updated_at"])
    return task


@transaction.atomic
def task_submit(*, task: Task) -> Task:
    """Mark a task done.

    Args:
        task: the task.

    Returns:
        The submitted task.

    Raises:
        ApplicationError: the campaign no longer accepts work.
    """
    if task.campaign.status != CampaignStatus.OPEN:
        raise ApplicationError("The campaign is closed for annotation.")
    task.status = TaskStatus.SUBMITTED
    task.submitted_at = timezone.now()
    task.save(update_fields=["status", "submitted_at", "updated_at"])
    return task


@transaction.atomic
def task_reopen(*, task: Task) -> Task:
    """Reopen a submitted task; allowed until the campaign goes to adjudication.

    Args:
        task: the task.

    Returns:
        The task, in progress again.

    Raises:
        ApplicationError: the campaign is in adjudication or closed.
    """
    if task.campaign.status != CampaignStatus.OPEN:
        raise ApplicationError(
            "Submitted tasks can no longer be reopened: the campaign is in adjudication."
        )
    task.status = TaskStatus.IN_PROGRESS
    task.submitted_at = None
    task.save(update_fields=["status", "submitted_at", "updated_at"])
    return task
