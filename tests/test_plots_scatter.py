"""Scatter plots: exact data attributes, geometry, axes, null values, intervals, no data."""

from __future__ import annotations

from scoring.leaderboards.plots import scatter_svg
from tests.plot_helpers import (
    NS,
    SYSTEMS,
    by_class,
    check_document,
    envelope,
    is_empty,
    parse,
    plot_area,
)


def test_scatter_points_carry_the_exact_values_and_sit_in_the_plot_area():
    env = envelope()
    svg = scatter_svg(env, x="rouge1_r", y="far", title="FAR against ROUGE-1 recall")
    root = parse(svg)
    check_document(root, svg)
    points = {p.get("data-system"): p for p in by_class(root, "circle", "point")}
    assert list(points) == [s["system"] for s in env["systems"]]
    left, top, right, bottom = plot_area(root)
    for system in env["systems"]:
        point = points[system["system"]]
        assert point.get("data-name") == system["name"]
        assert float(point.get("data-x")) == system["rouge1_r"]["mean"]
        assert float(point.get("data-y")) == system["far"]["mean"]
        assert point.get("data-y") == repr(system["far"]["mean"])
        assert float(point.get("data-x-ci-low")) == system["rouge1_r"]["ci_low"]
        assert float(point.get("data-y-ci-high")) == system["far"]["ci_high"]
        assert left <= float(point.get("cx")) <= right and top <= float(point.get("cy")) <= bottom
    labels = [t.text for t in by_class(root, "text", "point-label")]
    assert labels == [s["name"] for s in env["systems"]]
    assert len(by_class(root, "line", "ci")) == 2 * len(env["systems"])
    desc = root.find(f"{NS}desc").text
    assert desc.startswith("FAR against ROUGE-1 recall for 6 systems")
    assert "UnifiedSum(E) (51.0, 54.8)" in desc
    assert root.find(f"{NS}title").text == "FAR against ROUGE-1 recall"


def test_scatter_geometry_follows_the_values():
    root = parse(scatter_svg(envelope(), x="sar", y="far", title="FAR against SAR"))
    points = [
        (float(p.get("data-x")), float(p.get("data-y")), float(p.get("cx")), float(p.get("cy")))
        for p in by_class(root, "circle", "point")
    ]
    for x1, y1, cx1, cy1 in points:
        for x2, y2, cx2, cy2 in points:
            if x1 < x2:
                assert cx1 < cx2
            if y1 < y2:
                assert cy1 > cy2  # a higher value is drawn higher up
    assert [t.text for t in by_class(root, "text", "point-label")][0] == "UnifiedSum(E)"


def test_scatter_axis_titles_and_round_ticks():
    root = parse(scatter_svg(envelope(), x="rouge1_r", y="far", title="t"))
    (x_axis,) = by_class(root, "g", "x-axis")
    (y_axis,) = by_class(root, "g", "y-axis")
    x_texts = [t.text for t in x_axis.iter(f"{NS}text")]
    y_texts = [t.text for t in y_axis.iter(f"{NS}text")]
    assert x_texts[-1] == "ROUGE-1 recall (×100)" and y_texts[-1] == "FAR (×100)"
    x_ticks = [float(t) for t in x_texts[:-1]]
    steps = {round(b - a, 6) for a, b in zip(x_ticks, x_ticks[1:], strict=False)}
    assert len(steps) == 1 and steps.pop() in (1, 2, 2.5, 5, 10, 20, 25)
    assert x_ticks[0] <= 47.13 and x_ticks[-1] >= 52.12
    y_ticks = [float(t) for t in y_texts[:-1]]
    assert y_ticks[0] <= 44.7 - 3 and y_ticks[-1] >= 54.8 + 3  # the CIs fit too


def test_scatter_skips_systems_with_a_null_value():
    env = envelope(null=("refresh",))
    env["systems"][0]["sar"] = None
    root = parse(scatter_svg(env, x="sar", y="far", title="FAR against SAR"))
    shown = [p.get("data-system") for p in by_class(root, "circle", "point")]
    assert "refresh" not in shown and env["systems"][0]["system"] not in shown
    assert len(shown) == 4
    desc = root.find(f"{NS}desc").text
    assert "for 4 systems" in desc and "2 systems without both values not shown" in desc


def test_scatter_without_intervals_draws_no_whiskers():
    env = envelope()
    for system in env["systems"]:
        system["far"] = {"mean": system["far"]["mean"], "ci_low": None, "ci_high": None, "n": 9}
    root = parse(scatter_svg(env, x="rouge1_r", y="far", title="t"))
    assert len(by_class(root, "line", "ci")) == len(env["systems"])  # only the x whiskers
    point = by_class(root, "circle", "point")[0]
    assert point.get("data-y-ci-low") is None and point.get("data-x-ci-low") is not None
    root = parse(scatter_svg(envelope(), x="rouge1_r", y="far", title="t", ci=False))
    assert by_class(root, "line", "ci") == []


def test_scatter_with_nothing_to_draw_says_no_data():
    for env in ({}, {"systems": []}, envelope(null=[s[0] for s in SYSTEMS])):
        svg = scatter_svg(env, x="rouge1_r", y="far", title="FAR against ROUGE-1 recall")
        root = parse(svg)
        check_document(root, svg)
        assert is_empty(root)
        assert root.find(f"{NS}title").text == "FAR against ROUGE-1 recall"


def test_scatter_notes_systems_scored_on_different_documents():
    env = envelope()
    root = parse(scatter_svg(env, x="sar", y="far", title="t"))
    assert by_class(root, "text", "note") == []
    env["comparable"] = False
    root = parse(scatter_svg(env, x="sar", y="far", title="t"))
    (note,) = by_class(root, "text", "note")
    assert "different documents" in note.text


def test_scatter_of_a_single_system_still_has_a_range():
    env = envelope(drop=[s[0] for s in SYSTEMS[1:]])
    root = parse(scatter_svg(env, x="rouge1_r", y="far", title="t"))
    (point,) = by_class(root, "circle", "point")
    left, top, right, bottom = plot_area(root)
    assert left < float(point.get("cx")) < right and top < float(point.get("cy")) < bottom
