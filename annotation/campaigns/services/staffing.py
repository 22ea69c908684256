"""Staffing a running campaign: check annotators, add annotators (overlap top-up), reassign."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.accounts.roles import ANNOTATOR, has_role
from annotation.fams.models import Fam
from annotation.spans.models import SpanAnnotation

from ..models import Campaign, CampaignKind, CampaignStatus, Task, TaskPresence, TaskStatus
from .assignments import _item_tasks_create, _task_create
from .choice import field_error


def annotators_checked(usernames: Sequence[str], field: str = "annotators") -> list:
    """The users behind ``usernames``, every one an annotator, none twice.

    Args:
        usernames: the usernames, in the order given.
        field: the input field named in the refusal.

    Returns:
        The users, in the order given.

    Raises:
        ApplicationError: not a list, names listed twice, unknown users or users without the
            Annotator role (all of them named in one message).
    """
    if isinstance(usernames, str) or not isinstance(usernames, Sequence):
        raise field_error(field, f"{field} must be a list of usernames.")
    found = {u.username: u for u in get_user_model().objects.filter(username__in=list(usernames))}
    problems = []
    repeated = sorted(name for name, n in Counter(usernames).items() if n > 1)
    if repeated:
        problems.append(f"listed twice: {repeated}")
    unknown = [name for name in dict.fromkeys(usernames) if name not in found]
    if unknown:
        problems.append(f"unknown users: {unknown}")
    lacking = [name for name, user in found.items() if not has_role(user, ANNOTATOR)]
    if lacking:
        problems.append(f"not annotators (no Annotator role): {sorted(lacking)}")
    if problems:
        raise field_error(field, f"Refused {field}: {'; '.join(problems)}.")
    return [found[name] for name in usernames]


def _not_annotating(campaign: Campaign, what: str):
    return field_error(
        "status",
        f"{what} only while the campaign is {CampaignStatus.OPEN.label}; it is "
        f"{campaign.get_status_display()}.",
    )


def _units(campaign: Campaign) -> list[tuple]:
    """The campaign's documents in order, each with its units: ``[None]`` for a FAM document
    (the document is the unit), its outputs for a PolyTope document."""
    documents = list(campaign.documents.order_by("position", "id"))
    if campaign.kind != CampaignKind.POLYTOPE:
        return [(document, [None]) for document in documents]
    from annotation.campaigns.selectors import campaign_items

    items = campaign_items(campaign=campaign)
    return [(document, items.get(document.pk, [])) for document in documents]


@transaction.atomic
def campaign_annotators_add(*, campaign: Campaign, annotators: Sequence[str]) -> list[Task]:
    """Add annotators to a running campaign: they top up the items that lack annotators.

    An item (a FAM document, or one output of a PolyTope document) lacks annotators while
    fewer than ``annotators_per_document`` annotators have a task on it. Documents are taken
    in campaign order; each lacking document goes to as many of the new annotators as it
    lacks, round-robin (the turn passes on after each one who gets it), skipping those who
    already work on it. A new annotator of a PolyTope document gets each of its lacking items.

    Args:
        campaign: an Annotating campaign.
        annotators: usernames of the annotators to add (some may already have tasks).

    Returns:
        The tasks created.

    Raises:
        ApplicationError: the campaign is not Annotating, a username is refused (see
            :func:`annotators_checked`), or nothing lacks annotators that they could take.
    """
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.status != CampaignStatus.OPEN:
        raise _not_annotating(campaign, "Annotators can be added")
    users = annotators_checked(annotators, "annotators")
    if not users:
        raise field_error("annotators", "Give at least one annotator to add.")
    k = campaign.annotators_per_document
    on: dict[object, set[int]] = defaultdict(set)
    for document_id, output_id, annotator_id in Task.objects.filter(campaign=campaign).values_list(
        "document_id", "output_id", "annotator_id"
    ):
        on[output_id if output_id is not None else ("doc", document_id)].add(annotator_id)
    turn, fam_tasks, item_triples = 0, [], []
    for index, (document, units) in enumerate(_units(campaign)):
        keys = [
            ("doc", document.pk) if unit is None else unit.pk for unit in units
        ]  # the FAM document itself, or its outputs
        lacking = [(unit, key) for unit, key in zip(units, keys, strict=True) if len(on[key]) < k]
        if not lacking:
            continue
        need = max(k - len(on[key]) for _, key in lacking)
        chosen = []
        for step in range(len(users)):
            if len(chosen) == need:
                break
            user = users[(turn + step) % len(users)]
            if any(user.pk not in on[key] for _, key in lacking):
                chosen.append((step, user))
        if chosen:
            turn = (turn + chosen[-1][0] + 1) % len(users)
        for slot, (_, user) in enumerate(chosen):
            for unit, key in lacking:
                if len(on[key]) >= k or user.pk in on[key]:
                    continue
                on[key].add(user.pk)
                if unit is None:
                    fam_tasks.append((document, user, index * k + slot))
                else:
                    item_triples.append((document, user, unit.system.slug))
    created = [
        task
        for document, user, position in fam_tasks
        if (task := _task_create(campaign, document, user, position)) is not None
    ]
    if item_triples:
        per_document = max(1, campaign.systems.count())
        created += _item_tasks_create(campaign, item_triples, per_document)
    if not created:
        raise field_error(
            "annotators",
            f"Nothing to give them: every item already has {k} annotator(s) "
            "(annotators_per_document), or these annotators already work on the items that "
            "lack some.",
        )
    return created


@transaction.atomic
def task_reassign(*, task: Task, annotator: str) -> Task:
    """Move a task that is not submitted to another annotator, with its draft.

    The task's FAM (or the errors marked in its output) now belongs to the new annotator; its
    revisions are kept, each still naming who saved it. The old annotator's open tabs on it
    are forgotten (their next save is refused: the task is no longer theirs). Allowed while
    the campaign is Annotating or Adjudicating (an unfinished task can still be finished
    then), not once it is Done.

    Args:
        task: the task.
        annotator: the new annotator's username.

    Returns:
        The task, with its new annotator.

    Raises:
        ApplicationError: the campaign is Done, the task is submitted, the user is unknown or
            not an annotator, or already has this item (this document, or this output of a
            PolyTope campaign) in the campaign.
    """
    task = (
        Task.objects.select_for_update(of=("self",))
        .select_related("campaign", "document", "annotator", "output")
        .get(pk=task.pk)
    )
    # One staffing change of a campaign at a time (adding annotators locks it too): two
    # reassignments at once cannot give one annotator the same item twice, and the state read
    # is the current one.
    campaign = Campaign.objects.select_for_update().get(pk=task.campaign_id)
    task.campaign = campaign
    if campaign.status == CampaignStatus.CLOSED:
        raise field_error("status", "The campaign is Done: its tasks can no longer be reassigned.")
    if task.status == TaskStatus.SUBMITTED:
        raise field_error(
            "task",
            f"Task {task.pk} is submitted: a submitted task keeps its annotator "
            f"({task.annotator.username}); only tasks not yet submitted can be reassigned.",
        )
    (user,) = annotators_checked([annotator], "annotator")
    item = f"document {task.document.external_id!r}"
    if task.output_id is not None:
        item = f"this output of {item}"
    if user.pk == task.annotator_id:
        raise field_error("annotator", f"Task {task.pk} is already {user.username}'s.")
    same_item = Task.objects.filter(campaign=campaign, annotator=user)
    same_item = (
        same_item.filter(output_id=task.output_id)
        if task.output_id is not None
        else same_item.filter(document_id=task.document_id, output__isnull=True)
    )
    if same_item.exists():
        raise field_error("annotator", f"{user.username} already has {item} in this campaign.")
    if task.output_id is None:
        rows = Fam.objects.filter(
            annotation_set_id=campaign.annotation_set_id,
            document_id=task.document_id,
            reference__position=campaign.reference_position,
        )
    else:
        rows = SpanAnnotation.objects.filter(
            annotation_set_id=campaign.annotation_set_id, output_id=task.output_id
        )
    if rows.filter(annotator=user).exists():
        raise field_error(
            "annotator", f"{user.username} already has an annotation of {item} in this campaign."
        )
    # The draft moves: the row's owner changes, its version and revisions stay as they are.
    rows.filter(annotator_id=task.annotator_id).update(annotator=user)
    TaskPresence.objects.filter(task=task, user_id=task.annotator_id).delete()
    task.annotator = user
    task.full_clean(exclude=["campaign", "document", "output"], validate_constraints=False)
    task.save(update_fields=["annotator", "updated_at"])
    return task
