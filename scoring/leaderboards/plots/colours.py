"""One colour per system for every plot of a board: the palette in the systems' sorted order."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .svg import PALETTE


def system_colours(systems: Iterable[str]) -> dict[str, str]:
    """One palette colour per system, given in the systems' sorted order.

    Every plot of a board takes the same mapping, so a system has one colour on the page;
    past :data:`PALETTE`'s eight colours they repeat (names and numbers still tell them apart).

    Args:
        systems: system slugs (repeats are ignored); the order given does not matter.

    Returns:
        slug -> ``#rrggbb``.
    """
    ordered = sorted({str(system) for system in systems})
    return {system: PALETTE[i % len(PALETTE)] for i, system in enumerate(ordered)}


def colours_for(systems: Iterable[str], colours: Mapping[str, str] | None) -> dict[str, str]:
    """The colour of each of a plot's systems: ``colours`` where given, else by sorted order.

    Args:
        systems: the plot's system slugs.
        colours: the board's mapping (see :func:`system_colours`), or None.

    Returns:
        slug -> colour for every system in ``systems``.
    """
    systems = [str(system) for system in systems]
    return {**system_colours(systems), **{s: c for s, c in (colours or {}).items() if s in systems}}
