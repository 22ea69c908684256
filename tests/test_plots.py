"""Server-side SVG plots, all kinds: escaping, determinism, refused values, labels, no Django."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.leaderboards.plots import (
    PlotDataError,
    category_bars_svg,
    distribution_svg,
    metric_label,
    scatter_svg,
)
from scoring.leaderboards.plots.axes import nice_ticks, tick_label
from scoring.leaderboards.plots.svg import PALETTE
from tests.plot_helpers import (
    NS,
    SYSTEMS,
    categories,
    check_document,
    drawn_colours,
    envelope,
    parse,
    per_document,
)

ROOT = Path(__file__).resolve().parents[1]


def all_plots(env, envs, values, names=None, **colours):
    return [
        scatter_svg(env, x="rouge1_r", y="far", title="FAR against ROUGE-1 recall", **colours),
        scatter_svg(env, x="sar", y="far", title="FAR against SAR", **colours),
        category_bars_svg(envs, metric="far", title="FAR by category", **colours),
        distribution_svg(values, metric="far", title="Per-document FAR", names=names, **colours),
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


def test_every_plot_draws_a_system_in_the_same_colour():
    env, envs, values = envelope(), categories(), per_document()
    # Without a mapping each plot colours its systems in sorted slug order: the same for all.
    by_slug = {slug: PALETTE[i] for i, slug in enumerate(sorted(s[0] for s in SYSTEMS))}
    # With the board's mapping, every plot takes it as given (here, the reverse order).
    given = {slug: PALETTE[i] for i, slug in enumerate(sorted(by_slug, reverse=True))}
    for kwargs, expected in (({}, by_slug), ({"colours": given}, given)):
        seen: dict[str, set[str]] = {}
        for svg in all_plots(env, envs, values, **kwargs):
            for system, colours in drawn_colours(parse(svg)).items():
                seen.setdefault(system, set()).update(colours)
        assert seen == {slug: {colour} for slug, colour in expected.items()}


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


def test_shown_numbers_never_read_minus_zero():
    from scoring.leaderboards.plots.values import shown

    # x100 with one decimal: -0.0004 is -0.04, which rounds to zero and shows no sign.
    assert [shown(v) for v in (-0.0004, -0.0, 0.0004, 0.5064)] == ["0.0", "0.0", "0.0", "50.6"]
    assert shown(-0.0006) == "-0.1" and shown(-0.00004, 2) == "0.00"
    assert tick_label(-0.0, [-0.0, 0.5, 1.0]) == "0.0"
    assert tick_label(-1e-12, [-1e-12, 2.0]) == "0"


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
