"""Shared pieces of the CLI commands: their output type, errors and input readers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


class CliError(Exception):
    """Bad input on the command line: printed to stderr, exit status 2."""


@dataclass(frozen=True)
class Output:
    """What a command produced.

    ``records`` are printed as JSON: one line each when ``lines`` is true (JSON Lines), else
    ``records[0]`` as one indented document. ``table`` is the ``--table`` form: a header row
    then data rows.
    """

    records: list[dict]
    table: list[list[str]] = field(default_factory=list)
    lines: bool = False


def read_json(path: Path) -> object:
    """Read one JSON document.

    Args:
        path: the file.

    Returns:
        The parsed value.

    Raises:
        CliError: missing file or invalid JSON (naming the file and position).
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError(f"{path}: file not found") from None
    except json.JSONDecodeError as error:
        raise CliError(f"{path}:{error.lineno}: invalid JSON: {error.msg}") from None


def read_jsonl(path: Path) -> list[tuple[int, dict]]:
    """Read a JSON Lines file of objects, skipping blank lines.

    Args:
        path: the file.

    Returns:
        ``(line_number, object)`` pairs.

    Raises:
        CliError: missing file, invalid JSON or a line that is not an object (naming the line).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"{path}: file not found") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise CliError(f"{path}:{number}: invalid JSON: {error.msg}") from None
        if not isinstance(value, dict):
            raise CliError(f"{path}:{number}: each line must be a JSON object")
        records.append((number, value))
    return records


def required(record: dict, key: str, where: str) -> object:
    """One required field of a JSON Lines record, of any type.

    Args:
        record: the line's object, as for :func:`read_text`.
        key: the field's name.
        where: ``file:line``, the place that error messages name.

    Returns:
        The field's value, unchecked.

    Raises:
        CliError: the record has no such field.
    """
    if key not in record:
        raise CliError(f"{where}: missing key {key!r}")
    return record[key]


def read_text(record: dict, key: str, where: str) -> str:
    """One required string field of a JSON Lines record.

    Args:
        record: the line's object.
        key: the field.
        where: ``file:line`` for messages.

    Returns:
        The string.

    Raises:
        CliError: the field is missing or not a string.
    """
    value = required(record, key, where)
    if not isinstance(value, str):
        raise CliError(f"{where}: {key!r} must be a string, got {type(value).__name__}")
    return value


def fmt(value: float | None, digits: int = 4) -> str:
    """Format a number for ``--table`` (``-`` for None)."""
    return "-" if value is None else f"{value:.{digits}f}"
