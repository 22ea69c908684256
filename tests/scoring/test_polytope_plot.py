"""The PolyTope breakdown plot: a stacked bar of subtypes per annotated system (server SVG)."""

from __future__ import annotations

import pytest

from scoring.leaderboards.plots import (
    SUBTYPE_COLOURS,
    SUBTYPE_ORDER,
    PlotDataError,
    subtype_bars_svg,
)
from scoring.leaderboards.plots.svg import PALETTE
from tests.plot_helpers import NS, by_class, check_document, mark_box, parse, plot_area, view_box

BART = {"Addition": 66, "Omission": 57, "Inaccuracy Intrinsic": 1, "Duplication": 3}


def entry(slug, name, subtypes, n):
    counts = {s: subtypes.get(s, 0) for s in SUBTYPE_ORDER}
    return {"system": slug, "name": name, "polytope": {"n": n, "breakdown": {"subtypes": counts}}}


def envelope():
    return {
        "systems": [
            entry("bart", "BART", BART, 68),
            {"system": "lead-3", "name": "Lead-3", "polytope": None},
            entry("x", "Sys <b>&amp;</b>", {"Word Form": 2, "Addition": 1}, 3),
            entry("clean", "Clean", {}, 4),
        ]
    }


def test_one_bar_per_annotated_system_with_exact_counts_in_subtype_order():
    svg = subtype_bars_svg(envelope(), title="PolyTope errors by subtype")
    root = parse(svg)
    check_document(root, svg)
    segments = by_class(root, "rect", "segment")
    bart = [(s.get("data-subtype"), int(s.get("data-value"))) for s in segments
            if s.get("data-system") == "bart"]  # fmt: skip
    # Official order, empty subtypes drawn not at all.
    assert bart == [("Addition", 66), ("Omission", 57), ("Inaccuracy Intrinsic", 1),
                    ("Duplication", 3)]  # fmt: skip
    assert {s.get("data-system") for s in segments} == {"bart", "x"}  # Lead-3: no annotations
    totals = {t.get("data-system"): t.text for t in by_class(root, "text", "total")}
    assert totals == {"bart": "127", "x": "3", "clean": "0"}
    labels = [t.text for t in by_class(root, "text", "bar-label")]
    assert labels == ["BART", "Sys <b>&amp;</b>", "Clean"]  # text, escaped on the way out
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    notes = [t.text for t in by_class(root, "text", "bar-note")]
    assert notes == ["68 annotated", "3 annotated", "4 annotated"]


def test_segments_stack_without_gaps_and_one_colour_per_subtype():
    root = parse(subtype_bars_svg(envelope(), title="t"))
    assert set(SUBTYPE_COLOURS.values()) == set(PALETTE)
    bart = [s for s in by_class(root, "rect", "segment") if s.get("data-system") == "bart"]
    for below, above in zip(bart, bart[1:], strict=False):
        bottom_of_above = float(above.get("y")) + float(above.get("height"))
        assert bottom_of_above == pytest.approx(float(below.get("y")), abs=0.02)
    for segment in bart:
        assert segment.get("fill") == SUBTYPE_COLOURS[segment.get("data-subtype")]
    # Heights are proportional to the counts: Addition (66) is 66 times Inaccuracy Intrinsic.
    heights = {s.get("data-subtype"): float(s.get("height")) for s in bart}
    assert heights["Addition"] / heights["Inaccuracy Intrinsic"] == pytest.approx(66, rel=0.01)
    _, top, _, bottom = plot_area(root)
    assert all(top - 0.01 <= float(s.get("y")) <= bottom for s in bart)


def test_the_legend_names_every_subtype_inside_the_drawing():
    root = parse(subtype_bars_svg(envelope(), title="t"))
    items = by_class(root, "g", "legend-item")
    assert [g.get("data-subtype") for g in items] == list(SUBTYPE_ORDER)
    left, top, right, bottom = view_box(root)
    for item in items:
        for mark in item:
            x0, y0, x1, y1 = mark_box(mark)
            assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom
    desc = root.find(f"{NS}desc").text
    assert "BART (68 annotated outputs): 127 errors: Addition 66, Omission 57" in desc


def test_nothing_annotated_says_so_and_bad_counts_are_refused():
    empty = parse(subtype_bars_svg({"systems": [{"system": "a", "polytope": None}]}, title="t"))
    assert "empty" in empty.get("class").split()
    assert [t.text for t in by_class(empty, "text", "no-data")] == ["No annotated outputs"]
    bad = envelope()
    bad["systems"][0]["polytope"]["breakdown"]["subtypes"]["Addition"] = "66"
    with pytest.raises(PlotDataError, match="not a count"):
        subtype_bars_svg(bad, title="t")


def test_the_count_axis_has_whole_numbers_only():
    """A few errors (at most 1, 2 or 3 on a bar): the ticks are whole, never 0.5 or 0.2."""

    def labels(systems) -> list[str]:
        (axis,) = by_class(parse(subtype_bars_svg(systems, title="t")), "g", "y-axis")
        return [t.text for t in axis.iter(f"{NS}text")][:-1]  # the last is the axis title

    for most, expected in ((1, ["0", "1"]), (2, ["0", "1", "2"]), (3, ["0", "1", "2", "3"])):
        few = {"systems": [entry("a", "A", {"Addition": most}, 2), entry("b", "B", {}, 1)]}
        assert labels(few) == expected
    many = labels(envelope())  # BART's 127
    assert all(label.isdigit() for label in many) and many[0] == "0", many
