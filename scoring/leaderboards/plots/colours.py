"""One colour per system for every plot of a board: the palette in the systems' sorted order."""

from __future__ import annotations

import colorsys
from collections.abc import Iterable, Mapping

from .svg import PALETTE

# After Okabe & Ito's eight, seven of Paul Tol's (muted and bright schemes) that differ from
# them and from each other: a board of up to fifteen systems (the PolyTope release has ten)
# draws each in its own colour.
SYSTEM_PALETTE = (
    *PALETTE,
    "#882255",
    "#332288",
    "#999933",
    "#CC6677",
    "#117733",
    "#AA4499",
    "#661100",
)
# The references (the bias plots draw them beside the systems): a grey no system is given.
REFERENCE_COLOUR = "#8C8C8C"


def _extra_colour(index: int) -> str:
    """The colour of the ``index``-th system past :data:`SYSTEM_PALETTE`: hues a golden angle
    apart, alternating two lightnesses (distinct values; names still tell them apart)."""
    hue = (0.61 + index * 0.381966) % 1.0
    lightness = 0.38 if index % 2 else 0.52
    r, g, b = colorsys.hls_to_rgb(hue, lightness, 0.65)
    return f"#{round(r * 255):02X}{round(g * 255):02X}{round(b * 255):02X}"


def palette_colour(index: int) -> str:
    """The ``index``-th colour of the systems' palette (0-based): :data:`SYSTEM_PALETTE`'s,
    then a generated hue (:func:`_extra_colour`) for each system past it.

    Args:
        index: the system's place in sorted order.

    Returns:
        ``#RRGGBB``.
    """
    if index < len(SYSTEM_PALETTE):
        return SYSTEM_PALETTE[index]
    return _extra_colour(index - len(SYSTEM_PALETTE))


def system_colours(systems: Iterable[str]) -> dict[str, str]:
    """One colour per system, given in the systems' sorted order (the first fifteen distinct).

    Every plot of a board takes the same mapping, so a system has one colour on the page;
    the first fifteen come from :data:`SYSTEM_PALETTE`, more get generated hues.

    Args:
        systems: system slugs (repeats are ignored); the order given does not matter.

    Returns:
        slug -> ``#rrggbb``.
    """
    ordered = sorted({str(system) for system in systems})
    return {system: palette_colour(i) for i, system in enumerate(ordered)}


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
