"""The heat map SVG (cross-dataset U matrices): cells, exact values, excluded cells, the scale."""

from __future__ import annotations

import pytest

from scoring.leaderboards.plots import PlotDataError
from scoring.leaderboards.plots.heatmap import colour, heatmap_svg
from tests.plot_helpers import NS, by_class, is_empty, parse

MATRIX = [[0.5, None], [0.25, 0.4]]


def _svg(matrix=MATRIX, **options):
    return heatmap_svg(
        matrix,
        labels=["A", "B"],
        title="S1: U (ROUGE-1 F1)",
        low=options.pop("low", 0.25),
        high=options.pop("high", 0.5),
        system="S1",
        **options,
    )


def test_the_scale_runs_from_light_to_dark_blue():
    assert colour(0.0) == "#f7fbff"
    assert colour(1.0) == "#08306b"
    # Half way: (247 + 8) / 2 = 127.5 -> 128, (251 + 48) / 2 = 149.5 -> 150, (255 + 107) / 2 = 181.
    assert colour(0.5) == "#8096b5"
    assert colour(-3) == colour(0.0) and colour(7) == colour(1.0)  # clamped


def test_each_cell_carries_its_value_and_an_excluded_cell_none():
    svg = _svg()
    root = parse(svg)
    assert root.get("role") == "img" and "heatmap" in root.get("class").split()
    title_id, desc_id = root.get("aria-labelledby").split()
    assert root.find(f"{NS}title").get("id") == title_id
    assert "A -> B: excluded" in root.find(f"{NS}desc").text
    cells = {(c.get("data-row"), c.get("data-column")): c for c in by_class(root, "rect", "cell")}
    assert sorted(cells) == [("A", "A"), ("A", "B"), ("B", "A"), ("B", "B")]
    assert {c.get("data-system") for c in cells.values()} == {"S1"}
    assert float(cells[("A", "A")].get("data-value")) == 0.5
    assert float(cells[("B", "A")].get("data-value")) == 0.25
    assert cells[("A", "A")].get("fill") == "#08306b"  # the high end
    assert cells[("B", "A")].get("fill") == "#f7fbff"  # the low end
    # 0.4 is 0.6 of the way from 0.25 to 0.5.
    assert cells[("B", "B")].get("fill") == colour(0.6)
    excluded = cells[("A", "B")]
    assert excluded.get("data-excluded") == "true" and excluded.get("data-value") is None
    shown = [t.text for t in by_class(root, "text", "cell-value")]
    assert shown == ["0.500", "0.250", "0.400"]
    assert [t.text for t in by_class(root, "text", "legend-low")] == ["0.250"]
    assert [t.text for t in by_class(root, "text", "legend-high")] == ["0.500"]
    assert len(by_class(root, "rect", "legend-swatch")) == 5
    assert "<script" not in svg.lower()
    assert _svg() == svg  # deterministic


def test_a_flat_scale_and_an_empty_matrix():
    root = parse(_svg([[0.3, 0.3], [0.3, 0.3]], low=0.3, high=0.3))
    assert {c.get("fill") for c in by_class(root, "rect", "cell")} == {colour(0.5)}
    empty = parse(heatmap_svg([], labels=[], title="t", low=0, high=1))
    assert "empty" in empty.get("class").split()
    assert not is_empty(empty)  # says "No datasets", not "No data"


@pytest.mark.parametrize("matrix", [[[0.5, 0.2]], [[0.5], [0.2]], [[0.5, "x"], [0.1, 0.2]]])
def test_a_matrix_that_is_not_square_or_not_numbers_is_refused(matrix):
    with pytest.raises(PlotDataError):
        _svg(matrix)
