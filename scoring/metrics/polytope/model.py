"""PolyTope inputs: a summary segment and one annotated error (issue) in it."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import EmptySummaryError
from .severity import Severity, severity_of
from .taxonomy import Aspect, Label, Subtype, parse_label, parse_subtype
from .wordcount import count_words


@dataclass(frozen=True)
class Segment:
    """One system summary (a row of the workbook's "Scores per segment").

    Raises:
        EmptySummaryError: on construction, when the summary has no word.
    """

    id: str
    summary: str

    def __post_init__(self) -> None:
        if not isinstance(self.id, str):
            raise TypeError(f"segment id must be a string, got {self.id!r}")
        if not isinstance(self.summary, str):
            raise TypeError(f"segment {self.id!r}: summary must be a string")
        if count_words(self.summary) == 0:
            raise EmptySummaryError(self.id)

    @property
    def words(self) -> int:
        """The summary's word count (always at least 1)."""
        return count_words(self.summary)


@dataclass(frozen=True)
class Issue:
    """One annotated error: the segment it is in, its subtype and its syntactic label.

    ``subtype`` and ``label`` may be given by name; they are stored as enum members. A
    segment with no issue is a clean ("No errors") segment.

    Raises:
        UnknownSubtypeError, UnknownLabelError: on construction, for a name not in the taxonomy.
        CombinationNotAllowedError: on construction, for an N/A cell of the severity matrix.
    """

    segment: str
    subtype: Subtype
    label: Label

    def __post_init__(self) -> None:
        if not isinstance(self.segment, str):
            raise TypeError(f"segment id must be a string, got {self.segment!r}")
        object.__setattr__(self, "subtype", parse_subtype(self.subtype))
        object.__setattr__(self, "label", parse_label(self.label))
        severity_of(self.subtype, self.label)

    @property
    def severity(self) -> Severity:
        """Severity from the official matrix (never read from an annotator's column)."""
        return severity_of(self.subtype, self.label)

    @property
    def aspect(self) -> Aspect:
        """Accuracy or Fluency."""
        return self.subtype.aspect
