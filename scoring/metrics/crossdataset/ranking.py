"""Ranking of systems by stiffness, stableness and the in-dataset mean (the U matrix's diagonal)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .errors import MismatchedCellsError, NoCellsError
from .matrix import CrossDatasetMatrix

MEASURES = ("stiffness", "stableness", "in_dataset")


@dataclass(frozen=True)
class SystemRank:
    """One system's three figures and its rank by each (1 is best; ties share a rank).

    Attributes:
        system: the system's name.
        stiffness: mean of its U matrix.
        stableness: mean of its normalised matrix.
        in_dataset: mean of its diagonal.
        rank_stiffness: competition rank by stiffness (1 + systems strictly higher).
        rank_stableness: competition rank by stableness.
        rank_in_dataset: competition rank by the in-dataset mean.
    """

    system: Hashable
    stiffness: float
    stableness: float
    in_dataset: float
    rank_stiffness: int
    rank_stableness: int
    rank_in_dataset: int


@dataclass(frozen=True)
class CrossDatasetRanking:
    """Systems ranked three ways, on the same datasets and cells.

    Attributes:
        datasets: the datasets every matrix covers, in row/column order.
        systems: one :class:`SystemRank` per system, in the order given.
    """

    datasets: tuple[Hashable, ...]
    systems: tuple[SystemRank, ...]

    def order(self, measure: str) -> tuple[Hashable, ...]:
        """The systems, best first, by ``measure``; ties keep the order they were given in.

        Args:
            measure: ``"stiffness"``, ``"stableness"`` or ``"in_dataset"``.

        Returns:
            The system names, best first.

        Raises:
            ValueError: an unknown measure.
        """
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {MEASURES}, got {measure!r}")
        ranked = sorted(self.systems, key=lambda s: getattr(s, f"rank_{measure}"))
        return tuple(s.system for s in ranked)


def _competition_ranks(values: Sequence[float]) -> list[int]:
    """1 + the number of values strictly greater, so equal values share a rank (1, 1, 3)."""
    return [1 + sum(other > value for other in values) for value in values]


def rank_systems(matrices: Sequence[CrossDatasetMatrix]) -> CrossDatasetRanking:
    """Rank systems by stiffness, stableness and the in-dataset mean, higher is better.

    Systems are comparable only on the same datasets and the same present cells, so the
    matrices must agree on both (an excluded cell must be excluded for every system).

    Args:
        matrices: one :class:`CrossDatasetMatrix` per system (distinct system names).

    Returns:
        A :class:`CrossDatasetRanking`.

    Raises:
        NoCellsError: no matrices.
        MismatchedCellsError: systems repeat, or cover different datasets or cells.
    """
    if not matrices:
        raise NoCellsError("no systems to rank")
    names = [m.system for m in matrices]
    if len(set(names)) != len(names):
        raise MismatchedCellsError(f"a system appears twice among {names!r}")
    first = matrices[0]
    for other in matrices[1:]:
        if other.datasets != first.datasets or other.present != first.present:
            raise MismatchedCellsError(
                f"systems {first.system!r} and {other.system!r} cover different datasets or "
                f"cells ({list(first.datasets)!r} with {len(first.present)} cells against "
                f"{list(other.datasets)!r} with {len(other.present)}); rank them on the same ones"
            )
    ranks = {m: _competition_ranks([getattr(x, m) for x in matrices]) for m in MEASURES}
    systems = tuple(
        SystemRank(
            system=m.system,
            stiffness=m.stiffness,
            stableness=m.stableness,
            in_dataset=m.in_dataset,
            rank_stiffness=ranks["stiffness"][i],
            rank_stableness=ranks["stableness"][i],
            rank_in_dataset=ranks["in_dataset"][i],
        )
        for i, m in enumerate(matrices)
    )
    return CrossDatasetRanking(datasets=first.datasets, systems=systems)
