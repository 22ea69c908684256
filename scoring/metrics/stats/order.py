"""The order in which statistics take documents (or any keys): a given order, or canonical.

A mean, a bootstrap interval, a paired test or a correlation over documents adds, resamples
and pairs them in some order, and the last bits of a float sum and the draws of a bootstrap
depend on it. Keys alone say nothing about a dataset's order: database ids differ between two
copies of the same dataset, and their text sorts "10" before "9". So a caller that knows the
documents' order (a dataset's: position, then external id) passes it as ``order``; the figures
then depend only on the documents' content and order. Without one, keys are taken in
:func:`~.errors.canonical_key` order, which does not depend on a mapping's order either.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Iterator

from .errors import StatsError, _preview, canonical_key


class UnorderedKeyError(StatsError):
    """Keys to be ordered that the given order does not list.

    Attributes:
        missing: the keys that are not in the order.
    """

    def __init__(self, what: str, *, missing: Collection[Hashable]):
        super().__init__(
            f"{what}: {len(missing)} keys are not in the given order ({_preview(missing)})"
        )
        self.missing = frozenset(missing)


class KeyOrder:
    """A fixed order of keys, e.g. a dataset's documents by position, then external id.

    Build it once from the keys in order and pass it to every statistic: sorting by it looks
    each key's position up in a dict.
    """

    __slots__ = ("_all", "_rank")

    def __init__(self, keys: Iterable[Hashable]):
        """Number the keys in the order given.

        Args:
            keys: every key once, in order (a mapping gives its keys in insertion order).

        Raises:
            StatsError: a key appears twice.
        """
        rank: dict[Hashable, int] = {}
        for key in keys:
            if key in rank:
                raise StatsError(f"key order: {key!r} appears twice")
            rank[key] = len(rank)
        self._rank = rank
        self._all = tuple(rank)

    def __contains__(self, key: object) -> bool:
        return key in self._rank

    def __len__(self) -> int:
        return len(self._rank)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._rank)

    def position(self, key: Hashable) -> int:
        """The key's position in the order (0 first).

        Args:
            key: a key of the order.

        Returns:
            Its position.

        Raises:
            UnorderedKeyError: the key is not in the order.
        """
        try:
            return self._rank[key]
        except KeyError:
            raise UnorderedKeyError("key order", missing=[key]) from None

    def sort(self, keys: Iterable[Hashable], *, what: str = "key order") -> tuple[Hashable, ...]:
        """Some of the keys, in this order.

        Args:
            keys: keys of the order (each once).
            what: names the caller in the error.

        Returns:
            The keys as a tuple in this order.

        Raises:
            UnorderedKeyError: some key is not in the order (all such keys are named).
        """
        keys = list(keys)
        rank = self._rank
        missing = [key for key in keys if key not in rank]
        if missing:
            raise UnorderedKeyError(what, missing=missing)
        if len(keys) == len(rank) and len(set(keys)) == len(keys):
            return self._all  # every key of the order (a leaderboard's usual column)
        return tuple(sorted(keys, key=rank.__getitem__))


Order = KeyOrder | Iterable[Hashable] | None


def key_order(order: Order) -> KeyOrder | None:
    """A :class:`KeyOrder` from what a caller gave (built once, then passed on as is).

    Args:
        order: a :class:`KeyOrder`, the keys in order (a sequence, or a mapping whose keys
            are in order), or None for the canonical order.

    Returns:
        The :class:`KeyOrder`, or None.

    Raises:
        StatsError: a key appears twice.
    """
    if order is None or isinstance(order, KeyOrder):
        return order
    return KeyOrder(order)


def in_order(
    keys: Iterable[Hashable], order: Order = None, *, what: str = "key order"
) -> tuple[Hashable, ...]:
    """Keys in the given order, or in canonical key order (type name, then text) without one.

    Args:
        keys: the keys to order (each once).
        order: see :func:`key_order`.
        what: names the caller in the error.

    Returns:
        The keys as a tuple.

    Raises:
        UnorderedKeyError: ``order`` is given and does not list some key.
        StatsError: ``order`` lists a key twice.
    """
    order = key_order(order)
    if order is None:
        return tuple(sorted(keys, key=canonical_key))
    return order.sort(keys, what=what)
