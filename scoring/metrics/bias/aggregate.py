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


def _mean(values: list[float]) -> float | None:
    """Mean of a list, None when it is empty."""
    return sum(values) / len(values) if values else None


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
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise BiasError(f"bins must be a positive integer, got {bins!r}")
    items = list(items)
    if not items:
        raise NoItemsError("no (document, summary) pair to aggregate: the mean is undefined")
    orders = {len(item.ngrams.novel) for item in items}
    if len(orders) != 1:
        raise BiasError(f"the items were scored with different max_order values: {sorted(orders)}")
    (max_order,) = orders
    novel, repeated, counts = [], [], []
    for n in range(max_order):
        defined = [item.ngrams for item in items if item.ngrams.novel[n] is not None]
        novel.append(_mean([stats.novel[n] for stats in defined]))
        repeated.append(_mean([stats.repeated[n] for stats in defined]))
        counts.append(len(defined))
    positions = [p for item in items for p in item.support.positions]
    histogram = [0] * bins
    for item in items:
        n_sentences = item.support.n_document_sentences
        for index in item.support.copied_from:
            # Integer arithmetic: index / n_sentences * bins in floats can fall just short of
            # a bin edge (1 / 49 * 49 < 1).
            histogram[index * bins // n_sentences] += 1
    fusions = [item.support.fusion for item in items if item.support.fusion is not None]
    n = len(items)
    return BiasMeans(
        n_items=n,
        n_empty_summaries=sum(item.fragments.summary_length == 0 for item in items),
        coverage=sum(item.fragments.coverage for item in items) / n,
        density=sum(item.fragments.density for item in items) / n,
        compression=sum(item.fragments.compression for item in items) / n,
        copy_length=sum(item.fragments.copy_length for item in items) / n,
        novel=tuple(novel),
        repeated=tuple(repeated),
        ngram_counts=tuple(counts),
        fusion=_mean(fusions),
        mean_position=_mean(positions),
        position_histogram=tuple(c / len(positions) if positions else 0.0 for c in histogram),
    )


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
