"""A heat map of a square matrix (rows and columns named): the cross-dataset U matrices."""

from __future__ import annotations

from collections.abc import Sequence

from .svg import GRID, INK, MUTED, WIDTH, document, el, no_data, text
from .textfit import fit
from .values import PlotDataError, data_value, fixed, number

# A sequential, single-hue scale (ColorBrewer "Blues", light to dark): lightness alone carries
# the value, so it reads in grey and for colour-blind readers.
LOW = (0xF7, 0xFB, 0xFF)
HIGH = (0x08, 0x30, 0x6B)
EXCLUDED_FILL = "#eeeeee"
LEGEND_STEPS = 5


def colour(share: float) -> str:
    """The scale's colour at ``share`` in [0, 1] (clamped): light for low, dark blue for high.

    Args:
        share: the value's position between the scale's low and high ends.

    Returns:
        ``#rrggbb``.
    """
    share = min(1.0, max(0.0, share))
    parts = (round(lo + (hi - lo) * share) for lo, hi in zip(LOW, HIGH, strict=True))
    return "#" + "".join(f"{part:02x}" for part in parts)


def _share(value: float, low: float, high: float) -> float:
    return 0.5 if high <= low else (value - low) / (high - low)


def heatmap_svg(
    matrix: Sequence[Sequence[float | None]],
    *,
    labels: Sequence[str],
    title: str,
    low: float,
    high: float,
    decimals: int = 3,
    row_title: str = "trained on",
    column_title: str = "tested on",
    system: str = "",
    kind: str = "u",
) -> str:
    """A square heat map: one ``<rect class="cell">`` per (row, column) with its number.

    Each cell carries ``data-row``, ``data-column`` (the labels), ``data-value`` (the exact
    value, ``repr`` of the float) and ``data-system``/``data-matrix``; an excluded cell
    (None) is grey, says "excluded" and has ``data-excluded="true"`` and no value. The colour
    scale runs from ``low`` to ``high`` (the same for every system's map, so maps compare);
    a legend below shows it with its end values.

    Args:
        matrix: rows of values (None for an excluded cell), as many rows as columns.
        labels: the datasets, naming the rows and the columns alike.
        title: the visible and accessible title.
        low: the value drawn lightest.
        high: the value drawn darkest.
        decimals: decimals of the numbers written in the cells.
        row_title: the rows' axis title.
        column_title: the columns' axis title.
        system: the system's name (``data-system``).
        kind: the matrix's name (``data-matrix``: ``u`` or ``normalised``).

    Returns:
        The SVG document; the "No data" SVG for an empty matrix.

    Raises:
        PlotDataError: the matrix is not square over ``labels`` or holds a non-number.
    """
    n = len(labels)
    if not n:
        return no_data(title, "No datasets")
    if len(matrix) != n or any(len(row) != n for row in matrix):
        raise PlotDataError(f"a {n} x {n} matrix is needed for {list(labels)!r}")
    values = [[number(v) for v in row] for row in matrix]
    left, top = 150.0, 78.0
    cell = min(96.0, (WIDTH - left - 24) / n)
    body = [
        text(left + cell * n / 2, 52, column_title, fill=MUTED, text_anchor="middle"),
        text(
            18,
            top + cell * n / 2,
            row_title,
            fill=MUTED,
            text_anchor="middle",
            transform=f"rotate(-90 18 {top + cell * n / 2:.2f})",
        ),
    ]
    for j, label in enumerate(labels):
        body.append(
            text(
                left + cell * (j + 0.5),
                top - 8,
                fit(str(label), cell - 4),
                text_anchor="middle",
                class_="column-label",
            )
        )
    cells = []
    for i, row_label in enumerate(labels):
        y = top + cell * i
        body.append(
            text(
                left - 8,
                y + cell / 2 + 4,
                fit(str(row_label), left - 40),
                text_anchor="end",
                class_="row-label",
            )
        )
        for j, column_label in enumerate(labels):
            x = left + cell * j
            value = values[i][j]
            common = {
                "x": x,
                "y": y,
                "width": cell,
                "height": cell,
                "stroke": "#ffffff",
                "data_system": system,
                "data_matrix": kind,
                "data_row": str(row_label),
                "data_column": str(column_label),
            }
            if value is None:
                tip = f"{row_label} -> {column_label}: excluded (missing cell)"
                cells.append(
                    el(
                        "rect",
                        [el("title", tip)],
                        class_="cell excluded",
                        fill=EXCLUDED_FILL,
                        data_excluded="true",
                        **common,
                    )
                )
                cells.append(
                    text(
                        x + cell / 2,
                        y + cell / 2 + 4,
                        "excluded",
                        fill=MUTED,
                        font_size=11,
                        text_anchor="middle",
                    )
                )
                continue
            share = _share(value, low, high)
            shown = fixed(value, decimals)
            tip = f"{row_label} -> {column_label}: {shown}"
            cells.append(
                el(
                    "rect",
                    [el("title", tip)],
                    class_="cell",
                    fill=colour(share),
                    data_value=data_value(value),
                    **common,
                )
            )
            cells.append(
                text(
                    x + cell / 2,
                    y + cell / 2 + 5,
                    shown,
                    font_size=13,
                    fill="#ffffff" if share > 0.55 else INK,
                    text_anchor="middle",
                    class_="cell-value",
                )
            )
    body.extend(cells)
    bottom = top + cell * n
    body.extend(_legend(left, bottom + 28, cell * n, low, high, decimals))
    desc = "; ".join(
        f"{labels[i]} -> {labels[j]}: "
        + ("excluded" if values[i][j] is None else fixed(values[i][j], decimals))
        for i in range(n)
        for j in range(n)
    )
    return document(
        "heatmap",
        title,
        f"{row_title} (rows) x {column_title} (columns): {desc}",
        body,
        height=bottom + 86,
    )


def _legend(left: float, top: float, width: float, low: float, high: float, decimals: int):
    """The colour scale: ``LEGEND_STEPS`` swatches from low to high, the ends labelled."""
    width = max(width, 200.0)
    step = width / LEGEND_STEPS
    marks = [text(left, top - 6, "Colour scale", fill=MUTED, font_size=11)]
    for index in range(LEGEND_STEPS):
        share = index / (LEGEND_STEPS - 1)
        value = low + (high - low) * share
        marks.append(
            el(
                "rect",
                x=left + step * index,
                y=top,
                width=step,
                height=14,
                fill=colour(share),
                stroke=GRID,
                class_="legend-swatch",
                data_value=data_value(value),
            )
        )
    marks.append(text(left, top + 30, fixed(low, decimals), class_="legend-low", font_size=11))
    marks.append(
        text(
            left + width,
            top + 30,
            fixed(high, decimals),
            class_="legend-high",
            font_size=11,
            text_anchor="end",
        )
    )
    return marks
