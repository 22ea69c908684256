"""Reading the FAR release files, collecting every issue and report line on the way."""

from __future__ import annotations

from pathlib import Path

from annotation.imports.bundle import ImportValidationError, Issue, Location, ReportLine

from ...safe_pickle import safe_loads


class _Context:
    """The release root plus every issue and report line found so far."""

    def __init__(self, root: Path):
        self.root = root
        self.issues: list[Issue] = []
        self.report: list[ReportLine] = []

    def issue(self, file: str, message: str, line: int | None = None, where: str | None = None):
        self.issues.append(Issue(Location(file, line, where), message))

    def note(self, file: str, message: str, line: int | None = None, where: str | None = None):
        self.report.append(ReportLine(Location(file, line, where), message))

    def read_bytes(self, name: str) -> bytes | None:
        try:
            return (self.root / name).read_bytes()
        except FileNotFoundError:
            self.issue(name, "file not found in the release folder")
        except OSError as error:
            self.issue(name, f"cannot read file: {error.strerror or error}")
        return None

    def read_lines(self, name: str) -> list[str] | None:
        data = self.read_bytes(name)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            self.issue(name, "not valid UTF-8", line)
            return None
        return [line.rstrip("\r") for line in text.split("\n")]

    def load_pickle(self, name: str) -> object | None:
        data = self.read_bytes(name)
        if data is None:
            return None
        try:
            return safe_loads(data, source=name)
        except ImportValidationError as error:
            self.issues.extend(error.issues)
            return None
