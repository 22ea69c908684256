"""Annotation-set writer (writes): an imported bundle's FAM annotation sets and their FAMs.

The dataset writer (``annotation.corpus``, below this app) reaches it through the import
kernel's hook (``annotation.imports.hooks``), which ``FamsConfig.ready()`` registers; it writes
inside the import's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping

from annotation.corpus.models import Reference
from annotation.imports.bundle import ImportBundle
from annotation.imports.hooks import AnnotationSetsPartWriter
from annotation.imports.rows import clean_all

from .models import AnnotationSet, Fam


def annotation_set_from_record(record, *, dataset, **fields) -> AnnotationSet:
    """An unsaved annotation set of ``dataset`` with an imported record's slug, name and kind.

    Args:
        record: an ``AnnotationSetRecord`` or a ``SpanSetRecord``.
        dataset: the dataset row.
        **fields: further fields (a span set's ``scheme``).

    Returns:
        The unsaved row.
    """
    return AnnotationSet(
        dataset=dataset,
        slug=record.slug,
        name=record.name,
        kind=record.kind,
        read_only=record.read_only,
        **fields,
    )


class AnnotationSetsWriter(AnnotationSetsPartWriter):
    """Writes each annotation set, then its FAMs in one bulk insert."""

    def write(
        self,
        bundle: ImportBundle,
        *,
        dataset,
        documents: Mapping[str, object],
        references: Mapping[tuple[str, int], Reference],
    ) -> None:
        """Write the bundle's annotation sets and their FAMs.

        Args:
            bundle: a validated bundle.
            dataset: the dataset row.
            documents: the dataset's document rows by external id.
            references: the reference rows this import wrote, by (document id, position);
                a FAM of an earlier document's reference reads it from the database.
        """
        for record in bundle.annotation_sets:
            annotation_set = annotation_set_from_record(record, dataset=dataset)
            annotation_set.full_clean()
            annotation_set.save()
            fams = []
            for fam in record.fams:
                reference = references.get((fam.document_id, fam.reference_index))
                if reference is None:
                    reference = Reference.objects.get(
                        document=documents[fam.document_id], position=fam.reference_index
                    )
                fams.append(
                    Fam(
                        annotation_set=annotation_set,
                        document=documents[fam.document_id],
                        reference=reference,
                        facets=[
                            {
                                "groups": [sorted(g) for g in f.groups],
                                "label": f.label,
                                "note": f.note,
                            }
                            for f in fam.facets
                        ],
                    )
                )
            clean_all(fams)
            Fam.objects.bulk_create(fams)


ANNOTATION_SETS_WRITER = AnnotationSetsWriter()
