"""Reading the hallucination annotations CSV into checked rows, every problem an issue."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from annotation.imports.bundle import Issue, Location

from .offsets import unescape
from .release import COLUMNS, GOLD, NULL, SYSTEMS, TYPES, WORKERS


@dataclass(frozen=True)
class Row:
    """One row of the annotations CSV, unescaped (``type`` is None for the release's NULL)."""

    line: int
    bbcid: str
    system: str
    summary: str
    type: str | None
    span: str
    start: int
    end: int
    worker: str
    escaped: bool  # the summary cell wrote an apostrophe as \'


def _lines(path: Path, issues: list[Issue]) -> Iterable[tuple[int, dict[str, str]]]:
    label = path.name
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        issues.append(Issue(Location(label), "file not found"))
        return
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line_start = data.rfind(b"\n", 0, error.start) + 1
        issues.append(
            Issue(
                Location(label, data.count(b"\n", 0, error.start) + 1),
                f"not valid UTF-8 (byte {error.start - line_start} of the line); "
                "save the file as UTF-8",
            )
        )
        return
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [name for name in COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        issues.append(Issue(Location(label, 1), f"missing column(s): {', '.join(missing)}"))
        return
    line = reader.line_num  # the header's last line
    for record in reader:
        line += 1
        yield line, record
        line = reader.line_num


def _int(value: str, label: str, line: int, field: str, issues: list[Issue]) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        issues.append(Issue(Location(label, line, field), f"not a whole number: {value!r}"))
        return None


def _row(label: str, line: int, record: dict[str, str], issues: list[Issue]) -> Row | None:
    count = len(issues)
    bbcid = (record.get("bbcid") or "").strip()
    if not bbcid.isdigit():
        issues.append(Issue(Location(label, line, "bbcid"), f"not a BBC id: {bbcid!r}"))
    system = record.get("system") or ""
    if system != GOLD and system not in SYSTEMS:
        known = ", ".join([*SYSTEMS, GOLD])
        issues.append(Issue(Location(label, line, "system"), f"{system!r} is not one of {known}"))
    worker = record.get("worker_id") or ""
    if worker not in WORKERS:
        issues.append(
            Issue(Location(label, line, "worker_id"), f"{worker!r} is not one of {WORKERS}")
        )
    raw_type = record.get("hallucination_type") or ""
    if raw_type != NULL and raw_type not in TYPES:
        issues.append(
            Issue(
                Location(label, line, "hallucination_type"),
                f"{raw_type!r} is not one of {', '.join(TYPES)} or {NULL}",
            )
        )
    raw_summary = record.get("summary") or ""
    summary = unescape(raw_summary)
    if not summary.strip():
        issues.append(Issue(Location(label, line, "summary"), "empty summary"))
    start = _int(
        record.get("hallucinated_span_start"), label, line, "hallucinated_span_start", issues
    )
    end = _int(record.get("hallucinated_span_end"), label, line, "hallucinated_span_end", issues)
    if len(issues) > count:
        return None
    return Row(
        line=line,
        bbcid=bbcid,
        system=system,
        summary=summary,
        type=None if raw_type == NULL else raw_type,
        span=unescape(record.get("hallucinated_span") or ""),
        start=start,
        end=end,
        worker=worker,
        escaped="\\'" in raw_summary,
    )


def read_rows(path: Path, issues: list[Issue]) -> list[Row]:
    """Read and check every row of the annotations CSV.

    Args:
        path: ``hallucination_annotations_xsum_summaries.csv``.
        issues: where problems are appended (a missing file or column, a bad cell), each with
            the file, the line and the column.

    Returns:
        The rows that passed, in file order.
    """
    rows = []
    for line, record in _lines(path, issues):
        row = _row(path.name, line, record, issues)
        if row is not None:
            rows.append(row)
    return rows
