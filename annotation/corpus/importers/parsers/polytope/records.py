"""State of one PolyTope parse: trial files, documents, loose outputs and the issue log."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from annotation.imports.bundle import DocumentRecord, Issue, Location, ReportLine

Lines = list[tuple[int, str]]


@dataclass
class _Section:
    """One ``#name:`` block of a trial file: header line and non-blank content lines."""

    name: str
    line: int
    lines: Lines


@dataclass
class _TrialFile:
    """One parsed ``<trial>_.txt`` file."""

    label: str
    folder: str
    trial: int
    index: int | None
    story: str
    hash_line: int
    sections: dict[str, _Section]


@dataclass
class _Doc:
    """A document under construction, with the word counts used to recognise its outputs."""

    story: str
    trial: int
    record: DocumentRecord
    words: Counter
    article_line: int


@dataclass(frozen=True)
class _Loose:
    """An output that carries no story id (TextRank file, BART line): placed by trial/content."""

    label: str
    line: int
    trial: int
    lines: tuple[tuple[int, str], ...]

    @property
    def text(self) -> str:
        return " ".join(text for _, text in self.lines)


class _Log:
    """Collects the fatal issues and the report lines of one parse."""

    def __init__(self) -> None:
        self.issues: list[Issue] = []
        self.report: list[ReportLine] = []
        self.failed: set[tuple[str, int]] = set()  # (folder, trial) of files that did not parse

    def issue(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.issues.append(Issue(Location(file, line, field), message))

    def note(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.report.append(ReportLine(Location(file, line, field), message))
