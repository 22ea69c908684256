"""Human judgments: parse an uploaded CSV or JSONL study, validate it whole, write it atomically."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from rest_framework import status

from annotation.corpus.importers.bundle import ImportValidationError, Issue, Location
from annotation.corpus.importers.parsers.common import records
from annotation.corpus.importers.readers import read_lines
from annotation.corpus.models import Dataset, Document
from config.exceptions import ApplicationError, ConflictError
from scoring.systems.models import System, SystemOutput

from .models import HumanJudgment, JudgmentKind

CSV_SUFFIXES = (".csv",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
SYSTEM, DOC_ID = "system", "doc_id"
VALUE_FIELDS = (JudgmentKind.SCORE.value, JudgmentKind.RANK.value)
JSONL_KEYS = {SYSTEM, DOC_ID, *VALUE_FIELDS}
FORMATS_HELP = (
    "a CSV with header system,score | system,rank | system,doc_id,score | system,doc_id,rank, "
    'or JSONL lines {"system": ..., "doc_id": ... (optional), "score" or "rank": ...}'
)
NAME_MAX_LENGTH = 64


@dataclass(frozen=True)
class JudgmentRow:
    """One parsed judgment: a system's value overall (``document`` None) or on one document."""

    system: str
    document: str | None  # the document's external id
    value: float
    location: Location


@dataclass
class ParsedStudy:
    """A parsed upload: its kind (score or rank), whether it is per document, and its rows."""

    kind: str | None = None
    per_document: bool | None = None
    rows: list[JudgmentRow] = field(default_factory=list)
    shape_line: int | None = None  # the line that set ``per_document``
    kind_line: int | None = None  # the line that set ``kind``
    seen: dict[tuple[str, str | None], int] = field(default_factory=dict)  # key -> first line


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
        unknown = sorted(set(record) - JSONL_KEYS)
        if unknown:
            issues.append(
                Issue(
                    Location(file, number, unknown[0]),
                    f"unknown field(s) {unknown}; allowed: {sorted(JSONL_KEYS)}",
                )
            )
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


def _resolve(
    study: ParsedStudy, *, dataset: Dataset, issues: list[Issue]
) -> tuple[dict[str, System], dict[str, int]]:
    """Look up the systems (they need outputs for ``dataset``) and documents the rows name."""
    slugs = {row.system for row in study.rows}
    systems = {s.slug: s for s in System.objects.filter(slug__in=slugs)}
    with_outputs = set(
        SystemOutput.objects.filter(document__dataset=dataset, system__slug__in=slugs)
        .values_list("system__slug", flat=True)
        .distinct()
    )
    external_ids = {row.document for row in study.rows if row.document is not None}
    documents = dict(
        Document.objects.filter(dataset=dataset, external_id__in=external_ids).values_list(
            "external_id", "pk"
        )
    )
    problems: dict[tuple[str, str], list[Location]] = {}
    for row in study.rows:
        if row.system not in systems:
            key = (SYSTEM, f"unknown system {row.system!r}")
        elif row.system not in with_outputs:
            key = (SYSTEM, f"system {row.system!r} has no outputs for dataset {dataset.slug!r}")
        else:
            key = None
        if key:
            problems.setdefault(key, []).append(row.location)
        if row.document is not None and row.document not in documents:
            key = (DOC_ID, f"unknown document {row.document!r} in dataset {dataset.slug!r}")
            problems.setdefault(key, []).append(row.location)
    for (column, message), locations in problems.items():
        first = locations[0]
        more = len(locations) - 1
        suffix = f" (and {more} more line{'s' if more > 1 else ''})" if more else ""
        issues.append(Issue(Location(first.file, first.line, column), message + suffix))
    return systems, documents


def _check_name(name: str) -> None:
    try:
        validate_slug(name)
    except ValidationError as error:
        raise ApplicationError(
            f"The study name {name!r} is not a slug (letters, digits, - and _).",
            extra={"field": "name"},
        ) from error
    if len(name) > NAME_MAX_LENGTH:
        raise ApplicationError(
            f"The study name is longer than {NAME_MAX_LENGTH} characters.", extra={"field": "name"}
        )


@transaction.atomic
def human_judgments_import(
    *,
    dataset: Dataset,
    name: str,
    source: Path | BinaryIO,
    filename: str,
    user=None,
    replace: bool = False,
) -> dict:
    """Import one human judgment study for ``dataset``: validate the whole file, then write it.

    Args:
        dataset: the dataset judged.
        name: the study's name (a slug, e.g. ``overall`` or ``faithfulness``).
        source: the file: a path or a binary file object (e.g. an upload).
        filename: its name: ``.csv`` or ``.jsonl`` chooses the format (see
            :func:`judgments_parse`); also used in issues.
        user: the uploader, recorded on every row.
        replace: replace an existing study of that name (its old rows are deleted in the same
            transaction); without it an existing name is refused.

    Returns:
        ``{"name", "kind", "per_document", "rows", "systems", "replaced"}``: the study's kind
        (``score`` or ``rank``), whether it is per document, how many rows were written, the
        judged systems' slugs (sorted) and whether an earlier study was replaced.

    Raises:
        ApplicationError: the name is not a slug of at most 64 characters.
        ConflictError: a study of that name exists and ``replace`` is False (HTTP 409).
        ImportValidationError: every problem in the file (format, values, duplicates, mixed
            shapes or kinds, unknown systems or documents, bad UTF-8), each naming the file, line
            and field; nothing is written.
    """
    _check_name(name)
    existing = HumanJudgment.objects.filter(dataset=dataset, name=name)
    if existing.exists() and not replace:
        raise ConflictError(
            f"A study named {name!r} already exists for {dataset.slug!r}; "
            "send replace=true to replace it.",
            extra={"name": name},
        )
    issues: list[Issue] = []
    study = judgments_parse(source, filename=filename, issues=issues)
    systems, documents = _resolve(study, dataset=dataset, issues=issues)
    if issues:
        raise ImportValidationError(issues)
    replaced = bool(existing.delete()[0]) if replace else False
    rows = [
        HumanJudgment(
            dataset=dataset,
            name=name,
            kind=study.kind,
            system=systems[row.system],
            document_id=documents[row.document] if row.document is not None else None,
            value=row.value,
            uploaded_by=user,
        )
        for row in study.rows
    ]
    for row in rows:  # the references were resolved above; check the plain fields
        row.clean_fields(exclude=["dataset", "system", "document", "uploaded_by"])
    try:
        with transaction.atomic():
            HumanJudgment.objects.bulk_create(rows)
    except IntegrityError as error:  # a concurrent upload of the same name won the race
        raise ConflictError(
            f"A study named {name!r} was written at the same time; try again.",
            extra={"name": name},
        ) from error
    return {
        "name": name,
        "kind": study.kind,
        "per_document": bool(study.per_document),
        "rows": len(rows),
        "systems": sorted({row.system for row in study.rows}),
        "replaced": replaced,
    }


@transaction.atomic
def human_judgment_study_delete(*, dataset: Dataset, name: str) -> int:
    """Delete every row of one study.

    Args:
        dataset: the dataset the study judges.
        name: the study's name.

    Returns:
        How many rows were deleted.

    Raises:
        ApplicationError: no study of that name (HTTP 404).
    """
    deleted, _ = HumanJudgment.objects.filter(dataset=dataset, name=name).delete()
    if not deleted:
        raise ApplicationError(
            f"No study named {name!r} for {dataset.slug!r}.", status_code=status.HTTP_404_NOT_FOUND
        )
    return deleted
