"""Human judgments: parse an uploaded CSV or JSONL study, validate it whole, write it atomically."""

from .parsers import judgments_parse
from .rows import (
    CSV_SUFFIXES,
    DOC_ID,
    FORMATS_HELP,
    JSONL_KEYS,
    JSONL_SUFFIXES,
    SYSTEM,
    VALUE_FIELDS,
    JudgmentRow,
    ParsedStudy,
)
from .services import NAME_MAX_LENGTH, human_judgment_study_delete, human_judgments_import

__all__ = [
    "CSV_SUFFIXES",
    "DOC_ID",
    "FORMATS_HELP",
    "JSONL_KEYS",
    "JSONL_SUFFIXES",
    "NAME_MAX_LENGTH",
    "SYSTEM",
    "VALUE_FIELDS",
    "JudgmentRow",
    "ParsedStudy",
    "human_judgment_study_delete",
    "human_judgments_import",
    "judgments_parse",
]
