"""PolyTope (Huang et al. 2020): taxonomy, official severity matrix, segment and system scores."""

from .breakdown import LABELS, SEVERITIES, SUBTYPES, Breakdown, breakdown
from .errors import (
    CombinationNotAllowedError,
    DuplicateExpectedSegmentError,
    DuplicateSegmentError,
    EmptySummaryError,
    MissingSegmentsError,
    NoSegmentsError,
    PolyTopeError,
    UnexpectedSegmentError,
    UnknownLabelError,
    UnknownSegmentError,
    UnknownSubtypeError,
)
from .model import Issue, Segment
from .score import (
    PolytopeSegmentScore,
    PolytopeSystemScore,
    penalty_of,
    polytope_score,
    score_segment,
    score_system,
)
from .severity import SEVERITY_MATRIX, WEIGHTS, Severity, is_allowed, severity_of
from .taxonomy import Aspect, Label, Subtype, parse_label, parse_subtype
from .wordcount import count_words, is_word

__all__ = [
    "LABELS",
    "SEVERITIES",
    "SEVERITY_MATRIX",
    "SUBTYPES",
    "WEIGHTS",
    "Aspect",
    "Breakdown",
    "CombinationNotAllowedError",
    "DuplicateExpectedSegmentError",
    "DuplicateSegmentError",
    "EmptySummaryError",
    "Issue",
    "Label",
    "MissingSegmentsError",
    "NoSegmentsError",
    "PolyTopeError",
    "Segment",
    "PolytopeSegmentScore",
    "Severity",
    "Subtype",
    "PolytopeSystemScore",
    "UnexpectedSegmentError",
    "UnknownLabelError",
    "UnknownSegmentError",
    "UnknownSubtypeError",
    "breakdown",
    "count_words",
    "is_allowed",
    "is_word",
    "parse_label",
    "parse_subtype",
    "penalty_of",
    "polytope_score",
    "score_segment",
    "score_system",
    "severity_of",
]
