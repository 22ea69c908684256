"""The U matrix (train x test) of one system, its normalised matrix, stiffness and stableness.

Per-document scores are averaged per (train, test) cell by :func:`cell_mean` (the per-item
step); :func:`cross_dataset_matrix` aggregates the cells of one system. Means are
``math.fsum(values) / n``, so they do not depend on the order of the documents.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from .errors import (
    BadScoreError,
    CrossDatasetError,
    EmptyCellError,
    MissingCellError,
    NoCellsError,
    NonPositiveDiagonalError,
    UnknownDatasetError,
)

#: Which normalisation is ranked and why, in one line (the command, the API and the page).
NORMALISATION_NOTE = (
    "Ranked by the means over the N x N cells (Loupe's: the sums divided by N²). CDEvalSumm's "
    "formulas as printed divide the sums by N ('as printed'): N times the mean, the same order, "
    "but a stiffness above every cell and a stableness of at least 100% from the diagonal alone, "
    "while the paper's own figures (stiffness 20-30% of ROUGE in its Fig. 4a, stableness above "
    "100% only where it explains why) are means."
)

MISSING_ERROR = "error"
MISSING_EXCLUDE = "exclude"
MISSING_RULES = (MISSING_ERROR, MISSING_EXCLUDE)

Cell = tuple[Hashable, Hashable]
Cells = Mapping[Cell, Mapping[Hashable, float]]


def is_finite_number(value: object) -> bool:
    """Whether ``value`` is a finite int or float (a bool is not a score).

    Args:
        value: a per-document score.

    Returns:
        True for a finite number.
    """
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


@dataclass(frozen=True)
class CellMean:
    """The mean of one system's per-document scores in one (train, test) cell.

    Attributes:
        train: the dataset the system was trained on (the row).
        test: the dataset it was tested on (the column).
        mean: ``U[train, test]``, the mean over the cell's documents.
        n: number of documents.
    """

    train: Hashable
    test: Hashable
    mean: float
    n: int


def cell_mean(
    scores: Mapping[Hashable, float], *, train: Hashable, test: Hashable, system: Hashable = None
) -> CellMean:
    """Average one cell's per-document scores.

    Args:
        scores: document key -> score of the system trained on ``train``, tested on ``test``.
        train: the training dataset.
        test: the test dataset.
        system: the system's name, for error messages.

    Returns:
        A :class:`CellMean`.

    Raises:
        EmptyCellError: ``scores`` is empty.
        BadScoreError: a score is not a finite number (booleans are refused too).
    """
    if not scores:
        raise EmptyCellError(system, (train, test))
    values = []
    for document, value in scores.items():
        if not is_finite_number(value):
            raise BadScoreError(system, (train, test), document, value)
        values.append(float(value))
    return CellMean(train=train, test=test, mean=math.fsum(values) / len(values), n=len(values))


@dataclass(frozen=True)
class CrossDatasetMatrix:
    """One system's cross-dataset evaluation (Chen et al., 2020).

    ``u[i][j]`` is the mean score of the system trained on ``datasets[i]`` and tested on
    ``datasets[j]``; ``normalised[i][j] = u[i][j] / u[j][j]``. An excluded cell (only with
    ``missing="exclude"``) is ``None`` in both and left out of every mean.

    Attributes:
        system: the system's name.
        datasets: the datasets, in the order of the rows (train) and columns (test).
        u: the U matrix of cell means.
        normalised: the matrix ``U_ij / U_jj``.
        n_documents: documents per cell (0 for an excluded cell).
        stiffness: mean of the present cells of ``u`` (the sum over ``N²`` cells divided by
            ``N²``; what Loupe ranks by).
        stableness: mean of the present cells of ``normalised`` (diagonal ones included).
        in_dataset: mean of the diagonal ``U_jj`` (the usual in-dataset evaluation).
        stiffness_printed: the sum of the present cells of ``u`` divided by ``N`` (the number
            of datasets), CDEvalSumm's formula as printed: ``N`` times :attr:`stiffness` when
            every cell is present.
        stableness_printed: the sum of the present cells of ``normalised`` divided by ``N``.
        excluded: the ``(train, test)`` cells left out, in row-major order.
    """

    system: Hashable
    datasets: tuple[Hashable, ...]
    u: tuple[tuple[float | None, ...], ...]
    normalised: tuple[tuple[float | None, ...], ...]
    n_documents: tuple[tuple[int, ...], ...]
    stiffness: float
    stableness: float
    in_dataset: float
    stiffness_printed: float
    stableness_printed: float
    excluded: tuple[Cell, ...] = ()

    def cell(self, train: Hashable, test: Hashable) -> float | None:
        """``U[train, test]`` (None when the cell is excluded).

        Args:
            train: a dataset of :attr:`datasets`.
            test: a dataset of :attr:`datasets`.

        Returns:
            The cell's mean, or None.

        Raises:
            ValueError: a dataset is not in :attr:`datasets`.
        """
        return self.u[self.datasets.index(train)][self.datasets.index(test)]

    def normalised_cell(self, train: Hashable, test: Hashable) -> float | None:
        """``U[train, test] / U[test, test]`` (None when the cell is excluded).

        Args:
            train: a dataset of :attr:`datasets`.
            test: a dataset of :attr:`datasets`.

        Returns:
            The normalised value, or None.

        Raises:
            ValueError: a dataset is not in :attr:`datasets`.
        """
        return self.normalised[self.datasets.index(train)][self.datasets.index(test)]

    @property
    def present(self) -> tuple[Cell, ...]:
        """The cells that count, in row-major order."""
        return tuple(
            (train, test)
            for i, train in enumerate(self.datasets)
            for j, test in enumerate(self.datasets)
            if self.u[i][j] is not None
        )


def cells_from_nested(
    nested: Mapping[Hashable, Mapping[Hashable, Mapping[Hashable, float]]],
) -> dict[Cell, Mapping[Hashable, float]]:
    """Turn ``train -> test -> document -> score`` (the example's layout) into cells.

    Args:
        nested: train dataset -> test dataset -> document key -> score.

    Returns:
        ``(train, test)`` -> document key -> score.
    """
    return {(train, test): scores for train, row in nested.items() for test, scores in row.items()}


def _datasets_of(cells: Cells, datasets: Sequence[Hashable] | None, system: Hashable):
    named = {name for cell in cells for name in cell}
    if datasets is None:
        return tuple(sorted(named, key=lambda d: (type(d).__name__, str(d))))
    order = tuple(datasets)
    if len(set(order)) != len(order):
        raise UnknownDatasetError(f"system {system!r}: the datasets list repeats a dataset")
    unknown = named - set(order)
    if unknown:
        raise UnknownDatasetError(
            f"system {system!r}: cells name datasets outside {list(order)!r}: "
            f"{sorted(map(repr, unknown))}"
        )
    return order


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def cross_dataset_matrix(
    cells: Cells,
    *,
    system: Hashable = "system",
    datasets: Sequence[Hashable] | None = None,
    missing: str = MISSING_ERROR,
) -> CrossDatasetMatrix:
    """Build one system's U matrix, normalised matrix, stiffness and stableness.

    The matrix is square over ``datasets`` (every dataset is both a train and a test dataset,
    as in CDEvalSumm). Missing cells: with ``missing="error"`` (default) every cell must be
    present; with ``missing="exclude"`` an off-diagonal cell may be absent and is left out of
    stiffness and stableness (both become means over the present cells, and
    :attr:`CrossDatasetMatrix.excluded` lists what was left out). A diagonal cell is required
    under both rules: it normalises its column and is the in-dataset score.

    Args:
        cells: ``(train, test)`` -> document key -> score, for one system.
        system: the system's name, recorded and used in error messages.
        datasets: the datasets in row/column order; None: every dataset the cells name, in
            canonical order (type name, then ``str``).
        missing: ``"error"`` or ``"exclude"``.

    Returns:
        A :class:`CrossDatasetMatrix`.

    Raises:
        NoCellsError: ``cells`` is empty.
        UnknownDatasetError: a cell names a dataset outside ``datasets``, or ``datasets``
            repeats one.
        MissingCellError: a cell is missing (``"error"``) or a diagonal cell is missing.
        EmptyCellError: a cell has no per-document score.
        BadScoreError: a score is not a finite number.
        NonPositiveDiagonalError: an in-dataset score ``U_jj`` is zero or negative.
        CrossDatasetError: ``missing`` is not one of ``MISSING_RULES``.
    """
    if missing not in MISSING_RULES:
        raise CrossDatasetError(f"missing must be one of {MISSING_RULES}, got {missing!r}")
    if not cells:
        raise NoCellsError(f"system {system!r}: no (train, test) cell to evaluate")
    order = _datasets_of(cells, datasets, system)
    absent = [(tr, te) for tr in order for te in order if (tr, te) not in cells]
    diagonal_absent = [(tr, te) for tr, te in absent if tr == te]
    if diagonal_absent:
        raise MissingCellError(
            system,
            diagonal_absent,
            "the in-dataset (diagonal) cells are required: they normalise their columns",
        )
    if absent and missing == MISSING_ERROR:
        raise MissingCellError(
            system, absent, 'give every cell, or pass missing="exclude" to leave them out'
        )
    means = {
        cell: cell_mean(scores, train=cell[0], test=cell[1], system=system)
        for cell, scores in cells.items()
    }
    for dataset in order:
        value = means[(dataset, dataset)].mean
        if value <= 0:
            raise NonPositiveDiagonalError(system, dataset, value)
    u = tuple(
        tuple(means[(tr, te)].mean if (tr, te) in means else None for te in order) for tr in order
    )
    normalised = tuple(
        tuple(None if value is None else value / u[j][j] for j, value in enumerate(row))
        for row in u
    )
    n_documents = tuple(
        tuple(means[(tr, te)].n if (tr, te) in means else 0 for te in order) for tr in order
    )
    present_u = [v for row in u for v in row if v is not None]
    present_normalised = [v for row in normalised for v in row if v is not None]
    return CrossDatasetMatrix(
        system=system,
        datasets=order,
        u=u,
        normalised=normalised,
        n_documents=n_documents,
        stiffness=_mean(present_u),
        stableness=_mean(present_normalised),
        in_dataset=_mean([u[j][j] for j in range(len(order))]),
        stiffness_printed=math.fsum(present_u) / len(order),
        stableness_printed=math.fsum(present_normalised) / len(order),
        excluded=tuple(absent),
    )
