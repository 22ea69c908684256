"""Severities, their weights and the official severity matrix, kept as data."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType

from .errors import CombinationNotAllowedError
from .taxonomy import Label, Subtype, parse_label, parse_subtype


class Severity(Enum):
    """The three severities; values are the workbook's spelling."""

    MINOR = "Minor"
    MAJOR = "Major"
    CRITICAL = "Critical"

    @property
    def weight(self) -> float:
        """Penalty weight: MINOR 0.5, MAJOR 2.5, CRITICAL 5 (the paper's 1:5:10)."""
        return WEIGHTS[self]


WEIGHTS: dict[Severity, float] = {
    Severity.MINOR: 0.5,
    Severity.MAJOR: 2.5,
    Severity.CRITICAL: 5.0,
}

NOT_ALLOWED = "N/A"

# Generated once from ../shared/data/polytope-release/outputs_with_human_annotation/
# Human_Annotation_Summarization_BART.xlsm, sheet Severity_Matrix: labels C2:J2, subtypes
# B3:B10, cells C3:J10 (A3 "Accuracy" spans rows 3-7, A8 "Fluency" rows 8-10). Spelling exactly
# as in the sheet; tests/metrics/test_polytope_reproduction.py re-reads the sheet and checks
# this literal equals it. The AnnotationTemplate's copy differs in one cell: it has "Minor" for
# Inaccuracy_external x Function Word, where the annotated workbook has "N/A".
SHEET_LABELS: tuple[str, ...] = (
    "Event Entity-Subject",
    "Event Entity-Object",
    "Event Relation-Predicate",
    "Number&Time",
    "Place&Name",
    "Attribute",
    "Grammar Function Words",
    "Whole Sentence",
)
SHEET_ROWS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Addition", ("Critical", "Critical", "Critical", "Major", "Major", "Major", "Minor", "Major")),
    (
        "Omission",
        ("Critical", "Critical", "Critical", "Critical", "Major", "Major", "Minor", "Critical"),
    ),
    (
        "Inaccuracy_internal",
        ("Critical", "Critical", "Critical", "Critical", "Critical", "Major", "Minor", "N/A"),
    ),
    (
        "Inaccuracy_external",
        ("Critical", "Critical", "Critical", "Critical", "Critical", "Critical", "N/A", "N/A"),
    ),
    (
        "Positive_Negative_Aspect",
        ("N/A", "N/A", "Critical", "N/A", "N/A", "Critical", "N/A", "N/A"),
    ),
    ("Word_Order", ("N/A", "N/A", "Major", "N/A", "N/A", "Major", "Minor", "N/A")),
    ("Duplication", ("Major", "Major", "Major", "Major", "Major", "Major", "Minor", "Major")),
    ("Word_Form", ("Minor", "Minor", "Minor", "Minor", "Minor", "Minor", "Minor", "N/A")),
)


def _build() -> dict[tuple[Subtype, Label], Severity | None]:
    labels = [parse_label(name) for name in SHEET_LABELS]
    matrix: dict[tuple[Subtype, Label], Severity | None] = {}
    for subtype_name, cells in SHEET_ROWS:
        subtype = parse_subtype(subtype_name)
        for label, cell in zip(labels, cells, strict=True):
            matrix[subtype, label] = None if cell == NOT_ALLOWED else Severity(cell)
    return matrix


#: Read-only ``(Subtype, Label) -> Severity``, ``None`` for an N/A (not allowed) cell; 64 pairs.
SEVERITY_MATRIX: Mapping[tuple[Subtype, Label], Severity | None] = MappingProxyType(_build())


def is_allowed(subtype: str | Subtype, label: str | Label) -> bool:
    """Whether the matrix allows this combination (its cell is not N/A).

    Args:
        subtype: a :class:`Subtype` or its name.
        label: a :class:`Label` or its name.

    Returns:
        True for a Minor/Major/Critical cell, False for N/A.

    Raises:
        UnknownSubtypeError, UnknownLabelError: a name that is not in the taxonomy.
    """
    return SEVERITY_MATRIX[parse_subtype(subtype), parse_label(label)] is not None


def severity_of(
    subtype: str | Subtype, label: str | Label, *, index: int | None = None
) -> Severity:
    """Look up the severity of an error from its subtype and label, as the workbooks do.

    Args:
        subtype: a :class:`Subtype` or its name.
        label: a :class:`Label` or its name.
        index: position of the item in its input, carried by any error.

    Returns:
        The :class:`Severity`.

    Raises:
        UnknownSubtypeError, UnknownLabelError: a name that is not in the taxonomy.
        CombinationNotAllowedError: the matrix cell is N/A.
    """
    found_subtype = parse_subtype(subtype, index=index)
    found_label = parse_label(label, index=index)
    severity = SEVERITY_MATRIX[found_subtype, found_label]
    if severity is None:
        raise CombinationNotAllowedError(found_subtype.value, found_label.value, index=index)
    return severity
