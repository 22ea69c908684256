"""Turn Error Log rows into segments (one per ID) of PolyTope errors, and say what was skipped.

Each ID is one segment (a system summary). Its rows are read in sheet order:

- a row without subtype and label (Severity "No errors") marks a clean summary;
- a row whose Issue Types is ``Invalid_Segment`` (subtype Source or Target) marks the segment
  invalid: Loupe has no such mark, so the segment is left out and reported;
- any other row is an error: its subtype and label are resolved (the workbook's spellings are
  accepted) and its severity is **derived** from the official matrix. What the sheet's own
  Severity cell says is compared with it: a different severity is reported (Loupe stores and
  counts the matrix's); a row the sheet does not count (its Severity is empty, "No errors",
  "N/A"...) is left out like the sheet leaves it out, unless ``keep_uncounted``; a row that
  cannot be placed (no label, an unknown name, an N/A combination) is left out and reported.

Every report line names the row, the ID and what is wrong. Nothing here reads the database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from annotation.imports.bundle import Issue, Location, ReportLine
from scoring.metrics.polytope import (
    CombinationNotAllowedError,
    PolyTopeError,
    parse_label,
    parse_subtype,
    severity_of,
)

from .reader import ERROR_LOG, ErrorLogSheet, SheetRow

COUNTED = ("Critical", "Major", "Minor")
INVALID_MARKS = ("source", "target")
_LISTED = 10


def normalize_space(text: str) -> str:
    """``text`` with every run of white space made one space, and none at either end."""
    return " ".join(text.split())


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


@dataclass(frozen=True)
class RowError:
    """One error row kept: canonical subtype and label, the derived severity, the words.

    ``side``, ``start`` and ``end`` come from a Loupe export's span columns (None otherwise).
    """

    row: int
    subtype: str
    label: str
    severity: str
    words: str
    reason: str
    side: str | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class SegmentGroup:
    """The rows of one ID: the summary it names and the errors kept from them."""

    id: str
    first_row: int
    target: str
    source: str
    annotator: str
    errors: tuple[RowError, ...]
    no_errors: bool

    @property
    def location(self) -> Location:
        """Where the segment starts in the Error Log (for report lines)."""
        return Location(ERROR_LOG, self.first_row, f"ID {self.id}")


@dataclass(frozen=True)
class ParsedWorkbook:
    """The segments of a workbook, its report lines and the problems that refuse it."""

    name: str
    groups: tuple[SegmentGroup, ...]
    report: tuple[ReportLine, ...]
    issues: tuple[Issue, ...]
    rows: int
    scorecard_lqi: float | None
    segment_words: Mapping[str, int] = field(default_factory=dict)


def _where(row: SheetRow, segment: str) -> Location:
    return Location(ERROR_LOG, row.number, f"ID {segment}" if segment else None)


def _sheet_counts(row: SheetRow) -> str | None:
    """The severity the sheet counts the row as, or None when it does not count it."""
    if "severity" in row.uncached:
        return None
    value = row.text("severity").casefold()
    return next((name for name in COUNTED if name.casefold() == value), None)


def _sheet_says(row: SheetRow) -> str:
    if "severity" in row.uncached:
        return "its Severity formula has no cached value"
    counted = _sheet_counts(row)
    if counted:
        return f"the sheet counts it as {counted}"
    value = row.text("severity")
    return (
        f"the sheet does not count it either (Severity {value!r})"
        if value
        else ("the sheet does not count it either (Severity empty)")
    )


def _severity_cell(row: SheetRow) -> str:
    value = row.text("severity")
    return f"Severity {value!r}" if value else "Severity is empty"


def _whole(text: str) -> int | None:
    text = text.strip()
    return int(text) if re.fullmatch(r"\d+", text) else None


class _Builder:
    def __init__(self, sheet: ErrorLogSheet, system: str, keep_uncounted: bool):
        self.sheet = sheet
        self.system = system
        self.keep_uncounted = keep_uncounted
        self.report: list[ReportLine] = []
        self.issues: list[Issue] = []
        self.uncached_rows: list[int] = []
        self.other_systems: dict[str, int] = {}

    def note(self, where: Location, message: str) -> None:
        self.report.append(ReportLine(where, message))

    def error_row(self, row: SheetRow, segment: str) -> RowError | None:
        """The row's error, or None (reported) when it is left out."""
        where = _where(row, segment)
        subtype_text, label_text = row.text("subtype"), row.text("label")
        if not subtype_text or not label_text:
            given = (
                f"Subtypes {subtype_text!r} without a Label"
                if subtype_text
                else f"Labels {label_text!r} without a Subtype"
                if label_text
                else "Issue Words without a Subtype or Label"
                if row.text("words")
                else f"Severity {row.text('severity')!r} without a Subtype or Label"
            )
            self.note(where, f"{given}: not stored, not counted; {_sheet_says(row)}")
            return None
        try:
            subtype, label = parse_subtype(subtype_text), parse_label(label_text)
            severity = severity_of(subtype, label).value
        except CombinationNotAllowedError:
            self.note(
                where,
                f"{subtype_text} x {label_text} is N/A in the severity matrix: not stored, "
                f"not counted; {_sheet_says(row)}",
            )
            return None
        except PolyTopeError as error:
            self.note(where, f"{error}: not stored, not counted; {_sheet_says(row)}")
            return None
        pair = f"{subtype_text} x {label_text} is {severity}"
        counted = _sheet_counts(row)
        if "severity" in row.uncached:
            self.uncached_rows.append(row.number)
        elif counted is None:
            if not self.keep_uncounted:
                self.note(
                    where,
                    f"{_severity_cell(row)}, so the sheet does not count the row: not stored, "
                    f"not counted ({pair}; --keep-uncounted stores it)",
                )
                return None
            self.note(
                where,
                f"{_severity_cell(row)}, so the sheet does not count the row; stored as "
                f"{severity} and counted (--keep-uncounted)",
            )
        elif counted != severity:
            self.note(
                where,
                f"Severity {counted} differs from the matrix ({pair}): stored as {severity} "
                f"and counted so; the sheet counts {counted}",
            )
        issue_type = row.text("issue_type")
        if issue_type and _key(issue_type) != _key(subtype.aspect.value):
            self.note(
                where,
                f"Issue Types {issue_type!r} but {subtype.value} is an {subtype.aspect.value} "
                "subtype: stored as such; the sheet's error table leaves the row out",
            )
        return RowError(
            row=row.number,
            subtype=subtype.value,
            label=label.value,
            severity=severity,
            words=row.raw("words") or "",
            reason=row.raw("reason") or "",
            **self.span_columns(row, segment),
        )

    def span_columns(self, row: SheetRow, segment: str) -> dict:
        side = row.text("side").casefold()
        if not side:
            return {}
        start, end = _whole(row.text("start")), _whole(row.text("end"))
        if side == "none":
            return {"side": "none"}
        if side in ("summary", "source") and start is not None and end is not None:
            return {"side": side, "start": start, "end": end}
        self.note(
            _where(row, segment),
            f"Span Side {row.text('side')!r} with Span Start {row.text('start')!r} and Span End "
            f"{row.text('end')!r} is no span; the span is looked for by the Issue Words",
        )
        return {}

    def group(self, segment: str, rows: list[SheetRow]) -> SegmentGroup | None:
        first = rows[0]
        where = _where(first, segment)
        annotators = sorted({row.text("annotator") for row in rows} - {""})
        if len(annotators) > 1:
            self.issues.append(
                Issue(
                    where,
                    f"rows of several annotators ({', '.join(annotators)}): a released set "
                    "holds one annotation per summary; split the workbook by annotator",
                )
            )
            return None
        invalid = [
            row
            for row in rows
            if _key(row.text("issue_type")) == "invalidsegment"
            or row.text("subtype").casefold() in INVALID_MARKS
        ]
        if invalid:
            mark = invalid[0].text("subtype") or "segment"
            self.note(
                _where(invalid[0], segment),
                f"marks the {mark} invalid: the segment is not imported (Loupe has no invalid "
                "mark; the ScoreCard scores an invalid Target -150 and leaves an invalid Source "
                "out)",
            )
            return None
        target = normalize_space(first.raw("target") or "")
        if not target:
            self.note(where, "no Target (summary text): the segment cannot be placed; skipped")
            return None
        for row in rows[1:]:
            other = normalize_space(row.raw("target") or "")
            if other and other != target:
                self.note(
                    _where(row, segment),
                    "Target differs from the ID's first row; the first row's is used, "
                    "as the sheet does",
                )
        errors: list[RowError] = []
        marked_clean = False
        error_rows = 0
        for row in rows:
            is_error = row.text("subtype") or row.text("label") or row.text("words")
            if not is_error and _sheet_counts(row) is None:
                marked_clean = True
                continue
            error_rows += 1
            kept = self.error_row(row, segment)
            if kept is not None:
                errors.append(kept)
        if errors and marked_clean:
            self.note(
                where, f"a 'No errors' row besides {len(errors)} error(s): the errors are kept"
            )
        if error_rows and not errors and not marked_clean:
            self.note(
                where,
                "none of its rows is stored: stored as having no errors, as the sheet scores "
                "it (100)",
            )
        return SegmentGroup(
            id=segment,
            first_row=first.number,
            target=target,
            source=normalize_space(first.raw("source") or ""),
            annotator=annotators[0] if annotators else "",
            errors=tuple(errors),
            no_errors=not errors,
        )

    def build(self) -> ParsedWorkbook:
        grouped: dict[str, list[SheetRow]] = {}
        n_rows = 0
        for row in self.sheet.rows:
            segment = row.text("id")
            system = row.text("system")
            if system and system != self.system:
                self.other_systems[system] = self.other_systems.get(system, 0) + 1
                continue
            if not segment:
                fields = ("target", "subtype", "label", "words")
                if any(row.text(name) for name in fields) or _sheet_counts(row):
                    self.note(_where(row, ""), "no ID: skipped (the sheet's scores ignore it)")
                continue
            n_rows += 1
            grouped.setdefault(segment, []).append(row)
        groups = [self.group(segment, rows) for segment, rows in grouped.items()]
        if self.uncached_rows:
            rows = ", ".join(map(str, self.uncached_rows[:_LISTED]))
            more = len(self.uncached_rows) - _LISTED
            rows += f" and {more} more" if more > 0 else ""
            self.note(
                Location(ERROR_LOG, None, "Severity"),
                f"{len(self.uncached_rows)} row(s) ({rows}) "
                "have a Severity formula without a cached value (the file was saved by a "
                "program that computes nothing); the matrix severity is stored and counted",
            )
        for system, count in sorted(self.other_systems.items()):
            self.note(
                Location(ERROR_LOG, None, "System"),
                f"{count} row(s) of system {system!r} skipped (importing {self.system!r})",
            )
        return ParsedWorkbook(
            name=self.sheet.name,
            groups=tuple(group for group in groups if group is not None),
            report=tuple(self.report),
            issues=tuple(self.issues),
            rows=n_rows,
            scorecard_lqi=self.sheet.scorecard_lqi,
            segment_words=self.sheet.segment_words,
        )


def parse_error_log(
    sheet: ErrorLogSheet, *, system: str, keep_uncounted: bool = False
) -> ParsedWorkbook:
    """Group the Error Log's rows by ID and keep the errors Loupe can store.

    Args:
        sheet: what :func:`~annotation.spans.workbook.reader.read_error_log` read.
        system: the slug of the system imported (rows whose System column names another
            system, in a Loupe export, are skipped).
        keep_uncounted: store (and count) valid rows the sheet does not count (an empty or
            "No errors" Severity) instead of leaving them out as the sheet does.

    Returns:
        The :class:`ParsedWorkbook`; its ``issues`` (rows of several annotators in one ID)
        refuse the import.
    """
    return _Builder(sheet, system, keep_uncounted).build()
