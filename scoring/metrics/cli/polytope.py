"""``polytope``: PolyTope segment scores and the pooled system score from JSON Lines files."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from ..polytope import (
    DuplicateSegmentError,
    Issue,
    Label,
    NoSegmentsError,
    PolyTopeError,
    Segment,
    Subtype,
    SystemScore,
    UnknownSegmentError,
    score_system,
)
from .base import CliError, Output, fmt, read_jsonl

DESCRIPTION = """\
PolyTope (Huang et al. 2020): score system summaries from annotated errors.

Each error's severity comes from the official severity matrix (subtype x label; N/A
combinations are refused), weighted MINOR 0.5, MAJOR 2.5, CRITICAL 5. A summary's words are
its whitespace tokens holding a letter or digit. Segment score = (1 - sum of weights / words)
* 100. System score = (1 - all weights / all words) * 100, pooled over words.
"""

EPILOG = f"""\
ERRORS.jsonl, one JSON object per error (an empty file means no error anywhere):
  {{"segment": "doc-1", "subtype": "Omission", "label": "Whole Sentence"}}
  {{"segment": "doc-1", "subtype": "Inaccuracy Intrinsic", "label": "Number & Time"}}

SEGMENTS.jsonl, one JSON object per summary, every segment of the system once:
  {{"segment": "doc-1", "summary": "the system's summary of doc-1 ."}}
  {{"segment": "doc-2", "summary": "a summary no error refers to is clean ."}}

"segment" is a string or an integer. A segment with no error line ("No errors") counts its
words with weight 0.
{textwrap.fill("Subtypes: " + ", ".join(s.value for s in Subtype) + ".", 92)}
{textwrap.fill("Labels: " + ", ".join(label.value for label in Label) + ".", 92)}
Names are case-insensitive; the workbooks' spellings (Inaccuracy_internal, Event
Entity-Subject, Number&Time, Grammar Function Words, ...) are accepted too.

Output: JSON {{"system": {{score, words, penalty, segments, clean_segments, errors,
severity_counts, aspect_counts, breakdown}}, "segments": [{{segment, words, critical, major,
minor, penalty, score}}, ...]}}; --table prints one row per segment and a system row.
"""


def register(subparsers, parent: argparse.ArgumentParser) -> None:
    """Add the ``polytope`` sub-command.

    Args:
        subparsers: the top-level parser's sub-parsers.
        parent: the shared parent parser (``--table``).
    """
    parser = subparsers.add_parser(
        "polytope",
        parents=[parent],
        help="PolyTope segment and system scores from annotated errors",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--errors", required=True, type=Path, metavar="ERRORS.jsonl", help="one error per line"
    )
    parser.add_argument(
        "--segments",
        required=True,
        type=Path,
        metavar="SEGMENTS.jsonl",
        help="one summary per line",
    )
    parser.set_defaults(run=run)


def _field(path: Path, line: int, record: dict, name: str, kinds: tuple[type, ...]) -> object:
    if name not in record:
        raise CliError(f"{path}:{line}: missing field {name!r}")
    value = record[name]
    if isinstance(value, bool) or not isinstance(value, kinds):
        wanted = " or ".join(kind.__name__ for kind in kinds)
        raise CliError(f"{path}:{line}: field {name!r} must be {wanted}, got {value!r}")
    return value


def read_segments(path: Path) -> tuple[list[Segment], list[int]]:
    """Read SEGMENTS.jsonl.

    Args:
        path: the file.

    Returns:
        The segments and, for each, its line number.

    Raises:
        CliError: unreadable file, bad line, or an empty summary (naming file and line).
    """
    segments, lines = [], []
    for line, record in read_jsonl(path):
        segment = str(_field(path, line, record, "segment", (str, int)))
        summary = _field(path, line, record, "summary", (str,))
        try:
            segments.append(Segment(segment, summary))
        except PolyTopeError as error:
            raise CliError(f"{path}:{line}: {error}") from None
        lines.append(line)
    return segments, lines


def read_errors(path: Path) -> tuple[list[Issue], list[int]]:
    """Read ERRORS.jsonl.

    Args:
        path: the file.

    Returns:
        The issues and, for each, its line number.

    Raises:
        CliError: unreadable file, bad line, unknown subtype or label, or a combination that
            is not allowed (naming file and line).
    """
    issues, lines = [], []
    for line, record in read_jsonl(path):
        segment = str(_field(path, line, record, "segment", (str, int)))
        subtype = _field(path, line, record, "subtype", (str,))
        label = _field(path, line, record, "label", (str,))
        try:
            issues.append(Issue(segment, subtype, label))
        except PolyTopeError as error:
            raise CliError(f"{path}:{line}: segment {segment!r}: {error}") from None
        lines.append(line)
    return issues, lines


def score_files(errors: Path, segments: Path) -> SystemScore:
    """Read both files and score the system.

    Args:
        errors: ERRORS.jsonl.
        segments: SEGMENTS.jsonl.

    Returns:
        The :class:`SystemScore`.

    Raises:
        CliError: any bad input, naming the file and line.
    """
    segment_list, segment_lines = read_segments(segments)
    issues, issue_lines = read_errors(errors)
    try:
        return score_system(segment_list, issues)
    except NoSegmentsError as error:
        raise CliError(f"{segments}: {error}") from None
    except DuplicateSegmentError as error:
        first = segment_lines[error.first]
        raise CliError(
            f"{segments}:{segment_lines[error.index]}: duplicate segment {error.segment!r} "
            f"(first on line {first})"
        ) from None
    except UnknownSegmentError as error:
        raise CliError(
            f"{errors}:{issue_lines[error.index]}: error refers to unknown segment "
            f"{error.segment!r} (not in {segments})"
        ) from None


def run(args: argparse.Namespace) -> Output:
    """Score the files named by ``--errors`` and ``--segments``.

    Args:
        args: the parsed arguments.

    Returns:
        One JSON document ``{"system": ..., "segments": [...]}`` and its table form.

    Raises:
        CliError: bad input.
    """
    result = score_files(args.errors, args.segments)
    system = result.as_dict()
    header = ["segment", "words", "critical", "major", "minor", "penalty", "score"]
    rows = [
        [s.segment, str(s.words), str(s.critical), str(s.major), str(s.minor)]
        + [fmt(s.penalty, 1), fmt(s.score, 3)]
        for s in result.segments
    ]
    counts = system["severity_counts"]
    rows.append(
        ["(system)", str(result.words), str(counts["critical"]), str(counts["major"])]
        + [str(counts["minor"]), fmt(result.penalty, 1), fmt(result.score, 3)]
    )
    segments = [s.as_dict() for s in result.segments]
    return Output(records=[{"system": system, "segments": segments}], table=[header, *rows])
