"""Read span annotations from JSONL (what ``writer.jsonl_lines`` writes): one object a line.

Each line is ``{"document": id, "system": slug, "version": n | null, "annotator": username |
null, "no_errors": bool, "errors": [...]}``; ``version`` and ``annotator`` may be left out, and
``annotated_text`` (the summary as annotated, when it is not the stored output's text) is
given only where it applies. The
shape of every line is checked here, and every problem is collected with its line number; the
errors themselves are checked against the scheme and the texts later, with the database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from annotation.imports.bundle import ImportValidationError, Issue, Location
from annotation.imports.readers import read_lines
from scoring.metrics import jsontext

FIELDS = ("document", "system", "version", "annotator", "no_errors", "errors", "annotated_text")


@dataclass(frozen=True)
class SpanLine:
    """One line: whose annotation of which output, and its errors (raw JSON objects)."""

    line: int
    document: str
    system: str
    version: int | None
    annotator: str | None
    no_errors: bool
    errors: tuple
    annotated_text: str = ""


def _check(raw: object, location: Location) -> list[str]:
    if not isinstance(raw, dict):
        return ["each line must be a JSON object"]
    problems = []
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        problems.append(f"unknown field(s) {', '.join(unknown)} (known: {', '.join(FIELDS)})")
    for name in ("document", "system"):
        value = raw.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and name == "document":
            continue
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{name} must be a non-empty string, got {value!r}")
    version = raw.get("version")
    if version is not None and (
        isinstance(version, bool) or not isinstance(version, int) or version < 1
    ):
        problems.append(f"version must be a whole number from 1, got {version!r}")
    annotator = raw.get("annotator")
    if annotator is not None and (not isinstance(annotator, str) or not annotator.strip()):
        problems.append(f"annotator must be a username or null, got {annotator!r}")
    if not isinstance(raw.get("no_errors", False), bool):
        problems.append(f"no_errors must be true or false, got {raw.get('no_errors')!r}")
    if not isinstance(raw.get("errors", []), list):
        problems.append(f"errors must be a list, got {raw.get('errors')!r}")
    text = raw.get("annotated_text", "")
    if not isinstance(text, str) or (text and not text.strip()):
        problems.append(f"annotated_text must be a non-blank string when given, got {text!r}")
    return problems


def parse_spans_jsonl(source: Path | BinaryIO, *, name: str | None = None) -> list[SpanLine]:
    """Parse a span-annotation JSONL file, collecting every problem.

    Args:
        source: a path or a binary file object (an upload).
        name: the file name in messages.

    Returns:
        One :class:`SpanLine` per non-blank line, in order.

    Raises:
        ImportValidationError: bad UTF-8, bad JSON, a line of the wrong shape, or no line at
            all; every problem names its line.
    """
    label = name or (source.name if isinstance(source, Path) else "upload")
    lines: list[SpanLine] = []
    issues: list[Issue] = []
    for number, text in read_lines(source, name=label):
        if not text.strip():
            continue
        location = Location(label, number)
        try:
            raw = jsontext.loads(text)
        except jsontext.JsonTooDeepError as error:
            issues.append(Issue(location, str(error)))
            continue
        except json.JSONDecodeError as error:
            issues.append(Issue(location, f"not valid JSON: {error.msg} (column {error.colno})"))
            continue
        problems = _check(raw, location)
        if problems:
            issues.extend(Issue(location, problem) for problem in problems)
            continue
        lines.append(
            SpanLine(
                line=number,
                document=str(raw["document"]),
                system=raw["system"],
                version=raw.get("version"),
                annotator=raw.get("annotator"),
                no_errors=raw.get("no_errors", False),
                errors=tuple(raw.get("errors", [])),
                annotated_text=raw.get("annotated_text", ""),
            )
        )
    if not lines and not issues:
        issues.append(Issue(Location(label), "the file holds no annotation"))
    if issues:
        raise ImportValidationError(issues)
    return lines
