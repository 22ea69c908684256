"""The bias page's SVG plots, drawn by the leaderboards' plot builders from a run's rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scoring.leaderboards.plots import category_bars_svg, scatter_svg
from scoring.leaderboards.plots.colours import REFERENCE_COLOUR, colours_for

PLOTS = ("novel", "abstractiveness", "positions")
ORDERS = ("1-grams", "2-grams", "3-grams", "4-grams")


def _name(row: dict) -> str:
    return "Reference" if row["kind"] == "reference" else row["source"]


def _entry(row: dict, values: dict) -> dict:
    return {"system": row["source"], "name": _name(row), **values}


def _bins(count: int) -> list[str]:
    return [f"{i / count:.1f}-{(i + 1) / count:.1f}" for i in range(count)]


def source_colours(rows: Sequence[dict], board: Mapping[str, str] | None = None) -> dict[str, str]:
    """One colour per source: a system's the leaderboard's, the references grey.

    Args:
        rows: the sources' rows.
        board: the dataset's leaderboard colours (``leaderboard_colours``); None: the
            systems' sorted order.

    Returns:
        source -> ``#rrggbb``, no two alike.
    """
    systems = [row["source"] for row in rows if row["kind"] != "reference"]
    colours = colours_for(systems, board)
    colours.update({row["source"]: REFERENCE_COLOUR for row in rows if row["kind"] == "reference"})
    return colours


def bias_plot_svg(
    name: str, rows: Sequence[dict], *, colours: Mapping[str, str] | None = None
) -> str:
    """One of the bias plots of a run's rows (as ``bias_rows_list`` gives them).

    * ``novel``: grouped bars, a group per n-gram order, a bar per source at its novel rate
      (``<rect class="bar" data-system= data-category="1-grams" data-value=>``);
    * ``abstractiveness``: a point per source, coverage against the novel bigram rate
      (``<circle class="point" data-system= data-x= data-y=>``);
    * ``positions``: grouped bars, a group per position bin (``0.0-0.1`` ...), a bar per
      source at the share of its copied tokens from that part of the document.

    Args:
        name: one of ``PLOTS``.
        rows: the sources' rows, references first.
        colours: the dataset's leaderboard colours (a system keeps its colour of the
            leaderboard); None: by the systems' sorted order.

    Returns:
        An SVG document (the "No data" SVG when there is nothing to draw).

    Raises:
        KeyError: an unknown plot name.
    """
    colours = source_colours(rows, colours)
    if name == "novel":
        envelopes = {
            order: {
                "systems": [
                    _entry(row, {"novel": row["novel"][n]})
                    for row in rows
                    if n < len(row["novel"]) and row["novel"][n] is not None
                ]
            }
            for n, order in enumerate(ORDERS)
        }
        return category_bars_svg(
            envelopes, metric="novel", title="Novel n-grams by order", colours=colours
        )
    if name == "abstractiveness":
        envelope = {
            "systems": [
                _entry(row, {"coverage": row["coverage"], "novel bigrams": row["novel"][1]})
                for row in rows
            ]
        }
        return scatter_svg(
            envelope,
            x="coverage",
            y="novel bigrams",
            title="Coverage against novel bigrams",
            ci=False,
            colours=colours,
        )
    if name == "positions":
        count = max((len(row["position_histogram"]) for row in rows), default=0)
        envelopes = {
            label: {
                "systems": [
                    _entry(row, {"copied share": row["position_histogram"][b]})
                    for row in rows
                    if row["mean_position"] is not None
                ]
            }
            for b, label in enumerate(_bins(count))
        }
        return category_bars_svg(
            envelopes,
            metric="copied share",
            title="Where the copied content comes from (relative position in the document)",
            colours=colours,
        )
    raise KeyError(name)
