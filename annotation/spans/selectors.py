"""Span selectors (reads): one output's annotation, a set's annotations."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import SpanAnnotation


def span_annotation_list(
    *, annotation_set=None, output_ids=None, annotator=None
) -> QuerySet[SpanAnnotation]:
    """Span annotations, with their output, document and system, filtered.

    Args:
        annotation_set: keep this set's rows (a row or an id).
        output_ids: keep these outputs' rows.
        annotator: keep this annotator's rows (a user); None keeps everyone's.

    Returns:
        The rows in set, output order.
    """
    rows = SpanAnnotation.objects.select_related("output__system", "output__document", "annotator")
    if annotation_set is not None:
        rows = rows.filter(annotation_set=annotation_set)
    if output_ids is not None:
        rows = rows.filter(output_id__in=list(output_ids))
    if annotator is not None:
        rows = rows.filter(annotator=annotator)
    return rows.order_by("annotation_set_id", "output_id", "id")


def span_annotation_get(*, annotation_set, output, annotator=None) -> SpanAnnotation | None:
    """The set's annotation of one output by one annotator (None: the set's own row).

    Args:
        annotation_set: the set.
        output: the system output.
        annotator: the annotator, or None for a release's or gold set's row.

    Returns:
        The row, or None when there is none yet.
    """
    return (
        SpanAnnotation.objects.filter(
            annotation_set=annotation_set, output=output, annotator=annotator
        )
        .select_related("output__document")
        .first()
    )
