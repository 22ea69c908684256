"""FAM selectors (reads): annotation sets and their FAMs."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from annotation.corpus.models import Dataset

from .models import AnnotationSet, Fam


def annotation_set_list(*, dataset: Dataset) -> QuerySet[AnnotationSet]:
    """A dataset's annotation sets.

    Args:
        dataset: whose annotation sets.

    Returns:
        Annotation sets annotated with ``fam_count``.
    """
    return AnnotationSet.objects.filter(dataset=dataset).annotate(fam_count=Count("fams"))


def fam_list(*, annotation_set: AnnotationSet) -> QuerySet[Fam]:
    """The FAMs of one annotation set.

    Args:
        annotation_set: whose FAMs.

    Returns:
        FAMs in document and reference order, with related rows loaded.
    """
    return (
        Fam.objects.filter(annotation_set=annotation_set)
        .select_related("document", "reference", "annotator")
        .order_by("document__position", "reference__position", "id")
    )
