"""Facet-Aware Mappings (FAMs): immutable types and validation with typed, precise errors."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .errors import MetricsError


class FamError(MetricsError):
    """Base class of every FAM validation error; names the facet and (if any) the group."""

    def __init__(self, message: str, *, facet: int | None = None, group: int | None = None):
        where = []
        if facet is not None:
            where.append(f"facet {facet}")
        if group is not None:
            where.append(f"group {group}")
        prefix = f"{', '.join(where)}: " if where else ""
        super().__init__(prefix + message)
        self.facet = facet
        self.group = group


class EmptyGroupError(FamError):
    """A support group holds no sentence."""


class IndexOutOfRangeError(FamError):
    """A sentence index is below 0 or at/above the document's sentence count."""


class DuplicateGroupError(FamError):
    """The same support group appears twice for one facet."""


class UnknownFacetError(FamError):
    """A facet index that the reference does not have, or a facet key that is not an integer."""


class InvalidCountError(FamError):
    """``n_sentences`` or ``n_facets`` is not a non-negative integer."""


@dataclass(frozen=True)
class FacetAwareMapping:
    """A validated FAM: ``groups[f]`` holds facet ``f``'s support groups (frozensets of indices).

    A facet with no group is unsupported (high abstraction) or noise; FAR leaves it out of its
    denominator by default.
    """

    groups: tuple[tuple[frozenset[int], ...], ...]
    n_sentences: int

    @property
    def n_facets(self) -> int:
        """The number of facets (reference sentences), supported or not.

        Returns:
            ``len(self.groups)``: one entry per facet, facets without a group included.
        """
        return len(self.groups)

    def support(self, facet: int) -> frozenset[int]:
        """Union of every support sentence of ``facet``.

        Args:
            facet: a facet index in ``0..n_facets-1`` (a negative index counts from the end,
                as for any tuple).

        Returns:
            The sentence indices of all the facet's groups; empty for an unsupported facet.

        Raises:
            IndexError: ``facet`` is not one of the FAM's facets.
        """
        return frozenset().union(*self.groups[facet]) if self.groups[facet] else frozenset()


def _is_integer(value: object) -> bool:
    """Any integer type (``int``, ``numpy.int64``, ...) except ``bool``.

    ``numpy.bool_`` is not a ``numbers.Integral``, so it is refused as well.
    """
    if type(value) is int:  # the usual case, without the ABC check
        return True
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _count(value: object, what: str) -> int:
    """``value`` as a plain ``int`` if it is a non-negative integer, else raise."""
    if not _is_integer(value) or int(value) < 0:
        raise InvalidCountError(f"{what} must be a non-negative integer, got {value!r}")
    return int(value)


def validate_fam(
    mapping: Mapping[int, Sequence[Iterable[int]]] | Sequence[Sequence[Iterable[int]]],
    *,
    n_sentences: int,
    n_facets: int,
    allow_duplicate_groups: bool = False,
) -> FacetAwareMapping:
    """Validate a facet -> support-groups mapping; return an immutable :class:`FacetAwareMapping`.

    Args:
        mapping: either a dict ``{facet_index: [group, ...]}`` or a list indexed by facet; each
            group is an iterable of document-sentence indices. Facet keys and sentence indices
            may be any integer type except ``bool`` (``numpy.int64`` included, as in the
            pickled FAR release); they are stored as plain ``int``.
        n_sentences: number of sentences in the document (a non-negative integer).
        n_facets: number of facets (reference sentences; a non-negative integer).
        allow_duplicate_groups: keep a repeated group instead of raising; only for public
            releases that must be stored verbatim (the FAR release repeats one group).

    Returns:
        The validated :class:`FacetAwareMapping`; facets missing from a dict get no groups.

    Raises:
        InvalidCountError: ``n_sentences`` or ``n_facets`` is negative or not an integer.
        UnknownFacetError: a facet index outside ``0..n_facets-1``, or a facet key that is not
            an integer (a bool, a string, a float).
        EmptyGroupError: a group with no index.
        IndexOutOfRangeError: an index outside ``0..n_sentences-1`` (or not an integer).
        DuplicateGroupError: the same group twice for one facet.
    """
    n_sentences = _count(n_sentences, "n_sentences")
    n_facets = _count(n_facets, "n_facets")
    items = mapping.items() if isinstance(mapping, Mapping) else enumerate(mapping)
    groups: list[tuple[frozenset[int], ...]] = [() for _ in range(n_facets)]
    for key, facet_groups in items:
        if not _is_integer(key):
            raise UnknownFacetError(
                f"facet key {key!r} is not an integer; the reference has {n_facets} facets"
            )
        facet = int(key)
        if not 0 <= facet < n_facets:
            raise UnknownFacetError(
                f"unknown facet; the reference has {n_facets} facets", facet=facet
            )
        seen: list[frozenset[int]] = []
        for group_index, group in enumerate(facet_groups):
            members = list(group)
            if not members:
                raise EmptyGroupError("empty support group", facet=facet, group=group_index)
            for position, index in enumerate(members):
                if not _is_integer(index):
                    raise IndexOutOfRangeError(
                        f"sentence index {index!r} is not an integer",
                        facet=facet,
                        group=group_index,
                    )
                index = members[position] = int(index)
                if not 0 <= index < n_sentences:
                    raise IndexOutOfRangeError(
                        f"sentence index {index} is out of range (document has {n_sentences} "
                        f"sentences: 0..{n_sentences - 1})",
                        facet=facet,
                        group=group_index,
                    )
            frozen = frozenset(members)
            if frozen in seen and not allow_duplicate_groups:
                first = seen.index(frozen)
                raise DuplicateGroupError(
                    f"duplicate support group {sorted(frozen)} (same as group {first})",
                    facet=facet,
                    group=group_index,
                )
            seen.append(frozen)
        groups[facet] = tuple(seen)
    return FacetAwareMapping(groups=tuple(groups), n_sentences=n_sentences)
