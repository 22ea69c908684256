"""Writer: checks a validated bundle against the database, then writes it in one transaction."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db import transaction

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, Fam
from scoring.systems.models import OutputVersion, System, SystemOutput

from .bundle import ImportBundle, ImportValidationError, Issue, Location, ReportLine


@dataclass(frozen=True)
class ImportSummary:
    """What an import wrote (or, for a dry run, would write), plus its report lines."""

    dataset: str
    documents: int
    references: int
    systems_created: tuple[str, ...]
    systems_reused: tuple[str, ...]
    outputs: int
    annotation_sets: int
    fams: int
    report: tuple[ReportLine, ...]
    dry_run: bool = False
    versions: tuple[tuple[str, int], ...] = ()

    def as_dict(self) -> dict:
        """A JSON-friendly form for the API and the command line."""
        return {
            "dataset": self.dataset,
            "documents": self.documents,
            "references": self.references,
            "systems_created": list(self.systems_created),
            "systems_reused": list(self.systems_reused),
            "outputs": self.outputs,
            "annotation_sets": self.annotation_sets,
            "fams": self.fams,
            "dry_run": self.dry_run,
            "versions": [{"system": slug, "version": number} for slug, number in self.versions],
            "report": [str(line) for line in self.report],
        }


def _preflight_systems(bundle: ImportBundle, issues: list[Issue]) -> dict[str, System]:
    existing = {s.slug: s for s in System.objects.filter(slug__in=[r.slug for r in bundle.systems])}
    for record in bundle.systems:
        system = existing.get(record.slug)
        if system is not None and system.kind != record.kind:
            issues.append(
                Issue(
                    Location(f"system {record.slug}", field="kind"),
                    f"system {record.slug!r} already exists as {system.kind}, not {record.kind}",
                )
            )
    return existing


def summarize(
    bundle: ImportBundle, *, slug: str, existing_systems=(), dry_run=False
) -> ImportSummary:
    """Count what ``bundle`` holds.

    Args:
        bundle: the parsed bundle.
        slug: the dataset slug to report.
        existing_systems: slugs of systems that already exist (reported as reused).
        dry_run: whether nothing was written.

    Returns:
        The :class:`ImportSummary`.
    """
    reused = tuple(r.slug for r in bundle.systems if r.slug in existing_systems)
    return ImportSummary(
        dataset=slug,
        documents=len(bundle.documents),
        references=sum(len(d.references) for d in bundle.documents),
        systems_created=tuple(r.slug for r in bundle.systems if r.slug not in existing_systems),
        systems_reused=reused,
        outputs=len(bundle.outputs),
        annotation_sets=len(bundle.annotation_sets),
        fams=sum(len(s.fams) for s in bundle.annotation_sets),
        report=tuple(bundle.report),
        dry_run=dry_run,
    )


def preflight(bundle: ImportBundle, *, dataset: Dataset | None, slug: str) -> dict[str, System]:
    """Check the bundle against the database without writing.

    Args:
        bundle: a validated bundle.
        dataset: the target dataset for output-only imports, or None to create ``slug``.
        slug: the new dataset's slug.

    Returns:
        The systems that already exist, by slug.

    Raises:
        ImportValidationError: the dataset already exists (re-imports are refused) or a system
            exists with another kind. Outputs for a system that already has some become its
            next version, so nothing is overwritten.
    """
    issues: list[Issue] = []
    if dataset is None and Dataset.objects.filter(slug=slug).exists():
        count = Document.objects.filter(dataset__slug=slug).count()
        issues.append(
            Issue(
                Location(f"dataset {slug}", field="slug"),
                f"dataset {slug!r} already exists ({count} documents); importing twice is refused "
                "so nothing is duplicated. Choose another --slug or delete the dataset first.",
            )
        )
    systems = _preflight_systems(bundle, issues)
    if issues:
        raise ImportValidationError(issues)
    return systems


def _clean_all(objects) -> None:
    # Database constraints enforce uniqueness, and foreign keys point at rows this transaction
    # just created or locked (validating each would cost a query per row and key: 34 s for
    # 11,490 outputs); clean() still checks each row's own rules.
    relations = None
    for obj in objects:
        if relations is None:
            relations = [f.name for f in obj._meta.fields if f.is_relation]
        obj.full_clean(exclude=relations, validate_unique=False, validate_constraints=False)


def _new_versions(bundle, systems, dataset, user, source) -> dict[str, OutputVersion]:
    """Number one new version per system with outputs: 1 past the latest (under a lock)."""
    slugs = sorted({o.system_slug for o in bundle.outputs})
    # Lock the systems so two concurrent uploads cannot take the same number.
    list(System.objects.select_for_update().filter(slug__in=slugs).order_by("pk"))
    versions = {}
    for slug in slugs:
        latest = (
            OutputVersion.objects.filter(system=systems[slug], dataset=dataset)
            .order_by("-number")
            .values_list("number", flat=True)
            .first()
        )
        # A release's report covers several systems; keep each system's own lines.
        marker = "" if len(slugs) == 1 else f" for {slug} on "
        version = OutputVersion(
            system=systems[slug],
            dataset=dataset,
            number=(latest or 0) + 1,
            uploaded_by=user,
            source=source[:500],
            report=[str(line) for line in bundle.report if marker in line.message][:1000],
        )
        version.full_clean(validate_unique=False, validate_constraints=False)
        version.save()
        versions[slug] = version
    return versions


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
        dataset: an existing dataset to add systems, outputs and FAMs to.
        user: recorded as the dataset's creator and the new systems' owner.
        source: the file or release the outputs came from, recorded on their versions.

    Returns:
        The :class:`ImportSummary`, with the output version created for each system.

    Raises:
        ImportValidationError: from :func:`preflight`.
    """
    systems = preflight(bundle, dataset=dataset, slug=slug)
    existing_slugs = set(systems)
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
    _clean_all(new_docs)
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
    _clean_all(new_refs)
    Reference.objects.bulk_create(new_refs)
    for record in bundle.systems:
        if record.slug not in systems:
            system = System(
                slug=record.slug,
                name=record.name,
                kind=record.kind,
                description=record.description,
                trained_on=record.trained_on,
                owner=user,
            )
            system.full_clean()
            system.save()
            systems[record.slug] = system
    versions = _new_versions(bundle, systems, dataset, user, source or dataset.source)
    outputs = [
        SystemOutput(
            system=systems[o.system_slug],
            version=versions[o.system_slug],
            document=documents[o.document_id],
            sentences=list(o.sentences),
            extracted=list(o.extracted) if o.extracted is not None else None,
            extraction_method=o.method if o.extracted is not None else "",
            match_confidence=list(o.confidences) if o.confidences is not None else None,
        )
        for o in bundle.outputs
    ]
    _clean_all(outputs)
    SystemOutput.objects.bulk_create(outputs, batch_size=500)
    _write_annotation_sets(bundle, dataset, documents, references)
    summary = summarize(bundle, slug=dataset.slug, existing_systems=existing_slugs)
    return replace(summary, versions=tuple((s, v.number) for s, v in versions.items()))


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
        _clean_all(fams)
        Fam.objects.bulk_create(fams)
