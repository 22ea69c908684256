"""Scatter plot of two leaderboard metrics, one labelled point per system (Mao et al. 2020)."""

from __future__ import annotations

from collections.abc import Mapping

from .axes import Area, Scale, domain, frame, legend, x_axis, y_axis
from .colours import colours_for
from .envelope import Stat, metric_stat, system_names
from .svg import HEIGHT, MUTED, WIDTH, document, el, no_data, text
from .textfit import text_width, truncate
from .values import data_value, metric_label, optional, shown

AREA = Area(left=72, top=44, right=WIDTH - 24, bottom=HEIGHT - 72)
LABEL_SIZE = 11
RADIUS = 5
# Where a point's label may go, tried in order: (text-anchor, dx, dy from the point's centre).
_LABEL_SPOTS = (
    ("start", 8, 4),
    ("end", -8, 4),
    ("middle", 0, -9),
    ("middle", 0, 17),
    ("start", 7, -8),
    ("start", 7, 16),
    ("end", -7, -8),
    ("end", -7, 16),
    ("start", 10, -18),
    ("end", -10, -18),
    ("start", 10, 26),
    ("end", -10, 26),
)


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return max(width, 0) * max(height, 0)


def _distance(box: tuple[float, ...], x: float, y: float) -> float:
    dx = max(box[0] - x, 0, x - box[2])
    dy = max(box[1] - y, 0, y - box[3])
    return (dx * dx + dy * dy) ** 0.5


def _place_labels(
    points: list[tuple[float, float, str]],
    segments: list[tuple[float, float, float, float]],
    area: Area,
) -> list[tuple[str, float, float] | None]:
    """Greedy label placement: the cheapest spot, where overlapping points, labels, whiskers
    and the edges costs, and so does being nearer another point than one's own.

    A label is only drawn where it overlaps no other label and no other point and lies inside
    the drawing; a point without such a spot gets None (the plot's legend names it instead),
    so labels never pile up over coinciding points."""
    margin = RADIUS + 2
    markers = [(x - margin, y - margin, x + margin, y + margin) for x, y, _ in points]
    lines = [
        (min(a, c) - 1.5, min(b, d) - 1.5, max(a, c) + 1.5, max(b, d) + 1.5)
        for a, b, c, d in segments
    ]
    bounds = (area.left + 2, area.top - 4, WIDTH - 4, area.bottom - 2)
    labels: list[tuple[float, ...]] = []
    placed: list[tuple[str, float, float] | None] = []
    for own, (x, y, label) in enumerate(points):
        width = text_width(label, LABEL_SIZE)
        best, best_cost = None, None
        for anchor, dx, dy in _LABEL_SPOTS:
            left = x + dx - {"start": 0, "end": width, "middle": width / 2}[anchor]
            # The text's box (ascent to descent of LABEL_SIZE) and its white halo.
            box = (left - 1, y + dy - LABEL_SIZE - 1, left + width + 1, y + dy + 4.5)
            outside = (box[2] - box[0]) * (box[3] - box[1]) - _overlap(box, bounds)
            clashes = sum(_overlap(box, other) for other in labels)
            clashes += sum(_overlap(box, m) for i, m in enumerate(markers) if i != own)
            if clashes > 0 or outside > 0:
                continue
            # Past the clash check the label overlaps no other label or point: only its own.
            cost = _overlap(box, markers[own])
            cost += 0.5 * sum(_overlap(box, line) for line in lines)
            near = _distance(box, x, y)
            if any(
                _distance(box, px_, py_) < near + 6
                for i, (px_, py_, _) in enumerate(points)
                if i != own
            ):
                cost += 150
            if best_cost is None or cost < best_cost:
                best, best_cost = (anchor, x + dx, y + dy, box), cost
            if cost == 0:
                break
        if best is None:
            placed.append(None)
            continue
        anchor, tx, ty, box = best
        labels.append(box)
        placed.append((anchor, tx, ty))
    return placed


def _segment(stat: Stat, scale: Scale, fixed: float, horizontal: bool) -> tuple | None:
    """The pixel ends of a CI whisker, or None when the interval is unknown."""
    if not stat.has_ci:
        return None
    a, b = scale(stat.ci_low * 100), scale(stat.ci_high * 100)
    return (a, fixed, b, fixed) if horizontal else (fixed, a, fixed, b)


def _layout(rows: list, x_ticks: list[float], y_ticks: list[float], area: Area, ci: bool):
    """The scales, the points' centres, their labels' spots and whiskers in ``area``."""
    x_scale = Scale(x_ticks[0], x_ticks[-1], area.left, area.right)
    y_scale = Scale(y_ticks[0], y_ticks[-1], area.bottom, area.top)
    centres = [(x_scale(sx.mean * 100), y_scale(sy.mean * 100)) for _, _, sx, sy in rows]
    whiskers = [
        [
            _segment(sx, x_scale, cy, horizontal=True) if ci else None,
            _segment(sy, y_scale, cx, horizontal=False) if ci else None,
        ]
        for (_, _, sx, sy), (cx, cy) in zip(rows, centres, strict=True)
    ]
    labels = _place_labels(
        [(cx, cy, truncate(r[1], 28)) for (cx, cy), r in zip(centres, rows, strict=True)],
        [segment for pair in whiskers for segment in pair if segment is not None],
        area,
    )
    return (x_scale, y_scale), centres, labels, whiskers


def scatter_svg(
    envelope: Mapping,
    *,
    x: str,
    y: str,
    title: str,
    ci: bool = True,
    colours: Mapping[str, str] | None = None,
) -> str:
    """One labelled point per system: metric ``y`` against metric ``x`` (values shown x100).

    Systems whose ``x`` or ``y`` is null are skipped. Each point is a
    ``<circle class="point" data-system= data-name= data-x= data-y=>`` with
    ``data-x-ci-low``/``data-x-ci-high``/``data-y-ci-low``/``data-y-ci-high`` when the
    envelope has the interval; values are ``repr`` of the envelope's floats (fractions).

    Args:
        envelope: the leaderboard API envelope (see the leaderboard contract).
        x: the metric key on the horizontal axis, e.g. ``"rouge1_r"``.
        y: the metric key on the vertical axis, e.g. ``"far"``.
        title: the visible and accessible title.
        ci: draw the confidence intervals as whiskers in both directions.
        colours: the board's colour per slug (see ``system_colours``); by sorted slug if None.

    Returns:
        An SVG document; the "No data" SVG when no system has both values.

    Raises:
        PlotDataError: a value in the envelope is not a number.
    """
    rows = []
    for entry in envelope.get("systems") or []:
        sx, sy = metric_stat(entry, x), metric_stat(entry, y)
        if sx is not None and sy is not None:
            rows.append((*system_names(entry), sx, sy))
    if not rows:
        return no_data(title)

    def extent(stats: list[Stat]) -> list[float]:
        values = [s.mean for s in stats]
        if ci:
            values += [v for s in stats for v in (s.ci_low, s.ci_high) if v is not None]
        return domain(v * 100 for v in values)

    x_ticks, y_ticks = extent([r[2] for r in rows]), extent([r[3] for r in rows])
    palette = colours_for((row[0] for row in rows), colours)
    x_title, y_title = metric_label(x), metric_label(y)
    # Labelled points; when a label finds no free spot, a legend below the title names every
    # system in its colour, and the plot area starts under it.
    area, legend_marks = AREA, []
    layout = _layout(rows, x_ticks, y_ticks, area, ci)
    if None in layout[2]:
        entries = [(slug, truncate(name, 30), palette[slug]) for slug, name, *_ in rows]
        legend_marks, legend_bottom = legend(entries, top=48)
        area = Area(left=AREA.left, top=legend_bottom + 16, right=AREA.right, bottom=AREA.bottom)
        layout = _layout(rows, x_ticks, y_ticks, area, ci)
    (x_scale, y_scale), centres, labels, whiskers = layout
    body = [
        frame(area),
        *legend_marks,
        *y_axis(area, y_scale, y_ticks, f"{y_title} (\u00d7100)"),
        *x_axis(area, x_scale, x_ticks, f"{x_title} (\u00d7100)", grid=True),
    ]
    lines, points, names = [], [], []
    for (slug, name, sx, sy), (cx, cy), spot, pair in zip(
        rows, centres, labels, whiskers, strict=True
    ):
        colour = palette[slug]
        for segment in filter(None, pair):
            ends = dict(zip(("x1", "y1", "x2", "y2"), segment, strict=True))
            lines.append(
                el(
                    "line",
                    class_="ci",
                    data_system=slug,
                    stroke=colour,
                    stroke_width=1.5,
                    stroke_opacity=0.55,
                    **ends,
                )
            )
        tip = f"{name}: {x_title} {shown(sx.mean)}, {y_title} {shown(sy.mean)}"
        points.append(
            el(
                "circle",
                [el("title", tip)],
                class_="point",
                data_system=slug,
                data_name=name,
                data_x=data_value(sx.mean),
                data_y=data_value(sy.mean),
                data_x_ci_low=optional(sx.ci_low),
                data_x_ci_high=optional(sx.ci_high),
                data_y_ci_low=optional(sy.ci_low),
                data_y_ci_high=optional(sy.ci_high),
                cx=cx,
                cy=cy,
                r=RADIUS,
                fill=colour,
                stroke="#ffffff",
                stroke_width=1.5,
            )
        )
        if spot is None:  # named in the legend
            continue
        anchor, tx, ty = spot
        names.append(
            text(
                tx,
                ty,
                truncate(name, 28),
                class_="point-label",
                data_system=slug,
                font_size=LABEL_SIZE,
                text_anchor=anchor,
                stroke="#ffffff",
                stroke_width=3,
                stroke_linejoin="round",
                paint_order="stroke",
            )
        )
    body.append(el("g", lines + points + names, class_="marks"))
    if envelope.get("comparable") is False:
        note = "Systems are scored on different documents: see the leaderboard's notes."
        body.append(
            text(
                WIDTH - 24,
                HEIGHT - 10,
                note,
                class_="note",
                font_size=10,
                fill=MUTED,
                text_anchor="end",
            )
        )
    skipped = len(envelope.get("systems") or []) - len(rows)
    summary = "; ".join(f"{name} ({shown(sx.mean)}, {shown(sy.mean)})" for _, name, sx, sy in rows)
    desc = (
        f"{y_title} against {x_title} for {len(rows)} system{'s' * (len(rows) != 1)}"
        f" (values \u00d7100, as ({x_title}, {y_title})): {summary}."
    )
    if skipped:
        desc += f" {skipped} system{'s' * (skipped != 1)} without both values not shown."
    return document("scatter", title, desc, body)
