"""FAR system outputs: Lead-3 and the extracted indices of the released systems."""

from __future__ import annotations

from collections.abc import Mapping

from annotation.imports.bundle import (
    KIND_EXTRACTIVE,
    METHOD_LEAD,
    METHOD_RELEASED,
    Location,
    OutputRecord,
    SystemRecord,
)

from .context import _Context
from .documents import _Doc
from .pickles import _check_labels_shape
from .release import DUMP_FILES, LEAD_K, LEAD_SLUG, RELEASED_SYSTEMS, ReleasedSystem


def _output(
    ctx: _Context, system: ReleasedSystem, doc: _Doc, extracted: list[int]
) -> OutputRecord | None:
    sample = doc.sample
    where = f"sample {sample.idx}"
    if not extracted:
        ctx.note(
            system.file, f"empty entry for sample {sample.idx}: no output imported", where=where
        )
        return None
    outside = [i for i in extracted if i >= len(doc.sentences)]
    if outside:
        # Kept as released: the validator then refuses the whole import, naming the index.
        doc.out_of_range.update(outside)
    if len(set(extracted)) != len(extracted):
        ctx.note(system.file, f"sample {sample.idx}: repeats an index: {extracted}", where=where)
    return OutputRecord(
        system_slug=system.slug,
        document_id=sample.story_id,
        sentences=tuple(doc.sentences[i] if i < len(doc.sentences) else "" for i in extracted),
        extracted=tuple(extracted),
        method=METHOD_RELEASED,
        confidences=tuple(1.0 for _ in extracted),
        location=Location(system.file, field=where),
    )


def _lead_output(doc: _Doc) -> OutputRecord:
    extracted = tuple(range(min(LEAD_K, len(doc.sentences))))
    return OutputRecord(
        system_slug=LEAD_SLUG,
        document_id=doc.sample.story_id,
        sentences=tuple(doc.sentences[i] for i in extracted),
        extracted=extracted,
        method=METHOD_LEAD,
        confidences=tuple(1.0 for _ in extracted),
        location=Location(doc.sample.file, doc.sample.line, "lead-3"),
    )


def _system_outputs(
    ctx: _Context, docs: Mapping[int, _Doc], categories: Mapping[int, str]
) -> list[OutputRecord]:
    outputs = [_lead_output(doc) for doc in docs.values()]
    for system in RELEASED_SYSTEMS:
        labels = _check_labels_shape(ctx, system, ctx.load_pickle(system.file), set(docs))
        if labels is None:
            continue
        made = [_output(ctx, system, docs[idx], labels[idx]) for idx in docs if idx in labels]
        made = [output for output in made if output is not None]
        outputs.extend(made)
        _report_coverage(ctx, system, made, docs, categories)
    return outputs


def _report_coverage(ctx, system: ReleasedSystem, made, docs, categories) -> None:
    by_id = {doc.sample.story_id: idx for idx, doc in docs.items()}
    counts = {category: 0 for category in DUMP_FILES}
    for output in made:
        category = categories.get(by_id[output.document_id])
        if category in counts:
            counts[category] += 1
    detail = ", ".join(f"{category} {count}" for category, count in counts.items())
    ctx.note(
        system.file, f"{system.name}: outputs for {len(made)} of {len(docs)} samples ({detail})"
    )


def _systems() -> list[SystemRecord]:
    lead = SystemRecord(
        LEAD_SLUG, "Lead-3", KIND_EXTRACTIVE, "The first three document sentences.", ""
    )
    released = [
        SystemRecord(s.slug, s.name, KIND_EXTRACTIVE, s.description, "CNN/DailyMail")
        for s in RELEASED_SYSTEMS
    ]
    return [lead, *released]
