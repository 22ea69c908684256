"""Aggregate per-(document, pair) figures into the overall, per-document and per-pair levels."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .corpus import Corpus
from .result import AgreementResult, Pair, Score

T = TypeVar("T")


@dataclass(frozen=True)
class UnitScores:
    """Per-unit scores of one pair on one document (``None`` = left out by a convention)."""

    values: tuple[float, ...]
    excluded: int = 0


def mean_of_units(parts: Sequence[UnitScores], empty_reason: str) -> Score:
    """Mean of every unit score in ``parts``.

    Args:
        parts: the unit scores of some (document, pair) cells.
        empty_reason: the reason given when there is no unit score at all.

    Returns:
        A :class:`Score` with ``n`` units and the summed ``excluded``; undefined (with
        ``empty_reason``) when there is no unit.

    Raises:
        Nothing.
    """
    values = [value for part in parts for value in part.values]
    excluded = sum(part.excluded for part in parts)
    if not values:
        return Score.undefined(empty_reason, excluded=excluded)
    return Score(math.fsum(values) / len(values), n=len(values), excluded=excluded)


def mean_of_scores(scores: Sequence[Score], what: str) -> Score:
    """Unweighted mean of the defined scores (e.g. Light's kappa over pair kappas).

    Args:
        scores: the scores to average.
        what: what one score is, for the reason (``"every <what> is undefined"``).

    Returns:
        A :class:`Score` whose ``n`` sums the defined scores' ``n`` and whose ``excluded``
        counts the undefined ones; undefined when none is defined.

    Raises:
        Nothing.
    """
    defined = [score for score in scores if score.value is not None]
    undefined = len(scores) - len(defined)
    if not defined:
        return Score.undefined(f"every {what} is undefined", excluded=undefined)
    value = math.fsum(score.value for score in defined) / len(defined)  # type: ignore[misc]
    return Score(value, n=sum(score.n for score in defined), excluded=undefined)


def grouped(
    corpus: Corpus[Any],
    cells: Mapping[tuple[Hashable, Pair], T],
    combine: Callable[[list[T]], Score],
) -> tuple[dict, dict, dict, Score]:
    """Combine cell data per cell, per document, per pair and overall with one function.

    Args:
        corpus: the checked corpus (for its documents and annotator order).
        cells: ``(document, (a, b))`` -> that cell's data.
        combine: turns a list of cell data into one :class:`Score`.

    Returns:
        ``(per_document_pair, per_document, per_pair, overall)``.

    Raises:
        Whatever ``combine`` raises.
    """
    by_document: dict[Hashable, list[T]] = {doc: [] for doc in corpus.documents}
    by_pair: dict[Pair, list[T]] = {}
    for (document, pair), data in cells.items():
        by_document[document].append(data)
        by_pair.setdefault(pair, []).append(data)
    return (
        {key: combine([data]) for key, data in cells.items()},
        {doc: combine(parts) for doc, parts in by_document.items()},
        {pair: combine(by_pair[pair]) for pair in sorted_pairs(corpus, by_pair)},
        combine(list(cells.values())),
    )


def sorted_pairs(corpus: Corpus[Any], pairs: Iterable[Pair]) -> list[Pair]:
    """Pairs in the order of the corpus's annotators.

    Args:
        corpus: the corpus whose annotator order to follow.
        pairs: ``(a, b)`` pairs of its annotators.

    Returns:
        The pairs sorted by the rank of ``a``, then of ``b``.

    Raises:
        KeyError: an annotator that is not in the corpus.
    """
    rank = {annotator: i for i, annotator in enumerate(corpus.annotators)}
    return sorted(pairs, key=lambda pair: (rank[pair[0]], rank[pair[1]]))


def result(
    measure: str,
    corpus: Corpus[Any],
    levels: tuple[dict, dict, dict, Score],
    options: Mapping[str, Any],
) -> AgreementResult:
    """Wrap the four levels of :func:`grouped` (or the same shape) in an AgreementResult.

    Args:
        measure: the measure's name.
        corpus: the corpus (for its annotators).
        levels: ``(per_document_pair, per_document, per_pair, overall)``.
        options: the conventions used.

    Returns:
        The frozen :class:`AgreementResult`.

    Raises:
        Nothing.
    """
    per_document_pair, per_document, per_pair, overall = levels
    return AgreementResult(
        measure=measure,
        annotators=corpus.annotators,
        overall=overall,
        per_document=per_document,
        per_pair=per_pair,
        per_document_pair=per_document_pair,
        options=options,
    )
