"""Typed errors of the cross-dataset evaluation core: each names the cell, dataset or document."""

from __future__ import annotations

from collections.abc import Collection, Hashable

from ..errors import MetricsError

# How many cells or units an error message lists before it says "and N more".
_LISTED = 6


def _listed(items: Collection[Hashable]) -> str:
    """``('A', 'B'), ('B', 'A') and 2 more`` for error messages, in a deterministic order."""
    shown = sorted(items, key=repr)
    more = len(shown) - _LISTED
    text = ", ".join(repr(item) for item in shown[:_LISTED])
    return text + (f" and {more} more" if more > 0 else "")


class CrossDatasetError(MetricsError):
    """Base class of every error of :mod:`scoring.metrics.crossdataset` (a ``ValueError``)."""


class NoCellsError(CrossDatasetError):
    """A system has no (train, test) cell at all, or no systems were given."""


class EmptyCellError(CrossDatasetError):
    """A (train, test) cell has no per-document score, so its mean is undefined."""

    def __init__(self, system: Hashable, cell: tuple[Hashable, Hashable]):
        super().__init__(
            f"system {system!r}, trained on {cell[0]!r} and tested on {cell[1]!r}: "
            "the cell has no per-document score (a mean of nothing is undefined)"
        )
        self.system = system
        self.cell = cell


class BadScoreError(CrossDatasetError):
    """A per-document score is not a finite number."""

    def __init__(
        self, system: Hashable, cell: tuple[Hashable, Hashable], document: Hashable, value: object
    ):
        super().__init__(
            f"system {system!r}, cell {cell!r}, document {document!r}: "
            f"score {value!r} is not a finite number"
        )
        self.system = system
        self.cell = cell
        self.document = document
        self.value = value


class UnknownDatasetError(CrossDatasetError):
    """A cell names a train or test dataset outside the datasets the caller listed."""


class MissingCellError(CrossDatasetError):
    """Cells of the train x test matrix are missing (all of them, or a diagonal one).

    Attributes:
        system: the system at fault.
        cells: the missing ``(train, test)`` cells.
    """

    def __init__(self, system: Hashable, cells: Collection[tuple[Hashable, Hashable]], hint: str):
        super().__init__(
            f"system {system!r}: {len(cells)} cell(s) of the train x test matrix missing "
            f"({_listed(cells)}); {hint}"
        )
        self.system = system
        self.cells = frozenset(cells)


class NonPositiveDiagonalError(CrossDatasetError):
    """An in-dataset score ``U_jj`` is zero or negative, so ``U_ij / U_jj`` is undefined."""

    def __init__(self, system: Hashable, dataset: Hashable, value: float):
        super().__init__(
            f"system {system!r}: in-dataset score U[{dataset!r}, {dataset!r}] = {value!r} is not "
            "positive, so the normalised matrix U_ij / U_jj (and stableness) is undefined"
        )
        self.system = system
        self.dataset = dataset
        self.value = value


class MismatchedCellsError(CrossDatasetError):
    """Systems compared with each other cover different cells or datasets."""


class MismatchedUnitsError(CrossDatasetError):
    """Two systems cover different (train, test, document) units; nothing is silently aligned.

    Attributes:
        only_a: units only system A covers.
        only_b: units only system B covers.
    """

    def __init__(self, only_a: Collection[Hashable], only_b: Collection[Hashable]):
        parts = []
        if only_a:
            parts.append(f"{len(only_a)} only in system A ({_listed(only_a)})")
        if only_b:
            parts.append(f"{len(only_b)} only in system B ({_listed(only_b)})")
        super().__init__(
            "paired cross-dataset test: the (train, test, document) units differ: "
            + "; ".join(parts)
            + "; pass shared_only=True to test on the units both systems cover"
        )
        self.only_a = frozenset(only_a)
        self.only_b = frozenset(only_b)
