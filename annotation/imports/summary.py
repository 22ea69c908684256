"""What an import wrote, or for a dry run would write: counts, versions and the report."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .bundle import ImportBundle, ReportLine


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
    span_annotations: int = 0
    judgments: int = 0  # human judgments, over every study
    released_scores: int = 0  # outputs with a release's own automatic scores

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
            "span_annotations": self.span_annotations,
            "judgments": self.judgments,
            "released_scores": self.released_scores,
            "dry_run": self.dry_run,
            "versions": [{"system": slug, "version": number} for slug, number in self.versions],
            "report": [str(line) for line in self.report],
        }


def summarize(
    bundle: ImportBundle,
    *,
    slug: str,
    existing_systems: Collection[str] = (),
    dry_run: bool = False,
    versions: tuple[tuple[str, int], ...] = (),
) -> ImportSummary:
    """Count what ``bundle`` holds.

    Args:
        bundle: the parsed bundle.
        slug: the dataset slug to report.
        existing_systems: slugs of systems that already exist (reported as reused).
        dry_run: whether nothing was written.
        versions: ``(system slug, version number)`` of each output version written.

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
        annotation_sets=len(bundle.annotation_sets) + len(bundle.span_sets),
        fams=sum(len(s.fams) for s in bundle.annotation_sets),
        span_annotations=sum(len(s.annotations) for s in bundle.span_sets),
        judgments=sum(len(s.judgments) for s in bundle.judgment_studies),
        released_scores=sum(len(r.scores) for r in bundle.released_scores),
        report=tuple(bundle.report),
        dry_run=dry_run,
        versions=versions,
    )
