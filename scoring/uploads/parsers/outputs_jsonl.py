"""Parser for system-output JSONL: one summary (text, sentences or indices) per document."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial

from annotation.imports.bundle import (
    KIND_EXTRACTIVE,
    MAX_LISTED_ISSUES,
    METHOD_EXACT,
    METHOD_GIVEN,
    METHOD_TFIDF,
    ImportValidationError,
    Issue,
    IssueList,
    Location,
    OutputRecord,
    ReportLine,
    SystemRecord,
)
from annotation.imports.fields import records, sentence_list, unknown_fields
from annotation.imports.splitting import split_sentences
from scoring.metrics.align import LOW_CONFIDENCE_THRESHOLD, align_sentences

OUTPUT_KEYS = {"doc_id", "summary", "sentences", "extracted"}


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
    indices in extraction order; extractive systems only). See :func:`parse_output_records`.

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
    issues = IssueList()
    located = ((Location(file, number), record) for number, record in records(lines, file, issues))
    return parse_output_records(
        located, system=system, documents=documents, report=report, issues=issues
    )


def parse_output_records(
    located: Iterable[tuple[Location, dict]],
    *,
    system: SystemRecord,
    documents: Mapping[str, tuple[str, ...]],
    report: list[ReportLine] | None = None,
    issues: list[Issue] | None = None,
) -> list[OutputRecord]:
    """Turn output records (one per document, wherever they came from) into OutputRecords.

    A record is ``{"doc_id": str|int}`` plus exactly one of ``"summary"``, ``"sentences"`` or
    ``"extracted"``. Text given for an extractive system is mapped to document sentences:
    exact match first, else the nearest by TF-IDF cosine; mappings below the threshold are
    added to ``report``. The JSONL parser and the per-document files parser both use it.

    Args:
        located: ``(location, record)`` pairs; each location names the file (and line).
        system: the system these outputs belong to.
        documents: sentences of every known document, by external id. If it has a
            ``load(picks=..., whole=...)`` method (``annotation.corpus.selectors.
            DocumentSentences``), it is called once before any text is used, with the
            indices given per document and the documents whose text is aligned.
        report: where low-confidence mappings are listed (optional).
        issues: problems found earlier (e.g. by the reader), raised together with these; the
            list is appended to while ``located`` is consumed, so issues stay in file order.

    Returns:
        One :class:`OutputRecord` per record, in the records' order.

    No text is split, aligned or read before the whole file is checked: an output of an
    unknown document, or a second one for a document, is handed to the validators without its
    text (they report it with the file's other problems), and more than
    :data:`MAX_LISTED_ISSUES` of them refuse the file here. A file of a million bad lines thus
    costs their JSON parse and no more; past that many issues they are counted, not listed.

    Raises:
        ImportValidationError: malformed records (and any earlier ``issues``), each issue
            naming file, line and field.
    """
    issues = IssueList() if issues is None else issues
    first: dict[str, Location] = {}  # document id -> where its output was given
    misplaced: list[OutputRecord] = []  # outputs of unknown documents, or second ones
    crowded = False  # so many were misplaced that the file is refused in the parser
    # In file order: an OutputRecord, or what makes one once the document texts it needs are
    # read (indices to pick, or sentences to align), so a source that reads texts from the
    # database (``load``) reads only those, in one go.
    pending: list[OutputRecord | Callable[[], OutputRecord]] = []
    picks: dict[str, set[int]] = {}
    whole: set[str] = set()
    extractive = system.kind == KIND_EXTRACTIVE
    for where, record in located:
        file, number = where.file, where.line
        if unknown_fields(record, OUTPUT_KEYS, file, number, issues):
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
            value = _extracted(record[key], loc, issues)
        elif key == "sentences":
            value = sentence_list(record[key], loc, issues)
        elif isinstance(record[key], str) and record[key].strip():
            value = record[key]  # split once the file is known to be valid
        else:
            issues.append(Issue(loc, "must be a non-empty string"))
            value = None
        if value is None:
            continue
        if doc_id not in documents or doc_id in first:
            # Left to the validators (their messages, with the other problems of the file) as
            # a record without text; past MAX_LISTED_ISSUES such lines the file is refused here.
            output = OutputRecord(system.slug, doc_id, (), location=loc)
            if crowded:
                issues.extend(_misplaced_issues([output], first))
                continue
            misplaced.append(output)
            pending.append(output)
            if len(misplaced) > MAX_LISTED_ISSUES:
                issues.extend(_misplaced_issues(misplaced, first))
                gone = {id(output) for output in misplaced}
                pending = [item for item in pending if id(item) not in gone]
                misplaced = []
                crowded = True
            continue
        first[doc_id] = loc
        if key == "extracted":
            picks.setdefault(doc_id, set()).update(value)
            pending.append(partial(_picked, system, documents, doc_id, value, loc))
        elif not extractive:
            pending.append(partial(_given, system, doc_id, value, loc))
        else:
            whole.add(doc_id)
            pending.append(partial(_aligned, system, documents, doc_id, value, loc, report))
    if issues:
        if misplaced:
            issues.extend(_misplaced_issues(misplaced, first))
            issues = _in_file_order(issues)
        raise ImportValidationError(issues)
    load = getattr(documents, "load", None)
    if load is not None:
        load(picks=picks, whole=whole)
    return [item if isinstance(item, OutputRecord) else item() for item in pending]


def _in_file_order(issues: list[Issue]) -> list[Issue]:
    """``issues`` sorted by file (in the order they first appear) and line, stably; an
    :class:`IssueList` keeps its count of the others."""
    files: dict[str, int] = {}
    for issue in issues:
        files.setdefault(issue.location.file, len(files))
    ordered = sorted(
        issues, key=lambda issue: (files[issue.location.file], issue.location.line or 0)
    )
    if not isinstance(issues, IssueList):
        return ordered
    kept = IssueList(issues.limit)
    list.extend(kept, ordered)
    kept.more = issues.more
    return kept


def _misplaced_issues(misplaced: list[OutputRecord], first: dict[str, Location]) -> list[Issue]:
    """The validators' issues for outputs of unknown documents and second outputs."""
    issues = []
    for output in misplaced:
        where = Location(output.location.file, output.location.line, "doc_id")
        doc_id = output.document_id
        if doc_id in first:
            message = f"duplicate output for document {doc_id!r} (first at {first[doc_id]})"
        else:
            message = f"unknown document id {doc_id!r}"
        issues.append(Issue(where, message))
    return issues


def _sentences(value: str | tuple[str, ...]) -> tuple[str, ...]:
    """A summary's sentences: split from its text, or as given."""
    return split_sentences(value) if isinstance(value, str) else value


def _given(system, doc_id: str, sentences, loc) -> OutputRecord:
    """An abstractive output (or a text of an unknown document): its sentences as given."""
    return OutputRecord(system.slug, doc_id, _sentences(sentences), location=loc)


def _picked(system, documents, doc_id: str, indices: tuple[int, ...], loc) -> OutputRecord:
    """An output given as indices: the document's sentences at them (out of range: "", which
    the validators refuse with the range)."""
    doc_sentences = documents.get(doc_id, ())
    sentences = tuple(doc_sentences[i] if 0 <= i < len(doc_sentences) else "" for i in indices)
    return OutputRecord(
        system.slug, doc_id, sentences, indices, METHOD_GIVEN, tuple(1.0 for _ in indices), loc
    )


def _aligned(system, documents, doc_id: str, sentences, loc, report) -> OutputRecord:
    """An extractive output given as text: each sentence mapped to the document's nearest,
    low-confidence mappings listed in ``report``."""
    sentences = _sentences(sentences)
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
    return OutputRecord(
        system.slug,
        doc_id,
        sentences,
        tuple(a.index for a in alignments),
        method,
        tuple(round(a.similarity, 4) for a in alignments),
        loc,
    )


def low_confidence_issues(outputs: Iterable[OutputRecord]) -> list[Issue]:
    """An issue for each extractive sentence whose nearest document sentence is a guess.

    Text given for an extractive system is mapped to document sentences (exact, else TF-IDF
    cosine). Below ``LOW_CONFIDENCE_THRESHOLD`` (0.3, see ``scoring.metrics.align``) the nearest
    sentence is a guess: on the PolyTope release every mapping at 0.3 or more was right, and
    the wrong ones were all below. An upload refuses such mappings unless the uploader accepts
    them explicitly; then they are listed in the report instead.

    Args:
        outputs: the parsed outputs (given indices and exact matches have confidence 1.0).

    Returns:
        One issue per sentence below the threshold, naming the file, line, sentence and cosine.
    """
    issues = []
    for output in outputs:
        for position, (sentence, index, similarity) in enumerate(
            zip(output.sentences, output.extracted or (), output.confidences or (), strict=False)
        ):
            if similarity >= LOW_CONFIDENCE_THRESHOLD:
                continue
            issues.append(
                Issue(
                    output.location or Location(f"output {output.document_id}"),
                    f"sentence {position + 1} of {output.document_id} ({sentence[:80]!r}) is "
                    f"not in the document: its nearest sentence, {index}, has TF-IDF cosine "
                    f"{similarity:.3f}, below {LOW_CONFIDENCE_THRESHOLD}. Give the sentence as "
                    'the document has it, or its index under "extracted"; to keep the nearest '
                    "match anyway, upload again accepting low-confidence mappings",
                )
            )
    return issues
