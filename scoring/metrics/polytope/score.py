"""PolyTope segment scores and the system score pooled over words (the workbook's LQI)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .breakdown import Breakdown, breakdown, severity_dict
from .errors import DuplicateSegmentError, NoSegmentsError, UnknownSegmentError
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
class SegmentScore:
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
        """JSON-ready fields: segment, words, critical, major, minor, penalty, score."""
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
class SystemScore:
    """A system's segment scores, its error breakdown and its pooled score."""

    segments: tuple[SegmentScore, ...]
    breakdown: Breakdown

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
        """Errors per severity over the system."""
        return self.breakdown.by_severity()

    def as_dict(self) -> dict:
        """JSON-ready system figures (without the per-segment list)."""
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
        }


def score_segment(segment: Segment, issues: Iterable[Issue]) -> SegmentScore:
    """Score one segment from its issues.

    Args:
        segment: the summary.
        issues: its errors; none for a clean ("No errors") segment.

    Returns:
        The :class:`SegmentScore`.

    Raises:
        UnknownSegmentError: an issue that belongs to another segment.
    """
    counts = dict.fromkeys(Severity, 0)
    for index, issue in enumerate(issues):
        if issue.segment != segment.id:
            raise UnknownSegmentError(issue.segment, index=index)
        counts[issue.severity] += 1
    return SegmentScore(
        segment=segment.id,
        words=segment.words,
        critical=counts[Severity.CRITICAL],
        major=counts[Severity.MAJOR],
        minor=counts[Severity.MINOR],
    )


def score_system(segments: Iterable[Segment], issues: Iterable[Issue]) -> SystemScore:
    """Score a system: every segment, the breakdown and the pooled system score.

    Args:
        segments: all the system's summaries, each id once; a segment no issue refers to is
            clean and counts its words with weight 0.
        issues: every annotated error; each must refer to one of ``segments``.

    Returns:
        The :class:`SystemScore`, segments in input order.

    Raises:
        NoSegmentsError: no segment at all.
        DuplicateSegmentError: a segment id given twice (``index`` is the second position).
        UnknownSegmentError: an issue whose segment is not given (``index`` is its position).
    """
    segments = list(segments)
    issues = list(issues)
    if not segments:
        raise NoSegmentsError()
    position: dict[str, int] = {}
    for index, segment in enumerate(segments):
        if segment.id in position:
            raise DuplicateSegmentError(segment.id, index=index, first=position[segment.id])
        position[segment.id] = index
    grouped: list[list[Issue]] = [[] for _ in segments]
    for index, issue in enumerate(issues):
        if issue.segment not in position:
            raise UnknownSegmentError(issue.segment, index=index)
        grouped[position[issue.segment]].append(issue)
    return SystemScore(
        segments=tuple(map(score_segment, segments, grouped)),
        breakdown=breakdown(issues),
    )
