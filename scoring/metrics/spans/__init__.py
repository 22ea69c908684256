"""Error spans in system summaries under a scheme (PolyTope, XSum hallucinations)."""

from .faithfulness import (
    DEFAULT_RULE,
    RULE_DESCRIPTIONS,
    RULE_INSIDE,
    RULE_OVERLAP,
    RULES,
    Faithfulness,
    FaithfulnessError,
    faithfulness,
    faithfulness_detail,
)
from .model import SIDE_NONE, SIDE_SOURCE, SIDE_SUMMARY, SIDES, MarkedError, join_sentences
from .scheme import (
    SCHEMES,
    PolytopeScheme,
    SpanScheme,
    SpanSchemeError,
    XsumHallucinationScheme,
    scheme_get,
    scheme_names,
    validate_errors,
)

__all__ = [
    "DEFAULT_RULE",
    "RULES",
    "RULE_DESCRIPTIONS",
    "RULE_INSIDE",
    "RULE_OVERLAP",
    "SCHEMES",
    "SIDES",
    "SIDE_NONE",
    "SIDE_SOURCE",
    "SIDE_SUMMARY",
    "MarkedError",
    "PolytopeScheme",
    "Faithfulness",
    "FaithfulnessError",
    "SpanScheme",
    "SpanSchemeError",
    "XsumHallucinationScheme",
    "faithfulness",
    "faithfulness_detail",
    "join_sentences",
    "scheme_get",
    "scheme_names",
    "validate_errors",
]
