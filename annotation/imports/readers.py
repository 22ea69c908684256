"""Readers: turn a path or an uploaded file into decoded lines, reporting encoding errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .bundle import ImportValidationError, Issue, Location


def read_lines(source: Path | BinaryIO, *, name: str | None = None) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line of a UTF-8 file, line numbers from 1.

    Args:
        source: a filesystem path or a binary file object (e.g. an uploaded file).
        name: the file name to use in error messages (defaults to the path or ``upload``).

    Returns:
        An iterator of ``(line_number, line_without_newline)``.

    Raises:
        ImportValidationError: the file is missing or a line is not valid UTF-8 (the issue names
            the line and byte offset).
    """
    label = name or (str(source) if isinstance(source, Path) else "upload")
    if isinstance(source, Path):
        if not source.is_file():
            raise ImportValidationError([Issue(Location(label), "file not found")])
        handle: BinaryIO = source.open("rb")
        close = True
    else:
        handle, close = source, False
    try:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ImportValidationError(
                    [
                        Issue(
                            Location(label, number),
                            f"not valid UTF-8 (byte {error.start} of the line); "
                            "save the file as UTF-8",
                        )
                    ]
                ) from error
            if number == 1:
                text = text.removeprefix("\ufeff")
            yield number, text.rstrip("\r\n")
    finally:
        if close:
            handle.close()
