"""System selectors (reads): systems and their outputs."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from .models import System, SystemOutput


def system_list() -> QuerySet[System]:
    """Every system, by name.

    Returns:
        Systems annotated with ``output_count``.
    """
    return System.objects.annotate(output_count=Count("outputs")).order_by("name")


def system_get(*, slug: str) -> System:
    """The system with this slug.

    Args:
        slug: the system's slug.

    Returns:
        The system, annotated with ``output_count``.

    Raises:
        System.DoesNotExist: no such system.
    """
    return system_list().get(slug=slug)


def system_output_list(
    *, system: System, dataset_slug: str | None = None
) -> QuerySet[SystemOutput]:
    """A system's outputs in dataset and document order.

    Args:
        system: whose outputs.
        dataset_slug: only outputs for this dataset's documents, or all when None.

    Returns:
        The outputs with their documents and datasets loaded.
    """
    outputs = SystemOutput.objects.filter(system=system).select_related("document__dataset")
    if dataset_slug:
        outputs = outputs.filter(document__dataset__slug=dataset_slug)
    return outputs.order_by("document__dataset__slug", "document__position", "document_id")
