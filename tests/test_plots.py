"""Server-side SVG plots: valid XML, exact data attributes, consistent geometry, escaping."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scoring.leaderboards.plots import (
    PlotDataError,
    box_statistics,
    category_bars_svg,
    distribution_svg,
    metric_label,
    scatter_svg,
)
from scoring.leaderboards.plots.svg import nice_ticks

ROOT = Path(__file__).resolve().parents[1]
NS = "{http://www.w3.org/2000/svg}"

# Mao et al. 2020 (FAR), low abstraction, k=3: published FAR; SAR and ROUGE-1 recall illustrative.
SYSTEMS = [
    ("lead-3", "Lead-3", 0.506, 0.431, 0.5212),
    ("fastrl-e", "FastRL(E)", 0.508, 0.440, 0.4713),
    ("banditsum", "BanditSum", 0.447, 0.392, 0.4987),
    ("refresh", "Refresh", 0.512, 0.441, 0.5051),
    ("neusum", "NeuSum", 0.513, 0.446, 0.5148),
    ("unifiedsum-e", "UnifiedSum(E)", 0.548, 0.470, 0.5102),
]


def stat(mean, half=0.03, n=150):
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "n": n}


def envelope(shift=0.0, *, drop=(), null=(), category="low"):
    systems = []
    for slug, name, far, sar, r1 in SYSTEMS:
        if slug in drop:
            continue
        systems.append(
            {
                "system": slug,
                "name": name,
                "kind": "extractive",
                "version": 1,
                "n_documents": 150,
                "far": None if slug in null else stat(far + shift),
                "sar": stat(sar + shift, 0.025),
                "rouge1_r": None if slug in null else stat(r1, 0.01),
                "vs_next": None,
            }
        )
    systems.sort(key=lambda s: -(s["far"] or {"mean": -1})["mean"])
    return {
        "dataset": "cnndm-far",
        "category": category,
        "k": 3,
        "sort": "far",
        "comparable": True,
        "ci": {"method": "percentile bootstrap", "level": 0.95, "resamples": 1000, "seed": 0},
        "systems": systems,
    }


def parse(svg: str) -> ET.Element:
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    root = ET.fromstring(svg.encode())
    assert root.tag == f"{NS}svg"
    return root


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if cls in (e.get("class") or "").split()]


def plot_area(root: ET.Element) -> tuple[float, float, float, float]:
    (rect,) = by_class(root, "rect", "plot-area")
    x, y = float(rect.get("x")), float(rect.get("y"))
    return x, y, x + float(rect.get("width")), y + float(rect.get("height"))


def check_document(root: ET.Element, svg: str) -> None:
    """The accessibility and safety requirements every plot meets."""
    assert root.get("role") == "img"
    assert root.get("font-family") == "sans-serif"
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert 600 <= float(root.get("width")) <= 700 and float(root.get("height")) >= 400
    title_id, desc_id = root.get("aria-labelledby").split()
    assert root.find(f"{NS}title").get("id") == title_id
    assert root.find(f"{NS}desc").get("id") == desc_id
    lowered = svg.lower()
    assert "<script" not in lowered and "href" not in lowered and "<image" not in lowered
    assert lowered.count("http") == 1  # the SVG namespace only
    assert "url(" not in lowered and "@import" not in lowered


def is_empty(root: ET.Element) -> bool:
    texts = by_class(root, "text", "no-data")
    return "empty" in root.get("class").split() and [t.text for t in texts] == ["No data"]


# --- scatter ---------------------------------------------------------------------------------


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


# --- category bars ---------------------------------------------------------------------------


def categories():
    return {
        "high": envelope(-0.1, category="high"),
        "low": envelope(category="low"),
        "noise": envelope(-0.2, drop=("refresh",), category="noise"),
        "low+high": envelope(-0.05, null=("neusum",), category="low+high"),
    }


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


# --- distribution ----------------------------------------------------------------------------


def per_document():
    values = {}
    for index, (slug, _, far, _, _) in enumerate(SYSTEMS):
        values[slug] = [
            min(1.0, max(0.0, far + ((i * 37 + index) % 21 - 10) / 40)) for i in range(40)
        ]
    return values


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


# --- all plots -------------------------------------------------------------------------------


def all_plots(env, envs, values, names=None):
    return [
        scatter_svg(env, x="rouge1_r", y="far", title="FAR against ROUGE-1 recall"),
        scatter_svg(env, x="sar", y="far", title="FAR against SAR"),
        category_bars_svg(envs, metric="far", title="FAR by category"),
        distribution_svg(values, metric="far", title="Per-document FAR", names=names),
    ]


def test_names_are_escaped_everywhere():
    nasty = "A&B <x> \"q\" 's' \x01"
    env = envelope()
    env["systems"][0]["name"] = nasty
    env["systems"][1]["system"] = "<slug>&"
    for svg in all_plots(env, {"low": env}, {"<slug>&": [0.5, 0.6]}, {"<slug>&": nasty}):
        root = parse(svg)
        check_document(root, svg)
        assert "<x>" not in svg and "A&B" not in svg
        assert "A&amp;B &lt;x&gt; &quot;q&quot;" in svg
        named = [e.get("data-name") for e in root.iter() if e.get("data-name")]
        assert "A&B <x> \"q\" 's' \ufffd" in named
        systems = {e.get("data-system") for e in root.iter() if e.get("data-system")}
        assert "<slug>&" in systems
    title = "FAR <b> & co"
    root = parse(scatter_svg({}, x="far", y="sar", title=title))
    assert root.find(f"{NS}title").text == title


def test_the_same_input_gives_the_same_svg():
    first = all_plots(envelope(), categories(), per_document())
    second = all_plots(envelope(), categories(), per_document())
    assert first == second
    ids = {parse(svg).get("aria-labelledby") for svg in first}
    assert len(ids) == 4  # distinct ids when the plots share a page


def test_values_that_are_not_numbers_are_refused():
    env = envelope()
    env["systems"][0]["far"]["mean"] = "0.5"
    with pytest.raises(PlotDataError):
        scatter_svg(env, x="rouge1_r", y="far", title="t")
    with pytest.raises(PlotDataError):
        distribution_svg({"a": [0.1, "x"]}, title="t")
    with pytest.raises(PlotDataError):
        category_bars_svg({"low": {"systems": [{"system": "a", "far": {"mean": True}}]}}, title="t")


def test_metric_labels_and_nice_ticks():
    assert metric_label("far") == "FAR" and metric_label("saf1") == "SAF1"
    assert metric_label("rouge1_r") == "ROUGE-1 recall"
    assert metric_label("rouge1_f") == "ROUGE-1 F1"
    assert metric_label("rougeL_p") == "ROUGE-L precision"
    assert metric_label("custom") == "custom"
    assert nice_ticks(41.2, 54.8) == [40, 45, 50, 55]
    assert nice_ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(50, 50) == [49, 49.5, 50, 50.5, 51]


def test_the_plots_module_loads_no_django():
    code = (
        "import json, sys\n"
        "import scoring.leaderboards.plots\n"
        "print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in "
        "('django', 'rest_framework', 'celery', 'matplotlib'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []
