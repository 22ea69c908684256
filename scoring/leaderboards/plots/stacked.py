"""PolyTope's error breakdown: one stacked bar per annotated system, a segment per subtype."""

from __future__ import annotations

from collections.abc import Mapping

from .axes import Area, Scale, frame, legend, nice_ticks, y_axis
from .svg import HEIGHT, INK, MUTED, PALETTE, WIDTH, document, el, no_data, text
from .textfit import fit
from .values import PlotDataError

# The 8 subtypes in the official (Severity_Matrix) order, each with one palette colour.
SUBTYPE_ORDER = (
    "Addition",
    "Omission",
    "Inaccuracy Intrinsic",
    "Inaccuracy Extrinsic",
    "Positive-Negative Aspect",
    "Word Order",
    "Duplication",
    "Word Form",
)
SUBTYPE_COLOURS = dict(zip(SUBTYPE_ORDER, PALETTE, strict=True))


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PlotDataError(f"{where}: not a count: {value!r}")
    return value


def _bars(envelope: Mapping) -> list[tuple[str, str, int, dict[str, int]]]:
    """``(slug, name, annotated outputs, subtype -> errors)`` per system with a PolyTope entry."""
    bars = []
    for entry in envelope.get("systems") or []:
        polytope = entry.get("polytope")
        if not isinstance(polytope, Mapping):
            continue
        slug = str(entry.get("system") or "")
        subtypes = (polytope.get("breakdown") or {}).get("subtypes") or {}
        counts = {s: _count(subtypes.get(s, 0), f"{slug} {s}") for s in SUBTYPE_ORDER}
        bars.append((slug, str(entry.get("name") or slug), _count(polytope.get("n"), slug), counts))
    return bars


def subtype_bars_svg(envelope: Mapping, *, title: str) -> str:
    """A stacked bar per annotated system: its PolyTope errors by subtype, counted.

    Bars come in the envelope's order; each segment is a ``<rect class="segment"
    data-system= data-subtype= data-value=>`` (the count) with a tooltip, stacked in the
    official subtype order, and each bar's total is written above it. The legend (inside the
    drawing) gives each subtype its colour; the description lists every count as text.

    Args:
        envelope: the leaderboard API's envelope (each system's ``polytope`` entry).
        title: the visible and accessible title.

    Returns:
        An SVG document; the "No data" SVG when no system has an annotated output.

    Raises:
        PlotDataError: a count that is not a non-negative integer.
    """
    bars = _bars(envelope)
    if not bars:
        return no_data(title, "No annotated outputs")
    entries = [(s, s, SUBTYPE_COLOURS[s]) for s in SUBTYPE_ORDER]
    legend_marks, legend_bottom = legend(entries, top=48, key="subtype")
    area = Area(left=72, top=legend_bottom + 24, right=WIDTH - 24, bottom=HEIGHT - 58)
    totals = [sum(counts.values()) for _, _, _, counts in bars]
    ticks = nice_ticks(0.0, float(max(max(totals), 1)), whole=True)  # counts: 0, 1, 2, ...
    scale = Scale(ticks[0], ticks[-1], area.bottom, area.top)
    body = [frame(area), *legend_marks, *y_axis(area, scale, ticks, "Errors (count)")]
    slot = (area.right - area.left) / len(bars)
    width = min(slot * 0.6, 64.0)
    marks = []
    for index, (slug, name, annotated, counts) in enumerate(bars):
        centre = area.left + slot * (index + 0.5)
        base = 0
        for subtype in SUBTYPE_ORDER:
            n = counts[subtype]
            if not n:
                continue
            top, bottom = scale(base + n), scale(base)
            tip = f"{name}: {subtype} {n} of {totals[index]} errors"
            marks.append(
                el(
                    "rect",
                    [el("title", tip)],
                    class_="segment",
                    data_system=slug,
                    data_subtype=subtype,
                    data_value=n,
                    x=centre - width / 2,
                    y=top,
                    width=width,
                    height=bottom - top,
                    fill=SUBTYPE_COLOURS[subtype],
                    stroke=INK,
                    stroke_width=0.5,
                )
            )
            base += n
        marks.append(
            text(
                centre,
                scale(base) - 5,
                str(base),
                class_="total",
                data_system=slug,
                font_size=11,
                text_anchor="middle",
            )
        )
        marks.append(
            text(
                centre,
                area.bottom + 16,
                fit(name, slot - 4, 12),
                class_="bar-label",
                font_size=12,
                text_anchor="middle",
            )
        )
        marks.append(
            text(
                centre,
                area.bottom + 30,
                f"{annotated} annotated",
                class_="bar-note",
                font_size=10,
                fill=MUTED,
                text_anchor="middle",
            )
        )
    body.append(el("g", marks, class_="marks"))
    body.append(el("line", x1=area.left, y1=area.bottom, x2=area.right, y2=area.bottom, stroke=INK))
    parts = []
    for (_, name, annotated, counts), total in zip(bars, totals, strict=True):
        listed = ", ".join(f"{s} {counts[s]}" for s in SUBTYPE_ORDER if counts[s])
        parts.append(
            f"{name} ({annotated} annotated outputs): {total} errors"
            + (f": {listed}" if listed else "")
        )
    desc = (
        f"PolyTope errors by subtype for {len(bars)} system{'s' * (len(bars) != 1)}, "
        "counted over each system's annotated outputs. " + "; ".join(parts) + "."
    )
    return document("stacked", title, desc, body)
