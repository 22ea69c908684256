"""Mergeable sums of the bias measures: per-chunk partial results whose merge gives the means."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from .aggregate import DEFAULT_POSITION_BINS, BiasMeans
from .errors import BiasError, NoItemsError
from .item import ItemBias


@dataclass(frozen=True)
class BiasSums:
    """The sums and counts behind :class:`BiasMeans`, for a set of pairs.

    Two sets' sums add up field by field (:func:`sums_merge`), so pairs can be scored in chunks
    and the means taken once (:func:`sums_means`). ``coverage`` ... ``copy_length`` are sums
    over ``n_items`` pairs; ``novel[n - 1]``/``repeated[n - 1]`` sums over the
    ``ngram_counts[n - 1]`` pairs where order n is defined; ``fusion`` a sum over
    ``fusion_count`` pairs with a summary sentence; ``position`` the sum of the relative
    positions of ``position_count`` copied tokens; ``histogram`` copied tokens per bin.
    """

    n_items: int
    n_empty_summaries: int
    coverage: float
    density: float
    compression: float
    copy_length: float
    novel: tuple[float, ...]
    repeated: tuple[float, ...]
    ngram_counts: tuple[int, ...]
    fusion: float
    fusion_count: int
    position: float
    position_count: int
    histogram: tuple[int, ...]


def _check_bins(bins: object) -> int:
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise BiasError(f"bins must be a positive integer, got {bins!r}")
    return bins


def bias_sums(items: Iterable[ItemBias], *, bins: int = DEFAULT_POSITION_BINS) -> BiasSums:
    """The sums of a set of pairs' measures (the same conventions as ``aggregate``).

    Args:
        items: the pairs' :class:`ItemBias` (all scored with the same ``max_order``).
        bins: equal-width position bins (10 by default).

    Returns:
        The :class:`BiasSums`.

    Raises:
        NoItemsError: ``items`` is empty.
        BiasError: ``bins`` is not a positive integer, or the items differ in ``max_order``.
    """
    bins = _check_bins(bins)
    items = list(items)
    if not items:
        raise NoItemsError("no (document, summary) pair to add up")
    orders = {len(item.ngrams.novel) for item in items}
    if len(orders) != 1:
        raise BiasError(f"the items were scored with different max_order values: {sorted(orders)}")
    (max_order,) = orders
    novel, repeated, counts = [0.0] * max_order, [0.0] * max_order, [0] * max_order
    histogram = [0] * bins
    fusion, fusion_count, position, position_count = 0.0, 0, 0.0, 0
    for item in items:
        for n in range(max_order):
            if item.ngrams.novel[n] is not None:
                novel[n] += item.ngrams.novel[n]
                repeated[n] += item.ngrams.repeated[n]
                counts[n] += 1
        support = item.support
        if support.fusion is not None:
            fusion += support.fusion
            fusion_count += 1
        n_sentences = support.n_document_sentences
        for index in support.copied_from:
            position += index / n_sentences
            histogram[index * bins // n_sentences] += 1  # integer arithmetic, as aggregate
        position_count += len(support.copied_from)
    return BiasSums(
        n_items=len(items),
        n_empty_summaries=sum(item.fragments.summary_length == 0 for item in items),
        coverage=sum(item.fragments.coverage for item in items),
        density=sum(item.fragments.density for item in items),
        compression=sum(item.fragments.compression for item in items),
        copy_length=sum(item.fragments.copy_length for item in items),
        novel=tuple(novel),
        repeated=tuple(repeated),
        ngram_counts=tuple(counts),
        fusion=fusion,
        fusion_count=fusion_count,
        position=position,
        position_count=position_count,
        histogram=tuple(histogram),
    )


def sums_merge(parts: Iterable[BiasSums]) -> BiasSums:
    """Add several sets' sums (disjoint sets of pairs) field by field.

    Args:
        parts: the sums, e.g. one per chunk of a source's pairs.

    Returns:
        The sums of all their pairs.

    Raises:
        NoItemsError: ``parts`` is empty.
        BiasError: the parts differ in ``max_order`` or in the number of bins.
    """
    parts = list(parts)
    if not parts:
        raise NoItemsError("no partial sums to merge")
    shapes = {(len(p.novel), len(p.histogram)) for p in parts}
    if len(shapes) != 1:
        raise BiasError(f"the partial sums differ in (max_order, bins): {sorted(shapes)}")
    fields = {}
    for name, first in asdict(parts[0]).items():
        if isinstance(first, list | tuple):
            columns = zip(*(getattr(p, name) for p in parts), strict=True)
            fields[name] = tuple(sum(values) for values in columns)
        else:
            fields[name] = sum(getattr(p, name) for p in parts)
    return BiasSums(**fields)


def sums_means(sums: BiasSums) -> BiasMeans:
    """The means of the pairs behind ``sums``: what ``aggregate`` gives for the same pairs
    (up to floating-point summation order).

    Args:
        sums: the sums of at least one pair.

    Returns:
        The :class:`BiasMeans`.

    Raises:
        NoItemsError: ``sums`` holds no pair.
    """
    n = sums.n_items
    if n < 1:
        raise NoItemsError("no (document, summary) pair: the means are undefined")
    counted = sums.position_count
    orders = list(zip(sums.novel, sums.repeated, sums.ngram_counts, strict=True))
    return BiasMeans(
        n_items=n,
        n_empty_summaries=sums.n_empty_summaries,
        coverage=sums.coverage / n,
        density=sums.density / n,
        compression=sums.compression / n,
        copy_length=sums.copy_length / n,
        novel=tuple(novel / c if c else None for novel, _, c in orders),
        repeated=tuple(repeated / c if c else None for _, repeated, c in orders),
        ngram_counts=sums.ngram_counts,
        fusion=sums.fusion / sums.fusion_count if sums.fusion_count else None,
        mean_position=sums.position / counted if counted else None,
        position_histogram=tuple(c / counted if counted else 0.0 for c in sums.histogram),
    )


def sums_from_dict(data: dict) -> BiasSums:
    """Rebuild :class:`BiasSums` from ``dataclasses.asdict`` output read back from JSON.

    Args:
        data: the dict (lists in place of tuples).

    Returns:
        The sums.

    Raises:
        BiasError: a field is missing or unknown.
    """
    try:
        return BiasSums(**{key: tuple(v) if isinstance(v, list) else v for key, v in data.items()})
    except TypeError as error:
        raise BiasError(f"not a BiasSums: {error}") from None
