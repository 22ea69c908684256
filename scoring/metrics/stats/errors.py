"""Typed errors of the statistics helpers: too few points, mismatched documents, bad values."""

from __future__ import annotations

from collections.abc import Collection, Hashable

from ..errors import MetricsError


class StatsError(MetricsError):
    """Base class of every error raised by :mod:`scoring.metrics.stats`."""


class TooFewPointsError(StatsError):
    """A statistic needs more data points than it was given.

    Attributes:
        n: how many points were given.
        needed: the minimum number of points.
    """

    def __init__(self, what: str, *, n: int, needed: int):
        super().__init__(f"{what}: needs at least {needed} points, got {n}")
        self.n = n
        self.needed = needed


class NonFiniteValueError(StatsError):
    """An input value is NaN or infinite; ``item`` names it (an index or a key)."""

    def __init__(self, what: str, *, item: Hashable, value: float):
        super().__init__(f"{what}: value {value!r} for {item!r} is not a finite number")
        self.item = item
        self.value = value


def _preview(items: Collection[Hashable], limit: int = 5) -> str:
    """At most ``limit`` items in canonical order, then how many more."""
    shown = sorted(items, key=canonical_key)[:limit]
    more = len(items) - len(shown)
    return ", ".join(repr(i) for i in shown) + (f" and {more} more" if more else "")


class MismatchError(StatsError):
    """Two inputs that must cover the same items do not.

    Attributes:
        only_left: items present only in the first (left) input.
        only_right: items present only in the second (right) input.
    """

    kind = "items"

    def __init__(
        self,
        where: str,
        *,
        only_left: Collection[Hashable],
        only_right: Collection[Hashable],
        left: str = "first",
        right: str = "second",
    ):
        parts = []
        if only_left:
            parts.append(f"{len(only_left)} only in {left} ({_preview(only_left)})")
        if only_right:
            parts.append(f"{len(only_right)} only in {right} ({_preview(only_right)})")
        super().__init__(f"{where}: the {self.kind} differ: " + "; ".join(parts))
        self.only_left = frozenset(only_left)
        self.only_right = frozenset(only_right)


class MismatchedDocumentsError(MismatchError):
    """Paired inputs cover different documents; nothing is silently aligned on the overlap."""

    kind = "documents"


class MismatchedSystemsError(MismatchError):
    """Metric and human scores cover different systems."""

    kind = "systems"


def canonical_key(item: Hashable) -> tuple[str, str]:
    """Sort key that orders any mix of keys deterministically (type name, then ``str``).

    Args:
        item: a document or system key.

    Returns:
        A tuple usable as a sort key.

    Raises:
        Nothing.
    """
    return (type(item).__name__, str(item))


class NonPositiveDenominatorError(StatsError):
    """A ratio's denominator term is zero or negative; ``item`` names it (an index or a key).

    A pooled ratio ``sum(numerators) / sum(denominators)`` is resampled by units, so every
    denominator term must be positive (e.g. a word count): otherwise a resample could divide by
    zero, or the ratio could flip sign.
    """

    def __init__(self, what: str, *, item: Hashable, value: float):
        super().__init__(f"{what}: denominator {value!r} for {item!r} is not positive")
        self.item = item
        self.value = value
