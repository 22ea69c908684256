"""Parser for the XSum hallucination release (Maynez et al., ACL 2020): 500 BBC ids, spans by 3."""

from .offsets import Placement, matching_conventions, place_span, unescape
from .parse import TEXT_MISSING_NOTE, parse_xsum_release
from .release import (
    DATASET,
    EVAL_FILE,
    EVAL_PREFIXES,
    EXPECTED_DOCUMENTS,
    GOLD,
    HALLUCINATIONS_FILE,
    SCHEME,
    SYSTEMS,
    WORKERS,
    span_set_slug,
)

__all__ = [
    "DATASET",
    "EVAL_FILE",
    "EVAL_PREFIXES",
    "EXPECTED_DOCUMENTS",
    "GOLD",
    "HALLUCINATIONS_FILE",
    "SCHEME",
    "SYSTEMS",
    "TEXT_MISSING_NOTE",
    "WORKERS",
    "Placement",
    "matching_conventions",
    "parse_xsum_release",
    "place_span",
    "span_set_slug",
    "unescape",
]
