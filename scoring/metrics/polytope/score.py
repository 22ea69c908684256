"""PolyTope segment scores and the system score pooled over words (the workbook's LQI)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .breakdown import Breakdown, breakdown, severity_dict
from .errors import (
    DuplicateExpectedSegmentError,
    DuplicateSegmentError,
    MissingSegmentsError,
    NoSegmentsError,
    UnexpectedSegmentError,
    UnknownSegmentError,
)
from .model import Issue, Segment
from .severity import Severity


def penalty_of(critical: int, major: int, minor: int) -> float:
    """Sum of weights: 5 per critical, 2.5 per major and 0.5 per minor error.

    Args:
        critical: number of critical errors.
        major: number of major errors.
        minor: number of minor errors.

    Returns:
        The penalty, in words.

    Raises:
        Nothing.
    """
    return (
        critical * Severity.CRITICAL.weight
        + major * Severity.MAJOR.weight
        + minor * Severity.MINOR.weight
    )


def polytope_score(penalty: float, words: int) -> float:
    """``(1 - penalty / words) * 100``; negative when the penalty exceeds the word count.

    Args:
        penalty: sum of error weights.
        words: word count (of one segment, or pooled over a system).

    Returns:
        The score; 100 means no error.

    Raises:
        ValueError: ``words`` is not positive (callers name the segment before this).
    """
    if words <= 0:
        raise ValueError(f"word count must be positive, got {words}")
    # Same value as (1 - penalty / words) * 100, computed as 100 * (words - penalty) / words:
    # weights are multiples of 0.5, so the subtraction is exact and only the division rounds.
    return 100.0 * (words - penalty) / words


@dataclass(frozen=True)
class PolytopeSegmentScore:
    """The score of one summary, with its error counts per severity."""

    segment: str
    words: int
    critical: int = 0
    major: int = 0
    minor: int = 0

    @property
    def errors(self) -> int:
        """All errors in the segment (0 for a "No errors" segment)."""
        return self.critical + self.major + self.minor

    @property
    def penalty(self) -> float:
        """Sum of the segment's error weights."""
        return penalty_of(self.critical, self.major, self.minor)

    @property
    def score(self) -> float:
        """``(1 - penalty / words) * 100``."""
        return polytope_score(self.penalty, self.words)

    def as_dict(self) -> dict:
        """JSON-ready fields of the segment.

        Returns:
            ``{"segment", "words", "critical", "major", "minor", "penalty", "score"}``.

        Raises:
            ValueError: ``words`` is not positive (only for a hand-made
                :class:`PolytopeSegmentScore`;
                :func:`score_segment` takes its words from a checked :class:`Segment`).
        """
        return {
            "segment": self.segment,
            "words": self.words,
            "critical": self.critical,
            "major": self.major,
            "minor": self.minor,
            "penalty": self.penalty,
            "score": self.score,
        }


@dataclass(frozen=True)
class PolytopeSystemScore:
    """A system's segment scores, its error breakdown and its pooled score, with coverage.

    ``missing`` lists the expected segments that had no summary; it is empty unless the score
    was computed with ``allow_partial=True``. Every figure (words, penalty, score, breakdown) is
    over the scored segments only, so read it together with the coverage.

    Attributes:
        segments: the scored segments, in input order.
        breakdown: the error counts over the scored segments.
        missing: expected segments without a summary, in the expected order.
    """

    segments: tuple[PolytopeSegmentScore, ...]
    breakdown: Breakdown
    missing: tuple[str, ...] = ()

    @property
    def n_scored(self) -> int:
        """Segments scored."""
        return len(self.segments)

    @property
    def n_expected(self) -> int:
        """Segments expected: the scored ones and the missing ones."""
        return len(self.segments) + len(self.missing)

    @property
    def coverage(self) -> float:
        """``n_scored / n_expected``; 1.0 unless segments are missing."""
        return self.n_scored / self.n_expected

    @property
    def words(self) -> int:
        """Words over all segments, clean ones included."""
        return sum(s.words for s in self.segments)

    @property
    def penalty(self) -> float:
        """Sum of every error's weight."""
        return sum(s.penalty for s in self.segments)

    @property
    def score(self) -> float:
        """``(1 - total penalty / total words) * 100``: pooled over words, not a mean."""
        return polytope_score(self.penalty, self.words)

    def severity_counts(self) -> dict[Severity, int]:
        """Errors per severity over the scored segments.

        Returns:
            ``{Severity: n}`` for Critical, Major and Minor.

        Raises:
            Nothing.
        """
        return self.breakdown.by_severity()

    def ratio_terms(self) -> dict[str, tuple[float, int]]:
        """Each scored segment's ``(penalty, words)``: the terms of the pooled score.

        The system score is ``100 * (1 - sum(penalties) / sum(words))``, a ratio of sums, so
        its uncertainty comes from resampling segments and recomputing the ratio, not from
        bootstrapping the mean of segment scores. These terms feed
        :func:`scoring.metrics.stats.bootstrap_ratio_ci` and the paired ratio tests::

            terms = result.ratio_terms()
            penalties, words = zip(*terms.values())
            ci = bootstrap_ratio_ci(penalties, words)  # interval of penalty / words
            low, high = 100 * (1 - ci.high), 100 * (1 - ci.low)  # interval of the score
            paired_ratio_permutation_test(result.ratio_terms(), other.ratio_terms())

        A paired test's statistic is then ``ratio_a - ratio_b``, a difference of penalty
        rates: the difference of system scores is ``-100`` times it.

        Returns:
            segment id -> ``(penalty, words)``, in input order.

        Raises:
            Nothing.
        """
        return {s.segment: (s.penalty, s.words) for s in self.segments}

    def as_dict(self) -> dict:
        """JSON-ready system figures (without the per-segment list).

        Returns:
            ``{"score", "words", "penalty", "segments", "clean_segments", "errors",
            "severity_counts", "aspect_counts", "breakdown", "coverage"}``; ``coverage`` is
            ``{"scored": n, "expected": n, "ratio": r, "missing": [segment, ...]}``.

        Raises:
            Nothing for a result of :func:`score_system` (it always has a segment).
        """
        return {
            "score": self.score,
            "words": self.words,
            "penalty": self.penalty,
            "segments": len(self.segments),
            "clean_segments": sum(1 for s in self.segments if s.errors == 0),
            "errors": self.breakdown.total,
            "severity_counts": severity_dict(self.severity_counts()),
            "aspect_counts": {k.value: n for k, n in self.breakdown.by_aspect().items()},
            "breakdown": self.breakdown.as_dict()["matrix"],
            "coverage": {
                "scored": self.n_scored,
                "expected": self.n_expected,
                "ratio": self.coverage,
                "missing": list(self.missing),
            },
        }


def score_segment(segment: Segment, issues: Iterable[Issue]) -> PolytopeSegmentScore:
    """Score one segment from its issues.

    Args:
        segment: the summary.
        issues: its errors; none for a clean ("No errors") segment.

    Returns:
        The :class:`PolytopeSegmentScore`.

    Raises:
        UnknownSegmentError: an issue that belongs to another segment.
    """
    counts = dict.fromkeys(Severity, 0)
    for index, issue in enumerate(issues):
        if issue.segment != segment.id:
            raise UnknownSegmentError(issue.segment, index=index)
        counts[issue.severity] += 1
    return PolytopeSegmentScore(
        segment=segment.id,
        words=segment.words,
        critical=counts[Severity.CRITICAL],
        major=counts[Severity.MAJOR],
        minor=counts[Severity.MINOR],
    )


def _check_expected(expected: Sequence[str]) -> dict[str, int]:
    """Position of each expected segment id; refuses non-strings, repeats and an empty list."""
    if isinstance(expected, str):
        raise TypeError("expected must be a sequence of segment ids, not one string")
    position: dict[str, int] = {}
    for index, segment in enumerate(expected):
        if not isinstance(segment, str):
            raise TypeError(f"expected segment ids must be strings, got {segment!r}")
        if segment in position:
            raise DuplicateExpectedSegmentError(segment, index=index, first=position[segment])
        position[segment] = index
    if not position:
        raise NoSegmentsError("no segment is expected")
    return position


def score_system(
    segments: Iterable[Segment],
    issues: Iterable[Issue],
    *,
    expected: Sequence[str] | None = None,
    allow_partial: bool = False,
) -> PolytopeSystemScore:
    """Score a system: every segment, the breakdown and the pooled system score.

    With ``expected``, the segments are checked against it: an expected segment without a
    :class:`Segment` (the system has no summary for it, or it was not annotated) is *missing*.
    Missing segments are an error unless ``allow_partial=True``; then the system is scored on
    the segments it has and the result reports the coverage (``n_expected``, ``missing``). A
    segment that is given but no issue refers to is not missing: it is a clean ("No errors")
    segment. So give a segment only once it has been annotated.

    Args:
        segments: all the system's summaries, each id once; a segment no issue refers to is
            clean and counts its words with weight 0.
        issues: every annotated error; each must refer to one of ``segments``.
        expected: every segment id the system should be scored on, each once (e.g. every
            document of the benchmark). ``None`` (the default): the given segments are the
            expected ones, so coverage is complete by construction.
        allow_partial: accept missing segments instead of raising, and report them.

    Returns:
        The :class:`PolytopeSystemScore`, segments in input order.

    Raises:
        NoSegmentsError: no segment at all, an empty ``expected``, or (with ``allow_partial``)
            none of the expected segments given.
        DuplicateSegmentError: a segment id given twice (``index`` is the second position).
        DuplicateExpectedSegmentError: an id repeated in ``expected`` (positions in it).
        UnexpectedSegmentError: segments that are not in ``expected`` (``index`` is the first
            one's position); the error lists them all.
        MissingSegmentsError: expected segments without a summary, unless ``allow_partial``;
            the error names them and the coverage.
        UnknownSegmentError: an issue whose segment is not given (``index`` is its position).
        TypeError: ``expected`` is a string, or holds an id that is not a string.
    """
    segments = list(segments)
    issues = list(issues)
    wanted = None if expected is None else _check_expected(expected)
    if not segments and wanted is None:
        raise NoSegmentsError()
    position: dict[str, int] = {}
    for index, segment in enumerate(segments):
        if segment.id in position:
            raise DuplicateSegmentError(segment.id, index=index, first=position[segment.id])
        position[segment.id] = index
    missing: tuple[str, ...] = ()
    if wanted is not None:
        unexpected = [i for i, segment in enumerate(segments) if segment.id not in wanted]
        if unexpected:
            ids = [segments[i].id for i in unexpected]
            raise UnexpectedSegmentError(ids, index=unexpected[0])
        missing = tuple(segment for segment in wanted if segment not in position)
        if missing and not allow_partial:
            raise MissingSegmentsError(missing, len(wanted))
        if not segments:
            raise NoSegmentsError(f"coverage 0/{len(wanted)}: no expected segment is given")
    grouped: list[list[Issue]] = [[] for _ in segments]
    for index, issue in enumerate(issues):
        if issue.segment not in position:
            raise UnknownSegmentError(issue.segment, index=index)
        grouped[position[issue.segment]].append(issue)
    return PolytopeSystemScore(
        segments=tuple(map(score_segment, segments, grouped)),
        breakdown=breakdown(issues),
        missing=missing,
    )
