"""FAR documents and FAMs: the sentence split of each sample and its records."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.imports.bundle import (
    FACET_NO_SUPPORT,
    FACET_SUPPORTED,
    DocumentRecord,
    FacetRecord,
    FamRecord,
    Location,
    ReferenceRecord,
)

from ...far_split import released_mismatches, split_sentences
from .context import _Context
from .dump import _Sample
from .release import FAMS_FILE


@dataclass
class _Doc:
    """A sample on its way to becoming a DocumentRecord."""

    sample: _Sample
    sentences: tuple[str, ...]
    mismatches: set[int] = field(default_factory=set)
    out_of_range: set[int] = field(default_factory=set)
    checked: bool = False


def _split(ctx: _Context, sample: _Sample) -> _Doc:
    doc = _Doc(sample, tuple(split_sentences(sample.document or "")))
    released = sample.released_texts()
    doc.checked = bool(released)
    doc.mismatches = set(released_mismatches(doc.sentences, released))
    if doc.mismatches:
        ctx.note(
            sample.file,
            f"sample {sample.idx}: the sentence split disagrees with the released support "
            f"sentences at indices {sorted(doc.mismatches)}",
            sample.line,
            "document",
        )
    return doc


def _fam_record(ctx: _Context, doc: _Doc, groups: list[list[frozenset[int]]]) -> FamRecord:
    sample = doc.sample
    facets = []
    for position, facet_groups in enumerate(groups):
        released = tuple(tuple(sorted(group)) for group in facet_groups)
        for index in sorted({i for group in released for i in group}):
            if index >= len(doc.sentences):
                ctx.issue(
                    FAMS_FILE,
                    f"sample {sample.idx} facet {position}: support sentence {index} is outside "
                    f"the document's {len(doc.sentences)} sentences as split",
                    where=f"low_abs[{sample.idx}][{position}]",
                )
        note = ""
        if len(set(released)) != len(released):
            note = "the release lists the same support group more than once"
            ctx.note(FAMS_FILE, f"sample {sample.idx} facet {position}: {note}: {released}")
        label = FACET_SUPPORTED if released else FACET_NO_SUPPORT
        facets.append(FacetRecord(groups=released, label=label, note=note))
    location = Location(sample.file, sample.reference_line or sample.line, "FAM")
    return FamRecord(document_id=sample.story_id, facets=tuple(facets), location=location)


def _document_record(doc: _Doc, category: str | None) -> DocumentRecord:
    sample = doc.sample
    disagreeing = sorted(doc.mismatches | doc.out_of_range)
    # "Agrees at every released index": vacuously true where the release gives no sentence text;
    # split_checked says whether there was anything to check.
    meta = {
        "sample_idx": sample.idx,
        "split_agrees": not disagreeing,
        "split_checked": bool(doc.checked),
        "split_mismatches": disagreeing,
    }
    if sample.notes:
        meta["release_notes"] = list(sample.notes)
    reference = ReferenceRecord(
        sentences=tuple(facet.text for facet in sample.facets),
        location=Location(sample.file, sample.reference_line or sample.line, "Reference"),
    )
    return DocumentRecord(
        external_id=sample.story_id,
        sentences=doc.sentences,
        references=(reference,),
        category=category,
        meta=meta,
        location=Location(sample.file, sample.line),
    )
