"""SVG primitives for the plots: escaping, number formats, elements, scales, axes, legends."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

WIDTH = 640
HEIGHT = 420
FONT = "sans-serif"
INK = "#222222"
MUTED = "#555555"
GRID = "#e3e3e3"

# Okabe & Ito (2008), colour-blind safe; yellow (low contrast on white) and black come last.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#000000",
    "#F0E442",
)

METRIC_LABELS = {
    "far": "FAR",
    "sar": "SAR",
    "sap": "SAP",
    "saf1": "SAF1",
    **{
        f"rouge{n}_{part}": f"ROUGE-{n} {word}"
        for n in ("1", "2", "L")
        for part, word in (("p", "precision"), ("r", "recall"), ("f", "F1"))
    },
}

# Characters XML 1.0 does not allow anywhere, not even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


class PlotDataError(ValueError):
    """A value in the plotted data is not a number."""


def metric_label(metric: str) -> str:
    """The axis title of a metric key: ``"rouge1_r"`` -> ``"ROUGE-1 recall"``; unknown keys as is.

    Args:
        metric: a leaderboard metric key.

    Returns:
        The human-readable name.
    """
    return METRIC_LABELS.get(metric, metric)


def clean(text: object) -> str:
    """``text`` as a string without the characters XML 1.0 cannot hold.

    Args:
        text: anything; None becomes the empty string.

    Returns:
        The cleaned string (still to be escaped).
    """
    return _INVALID_XML.sub("\ufffd", "" if text is None else str(text))


def esc(text: object) -> str:
    """Escape ``text`` for XML character data and double-quoted attribute values.

    Args:
        text: anything; converted with :func:`str`.

    Returns:
        The escaped string.
    """
    return (
        clean(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


def number(value: object) -> float | None:
    """A finite float from a data value; None for None, NaN and infinities.

    Args:
        value: an int, float (numpy scalars too) or None.

    Returns:
        The float, or None when there is nothing to plot.

    Raises:
        PlotDataError: ``value`` is not a number (strings and booleans are refused).
    """
    if value is None:
        return None
    if isinstance(value, bool | str | bytes):
        raise PlotDataError(f"not a number: {value!r}")
    try:
        result = float(value)
    except (TypeError, ValueError) as exc:
        raise PlotDataError(f"not a number: {value!r}") from exc
    return result if math.isfinite(result) else None


def data_value(value: float) -> str:
    """The exact form of a value in a ``data-*`` attribute: ``repr`` of the Python float.

    Args:
        value: a finite number.

    Returns:
        ``repr(float(value))``, which ``float()`` turns back into the same value.
    """
    return repr(float(value))


def optional(value: float | None) -> str | None:
    """:func:`data_value` of ``value``, or None (the attribute is left out) when it is None.

    Args:
        value: a finite number or None.

    Returns:
        The attribute text or None.
    """
    return None if value is None else data_value(value)


def shown(value: float, decimals: int = 1) -> str:
    """A fraction as the papers print it: x100 with ``decimals`` decimals (0.506 -> ``"50.6"``).

    Args:
        value: a fraction.
        decimals: decimals after the point.

    Returns:
        The formatted number.
    """
    return f"{value * 100:.{decimals}f}"


def px(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros.

    Args:
        value: a coordinate in user units.

    Returns:
        Its short, deterministic text.
    """
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def attrs(values: Mapping[str, object]) -> str:
    """Attributes as XML text; None values are left out, floats go through :func:`px`.

    Args:
        values: attribute names to values (names use ``_`` for ``-``: ``data_x`` -> ``data-x``).

    Returns:
        The text, starting with a space when not empty.
    """
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        text = px(value) if isinstance(value, float) else str(value)
        parts.append(f' {name.rstrip("_").replace("_", "-")}="{esc(text)}"')
    return "".join(parts)


def el(tag: str, children: Iterable[str] | str = (), /, **attributes: object) -> str:
    """One element; ``children`` are markup, except a plain string which is text to escape.

    Args:
        tag: the element name.
        children: child markup strings, or one text string.
        **attributes: see :func:`attrs`.

    Returns:
        The element's markup.
    """
    body = esc(children) if isinstance(children, str) else "".join(children)
    if not body:
        return f"<{tag}{attrs(attributes)}/>"
    return f"<{tag}{attrs(attributes)}>{body}</{tag}>"


def text(x: float, y: float, content: str, **attributes: object) -> str:
    """A ``<text>`` element at (x, y) with the plot's default font settings.

    Args:
        x: anchor x.
        y: baseline y.
        content: the text (escaped here).
        **attributes: more attributes; ``font_size`` defaults to 12, ``fill`` to the ink colour.

    Returns:
        The element's markup.
    """
    attributes = {"font_size": 12, "fill": INK, **attributes}
    return el("text", content, x=float(x), y=float(y), **attributes)


def text_width(content: str, size: float = 12) -> float:
    """A rough width of ``content`` in a sans-serif font (for layout only).

    Args:
        content: the text.
        size: the font size.

    Returns:
        The estimated width in user units.
    """
    return 0.58 * size * len(content)


def truncate(content: str, limit: int) -> str:
    """``content`` cut to ``limit`` characters with an ellipsis when longer.

    Args:
        content: the text.
        limit: the most characters kept (ellipsis included).

    Returns:
        The possibly shortened text.
    """
    return content if len(content) <= limit else content[: limit - 1] + "\u2026"


def document(kind: str, title: str, desc: str, body: Sequence[str], height: float = HEIGHT) -> str:
    """A complete, self-contained SVG document: title text, ``<title>``, ``<desc>`` and ``body``.

    Args:
        kind: the chart kind, a class name of the root (``scatter``, ``bars``, ...).
        title: the visible and accessible title.
        desc: the accessible summary of the data.
        body: the marks' markup.
        height: the height of the drawing (the width is fixed).

    Returns:
        The SVG document.
    """
    digest = hashlib.sha1("\n".join((kind, title, desc, *body)).encode()).hexdigest()[:10]
    ident = f"loupe-{kind}-{digest}"
    height = float(math.ceil(height))
    root = el(
        "svg",
        [
            el("title", title, id=f"{ident}-title"),
            el("desc", desc, id=f"{ident}-desc"),
            el("rect", x=0, y=0, width=WIDTH, height=height, fill="#ffffff"),
            text(WIDTH / 2, 24, title, font_size=15, font_weight="bold", text_anchor="middle"),
            *body,
        ],
        xmlns="http://www.w3.org/2000/svg",
        role="img",
        aria_labelledby=f"{ident}-title {ident}-desc",
        class_=f"loupe-plot {kind}",
        width=WIDTH,
        height=height,
        viewBox=f"0 0 {WIDTH} {px(height)}",
        font_family=FONT,
    )
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + root + "\n"


def no_data(title: str, message: str = "No data") -> str:
    """The SVG drawn when nothing can be plotted: the title and a centred message.

    Args:
        title: the plot's title.
        message: the message shown.

    Returns:
        The SVG document (its root has the class ``empty``).
    """
    box = el(
        "rect",
        x=24,
        y=44,
        width=WIDTH - 48,
        height=HEIGHT - 68,
        fill="#fafafa",
        stroke=GRID,
    )
    note = text(
        WIDTH / 2,
        HEIGHT / 2 + 10,
        message,
        class_="no-data",
        font_size=16,
        fill=MUTED,
        text_anchor="middle",
    )
    return document("empty", title, f"{message}: nothing to plot.", [box, note])


@dataclass(frozen=True)
class Scale:
    """A linear map from display values (fractions x100) to pixels."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        return self.start + (value - self.lo) / (self.hi - self.lo) * (self.end - self.start)


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of ten.

    Args:
        lo: the smallest value to cover.
        hi: the largest value to cover.
        count: about how many intervals.

    Returns:
        Increasing ticks; the first is <= lo and the last >= hi.
    """
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw - 1e-12)
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
    return f"{value:.{decimals}f}"


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


def legend(entries: Sequence[tuple[str, str, str]], top: float) -> tuple[list[str], float]:
    """A legend in centred, aligned columns below the title: a swatch and a label per entry.

    Args:
        entries: ``(system, label, colour)`` triples, in order.
        top: the y of the first row's centre.

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
        parts.append(el("g", item, class_="legend-item", data_system=system))
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
