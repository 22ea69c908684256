"""Shared pieces of the JSONL parsers: line records and sentence-list checks."""

from __future__ import annotations

import json
from collections.abc import Iterable

from annotation.imports.bundle import Issue, Location
from annotation.imports.splitting import split_sentences
from scoring.metrics import jsontext


def records(lines: Iterable[tuple[int, str]], file: str, issues: list[Issue]):
    """Yield ``(line_number, dict)`` for each non-blank line; bad JSON becomes an issue.

    Args:
        lines: ``(line_number, text)`` pairs from a reader.
        file: the file name used in issues.
        issues: where problems are appended.

    Returns:
        An iterator of ``(line_number, object)`` for lines holding a JSON object.
    """
    for number, text in lines:
        if not text.strip():
            continue
        try:
            value = jsontext.loads(text)
        except jsontext.JsonTooDeepError as error:
            issues.append(Issue(Location(file, number), str(error)))
            continue
        except json.JSONDecodeError as error:
            issues.append(
                Issue(Location(file, number), f"invalid JSON: {error.msg} (column {error.colno})")
            )
            continue
        if not isinstance(value, dict):
            issues.append(Issue(Location(file, number), "each line must be a JSON object"))
            continue
        yield number, value


def unknown_fields(record: dict, allowed, file: str, line: int, issues: list[Issue]) -> bool:
    """Add an issue naming the first unknown field of ``record``.

    Args:
        record: one parsed JSON object.
        allowed: the field names the format knows.
        file: the file name for the issue.
        line: the line number for the issue.
        issues: where the issue is added.

    Returns:
        True when ``record`` has a field outside ``allowed`` (the caller skips the record).
    """
    unknown = sorted(set(record) - set(allowed))
    if unknown:
        issues.append(
            Issue(
                Location(file, line, unknown[0]),
                f"unknown field(s) {unknown}; allowed: {sorted(allowed)}",
            )
        )
    return bool(unknown)


def sentence_list(value, loc: Location, issues: list[Issue]) -> tuple[str, ...] | None:
    """Check a list of non-blank strings.

    Args:
        value: the JSON value to check.
        loc: where it came from, for the issue.
        issues: where a problem is appended.

    Returns:
        The stripped sentences as a tuple, or None after adding an issue.
    """
    if not isinstance(value, list) or not value:
        issues.append(Issue(loc, "must be a non-empty list of sentences"))
        return None
    for position, sentence in enumerate(value):
        if not isinstance(sentence, str) or not sentence.strip():
            issues.append(Issue(loc, f"sentence {position} must be a non-empty string"))
            return None
    return tuple(sentence.strip() for sentence in value)


def text_sentences(value, loc: Location, issues: list[Issue]) -> tuple[str, ...] | None:
    """Split a non-blank string into sentences; return None after adding an issue otherwise."""
    if not isinstance(value, str) or not value.strip():
        issues.append(Issue(loc, "must be a non-empty string"))
        return None
    return split_sentences(value)
