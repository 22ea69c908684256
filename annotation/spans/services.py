"""Span services (writes): save one output's errors with optimistic versioning, replace a set's."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.fams.models import AnnotationSet, AnnotationSetKind
from annotation.systems.models import SystemOutput
from config.exceptions import ApplicationError, ConflictError

from .models import SpanAnnotation, SpanAnnotationRevision
from .signals import scored_spans_changed

# Sets whose spans the leaderboards score: a release's and an adjudicated gold set.
SCORED_KINDS = (AnnotationSetKind.RELEASED, AnnotationSetKind.GOLD)


def _describe(error: dict) -> str:
    where = (
        f"{error['side']} [{error['start']}, {error['end']})"
        if error["side"] != "none"
        else "no span"
    )
    kind = " / ".join(part for part in (error["type"], error["label"]) if part)
    return f"{kind} at {where} {error['words']!r}"


def span_changes(
    old: Sequence[dict], new: Sequence[dict], old_clean: bool, new_clean: bool
) -> list[str]:
    """Describe what changed between two states of an output's errors, one line per change.

    Args:
        old: the errors before (``MarkedError`` dicts).
        new: the errors after.
        old_clean: the "no errors" mark before.
        new_clean: the mark after.

    Returns:
        Lines such as ``"added Omission / Subject at source [0, 12) 'The senator'"``.
    """
    key = _describe
    before = [key(e) for e in old]
    after = [key(e) for e in new]
    changes = [f"removed {line}" for line in before if line not in after]
    changes += [f"added {line}" for line in after if line not in before]
    if not changes and list(old) != list(new):
        changes.append("errors edited (reason, provenance or order)")
    if old_clean != new_clean:
        changes.append("marked as having no errors" if new_clean else "no-errors mark removed")
    return changes


def _announce(annotation_set: AnnotationSet, user) -> None:
    if annotation_set.kind in SCORED_KINDS:
        scored_spans_changed.send(
            sender=SpanAnnotation,
            dataset=annotation_set.dataset,
            annotation_set=annotation_set,
            user=user,
        )


@transaction.atomic
def span_annotation_save(
    *,
    annotation: SpanAnnotation,
    errors: list[dict],
    no_errors: bool,
    base_version: int,
    user,
    announce: bool = True,
) -> SpanAnnotation:
    """Save a new state of one output's errors unless it changed since ``base_version``.

    Never overwrites newer work: a stale ``base_version`` raises :class:`ConflictError` (HTTP
    409) with the server's state. A retry of a save the server already holds is answered with
    the current row. Every accepted change bumps ``version`` and stores a revision. Only a
    gold set's errors keep a ``provenance``; it is dropped from any other set's.

    Args:
        annotation: the row to save (locked and re-read here).
        errors: the new errors (JSON objects; the severity is derived, not read).
        no_errors: the "no errors" mark.
        base_version: the version the client's edit started from.
        user: who saves.
        announce: send ``scored_spans_changed`` when a released or gold set's own row changed
            (False: the caller announces it when the change counts for scoring, as
            adjudication does on "done").

    Returns:
        The saved row (unchanged, same version, when nothing differs).

    Raises:
        ConflictError: ``base_version`` is not the current version.
        ApplicationError: the annotation set is read-only.
        django.core.exceptions.ValidationError: an error the scheme refuses (named, with why).
    """
    row = (
        SpanAnnotation.objects.select_for_update(of=("self",))
        .select_related("annotation_set", "output__document")
        .get(pk=annotation.pk)
    )
    if row.annotation_set.read_only:
        raise ApplicationError("This annotation set is read-only.")
    old_errors, old_clean = list(row.errors), row.no_errors
    if row.annotation_set.kind != AnnotationSetKind.GOLD:
        # Only a gold error carries its provenance: an annotator's client cannot forge one.
        errors = [
            {k: v for k, v in error.items() if k != "provenance"}
            if isinstance(error, dict)
            else error
            for error in errors
        ]
    row.errors, row.no_errors = list(errors), bool(no_errors)
    row.full_clean(exclude=["annotation_set", "output", "annotator"], validate_constraints=False)
    if base_version != row.version:
        if row.errors == old_errors and row.no_errors == old_clean:
            return row  # a retry of a save whose response was lost
        latest = row.revisions.select_related("author").first()
        raise ConflictError(
            f"These errors were saved elsewhere (version {row.version}) after your copy "
            f"(version {base_version}). Choose which state to keep.",
            extra={
                "server": {
                    "errors": old_errors,
                    "no_errors": old_clean,
                    "version": row.version,
                    "updated_at": row.updated_at.isoformat(),
                    "updated_by": latest.author.username if latest and latest.author else None,
                }
            },
        )
    changes = span_changes(old_errors, row.errors, old_clean, row.no_errors)
    if not changes:
        return row
    row.version += 1
    row.save()
    SpanAnnotationRevision.objects.create(
        annotation=row,
        version=row.version,
        errors=row.errors,
        no_errors=row.no_errors,
        changes=changes,
        author=user,
    )
    if announce and row.annotator_id is None:
        _announce(row.annotation_set, user)
    return row


@dataclass(frozen=True)
class SpanRecord:
    """One output's errors as an importer hands them over (already matched to its output).

    ``annotated_text`` is the summary the errors were marked in when it is not the output's
    stored text (see ``SpanAnnotation.annotated_text``); empty otherwise.
    """

    output_id: int
    errors: tuple[dict, ...]
    no_errors: bool
    annotator_id: int | None = None
    annotated_text: str = ""


@transaction.atomic
def span_annotations_replace(
    *,
    annotation_set: AnnotationSet,
    records: Iterable[SpanRecord],
    output_ids: Iterable[int],
    user=None,
) -> int:
    """Replace the set's annotations of ``output_ids`` by ``records`` (an import, idempotent).

    Rows of the set for those outputs that ``records`` does not name are deleted; rows of other
    outputs are kept, so importing one system's workbook leaves the other systems' rows alone.
    Each row is checked with ``full_clean`` before anything is written.

    Args:
        annotation_set: the (released or gold) set written.
        records: the outputs' errors.
        output_ids: every output the import covers.
        user: who imports (the revisions' author).

    Returns:
        How many rows were written.

    Raises:
        django.core.exceptions.ValidationError: a record the scheme refuses (nothing written).
    """
    records = list(records)
    # One query for the outputs and their documents (clean() reads both), not three per row.
    outputs = SystemOutput.objects.select_related("document").in_bulk(
        {record.output_id for record in records}
    )
    rows = []
    for record in records:
        if record.output_id not in outputs:
            raise ValidationError({"output": f"Output {record.output_id} does not exist."})
        row = SpanAnnotation(
            annotation_set=annotation_set,
            output=outputs[record.output_id],
            annotator_id=record.annotator_id,
            errors=list(record.errors),
            no_errors=record.no_errors,
            annotated_text=record.annotated_text,
        )
        row.full_clean(exclude=["annotation_set", "output"], validate_constraints=False)
        rows.append(row)
    SpanAnnotation.objects.filter(
        annotation_set=annotation_set, output_id__in=list(output_ids)
    ).delete()
    SpanAnnotation.objects.bulk_create(rows, batch_size=500)
    SpanAnnotationRevision.objects.bulk_create(
        [
            SpanAnnotationRevision(
                annotation=row,
                version=1,
                errors=row.errors,
                no_errors=row.no_errors,
                changes=["imported"],
                author=user,
            )
            for row in rows
        ],
        batch_size=500,
    )
    _announce(annotation_set, user)
    return len(rows)
