"""Build PolyTope-style workbooks in tests with openpyxl, rows as in the official Error Log."""

from __future__ import annotations

import io
from dataclasses import dataclass

import openpyxl

from annotation.systems.models import SystemOutput

OFFICIAL = [
    "ID",
    "#error",
    "Source",
    "Target",
    "Issue Types",
    "Subtypes",
    "Labels",
    "Issue Words",
    "Reason for Error (optional)",
    "Severity",
]


@dataclass(frozen=True)
class Formula:
    """A cell written as a formula (openpyxl stores it without a cached value)."""

    text: str


def row(
    segment,
    target,
    subtype=None,
    label=None,
    words=None,
    severity=None,
    *,
    source="",
    issue_type=None,
    n=1,
    reason=None,
):
    """One Error Log row; ``issue_type`` defaults to the subtype's aspect."""
    if issue_type is None and subtype:
        fluency = {"Word_Order", "Duplication", "Word_Form"}
        issue_type = "Fluency" if subtype in fluency else "Accuracy"
    return [segment, n, source, target, issue_type, subtype, label, words, reason, severity]


def build_workbook(
    rows, *, headers=OFFICIAL, sheet="Error Log", other_sheets=(), segment_words=None
) -> bytes:
    """An .xlsx file whose ``sheet`` has ``headers`` then ``rows``; text cells stay text.

    ``segment_words`` (ID -> number) adds a ``Scores per segment`` sheet listing those IDs with
    those word counts in column D, as the official sheet caches them."""
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = sheet
    for name in other_sheets:
        book.create_sheet(name)
    if segment_words is not None:
        scores = book.create_sheet("Scores per segment")
        scores.append(["ID", "Source", "Target", "wordcount"])
        for segment, words in segment_words.items():
            scores.append([segment, None, None, words])
    for r, values in enumerate([headers, *rows], start=1):
        for c, value in enumerate(values, start=1):
            if value is None:
                continue
            cell = ws.cell(r, c)
            if isinstance(value, Formula):
                cell.value = value.text
            else:
                cell.value = value
                if isinstance(value, str):
                    cell.data_type = "s"  # a text cell, even when it starts with "="
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def demo_output(system: str, document: str) -> SystemOutput:
    """The demo's output of ``system`` for ``document`` (e.g. ``demo-abs``, ``demo-001``)."""
    return SystemOutput.objects.select_related("document").get(
        system__slug=system, document__external_id=document, document__dataset__slug="demo"
    )


def target_of(output: SystemOutput) -> str:
    """The Target cell as the release's workbooks write it: one sentence per line."""
    return " \n".join(output.sentences)


def source_of(output: SystemOutput) -> str:
    """The Source cell: the article, one sentence per line."""
    return "\n".join(output.document.sentences)
