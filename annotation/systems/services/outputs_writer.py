"""Output writer (writes): a bundle's systems and outputs, each system's outputs as a new version.

It serves both ways outputs arrive: a researcher's upload (:mod:`.uploads`) calls it directly,
and a dataset release that brings outputs reaches it through the import kernel's hook
(``annotation.imports.hooks``), which ``SystemsConfig.ready()`` registers. Either way it writes
inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping

from annotation.imports.bundle import ImportBundle, Issue, Location
from annotation.imports.copy import rows_copy
from annotation.imports.hooks import OutputsPartWriter, PartCheck
from annotation.imports.rows import clean_all

from ..models import OutputVersion, System, SystemOutput


class SystemOutputsWriter(OutputsPartWriter):
    """Checks and writes systems and outputs; a system that exists gets its next version."""

    def check(self, bundle: ImportBundle, *, dataset=None) -> PartCheck:
        """Refuse a system that exists with another kind; name the systems that exist.

        Args:
            bundle: a validated bundle.
            dataset: the target dataset (unused: systems are global).

        Returns:
            A :class:`PartCheck` with the issues and the existing systems' slugs.
        """
        slugs = [r.slug for r in bundle.systems]
        existing = {s.slug: s for s in System.objects.filter(slug__in=slugs)}
        issues = []
        for record in bundle.systems:
            system = existing.get(record.slug)
            if system is not None and system.kind != record.kind:
                issues.append(
                    Issue(
                        Location(f"system {record.slug}", field="kind"),
                        f"system {record.slug!r} already exists as {system.kind}, "
                        f"not {record.kind}",
                    )
                )
        return PartCheck(issues=tuple(issues), existing_systems=frozenset(existing))

    def write(
        self,
        bundle: ImportBundle,
        *,
        dataset,
        documents: Mapping[str, object],
        user=None,
        source: str = "",
    ) -> tuple[tuple[str, int], ...]:
        """Create new systems, one new version per system, and its outputs.

        Args:
            bundle: a validated bundle that passed :meth:`check`.
            dataset: the dataset row.
            documents: the dataset's document rows by external id, locked by the caller.
            user: owner of new systems and uploader of the versions.
            source: the file or release the outputs came from.

        Returns:
            ``(system slug, version number)`` of each version written.
        """
        systems = {
            s.slug: s for s in System.objects.filter(slug__in=[r.slug for r in bundle.systems])
        }
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
        versions = _new_versions(bundle, systems, dataset, user, source)
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
        clean_all(outputs)
        rows_copy(outputs)
        return tuple((slug, version.number) for slug, version in versions.items())


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


OUTPUTS_WRITER = SystemOutputsWriter()
