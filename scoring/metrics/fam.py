"""Facet-Aware Mappings (FAMs): immutable types and validation with typed, precise errors."""

from __future__ import annotations

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
    """A facet index that the reference does not have."""


@dataclass(frozen=True)
class Fam:
    """A validated FAM: ``groups[f]`` holds facet ``f``'s support groups (frozensets of indices).

    A facet with no group is unsupported (high abstraction) or noise; FAR leaves it out of its
    denominator by default.
    """

    groups: tuple[tuple[frozenset[int], ...], ...]
    n_sentences: int

    @property
    def n_facets(self) -> int:
        return len(self.groups)

    def support(self, facet: int) -> frozenset[int]:
        """Union of every support sentence of ``facet``."""
        return frozenset().union(*self.groups[facet]) if self.groups[facet] else frozenset()


def validate_fam(
    mapping: Mapping[int, Sequence[Iterable[int]]] | Sequence[Sequence[Iterable[int]]],
    *,
    n_sentences: int,
    n_facets: int,
    allow_duplicate_groups: bool = False,
) -> Fam:
    """Validate a facet -> support-groups mapping and return it as an immutable :class:`Fam`.

    Args:
        mapping: either a dict ``{facet_index: [group, ...]}`` or a list indexed by facet; each
            group is an iterable of document-sentence indices.
        n_sentences: number of sentences in the document.
        n_facets: number of facets (reference sentences).
        allow_duplicate_groups: keep a repeated group instead of raising; only for public
            releases that must be stored verbatim (the FAR release repeats one group).

    Returns:
        The validated :class:`Fam`; facets missing from a dict get no groups.

    Raises:
        UnknownFacetError: a facet index outside ``0..n_facets-1``.
        EmptyGroupError: a group with no index.
        IndexOutOfRangeError: an index outside ``0..n_sentences-1`` (or not an integer).
        DuplicateGroupError: the same group twice for one facet.
    """
    items = mapping.items() if isinstance(mapping, Mapping) else enumerate(mapping)
    groups: list[tuple[frozenset[int], ...]] = [() for _ in range(n_facets)]
    for facet, facet_groups in items:
        if isinstance(facet, bool) or not isinstance(facet, int) or not 0 <= facet < n_facets:
            raise UnknownFacetError(
                f"unknown facet; the reference has {n_facets} facets", facet=facet
            )
        seen: list[frozenset[int]] = []
        for group_index, group in enumerate(facet_groups):
            members = list(group)
            if not members:
                raise EmptyGroupError("empty support group", facet=facet, group=group_index)
            for index in members:
                if isinstance(index, bool) or not isinstance(index, int):
                    raise IndexOutOfRangeError(
                        f"sentence index {index!r} is not an integer",
                        facet=facet,
                        group=group_index,
                    )
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
    return Fam(groups=tuple(groups), n_sentences=n_sentences)
