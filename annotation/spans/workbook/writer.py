"""Write span annotations as a workbook in the official PolyTope layout, or as JSONL.

The workbook has the sheets of the release's annotated workbooks, with the same headers in the
same columns: ``ScoreCard``, ``Error Log``, ``Scores per segment`` and ``Severity_Matrix``.
Every cell holds a value, never a formula (the scores are computed here by the core), and every
text cell is escaped against formula injection (``cells.escape_text``). The Error Log has one
row per error (a "No errors" row for a clean summary) and, after the official columns A-J,
Loupe's columns ``Annotator``, ``System``, ``Span Side``, ``Span Start`` and ``Span End``, so
that an import of the file gives the same annotations back. The Severity_Matrix sheet also
holds the lists and names behind the official template's drop-down menus (Issue Types, then
Subtypes, then Labels), so the file can be annotated further in a spreadsheet program.

JSONL has one object per (output, annotator): ``document``, ``system``, ``version``,
``annotator`` (null for a release's or gold set's row), ``no_errors`` and ``errors``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from scoring.metrics.polytope import (
    EmptySummaryError,
    Issue,
    Segment,
    breakdown,
    parse_label,
    parse_subtype,
    penalty_of,
    polytope_score,
    score_segment,
)
from scoring.metrics.polytope.breakdown import LABELS, SEVERITIES, SUBTYPES
from scoring.metrics.polytope.severity import SHEET_LABELS, SHEET_ROWS

from .cells import writable_text
from .reader import ERROR_LOG, LOUPE_COLUMNS, OFFICIAL_COLUMNS, SCORECARD

SCORES = "Scores per segment"
MATRIX = "Severity_Matrix"
SEGMENT_HEADERS = (
    "ID",
    "Source",
    "Target",
    "wordcount",
    "Critical",
    "Major",
    "Minor",
    "Invalid Source",
    "Invalid Target",
    "Score",
    "Annotator",
    "System",
)
# The sheet's spelling of each subtype and label (Severity_Matrix, ScoreCard, drop-downs).
SHEET_SUBTYPE = {parse_subtype(name): name for name, _ in SHEET_ROWS}
SHEET_LABEL = {parse_label(name): name for name in SHEET_LABELS}
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
JSONL_TYPE = "application/x-ndjson"


@dataclass(frozen=True)
class ExportSegment:
    """One (output, annotator) annotation as exported: where it is, its texts and errors."""

    id: str
    document: str
    system: str
    version: int
    annotator: str | None
    source_sentences: tuple[str, ...] | None
    summary_sentences: tuple[str, ...]
    errors: tuple[dict, ...]
    no_errors: bool
    annotated_text: str = ""

    @property
    def summary(self) -> str:
        """The text the offsets index: the annotated text if kept, else the sentences joined by
        one space."""
        return self.annotated_text or " ".join(self.summary_sentences)

    @property
    def annotated(self) -> bool:
        """Whether the output was judged (it has errors, or the no-errors mark)."""
        return self.no_errors or bool(self.errors)


class _Sheet:
    """A worksheet that escapes every text it is given and counts the texts it had to alter."""

    def __init__(self, book, title: str, altered: list[str], *, first: bool = False):
        self.ws = book.active if first else book.create_sheet()
        self.ws.title = title
        self.altered = altered

    def put(self, row: int, column: int, value) -> None:
        if isinstance(value, str):
            value, changed = writable_text(value)
            if changed:
                self.altered.append(f"{self.ws.title}!{self.ws.cell(row, column).coordinate}")
        cell = self.ws.cell(row, column)
        cell.value = value
        if isinstance(value, str):
            cell.data_type = "s"  # never a formula, whatever the text

    def row(self, number: int, values: Sequence) -> None:
        for column, value in enumerate(values, start=1):
            if value is not None:
                self.put(number, column, value)


def _issues(segment: ExportSegment) -> list[Issue]:
    return [Issue(segment.id, error["type"], error["label"]) for error in segment.errors]


def _segment_score(segment: ExportSegment):
    try:
        return score_segment(Segment(segment.id, segment.summary), _issues(segment))
    except EmptySummaryError:
        return None


def _texts(segment: ExportSegment) -> tuple[str, str]:
    """Source and Target cells: one sentence per line, as in the release's workbooks; the Target
    is the annotated text where one was kept (the text the annotators judged)."""
    target = segment.annotated_text or "\n".join(segment.summary_sentences)
    return "\n".join(segment.source_sentences or ()), target


def _error_log(sheet: _Sheet, segments: Sequence[ExportSegment]) -> int:
    headers = [*OFFICIAL_COLUMNS.values(), *LOUPE_COLUMNS.values()]
    sheet.row(1, headers)
    number = 1
    for segment in segments:
        source, target = _texts(segment)
        rows = segment.errors or ({},)
        for index, error in enumerate(rows, start=1):
            number += 1
            if error:
                subtype = parse_subtype(error["type"])
                values = [
                    subtype.aspect.value,
                    SHEET_SUBTYPE[subtype],
                    SHEET_LABEL[parse_label(error["label"])],
                    error["words"],
                    error.get("reason") or None,
                    error["severity"],
                ]
                span = [
                    error["side"],
                    error["start"] if error["side"] != "none" else None,
                    error["end"] if error["side"] != "none" else None,
                ]
            else:
                values = [None, None, None, None, None, "No errors"]
                span = [None, None, None]
            sheet.row(
                number,
                [
                    segment.id,
                    index,
                    source,
                    target,
                    *values,
                    segment.annotator or None,
                    segment.system,
                    *span,
                ],
            )
    return number - 1


def _scores(sheet: _Sheet, segments: Sequence[ExportSegment], results: Sequence) -> None:
    sheet.row(1, SEGMENT_HEADERS)
    for number, (segment, result) in enumerate(zip(segments, results, strict=True), start=2):
        sheet.row(
            number,
            [
                segment.id,
                *_texts(segment),
                result.words if result else 0,
                result.critical if result else 0,
                result.major if result else 0,
                result.minor if result else 0,
                0,
                0,
                result.score if result else None,
                segment.annotator or None,
                segment.system,
            ],
        )


def _scorecard(
    sheet: _Sheet, segments: Sequence[ExportSegment], results: Sequence, rows: int, note: str
) -> None:
    ws = sheet.ws
    scored = [result for result in results if result is not None]
    words = sum(result.words for result in scored)
    counts = breakdown(issue for segment in segments for issue in _issues(segment))
    severities = counts.by_severity()
    critical, major, minor = (severities[severity] for severity in SEVERITIES)
    total = counts.total
    lqi = polytope_score(penalty_of(critical, major, minor), words) if words else None
    clean = sum(1 for result in scored if result.errors == 0)
    n_segments = len(segments)
    for cells in ("B2:C2", "E2:F2", "H2:I2", "B28:B32", "B33:B35", "B36:C36"):
        ws.merge_cells(cells)
    sheet.put(2, 2, "Before Evaluation")
    sheet.put(2, 5, "After Evaluation")
    sheet.put(2, 8, "LQE Metrics")
    sheet.row(4, [None, "Evaluation Date", None, None, "# Total Rows:", rows, None, "LQI:", lqi])
    sheet.row(
        6,
        [
            None,
            "Source Language",
            None,
            "(Optional)",
            "# Total Errors:",
            total,
            None,
            "Errors / 1k words:",
            1000 * total / words if words else 0,
        ],
    )
    sheet.row(
        8,
        [None, "# Words:", words, None, "# Invalid Segments:", 0, None, "% Invalid Segments:", 0],
    )
    sheet.row(
        10,
        [
            None,
            "# Segments:",
            n_segments,
            None,
            "# Seg corrects:",
            clean,
            None,
            "% Seg Correct:",
            clean / n_segments if n_segments else 0,
        ],
    )
    sheet.put(15, 4, "Severities ScoreCard")
    sheet.row(17, [None, None, None, "Critical", "Major", "Minor", "Invalid Target", "Score"])
    sheet.row(18, [None, None, "Results", critical, major, minor, 0, lqi])
    sheet.put(25, 4, "Errors ScoreCard")
    labels = [SHEET_LABEL[label] for label in LABELS]
    sheet.row(27, [None, "Issue_Type", "Sub_Issue_Type", *labels, "Total Errors"])
    for offset, subtype in enumerate(SUBTYPES):
        row = 28 + offset
        cells = list(counts.matrix[offset])
        aspect = {0: "Accuracy", 5: "Fluency"}.get(offset)
        sheet.row(row, [None, aspect, SHEET_SUBTYPE[subtype], *cells, sum(cells)])
    columns = [sum(counts.matrix[i][j] for i in range(len(SUBTYPES))) for j in range(len(LABELS))]
    sheet.row(36, [None, "Total Errors", None, *columns, total])
    sheet.put(38, 2, note)


def _matrix(sheet: _Sheet, book) -> None:
    from openpyxl.utils import get_column_letter
    from openpyxl.workbook.defined_name import DefinedName

    ws = sheet.ws
    ws.merge_cells("A1:M1")
    ws.merge_cells("A3:A7")
    ws.merge_cells("A8:A10")
    sheet.put(1, 1, MATRIX)
    sheet.row(2, ["Issue_Type", "Sub_Issue_Type", *SHEET_LABELS])
    for offset, (name, cells) in enumerate(SHEET_ROWS):
        aspect = {0: "Accuracy", 5: "Fluency"}.get(offset)
        sheet.row(3 + offset, [aspect, name, *cells])
    # The drop-down lists: Issue Types, each aspect's subtypes, each subtype's allowed labels.
    sheet.row(13, ["Issue_Type", "Accuracy", "Fluency"])
    names = {"Issue_Type": "$A$14:$A$15"}
    sheet.put(14, 1, "Accuracy")
    sheet.put(15, 1, "Fluency")
    blocks = {"Accuracy": (2, 24), "Fluency": (3, 39)}
    placed = {"Accuracy": 0, "Fluency": 0}
    for subtype_name, cells in SHEET_ROWS:
        aspect = parse_subtype(subtype_name).aspect.value
        list_column, header_row = blocks[aspect]
        sheet.put(14 + placed[aspect], list_column, subtype_name)
        column = 1 + placed[aspect]
        placed[aspect] += 1
        sheet.put(header_row, column, aspect)
        sheet.put(header_row + 1, column, subtype_name)
        allowed = [label for label, cell in zip(SHEET_LABELS, cells, strict=True) if cell != "N/A"]
        for offset, label in enumerate(allowed):
            sheet.put(header_row + 2 + offset, column, label)
        letter = get_column_letter(column)
        first, last = header_row + 2, header_row + 1 + len(allowed)
        names[subtype_name] = f"${letter}${first}:${letter}${last}"
    for aspect, (list_column, _) in blocks.items():
        letter = get_column_letter(list_column)
        names[aspect] = f"${letter}$14:${letter}${13 + placed[aspect]}"
    for name, cells in names.items():
        book.defined_names[name] = DefinedName(name, attr_text=f"{MATRIX}!{cells}")


def _menus(ws, last_row: int) -> None:
    from openpyxl.worksheet.datavalidation import DataValidation

    end = max(last_row + 200, 1000)
    for formula, column in (("Issue_Type", "E"), ("INDIRECT(E2)", "F"), ("INDIRECT(F2)", "G")):
        menu = DataValidation(type="list", formula1=formula, allow_blank=True)
        menu.add(f"{column}2:{column}{end}")
        ws.add_data_validation(menu)


def workbook_bytes(segments: Iterable[ExportSegment], *, note: str = "") -> tuple[bytes, list[str]]:
    """The annotated segments as an ``.xlsx`` workbook in the official layout.

    Args:
        segments: what to export, in order; segments that are not annotated (no errors and no
            no-errors mark) are left out.
        note: a line of provenance written under the ScoreCard (escaped like any text).

    Returns:
        ``(bytes, altered)``: the file, and the cells whose text had to be cut at Excel's
        32,767 characters (an article that long; such a cell is no longer exact).
    """
    from openpyxl import Workbook

    chosen = [segment for segment in segments if segment.annotated]
    book = Workbook()
    altered: list[str] = []
    scorecard = _Sheet(book, SCORECARD, altered, first=True)
    log = _Sheet(book, ERROR_LOG, altered)
    rows = _error_log(log, chosen)
    results = [_segment_score(segment) for segment in chosen]  # each segment scored once
    _scores(_Sheet(book, SCORES, altered), chosen, results)
    _scorecard(scorecard, chosen, results, rows, note)
    _matrix(_Sheet(book, MATRIX, altered), book)
    _menus(log.ws, rows + 1)
    for letter, width in {"A": 14, "C": 40, "D": 40, "F": 22, "G": 24, "H": 36, "I": 24}.items():
        log.ws.column_dimensions[letter].width = width
    book.active = book.index(log.ws)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue(), altered


def jsonl_lines(segments: Iterable[ExportSegment]) -> Iterator[str]:
    """One JSON object per (output, annotator), in order, each a line with its newline.

    Args:
        segments: what to export (every row, annotated or not).

    Returns:
        An iterator of lines.
    """
    for segment in segments:
        record = {
            "document": segment.document,
            "system": segment.system,
            "version": segment.version,
            "annotator": segment.annotator,
            "no_errors": segment.no_errors,
            "errors": list(segment.errors),
        }
        if segment.annotated_text:
            record["annotated_text"] = segment.annotated_text
        yield json.dumps(record, ensure_ascii=False) + "\n"
