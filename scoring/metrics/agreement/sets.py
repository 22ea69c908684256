"""Per-item set comparisons: Jaccard, Dice (F1), MASI distance and best-match F1 of groups."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

SetSimilarity = Callable[[frozenset, frozenset], float]


def jaccard(a: frozenset, b: frozenset) -> float | None:
    """Jaccard index ``|a & b| / |a | b|``.

    Args:
        a: one set.
        b: the other set.

    Returns:
        The index in [0, 1]; ``None`` when both sets are empty (0/0).

    Raises:
        Nothing: 0/0 is ``None``, not an error.
    """
    union = len(a | b)
    return len(a & b) / union if union else None


def dice(a: frozenset, b: frozenset) -> float | None:
    """Dice coefficient ``2 |a & b| / (|a| + |b|)``, the F1 of one set against the other.

    Args:
        a: one set.
        b: the other set.

    Returns:
        The coefficient in [0, 1]; ``None`` when both sets are empty (0/0).

    Raises:
        Nothing: 0/0 is ``None``, not an error.
    """
    total = len(a) + len(b)
    return 2 * len(a & b) / total if total else None


# Passonneau (2006): monotonicity weight of MASI. NLTK rounds these to 0.67 and 0.33.
MASI_SUBSET = Fraction(2, 3)
MASI_OVERLAP = Fraction(1, 3)


def masi_distance(a: frozenset, b: frozenset) -> float:
    """MASI distance ``1 - J(a, b) * M(a, b)`` (Passonneau 2006).

    ``M`` is 1 if the sets are equal, 2/3 if one is a proper subset of the other, 1/3 if they
    overlap otherwise, and 0 if they are disjoint. Two equal sets, empty ones included, are at
    distance 0; an empty set and a non-empty one are at distance 1.

    Args:
        a: one set.
        b: the other set.

    Returns:
        The distance in [0, 1].

    Raises:
        Nothing: two empty sets are at distance 0.
    """
    if a == b:
        return 0.0
    common = len(a & b)
    if common == 0:
        return 1.0
    monotonicity = MASI_SUBSET if common == min(len(a), len(b)) else MASI_OVERLAP
    return float(1 - Fraction(common, len(a | b)) * monotonicity)


def nominal_distance(a: object, b: object) -> float:
    """Nominal distance between two categories.

    Args:
        a: one category.
        b: the other category.

    Returns:
        0.0 when they are equal, 1.0 otherwise.

    Raises:
        Nothing.
    """
    return 0.0 if a == b else 1.0


def _best_mean(groups: Sequence[frozenset], others: Sequence[frozenset], sim: SetSimilarity):
    return sum(max(sim(group, other) for other in others) for group in groups) / len(groups)


def best_match_f1(
    groups_a: Sequence[frozenset], groups_b: Sequence[frozenset], similarity: SetSimilarity
) -> float | None:
    """Best-match F1 between two annotators' alternative support groups of one facet.

    Recall is the mean, over A's groups, of each group's best similarity to any group of B;
    precision is the same from B's side; the result is their harmonic mean (0 when both are 0).
    Matches are not one-to-one: one group may be the best match of several.

    Args:
        groups_a: A's support groups (non-empty sets).
        groups_b: B's support groups (non-empty sets).
        similarity: group similarity in [0, 1], e.g. :func:`dice` or :func:`jaccard`.

    Returns:
        The F1 in [0, 1]; 0.0 when exactly one side has no group; ``None`` when neither has any.

    Raises:
        Nothing: "neither has a group" is ``None``, not an error.
    """
    if not groups_a and not groups_b:
        return None
    if not groups_a or not groups_b:
        return 0.0
    recall = _best_mean(groups_a, groups_b, similarity)
    precision = _best_mean(groups_b, groups_a, similarity)
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)
