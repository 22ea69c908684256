"""PolyTope on the leaderboard: per-document figures, pooled system cells with ratio CIs.

A document's figures come from the errors marked in its summary (type = subtype, label); a system's
score is pooled over words (the workbook's ScoreCard "LQI"), so its interval is the bootstrap of a
ratio of sums (:func:`scoring.metrics.stats.bootstrap_ratio_ci`), and the paired test between two
systems is the paired permutation test of pooled ratios. Only annotated outputs count: an output
nobody annotated is not a clean one.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..polytope import (
    LABELS,
    SEVERITIES,
    SUBTYPES,
    Breakdown,
    Issue,
    PolytopeSegmentScore,
    Segment,
    breakdown,
    parse_label,
    parse_subtype,
    score_segment,
)
from ..polytope.severity import SEVERITY_MATRIX
from ..stats import (
    DEFAULT_SEED,
    TEST_RATIO_PERMUTATION,
    bootstrap_ratio_ci,
    paired_ratio_permutation_test,
)
from ..stats.errors import canonical_key
from ..stats.order import Order, in_order, key_order
from .table import Comparison

POLYTOPE = "polytope"
POLYTOPE_PENALTY = "polytope_penalty"
POLYTOPE_WORDS = "polytope_words"
POLYTOPE_CRITICAL = "polytope_critical"
POLYTOPE_MAJOR = "polytope_major"
POLYTOPE_MINOR = "polytope_minor"
# Stored per document besides the score (in percent, which can be negative): these are >= 0.
POLYTOPE_COUNTS = (
    POLYTOPE_PENALTY,
    POLYTOPE_WORDS,
    POLYTOPE_CRITICAL,
    POLYTOPE_MAJOR,
    POLYTOPE_MINOR,
)
POLYTOPE_METRICS = (POLYTOPE, *POLYTOPE_COUNTS)


@dataclass(frozen=True)
class PolytopeDocument:
    """One annotated output: its segment score (words, severities) and its error breakdown."""

    segment: PolytopeSegmentScore
    breakdown: Breakdown

    def values(self) -> dict[str, float]:
        """The stored per-document values.

        Returns:
            metric name -> value: the score in percent, the penalty, the words and the counts
            of critical, major and minor errors.
        """
        s = self.segment
        return {
            POLYTOPE: s.score,
            POLYTOPE_PENALTY: s.penalty,
            POLYTOPE_WORDS: float(s.words),
            POLYTOPE_CRITICAL: float(s.critical),
            POLYTOPE_MAJOR: float(s.major),
            POLYTOPE_MINOR: float(s.minor),
        }

    def counts(self) -> dict[str, dict[str, int]]:
        """The errors by subtype and label, without the empty cells.

        Returns:
            ``{subtype: {label: n}}`` with the official names; ``{}`` for a clean output.
        """
        return counts_of(self.breakdown)


def counts_of(found: Breakdown) -> dict[str, dict[str, int]]:
    """A breakdown's non-empty cells as JSON.

    Args:
        found: the breakdown.

    Returns:
        ``{subtype: {label: n}}`` with the official names, only cells with errors.
    """
    counts: dict[str, dict[str, int]] = {}
    for subtype, row in zip(SUBTYPES, found.matrix, strict=True):
        for label, n in zip(LABELS, row, strict=True):
            if n:
                counts.setdefault(subtype.value, {})[label.value] = n
    return counts


def polytope_document(summary: str, errors: Iterable[Mapping]) -> PolytopeDocument:
    """Score one annotated output from its marked errors.

    Every error counts, whether it has a span in the summary, in the source (an Omission) or
    none (only its issue words are known); its severity comes from the matrix, never from the
    error itself. An empty list is a clean output (score 100).

    Args:
        summary: the output's text (its sentences joined by one space).
        errors: the errors as stored (``MarkedError`` dicts: ``type`` is the subtype, ``label``
            the syntactic label).

    Returns:
        The :class:`PolytopeDocument`.

    Raises:
        EmptySummaryError: the summary has no word, so its score is undefined.
        UnknownSubtypeError, UnknownLabelError, CombinationNotAllowedError: an error that is
            not a PolyTope error (``index`` is its position).
    """
    segment = Segment("output", summary)
    issues = []
    for index, error in enumerate(errors):
        subtype = parse_subtype(error.get("type"), index=index)
        label = parse_label(error.get("label"), index=index)
        issues.append(Issue("output", subtype, label))
    return PolytopeDocument(segment=score_segment(segment, issues), breakdown=breakdown(issues))


def segment_from_values(document: Hashable, values: Mapping[str, float]) -> PolytopeSegmentScore:
    """A stored document's segment figures back from its values.

    Args:
        document: the document's key (kept as the segment id's text).
        values: its stored values (:data:`POLYTOPE_WORDS` and the three severity counts).

    Returns:
        The :class:`PolytopeSegmentScore` (its penalty and score are recomputed from them).

    Raises:
        KeyError: a value is missing.
    """
    return PolytopeSegmentScore(
        segment=str(document),
        words=round(values[POLYTOPE_WORDS]),
        critical=round(values[POLYTOPE_CRITICAL]),
        major=round(values[POLYTOPE_MAJOR]),
        minor=round(values[POLYTOPE_MINOR]),
    )


@dataclass(frozen=True)
class PolytopeCell:
    """A system's PolyTope figures over its annotated outputs.

    ``score`` is pooled over words, ``100 * (1 - penalty / words)``, in percent; ``ci_low``
    and ``ci_high`` are the ratio bootstrap's interval mapped to the score (None for one output,
    which says nothing about its spread). ``n`` counts the annotated outputs, ``clean`` those
    without any error.
    """

    score: float
    ci_low: float | None
    ci_high: float | None
    n: int
    words: int
    penalty: float
    critical: int
    major: int
    minor: int
    clean: int

    @property
    def errors(self) -> int:
        """All errors over the annotated outputs."""
        return self.critical + self.major + self.minor

    def as_dict(self) -> dict:
        """``{"score", "ci_low", "ci_high", "n", "words", "penalty", "critical", "major",
        "minor", "errors", "clean"}``."""
        return {
            "score": self.score,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
            "words": self.words,
            "penalty": self.penalty,
            "critical": self.critical,
            "major": self.major,
            "minor": self.minor,
            "errors": self.errors,
            "clean": self.clean,
        }


def polytope_cell(
    segments: Mapping[Hashable, PolytopeSegmentScore],
    *,
    level: float = 0.95,
    resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    order: Order = None,
) -> PolytopeCell | None:
    """A system's pooled PolyTope score with its ratio bootstrap interval.

    The interval resamples the annotated outputs (a segment keeps its penalty and its words
    together) and recomputes ``penalty / words``; the score's interval is
    ``[100 * (1 - high), 100 * (1 - low)]``. The outputs are taken in ``order`` (the
    dataset's, so the figures never depend on database ids) or, without one, in canonical key
    order; either way the interval does not depend on the mapping's order.

    Args:
        segments: document -> the output's segment figures (annotated outputs only).
        level: confidence level.
        resamples: bootstrap resamples.
        seed: the generator's seed.
        order: the documents' order (see :func:`scoring.metrics.stats.in_order`); None:
            canonical key order.

    Returns:
        The :class:`PolytopeCell`, or None when no output is annotated.

    Raises:
        StatsError: a bad ``level`` or ``resamples``.
        UnorderedKeyError: ``order`` does not list some document.
    """
    if not segments:
        return None
    ordered = [segments[d] for d in in_order(segments, order, what="PolyTope cell")]
    words = sum(s.words for s in ordered)
    penalty = sum(s.penalty for s in ordered)
    low = high = None
    if len(ordered) > 1:
        ci = bootstrap_ratio_ci(
            [s.penalty for s in ordered],
            [s.words for s in ordered],
            level=level,
            resamples=resamples,
            seed=seed,
        )
        low, high = 100.0 * (1.0 - ci.high), 100.0 * (1.0 - ci.low)
    return PolytopeCell(
        score=100.0 * (words - penalty) / words,
        ci_low=low,
        ci_high=high,
        n=len(ordered),
        words=words,
        penalty=penalty,
        critical=sum(s.critical for s in ordered),
        major=sum(s.major for s in ordered),
        minor=sum(s.minor for s in ordered),
        clean=sum(1 for s in ordered if s.errors == 0),
    )


def rank_by_polytope(
    cells: Mapping[Hashable, PolytopeCell | None],
    segments: Mapping[Hashable, Mapping[Hashable, PolytopeSegmentScore]],
    systems: Sequence[Hashable],
    *,
    alpha: float = 0.05,
    resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    names: Mapping[Hashable, str] | None = None,
    order: Order = None,
) -> tuple[list[Hashable], dict[Hashable, Comparison | None]]:
    """Order systems by their pooled PolyTope score and test each against the next one.

    Systems with a score come first, best first (ties by key); the others follow in the order
    given. Each scored system is compared with the system below it by the paired permutation
    test of pooled ratios over the outputs both have annotated; ``difference`` is the
    difference of scores (points of the percent scale).

    Args:
        cells: system -> its :class:`PolytopeCell` (None: nothing annotated).
        segments: system -> document -> segment figures.
        systems: every system, in the order the unscored ones keep.
        alpha: significance level.
        resamples: permutation samples (when the test is not exact).
        seed: the generator's seed.
        names: display names for the reasons.
        order: the documents' order for the paired tests (see
            :func:`scoring.metrics.stats.in_order`); None: canonical key order.

    Returns:
        ``(ordered systems, system -> Comparison with the next one or None)``.

    Raises:
        UnorderedKeyError: ``order`` does not list some document.
    """
    names = names or {}
    order = key_order(order)
    scored = sorted(
        (s for s in systems if cells.get(s) is not None),
        key=lambda s: (-cells[s].score, canonical_key(s)),
    )
    ordered = scored + [s for s in systems if cells.get(s) is None]
    comparisons: dict[Hashable, Comparison | None] = {}
    for position, system in enumerate(ordered):
        below = ordered[position + 1] if position + 1 < len(ordered) else None
        if below is None or cells.get(system) is None:
            comparisons[system] = None
            continue
        if cells.get(below) is None:
            comparisons[system] = Comparison(
                below, POLYTOPE, TEST_RATIO_PERMUTATION, None, False, 0, None,
                reason=f"{names.get(below, below)} has no annotated output to compare with",
            )  # fmt: skip
            continue
        a, b = segments[system], segments[below]
        shared = in_order(a.keys() & b.keys(), order, what="PolyTope paired test")
        if len(shared) < 2:
            comparisons[system] = Comparison(
                below, POLYTOPE, TEST_RATIO_PERMUTATION, None, False, len(shared), None,
                reason=f"{len(shared)} documents annotated for both; a paired test needs 2",
            )  # fmt: skip
            continue
        result = paired_ratio_permutation_test(
            {d: (a[d].penalty, a[d].words) for d in shared},
            {d: (b[d].penalty, b[d].words) for d in shared},
            resamples=resamples,
            seed=seed,
            order=order,
        )
        comparisons[system] = Comparison(
            below, POLYTOPE, result.test, result.p_value, result.p_value < alpha, result.n,
            -100.0 * result.statistic,
        )  # fmt: skip
    return ordered, comparisons


def breakdown_sum(counts: Iterable[Mapping[str, Mapping[str, int]]]) -> Breakdown:
    """Add up stored per-document counts into one breakdown.

    Args:
        counts: per document, ``{subtype: {label: n}}`` (any spelling the taxonomy takes).

    Returns:
        The :class:`Breakdown` of all of them.

    Raises:
        UnknownSubtypeError, UnknownLabelError: a name outside the taxonomy.
        CombinationNotAllowedError: a count in an N/A cell.
        ValueError: a count that is not a non-negative integer.
    """
    matrix = [[0] * len(LABELS) for _ in SUBTYPES]
    for document in counts:
        for subtype, row in document.items():
            i = SUBTYPES.index(parse_subtype(subtype))
            for label, n in row.items():
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise ValueError(f"{subtype} x {label}: count {n!r} is invalid")
                matrix[i][LABELS.index(parse_label(label))] += n
    return Breakdown(matrix=tuple(map(tuple, matrix)))


def severity_by_label(found: Breakdown) -> dict[str, dict[str, int]]:
    """Errors per severity and label (the severity x label table of the breakdown view).

    Args:
        found: the breakdown.

    Returns:
        ``{"critical": {label: n}, "major": {...}, "minor": {...}}``, heaviest first, every
        label in the official order, 0 included.
    """
    names = [label.value for label in LABELS]
    table = {severity.name.lower(): dict.fromkeys(names, 0) for severity in SEVERITIES}
    for i, subtype in enumerate(SUBTYPES):
        for j, label in enumerate(LABELS):
            n = found.matrix[i][j]
            if n:
                table[SEVERITY_MATRIX[subtype, label].name.lower()][label.value] += n
    return table


def breakdown_dict(found: Breakdown) -> dict:
    """A breakdown as the leaderboard serves it.

    Args:
        found: the breakdown.

    Returns:
        :meth:`Breakdown.as_dict` (``subtypes``, ``labels``, ``aspects``, ``severities``, every
        name with its count), ``matrix`` with only the non-empty subtype x label cells
        (:func:`counts_of`), ``severity_by_label`` and ``total``.
    """
    return {
        **found.as_dict(),
        "matrix": counts_of(found),
        "severity_by_label": severity_by_label(found),
        "total": found.total,
    }
