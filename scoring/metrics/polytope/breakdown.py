"""Error counts: subtype x label matrix, and totals per subtype, label, aspect and severity."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import CombinationNotAllowedError
from .model import Issue
from .severity import SEVERITY_MATRIX, Severity
from .taxonomy import Aspect, Label, Subtype, parse_label, parse_subtype

SUBTYPES: tuple[Subtype, ...] = tuple(Subtype)
LABELS: tuple[Label, ...] = tuple(Label)
# Report order of severities, heaviest first (as on the workbook's ScoreCard).
SEVERITIES: tuple[Severity, ...] = (Severity.CRITICAL, Severity.MAJOR, Severity.MINOR)


@dataclass(frozen=True)
class Breakdown:
    """Counts of errors: ``matrix[i][j]`` for ``SUBTYPES[i]`` x ``LABELS[j]``.

    Like the "Errors ScoreCard" table of the official workbook; every other count is
    derived from it.

    Raises:
        ValueError: on construction, a matrix that is not 8 x 8 or a count that is not a
            non-negative integer.
        CombinationNotAllowedError: on construction, a count in an N/A cell.
    """

    matrix: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if len(self.matrix) != len(SUBTYPES) or any(len(r) != len(LABELS) for r in self.matrix):
            raise ValueError(f"breakdown matrix must be {len(SUBTYPES)} x {len(LABELS)}")
        for subtype, row in zip(SUBTYPES, self.matrix, strict=True):
            for label, n in zip(LABELS, row, strict=True):
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise ValueError(f"{subtype.value} x {label.value}: count {n!r} is invalid")
                if n and SEVERITY_MATRIX[subtype, label] is None:
                    raise CombinationNotAllowedError(subtype.value, label.value)

    def count(self, subtype: Subtype | str, label: Label | str) -> int:
        """Errors with this subtype and label.

        Args:
            subtype: a :class:`Subtype` or its name (any spelling :func:`parse_subtype` takes).
            label: a :class:`Label` or its name.

        Returns:
            The count (0 for an N/A cell).

        Raises:
            UnknownSubtypeError, UnknownLabelError: a name that is not in the taxonomy.
        """
        row = SUBTYPES.index(parse_subtype(subtype))
        return self.matrix[row][LABELS.index(parse_label(label))]

    @property
    def total(self) -> int:
        """All errors."""
        return sum(map(sum, self.matrix))

    def by_subtype(self) -> dict[Subtype, int]:
        """Errors per subtype.

        Returns:
            ``{Subtype: n}`` with every subtype, 0 included, in :data:`SUBTYPES` order.

        Raises:
            Nothing: the counts were checked on construction.
        """
        return {subtype: sum(row) for subtype, row in zip(SUBTYPES, self.matrix, strict=True)}

    def by_label(self) -> dict[Label, int]:
        """Errors per label.

        Returns:
            ``{Label: n}`` with every label, 0 included, in :data:`LABELS` order.

        Raises:
            Nothing: the counts were checked on construction.
        """
        return {label: sum(row[j] for row in self.matrix) for j, label in enumerate(LABELS)}

    def by_aspect(self) -> dict[Aspect, int]:
        """Errors per aspect.

        Returns:
            ``{Aspect.ACCURACY: n, Aspect.FLUENCY: n}``.

        Raises:
            Nothing: the counts were checked on construction.
        """
        counts = dict.fromkeys(Aspect, 0)
        for subtype, n in self.by_subtype().items():
            counts[subtype.aspect] += n
        return counts

    def by_severity(self) -> dict[Severity, int]:
        """Errors per severity, looked up in the severity matrix.

        Returns:
            ``{Severity: n}`` for Critical, Major and Minor, in that order, 0 included.

        Raises:
            Nothing: counts sit only in allowed cells (checked on construction).
        """
        counts = dict.fromkeys(SEVERITIES, 0)
        for i, subtype in enumerate(SUBTYPES):
            for j, label in enumerate(LABELS):
                if self.matrix[i][j]:
                    # Non-zero only in allowed cells (checked on construction).
                    counts[SEVERITY_MATRIX[subtype, label]] += self.matrix[i][j]
        return counts

    def as_dict(self) -> dict:
        """JSON-ready counts keyed by the official names.

        Returns:
            ``{"matrix": {subtype: {label: n}}, "subtypes": {...}, "labels": {...},
            "aspects": {...}, "severities": {"critical": n, "major": n, "minor": n}}``.

        Raises:
            Nothing: the counts were checked on construction.
        """
        return {
            "matrix": {
                subtype.value: {label.value: n for label, n in zip(LABELS, row, strict=True)}
                for subtype, row in zip(SUBTYPES, self.matrix, strict=True)
            },
            "subtypes": {k.value: n for k, n in self.by_subtype().items()},
            "labels": {k.value: n for k, n in self.by_label().items()},
            "aspects": {k.value: n for k, n in self.by_aspect().items()},
            "severities": severity_dict(self.by_severity()),
        }


def severity_dict(counts: dict[Severity, int]) -> dict[str, int]:
    """Severity counts keyed by lower-case names, for JSON.

    Args:
        counts: ``{Severity: n}``; a severity left out counts 0.

    Returns:
        ``{"critical": n, "major": n, "minor": n}``, heaviest first.

    Raises:
        Nothing.
    """
    return {severity.name.lower(): counts.get(severity, 0) for severity in SEVERITIES}


def breakdown(issues: Iterable[Issue]) -> Breakdown:
    """Count issues by subtype and label.

    Args:
        issues: validated :class:`Issue` objects (any segments).

    Returns:
        The :class:`Breakdown`.

    Raises:
        Nothing: :class:`Issue` objects hold only allowed combinations.
    """
    counts = [[0] * len(LABELS) for _ in SUBTYPES]
    for issue in issues:
        counts[SUBTYPES.index(issue.subtype)][LABELS.index(issue.label)] += 1
    return Breakdown(matrix=tuple(map(tuple, counts)))
