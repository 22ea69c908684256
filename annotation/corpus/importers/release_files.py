"""Reading a release folder's files, collecting every issue and report line on the way."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from annotation.imports.bundle import ImportValidationError, Issue, Location, ReportLine

from .safe_pickle import FAR_GLOBALS, safe_loads


class ReleaseFiles:
    """A release's root folder plus every issue and report line found so far.

    Files are named by their path relative to the root, in issues as in calls.
    """

    def __init__(self, root: Path):
        self.root = root
        self.issues: list[Issue] = []
        self.report: list[ReportLine] = []

    def issue(self, file: str, message: str, line: int | None = None, where: str | None = None):
        self.issues.append(Issue(Location(file, line, where), message))

    def note(self, file: str, message: str, line: int | None = None, where: str | None = None):
        self.report.append(ReportLine(Location(file, line, where), message))

    def read_bytes(self, name: str, *, max_bytes: int | None = None) -> bytes | None:
        """The file's bytes, or None after an issue (missing, unreadable, or too large).

        Args:
            name: the file, relative to the root.
            max_bytes: refuse a larger file before reading it (None: no limit).

        Returns:
            The bytes, or None.
        """
        path = self.root / name
        try:
            if max_bytes is not None and path.stat().st_size > max_bytes:
                self.issue(
                    name,
                    f"the file has {path.stat().st_size:,} bytes; this release's is at most "
                    f"{max_bytes:,}, so it was not read",
                )
                return None
            return path.read_bytes()
        except FileNotFoundError:
            self.issue(name, "file not found in the release folder")
        except OSError as error:
            self.issue(name, f"cannot read file: {error.strerror or error}")
        return None

    def read_lines(self, name: str, *, max_bytes: int | None = None) -> list[str] | None:
        """The file's lines as UTF-8 text (without their line ends), or None after an issue.

        Args:
            name: the file, relative to the root.
            max_bytes: see :meth:`read_bytes`.

        Returns:
            The lines, or None.
        """
        data = self.read_bytes(name, max_bytes=max_bytes)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            self.issue(name, "not valid UTF-8", line)
            return None
        return [line.rstrip("\r") for line in text.split("\n")]

    def load_pickle(
        self,
        name: str,
        *,
        allowed: Mapping[tuple[str, str], object] = FAR_GLOBALS,
        max_bytes: int | None = None,
    ) -> object | None:
        """The file unpickled with the restricted unpickler, or None after an issue.

        Args:
            name: the file, relative to the root.
            allowed: the unpickler's allow-list (see :mod:`..safe_pickle`).
            max_bytes: see :meth:`read_bytes`.

        Returns:
            The object, or None (a forbidden global, a malformed file).
        """
        data = self.read_bytes(name, max_bytes=max_bytes)
        if data is None:
            return None
        try:
            return safe_loads(data, source=name, allowed=allowed)
        except ImportValidationError as error:
            self.issues.extend(error.issues)
            return None
