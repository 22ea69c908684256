"""Place a workbook's segments on a system's outputs, and its errors on spans of their texts.

A segment is placed by its summary text (the Target, white space normalised) among the
system's outputs; the ID only helps: an ID that is a document's id (or starts with one and a
``-``, as Loupe's export writes them), or ``<trial>-<n>`` as in the release's workbooks, names
the document to prefer when several documents share the text, and a placement on another
document than the ID suggests is reported. (BART's workbook has IDs ``0-10`` ... ``149-10``
that are trials, and ``b0-10`` ... ``b383-10`` that are not: by their Targets they are trials
95 to 144 in reverse order. Its Source cells can hold a neighbouring trial's article, says
PROVENANCE.md, so neither the ID nor the Source decides.)

A Target that matches no summary exactly (white space aside, then case and PTB brackets aside)
is placed on the one summary whose words overlap it by at least ``FUZZY_MIN`` (Dice over word
counts), if that one is clear, and reported. Similar is not enough to tell the system, though:
BART copies Lead-3 closely, and 7 of the Targets of BART's workbook are within 0.9 of a Lead-3
summary. So unless at least half of the segments match exactly, the workbook is refused as
another system's (or dataset's).

An error's issue words become a span when they occur exactly once (at word boundaries, white
space matched loosely) in the summary, or for an Omission in the source; otherwise the error
keeps its words without a span (side ``none``). Span columns of a Loupe export are used as
they are when they still point at the words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from annotation.imports.bundle import Issue, Location, ReportLine
from scoring.metrics.spans import (
    SIDE_NONE,
    SIDE_SOURCE,
    SIDE_SUMMARY,
    SpanSchemeError,
    scheme_get,
    validate_errors,
)

from .parser import ParsedWorkbook, RowError, SegmentGroup, normalize_space
from .reader import ERROR_LOG

FUZZY_MIN = 0.9
FUZZY_MARGIN = 0.02
_TRIAL_ID = re.compile(r"(\d+)-\d+")
# PTB bracket and quote tokens, read as the characters they stand for when texts are compared.
_PTB = {"-lrb-": "(", "-rrb-": ")", "-lsb-": "[", "-rsb-": "]", "-lcb-": "{", "-rcb-": "}"}
_PTB.update({"``": '"', "''": '"'})


def loose_text(text: str) -> str:
    """``text`` compared loosely: white space, case and PTB brackets (``-lrb-``...) aside."""
    return " ".join(_PTB.get(token.casefold(), token) for token in text.split()).casefold()


@dataclass(frozen=True)
class Candidate:
    """One output a segment may be placed on (plain data from the database)."""

    output_id: int
    document: str
    trial: int | None
    version: int
    summary: str
    source: str | None


@dataclass(frozen=True)
class PlacedSegment:
    """A segment placed on an output, with its errors as the scheme accepted them."""

    segment: str
    output_id: int
    document: str
    summary: str
    errors: tuple[dict, ...]
    no_errors: bool
    annotator: str = ""


@dataclass(frozen=True)
class Placement:
    """Where every segment went, what was reported, and the problems that refuse the import."""

    placed: tuple[PlacedSegment, ...]
    report: tuple[ReportLine, ...]
    issues: tuple[Issue, ...]
    unplaced: int


def find_span(text: str, words: str) -> tuple[int, int] | None:
    """Where ``words`` occur in ``text``, if exactly once.

    Args:
        text: the summary or source (sentences joined by one space).
        words: the issue words; any run of white space in them matches any run in ``text``.

    Returns:
        ``(start, end)`` of the only occurrence that starts and ends at word boundaries, or
        None when there is none or more than one.
    """
    tokens = words.split()
    if not tokens:
        return None
    pattern = r"\s+".join(map(re.escape, tokens))
    if re.match(r"\w", tokens[0]):
        pattern = r"(?<!\w)" + pattern
    if re.search(r"\w$", tokens[-1]):
        pattern += r"(?!\w)"
    found = [match.span() for match in re.finditer(pattern, text)]
    return found[0] if len(found) == 1 else None


def _overlap(first: str, second: str) -> float:
    a, b = Counter(first.casefold().split()), Counter(second.casefold().split())
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def _trial(candidate: Candidate) -> str:
    return f"trial {candidate.trial}" if candidate.trial is not None else candidate.document


class _Placer:
    def __init__(self, candidates: Sequence[Candidate]):
        self.report: list[ReportLine] = []
        self.issues: list[Issue] = []
        self.by_text: dict[str, list[Candidate]] = {}
        self.by_loose: dict[str, list[Candidate]] = {}
        self.exact = 0
        self.loose: list[str] = []
        self.by_document: dict[str, list[Candidate]] = {}
        self.by_trial: dict[int, str] = {}
        for candidate in candidates:
            self.by_text.setdefault(normalize_space(candidate.summary), []).append(candidate)
            self.by_loose.setdefault(loose_text(candidate.summary), []).append(candidate)
            self.by_document.setdefault(candidate.document, []).append(candidate)
            if candidate.trial is not None:
                self.by_trial.setdefault(candidate.trial, candidate.document)
        self.candidates = list(candidates)

    def hint(self, segment: str) -> str | None:
        """The document the ID names, if it names one."""
        if segment in self.by_document:
            return segment
        for index in (i for i, character in enumerate(segment) if character == "-"):
            if segment[:index] in self.by_document:
                return segment[:index]
        match = _TRIAL_ID.fullmatch(segment)
        return self.by_trial.get(int(match.group(1))) if match else None

    @staticmethod
    def latest(candidates: list[Candidate]) -> Candidate:
        return max(candidates, key=lambda candidate: candidate.version)

    def choose(self, group: SegmentGroup) -> Candidate | None:
        hinted = self.hint(group.id)
        same = self.by_text.get(group.target, [])
        if not same:
            same = self.by_loose.get(loose_text(group.target), [])
            if same:
                self.loose.append(group.id)
        documents = sorted({candidate.document for candidate in same})
        if documents:
            self.exact += 1
        if len(documents) > 1:
            by_source = [
                d
                for d in documents
                if normalize_space(self.by_document[d][0].source or "") == group.source
            ]
            pick = hinted if hinted in documents else by_source[0] if len(by_source) == 1 else None
            if pick is None:
                self.report.append(
                    ReportLine(
                        group.location,
                        f"the Target is the summary of {len(documents)} documents "
                        f"({', '.join(documents[:5])}); neither the ID nor the Source says "
                        "which: not placed, not stored, not counted",
                    )
                )
                return None
            return self.latest([c for c in same if c.document == pick])
        if documents:
            chosen = self.latest(same)
        else:
            chosen = self.fuzzy(group, hinted)
            if chosen is None:
                return None
        if hinted is not None and chosen.document != hinted:
            wanted = self.by_document[hinted][0]
            self.report.append(
                ReportLine(
                    group.location,
                    f"placed by its Target on {_trial(chosen)}; the ID suggests {_trial(wanted)}",
                )
            )
        return chosen

    def fuzzy(self, group: SegmentGroup, hinted: str | None) -> Candidate | None:
        scored = sorted(
            ((_overlap(group.target, c.summary), c) for c in self.candidates),
            key=lambda pair: -pair[0],
        )
        if hinted is not None:
            for value, candidate in scored:
                if candidate.document == hinted and value >= FUZZY_MIN:
                    self.fuzzy_note(group, candidate, value)
                    return candidate
        if not scored or scored[0][0] < FUZZY_MIN:
            best = (
                f" (best word overlap {scored[0][0]:.2f}, {_trial(scored[0][1])})" if scored else ""
            )
            self.report.append(
                ReportLine(
                    group.location,
                    f"the Target matches no summary of the system{best}: not placed, not "
                    "stored, not counted",
                )
            )
            return None
        value, candidate = scored[0]
        rival = next((v for v, c in scored if c.document != candidate.document), 0.0)
        if value - rival < FUZZY_MARGIN:
            self.report.append(
                ReportLine(
                    group.location,
                    f"the Target is as close to two summaries (word overlap {value:.2f} and "
                    f"{rival:.2f}): not placed, not stored, not counted",
                )
            )
            return None
        self.fuzzy_note(group, candidate, value)
        return candidate

    def fuzzy_note(self, group: SegmentGroup, candidate: Candidate, value: float) -> None:
        self.report.append(
            ReportLine(
                group.location,
                f"the Target differs from the stored summary (word overlap {value:.2f}); "
                f"placed on {_trial(candidate)}, whose stored text is kept",
            )
        )


def _raw_error(error: RowError, candidate: Candidate, report: list[ReportLine], segment: str):
    omission = error.subtype == "Omission"
    side = SIDE_SOURCE if omission else SIDE_SUMMARY
    text = candidate.source if omission else candidate.summary
    base = {"type": error.subtype, "label": error.label, "reason": error.reason}
    if error.side == SIDE_NONE:
        return {**base, "side": SIDE_NONE, "words": error.words}
    if error.side in (SIDE_SUMMARY, SIDE_SOURCE):
        given = candidate.source if error.side == SIDE_SOURCE else candidate.summary
        if given is not None and 0 <= error.start < error.end <= len(given):
            if given[error.start : error.end] == error.words:
                return {**base, "side": error.side, "start": error.start, "end": error.end}
        report.append(
            ReportLine(
                Location(ERROR_LOG, error.row, f"ID {segment}"),
                f"Span {error.side} [{error.start}, {error.end}) does not hold the Issue Words; "
                "the span is looked for by the words",
            )
        )
    span = find_span(text, error.words) if text is not None else None
    if span is None:
        return {**base, "side": SIDE_NONE, "words": error.words}
    start, end = span
    return {**base, "side": side, "start": start, "end": end, "words": text[start:end]}


def _errors(group: SegmentGroup, candidate: Candidate, report: list[ReportLine]) -> list[dict]:
    raws: list[dict] = []
    seen: dict[tuple, int] = {}
    for error in group.errors:
        raw = _raw_error(error, candidate, report, group.id)
        key = (raw["side"], raw.get("start"), raw.get("end"), raw["type"], raw["label"])
        if raw["side"] != SIDE_NONE and key in seen:
            report.append(
                ReportLine(
                    Location(ERROR_LOG, error.row, f"ID {group.id}"),
                    f"repeats row {seen[key]}'s error on the same span; kept without a span",
                )
            )
            raw = {**raw, "side": SIDE_NONE, "start": None, "end": None}
        seen.setdefault(key, error.row)
        raws.append(raw)
    return raws


def place_segments(parsed: ParsedWorkbook, candidates: Sequence[Candidate]) -> Placement:
    """Place every segment of ``parsed`` on one of ``candidates`` and build its errors.

    Args:
        parsed: the workbook's segments.
        candidates: every output of the imported system on the dataset (all versions; the
            latest one is taken when several versions hold the text).

    Returns:
        The :class:`Placement`. Segments that cannot be placed are reported, not refused;
        its ``issues`` refuse the import: two IDs on one output, no segment placed at all,
        an error the PolyTope scheme refuses.
    """
    placer = _Placer(candidates)
    scheme = scheme_get("polytope")
    if not parsed.groups:
        placer.issues.append(
            Issue(
                Location(parsed.name),
                "the Error Log holds no segment to import (no row with an ID)",
            )
        )
    placed: list[PlacedSegment] = []
    owner: dict[int, SegmentGroup] = {}
    unplaced = 0
    for group in parsed.groups:
        candidate = placer.choose(group)
        if candidate is None:
            unplaced += 1
            continue
        if candidate.output_id in owner:
            first = owner[candidate.output_id]
            placer.issues.append(
                Issue(
                    group.location,
                    f"holds the same summary ({_trial(candidate)}) as ID {first.id} (row "
                    f"{first.first_row}); one output takes one annotation: remove one of them",
                )
            )
            continue
        owner[candidate.output_id] = group
        raws = _errors(group, candidate, placer.report)
        try:
            marked = validate_errors(
                scheme, raws, summary=candidate.summary, source=candidate.source
            )
        except SpanSchemeError as error:
            placer.issues.append(Issue(group.location, str(error)))
            continue
        placed.append(
            PlacedSegment(
                segment=group.id,
                output_id=candidate.output_id,
                document=candidate.document,
                summary=candidate.summary,
                errors=tuple(error.as_dict() for error in marked),
                no_errors=group.no_errors,
                annotator=group.annotator,
            )
        )
    n_groups = len(parsed.groups)
    if n_groups and placer.exact * 2 < n_groups:
        placer.issues.append(
            Issue(
                Location(parsed.name),
                f"the Target of only {placer.exact} of its {n_groups} segment(s) is a summary "
                "of the system on this dataset (white space, case and PTB brackets aside): is "
                "it the workbook of another system or dataset?",
            )
        )
    if placer.loose:
        listed = ", ".join(placer.loose[:10]) + (
            f" and {len(placer.loose) - 10} more" if len(placer.loose) > 10 else ""
        )
        placer.report.append(
            ReportLine(
                Location(ERROR_LOG, None, "Target"),
                f"{len(placer.loose)} segment(s) match their summary only with case and PTB "
                f"brackets (-lrb- ...) aside: {listed}",
            )
        )
    return Placement(
        placed=tuple(placed),
        report=tuple(placer.report),
        issues=tuple(placer.issues),
        unplaced=unplaced,
    )
