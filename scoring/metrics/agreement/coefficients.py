"""Chance-corrected coefficients: Krippendorff's alpha (any distance) and Cohen's kappa."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import combinations

from .result import Score

Distance = Callable[[Hashable, Hashable], float]


def coincidences(units: Iterable[Sequence[Hashable]]) -> tuple[Counter, Counter, int]:
    """Krippendorff's coincidence matrix ``o[(c, k)]`` over the pairable units.

    A unit with ``m >= 2`` values adds, for each ordered pair of its values taken from two
    different positions, ``1 / (m - 1)`` to ``o[(c, k)]``. Units with fewer than two values
    are not pairable.

    Args:
        units: per unit, the values it received (one per annotator who gave one).

    Returns:
        ``(o, n_c, skipped)``: the matrix as a Counter keyed by value pairs, the count of each
        value among the pairable values, and how many units had fewer than two values.

    Raises:
        TypeError: a value is not hashable.
    """
    matrix: Counter = Counter()
    totals: Counter = Counter()
    skipped = 0
    for unit in units:
        m = len(unit)
        if m < 2:
            skipped += 1
            continue
        counts = Counter(unit)
        totals.update(counts)
        for c, count_c in counts.items():
            for k, count_k in counts.items():
                pairs = count_c * (count_k - 1) if c == k else count_c * count_k
                if pairs:
                    matrix[(c, k)] += pairs / (m - 1)
    return matrix, totals, skipped


def krippendorff_alpha(units: Iterable[Sequence[Hashable]], distance: Distance) -> Score:
    """Krippendorff's alpha ``1 - D_o / D_e`` from the coincidence matrix, for any distance.

    ``D_o = sum_ck o_ck d(c, k) / n`` and ``D_e = sum_ck n_c n_k d(c, k) / (n (n - 1))``, where
    ``n_c`` counts value ``c`` among the pairable values and ``n`` is their number.

    Args:
        units: per unit, the values it received; values must be hashable.
        distance: symmetric distance with ``d(v, v) == 0``, e.g. nominal or MASI.

    Returns:
        A :class:`Score` with ``n`` pairable values and ``excluded`` unpairable units. It is
        undefined when no unit has two values, or when every pairable value is the same
        (``D_e = 0``: nothing to tell agreement from chance).

    Raises:
        TypeError: a value is not hashable. An undefined alpha is a :class:`Score` with a
            reason, never an error or NaN.
    """
    matrix, n_c, skipped = coincidences(units)
    n = sum(n_c.values())
    if n == 0:
        return Score.undefined("no unit has values from two annotators", excluded=skipped)
    if len(n_c) == 1:
        (only,) = n_c
        return Score.undefined(
            f"every pairable value is {only!r}: expected disagreement is 0, alpha is 0/0",
            n=n,
            excluded=skipped,
        )
    observed = math.fsum(w * distance(c, k) for (c, k), w in matrix.items() if c != k) / n
    expected = (
        2
        * math.fsum(n_c[c] * n_c[k] * distance(c, k) for c, k in combinations(n_c, 2))
        / (n * (n - 1))
    )
    if expected == 0:
        return Score.undefined(
            "the distance puts every pair of values at 0: alpha is 0/0", n=n, excluded=skipped
        )
    return Score(1 - observed / expected, n=n, excluded=skipped)


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> Score:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)`` of two annotators' categories.

    ``p_o`` is the share of pairs with equal categories; ``p_e = sum_c p_a(c) p_b(c)`` uses each
    annotator's own category shares.

    Args:
        pairs: ``(category of A, category of B)`` per item.

    Returns:
        A :class:`Score` with ``n`` items. It is undefined with no item, or when both annotators
        gave one and the same category to every item (``p_e = 1``, kappa is 0/0).

    Raises:
        TypeError: a category is not hashable. An undefined kappa is a :class:`Score` with a
            reason, never an error or NaN.
    """
    n = len(pairs)
    if n == 0:
        return Score.undefined("no item to compare")
    shares_a = Counter(a for a, _ in pairs)
    shares_b = Counter(b for _, b in pairs)
    if len(shares_a) == 1 and shares_a.keys() == shares_b.keys():
        (only,) = shares_a
        return Score.undefined(
            f"both annotators gave {only!r} to every item: chance agreement is 1, kappa is 0/0",
            n=n,
        )
    observed = sum(1 for a, b in pairs if a == b) / n
    expected = math.fsum(shares_a[c] * shares_b[c] for c in shares_a) / (n * n)
    return Score((observed - expected) / (1 - expected), n=n)
