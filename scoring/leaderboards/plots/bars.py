"""Grouped bar chart of one metric per document category, one numbered bar per system."""

from __future__ import annotations

from collections.abc import Mapping

from .axes import Area, Scale, domain, frame, legend, y_axis
from .colours import colours_for
from .envelope import Stat, metric_stat, system_names
from .svg import GRID, HEIGHT, INK, MUTED, WIDTH, document, el, no_data, text
from .textfit import text_width, truncate
from .values import data_value, metric_label, optional, shown

CATEGORY_ORDER = ("noise", "low", "high", "low+high")
CATEGORY_LABELS = {"noise": "Noise", "low": "Low", "high": "High", "low+high": "Low + High"}
# The bar numbers under the bars: their font size, the room kept between two of them, and the
# step between their rows when they alternate over two rows (a number's box is 1.3 sizes high).
NUMBER_SIZE = 10
NUMBER_GAP = 3.0
NUMBER_STEP = 16


def number_rows(slot: float, count: int) -> int:
    """How many rows the bar numbers 1..``count`` need so that no two touch.

    Numbers sit centred under their bars, ``slot`` apart; one row when the widest fits in a
    slot, else two alternating rows (neighbours a row apart, a row's numbers two slots apart).

    Args:
        slot: the distance between two neighbouring bars' centres.
        count: the number of systems (the widest number).

    Returns:
        1 or 2; 0 when even two rows would not keep the numbers apart (none are drawn then;
        the legend's colours and each bar's tooltip, which starts with its number, remain).
    """
    room = text_width(str(count), NUMBER_SIZE) + NUMBER_GAP
    for rows in (1, 2):
        if rows * slot >= room:
            return rows
    return 0


def _ci_text(envelopes: Mapping[str, Mapping]) -> str:
    for envelope in envelopes.values():
        level = ((envelope or {}).get("ci") or {}).get("level")
        if isinstance(level, int | float) and not isinstance(level, bool):
            return f"{level * 100:g}% CI"
    return "CI"


def category_bars_svg(
    envelopes: Mapping[str, Mapping],
    *,
    metric: str = "far",
    title: str,
    colours: Mapping[str, str] | None = None,
) -> str:
    """Grouped bars: a group per category, a bar per system at the mean, CI error bars.

    Categories come in the order noise, low, high, low+high (others after, as given). A
    system keeps its colour, number and slot in every group; a category or system without
    a value draws nothing (no zero bar). Each bar is a ``<rect class="bar" data-system=
    data-category= data-value= data-ci-low= data-ci-high= data-n=>``; the ``data-ci-*``
    and ``data-n`` attributes are left out when the envelope has no value for them.
    Values are ``repr`` of the envelope's floats (fractions).

    Args:
        envelopes: leaderboard API envelopes keyed by category.
        metric: the metric key to draw, e.g. ``"far"``.
        title: the visible and accessible title.
        colours: the board's colour per slug (see ``system_colours``); by sorted slug if None.

    Returns:
        An SVG document; the "No data" SVG when no category has a value.

    Raises:
        PlotDataError: a value in an envelope is not a number.
    """
    order = [c for c in CATEGORY_ORDER if c in envelopes]
    order += [c for c in envelopes if c not in CATEGORY_ORDER]
    names: dict[str, str] = {}
    groups: list[tuple[str, dict[str, Stat]]] = []
    for category in order:
        stats = {}
        for entry in (envelopes[category] or {}).get("systems") or []:
            slug, name = system_names(entry)
            stat = metric_stat(entry, metric)
            if stat is not None and slug not in stats:
                stats[slug] = stat
                names.setdefault(slug, name)
        if stats:
            groups.append((category, stats))
    if not groups:
        return no_data(title)

    slugs = list(names)
    palette = colours_for(slugs, colours)
    entries = [(s, f"{i}. {truncate(names[s], 30)}", palette[s]) for i, s in enumerate(slugs, 1)]
    legend_marks, legend_bottom = legend(entries, top=48)
    left, right = 72, WIDTH - 24
    group_width = (right - left) / len(groups)
    slot = group_width * 0.84 / len(slugs)
    rows = number_rows(slot, len(slugs))
    # Below the baseline: the numbers' rows, then the category labels, then (with error bars)
    # the note in the bottom right corner, each clear of the next.
    category_offset = 32 + NUMBER_STEP * max(rows - 1, 0)
    with_ci = any(s.has_ci for _, g in groups for s in g.values())
    bottom = HEIGHT - 20 - category_offset - 4 * with_ci
    area = Area(left=left, top=legend_bottom + 16, right=right, bottom=bottom)
    values = [v for _, stats in groups for s in stats.values() for v in (s.mean, s.ci_high)]
    ticks = domain((v * 100 for v in values if v is not None), zero=True)
    scale = Scale(ticks[0], ticks[-1], area.bottom, area.top)
    label, ci_text = metric_label(metric), _ci_text(envelopes)
    body = [frame(area), *legend_marks, *y_axis(area, scale, ticks, f"{label} (\u00d7100)")]

    bar_width = min(slot * 0.82, 44.0)
    marks = []
    for g, (category, stats) in enumerate(groups):
        start = area.left + g * group_width + group_width * 0.08
        shown_name = CATEGORY_LABELS.get(category, category)
        for i, slug in enumerate(slugs):
            stat = stats.get(slug)
            if stat is None:
                continue
            centre = start + slot * (i + 0.5)
            tip = (
                f"{i + 1}. {names[slug]}, {shown_name}: {label} {shown(stat.mean)}"
                + (
                    f" ({ci_text} {shown(stat.ci_low)}\u2013{shown(stat.ci_high)})"
                    if stat.has_ci
                    else ""
                )
                + (f", n={stat.n}" if stat.n is not None else "")
            )
            geometry = (centre, bar_width, scale, area.bottom)
            marks += _bar(slug, names[slug], category, stat, palette[slug], geometry, tip)
            if rows:
                marks.append(
                    text(
                        centre,
                        area.bottom + 13 + NUMBER_STEP * (i % rows),
                        str(i + 1),
                        class_="bar-number",
                        font_size=NUMBER_SIZE,
                        fill=MUTED,
                        text_anchor="middle",
                    )
                )
        middle = area.left + (g + 0.5) * group_width
        marks.append(
            text(
                middle,
                area.bottom + category_offset,
                shown_name,
                class_="category-label",
                font_size=13,
                text_anchor="middle",
            )
        )
        if g:
            x = area.left + g * group_width
            marks.append(el("line", x1=x, y1=area.top, x2=x, y2=area.bottom, stroke=GRID))
    body.append(el("g", marks, class_="marks"))
    body.append(el("line", x1=area.left, y1=area.bottom, x2=area.right, y2=area.bottom, stroke=INK))
    desc = _describe(groups, names, label, ci_text)
    if with_ci:
        note = f"Error bars: {ci_text}s of the mean."
        body.append(
            text(
                WIDTH - 24,
                HEIGHT - 8,
                note,
                class_="note",
                font_size=10,
                fill=MUTED,
                text_anchor="end",
            )
        )
    return document("bars", title, desc, body)


def _bar(slug, name, category, stat: Stat, colour, geometry, tip) -> list[str]:
    """One bar from the baseline to the mean, with its error bar when the CI is known."""
    centre, width, scale, baseline = geometry
    top = scale(max(stat.mean, 0.0) * 100)
    marks = [
        el(
            "rect",
            [el("title", tip)],
            class_="bar",
            data_system=slug,
            data_name=name,
            data_category=category,
            data_value=data_value(stat.mean),
            data_ci_low=optional(stat.ci_low),
            data_ci_high=optional(stat.ci_high),
            data_n=stat.n,
            x=centre - width / 2,
            y=top,
            width=width,
            height=baseline - top,
            fill=colour,
            stroke=INK,
            stroke_width=0.5,
        )
    ]
    if stat.has_ci:
        low, high = scale(stat.ci_low * 100), scale(stat.ci_high * 100)
        cap = min(width * 0.3, 6.0)
        path = (
            f"M{centre:.2f} {low:.2f}V{high:.2f}M{centre - cap:.2f} {high:.2f}"
            f"h{2 * cap:.2f}M{centre - cap:.2f} {low:.2f}h{2 * cap:.2f}"
        )
        marks.append(
            el(
                "path",
                class_="error-bar",
                data_system=slug,
                data_category=category,
                d=path,
                stroke=INK,
                stroke_width=1.2,
                fill="none",
            )
        )
    return marks


def _describe(groups, names, label, ci_text) -> str:
    parts = []
    for category, stats in groups:
        values = ", ".join(f"{names[s]} {shown(stat.mean)}" for s, stat in stats.items())
        parts.append(f"{CATEGORY_LABELS.get(category, category)}: {values}")
    count = len(names)
    return (
        f"{label} by document category for {count} system{'s' * (count != 1)} in"
        f" {len(groups)} categor{'ies' if len(groups) != 1 else 'y'} (mean \u00d7100,"
        f" error bars {ci_text}). " + "; ".join(parts) + "."
    )
