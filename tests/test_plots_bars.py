"""Category bar charts: exact values in category order, missing bars, geometry, colours, no data."""

from __future__ import annotations

from scoring.leaderboards.plots import category_bars_svg
from tests.plot_helpers import (
    NS,
    SYSTEMS,
    by_class,
    categories,
    check_document,
    envelope,
    is_empty,
    parse,
    plot_area,
)


def test_bars_carry_the_exact_values_in_category_order():
    envs = categories()
    svg = category_bars_svg(envs, metric="far", title="FAR by category")
    root = parse(svg)
    check_document(root, svg)
    bars = by_class(root, "rect", "bar")
    expected = {
        (c, s["system"]): s["far"]
        for c, env in envs.items()
        for s in env["systems"]
        if s["far"] is not None
    }
    assert len(bars) == len(expected) == 22
    for bar in bars:
        value = expected[bar.get("data-category"), bar.get("data-system")]
        assert float(bar.get("data-value")) == value["mean"]
        assert bar.get("data-value") == repr(value["mean"])
        assert float(bar.get("data-ci-low")) == value["ci_low"]
        assert float(bar.get("data-ci-high")) == value["ci_high"]
        assert bar.get("data-n") == "150"
    order = []
    for bar in bars:
        if bar.get("data-category") not in order:
            order.append(bar.get("data-category"))
    assert order == ["noise", "low", "high", "low+high"]
    xs = [float(bar.get("x")) for bar in bars]
    assert xs == sorted(xs)
    labels = by_class(root, "text", "category-label")
    assert [t.text for t in labels] == ["Noise", "Low", "High", "Low + High"]
    assert len(by_class(root, "path", "error-bar")) == 22


def test_missing_bars_are_skipped_not_drawn_at_zero():
    root = parse(category_bars_svg(categories(), title="t"))
    pairs = {(b.get("data-category"), b.get("data-system")) for b in by_class(root, "rect", "bar")}
    assert ("noise", "refresh") not in pairs and ("low+high", "neusum") not in pairs
    assert ("low", "refresh") in pairs and ("low", "neusum") in pairs
    heights = [float(b.get("height")) for b in by_class(root, "rect", "bar")]
    assert min(heights) > 0


def test_bar_geometry_and_colours_are_consistent():
    root = parse(category_bars_svg(categories(), title="t"))
    bars = by_class(root, "rect", "bar")
    left, top, right, bottom = plot_area(root)
    colours = {}
    for bar in bars:
        y, height = float(bar.get("y")), float(bar.get("height"))
        assert abs(y + height - bottom) < 0.02  # every bar stands on the baseline
        assert top <= y and left <= float(bar.get("x")) <= right
        assert colours.setdefault(bar.get("data-system"), bar.get("fill")) == bar.get("fill")
    assert len(set(colours.values())) == len(colours) == 6
    for a in bars:
        for b in bars:
            if float(a.get("data-value")) < float(b.get("data-value")):
                assert float(a.get("height")) < float(b.get("height"))
                assert float(a.get("y")) > float(b.get("y"))
    legend = [g.get("data-system") for g in by_class(root, "g", "legend-item")]
    assert sorted(legend) == sorted(colours)
    texts = [t.text for g in by_class(root, "g", "legend-item") for t in g.iter(f"{NS}text")]
    assert texts[0] == "1. UnifiedSum(E)"  # colour is never the only key: numbered, named


def test_bars_of_another_metric_and_unknown_categories():
    envs = {"all": envelope(category=None), "low": envelope()}
    root = parse(category_bars_svg(envs, metric="sar", title="SAR"))
    cats = [t.text for t in by_class(root, "text", "category-label")]
    assert cats == ["Low", "all"]
    (y_axis,) = by_class(root, "g", "y-axis")
    assert [t.text for t in y_axis.iter(f"{NS}text")][-1] == "SAR (×100)"
    assert {float(b.get("data-value")) for b in by_class(root, "rect", "bar")} == {
        s[3] for s in SYSTEMS
    }


def test_bars_without_intervals_have_no_error_bars_and_no_zero_bars():
    env = {"systems": [{"system": "a", "name": "A", "far": 0.5}, {"system": "b", "far": None}]}
    root = parse(category_bars_svg({"low": env, "high": None}, title="t"))
    (bar,) = by_class(root, "rect", "bar")
    assert bar.get("data-value") == "0.5" and bar.get("data-category") == "low"
    assert bar.get("data-ci-low") is None and bar.get("data-n") is None
    assert by_class(root, "path", "error-bar") == [] and by_class(root, "text", "note") == []
    assert [t.text for t in by_class(root, "text", "category-label")] == ["Low"]


def test_bars_with_nothing_to_draw_say_no_data():
    everything_null = {"low": envelope(null=[s[0] for s in SYSTEMS])}
    for envs in ({}, {"low": {"systems": []}}, everything_null):
        svg = category_bars_svg(envs, metric="far", title="FAR by category")
        root = parse(svg)
        check_document(root, svg)
        assert is_empty(root)


def test_ten_systems_numbers_labels_and_note_keep_apart():
    """Ten systems with error bars: the numbers 9, 10 and 11-wide labels would touch in one
    row, so they alternate over two; no text box comes within 2 units of another."""
    import itertools

    from tests.plot_helpers import mark_box, stat

    def ten(category):
        systems = [
            {"system": f"s{i}", "name": f"System {i}", "far": stat(0.3 + i / 50)} for i in range(10)
        ]
        return {"ci": {"level": 0.95}, "category": category, "systems": systems}

    envs = {c: ten(c) for c in ("noise", "low", "high", "low+high")}
    svg = category_bars_svg(envs, title="FAR by category")
    root = parse(svg)
    check_document(root, svg)
    numbers = by_class(root, "text", "bar-number")
    assert len(numbers) == len(by_class(root, "rect", "bar")) == 40
    texts = [t for c in ("bar-number", "category-label", "note") for t in by_class(root, "text", c)]
    assert len(by_class(root, "text", "note")) == 1
    boxes = [(t.text, mark_box(t)) for t in texts]
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        width = min(box_a[2], box_b[2]) - max(box_a[0], box_b[0])
        height = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
        assert width <= -2 or height <= -2, (a, b, box_a, box_b)
    bottom = plot_area(root)[3]
    assert all(mark_box(t)[1] > bottom for t in texts)
    assert max(mark_box(t)[3] for t in texts) <= float(root.get("height"))
