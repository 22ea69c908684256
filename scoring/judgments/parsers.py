"""Read an uploaded CSV or JSONL study into judgment rows, every problem an issue."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from annotation.imports.bundle import ImportValidationError, Issue, Location
from annotation.imports.fields import records, unknown_fields
from annotation.imports.readers import read_lines

from .models import JudgmentKind
from .rows import (
    CSV_SUFFIXES,
    DOC_ID,
    FORMATS_HELP,
    JSONL_KEYS,
    JSONL_SUFFIXES,
    SYSTEM,
    VALUE_FIELDS,
    JudgmentRow,
    ParsedStudy,
)


def _shape(per_document: bool) -> str:
    return "per document (with doc_id)" if per_document else "per system (no doc_id)"


def _value(raw, loc: Location, kind: str, issues: list[Issue], *, text: bool) -> float | None:
    """The judgment's value as a finite float (a positive one for ranks), or None after an issue.

    Args:
        raw: the cell (a string from CSV) or the JSON value.
        loc: where it came from.
        kind: ``score`` or ``rank``.
        issues: where a problem is appended.
        text: whether ``raw`` is CSV text (parsed) rather than a JSON value (must be a number).

    Returns:
        The value, or None after adding an issue.
    """
    if text:
        cell = raw.strip()
        if not cell:
            issues.append(Issue(loc, f"the {kind} is empty"))
            return None
        try:
            value = float(cell)
        except ValueError:
            issues.append(Issue(loc, f"{cell!r} is not a number"))
            return None
    elif isinstance(raw, bool) or not isinstance(raw, (int, float)):
        issues.append(Issue(loc, f"the {kind} must be a number, got {raw!r}"))
        return None
    else:
        value = float(raw)
    if not math.isfinite(value):
        issues.append(Issue(loc, f"the {kind} must be a finite number, got {raw!r}"))
        return None
    if kind == JudgmentKind.RANK and value <= 0:
        issues.append(Issue(loc, f"a rank must be a positive number (1 is best), got {raw!r}"))
        return None
    return value


def _add_row(
    study: ParsedStudy,
    *,
    file: str,
    line: int,
    system: str,
    document: str | None,
    kind: str,
    raw,
    issues: list[Issue],
    text: bool,
) -> None:
    """Check one row against the study so far (shape, kind, duplicates) and keep it if valid."""
    before = len(issues)
    if study.per_document is None:
        study.per_document, study.shape_line = document is not None, line
    elif (document is not None) != study.per_document:
        issues.append(
            Issue(
                Location(file, line, DOC_ID),
                f"this row is {_shape(document is not None)} but line {study.shape_line} is "
                f"{_shape(study.per_document)}; a study is one or the other",
            )
        )
    if study.kind is None:
        study.kind, study.kind_line = kind, line
    elif kind != study.kind:
        issues.append(
            Issue(
                Location(file, line, kind),
                f"this row gives a {kind} but line {study.kind_line} gives a {study.kind}; "
                "a study holds scores or ranks, not both",
            )
        )
    value = _value(raw, Location(file, line, kind), kind, issues, text=text)
    key = (system, document)
    if key in study.seen:
        where = f" on document {document!r}" if document is not None else ""
        issues.append(
            Issue(
                Location(file, line, SYSTEM),
                f"duplicate judgment of system {system!r}{where} (first on line {study.seen[key]})",
            )
        )
    else:
        study.seen[key] = line
    if value is not None and len(issues) == before:
        study.rows.append(JudgmentRow(system, document, value, Location(file, line)))


def _parse_csv(lines: Iterable[tuple[int, str]], file: str, issues: list[Issue]) -> ParsedStudy:
    """Parse a CSV study; the header names the columns (in any order)."""
    study = ParsedStudy()
    header: list[str] | None = None
    for number, text in lines:
        if not text.strip():
            continue
        cells = next(csv.reader([text]))
        if header is None:
            header = [cell.strip().lower() for cell in cells]
            problem = _header_problem(header)
            if problem:
                issues.append(Issue(Location(file, number), problem))
                return study
            continue
        if len(cells) != len(header):
            issues.append(
                Issue(
                    Location(file, number),
                    f"expected {len(header)} fields ({','.join(header)}), got {len(cells)}",
                )
            )
            continue
        row = dict(zip(header, cells, strict=True))
        system = row[SYSTEM].strip()
        if not system:
            issues.append(Issue(Location(file, number, SYSTEM), "the system is empty"))
            continue
        document = row[DOC_ID].strip() if DOC_ID in row else None
        if document == "":
            issues.append(
                Issue(
                    Location(file, number, DOC_ID),
                    "the doc_id is empty; a per-document study needs one on every row",
                )
            )
            continue
        kind = next(f for f in VALUE_FIELDS if f in row)
        _add_row(
            study,
            file=file,
            line=number,
            system=system,
            document=document,
            kind=kind,
            raw=row[kind],
            issues=issues,
            text=True,
        )
    if header is None:
        issues.append(Issue(Location(file), f"the file is empty; expected {FORMATS_HELP}"))
    return study


def _header_problem(header: list[str]) -> str | None:
    """Why a CSV header is not one of the four accepted ones, or None when it is."""
    unknown = [column for column in header if column not in JSONL_KEYS]
    if unknown:
        return f"unknown column(s) {unknown}; expected {FORMATS_HELP}"
    if len(set(header)) != len(header):
        return f"a column is repeated in the header {header}"
    if SYSTEM not in header:
        return "the header has no system column"
    values = [column for column in header if column in VALUE_FIELDS]
    if len(values) != 1:
        return "the header needs exactly one of the columns score or rank (a study holds one kind)"
    return None


def _parse_jsonl(lines: Iterable[tuple[int, str]], file: str, issues: list[Issue]) -> ParsedStudy:
    """Parse a JSONL study: one object per line."""
    study = ParsedStudy()
    for number, record in records(lines, file, issues):
        if unknown_fields(record, JSONL_KEYS, file, number, issues):
            continue
        system = record.get(SYSTEM)
        if not isinstance(system, str) or not system.strip():
            issues.append(Issue(Location(file, number, SYSTEM), "must be a non-empty string"))
            continue
        document = record.get(DOC_ID)
        if document is not None:
            if isinstance(document, bool) or not isinstance(document, (str, int)):
                issues.append(Issue(Location(file, number, DOC_ID), "must be a string or integer"))
                continue
            document = str(document).strip()
            if not document:
                issues.append(Issue(Location(file, number, DOC_ID), "must not be empty"))
                continue
        kinds = [f for f in VALUE_FIELDS if f in record]
        if len(kinds) != 1:
            problem = "gives both score and rank" if kinds else "needs a score or a rank"
            issues.append(Issue(Location(file, number), f"each line {problem}"))
            continue
        _add_row(
            study,
            file=file,
            line=number,
            system=system.strip(),
            document=document,
            kind=kinds[0],
            raw=record[kinds[0]],
            issues=issues,
            text=False,
        )
    return study


def judgments_parse(source: Path | BinaryIO, *, filename: str, issues: list[Issue]) -> ParsedStudy:
    """Parse an uploaded study (CSV or JSONL, chosen by the file name's suffix).

    CSV: a header ``system,score``, ``system,rank`` (per system) or ``system,doc_id,score``,
    ``system,doc_id,rank`` (per document), columns in any order. JSONL: one object per line,
    ``{"system": str, "doc_id": str|int (optional), "score"|"rank": number}``. Blank lines are
    skipped. Values must be finite numbers; ranks must be positive (1 is best). A study is
    either per system or per document, and either scores or ranks; each system (and document)
    is judged once.

    Args:
        source: a path or a binary file object.
        filename: the file's name, for the format and for issues.
        issues: where every problem is appended (each names the file, line and field).

    Returns:
        The :class:`ParsedStudy` holding the valid rows (names are not resolved here).

    Raises:
        Nothing: problems, bad UTF-8 included, go to ``issues``.
    """
    suffix = Path(filename).suffix.lower()
    if suffix in CSV_SUFFIXES:
        parse = _parse_csv
    elif suffix in JSONL_SUFFIXES:
        parse = _parse_jsonl
    else:
        issues.append(
            Issue(Location(filename), f"name the file .csv or .jsonl; expected {FORMATS_HELP}")
        )
        return ParsedStudy()
    lines = read_lines(source, name=filename)
    collected: list[tuple[int, str]] = []
    try:
        collected.extend(lines)
    except ImportValidationError as error:  # bad UTF-8: parse what came before, then report it
        study = parse(collected, filename, issues)
        issues.extend(error.issues)
        return study
    study = parse(collected, filename, issues)
    if not study.rows and not issues:
        issues.append(
            Issue(Location(filename), f"the file holds no judgment; expected {FORMATS_HELP}")
        )
    return study
