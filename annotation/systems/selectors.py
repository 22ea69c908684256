"""System selectors (reads): systems and their outputs."""

from __future__ import annotations

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from annotation.corpus.models import Dataset

from .models import OutputVersion, System, SystemOutput


def system_list() -> QuerySet[System]:
    """Every system, by name.

    Returns:
        Systems annotated with ``output_count`` (their outputs on every dataset, every version).
    """
    return System.objects.annotate(output_count=Count("outputs")).order_by("name")


def system_list_for_dataset(*, dataset: Dataset) -> QuerySet[System]:
    """The systems with outputs on a dataset, by name.

    Args:
        dataset: the dataset.

    Returns:
        Systems annotated with ``latest_version`` (the pk of their latest output version on
        the dataset) and ``output_count``: that version's outputs, the ones a campaign or
        leaderboard on the dataset reads.
    """
    latest = OutputVersion.objects.filter(system=OuterRef("pk"), dataset=dataset)
    count = (
        SystemOutput.objects.filter(version_id=OuterRef("latest_version"))
        .order_by()
        .values("version_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        System.objects.annotate(
            latest_version=Subquery(latest.order_by("-number").values("pk")[:1])
        )
        .filter(latest_version__isnull=False)
        .annotate(output_count=Coalesce(Subquery(count, output_field=IntegerField()), 0))
        .order_by("name")
    )


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
