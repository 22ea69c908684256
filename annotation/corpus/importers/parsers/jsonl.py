"""Parser for Loupe's dataset JSONL format: one document with its references per line."""

from __future__ import annotations

from collections.abc import Iterable

from annotation.imports.bundle import (
    CATEGORIES,
    DatasetRecord,
    DocumentRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
    ReferenceRecord,
)
from annotation.imports.fields import records, sentence_list, text_sentences, unknown_fields

DATASET_KEYS = {"id", "sentences", "text", "references", "category", "meta"}


def _document_sentences(record: dict, file: str, number: int, issues: list[Issue]):
    if ("sentences" in record) == ("text" in record):
        issues.append(
            Issue(Location(file, number, "sentences"), 'give exactly one of "sentences" or "text"')
        )
        return None
    if "sentences" in record:
        return sentence_list(record["sentences"], Location(file, number, "sentences"), issues)
    return text_sentences(record["text"], Location(file, number, "text"), issues)


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
            sentence_list(item, loc, issues)
            if isinstance(item, list)
            else text_sentences(item, loc, issues)
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
    for number, record in records(lines, file, issues):
        unknown_fields(record, DATASET_KEYS, file, number, issues)
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
