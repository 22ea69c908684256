"""Scales and round ticks, the x and y axes, the legend and the plot area of the charts."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .svg import GRID, INK, WIDTH, el, px, text
from .textfit import text_width
from .values import fixed


@dataclass(frozen=True)
class Scale:
    """A linear map from display values (fractions x100) to pixels."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        return self.start + (value - self.lo) / (self.hi - self.lo) * (self.end - self.start)


def nice_ticks(lo: float, hi: float, count: int = 5, *, whole: bool = False) -> list[float]:
    """Round tick values covering [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of ten.

    Args:
        lo: the smallest value to cover.
        hi: the largest value to cover.
        count: about how many intervals.
        whole: counts: only whole steps (at least 1, never 2.5), so no tick reads 0.5.

    Returns:
        Increasing ticks; the first is <= lo and the last >= hi.
    """
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    raw = (hi - lo) / count
    if whole:
        raw = max(raw, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    steps = [m * power for m in (1, 2, 2.5, 5, 10)]
    if whole:
        steps = [m for m in steps if abs(m - round(m)) < 1e-9]
    step = next(m for m in steps if m >= raw - 1e-12)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


def tick_label(value: float, ticks: Sequence[float]) -> str:
    """A tick's label with as many decimals as the step needs.

    Args:
        value: the tick.
        ticks: all ticks (for the step).

    Returns:
        The label.
    """
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1
    decimals = 0
    while decimals < 4 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-6:
        decimals += 1
    return fixed(value, decimals)


def domain(values: Iterable[float], *, zero: bool = False, pad: float = 0.06) -> list[float]:
    """Ticks for display values (fractions x100), padded and kept in [0, 100] where the data is.

    Args:
        values: the display values to cover.
        zero: start at 0 (bar charts).
        pad: the share of the range added at both ends before rounding.

    Returns:
        The ticks (see :func:`nice_ticks`); the first and last are the scale's ends.
    """
    values = list(values)
    lo, hi = min(values), max(values)
    if zero:
        lo = min(lo, 0.0)
    span = hi - lo or max(abs(hi), 1.0) * 0.2
    low = lo if zero else lo - span * pad
    high = hi + span * pad
    if lo >= 0:
        low = max(low, 0.0)
    if hi <= 100:
        high = min(high, 100.0)
    return nice_ticks(low, high)


@dataclass(frozen=True)
class Area:
    """The plot area in pixels."""

    left: float
    top: float
    right: float
    bottom: float

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x <= self.right and self.top <= y <= self.bottom


def x_axis(area: Area, scale: Scale, ticks: Sequence[float], title: str, grid: bool) -> list[str]:
    """The bottom axis: ticks, labels, optional vertical grid lines and the axis title.

    Args:
        area: the plot area.
        scale: the x scale.
        ticks: tick values (display units).
        title: the axis title.
        grid: draw grid lines across the area.

    Returns:
        Markup in a ``<g class="x-axis">``.
    """
    parts = []
    for tick in ticks:
        x = scale(tick)
        if grid and area.left < x < area.right:
            parts.append(el("line", x1=x, y1=area.top, x2=x, y2=area.bottom, stroke=GRID))
        parts.append(el("line", x1=x, y1=area.bottom, x2=x, y2=area.bottom + 5, stroke=INK))
        label = tick_label(tick, ticks)
        parts.append(text(x, area.bottom + 18, label, font_size=11, text_anchor="middle"))
    parts.append(
        el("line", x1=area.left, y1=area.bottom, x2=area.right, y2=area.bottom, stroke=INK)
    )
    middle = (area.left + area.right) / 2
    parts.append(text(middle, area.bottom + 38, title, font_size=13, text_anchor="middle"))
    return [el("g", parts, class_="x-axis")]


def y_axis(area: Area, scale: Scale, ticks: Sequence[float], title: str) -> list[str]:
    """The left axis: ticks, labels, horizontal grid lines and the rotated axis title.

    Args:
        area: the plot area.
        scale: the y scale.
        ticks: tick values (display units).
        title: the axis title.

    Returns:
        Markup in a ``<g class="y-axis">``.
    """
    parts = []
    for tick in ticks:
        y = scale(tick)
        parts.append(el("line", x1=area.left, y1=y, x2=area.right, y2=y, stroke=GRID))
        parts.append(el("line", x1=area.left - 5, y1=y, x2=area.left, y2=y, stroke=INK))
        label = tick_label(tick, ticks)
        parts.append(text(area.left - 8, y + 4, label, font_size=11, text_anchor="end"))
    parts.append(el("line", x1=area.left, y1=area.top, x2=area.left, y2=area.bottom, stroke=INK))
    middle = (area.top + area.bottom) / 2
    parts.append(
        text(
            area.left - 42,
            middle,
            title,
            font_size=13,
            text_anchor="middle",
            transform=f"rotate(-90 {px(area.left - 42)} {px(middle)})",
        )
    )
    return [el("g", parts, class_="y-axis")]


def legend(
    entries: Sequence[tuple[str, str, str]], top: float, *, key: str = "system"
) -> tuple[list[str], float]:
    """A legend in centred, aligned columns below the title: a swatch and a label per entry.

    Args:
        entries: ``(system, label, colour)`` triples, in order (the first item is the key an
            entry carries as its ``data-<key>`` attribute).
        top: the y of the first row's centre.
        key: what the entries are (``system``; ``subtype`` in the PolyTope breakdown).

    Returns:
        The markup (a ``<g class="legend">``) and the y just below the last row.
    """
    available = WIDTH - 48
    column = min(max(18 + text_width(label, 12) + 18 for _, label, _ in entries), available)
    columns = max(1, min(len(entries), int(available // column)))
    left = 24 + (available - columns * column) / 2
    parts = []
    for index, (system, label, colour) in enumerate(entries):
        x = left + (index % columns) * column
        y = top + (index // columns) * 18
        item = [
            el(
                "rect", x=x, y=y - 6, width=12, height=12, fill=colour, stroke=INK, stroke_width=0.5
            ),
            text(x + 18, y + 4, label),
        ]
        parts.append(el("g", item, class_="legend-item", **{f"data_{key}": system}))
    rows = (len(entries) + columns - 1) // columns
    return [el("g", parts, class_="legend")], top + (rows - 1) * 18 + 12


def frame(area: Area) -> str:
    """An invisible ``<rect class="plot-area">`` marking the plot area (for checks and styling).

    Args:
        area: the plot area.

    Returns:
        The element's markup.
    """
    return el(
        "rect",
        class_="plot-area",
        x=float(area.left),
        y=float(area.top),
        width=float(area.right - area.left),
        height=float(area.bottom - area.top),
        fill="none",
        stroke="none",
    )
