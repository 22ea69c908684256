"""Presence services: a workspace tab announces it has a task open, or that it left."""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import Task, TaskPresence
from ..selectors import presence_seconds


@transaction.atomic
def task_presence_touch(*, task: Task, user, client_id: str) -> TaskPresence:
    """Record that ``user`` has ``task`` open in the tab ``client_id`` now (a heartbeat).

    Entries of the task that expired are removed on the way. A heartbeat from a tab that
    already said it left changes nothing (it was sent before, and arrived after, the leaving).

    Args:
        task: the task (the caller checked the user may announce it).
        user: who has it open.
        client_id: the tab's own random id.

    Returns:
        The tab's presence entry.
    """
    now = timezone.now()
    TaskPresence.objects.filter(
        task=task, last_seen__lt=now - timedelta(seconds=presence_seconds())
    ).delete()
    presence = (
        TaskPresence.objects.select_for_update()
        .filter(task=task, user=user, client_id=client_id)
        .first()
    )
    if presence is None:
        presence = TaskPresence(task=task, user=user, client_id=client_id, last_seen=now)
        presence.full_clean(exclude=["task", "user"], validate_constraints=False)
        try:
            with transaction.atomic():  # a savepoint: the same tab's two first beats may race
                presence.save()
            return presence
        except IntegrityError:
            presence = TaskPresence.objects.select_for_update().get(
                task=task, user=user, client_id=client_id
            )
    if presence.left:
        return presence
    presence.last_seen = now
    presence.full_clean(exclude=["task", "user"], validate_constraints=False)
    presence.save(update_fields=["last_seen"])
    return presence


@transaction.atomic
def task_presence_leave(*, task: Task, user, client_id: str) -> None:
    """Mark the tab ``client_id`` of ``user`` on ``task`` as gone (the tab was closed or left).

    The entry stays, marked ``left``, until it expires: a late heartbeat cannot revive it.

    Args:
        task: the task.
        user: whose tab it was.
        client_id: the tab's id.
    """
    now = timezone.now()
    gone = TaskPresence.objects.filter(task=task, user=user, client_id=client_id)
    if not gone.update(left=True, last_seen=now):
        presence = TaskPresence(task=task, user=user, client_id=client_id, last_seen=now, left=True)
        presence.full_clean(exclude=["task", "user"], validate_constraints=False)
        try:
            with transaction.atomic():
                presence.save()
        except IntegrityError:  # its first heartbeat came in meanwhile
            gone.update(left=True, last_seen=now)
