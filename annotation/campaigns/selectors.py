"""Campaign selectors (reads): campaigns, tasks, suggestions, FAM history and presence."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.utils import timezone

from annotation.accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.fams.models import Fam, FamRevision

from .models import Campaign, SuggestionSet, SuggestionStatus, Task, TaskPresence, TaskStatus


def campaign_list() -> QuerySet[Campaign]:
    """Every campaign with its task counts.

    Returns:
        Campaigns annotated with ``task_count`` and ``done_count``, newest first.
    """
    return Campaign.objects.select_related("dataset").annotate(
        task_count=Count("tasks", distinct=True),
        done_count=Count("tasks", filter=Q(tasks__status=TaskStatus.SUBMITTED), distinct=True),
    )


def task_list(*, user) -> QuerySet[Task]:
    """The user's own tasks in queue order (the "My tasks" list).

    Args:
        user: the annotator.

    Returns:
        Tasks with campaign and document loaded.
    """
    return (
        Task.objects.filter(annotator=user)
        .select_related("campaign", "document", "annotator")
        # A queue needs ids and names, not every document's text (about 10 KB each).
        .defer("document__sentences", "document__meta")
        .order_by("campaign__created_at", "campaign_id", "position", "id")
    )


def task_next(*, user, after: Task | None = None) -> Task | None:
    """The user's next unfinished task (after ``after`` in queue order, else the first).

    Args:
        user: the annotator.
        after: the current task, if any.

    Returns:
        A task that is not submitted, or None.
    """
    unfinished = [t for t in task_list(user=user) if t.status != TaskStatus.SUBMITTED]
    if after is not None:
        ids = [t.pk for t in unfinished]
        later = [t for t in unfinished if t.pk != after.pk]
        if after.pk in ids:
            position = ids.index(after.pk)
            later = unfinished[position + 1 :] + unfinished[:position]
        return later[0] if later else None
    return unfinished[0] if unfinished else None


def task_get(*, pk: int, user) -> Task:
    """A task the user may see: annotators only their own; researchers and admins any.

    Args:
        pk: the task's primary key.
        user: who asks.

    Returns:
        The task with campaign, document and annotator loaded.

    Raises:
        Http404: no such task, or not visible to the user (no existence leak).
    """
    task = Task.objects.select_related("campaign", "document", "annotator").filter(pk=pk).first()
    if task is None or not (task.annotator_id == user.pk or has_role(user, ADMIN, RESEARCHER)):
        raise Http404("No such task.")
    return task


def task_fam(*, task: Task) -> Fam:
    """The task's FAM (the annotator's own, in the campaign's annotation set).

    Args:
        task: the task.

    Returns:
        The FAM.
    """
    return Fam.objects.select_related("reference").get(
        annotation_set_id=task.campaign.annotation_set_id,
        # Ids, not task.document / task.annotator: those would load the rows just to filter.
        document_id=task.document_id,
        reference__position=task.campaign.reference_position,
        annotator_id=task.annotator_id,
    )


def task_others(*, task: Task) -> list[dict]:
    """Other annotators' FAMs of the same document, only for campaigns that are not blind.

    Args:
        task: the task.

    Returns:
        ``[{"annotator": username, "facets": [...]}]``; always empty for blind campaigns.
    """
    if task.campaign.blind:
        return []
    others = (
        Fam.objects.filter(annotation_set=task.campaign.annotation_set, document=task.document)
        .exclude(annotator=task.annotator)
        .select_related("annotator")
    )
    return [{"annotator": fam.annotator.username, "facets": fam.facets} for fam in others]


def task_suggestions(*, task: Task) -> dict:
    """The precomputed suggestions of the task's document, per scorer.

    Args:
        task: the task.

    Returns:
        ``{"status": pending|ready|failed, "scorers": {name: {"version", "facets"}}}``.
    """
    sets = SuggestionSet.objects.filter(campaign=task.campaign, document=task.document)
    scorers = {s.scorer: {"version": s.scorer_version, "facets": s.facets} for s in sets}
    status = task.campaign.suggestions_status
    if status == SuggestionStatus.PENDING and set(scorers) >= set(task.campaign.scorers):
        status = SuggestionStatus.READY  # this document's chunk is done before the others
    return {
        "status": status,
        "scorers": {n: scorers[n] for n in task.campaign.scorers if n in scorers},
    }


def fam_history(*, fam: Fam) -> QuerySet[FamRevision]:
    """A FAM's revisions, newest first.

    Args:
        fam: the FAM.

    Returns:
        Revisions with their authors.
    """
    return fam.revisions.select_related("author").order_by("-version")


def task_queue_summary(*, user) -> dict:
    """The "My tasks" view: progress, the next unfinished task and the list, in one query.

    Args:
        user: the annotator.

    Returns:
        ``{"total", "done", "next" (task id or None), "results" (tasks)}``.
    """
    tasks = list(task_list(user=user))
    unfinished = [t for t in tasks if t.status != TaskStatus.SUBMITTED]
    return {
        "total": len(tasks),
        "done": len(tasks) - len(unfinished),
        "next": unfinished[0].pk if unfinished else None,
        "results": tasks,
    }


def task_workspace(*, task: Task, user) -> dict:
    """Everything the workspace page needs for one task.

    The dataset's own category label is left out on purpose: it could bias the annotator.
    Other annotators' FAMs appear only in campaigns that are not blind.

    Args:
        task: the task (visible to ``user``).
        user: who asks.

    Returns:
        A JSON-ready dict: task, campaign options, document sentences, facet texts, the FAM,
        others' FAMs (non-blind only), the next task, whether the user may edit, and whether
        the page announces its presence (``POST .../presence/``).
    """
    fam = task_fam(task=task)
    following = task_next(user=task.annotator, after=task)
    campaign = task.campaign
    return {
        "id": task.pk,
        "status": task.status,
        "annotator": task.annotator.username,
        "campaign": {
            "id": campaign.pk,
            "name": campaign.name,
            "blind": campaign.blind,
            "top_k": campaign.top_k,
            "scorers": campaign.scorers,
            "status": campaign.status,
        },
        "document": {
            "id": task.document_id,
            "external_id": task.document.external_id,
            "sentences": task.document.sentences,
        },
        "facets_text": fam.reference.sentences,
        "fam": fam,
        "others": task_others(task=task),
        "next_task": following.pk if following and following.pk != task.pk else None,
        "editable": task.annotator_id == user.pk,
        "presence": task_presence_may_announce(task=task, user=user),
    }


def presence_seconds() -> int:
    """How long a tab counts as present after its last heartbeat (``LOUPE_PRESENCE_SECONDS``).

    Returns:
        Seconds (the setting is at least 1).
    """
    return settings.LOUPE_PRESENCE_SECONDS


def task_presence_may_announce(*, task: Task, user) -> bool:
    """Whether ``user`` may say they have the task open: its annotator, or an admin.

    Args:
        task: the task.
        user: who asks.

    Returns:
        True for the task's annotator and for admins.
    """
    return task.annotator_id == user.pk or has_role(user, ADMIN)


def task_presence_list(*, task: Task, user, client_id: str) -> list[dict]:
    """The other tabs that have the task open now (the caller's own tab left out).

    Args:
        task: the task.
        user: who asks (to mark entries of their own other tabs or browsers).
        client_id: the asking tab's id.

    Returns:
        ``[{"user", "is_you", "editing", "last_seen", "seconds_ago"}]``, most recent first;
        ``editing`` is true for the task's annotator (admins only look).
    """
    now = timezone.now()
    live = (
        TaskPresence.objects.filter(
            task=task, left=False, last_seen__gte=now - timedelta(seconds=presence_seconds())
        )
        .exclude(user=user, client_id=client_id)
        .select_related("user")
        .order_by("-last_seen", "pk")
    )
    return [
        {
            "user": presence.user.username,
            "is_you": presence.user_id == user.pk,
            "editing": presence.user_id == task.annotator_id,
            "last_seen": presence.last_seen,
            "seconds_ago": max(0, int((now - presence.last_seen).total_seconds())),
        }
        for presence in live
    ]
