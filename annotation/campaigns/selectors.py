"""Campaign selectors (reads): campaigns and their progress, tasks, suggestions, FAM and span
history, presence."""

from __future__ import annotations

import csv
import io
import random
from collections import defaultdict
from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.crypto import salted_hmac

from annotation.accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.fams.models import Fam, FamRevision
from annotation.spans.models import SpanAnnotation, SpanAnnotationRevision
from annotation.spans.workbook import escape_text
from scoring.metrics.leaderboard.polytope import polytope_document
from scoring.metrics.polytope import WEIGHTS, EmptySummaryError
from scoring.metrics.spans import join_sentences, scheme_get

from .models import (
    Campaign,
    CampaignKind,
    CampaignStatus,
    SuggestionSet,
    SuggestionStatus,
    Task,
    TaskPresence,
    TaskStatus,
)
from .timing import IDLE_CAP_SECONDS, active_seconds, seconds_summary


def campaign_list() -> QuerySet[Campaign]:
    """Every campaign with its task counts.

    Returns:
        Campaigns annotated with ``task_count`` and ``done_count`` (their suggestion jobs
        prefetched, for ``suggestions_status``), newest first.
    """
    return (
        Campaign.objects.select_related("dataset")
        .prefetch_related("systems", "suggestion_jobs")
        .annotate(
            task_count=Count("tasks", distinct=True),
            done_count=Count("tasks", filter=Q(tasks__status=TaskStatus.SUBMITTED), distinct=True),
        )
    )


def campaign_get(*, pk: int) -> Campaign:
    """One campaign with its task counts, document count, annotators and adjudicators.

    Args:
        pk: the campaign's primary key.

    Returns:
        The campaign, annotated like :func:`campaign_list`, with ``document_count``,
        ``annotator_names`` (usernames with a task, sorted) and ``adjudicator_names``.

    Raises:
        Http404: no such campaign.
    """
    campaign = campaign_list().filter(pk=pk).first()
    if campaign is None:
        raise Http404("No such campaign.")
    campaign.document_count = campaign.documents.count()
    campaign.annotator_names = sorted(
        set(campaign.tasks.values_list("annotator__username", flat=True))
    )
    campaign.adjudicator_names = campaign_adjudicators(campaign=campaign)
    return campaign


def _adjudicator_model():
    """The adjudication app's ``CampaignAdjudicator`` model, or None when it is not installed."""
    for config in apps.get_app_configs():
        if config.name == "annotation.adjudication":
            try:
                return config.get_model("CampaignAdjudicator")
            except LookupError:
                return None
    return None


def campaign_adjudicators(*, campaign: Campaign) -> list[str]:
    """Who may adjudicate the campaign besides the admins (the adjudication app's grants).

    Args:
        campaign: the campaign.

    Returns:
        Usernames, sorted (empty without the adjudication app).
    """
    model = _adjudicator_model()
    if model is None:
        return []
    return sorted(
        model.objects.filter(campaign_id=campaign.pk).values_list("user__username", flat=True)
    )


def campaign_may_read(*, campaign: Campaign, user) -> bool:
    """Whether ``user`` may read the campaign's details: admins and its adjudicators.

    Args:
        campaign: the campaign.
        user: who asks.

    Returns:
        True for admins and the campaign's adjudicators.
    """
    if has_role(user, ADMIN):
        return True
    model = _adjudicator_model()
    return bool(
        model is not None
        and user.is_authenticated
        and model.objects.filter(campaign_id=campaign.pk, user_id=user.pk).exists()
    )


def _revision_times(campaign: Campaign) -> dict[tuple[int, int], list]:
    """When each task's annotator saved its annotation, keyed like :func:`_task_key`.

    Only revisions saved by the row's owner count (a reassigned draft's earlier saves were
    the previous annotator's time).
    """
    if campaign.kind == CampaignKind.POLYTOPE:
        rows = SpanAnnotationRevision.objects.filter(
            annotation__annotation_set_id=campaign.annotation_set_id
        ).values_list(
            "annotation__output_id", "annotation__annotator_id", "author_id", "created_at"
        )
    else:
        rows = FamRevision.objects.filter(
            fam__annotation_set_id=campaign.annotation_set_id,
            fam__reference__position=campaign.reference_position,
        ).values_list("fam__document_id", "fam__annotator_id", "author_id", "created_at")
    times: dict[tuple[int, int], list] = defaultdict(list)
    for item, owner, author, at in rows.iterator(chunk_size=5000):
        if owner is not None and owner == author:
            times[(item, owner)].append(at)
    return times


def _task_key(task: Task) -> tuple[int, int]:
    return (task.output_id if task.output_id is not None else task.document_id, task.annotator_id)


PROGRESS_STATES = {
    TaskStatus.SUBMITTED: "done",
    TaskStatus.IN_PROGRESS: "in_progress",
    TaskStatus.TODO: "not_started",
}


def _counts(tasks: list[dict]) -> dict:
    counts = dict.fromkeys(PROGRESS_STATES.values(), 0)
    for task in tasks:
        counts[PROGRESS_STATES[task["status"]]] += 1
    return {**counts, "total": len(tasks)}


def campaign_progress(*, campaign: Campaign) -> dict:
    """Who has done what in a campaign, and how long tasks took.

    A task is done (submitted), in progress (saved at least once, or reopened) or not
    started. A task's time follows :mod:`annotation.campaigns.timing`: from its annotator's
    first saved revision to their last, each gap between saves counted at most 10 minutes.
    An annotator's median and mean time per task are over their done tasks that have a time;
    their last activity is their latest save or submission in the campaign.

    Args:
        campaign: the campaign.

    Returns:
        ``{"campaign", "idle_cap_seconds", "totals": {"done", "in_progress", "not_started",
        "total"}, "annotators": [{"username", "done", "in_progress", "not_started", "total",
        "seconds_per_task_median", "seconds_per_task_mean", "last_activity"}], "tasks":
        [{"id", "document", "document_id", "system", "annotator", "status", "progress",
        "seconds", "revisions", "first_edit", "last_edit", "submitted_at"}]}``; annotators by
        username, tasks by annotator then queue order. ``system`` is the PolyTope item's
        system slug (None for FAM tasks).
    """
    times = _revision_times(campaign)
    tasks = (
        Task.objects.filter(campaign=campaign)
        .select_related("document", "annotator", "output__system")
        .only(
            "id",
            "status",
            "position",
            "submitted_at",
            "document_id",
            "output_id",
            "annotator_id",
            "document__external_id",
            "annotator__username",
            "output__system__slug",
        )
        .order_by("annotator__username", "position", "id")
    )
    rows = []
    for task in tasks:
        saved = times.get(_task_key(task), [])
        rows.append(
            {
                "id": task.pk,
                "document": task.document.external_id,
                "document_id": task.document_id,
                "system": task.output.system.slug if task.output_id else None,
                "annotator": task.annotator.username,
                "status": task.status,
                "progress": PROGRESS_STATES[task.status],
                "seconds": active_seconds(saved),
                "revisions": len(saved),
                "first_edit": min(saved, default=None),
                "last_edit": max(saved, default=None),
                "submitted_at": task.submitted_at,
            }
        )
    by_annotator: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_annotator[row["annotator"]].append(row)
    annotators = []
    for username in sorted(by_annotator):
        own = by_annotator[username]
        median, mean = seconds_summary(
            [r["seconds"] for r in own if r["status"] == TaskStatus.SUBMITTED]
        )
        moments = [r["last_edit"] for r in own] + [r["submitted_at"] for r in own]
        annotators.append(
            {
                "username": username,
                **_counts(own),
                "seconds_per_task_median": median,
                "seconds_per_task_mean": mean,
                "last_activity": max((m for m in moments if m is not None), default=None),
            }
        )
    return {
        "campaign": campaign,
        "idle_cap_seconds": IDLE_CAP_SECONDS,
        "totals": _counts(rows),
        "annotators": annotators,
        "tasks": rows,
    }


PROGRESS_CSV_COLUMNS = (
    "task",
    "document",
    "system",
    "annotator",
    "status",
    "progress",
    "seconds",
    "revisions",
    "first_edit",
    "last_edit",
    "submitted_at",
)


def campaign_progress_csv(*, progress: dict) -> str:
    """A campaign's progress as CSV: a header row, then one row per task.

    Args:
        progress: :func:`campaign_progress`'s result.

    Returns:
        CSV text; times in ISO 8601 (UTC), seconds with one decimal, empty cells for none;
        names (document, system, annotator) escaped so no spreadsheet runs them as formulas.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(PROGRESS_CSV_COLUMNS)
    for row in progress["tasks"]:
        writer.writerow(
            [
                row["id"],
                escape_text(str(row["document"])),
                escape_text(row["system"] or ""),
                escape_text(str(row["annotator"])),
                row["status"],
                row["progress"],
                "" if row["seconds"] is None else f"{row['seconds']:.1f}",
                row["revisions"],
                *(
                    row[name].isoformat() if row[name] else ""
                    for name in ("first_edit", "last_edit", "submitted_at")
                ),
            ]
        )
    return buffer.getvalue()


def campaign_items(*, campaign: Campaign, document_id: int | None = None) -> dict[int, list]:
    """A PolyTope campaign's items per document id, in the order an annotator gets them.

    A system-blind campaign shuffles each document's systems with a seed made of the campaign
    and the document (the same order for every annotator and every call), so an item's place
    in the queue does not tell which system it comes from; otherwise systems come by slug.

    Args:
        campaign: a PolyTope campaign.
        document_id: only this document's items (the order is the same as for all).

    Returns:
        document id -> its outputs (``SystemOutput`` rows with their systems).
    """
    items: dict[int, list] = {}
    outputs = campaign.outputs.all()
    if document_id is not None:
        outputs = outputs.filter(document_id=document_id)
    for output in outputs.select_related("system").order_by("system__slug", "pk"):
        items.setdefault(output.document_id, []).append(output)
    if campaign.system_blind:
        for document_id, outputs in items.items():
            # Not for security: a fixed, reproducible order per document.
            random.Random(f"loupe-items:{campaign.pk}:{document_id}").shuffle(outputs)  # noqa: S311
    return items


#: How many hex digits of an item id are kept (64 bits: unguessable, short enough to read).
ITEM_ID_LENGTH = 16


def campaign_item_id(*, campaign_id: int, output_id: int) -> str:
    """The opaque id of a PolyTope campaign's item (one of its outputs), as APIs name it.

    An HMAC of the output id under a key derived from ``SECRET_KEY`` and salted with the
    campaign, truncated: stable for the campaign, different in every campaign, and telling
    nothing of the output id (output ids are numbered upload by upload, i.e. system by
    system, so they would group the summaries by system).

    Args:
        campaign_id: the campaign's primary key.
        output_id: the item's output's primary key.

    Returns:
        ``ITEM_ID_LENGTH`` lowercase hex digits.
    """
    digest = salted_hmac(
        f"loupe.campaign-item:{campaign_id}", str(output_id), algorithm="sha256"
    ).hexdigest()
    return digest[:ITEM_ID_LENGTH]


def campaign_annotated_by(*, campaign: Campaign, user) -> bool:
    """Whether ``user`` annotates the campaign (holds any of its tasks).

    Args:
        campaign: the campaign.
        user: who asks (None or anonymous: no).

    Returns:
        True when the user has a task in the campaign.
    """
    if user is None or not user.is_authenticated:
        return False
    return Task.objects.filter(campaign_id=campaign.pk, annotator_id=user.pk).exists()


def campaign_systems_hidden(*, campaign: Campaign, user) -> bool:
    """Whether ``user`` may not learn the campaign's systems, nor its items' output ids.

    Until a system-blind campaign is Done, its systems and output ids are hidden from everyone
    who annotates it (admins included) and from readers who are not admins (its adjudicators,
    say); admins who do not annotate it see them. Once it is Done, nothing is hidden any more.
    A FAM campaign, or one that is not system-blind, hides nothing.

    Args:
        campaign: the campaign.
        user: who reads (None: hidden).

    Returns:
        True when the systems and output ids are to be left out.
    """
    if (
        campaign.kind != CampaignKind.POLYTOPE
        or not campaign.system_blind
        or campaign.status == CampaignStatus.CLOSED
    ):
        return False
    if user is None or not has_role(user, ADMIN):
        return True
    return campaign_annotated_by(campaign=campaign, user=user)


class CampaignItemNames:
    """How a PolyTope campaign's items are named to one user: by their opaque item ids
    (``ids``: output id -> item id; ``outputs``: the reverse), plus their output ids when the
    campaign shows them to the user (``reveal``)."""

    def __init__(self, campaign: Campaign, outputs, user) -> None:
        self.reveal = not campaign_systems_hidden(campaign=campaign, user=user)
        self.ids = {o: campaign_item_id(campaign_id=campaign.pk, output_id=o) for o in outputs}
        self.outputs = {item: output for output, item in self.ids.items()}

    def shown(self, output: int) -> int | None:
        """The output id as the user is shown it: itself, or None while it is hidden."""
        return output if self.reveal else None

    def label(self, output: int) -> str:
        """``output 12`` to a user who sees output ids, else ``item 3fa2...``."""
        return f"output {output}" if self.reveal else f"item {self.ids[output]}"

    def extra(self, output: int) -> dict:
        """The item's ids for an error's ``extra``: ``item``, and ``output`` when shown."""
        return {"item": self.ids[output], **({"output": output} if self.reveal else {})}

    def listed(self, outputs) -> str:
        """Several items, as :meth:`label` names them, sorted."""
        if self.reveal:
            return f"Output(s) {sorted(outputs)}"
        return f"Item(s) {sorted(self.ids[o] for o in outputs)}"


def campaign_item_names(*, campaign: Campaign, user, outputs) -> CampaignItemNames:
    """How the items ``outputs`` of a PolyTope campaign are named to ``user``: the hiding
    decided once (:func:`campaign_systems_hidden`, one query at most) and each item's opaque id
    (:func:`campaign_item_id`) computed once.

    Args:
        campaign: a PolyTope campaign.
        user: who reads (None: output ids hidden where the campaign hides them).
        outputs: the items' output ids (one document's, say).

    Returns:
        The names: ``reveal``, ``ids`` (output id -> item id), ``outputs`` (item id -> output
        id), and ``shown``, ``label``, ``extra``, ``listed`` to name items in responses and
        errors.
    """
    return CampaignItemNames(campaign, outputs, user)


def task_list(*, user) -> QuerySet[Task]:
    """The user's own tasks in queue order (the "My tasks" list).

    Args:
        user: the annotator.

    Returns:
        Tasks with campaign and document loaded.
    """
    return (
        Task.objects.filter(annotator=user)
        .select_related("campaign", "document", "annotator", "output__system")
        # A queue needs ids and names, not every document's text (about 10 KB each).
        .defer(
            "document__sentences",
            "document__meta",
            "output__sentences",
            "output__extracted",
            "output__match_confidence",
        )
        .order_by("campaign__created_at", "campaign_id", "position", "id")
    )


def task_next(*, user, after: Task | None = None) -> Task | None:
    """The user's next unfinished task (after ``after`` in queue order, else the first).

    The queue wraps around: after the last task comes the first unfinished one. ``after`` keeps
    its place in the queue once submitted, so the task after a just-submitted one is the same
    as before it was submitted.

    Args:
        user: the annotator.
        after: the current task, if any.

    Returns:
        A task that is not submitted (never ``after`` itself), or None.
    """
    queue = list(task_list(user=user))
    ids = [t.pk for t in queue]
    if after is not None and after.pk in ids:
        position = ids.index(after.pk)
        queue = queue[position + 1 :] + queue[:position]
    return next((t for t in queue if t.status != TaskStatus.SUBMITTED), None)


def task_get(*, pk: int, user) -> Task:
    """A task the user may see: annotators only their own; researchers and admins any FAM task.

    A PolyTope task (error spans under annotation) is its annotator's and the admins' only.

    Args:
        pk: the task's primary key.
        user: who asks.

    Returns:
        The task with campaign, document, annotator and output loaded.

    Raises:
        Http404: no such task, or not visible to the user (no existence leak).
        PermissionDenied: a researcher asking for a PolyTope task (HTTP 403).
    """
    task = (
        Task.objects.select_related(
            "campaign__annotation_set", "document", "annotator", "output__system"
        )
        .filter(pk=pk)
        .first()
    )
    if task is None or not (task.annotator_id == user.pk or has_role(user, ADMIN, RESEARCHER)):
        raise Http404("No such task.")
    if (
        task.campaign.kind == CampaignKind.POLYTOPE
        and task.annotator_id != user.pk
        and not has_role(user, ADMIN)
    ):
        # Researchers read scores, never error spans under annotation.
        raise PermissionDenied("Error spans under annotation are not shown to researchers.")
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


def task_span_annotation(*, task: Task) -> SpanAnnotation | None:
    """The errors the task's annotator marked in its output (None before the first save).

    Args:
        task: a PolyTope task.

    Returns:
        The annotator's row in the campaign's annotation set, or None.
    """
    return SpanAnnotation.objects.filter(
        annotation_set_id=task.campaign.annotation_set_id,
        output_id=task.output_id,
        annotator_id=task.annotator_id,
    ).first()


def span_score(*, output, errors: list[dict], no_errors: bool) -> dict | None:
    """An output's PolyTope segment score from its marked errors.

    The word count is the release's rule (:func:`scoring.metrics.polytope.count_words`) on the
    summary; each error weighs by the severity the matrix gives its subtype and label.

    Args:
        output: the system output (its sentences are read).
        errors: its errors (``MarkedError`` dicts of the PolyTope scheme).
        no_errors: its "no errors" mark.

    Returns:
        ``{"words", "penalty", "score", "critical", "major", "minor"}``, or None when the
        output is not annotated yet (no error and no mark) or its summary has no word.
    """
    if not errors and not no_errors:
        return None
    try:
        scored = polytope_document(join_sentences(output.sentences), errors)
    except EmptySummaryError:  # nothing to score against
        return None
    figures = scored.segment.as_dict()
    del figures["segment"]
    return figures


def span_state(*, annotation: SpanAnnotation | None) -> dict:
    """The spans part of a task's body: the row's state, or the empty version 1 before any save.

    Args:
        annotation: the annotator's row, or None.

    Returns:
        ``{"errors", "no_errors", "version", "updated_at"}`` (``updated_at`` None before the
        first save).
    """
    if annotation is None:
        return {"errors": [], "no_errors": False, "version": 1, "updated_at": None}
    return {
        "errors": annotation.errors,
        "no_errors": annotation.no_errors,
        "version": annotation.version,
        "updated_at": annotation.updated_at,
    }


def system_shown(*, task: Task, user) -> dict | None:
    """Which system a PolyTope item comes from, as ``user`` may see it.

    A system-blind campaign hides it from everyone but admins (and from an admin who is the
    task's annotator).

    Args:
        task: a PolyTope task with its output and system loaded.
        user: who reads (None: hidden when system-blind).

    Returns:
        ``{"slug", "name"}``, or None when hidden (or the task has no output).
    """
    if task.output_id is None:
        return None
    if task.campaign.system_blind and (
        user is None or task.annotator_id == user.pk or not has_role(user, ADMIN)
    ):
        return None
    system = task.output.system
    return {"slug": system.slug, "name": system.name}


def task_span_others(*, task: Task) -> list[dict]:
    """Other annotators' errors in the same output, only for campaigns that are not blind.

    Args:
        task: a PolyTope task.

    Returns:
        ``[{"annotator", "errors", "no_errors"}]``; always empty for blind campaigns.
    """
    if task.campaign.blind:
        return []
    others = (
        SpanAnnotation.objects.filter(
            annotation_set_id=task.campaign.annotation_set_id, output_id=task.output_id
        )
        .exclude(annotator_id=task.annotator_id)
        .select_related("annotator")
        .order_by("annotator__username")
    )
    return [
        {
            "annotator": row.annotator.username if row.annotator else None,
            "errors": row.errors,
            "no_errors": row.no_errors,
        }
        for row in others
    ]


def task_item_place(*, task: Task) -> dict:
    """Where a PolyTope item sits in its annotator's queue of the campaign.

    Args:
        task: a PolyTope task.

    Returns:
        ``{"position", "of", "document_position", "documents"}``, 1-based: the item among the
        annotator's items of the campaign, and its document among their documents.
    """
    rows = list(
        Task.objects.filter(campaign_id=task.campaign_id, annotator_id=task.annotator_id)
        .order_by("position", "id")
        .values_list("pk", "document_id")
    )
    documents: list[int] = []
    for _, document_id in rows:
        if document_id not in documents:
            documents.append(document_id)
    ids = [pk for pk, _ in rows]
    return {
        "position": ids.index(task.pk) + 1,
        "of": len(ids),
        "document_position": documents.index(task.document_id) + 1,
        "documents": len(documents),
    }


def span_history(*, task: Task) -> QuerySet[SpanAnnotationRevision]:
    """The revisions of a PolyTope task's errors, newest first (none before the first save).

    Args:
        task: a PolyTope task.

    Returns:
        Revisions with their authors.
    """
    return (
        SpanAnnotationRevision.objects.filter(
            annotation__annotation_set_id=task.campaign.annotation_set_id,
            annotation__output_id=task.output_id,
            annotation__annotator_id=task.annotator_id,
        )
        .select_related("author")
        .order_by("-version")
    )


def task_span_workspace(*, task: Task, user) -> dict:
    """Everything the span workspace needs for one PolyTope task (API_CONTRACT.md's body).

    Args:
        task: a PolyTope task (visible to ``user``), with its output loaded.
        user: who asks.

    Returns:
        A JSON-ready dict: the task, campaign options, document and output sentences, the
        item's place in the queue, the scheme, the weights, the errors with their version and
        score, others' errors (not blind only), the next task, whether the user may edit, and
        whether the page announces its presence. The output's system and id are None when
        the system is hidden.
    """
    annotation = task_span_annotation(task=task)
    state = span_state(annotation=annotation)
    system = system_shown(task=task, user=user)
    following = task_next(user=task.annotator, after=task)
    campaign = task.campaign
    document = task.document
    text_missing = document.text_missing
    return {
        "id": task.pk,
        "status": task.status,
        "annotator": task.annotator.username,
        "kind": campaign.kind,
        "campaign": {
            "id": campaign.pk,
            "name": campaign.name,
            "slug": campaign.slug,
            "status": campaign.status,
            "kind": campaign.kind,
            "blind": campaign.blind,
            "system_blind": campaign.system_blind,
            "instructions": campaign.instructions,
        },
        "document": {
            "id": document.pk,
            "external_id": document.external_id,
            "sentences": [] if text_missing else document.sentences,
            "text_missing": text_missing,
        },
        "output": {
            # Output ids are numbered system by system (an upload at a time), so a hidden
            # system hides the id too: ids 14 and 15 would say "the same system".
            "id": task.output_id if system else None,
            "sentences": task.output.sentences,
            "system": system,
        },
        "item": task_item_place(task=task),
        "scheme": scheme_get(campaign.annotation_set.scheme).describe(),
        "weights": {severity.value: weight for severity, weight in WEIGHTS.items()},
        "spans": state,
        "score": span_score(
            output=task.output, errors=state["errors"], no_errors=state["no_errors"]
        ),
        "others": task_span_others(task=task),
        "next_task": following.pk if following and following.pk != task.pk else None,
        "editable": task.annotator_id == user.pk,
        "presence": task_presence_may_announce(task=task, user=user),
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
        "kind": campaign.kind,
        "campaign": {
            "id": campaign.pk,
            "name": campaign.name,
            "blind": campaign.blind,
            "top_k": campaign.top_k,
            "scorers": campaign.scorers,
            "status": campaign.status,
            "instructions": campaign.instructions,
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
