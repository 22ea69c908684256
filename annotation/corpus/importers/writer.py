"""Dataset writer: checks a validated bundle, then writes it in one transaction.

It writes what the corpus owns (the dataset, documents and references) and hands the systems
and outputs, the FAM annotation sets, the span sets, then the judgment studies and released
scores to the part writers that ``annotation.systems``, ``annotation.fams``, ``annotation.spans``
and ``scoring.judgments`` register (``annotation.imports.hooks``), inside the same transaction.
"""

from __future__ import annotations

from django.db import transaction

from annotation.corpus.models import Dataset, Document, Reference
from annotation.imports.bundle import ImportBundle, ImportValidationError, Issue, Location
from annotation.imports.hooks import (
    ANNOTATION_SETS,
    JUDGMENTS,
    OUTPUTS,
    SPAN_SETS,
    PartCheck,
    part_writer_get,
)
from annotation.imports.rows import clean_all
from annotation.imports.summary import ImportSummary, summarize

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
    span_sets = part_writer_get(SPAN_SETS, bundle)
    if span_sets is not None:
        issues.extend(span_sets.check(bundle, dataset=dataset))
    if dataset is None and Dataset.objects.filter(slug=slug).exists():
        count = Document.objects.filter(dataset__slug=slug).count()
        issues.append(
            Issue(
                Location(f"dataset {slug}", field="slug"),
                f"dataset {slug!r} already exists ({count} documents); importing twice is refused "
                "so nothing is duplicated. Choose another --slug or delete the dataset first.",
            )
        )
    writer = part_writer_get(OUTPUTS, bundle)
    check = writer.check(bundle, dataset=dataset) if writer is not None else PartCheck()
    issues.extend(check.issues)
    judgments = part_writer_get(JUDGMENTS, bundle)
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
    writer = part_writer_get(OUTPUTS, bundle)
    if writer is not None:
        versions = writer.write(
            bundle,
            dataset=dataset,
            documents=documents,
            user=user,
            source=source or dataset.source,
        )
    annotation_sets = part_writer_get(ANNOTATION_SETS, bundle)
    if annotation_sets is not None:
        annotation_sets.write(bundle, dataset=dataset, documents=documents, references=references)
    span_sets = part_writer_get(SPAN_SETS, bundle)
    if span_sets is not None:
        span_sets.write(bundle, dataset=dataset, versions=versions, user=user)
    judgments = part_writer_get(JUDGMENTS, bundle)
    if judgments is not None:
        judgments.write(bundle, dataset=dataset, documents=documents, user=user)
    return summarize(
        bundle, slug=dataset.slug, existing_systems=check.existing_systems, versions=versions
    )
