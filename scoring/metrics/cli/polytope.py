"""``polytope``: PolyTope segment scores and the pooled system score from JSON Lines files."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from ..polytope import (
    DuplicateExpectedSegmentError,
    DuplicateSegmentError,
    Issue,
    Label,
    MissingSegmentsError,
    NoSegmentsError,
    PolyTopeError,
    PolytopeSystemScore,
    Segment,
    Subtype,
    UnexpectedSegmentError,
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

EXPECTED.jsonl (optional, --expected), one JSON object per segment the system should cover;
only "segment" is read, so a reference SEGMENTS.jsonl or a documents file will do:
  {{"segment": "doc-1"}}
  {{"segment": "doc-2"}}

Coverage: a segment is *missing* when it is in EXPECTED.jsonl but has no line in
SEGMENTS.jsonl (the system has no summary for it, or nobody annotated it). A line in
SEGMENTS.jsonl with no error line is not missing: it says the summary was annotated and found
clean, so list a segment in SEGMENTS.jsonl only once it has been annotated. Missing segments
are an error naming them, unless --allow-partial: then the system is scored on the segments it
has and the output reports the coverage. A segment of SEGMENTS.jsonl that is not in
EXPECTED.jsonl is an error. Without --expected, SEGMENTS.jsonl is taken as the full set, so
coverage is complete by construction: nothing can be found missing.

Output: JSON {{"system": {{score, words, penalty, segments, clean_segments, errors,
severity_counts, aspect_counts, breakdown, coverage: {{scored, expected, ratio, missing}}}},
"segments": [{{segment, words, critical, major, minor, penalty, score}}, ...]}}; --table
prints one row per segment, a system row and a coverage row. The system figures are over the
scored segments only.
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
    parser.add_argument(
        "--expected",
        type=Path,
        metavar="EXPECTED.jsonl",
        help="every segment the system should cover, one per line (checks coverage)",
    )
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="with --expected: score the segments there are instead of failing, and report "
        "the coverage",
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


def read_expected(path: Path) -> tuple[list[str], list[int]]:
    """Read EXPECTED.jsonl: the ``"segment"`` of each line (other fields are ignored).

    Args:
        path: the file.

    Returns:
        The expected segment ids and, for each, its line number.

    Raises:
        CliError: unreadable file, or a line without a string or integer ``"segment"``
            (naming file and line).
    """
    expected, lines = [], []
    for line, record in read_jsonl(path):
        expected.append(str(_field(path, line, record, "segment", (str, int))))
        lines.append(line)
    return expected, lines


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


def score_files(
    errors: Path,
    segments: Path,
    expected: Path | None = None,
    *,
    allow_partial: bool = False,
) -> PolytopeSystemScore:
    """Read the files and score the system.

    Args:
        errors: ERRORS.jsonl.
        segments: SEGMENTS.jsonl.
        expected: EXPECTED.jsonl, or ``None``: the segments of SEGMENTS.jsonl are the
            expected ones.
        allow_partial: accept expected segments missing from SEGMENTS.jsonl, and report them.

    Returns:
        The :class:`PolytopeSystemScore`, with its coverage.

    Raises:
        CliError: any bad input, naming the file and line; missing segments without
            ``allow_partial``, naming them.
    """
    if allow_partial and expected is None:
        raise CliError("--allow-partial needs --expected (without it nothing can be missing)")
    segment_list, segment_lines = read_segments(segments)
    issues, issue_lines = read_errors(errors)
    expected_list, expected_lines = (None, []) if expected is None else read_expected(expected)
    try:
        return score_system(
            segment_list, issues, expected=expected_list, allow_partial=allow_partial
        )
    except DuplicateExpectedSegmentError as error:
        first = expected_lines[error.first]
        raise CliError(
            f"{expected}:{expected_lines[error.index]}: duplicate segment {error.segment!r} "
            f"(first on line {first})"
        ) from None
    except NoSegmentsError as error:
        raise CliError(f"{expected if expected_list == [] else segments}: {error}") from None
    except DuplicateSegmentError as error:
        first = segment_lines[error.first]
        raise CliError(
            f"{segments}:{segment_lines[error.index]}: duplicate segment {error.segment!r} "
            f"(first on line {first})"
        ) from None
    except UnexpectedSegmentError as error:
        line = segment_lines[error.index]
        raise CliError(f"{segments}:{line}: {error} (expected segments: {expected})") from None
    except MissingSegmentsError as error:
        raise CliError(f"{segments}: {error} (expected segments: {expected})") from None
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
    result = score_files(
        args.errors, args.segments, args.expected, allow_partial=args.allow_partial
    )
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
    rows.append(["(coverage)", f"{result.n_scored}/{result.n_expected}", *[""] * 5])
    segments = [s.as_dict() for s in result.segments]
    return Output(records=[{"system": system, "segments": segments}], table=[header, *rows])
