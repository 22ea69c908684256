"""PolyTope task services: save an item's error spans through the spans app's versioned save."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.spans.models import SpanAnnotation
from annotation.spans.services import span_annotation_save
from config.exceptions import ApplicationError

from ..models import CampaignKind, Task
from .assignments import _check_editable, _locked, task_started


def _refusal(error: ValidationError) -> ApplicationError:
    """The scheme's refusal as a 400 whose message says which error and why."""
    fields = error.message_dict if hasattr(error, "message_dict") else {"errors": error.messages}
    messages = [m for values in fields.values() for m in values]
    return ApplicationError(
        " ".join(messages) or "These errors are invalid.", extra={"fields": fields}
    )


@transaction.atomic
def task_spans_save(
    *, task: Task, user, errors: list[dict], no_errors: bool, base_version: int
) -> SpanAnnotation:
    """Save the errors the task's annotator marked in its output (409 on a stale base).

    The task row is locked, so a save and a submit of the same task never interleave. The
    annotator's row in the campaign's annotation set is made on the first save (version 1,
    empty); see :func:`annotation.spans.services.span_annotation_save` for the 409 rule and
    the retry of a save whose response was lost.

    Args:
        task: a task of a PolyTope campaign.
        user: its annotator.
        errors: the errors, JSON objects ``{"side", "start", "end", "words", "type", "label",
            "reason"}`` (a ``severity`` is ignored: the scheme derives it).
        no_errors: the "no errors" mark (only with no errors).
        base_version: the version the edit started from.

    Returns:
        The saved row.

    Raises:
        ApplicationError: 403 for anyone but the task's annotator; 400 for a FAM task, a
            campaign that is not open, a submitted task, or errors the scheme refuses (the
            message names the error and why, e.g. an N/A subtype and label).
        ConflictError: ``base_version`` is stale (HTTP 409, with the server's state).
    """
    task = _locked(task)
    _check_editable(task, user, kind=CampaignKind.POLYTOPE, noun="errors")
    annotation, _ = SpanAnnotation.objects.get_or_create(
        annotation_set_id=task.campaign.annotation_set_id,
        output_id=task.output_id,
        annotator_id=task.annotator_id,
    )
    try:
        saved = span_annotation_save(
            annotation=annotation,
            errors=errors,
            no_errors=no_errors,
            base_version=base_version,
            user=user,
        )
    except ValidationError as error:
        raise _refusal(error) from error
    task_started(task)
    return saved
