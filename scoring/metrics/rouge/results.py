"""Immutable ROUGE results (one pair, or all pairs as matrices) and their P/R/F arithmetic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# The types of the all-pairs engine (suggestions, machine FAMs); scoring takes any of
# rouge-score's (see .config).
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
MEASURES = ("precision", "recall", "fmeasure")


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F-measure of one ROUGE type for one pair."""

    precision: float
    recall: float
    fmeasure: float

    def as_dict(self) -> dict[str, float]:
        """``{"precision": ..., "recall": ..., "fmeasure": ...}``."""
        return {"precision": self.precision, "recall": self.recall, "fmeasure": self.fmeasure}


class ByType:
    """Results held per ROUGE type, in order: ``result.rouge1``, or ``result["rougeLsum"]``
    (camel case, as rouge-score names the types)."""

    types: tuple[str, ...]
    values: tuple

    def __init__(self, *values, types: Sequence[str] = ROUGE_TYPES):
        if len(values) != len(types):
            raise ValueError(f"{len(values)} results for {len(types)} types")
        object.__setattr__(self, "types", tuple(types))
        object.__setattr__(self, "values", tuple(values))

    def __getitem__(self, rouge_type: str):
        """The result of one type.

        Raises:
            KeyError: a type not computed.
        """
        try:
            return self.values[self.types.index(rouge_type)]
        except ValueError:
            raise KeyError(rouge_type) from None

    def __getattr__(self, name: str):
        # Called only for names not found otherwise: the types.
        if name.startswith("rouge") and name not in ("types", "values"):
            try:
                return self[name]
            except KeyError:
                pass
        raise AttributeError(f"{type(self).__name__} has no {name!r}")


@dataclass(frozen=True, init=False)
class PairScores(ByType):
    """ROUGE of one (target, prediction) pair: one :class:`PRF` per type, in order.

    ``PairScores(r1, r2, rl)`` holds ROUGE-1, -2 and -L; ``types`` names others.
    """

    types: tuple[str, ...]
    values: tuple[PRF, ...]

    def as_dict(self) -> dict[str, dict[str, float]]:
        """``{"rouge1": {"precision": ..., ...}, ...}`` per type, as the CLI prints it."""
        return {name: value.as_dict() for name, value in zip(self.types, self.values, strict=True)}


def prf(overlap: int, target_count: int, prediction_count: int) -> PRF:
    """P/R/F from counts exactly as rouge-score computes them (same operations, same order).

    Args:
        overlap: matched n-grams, or the LCS length.
        target_count: the target's n-grams (or tokens for ROUGE-L).
        prediction_count: the prediction's n-grams (or tokens for ROUGE-L).

    Returns:
        ``overlap / prediction_count``, ``overlap / target_count`` and
        ``2PR / (P + R)``; a count of 0 (empty text) gives 0.0, never NaN.
    """
    precision = overlap / max(prediction_count, 1)
    recall = overlap / max(target_count, 1)
    fmeasure = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return PRF(precision, recall, fmeasure)


def _read_only(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array, dtype=np.float64)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class PRFMatrix:
    """One ROUGE type over many pairs: read-only float64 arrays, (facets, sentences) for all
    pairs of a document, (pairs,) for a list of pairs."""

    precision: np.ndarray
    recall: np.ndarray
    fmeasure: np.ndarray

    def __post_init__(self) -> None:
        for name in MEASURES:
            object.__setattr__(self, name, _read_only(getattr(self, name)))

    def measure(self, name: str) -> np.ndarray:
        """The matrix of one measure.

        Args:
            name: ``precision``, ``recall`` or ``fmeasure``.

        Returns:
            The (facets, sentences) array.

        Raises:
            ValueError: an unknown measure.
        """
        if name not in MEASURES:
            raise ValueError(f"unknown measure {name!r}; choose one of {', '.join(MEASURES)}")
        return getattr(self, name)


def prf_arrays(
    overlap: np.ndarray, target_counts: np.ndarray, prediction_counts: np.ndarray
) -> PRFMatrix:
    """Vectorised :func:`prf` over broadcastable arrays: the same IEEE operations in the same
    order, so the same bits.

    Args:
        overlap: matched counts (integral values), one per pair.
        target_counts: the targets' n-gram (or token) counts, broadcastable against ``overlap``.
        prediction_counts: the predictions' counts, broadcastable against ``overlap``.

    Returns:
        The :class:`PRFMatrix` of ``overlap``'s shape; pairs with an empty side get 0.0.
    """
    overlap = np.asarray(overlap, dtype=np.float64)
    predictions = np.maximum(np.asarray(prediction_counts, dtype=np.float64), 1.0)
    targets = np.maximum(np.asarray(target_counts, dtype=np.float64), 1.0)
    precision = overlap / predictions
    recall = overlap / targets
    total = precision + recall
    fmeasure = np.zeros_like(overlap)
    np.divide(2 * precision * recall, total, out=fmeasure, where=total > 0)
    return PRFMatrix(precision, recall, fmeasure)


def prf_matrix(
    overlap: np.ndarray, target_counts: np.ndarray, prediction_counts: np.ndarray
) -> PRFMatrix:
    """:func:`prf_arrays` of a (facets, sentences) overlap matrix.

    Args:
        overlap: (facets, sentences) matched counts, integral values.
        target_counts: (facets,) n-gram (or token) counts of the targets.
        prediction_counts: (sentences,) n-gram (or token) counts of the predictions.

    Returns:
        The :class:`PRFMatrix`; pairs with an empty side get 0.0 everywhere.
    """
    return prf_arrays(
        overlap,
        np.asarray(target_counts)[:, np.newaxis],
        np.asarray(prediction_counts)[np.newaxis, :],
    )


@dataclass(frozen=True, eq=False)
class AllPairs:
    """ROUGE-1/2/L of every facet (target, rows) against every sentence (prediction, columns)."""

    rouge1: PRFMatrix
    rouge2: PRFMatrix
    rougeL: PRFMatrix  # camel case, as rouge-score names it

    @property
    def shape(self) -> tuple[int, int]:
        """(number of facets, number of sentences)."""
        return self.rouge1.fmeasure.shape

    def avg_f(self) -> np.ndarray:
        """ROUGE-AVG F1 of the FAR paper: the mean of the ROUGE-1, -2 and -L F-measures.

        Returns:
            A new (facets, sentences) float64 array.
        """
        return (self.rouge1.fmeasure + self.rouge2.fmeasure + self.rougeL.fmeasure) / 3

    def pair(self, facet: int, sentence: int) -> PairScores:
        """The scores of one pair, as :func:`~scoring.metrics.rouge.score_pair` gives them.

        Args:
            facet: row index.
            sentence: column index.

        Returns:
            The pair's :class:`PairScores` (Python floats).

        Raises:
            IndexError: an index outside the matrices.
        """
        return PairScores(
            *(
                PRF(*(float(getattr(matrix, name)[facet, sentence]) for name in MEASURES))
                for matrix in (self.rouge1, self.rouge2, self.rougeL)
            )
        )
