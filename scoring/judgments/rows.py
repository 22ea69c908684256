"""Judgment rows: the accepted columns and file suffixes, and the parsed rows of a study."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.imports.bundle import Location

from .models import JudgmentKind

CSV_SUFFIXES = (".csv",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
SYSTEM, DOC_ID = "system", "doc_id"
VALUE_FIELDS = (JudgmentKind.SCORE.value, JudgmentKind.RANK.value)
JSONL_KEYS = {SYSTEM, DOC_ID, *VALUE_FIELDS}
FORMATS_HELP = (
    "a CSV with header system,score | system,rank | system,doc_id,score | system,doc_id,rank, "
    'or JSONL lines {"system": ..., "doc_id": ... (optional), "score" or "rank": ...}'
)


@dataclass(frozen=True)
class JudgmentRow:
    """One parsed judgment: a system's value overall (``document`` None) or on one document."""

    system: str
    document: str | None  # the document's external id
    value: float
    location: Location


@dataclass
class ParsedStudy:
    """A parsed upload: its kind (score or rank), whether it is per document, and its rows."""

    kind: str | None = None
    per_document: bool | None = None
    rows: list[JudgmentRow] = field(default_factory=list)
    shape_line: int | None = None  # the line that set ``per_document``
    kind_line: int | None = None  # the line that set ``kind``
    seen: dict[tuple[str, str | None], int] = field(default_factory=dict)  # key -> first line
