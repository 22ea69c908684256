"""Entry point of the XSum hallucination parser: :func:`parse_xsum_release`."""

from __future__ import annotations

from pathlib import Path

from annotation.imports.bundle import (
    DocumentRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
    OutputRecord,
    ReferenceRecord,
    ReportLine,
    SpanAnnotationRecord,
    SpanSetRecord,
)
from scoring.metrics.spans import SpanSchemeError, scheme_get, validate_errors
from scoring.metrics.wording import counted

from .judgements import Judgement, Tally, judgements
from .offsets import CLIPPED, PLACED, UNPLACED
from .release import (
    DATASET,
    EXPECTED_DOCUMENTS,
    GOLD,
    HALLUCINATIONS_FILE,
    SCHEME,
    SYSTEMS,
    WORKERS,
    span_set_slug,
)
from .rows import Row, read_rows

TEXT_MISSING_NOTE = "The release has no article text (XSum's articles are distributed apart)."


def _group(rows: list[Row], issues: list[Issue]) -> dict[tuple[str, str], list[Row]]:
    """Rows by (bbcid, system) in file order; one summary text per group."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        group = groups.setdefault((row.bbcid, row.system), [])
        if group and row.summary != group[0].summary:
            issues.append(
                Issue(
                    Location(HALLUCINATIONS_FILE, row.line, "summary"),
                    f"the {row.system} summary of {row.bbcid} differs from line {group[0].line}",
                )
            )
            continue
        group.append(row)
    return groups


def _validated(
    judgement: Judgement, summary: str, where: Location, issues: list[Issue]
) -> tuple[dict, ...]:
    """The errors as the scheme accepts them (full dicts), or an issue naming the row."""
    try:
        marked = validate_errors(scheme_get(SCHEME), judgement.errors, summary=summary, source=None)
    except SpanSchemeError as error:
        issues.append(Issue(where, f"refused by the {SCHEME} scheme: {error}"))
        return ()
    return tuple(error.as_dict() for error in marked)


def _reference_meta(rows: list[Row], tally: Tally, issues: list[Issue]) -> dict:
    """The Gold summary's judgements, kept in the document's meta (the reference is no output)."""
    kept = {}
    for worker, judgement in judgements(rows, tally).items():
        where = Location(HALLUCINATIONS_FILE, judgement.line, "hallucinated_span")
        errors = _validated(judgement, rows[0].summary, where, issues)
        kept[worker] = {"errors": list(errors), "no_errors": judgement.no_errors}
    return kept


def _counts_line(tally: Tally, documents: int, escaped: int) -> ReportLine:
    rows = tally.rows
    spans = rows[PLACED] + rows[CLIPPED] + rows[UNPLACED]
    return ReportLine(
        Location(HALLUCINATIONS_FILE),
        f"{counted(documents, 'document')} without article text; offsets checked on all "
        f"{counted(spans, 'span row')}: "
        f"{rows[PLACED] + rows[CLIPPED]} give their span under the release's convention "
        f"([start - 1, end - 1) of the summary: 0-based and end exclusive into the tool's "
        f"line break + summary), {rows[CLIPPED]} of them clipped where they began at that line "
        f"break; {rows[UNPLACED]} match no convention and are kept as words without a position. "
        f"{counted(rows['duplicate'], 'repeated row')} kept once, "
        f"{counted(rows['typeless'], 'row')} typed NULL but with words not stored, "
        f"{counted(rows['no-span beside spans'], 'no-span row')} beside the same worker's "
        f"spans ignored, {counted(rows['missing worker'], 'missing worker row')}, "
        f"{counted(rows['no span'], 'clean judgement')} (no span). "
        f"{counted(escaped, 'summary writes', 'summaries write')} ' as \\' "
        "(stored as ', which the offsets count as one character).",
    )


def _line(note: ReportLine) -> int:
    return note.location.line or 0


def parse_xsum_release(
    path: Path, *, expected_documents: int | None = EXPECTED_DOCUMENTS
) -> ImportBundle:
    """Parse the XSum hallucination release into documents, four systems and three span sets.

    Each BBC id becomes a document without text (``meta["text_missing"]``) whose one reference
    is the Gold summary (one sentence, so that span offsets into it stay exact); the Gold rows'
    spans are kept in the document's ``meta["reference_hallucinations"]`` by worker slot. Each
    system's summary is one abstractive output of one sentence. Each worker slot (wid_0..2)
    becomes a read-only human span set ``xsum-wid_N`` under the ``xsum-hallucinations`` scheme:
    the slot's spans of each output, or its no-errors mark. Offsets are checked on every row
    (see :mod:`.offsets`); rows the convention does not explain, repeats, NULL-typed rows with
    words and missing workers are kept as far as they can be and listed in the report.

    Args:
        path: the release folder (holding ``hallucination_annotations_xsum_summaries.csv``).
        expected_documents: how many documents the release must hold (None: no check).

    Returns:
        An :class:`ImportBundle` with the documents, systems, outputs, span sets and report.

    Raises:
        ImportValidationError: every structural problem found (missing folder, file or column,
            a bad cell, a summary that differs between rows, a document without a Gold
            summary, the wrong document count), each naming the file, line and column.
    """
    root = Path(path)
    if not root.is_dir():
        raise ImportValidationError([Issue(Location(str(path), None, "folder"), "not a folder")])
    issues: list[Issue] = []
    rows = read_rows(root / HALLUCINATIONS_FILE, issues)
    groups = _group(rows, issues)
    if issues:
        raise ImportValidationError(issues)
    tally = Tally()
    order = list(dict.fromkeys(bbcid for bbcid, _ in groups))
    documents = []
    for bbcid in order:
        gold = groups.get((bbcid, GOLD))
        if gold is None:
            issues.append(
                Issue(Location(HALLUCINATIONS_FILE, None, "system"), f"{bbcid} has no Gold row")
            )
            continue
        meta = {
            "text_missing": True,
            "text_missing_note": TEXT_MISSING_NOTE,
            "reference_hallucinations": _reference_meta(gold, tally, issues),
        }
        reference = ReferenceRecord(
            (gold[0].summary,), label=GOLD, location=Location(HALLUCINATIONS_FILE, gold[0].line)
        )
        documents.append(DocumentRecord(bbcid, (), (reference,), meta=meta))
    if expected_documents is not None and len(order) != expected_documents:
        issues.append(
            Issue(
                Location(HALLUCINATIONS_FILE, None, "bbcid"),
                f"{len(order)} documents, expected {expected_documents}",
            )
        )
    outputs = []
    per_worker: dict[str, list[SpanAnnotationRecord]] = {worker: [] for worker in WORKERS}
    for name, system in SYSTEMS.items():
        for bbcid in order:
            group = groups.get((bbcid, name))
            if group is None:
                continue
            summary = group[0].summary
            outputs.append(
                OutputRecord(
                    system.slug,
                    bbcid,
                    (summary,),
                    location=Location(HALLUCINATIONS_FILE, group[0].line, "summary"),
                )
            )
            for worker, judgement in judgements(group, tally).items():
                where = Location(HALLUCINATIONS_FILE, judgement.line, "hallucinated_span")
                errors = _validated(judgement, summary, where, issues)
                per_worker[worker].append(
                    SpanAnnotationRecord(
                        system.slug, bbcid, errors, judgement.no_errors, location=where
                    )
                )
    if issues:
        raise ImportValidationError(issues)
    escaped = sum(1 for group in groups.values() if group[0].escaped)
    span_sets = [
        SpanSetRecord(
            slug=span_set_slug(worker),
            name=f"XSum crowd worker slot {worker} (Maynez et al. 2020)",
            scheme=SCHEME,
            kind="human",
            read_only=True,
            annotations=tuple(per_worker[worker]),
        )
        for worker in WORKERS
    ]
    return ImportBundle(
        dataset=DATASET,
        documents=documents,
        systems=list(SYSTEMS.values()),
        outputs=outputs,
        report=[_counts_line(tally, len(documents), escaped), *sorted(tally.notes, key=_line)],
        span_sets=span_sets,
    )
