"""Place a workbook's segments on a system's outputs, and its errors on spans of their Targets.

The annotators judged the workbook's Target, which is not always the release's text of the same
summary: the release cuts TextRank's outputs at a word budget mid-sentence while the Target stops
at the last whole sentence; elsewhere the annotators' text differs in a few words. So a segment
is placed on the output whose stored summary its Target (white space normalised) is

1. **equal** to, or equal with case and PTB brackets (``-lrb-``...) aside (``loose``);
2. a **prefix** of (the release's text runs on past the Target), or **longer** than (the stored
   summary is a prefix of the Target), comparing words loosely; at least ``PREFIX_MIN_WORDS``;
3. otherwise, once every segment of steps 1-2 has its output, **different**: the free output
   whose words overlap the Target most (Dice over word counts), when that is clear by
   ``FUZZY_MARGIN`` (the Source breaks a tie) and at least ``FLOOR``; the document the ID
   names is preferred when it is about as close.

The Target is what was annotated: whenever it is not the stored text it is kept beside the
output (``PlacedSegment.annotated_text``), the errors' spans index it and PolyTope counts its
words, as the sheet does. Each such segment is reported with how it differs.

An ID that is a document's id (or starts with one and a ``-``, as Loupe's export writes them),
or ``<trial>-<n>`` as in the release's workbooks, names the document to prefer when several
documents share the text, and a placement on another document than the ID suggests is
reported. (BART's workbook has IDs ``0-10`` ... ``149-10`` that are trials, and ``b0-10`` ...
``b383-10`` that are not: by their Targets they are trials 95 to 144 in reverse order. Its
Source cells can hold a neighbouring trial's article, says PROVENANCE.md, so neither the ID nor
the Source decides.)

A workbook is refused as another system's (or dataset's) unless at least half of its Targets
are equal to, a prefix of, longer than or close to (overlap ``FUZZY_MIN``) one of the system's
summaries. Similar is not enough to tell the system: BART copies Lead-3 closely, and 55 of the
68 Targets of BART's workbook overlap a Lead-3 summary by 0.5 or more, 6 by 0.9 or more.

An error's issue words become a span when they occur exactly once (at word boundaries, white
space matched loosely) in the Target, or for an Omission in the source; otherwise the error
keeps its words without a span (side ``none``). Span columns of a Loupe export are used as
they are when they still point at the words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from annotation.imports.bundle import Issue, Location, ReportLine
from scoring.metrics.polytope import count_words
from scoring.metrics.spans import (
    SIDE_NONE,
    SIDE_SOURCE,
    SIDE_SUMMARY,
    SpanSchemeError,
    scheme_get,
    validate_errors,
)

from .parser import ParsedWorkbook, RowError, SegmentGroup, normalize_space
from .reader import ERROR_LOG, SEGMENT_SCORES

FUZZY_MIN = 0.9
FUZZY_MARGIN = 0.02
FLOOR = 0.25
HINT_MARGIN = 0.1
PREFIX_MIN_WORDS = 3
# How a Target relates to the stored summary of the output it is placed on.
EQUAL, LOOSE, PREFIX, LONGER, DIFFERENT = "equal", "loose", "prefix", "longer", "different"
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
    """A segment placed on an output, with its errors as the scheme accepted them.

    ``summary`` is the text annotated (the Target), which the errors' offsets index and whose
    words are counted; ``annotated_text`` is the same text when it is not the stored output's
    (empty when they are equal), and ``relation`` says how the two relate.
    """

    segment: str
    output_id: int
    document: str
    summary: str
    errors: tuple[dict, ...]
    no_errors: bool
    annotator: str = ""
    annotated_text: str = ""
    relation: str = EQUAL


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


def word_overlap(first: str, second: str) -> float:
    """Dice coefficient over the two texts' word counts (case aside), in [0, 1].

    Args:
        first: a text.
        second: another text.

    Returns:
        ``2 * shared words / all words``; 0.0 when both are empty.
    """
    a, b = Counter(first.casefold().split()), Counter(second.casefold().split())
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def _trial(candidate: Candidate) -> str:
    return f"trial {candidate.trial}" if candidate.trial is not None else candidate.document


@dataclass(frozen=True)
class _Match:
    candidate: Candidate
    relation: str
    overlap: float = 1.0


class _Placer:
    def __init__(self, candidates: Sequence[Candidate]):
        self.report: list[ReportLine] = []
        self.issues: list[Issue] = []
        self.by_text: dict[str, list[Candidate]] = {}
        self.by_loose: dict[str, list[Candidate]] = {}
        self.by_document: dict[str, list[Candidate]] = {}
        self.by_trial: dict[int, str] = {}
        self.words: dict[int, list[str]] = {}
        for candidate in candidates:
            self.by_text.setdefault(normalize_space(candidate.summary), []).append(candidate)
            loose = loose_text(candidate.summary)
            self.by_loose.setdefault(loose, []).append(candidate)
            self.words[candidate.output_id] = loose.split()
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

    def same_words(self, group: SegmentGroup) -> tuple[str, list[Candidate]]:
        """The outputs whose stored summary the Target is (equal, loose), or is a prefix of
        or runs on past (``PREFIX_MIN_WORDS`` words at least), with the relation."""
        same = self.by_text.get(group.target, [])
        if same:
            return EQUAL, same
        same = self.by_loose.get(loose_text(group.target), [])
        if same:
            return LOOSE, same
        target = loose_text(group.target).split()
        for relation, holds in (
            (PREFIX, lambda stored: len(stored) > len(target) and stored[: len(target)] == target),
            (LONGER, lambda stored: len(target) > len(stored) and target[: len(stored)] == stored),
        ):
            same = [
                c
                for c in self.candidates
                if min(len(target), len(self.words[c.output_id])) >= PREFIX_MIN_WORDS
                and holds(self.words[c.output_id])
            ]
            if same:
                return relation, same
        return DIFFERENT, []

    def by_words(self, group: SegmentGroup) -> _Match | None:
        """Step 1-2: the output the Target's words name, or None (refused, or step 3)."""
        relation, same = self.same_words(group)
        documents = sorted({candidate.document for candidate in same})
        if not documents:
            return None
        hinted = self.hint(group.id)
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
                        f"the Target is {_RELATION_TEXT[relation]} the summary of "
                        f"{len(documents)} documents ({', '.join(documents[:5])}); neither the "
                        "ID nor the Source says which: not placed, not stored, not counted",
                    )
                )
                return _UNPLACEABLE
            same = [c for c in same if c.document == pick]
        chosen = self.latest(same)
        self.hint_note(group, chosen, hinted)
        return _Match(chosen, relation)

    def hint_note(self, group: SegmentGroup, chosen: Candidate, hinted: str | None) -> None:
        if hinted is not None and chosen.document != hinted:
            wanted = self.by_document[hinted][0]
            self.report.append(
                ReportLine(
                    group.location,
                    f"placed by its Target on {_trial(chosen)}; the ID suggests {_trial(wanted)}",
                )
            )

    def by_overlap(self, group: SegmentGroup, taken: set[str]) -> _Match | None:
        """Step 3: the free output closest to the Target, or None (reported)."""
        free = [c for c in self.candidates if c.document not in taken]
        scored = sorted(
            ((word_overlap(group.target, c.summary), c) for c in free), key=lambda p: -p[0]
        )
        hinted = self.hint(group.id)
        best = scored[0][0] if scored else 0.0
        for value, candidate in scored:
            if candidate.document == hinted and value >= FLOOR and value >= best - HINT_MARGIN:
                return _Match(self.latest(self.by_document[hinted]), DIFFERENT, value)
        if best < FLOOR:
            where = f" (best word overlap {best:.2f}, {_trial(scored[0][1])})" if scored else ""
            self.report.append(
                ReportLine(
                    group.location,
                    f"the Target matches no summary of the system{where}: not placed, not "
                    "stored, not counted",
                )
            )
            return None
        value, candidate = scored[0]
        rivals = [
            c for v, c in scored if c.document != candidate.document and best - v < FUZZY_MARGIN
        ]
        if rivals:
            tied = [candidate, *rivals]
            by_source = [c for c in tied if normalize_space(c.source or "") == group.source]
            if len(by_source) != 1:
                self.report.append(
                    ReportLine(
                        group.location,
                        f"the Target is as close to {_trial(candidate)} as to "
                        f"{_trial(rivals[0])} (word overlap {value:.2f}), and the Source does "
                        "not say which: not placed, not stored, not counted",
                    )
                )
                return None
            candidate = by_source[0]
        chosen = self.latest(self.by_document[candidate.document])
        self.hint_note(group, chosen, hinted)
        return _Match(chosen, DIFFERENT, value)


_UNPLACEABLE = _Match(Candidate(0, "", None, 0, "", None), DIFFERENT, 0.0)
_RELATION_TEXT = {
    EQUAL: "equal to",
    LOOSE: "equal (case and PTB brackets aside) to",
    PREFIX: "a prefix of",
    LONGER: "longer than",
}


def _difference_note(group: SegmentGroup, match: _Match) -> ReportLine | None:
    """The report line of a segment whose Target is not the stored text, saying how."""
    stored, target = match.candidate.summary.split(), group.target.split()
    where = _trial(match.candidate)
    if match.relation == PREFIX:
        how = (
            f"is the first {len(target)} of the {len(stored)} words of the stored summary of "
            f"{where} (the release's text runs on)"
        )
    elif match.relation == LONGER:
        how = (
            f"runs on past the stored summary of {where} ({len(target)} words against "
            f"{len(stored)})"
        )
    elif match.relation == DIFFERENT:
        how = f"differs from the stored summary of {where} (word overlap {match.overlap:.2f})"
    else:
        return None
    return ReportLine(
        group.location,
        f"the Target {how}; the Target is kept as the annotated text: its spans and its "
        "words count",
    )


def _raw_error(error: RowError, summary: str, source: str | None, report, segment: str):
    omission = error.subtype == "Omission"
    side = SIDE_SOURCE if omission else SIDE_SUMMARY
    text = source if omission else summary
    base = {"type": error.subtype, "label": error.label, "reason": error.reason}
    if error.side == SIDE_NONE:
        return {**base, "side": SIDE_NONE, "words": error.words}
    if error.side in (SIDE_SUMMARY, SIDE_SOURCE):
        given = source if error.side == SIDE_SOURCE else summary
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


def _errors(group: SegmentGroup, source: str | None, report: list[ReportLine]) -> list[dict]:
    raws: list[dict] = []
    seen: dict[tuple, int] = {}
    for error in group.errors:
        raw = _raw_error(error, group.target, source, report, group.id)
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


def _listed(ids: Sequence[str]) -> str:
    more = f" and {len(ids) - 10} more" if len(ids) > 10 else ""
    return ", ".join(ids[:10]) + more


def _relations_line(matches: dict[str, _Match], n_groups: int) -> ReportLine | None:
    """One line counting the Targets by how they relate to the stored summaries."""
    counts = Counter(match.relation for match in matches.values())
    if counts[EQUAL] == n_groups:
        return None
    overlaps = sorted(m.overlap for m in matches.values() if m.relation == DIFFERENT)
    spread = (
        f"{overlaps[0]:.2f}" + (f"-{overlaps[-1]:.2f}" if len(overlaps) > 1 else "")
        if overlaps
        else ""
    )
    described = {
        EQUAL: "equal",
        LOOSE: "equal with case and PTB brackets aside",
        PREFIX: "a prefix of it (the release's text runs on)",
        LONGER: "longer than it",
        DIFFERENT: f"different (word overlap {spread})",
    }
    parts = [f"{counts[r]} {described[r]}" for r in described if counts[r]]
    if n_groups > len(matches):
        parts.append(f"{n_groups - len(matches)} not placed")
    return ReportLine(
        Location(ERROR_LOG, None, "Target"),
        f"the {n_groups} Targets against the stored summaries: {', '.join(parts)}; where they "
        "differ, the Target (what the annotators judged) is kept, spanned and counted",
    )


def _sheet_lines(parsed: ParsedWorkbook, placed: Sequence[PlacedSegment]) -> list[ReportLine]:
    """Where what Loupe counts differs from what the sheet's ``Scores per segment`` cached (the
    IDs and word counts its ScoreCard pools over); nothing when that sheet lists no ID."""
    listed = parsed.segment_words
    if not listed:
        return []
    lines: list[ReportLine] = []
    for item in placed:
        group = next(g for g in parsed.groups if g.id == item.segment)
        cached, ours = listed.get(item.segment), count_words(item.summary)
        if cached is None:
            lines.append(
                ReportLine(
                    group.location,
                    f"{SEGMENT_SCORES!r} does not list this ID, so the ScoreCard leaves it "
                    f"out; Loupe counts it ({ours} words)",
                )
            )
        elif cached != ours:
            lines.append(
                ReportLine(
                    group.location,
                    f"the sheet counts {cached} words in the Target, Loupe {ours}",
                )
            )
    return lines


def place_segments(parsed: ParsedWorkbook, candidates: Sequence[Candidate]) -> Placement:
    """Place every segment of ``parsed`` on one of ``candidates`` and build its errors.

    Args:
        parsed: the workbook's segments.
        candidates: every output of the imported system on the dataset (all versions; the
            latest one is taken when several versions hold the text).

    Returns:
        The :class:`Placement`. Segments that cannot be placed are reported, not refused;
        its ``issues`` refuse the import: two IDs on one output, no segment placed at all,
        a workbook whose Targets are mostly not the system's summaries, an error the
        PolyTope scheme refuses.
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
    matches: dict[str, _Match] = {}
    owner: dict[str, SegmentGroup] = {}
    later: list[SegmentGroup] = []
    for group in parsed.groups:
        match = placer.by_words(group)
        if match is None:
            later.append(group)
        elif match is not _UNPLACEABLE:
            document = match.candidate.document
            if document in owner:
                first = owner[document]
                placer.issues.append(
                    Issue(
                        group.location,
                        f"holds the same summary ({_trial(match.candidate)}) as ID {first.id} "
                        f"(row {first.first_row}); one output takes one annotation: remove one "
                        "of them",
                    )
                )
                continue
            owner[document] = group
            matches[group.id] = match
    # Targets that are no stored summary take the free outputs, the closest pairs first.
    closest = {
        group.id: max((word_overlap(group.target, c.summary) for c in candidates), default=0.0)
        for group in later
    }
    for group in sorted(later, key=lambda g: -closest[g.id]):
        match = placer.by_overlap(group, set(owner))
        if match is not None:
            owner[match.candidate.document] = group
            matches[group.id] = match
    close = sum(1 for m in matches.values() if m.relation != DIFFERENT or m.overlap >= FUZZY_MIN)
    n_groups = len(parsed.groups)
    if n_groups and close * 2 < n_groups:
        placer.issues.append(
            Issue(
                Location(parsed.name),
                f"the Target of only {close} of its {n_groups} segment(s) is equal to, a prefix "
                f"of, longer than or close to (word overlap {FUZZY_MIN} or more) a summary of "
                "the system on this dataset: is it the workbook of another system or dataset?",
            )
        )
    placed: list[PlacedSegment] = []
    for group in parsed.groups:
        match = matches.get(group.id)
        if match is None:
            continue
        candidate = match.candidate
        note = _difference_note(group, match)
        if note is not None:
            placer.report.append(note)
        raws = _errors(group, candidate.source, placer.report)
        try:
            marked = validate_errors(scheme, raws, summary=group.target, source=candidate.source)
        except SpanSchemeError as error:
            placer.issues.append(Issue(group.location, str(error)))
            continue
        placed.append(
            PlacedSegment(
                segment=group.id,
                output_id=candidate.output_id,
                document=candidate.document,
                summary=group.target,
                errors=tuple(error.as_dict() for error in marked),
                no_errors=group.no_errors,
                annotator=group.annotator,
                annotated_text=""
                if group.target == normalize_space(candidate.summary)
                else group.target,
                relation=match.relation,
            )
        )
    loose = [
        group.id
        for group in parsed.groups
        if getattr(matches.get(group.id), "relation", None) == LOOSE
    ]
    if loose:
        placer.report.append(
            ReportLine(
                Location(ERROR_LOG, None, "Target"),
                f"{len(loose)} segment(s) match their summary only with case and PTB "
                f"brackets (-lrb- ...) aside: {_listed(loose)}",
            )
        )
    relations = _relations_line(matches, n_groups)
    if relations is not None:
        placer.report.append(relations)
    placer.report.extend(_sheet_lines(parsed, placed))
    return Placement(
        placed=tuple(placed),
        report=tuple(placer.report),
        issues=tuple(placer.issues),
        unplaced=n_groups - len(matches),
    )
