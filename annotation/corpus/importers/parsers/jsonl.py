"""Parsers for Loupe's JSONL formats: datasets (documents + references) and system outputs."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from ..bundle import (
    CATEGORIES,
    KIND_EXTRACTIVE,
    METHOD_EXACT,
    METHOD_GIVEN,
    METHOD_TFIDF,
    DatasetRecord,
    DocumentRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
    OutputRecord,
    ReferenceRecord,
    ReportLine,
    SystemRecord,
)
from ..splitting import split_sentences

DATASET_KEYS = {"id", "sentences", "text", "references", "category", "meta"}
OUTPUT_KEYS = {"doc_id", "summary", "sentences", "extracted"}


def _records(lines: Iterable[tuple[int, str]], file: str, issues: list[Issue]):
    """Yield ``(line_number, dict)`` for each non-blank line; bad JSON becomes an issue."""
    for number, text in lines:
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            issues.append(
                Issue(Location(file, number), f"invalid JSON: {error.msg} (column {error.colno})")
            )
            continue
        if not isinstance(value, dict):
            issues.append(Issue(Location(file, number), "each line must be a JSON object"))
            continue
        yield number, value


def _sentence_list(value, loc: Location, issues: list[Issue]) -> tuple[str, ...] | None:
    """Check a list of non-blank strings; return it as a tuple, or None after adding an issue."""
    if not isinstance(value, list) or not value:
        issues.append(Issue(loc, "must be a non-empty list of sentences"))
        return None
    for position, sentence in enumerate(value):
        if not isinstance(sentence, str) or not sentence.strip():
            issues.append(Issue(loc, f"sentence {position} must be a non-empty string"))
            return None
    return tuple(sentence.strip() for sentence in value)


def _text(value, loc: Location, issues: list[Issue]) -> tuple[str, ...] | None:
    if not isinstance(value, str) or not value.strip():
        issues.append(Issue(loc, "must be a non-empty string"))
        return None
    return split_sentences(value)


def _document_sentences(record: dict, file: str, number: int, issues: list[Issue]):
    if ("sentences" in record) == ("text" in record):
        issues.append(
            Issue(Location(file, number, "sentences"), 'give exactly one of "sentences" or "text"')
        )
        return None
    if "sentences" in record:
        return _sentence_list(record["sentences"], Location(file, number, "sentences"), issues)
    return _text(record["text"], Location(file, number, "text"), issues)


def _references(record: dict, file: str, number: int, issues: list[Issue]):
    value = record.get("references")
    if not isinstance(value, list) or not value:
        issues.append(
            Issue(Location(file, number, "references"), "must be a non-empty list of references")
        )
        return None
    references = []
    for position, item in enumerate(value):
        loc = Location(file, number, f"references[{position}]")
        sentences = (
            _sentence_list(item, loc, issues)
            if isinstance(item, list)
            else _text(item, loc, issues)
        )
        if sentences is None:
            return None
        references.append(ReferenceRecord(sentences=sentences, location=loc))
    return tuple(references)


def parse_dataset_jsonl(
    lines: Iterable[tuple[int, str]], *, file: str, slug: str, name: str | None = None
) -> ImportBundle:
    """Parse a dataset JSONL file: one document per line.

    Schema of a line: ``{"id": str|int, "sentences": [str, ...] | "text": str,
    "references": [[str, ...], ...] | [str, ...], "category"?: "noise"|"low"|"high",
    "meta"?: {...}}``. Each element of ``references`` is one reference: a list of sentences, or a
    string that is split into sentences.

    Args:
        lines: ``(line_number, text)`` pairs from a reader.
        file: the file name used in error messages.
        slug: the dataset slug.
        name: the dataset name (defaults to the slug).

    Returns:
        An :class:`ImportBundle` with the documents.

    Raises:
        ImportValidationError: every problem found, each naming file, line and field.
    """
    issues: list[Issue] = []
    documents: list[DocumentRecord] = []
    for number, record in _records(lines, file, issues):
        unknown = sorted(set(record) - DATASET_KEYS)
        if unknown:
            issues.append(
                Issue(
                    Location(file, number, unknown[0]),
                    f"unknown field(s) {unknown}; allowed: {sorted(DATASET_KEYS)}",
                )
            )
        doc_id = record.get("id")
        if (
            isinstance(doc_id, bool)
            or not isinstance(doc_id, (str, int))
            or not str(doc_id).strip()
        ):
            issues.append(
                Issue(Location(file, number, "id"), "must be a non-empty string or integer")
            )
            continue
        category = record.get("category")
        if category is not None and category not in CATEGORIES:
            issues.append(
                Issue(
                    Location(file, number, "category"),
                    f"must be one of {list(CATEGORIES)}, got {category!r}",
                )
            )
            continue
        meta = record.get("meta", {})
        if not isinstance(meta, dict):
            issues.append(Issue(Location(file, number, "meta"), "must be a JSON object"))
            continue
        sentences = _document_sentences(record, file, number, issues)
        references = _references(record, file, number, issues)
        if sentences is None or references is None:
            continue
        documents.append(
            DocumentRecord(
                external_id=str(doc_id).strip(),
                sentences=sentences,
                references=references,
                category=category,
                meta=meta,
                location=Location(file, number, "id"),
            )
        )
    if not documents and not issues:
        issues.append(Issue(Location(file), "the file holds no documents"))
    if issues:
        raise ImportValidationError(issues)
    return ImportBundle(dataset=DatasetRecord(slug=slug, name=name or slug), documents=documents)


def _extracted(value, loc: Location, issues: list[Issue]) -> tuple[int, ...] | None:
    if not isinstance(value, list) or not value:
        issues.append(Issue(loc, "must be a non-empty list of sentence indices"))
        return None
    if any(isinstance(i, bool) or not isinstance(i, int) for i in value):
        issues.append(Issue(loc, "sentence indices must be integers"))
        return None
    return tuple(value)


def parse_outputs_jsonl(
    lines: Iterable[tuple[int, str]],
    *,
    file: str,
    system: SystemRecord,
    documents: Mapping[str, tuple[str, ...]],
    report: list[ReportLine] | None = None,
) -> list[OutputRecord]:
    """Parse a system-output JSONL file: one line per document.

    Schema of a line: ``{"doc_id": str|int}`` plus exactly one of ``"summary": str`` (split into
    sentences), ``"sentences": [str, ...]`` or ``"extracted": [int, ...]`` (document-sentence
    indices in extraction order; extractive systems only). Text given for an extractive system is
    mapped to document sentences: exact match first, else the nearest by TF-IDF cosine; mappings
    below the threshold are added to ``report``.

    Args:
        lines: ``(line_number, text)`` pairs from a reader.
        file: the file name used in error messages.
        system: the system these outputs belong to.
        documents: sentences of every known document, by external id.
        report: where low-confidence mappings are listed (optional).

    Returns:
        One :class:`OutputRecord` per line. Unknown document ids and out-of-range indices are
        left to the validators, which see the whole bundle.

    Raises:
        ImportValidationError: malformed lines, each issue naming file, line and field.
    """
    from scoring.metrics.align import LOW_CONFIDENCE_THRESHOLD, align_sentences

    issues: list[Issue] = []
    outputs: list[OutputRecord] = []
    extractive = system.kind == KIND_EXTRACTIVE
    for number, record in _records(lines, file, issues):
        unknown = sorted(set(record) - OUTPUT_KEYS)
        if unknown:
            issues.append(
                Issue(
                    Location(file, number, unknown[0]),
                    f"unknown field(s) {unknown}; allowed: {sorted(OUTPUT_KEYS)}",
                )
            )
            continue
        doc_id = record.get("doc_id")
        if (
            isinstance(doc_id, bool)
            or not isinstance(doc_id, (str, int))
            or not str(doc_id).strip()
        ):
            issues.append(
                Issue(Location(file, number, "doc_id"), "must be a non-empty string or integer")
            )
            continue
        doc_id = str(doc_id).strip()
        given = [key for key in ("summary", "sentences", "extracted") if key in record]
        if len(given) != 1:
            issues.append(
                Issue(
                    Location(file, number, "summary"),
                    'give exactly one of "summary", "sentences" or "extracted"',
                )
            )
            continue
        key = given[0]
        loc = Location(file, number, key)
        if key == "extracted":
            if not extractive:
                issues.append(
                    Issue(
                        loc, f"system {system.slug!r} is abstractive; give its summary text instead"
                    )
                )
                continue
            indices = _extracted(record[key], loc, issues)
            if indices is None:
                continue
            doc_sentences = documents.get(doc_id, ())
            sentences = tuple(
                doc_sentences[i] if 0 <= i < len(doc_sentences) else "" for i in indices
            )
            outputs.append(
                OutputRecord(
                    system.slug,
                    doc_id,
                    sentences,
                    indices,
                    METHOD_GIVEN,
                    tuple(1.0 for _ in indices),
                    loc,
                )
            )
            continue
        sentences = (
            _sentence_list(record[key], loc, issues)
            if key == "sentences"
            else _text(record[key], loc, issues)
        )
        if sentences is None:
            continue
        if not extractive or doc_id not in documents:
            outputs.append(OutputRecord(system.slug, doc_id, sentences, location=loc))
            continue
        alignments = align_sentences(sentences, documents[doc_id])
        method = METHOD_EXACT if all(a.method == "exact" for a in alignments) else METHOD_TFIDF
        for sentence, alignment in zip(sentences, alignments, strict=True):
            if alignment.similarity < LOW_CONFIDENCE_THRESHOLD and report is not None:
                report.append(
                    ReportLine(
                        loc,
                        f"low-confidence mapping for {system.slug} on {doc_id}: "
                        f"{sentence[:80]!r} -> sentence {alignment.index} "
                        f"(cosine {alignment.similarity:.3f})",
                    )
                )
        outputs.append(
            OutputRecord(
                system.slug,
                doc_id,
                sentences,
                tuple(a.index for a in alignments),
                method,
                tuple(round(a.similarity, 4) for a in alignments),
                loc,
            )
        )
    if issues:
        raise ImportValidationError(issues)
    return outputs
