"""Span exports (reads): a set's annotations as the official workbook or as JSONL, and who may.

Admins may export any span set, and so may whoever created the campaign a set belongs to;
researchers may export released and gold sets (scores and finished annotations), never a
campaign's sets under annotation; annotators may not export.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.fams.models import AnnotationSet, AnnotationSetKind

from .models import SpanAnnotation
from .workbook import JSONL_TYPE, XLSX_TYPE, ExportSegment, jsonl_lines, workbook_bytes

FORMATS = ("xlsx", "jsonl")
# Sets whose spans researchers may read: finished ones, never a campaign's work in progress.
RESEARCHER_KINDS = (AnnotationSetKind.RELEASED, AnnotationSetKind.GOLD)


@dataclass(frozen=True)
class ExportFile:
    """An export: its file name, content type and bytes, and the cells the writer altered."""

    filename: str
    content_type: str
    body: bytes
    segments: int
    altered: tuple[str, ...] = ()


def span_set_export_allowed(*, user, annotation_set: AnnotationSet) -> bool:
    """Whether ``user`` may export ``annotation_set``.

    Args:
        user: the requesting user.
        annotation_set: a span set.

    Returns:
        True for admins and the set's campaign's creator; for researchers, only for released
        and gold sets.
    """
    if has_role(user, ADMIN):
        return True
    campaign = getattr(annotation_set, "campaign", None)
    if campaign is not None and campaign.created_by_id and campaign.created_by_id == user.pk:
        return True
    return has_role(user, RESEARCHER) and annotation_set.kind in RESEARCHER_KINDS


def span_export_segments(
    *, annotation_set: AnnotationSet, system: str | None = None
) -> list[ExportSegment]:
    """The set's annotations as plain data, by system, document and annotator.

    Args:
        annotation_set: the span set.
        system: only this system's outputs (a slug), or every system's.

    Returns:
        One :class:`ExportSegment` per (output, annotator) row; its ID is the document's id
        and the system's slug, joined by ``-``.
    """
    rows = SpanAnnotation.objects.filter(annotation_set=annotation_set).select_related(
        "output__document", "output__system", "output__version", "annotator"
    )
    if system:
        rows = rows.filter(output__system__slug=system)
    rows = rows.order_by(
        "output__system__slug", "output__document__position", "output__document_id", "annotator"
    )
    segments = []
    for row in rows:
        output, document = row.output, row.output.document
        text_missing = document.text_missing
        segments.append(
            ExportSegment(
                id=f"{document.external_id}-{output.system.slug}",
                document=document.external_id,
                system=output.system.slug,
                version=output.version.number,
                annotator=row.annotator.username if row.annotator else None,
                source_sentences=None if text_missing else tuple(document.sentences),
                summary_sentences=tuple(output.sentences),
                errors=tuple(row.errors),
                no_errors=row.no_errors,
                annotated_text=row.annotated_text,
            )
        )
    return segments


def span_set_export(
    *, annotation_set: AnnotationSet, file_format: str, system: str | None = None
) -> ExportFile:
    """Export a span set as the official workbook (``xlsx``) or as JSONL.

    Args:
        annotation_set: the span set (any scheme; the workbook layout is PolyTope's).
        file_format: ``xlsx`` or ``jsonl``.
        system: only this system's outputs, or all.

    Returns:
        The :class:`ExportFile`.

    Raises:
        ValueError: an unknown format, or a workbook asked of a set that is not PolyTope.
    """
    if file_format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {file_format!r}")
    segments = span_export_segments(annotation_set=annotation_set, system=system)
    dataset = annotation_set.dataset
    stem = f"{dataset.slug}-{annotation_set.slug}" + (f"-{system}" if system else "")
    if file_format == "jsonl":
        body = "".join(jsonl_lines(segments)).encode("utf-8")
        return ExportFile(f"{stem}.jsonl", JSONL_TYPE, body, len(segments))
    if annotation_set.scheme != "polytope":
        raise ValueError(
            f"the workbook layout is PolyTope's; set {annotation_set.slug!r} holds "
            f"{annotation_set.scheme} spans: export it as jsonl"
        )
    systems = sorted({segment.system for segment in segments})
    note = (
        f"Exported by Loupe from annotation set {annotation_set.slug!r} ({annotation_set.kind}) "
        f"of dataset {dataset.slug!r}; systems: {', '.join(systems) or 'none'}. Values, not "
        "formulas; Span Start/End are character offsets into the Target's (or, for an "
        "Omission, the Source's) lines joined by one space."
    )
    body, altered = workbook_bytes(segments, note=note)
    exported = sum(1 for segment in segments if segment.annotated)
    return ExportFile(f"{stem}.xlsx", XLSX_TYPE, body, exported, tuple(altered))
