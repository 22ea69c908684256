"""Per-document distribution per system: a horizontal box plot over a strip of jittered dots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .axes import Area, Scale, domain, frame, x_axis
from .colours import colours_for
from .svg import GRID, HEIGHT, INK, MUTED, WIDTH, document, el, no_data, text
from .textfit import fit, text_width, wrap
from .values import data_value, metric_label, number, shown

GOLDEN = 0.6180339887498949
MIN_ROW = 36.0
MARGIN = 24.0  # between the drawing's edges and anything in it
LABEL_ROOM = 190.0  # the widest a system's name may be, left of the plot
KEY_SIZE = 10
KEY_LINE = 13.0


def box_statistics(values: Sequence[float]) -> dict[str, float]:
    """Quartiles (numpy's linear interpolation), mean and Tukey whiskers of ``values``.

    The whiskers reach the furthest values within 1.5 IQR of the quartiles; values beyond
    them are still drawn as dots.

    Args:
        values: at least one finite number.

    Returns:
        ``min, q1, median, q3, max, mean, whisker_low, whisker_high`` as Python floats.

    Raises:
        ValueError: ``values`` is empty.
    """
    if not len(values):
        raise ValueError("box_statistics needs at least one value")
    data = np.asarray(values, dtype=float)
    q1, median, q3 = (float(v) for v in np.percentile(data, [25, 50, 75]))
    fence = 1.5 * (q3 - q1)
    return {
        "min": float(data.min()),
        "q1": q1,
        "median": median,
        "q3": q3,
        "max": float(data.max()),
        "mean": float(data.mean()),
        "whisker_low": float(data[data >= q1 - fence].min()),
        "whisker_high": float(data[data <= q3 + fence].max()),
    }


# Above this many documents a row shows this many dots, evenly spaced by rank: 11,490 dots per
# system would make a page-sized SVG of megabytes, and the box already summarises them.
MAX_DOTS = 400


def _thinned(values: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """At most :data:`MAX_DOTS` of ``(index, value)`` pairs: every k-th one in value order."""
    if len(values) <= MAX_DOTS:
        return values
    ranked = sorted(values, key=lambda pair: (pair[1], pair[0]))
    step = len(ranked) / MAX_DOTS
    return [ranked[int(i * step)] for i in range(MAX_DOTS)]


def _row(slug, name, values, stats, colour, band, scale, n) -> list[str]:
    """One system's row: dots in the lower part of its band, the box plot above them."""
    top, height = band
    middle = top + height / 2
    box_mid = middle - min(height * 0.16, 12.0)
    box_half = min(height * 0.2, 12.0)
    dots_top, dots_span = middle + min(height * 0.12, 6.0), min(height * 0.3, 36.0)
    dots = [
        el(
            "circle",
            class_="doc-point",
            data_system=slug,
            data_index=index,
            data_value=data_value(value),
            cx=scale(value * 100),
            cy=dots_top + dots_span * ((index * GOLDEN) % 1.0),
            r=2.2,
            fill=colour,
            fill_opacity=0.55,
        )
        for index, value in values
    ]
    x = {key: scale(value * 100) for key, value in stats.items()}
    whiskers = (
        f"M{x['whisker_low']:.2f} {box_mid:.2f}H{x['q1']:.2f}"
        f"M{x['q3']:.2f} {box_mid:.2f}H{x['whisker_high']:.2f}"
        f"M{x['whisker_low']:.2f} {box_mid - box_half / 2:.2f}v{box_half:.2f}"
        f"M{x['whisker_high']:.2f} {box_mid - box_half / 2:.2f}v{box_half:.2f}"
    )
    mean = f"M{x['mean']:.2f} {box_mid - 5:.2f}l4 5l-4 5l-4 -5z"
    tip = (
        f"{name}: median {shown(stats['median'])}, quartiles {shown(stats['q1'])}\u2013"
        f"{shown(stats['q3'])}, mean {shown(stats['mean'])}, n={n}"
    )
    box = el(
        "g",
        [
            el("title", tip),
            el("path", class_="whisker", d=whiskers, stroke=INK, stroke_width=1.2, fill="none"),
            el(
                "rect",
                class_="iqr",
                x=x["q1"],
                y=box_mid - box_half,
                width=max(x["q3"] - x["q1"], 1.0),
                height=2 * box_half,
                fill=colour,
                fill_opacity=0.35,
                stroke=INK,
                stroke_width=1.2,
            ),
            el(
                "line",
                class_="median",
                x1=x["median"],
                y1=box_mid - box_half,
                x2=x["median"],
                y2=box_mid + box_half,
                stroke=INK,
                stroke_width=2.5,
            ),
            el("path", class_="mean", d=mean, fill="#ffffff", stroke=INK, stroke_width=1.2),
        ],
        class_="box",
        data_system=slug,
        data_name=name,
        data_n=n,
        **{f"data_{key}": data_value(value) for key, value in stats.items()},
    )
    return [el("g", dots, class_="points", data_system=slug), box]


def distribution_svg(
    per_document: Mapping[str, Sequence[float | None]],
    *,
    metric: str = "far",
    title: str,
    names: Mapping[str, str] | None = None,
    colours: Mapping[str, str] | None = None,
) -> str:
    """Per-document distribution of a metric per system: box plot plus one dot per document.

    Boxes span the quartiles (numpy's linear interpolation) with the median as a bar and the
    mean as a diamond; whiskers reach the furthest document within 1.5 IQR of the quartiles
    (Tukey); every document is a dot, jittered vertically by its index (golden-ratio
    sequence, no randomness). Each box is a ``<g class="box" data-system= data-n=
    data-min= data-q1= data-median= data-q3= data-max= data-mean= data-whisker-low=
    data-whisker-high=>`` and each dot a ``<circle class="doc-point" data-system=
    data-index= data-value=>`` (``data-index`` is the position in the input list); values
    are ``repr`` of Python floats (fractions). None and NaN values are left out of ``n``.

    The legend stays inside the drawing whatever the names: each row's name (cut to fit) and
    its ``n`` start at the left margin, and the key to the marks (``<g class="legend key">``)
    is wrapped into lines under the axis.

    Args:
        per_document: per system slug, its per-document values (fractions), rows in this order.
        metric: the metric key, for the axis title, e.g. ``"far"``.
        title: the visible and accessible title.
        names: display names per slug (the slug when absent).
        colours: the board's colour per slug (see ``system_colours``); by sorted slug if None.

    Returns:
        An SVG document; the "No data" SVG when no system has a value.

    Raises:
        PlotDataError: a value is not a number.
    """
    names = names or {}
    rows = []
    for slug, raw in per_document.items():
        values = [(i, v) for i, v in enumerate(number(v) for v in raw) if v is not None]
        if values:
            name = str(names.get(slug) or slug)
            rows.append((str(slug), name, values, box_statistics([v for _, v in values])))
    if not rows:
        return no_data(title)

    palette = colours_for((slug for slug, *_ in rows), colours)
    labels = [fit(name, LABEL_ROOM, 12) for _, name, _, _ in rows]
    counts = [f"n = {len(values)}" for _, _, values, _ in rows]
    label_width = max(48.0, *(text_width(label, 12) for label in labels))
    label_width = max(label_width, *(text_width(count, 11) for count in counts))
    note = (
        "Box: quartiles \u00b7 bar: median \u00b7 \u25c7: mean \u00b7 whiskers: furthest document"
        f" within 1.5 IQR \u00b7 dots: documents (at most {MAX_DOTS} per system, evenly spaced"
        " by rank)."
    )
    key_lines = wrap(note, WIDTH - 2 * MARGIN, KEY_SIZE)
    below = 58.0 + KEY_LINE * (len(key_lines) - 1) + 6  # axis labels, title and the key
    top = 44.0
    height = max(HEIGHT, top + MIN_ROW * len(rows) + below)
    area = Area(left=MARGIN + label_width + 14, top=top, right=WIDTH - 28, bottom=height - below)
    ticks = domain(v * 100 for _, _, values, _ in rows for _, v in values)
    scale = Scale(ticks[0], ticks[-1], area.left, area.right)
    label = metric_label(metric)
    row_height = (area.bottom - area.top) / len(rows)
    body = [frame(area)]
    body += [
        el(
            "rect",
            class_="band",
            x=area.left,
            y=area.top + i * row_height,
            width=area.right - area.left,
            height=row_height,
            fill="#f5f5f5",
        )
        for i in range(1, len(rows), 2)
    ]
    body += x_axis(area, scale, ticks, f"{label} per document (\u00d7100)", grid=True)
    for i, (slug, name, values, stats) in enumerate(rows):
        band_top = area.top + i * row_height
        middle = band_top + row_height / 2
        body.append(text(MARGIN, middle - 1, labels[i], class_="row-label", data_system=slug))
        body.append(
            text(
                MARGIN,
                middle + 13,
                counts[i],
                class_="row-n",
                data_system=slug,
                font_size=11,
                fill=MUTED,
            )
        )
        band = (band_top, row_height)
        body += _row(slug, name, _thinned(values), stats, palette[slug], band, scale, len(values))
    body.append(el("line", x1=area.left, y1=area.top, x2=area.left, y2=area.bottom, stroke=GRID))
    key = [
        text(
            MARGIN,
            area.bottom + 58 + KEY_LINE * i,
            line,
            class_="note",
            font_size=KEY_SIZE,
            fill=MUTED,
        )
        for i, line in enumerate(key_lines)
    ]
    body.append(el("g", key, class_="legend key"))
    summary = "; ".join(
        f"{name} median {shown(s['median'])}, quartiles {shown(s['q1'])}\u2013{shown(s['q3'])},"
        f" n={len(values)}"
        for _, name, values, s in rows
    )
    desc = (
        f"Per-document {label} for {len(rows)} system{'s' * (len(rows) != 1)}"
        f" (values \u00d7100): {summary}. {note}"
    )
    return document("distribution", title, desc, body, height=height)
