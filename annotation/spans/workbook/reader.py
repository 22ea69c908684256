"""Read a PolyTope workbook's Error Log as plain data: values only, nothing evaluated or run.

openpyxl opens the file with ``keep_vba=False`` and ``keep_links=False`` (macros and external
links are dropped, never run or followed) and ``data_only=True``: a formula cell gives the value
Excel cached when it last saved the file. A formula without a cached value (a file saved by a
program that computes nothing) is read as its text, and the row says so: when the Error Log's
XML holds such a cell, the sheet is read a second time with ``data_only=False`` for the formulas'
text (a second load costs about 0.15 s on BART's workbook, so it is done only then). openpyxl
parses the XML through defusedxml. Before openpyxl sees the bytes, the archive is checked: a
zip, with the workbook part, whose members unpack to at most ``MAX_UNPACKED_BYTES`` (a zip bomb
is refused).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from annotation.imports.bundle import ImportValidationError, Issue, Location

from .cells import cell_text

ERROR_LOG = "Error Log"
SCORECARD = "ScoreCard"
SEGMENT_SCORES = "Scores per segment"
# The Error Log's official headers (BART's workbook and the AnnotationTemplate), by field.
OFFICIAL_COLUMNS: dict[str, str] = {
    "id": "ID",
    "n_error": "#error",
    "source": "Source",
    "target": "Target",
    "issue_type": "Issue Types",
    "subtype": "Subtypes",
    "label": "Labels",
    "words": "Issue Words",
    "reason": "Reason for Error (optional)",
    "severity": "Severity",
}
# Columns Loupe's export adds after the official ones (an import reads them when present).
LOUPE_COLUMNS: dict[str, str] = {
    "annotator": "Annotator",
    "system": "System",
    "side": "Span Side",
    "start": "Span Start",
    "end": "Span End",
}
REQUIRED = ("id", "target", "subtype", "label", "words", "severity")
# Other spellings of a header, after normalisation (lower case, letters and digits only).
_HEADER_ALIASES = {
    "errorno": "n_error",
    "error": "n_error",
    "issuetype": "issue_type",
    "subtype": "subtype",
    "label": "label",
    "issueword": "words",
    "reason": "reason",
    "reasonforerror": "reason",
}
MAX_ROWS = 100_000
_OLE2 = bytes.fromhex("d0cf11e0a1b11ae1")  # .xls files and encrypted .xlsx files start so
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
_SCAN_COLUMNS = 40  # headers are looked for in the first 40 columns
# A cell (any namespace prefix) whose formula has no cached value: <f>..</f> or <f .../> followed
# by an empty or missing <v>. An empty *string* result (t="str") is a cached value, not this.
_CELL = re.compile(rb"<(?:\w+:)?c\b([^>]*?)(?<!/)>(.*?)</(?:\w+:)?c>", re.DOTALL)
_FORMULA = re.compile(rb"<(?:\w+:)?f\b")
_VALUE = re.compile(rb"<(?:\w+:)?v>[^<]")
_STRING_RESULT = re.compile(rb"\bt=[\"']str[\"']")


def _key(header: str) -> str:
    return re.sub(r"[^0-9a-z#]+", "", header.casefold())


_HEADERS = {_key(h): f for f, h in {**OFFICIAL_COLUMNS, **LOUPE_COLUMNS}.items()} | {
    _key(alias): f for alias, f in _HEADER_ALIASES.items()
}


@dataclass(frozen=True)
class SheetRow:
    """One Error Log row: each mapped column's text (None when empty), 1-based row number.

    ``uncached`` names the fields whose cell holds a formula with no cached value; their text
    is the formula itself, never evaluated.
    """

    number: int
    values: Mapping[str, str | None]
    uncached: frozenset[str] = frozenset()

    def text(self, name: str) -> str:
        """The field's text with surrounding white space removed ("" when empty or absent)."""
        value = self.values.get(name)
        return value.strip() if value else ""

    def raw(self, name: str) -> str | None:
        """The field's text as read (None when empty or absent)."""
        return self.values.get(name)

    @property
    def blank(self) -> bool:
        """True when no mapped cell holds anything but white space."""
        return not any(value and value.strip() for value in self.values.values())


@dataclass(frozen=True)
class ErrorLogSheet:
    """What the reader took from a workbook: the Error Log's rows, the ScoreCard's LQI and the
    word count the ``Scores per segment`` sheet cached for each ID it lists (what the ScoreCard
    pools over)."""

    name: str
    headers: Mapping[str, str]
    rows: tuple[SheetRow, ...]
    scorecard_lqi: float | None = None
    sheets: tuple[str, ...] = field(default_factory=tuple)
    segment_words: Mapping[str, int] = field(default_factory=dict)

    @property
    def has_loupe_columns(self) -> bool:
        """Whether the sheet carries the span columns of a Loupe export."""
        return "side" in self.headers


def _bytes(source: Path | BinaryIO | bytes, label: str) -> bytes:
    if isinstance(source, bytes):
        return source
    if isinstance(source, Path):
        if not source.is_file():
            raise ImportValidationError([Issue(Location(label), "file not found")])
        return source.read_bytes()
    if hasattr(source, "seek"):
        source.seek(0)
    return source.read()


def _check_archive(data: bytes, label: str) -> None:
    refuse = "is not an Excel workbook (.xlsx or .xlsm)"
    if data.startswith(_OLE2):
        raise ImportValidationError(
            [
                Issue(
                    Location(label),
                    f"{refuse}: it is an old .xls or a password-protected workbook; save it "
                    "unprotected as .xlsx or .xlsm",
                )
            ]
        )
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise ImportValidationError([Issue(Location(label), f"{refuse}: it is not a zip archive")])
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ImportValidationError([Issue(Location(label), f"{refuse}: {error}")]) from error
    names = {member.filename for member in members}
    if "xl/workbook.xml" not in names:
        raise ImportValidationError(
            [Issue(Location(label), f"{refuse}: the archive has no xl/workbook.xml")]
        )
    unpacked = sum(member.file_size for member in members)
    if unpacked > MAX_UNPACKED_BYTES:
        raise ImportValidationError(
            [
                Issue(
                    Location(label),
                    f"unpacks to {unpacked:,} bytes, more than the {MAX_UNPACKED_BYTES:,} "
                    "a workbook may (a zip bomb?)",
                )
            ]
        )


def _open(data: bytes, label: str, *, data_only: bool):
    import openpyxl

    try:
        return openpyxl.load_workbook(
            io.BytesIO(data), read_only=True, data_only=data_only, keep_vba=False, keep_links=False
        )
    except Exception as error:  # any failure of the parser on untrusted bytes is a refusal
        raise ImportValidationError(
            [Issue(Location(label), f"cannot be read as a workbook: {error}")]
        ) from error


def _has_uncached_formulas(data: bytes, path: str | None) -> bool:
    """Whether the sheet part at ``path`` holds a formula without a cached value (True when the
    part cannot be found: the formulas are then read to be safe)."""
    if not path:
        return True
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            xml = archive.read(path.lstrip("/"))
    except (KeyError, zipfile.BadZipFile, OSError):
        return True
    return any(
        _FORMULA.search(body) and not _VALUE.search(body) and not _STRING_RESULT.search(attrs)
        for attrs, body in _CELL.findall(xml)
    )


def _sheet(book, wanted: str):
    for name in book.sheetnames:
        if _key(name) == _key(wanted):
            return book[name]
    return None


def _header_map(cells, label: str) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for index, value in enumerate(cells[:_SCAN_COLUMNS]):
        text = cell_text(value)
        if not text:
            continue
        key = _key(text)
        name = _HEADERS.get(key)
        if name is None and key.startswith("reasonforerror"):
            name = "reason"
        if name is not None and name not in found:
            found[name] = (index, text.strip())
    missing = [OFFICIAL_COLUMNS[name] for name in REQUIRED if name not in found]
    if missing:
        present = [text for _, text in sorted(found.values())] or ["none"]
        raise ImportValidationError(
            [
                Issue(
                    Location(ERROR_LOG, 1, "headers"),
                    f"missing column(s) {', '.join(missing)} in row 1 (found: "
                    f"{', '.join(present)}); the official Error Log starts with "
                    f"{', '.join(OFFICIAL_COLUMNS.values())}",
                )
            ]
        )
    return found


def _scorecard_lqi(book) -> float | None:
    sheet = _sheet(book, SCORECARD)
    if sheet is None:
        return None
    for row in sheet.iter_rows(min_row=4, max_row=4, min_col=9, max_col=9, values_only=True):
        value = row[0] if row else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def _segment_words(book) -> dict[str, int]:
    """ID -> the word count the ``Scores per segment`` sheet cached (column D), for the IDs it
    lists with a cached number; at most ``MAX_ROWS`` rows are read."""
    sheet = _sheet(book, SEGMENT_SCORES)
    if sheet is None:
        return {}
    found: dict[str, int] = {}
    rows = sheet.iter_rows(min_row=2, max_row=MAX_ROWS + 1, max_col=4, values_only=True)
    for row in rows:
        segment = cell_text(row[0]) if row else None
        words = row[3] if len(row) >= 4 else None
        if not segment or not segment.strip() or isinstance(words, bool):
            continue
        if isinstance(words, int | float) and words == int(words):
            found.setdefault(segment.strip(), int(words))
    return found


def read_error_log(source: Path | BinaryIO | bytes, *, name: str | None = None) -> ErrorLogSheet:
    """Read the Error Log (and the ScoreCard's cached LQI) of an official PolyTope workbook.

    Args:
        source: a path, an open binary file (an upload) or the file's bytes.
        name: the file name for messages (defaults to the path's name or ``workbook``).

    Returns:
        The :class:`ErrorLogSheet`: every row after the header row that holds anything, with
        its texts (strings unescaped, see ``cells``), and the ScoreCard's LQI if it is cached.

    Raises:
        ImportValidationError: not a workbook (not a zip, no workbook part, unreadable, a zip
            bomb), no ``Error Log`` sheet, a required header missing, or more than
            ``MAX_ROWS`` rows.
    """
    label = name or (source.name if isinstance(source, Path) else "workbook")
    data = _bytes(source, label)
    _check_archive(data, label)
    values_book = _open(data, label, data_only=True)
    formulas_book = None
    try:
        sheet = _sheet(values_book, ERROR_LOG)
        if sheet is None:
            raise ImportValidationError(
                [
                    Issue(
                        Location(label),
                        f"has no sheet named {ERROR_LOG!r} (sheets: "
                        f"{', '.join(values_book.sheetnames) or 'none'}); is it a PolyTope "
                        "annotation workbook?",
                    )
                ]
            )
        value_rows = sheet.iter_rows(values_only=True)
        formula_rows = iter(())
        if _has_uncached_formulas(data, getattr(sheet, "_worksheet_path", None)):
            formulas_book = _open(data, label, data_only=False)
            formula_rows = _sheet(formulas_book, ERROR_LOG).iter_rows()
            next(formula_rows, None)
        header = next(value_rows, None)
        if header is None:
            raise ImportValidationError(
                [Issue(Location(ERROR_LOG, 1, "headers"), "the Error Log sheet is empty")]
            )
        columns = _header_map(list(header), label)
        rows: list[SheetRow] = []
        for number, values in enumerate(value_rows, start=2):
            formula_cells = next(formula_rows, ())
            if number - 1 > MAX_ROWS:
                raise ImportValidationError(
                    [
                        Issue(
                            Location(ERROR_LOG, number),
                            f"the Error Log has more than {MAX_ROWS:,} rows",
                        )
                    ]
                )
            texts: dict[str, str | None] = {}
            uncached = set()
            for field_name, (index, _) in columns.items():
                value = values[index] if index < len(values) else None
                cell = formula_cells[index] if index < len(formula_cells) else None
                if value is None and getattr(cell, "data_type", None) == "f":
                    uncached.add(field_name)
                    value = cell.value
                texts[field_name] = cell_text(value)
            row = SheetRow(number, texts, frozenset(uncached))
            if not row.blank:
                rows.append(row)
        return ErrorLogSheet(
            name=label,
            headers={field_name: text for field_name, (_, text) in columns.items()},
            rows=tuple(rows),
            scorecard_lqi=_scorecard_lqi(values_book),
            sheets=tuple(values_book.sheetnames),
            segment_words=_segment_words(values_book),
        )
    finally:
        values_book.close()
        if formulas_book is not None:
            formulas_book.close()
