"""Presence services: a workspace tab announces it has a task open, or that it left."""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import Task, TaskPresence
from ..selectors import presence_seconds


def _presence_lock_or_create(
    *, task: Task, user, client_id: str, now, left: bool
) -> tuple[TaskPresence, bool]:
    """The tab's entry, locked; made (with ``left``) when it has none. Returns it and whether
    it was made. Two first requests of one tab may race: the loser reads the winner's entry."""
    mine = TaskPresence.objects.select_for_update().filter(
        task=task, user=user, client_id=client_id
    )
    presence = mine.first()
    if presence is not None:
        return presence, False
    presence = TaskPresence(task=task, user=user, client_id=client_id, last_seen=now, left=left)
    presence.full_clean(exclude=["task", "user"], validate_constraints=False)
    try:
        with transaction.atomic():  # a savepoint, so that the race's loser can go on
            presence.save()
    except IntegrityError:
        return mine.get(), False
    return presence, True


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
    presence, made = _presence_lock_or_create(
        task=task, user=user, client_id=client_id, now=now, left=False
    )
    if made or presence.left:
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
    presence, made = _presence_lock_or_create(
        task=task, user=user, client_id=client_id, now=now, left=True
    )
    if not made:
        presence.left, presence.last_seen = True, now
        presence.full_clean(exclude=["task", "user"], validate_constraints=False)
        presence.save(update_fields=["left", "last_seen"])
