"""Helpers for the plot tests: leaderboard envelopes, per-document values and SVG readers."""

from __future__ import annotations

import xml.etree.ElementTree as ET

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


def categories():
    return {
        "high": envelope(-0.1, category="high"),
        "low": envelope(category="low"),
        "noise": envelope(-0.2, drop=("refresh",), category="noise"),
        "low+high": envelope(-0.05, null=("neusum",), category="low+high"),
    }


def per_document():
    values = {}
    for index, (slug, _, far, _, _) in enumerate(SYSTEMS):
        values[slug] = [
            min(1.0, max(0.0, far + ((i * 37 + index) % 21 - 10) / 40)) for i in range(40)
        ]
    return values


def view_box(root: ET.Element) -> tuple[float, float, float, float]:
    x, y, width, height = (float(v) for v in root.get("viewBox").split())
    return x, y, x + width, y + height


def mark_box(element: ET.Element) -> tuple[float, float, float, float]:
    """The box a legend's ``<text>`` or ``<rect>`` takes (text: as wide as the plots' estimate,
    an upper bound of DejaVu Sans and Liberation Sans; the browser tests measure the real one)."""
    from scoring.leaderboards.plots.textfit import text_width

    x, y = float(element.get("x")), float(element.get("y"))
    if element.tag == f"{NS}rect":
        return x, y, x + float(element.get("width")), y + float(element.get("height"))
    assert element.tag == f"{NS}text", element.tag
    size = float(element.get("font-size"))
    width = text_width("".join(element.itertext()), size)
    shift = {"start": 0.0, "middle": width / 2, "end": width}[element.get("text-anchor", "start")]
    return x - shift, y - size, x - shift + width, y + 0.3 * size


def drawn_colours(root: ET.Element) -> dict[str, set[str]]:
    """Per system, every palette colour its marks are drawn in (fills and strokes of the
    elements carrying its ``data-system`` and of their children)."""
    from scoring.leaderboards.plots.svg import PALETTE

    colours: dict[str, set[str]] = {}
    for element in root.iter():
        system = element.get("data-system")
        if system is None:
            continue
        found = colours.setdefault(system, set())
        for node in element.iter():
            found.update(v for v in (node.get("fill"), node.get("stroke")) if v in PALETTE)
    return colours
