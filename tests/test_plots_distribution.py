"""Per-document distributions: box statistics, quartiles, every document's point, no data."""

from __future__ import annotations

import pytest

from scoring.leaderboards.plots import box_statistics, distribution_svg
from tests.plot_helpers import (
    NS,
    SYSTEMS,
    by_class,
    check_document,
    is_empty,
    mark_box,
    parse,
    per_document,
    plot_area,
    view_box,
)


def test_box_statistics_hand_worked():
    stats = box_statistics([0, 0.25, 0.5, 0.75, 1.0])
    assert (stats["q1"], stats["median"], stats["q3"]) == (0.25, 0.5, 0.75)
    assert (stats["min"], stats["max"], stats["mean"]) == (0.0, 1.0, 0.5)
    assert (stats["whisker_low"], stats["whisker_high"]) == (0.0, 1.0)
    # Linear interpolation between order statistics (numpy's default), not nearest rank.
    stats = box_statistics([0.4, 0.1, 0.3, 0.2])
    assert stats["q1"] == pytest.approx(0.175) and stats["q3"] == pytest.approx(0.325)
    assert stats["median"] == pytest.approx(0.25)
    # Tukey whiskers: q1 0.425, q3 0.47, IQR 0.045, upper fence 0.5375: 0.95 lies beyond.
    stats = box_statistics([0.40, 0.42, 0.44, 0.46, 0.48, 0.95])
    assert stats["whisker_high"] == 0.48 and stats["max"] == 0.95
    assert stats["whisker_low"] == 0.40
    assert all(type(v) is float for v in stats.values())
    with pytest.raises(ValueError):
        box_statistics([])


def test_distribution_boxes_carry_the_quartiles():
    values = {"even": [0, 0.25, 0.5, 0.75, 1.0], **per_document()}
    names = {slug: name for slug, name, *_ in SYSTEMS}
    svg = distribution_svg(values, metric="far", title="Per-document FAR", names=names)
    root = parse(svg)
    check_document(root, svg)
    boxes = by_class(root, "g", "box")
    assert [b.get("data-system") for b in boxes] == list(values)
    even = boxes[0]
    assert even.get("data-name") == "even" and even.get("data-n") == "5"
    assert even.get("data-q1") == "0.25" and even.get("data-median") == "0.5"
    assert even.get("data-q3") == "0.75"
    for box in boxes[1:]:
        stats = box_statistics(values[box.get("data-system")])
        assert box.get("data-name") == names[box.get("data-system")]
        for key in ("q1", "median", "q3", "min", "max", "mean", "whisker_low", "whisker_high"):
            assert box.get(f"data-{key.replace('_', '-')}") == repr(stats[key])
    n_labels = [t.text for t in by_class(root, "text", "row-n")]
    assert n_labels == ["n = 5"] + ["n = 40"] * len(SYSTEMS)
    (x_axis,) = by_class(root, "g", "x-axis")
    assert [t.text for t in x_axis.iter(f"{NS}text")][-1] == "FAR per document (×100)"


def test_distribution_points_are_every_document_inside_their_row():
    values = per_document()
    values["lead-3"] = [None, 0.2, float("nan"), 0.8]
    root = parse(distribution_svg(values, title="t"))
    left, top, right, bottom = plot_area(root)
    for group in by_class(root, "g", "points"):
        slug = group.get("data-system")
        dots = list(group.iter(f"{NS}circle"))
        expected = [(i, v) for i, v in enumerate(values[slug]) if v is not None and v == v]
        got = [(int(d.get("data-index")), float(d.get("data-value"))) for d in dots]
        assert got == expected
        for dot in dots:
            assert left <= float(dot.get("cx")) <= right and top <= float(dot.get("cy")) <= bottom
            assert "class" in dot.attrib and dot.get("data-system") == slug
    (lead,) = [b for b in by_class(root, "g", "box") if b.get("data-system") == "lead-3"]
    assert lead.get("data-n") == "2"  # None and NaN are not documents with a value
    rows = {}
    for dot in by_class(root, "circle", "doc-point"):
        rows.setdefault(dot.get("data-system"), []).append(float(dot.get("cy")))
    spans = sorted((min(ys), max(ys)) for ys in rows.values())
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))  # rows do not mix


def test_distribution_geometry_follows_the_medians():
    root = parse(distribution_svg({"lo": [0.1, 0.2, 0.3], "hi": [0.6, 0.7, 0.9]}, title="t"))
    medians = {}
    for box in by_class(root, "g", "box"):
        (line,) = by_class(box, "line", "median")
        medians[box.get("data-system")] = float(line.get("x1"))
        (iqr,) = by_class(box, "rect", "iqr")
        assert float(iqr.get("x")) <= float(line.get("x1"))
    assert medians["lo"] < medians["hi"]


def test_distribution_with_nothing_to_draw_says_no_data():
    for values in ({}, {"lead-3": []}, {"lead-3": [None, None]}):
        svg = distribution_svg(values, metric="far", title="Per-document FAR")
        root = parse(svg)
        check_document(root, svg)
        assert is_empty(root)


def test_many_systems_make_the_distribution_taller():
    values = {f"system-{i}": [i / 40, 0.5] for i in range(20)}
    root = parse(distribution_svg(values, title="t"))
    assert float(root.get("height")) > 420
    assert len(by_class(root, "g", "box")) == 20


def test_a_large_system_shows_at_most_400_dots_but_its_box_counts_every_document():
    from xml.etree import ElementTree

    values = [i / 999 for i in range(1000)]
    root = ElementTree.fromstring(distribution_svg({"big": values}, title="FAR"))
    ns = "{http://www.w3.org/2000/svg}"
    dots = [e for e in root.iter(f"{ns}circle") if e.get("class") == "doc-point"]
    boxes = [e for e in root.iter(f"{ns}g") if e.get("class") == "box"]
    assert len(dots) == 400 and boxes[0].get("data-n") == "1000"
    # Evenly spaced by rank: every 2.5th value, starting with the smallest.
    assert [float(d.get("data-value")) for d in dots[:3]] == [0.0, 2 / 999, 5 / 999]


def _legend_marks(root):
    marks = [t for cls in ("row-label", "row-n", "note") for t in by_class(root, "text", cls)]
    for group in by_class(root, "g", "legend"):
        marks += [e for e in group.iter() if e.tag in (f"{NS}text", f"{NS}rect")]
    return list(dict.fromkeys(marks))


def test_the_legend_lies_inside_the_view_box_even_for_long_names():
    names = {
        "wide": "W" * 60,
        "cjk": "\u6f22\u5b57" * 20,
        "mixed": "UnifiedSum(E) with a long, descriptive name that goes on",
        "short": "A",
    }
    for systems in (names, {"short": "A"}, {f"s{i}": "M" * (i + 1) for i in range(20)}):
        values = {slug: [0.1, 0.45, 0.5, 0.9] for slug in systems}
        root = parse(distribution_svg(values, title="Per-document FAR", names=systems))
        left, top, right, bottom = view_box(root)
        area = plot_area(root)
        marks = _legend_marks(root)
        assert len(by_class(root, "text", "row-label")) == len(systems)
        assert by_class(root, "text", "note")  # the key to the marks is there
        for mark in marks:
            x0, y0, x1, y1 = mark_box(mark)
            where = (mark.get("class"), "".join(mark.itertext())[:30], (x0, y0, x1, y1))
            assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom, where
            if mark.get("class") in ("row-label", "row-n"):
                assert x1 <= area[0], where  # a name never runs into the plot
        shown = [t.text for t in by_class(root, "text", "row-label")]
        for label, name in zip(shown, systems.values(), strict=True):
            assert label == name or (label.endswith("\u2026") and name.startswith(label[:-1]))
