"""PolyTope system outputs read from the trial-file sections, with sentence alignment."""

from __future__ import annotations

from annotation.imports.bundle import (
    KIND_EXTRACTIVE,
    METHOD_EXACT,
    METHOD_LEAD,
    METHOD_TFIDF,
    Location,
    OutputRecord,
    SystemRecord,
)
from scoring.metrics.align import (
    LOW_CONFIDENCE_THRESHOLD,
    align_sentences,
    normalize_space,
    split_on_document_sentences,
)

from .records import Lines, _Doc, _Log, _TrialFile
from .release import _SYSTEM, SECTION_SYSTEMS
from .text import _pieces, _split_prose


def _abstractive_sentences(lines: Lines) -> Lines:
    """One sentence per line, or per two-space piece; a single piece goes through pysbd."""
    pieces = _pieces(lines)
    if len(pieces) != 1:
        return pieces
    number, text = pieces[0]
    return [(number, sentence) for sentence in _split_prose(text)]


def _extractive_sentences(
    lines: Lines, document: tuple[str, ...], label: str, field: str, log: _Log
) -> Lines:
    """One sentence per line; a single line is cut back into the document sentences it joins."""
    if len(lines) != 1:
        return _join_broken_lines(lines, document, label, field, log)
    number, text = lines[0]
    return [(number, piece) for piece in split_on_document_sentences(text, document)]


def _join_broken_lines(
    lines: Lines, document: tuple[str, ...], label: str, field: str, log: _Log
) -> Lines:
    """Join two lines that only match a document sentence together (a stray line break)."""
    known = {normalize_space(sentence) for sentence in document}
    joined: Lines = []
    position = 0
    while position < len(lines):
        number, text = lines[position][0], normalize_space(lines[position][1])
        if text not in known and position + 1 < len(lines):
            both = normalize_space(f"{text} {lines[position + 1][1]}")
            if both in known:
                message = (
                    f"line break inside a sentence: lines {number}-{lines[position + 1][0]} joined"
                )
                log.note(label, number, field, message)
                joined.append((number, both))
                position += 2
                continue
        joined.append((number, text))
        position += 1
    return joined


def _output(
    system: SystemRecord, doc: _Doc, lines: Lines, location: Location, log: _Log
) -> OutputRecord:
    """Build one output; extractive sentences are aligned and weak mappings reported."""
    if system.kind != KIND_EXTRACTIVE:
        sentences = tuple(text for _, text in _abstractive_sentences(lines))
        return OutputRecord(system.slug, doc.story, sentences, location=location)
    pieces = _extractive_sentences(lines, doc.record.sentences, location.file, location.field, log)
    sentences = tuple(text for _, text in pieces)
    alignments = align_sentences(sentences, doc.record.sentences)
    for position, ((line, text), found) in enumerate(zip(pieces, alignments, strict=True), 1):
        if found.similarity < LOW_CONFIDENCE_THRESHOLD:
            message = (
                f"low-confidence mapping: {system.name}, document {doc.story} (trial {doc.trial}), "
                f"summary sentence {position} {text[:80]!r} -> document sentence {found.index} "
                f"(TF-IDF cosine {found.similarity:.3f} < {LOW_CONFIDENCE_THRESHOLD})"
            )
            log.note(location.file, line, location.field, message)
    exact = all(found.method == METHOD_EXACT for found in alignments)
    return OutputRecord(
        system.slug,
        doc.story,
        sentences,
        extracted=tuple(found.index for found in alignments),
        method=METHOD_EXACT if exact else METHOD_TFIDF,
        confidences=tuple(round(found.similarity, 4) for found in alignments),
        location=location,
    )


def _lead3(doc: _Doc) -> OutputRecord:
    count = min(3, len(doc.record.sentences))
    return OutputRecord(
        "lead-3",
        doc.story,
        doc.record.sentences[:count],
        extracted=tuple(range(count)),
        method=METHOD_LEAD,
        confidences=(1.0,) * count,
        location=Location(doc.record.meta["article_source"], doc.article_line, "article"),
    )


def _section_outputs(
    stories: dict[str, dict[str, _TrialFile]], docs: dict[str, _Doc], log: _Log
) -> dict[str, list[OutputRecord]]:
    outputs: dict[str, list[OutputRecord]] = {}
    for story, group in stories.items():
        for folder, file in group.items():
            for name, slug in SECTION_SYSTEMS[folder].items():
                section = file.sections[name]
                location = Location(file.label, section.lines[0][0], name)
                record = _output(_SYSTEM[slug], docs[story], section.lines, location, log)
                outputs.setdefault(slug, []).append(record)
    return outputs
