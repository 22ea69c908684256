"""Per-document scores held as arrays: one system's column of one metric, with stored intervals.

A leaderboard of 100 systems over 11,490 documents has 1.7 million values in its 17 columns, and
most of them are only ever used through their mean and bootstrap interval. A
:class:`ScoreColumn` is a read-only mapping document -> value, as the table's plain dicts are,
backed by an array that is read only when a figure needs it (a paired test, an interval not
stored), and carrying the intervals computed for it before (:func:`scope_key` names the
documents and settings each one was computed for). :func:`~.table.build_leaderboard` takes
them beside plain dicts and gives the same table, reading no array it does not need.

A stored interval is the one the table computes, up to the last bits of its bounds: the
bootstrap's resampled means are a matrix product over the columns computed together, and
BLAS rounds a product differently with another number of columns (means, n and the paired
tests are exact).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from ..errors import MetricsError

# A stored interval: mean, low, high (None for one document) and n.
StoredCell = tuple[float, float | None, float | None, int]
# How :func:`~.table.interval_cells` computes a cell, part of every scope key: change it with
# the computation, and the intervals stored the old way are no longer used.
CELLS_METHOD = "percentile-bootstrap-columns-1"


def scope_key(documents: Sequence[Hashable], *, level: float, resamples: int, seed: int) -> str:
    """What an interval depends on besides its values: the documents in order, the settings
    and how it is computed (:data:`CELLS_METHOD`).

    Args:
        documents: the documents the mean and interval are over, in the order they are taken.
        level: confidence level.
        resamples: bootstrap resamples.
        seed: bootstrap seed.

    Returns:
        A SHA-256 hex digest; equal keys mean the same documents in the same order under the
        same settings.
    """
    digest = hashlib.sha256(
        f"{CELLS_METHOD}|{level!r}|{resamples}|{seed}|{len(documents)}|".encode()
    )
    digest.update("\x1f".join(map(repr, documents)).encode())
    return digest.hexdigest()


class ColumnDocuments:
    """The documents some columns have values for, in order (a dataset's order).

    Columns over the same documents share one object, so that its set and positions are built
    once however many columns use them.
    """

    __slots__ = ("_position", "_positions", "_set", "documents")

    def __init__(self, documents: Iterable[Hashable]) -> None:
        """Take the documents in order.

        Args:
            documents: each document once, in order.

        Raises:
            MetricsError: a document is listed twice.
        """
        self.documents = tuple(documents)
        self._set: frozenset | None = None
        self._position: dict | None = None
        self._positions: dict[int, tuple] = {}  # id of a documents tuple -> (it, indices)
        if len(self.set) != len(self.documents):
            raise MetricsError("column documents: a document is listed twice")

    def __len__(self) -> int:
        return len(self.documents)

    @property
    def set(self) -> frozenset:
        """The documents as a set."""
        if self._set is None:
            self._set = frozenset(self.documents)
        return self._set

    def position(self, document: Hashable) -> int:
        """A document's index in :attr:`documents`.

        Raises:
            KeyError: the document is not one of them.
        """
        if self._position is None:
            self._position = {d: i for i, d in enumerate(self.documents)}
        return self._position[document]

    def positions(self, documents: Sequence[Hashable]) -> np.ndarray:
        """The indices of some of the documents, in the order given (computed once per
        sequence given: a table asks for the same documents for every column).

        Raises:
            KeyError: a document is not one of them.
        """
        found = self._positions.get(id(documents))
        if found is None:
            if len(documents) == len(self.documents) and tuple(documents) == self.documents:
                at = np.arange(len(documents))
            else:
                at = np.fromiter(map(self.position, documents), np.intp, count=len(documents))
            # Kept with the documents, so that their id is not reused while it is cached.
            found = self._positions[id(documents)] = (documents, at)
        return found[1]


class ScoreColumn(Mapping):
    """One system's values of one metric: document -> value, backed by an array.

    ``values`` is the float array aligned with ``documents.documents``, or a callable that
    returns it (called once, when a value is first needed). ``cells`` holds the intervals
    already computed for this column: :func:`scope_key` -> :data:`StoredCell`.
    """

    __slots__ = ("_values", "cells", "documents")

    def __init__(
        self,
        documents: ColumnDocuments,
        values: np.ndarray | Callable[[], np.ndarray],
        cells: Mapping[str, StoredCell] | None = None,
    ) -> None:
        self.documents = documents
        self._values = values
        self.cells = cells or {}

    def array(self) -> np.ndarray:
        """The values in the documents' order (read now if not yet).

        Raises:
            MetricsError: the array does not have one value per document.
        """
        if callable(self._values):
            self._values = self._values()
        values = self._values
        if values.shape != (len(self.documents),):
            raise MetricsError(
                f"score column: {values.shape} values for {len(self.documents)} documents"
            )
        return values

    def at(self, documents: Sequence[Hashable]) -> np.ndarray:
        """The values of some of the documents, in the order given.

        Raises:
            KeyError: a document has no value in this column.
        """
        values = self.array()
        if documents is self.documents.documents:
            return values
        return values[self.documents.positions(documents)]

    def within(self, documents: ColumnDocuments) -> ScoreColumn:
        """This column on some of its documents (a leaderboard's facet category): its values
        are taken from this one when first needed, and its stored intervals are kept (they
        are keyed by the documents they cover).

        Args:
            documents: some of this column's documents, in its order.

        Returns:
            The column over ``documents``.
        """
        return ScoreColumn(documents, lambda: self.at(documents.documents), self.cells)

    def __getitem__(self, document: Hashable) -> float:
        return float(self.array()[self.documents.position(document)])

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.documents.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def __contains__(self, document: object) -> bool:
        return document in self.documents.set

    def keys(self) -> frozenset:  # type: ignore[override]
        """The documents with a value, as a set (compares with sets as a dict's keys do)."""
        return self.documents.set
