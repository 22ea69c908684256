"""Dataset writer: checks a validated bundle, then writes it in one transaction.

It writes what ``annotation`` owns (the dataset, documents, references, annotation sets and
span sets) and hands the systems and outputs, then the judgment studies and released scores,
to the part writers that ``annotation.systems`` and ``scoring.judgments`` register
(``annotation.imports.hooks``), inside the same transaction.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, Fam
from annotation.imports.bundle import ImportBundle, ImportValidationError, Issue, Location
from annotation.imports.hooks import PartCheck, judgments_writer_get, outputs_writer_get
from annotation.imports.rows import clean_all
from annotation.imports.summary import ImportSummary, summarize
from annotation.spans.services import SpanRecord, span_annotations_replace
from annotation.systems.models import SystemOutput

from .span_sets import check_span_sets


def preflight(bundle: ImportBundle, *, dataset: Dataset | None, slug: str) -> PartCheck:
    """Check the bundle against the database without writing.

    Args:
        bundle: a validated bundle.
        dataset: the target dataset for imports into an existing one, or None to create ``slug``.
        slug: the new dataset's slug.

    Returns:
        The part writer's check (which systems already exist).

    Raises:
        ImportValidationError: the dataset already exists (re-imports are refused) or a system
            exists with another kind, or a span set is refused (see :func:`check_span_sets`)
            or its slug is taken in the dataset, or a judgment study's name is. Outputs for a
            system that already has some become its next version, so nothing is overwritten.
    """
    issues: list[Issue] = check_span_sets(bundle)
    if dataset is not None and bundle.span_sets:
        taken = set(
            AnnotationSet.objects.filter(
                dataset=dataset, slug__in=[record.slug for record in bundle.span_sets]
            ).values_list("slug", flat=True)
        )
        issues.extend(
            Issue(Location(f"span set {slug}", field="slug"), "the dataset has this set already")
            for slug in sorted(taken)
        )
    if dataset is None and Dataset.objects.filter(slug=slug).exists():
        count = Document.objects.filter(dataset__slug=slug).count()
        issues.append(
            Issue(
                Location(f"dataset {slug}", field="slug"),
                f"dataset {slug!r} already exists ({count} documents); importing twice is refused "
                "so nothing is duplicated. Choose another --slug or delete the dataset first.",
            )
        )
    writer = outputs_writer_get(bundle)
    check = writer.check(bundle, dataset=dataset) if writer is not None else PartCheck()
    issues.extend(check.issues)
    judgments = judgments_writer_get(bundle)
    if judgments is not None:
        issues.extend(judgments.check(bundle, dataset=dataset))
    if issues:
        raise ImportValidationError(issues)
    return check


@transaction.atomic
def write_bundle(
    bundle: ImportBundle,
    *,
    slug: str,
    dataset: Dataset | None = None,
    user=None,
    source: str = "",
) -> ImportSummary:
    """Write a validated bundle in one transaction (all or nothing).

    Args:
        bundle: a bundle that passed :func:`validate_bundle`.
        slug: the dataset slug to create (ignored when ``dataset`` is given).
        dataset: an existing dataset to add documents, systems, outputs and FAMs to.
        user: recorded as the dataset's creator and the new systems' owner.
        source: the file or release the outputs came from, recorded on their versions.

    Returns:
        The :class:`ImportSummary`, with the output version created for each system.

    Raises:
        ImportValidationError: from :func:`preflight`.
    """
    check = preflight(bundle, dataset=dataset, slug=slug)
    if dataset is None:
        meta = bundle.dataset
        dataset = Dataset(
            slug=slug,
            name=meta.name or slug,
            description=meta.description,
            source=meta.source,
            license=meta.license,
            created_by=user,
        )
        dataset.full_clean()
        dataset.save()
    # Lock the documents that outputs and FAMs will refer to: the freeze check in
    # document_update_sentences takes the same row locks, so the two cannot interleave.
    documents = {
        d.external_id: d for d in Document.objects.select_for_update().filter(dataset=dataset)
    }
    new_docs = [
        Document(
            dataset=dataset,
            external_id=record.external_id,
            position=len(documents) + position,
            sentences=list(record.sentences),
            category=record.category or "",
            meta=record.meta,
        )
        for position, record in enumerate(bundle.documents)
    ]
    clean_all(new_docs)
    for doc in Document.objects.bulk_create(new_docs):
        documents[doc.external_id] = doc
    references = {}
    new_refs = []
    for record in bundle.documents:
        for position, ref in enumerate(record.references):
            obj = Reference(
                document=documents[record.external_id],
                position=position,
                label=ref.label,
                sentences=list(ref.sentences),
            )
            references[(record.external_id, position)] = obj
            new_refs.append(obj)
    clean_all(new_refs)
    Reference.objects.bulk_create(new_refs)
    versions: tuple[tuple[str, int], ...] = ()
    writer = outputs_writer_get(bundle)
    if writer is not None:
        versions = writer.write(
            bundle,
            dataset=dataset,
            documents=documents,
            user=user,
            source=source or dataset.source,
        )
    _write_annotation_sets(bundle, dataset, documents, references)
    _write_span_sets(bundle, dataset, versions, user)
    judgments = judgments_writer_get(bundle)
    if judgments is not None:
        judgments.write(bundle, dataset=dataset, documents=documents, user=user)
    return summarize(
        bundle, slug=dataset.slug, existing_systems=check.existing_systems, versions=versions
    )


def _write_annotation_sets(bundle, dataset, documents, references) -> None:
    for record in bundle.annotation_sets:
        annotation_set = AnnotationSet(
            dataset=dataset,
            slug=record.slug,
            name=record.name,
            kind=record.kind,
            read_only=record.read_only,
        )
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
                        {"groups": [sorted(g) for g in f.groups], "label": f.label, "note": f.note}
                        for f in fam.facets
                    ],
                )
            )
        clean_all(fams)
        Fam.objects.bulk_create(fams)


def _write_span_sets(bundle, dataset, versions, user) -> None:
    """Each span set with its annotations of the outputs just written (one version per system)."""
    if not bundle.span_sets:
        return
    written = Q(pk__in=[])
    for slug, number in versions:
        written |= Q(version__system__slug=slug, version__number=number)
    outputs = {
        (system, document): pk
        for pk, system, document in SystemOutput.objects.filter(written, version__dataset=dataset)
        .values_list("pk", "system__slug", "document__external_id")
        .iterator()
    }
    for record in bundle.span_sets:
        annotation_set = AnnotationSet(
            dataset=dataset,
            slug=record.slug,
            name=record.name,
            kind=record.kind,
            read_only=record.read_only,
            scheme=record.scheme,
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
