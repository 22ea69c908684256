"""Span-set writer (writes): an imported bundle's span sets and their annotations of its outputs.

The dataset writer (``annotation.corpus``, below this app) reaches it through the import
kernel's hook (``annotation.imports.hooks``), which ``SpansConfig.ready()`` registers; it writes
inside the import's transaction, after the outputs the annotations mark.
"""

from __future__ import annotations

from django.db.models import Q

from annotation.fams.models import AnnotationSet
from annotation.fams.services_import import annotation_set_from_record
from annotation.imports.bundle import ImportBundle, Issue, Location
from annotation.imports.hooks import SpanSetsPartWriter
from annotation.systems.models import SystemOutput

from .services import SpanRecord, span_annotations_replace


class SpanSetsWriter(SpanSetsPartWriter):
    """Checks span sets' slugs and writes each set with its annotations."""

    def check(self, bundle: ImportBundle, *, dataset=None) -> tuple[Issue, ...]:
        """Refuse a span set whose slug the existing dataset has already.

        Args:
            bundle: a validated bundle.
            dataset: the target dataset, or None when the import creates it (nothing is taken).

        Returns:
            One issue per taken slug, in slug order.
        """
        if dataset is None or not bundle.span_sets:
            return ()
        taken = set(
            AnnotationSet.objects.filter(
                dataset=dataset, slug__in=[record.slug for record in bundle.span_sets]
            ).values_list("slug", flat=True)
        )
        return tuple(
            Issue(Location(f"span set {slug}", field="slug"), "the dataset has this set already")
            for slug in sorted(taken)
        )

    def write(
        self,
        bundle: ImportBundle,
        *,
        dataset,
        versions: tuple[tuple[str, int], ...],
        user=None,
    ) -> None:
        """Write each span set with its annotations of the outputs just written.

        Args:
            bundle: a bundle that passed :meth:`check`.
            dataset: the dataset row.
            versions: ``(system slug, version number)`` of each output version written (one
                per system); the annotations mark those versions' outputs.
            user: the importing user.
        """
        if not bundle.span_sets:
            return
        written = Q(pk__in=[])
        for slug, number in versions:
            written |= Q(version__system__slug=slug, version__number=number)
        outputs = {
            (system, document): pk
            for pk, system, document in SystemOutput.objects.filter(
                written, version__dataset=dataset
            )
            .values_list("pk", "system__slug", "document__external_id")
            .iterator()
        }
        for record in bundle.span_sets:
            annotation_set = annotation_set_from_record(
                record, dataset=dataset, scheme=record.scheme
            )
            annotation_set.full_clean(validate_unique=False, validate_constraints=False)
            annotation_set.save()
            rows = [
                SpanRecord(
                    output_id=outputs[(a.system_slug, a.document_id)],
                    errors=tuple(a.errors),
                    no_errors=a.no_errors,
                    annotated_text=a.annotated_text,
                )
                for a in record.annotations
            ]
            span_annotations_replace(
                annotation_set=annotation_set,
                records=rows,
                output_ids=[row.output_id for row in rows],
                user=user,
            )


SPAN_SETS_WRITER = SpanSetsWriter()
