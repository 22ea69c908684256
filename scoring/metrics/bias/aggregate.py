"""Means of the per-pair bias measures over a dataset or a system's outputs, and per dataset."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from .errors import BiasError, NoItemsError
from .item import ItemBias

# Equal-width bins of the relative position of the supporting content, [0, 0.1), ... [0.9, 1).
DEFAULT_POSITION_BINS = 10


@dataclass(frozen=True)
class BiasMeans:
    """Mean bias measures of a set of pairs.

    Coverage, density, compression and copy length are means over all ``n_items`` pairs
    (an empty summary counts with newsroom's 0.0; ``n_empty_summaries`` says how many).
    ``novel[n - 1]``/``repeated[n - 1]`` are means over the pairs where the order is defined,
    ``ngram_counts[n - 1]`` of them (None when none is). ``fusion`` is the mean of the pairs'
    fusion shares over pairs with at least one summary sentence. ``position_histogram`` pools
    every copied token: the share falling in each of the equal-width position bins (all 0.0
    when nothing is copied); ``mean_position`` is the pooled mean (None when nothing is copied).
    """

    n_items: int
    n_empty_summaries: int
    coverage: float
    density: float
    compression: float
    copy_length: float
    novel: tuple[float | None, ...]
    repeated: tuple[float | None, ...]
    ngram_counts: tuple[int, ...]
    fusion: float | None
    mean_position: float | None
    position_histogram: tuple[float, ...]


def aggregate(items: Iterable[ItemBias], *, bins: int = DEFAULT_POSITION_BINS) -> BiasMeans:
    """Means of the bias measures over a set of pairs.

    Args:
        items: the pairs' :class:`ItemBias` (all scored with the same ``max_order``).
        bins: how many equal-width position bins (10 by default).

    Returns:
        The :class:`BiasMeans`.

    Raises:
        NoItemsError: ``items`` is empty.
        BiasError: ``bins`` is not a positive integer, or the items differ in ``max_order``.
    """
    from .partial import bias_sums, sums_means  # partial builds on BiasMeans, defined here

    items = list(items)
    if not items:
        raise NoItemsError("no (document, summary) pair to aggregate: the means are undefined")
    # The sums add the values in the items' order, as a mean over them does: the same floats.
    return sums_means(bias_sums(items, bins=bins))


def aggregate_by(
    items: Iterable[tuple[Hashable, ItemBias]], *, bins: int = DEFAULT_POSITION_BINS
) -> dict[Hashable, BiasMeans]:
    """:func:`aggregate` per group, e.g. per dataset or per system.

    Args:
        items: ``(group, ItemBias)`` pairs, in any order.
        bins: as in :func:`aggregate`.

    Returns:
        Each group's :class:`BiasMeans`, groups in order of first appearance.

    Raises:
        NoItemsError: ``items`` is empty.
        BiasError: as :func:`aggregate`, with the group named.
    """
    groups: dict[Hashable, list[ItemBias]] = {}
    for group, item in items:
        groups.setdefault(group, []).append(item)
    if not groups:
        raise NoItemsError("no (group, pair) to aggregate: the means are undefined")
    result = {}
    for group, members in groups.items():
        try:
            result[group] = aggregate(members, bins=bins)
        except BiasError as error:
            raise type(error)(f"group {group!r}: {error}") from None
    return result
