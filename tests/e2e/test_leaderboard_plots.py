"""The leaderboard's plots and numbers in the browser: legends inside their drawings (measured by
Chromium), one colour per system in every plot and the table, and no "-0.00" anywhere."""

from __future__ import annotations

import json
import math
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login
from tests.e2e.leaderboard_helpers import api, wait_query

pytestmark = pytest.mark.django_db(transaction=True)

PLOTS = ("far-rouge1r", "far-sar", "categories", "far-distribution")
WIDE = "WWW MMMM Wide Extractive Model With A Very Long Name, tuned \u00d7 2"

# Every legend mark of an SVG document with its box as Chromium lays it out (getBBox, in the
# drawing's units), the viewBox, the plot area, and the palette colours of each system's marks.
MEASURE = """(palette) => {
    const svg = document.documentElement;
    const [x, y, width, height] = svg.getAttribute("viewBox").split(" ").map(Number);
    const selector = "g.legend text, g.legend rect, text.row-label, text.row-n, text.note";
    const marks = [...new Set(document.querySelectorAll(selector))].map((node) => {
        const box = node.getBBox();
        return { cls: node.getAttribute("class") || node.parentNode.getAttribute("class"),
                 text: node.textContent, left: box.x, top: box.y,
                 right: box.x + box.width, bottom: box.y + box.height };
    });
    const area = document.querySelector("rect.plot-area");
    const colours = {};
    for (const node of document.querySelectorAll("[data-system]")) {
        const found = (colours[node.dataset.system] ||= []);
        for (const part of [node, ...node.querySelectorAll("*")]) {
            for (const name of ["fill", "stroke"]) {
                const value = part.getAttribute(name);
                if (palette.includes(value) && !found.includes(value)) found.push(value);
            }
        }
    }
    return { view: [x, y, x + width, y + height], marks, colours,
             plotLeft: area ? area.getBBox().x : null };
}"""


def _upload_wide_system(dataset, tmp_path) -> None:
    """A fourth system, extractive, whose name is long and wide (W and M), scored at k = 3."""
    from annotation.imports.bundle import SystemRecord
    from scoring.scores.services import scoring_pending_run_inline
    from scoring.uploads.services import system_output_import

    lines = [{"doc_id": d, "extracted": [0, 3, 5]} for d in dataset.documents.values_list(
        "external_id", flat=True
    )]  # fmt: skip
    path = tmp_path / "wide.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    system = SystemRecord(slug="wide-model", name=WIDE, kind="extractive")
    system_output_import(dataset=dataset, system=system, source=path)
    scoring_pending_run_inline(dataset=dataset, ks=[3])


def _measure(context, board, name: str) -> dict:
    """One plot of the demo board at k = 3, opened as an SVG document and measured there."""
    from scoring.leaderboards.plots.svg import PALETTE

    plot = context.new_page()
    plot.goto(f"{board.url}/api/datasets/demo/leaderboard/plots/{name}.svg?k=3")
    drawn = plot.evaluate(MEASURE, list(PALETTE))
    plot.close()
    return drawn


def test_plot_legends_lie_inside_their_drawings_for_long_names(context, board, tmp_path):
    _upload_wide_system(board.dataset, tmp_path)
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")

    # The plots as the page shows them, at 1280x800 (looked at by a person: var/artifacts).
    page.locator("#plots").scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#plots img')]"
        ".every((img) => img.complete && img.naturalWidth > 0)"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#plots figure").nth(3).scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "leaderboard-plots-1280x800.png"))

    for name in PLOTS:
        drawn = _measure(context, board, name)
        left, top, right, bottom = drawn["view"]
        for mark in drawn["marks"]:
            where = (name, mark["cls"], mark["text"][:40])
            assert left <= mark["left"] and mark["right"] <= right, (where, mark)
            assert top <= mark["top"] and mark["bottom"] <= bottom, (where, mark)
            if mark["cls"] in ("row-label", "row-n"):
                assert mark["right"] <= drawn["plotLeft"], (where, mark)
        if name in ("categories", "far-distribution"):
            assert drawn["marks"], name  # these two have a legend


def test_every_plot_and_the_table_give_a_system_one_colour(context, board, tmp_path):
    _upload_wide_system(board.dataset, tmp_path)
    page = context.new_page()
    login(page, board.url, "researcher")
    seen: dict[str, set[str]] = {}
    for name in PLOTS:
        for system, found in _measure(context, board, name)["colours"].items():
            seen.setdefault(system, set()).update(found)
    # demo-abs has no FAR, so no plot shows it; the others have one colour each, all different.
    assert {system: len(found) for system, found in seen.items()} == dict.fromkeys(
        ("lead-3", "demo-extsum", "wide-model"), 1
    )
    assert len(set.union(*seen.values())) == 3

    # The table's swatches say the same: the page gets the board's colours from the API.
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")
    colours = envelope["colours"]
    assert seen == {system: {colours[system]} for system in seen}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaderboard-table-1280x800.png"))
    for row in envelope["systems"]:
        swatch = page.locator(f"#lb-table tr[data-system='{row['system']}'] th.system .swatch")
        expect(swatch).to_have_attribute("data-colour", colours[row["system"]])
        r, g, b = (int(colours[row["system"]][i : i + 2], 16) for i in (1, 3, 5))
        expect(swatch).to_have_css("background-color", f"rgb({r}, {g}, {b})")


def test_the_pages_number_formatter_never_reads_minus_zero(context, demo):
    page = context.new_page()
    login(page, demo.url, "researcher")
    page.goto(f"{demo.url}/leaderboards/")
    evaluate = """async ([name, values, digits]) => {
        const m = await import("/static/loupe/leaderboard-format.js");
        return values.map((v) => (name === "x100" ? m.x100(v) : m[name](v, digits)));
    }"""
    # Scores x100 with one decimal: what rounds to zero has no sign; missing or NaN is a dash.
    values = [-0.0004, -0.0, 0.0004, 0.5064, -0.0006, None, float("nan")]
    assert page.evaluate(evaluate, ["x100", values, 1]) == [
        "0.0", "0.0", "0.0", "50.6", "-0.1", "—", "—",
    ]  # fmt: skip
    # Coefficients with two decimals. -0.005 is stored as -0.005000000000000000104: beyond the
    # half, so it rounds away from zero, to -0.01 (as toFixed does).
    values = [-0.004, -0.005, 0.005, -0.0, 0.004, -0.0049, -0.006, -1e-17, None, float("inf")]
    assert page.evaluate(evaluate, ["fixed", values, 2]) == [
        "0.00", "-0.01", "0.01", "0.00", "0.00", "0.00", "-0.01", "0.00", "—", "—",
    ]  # fmt: skip
    assert page.evaluate(evaluate, ["fixed", [-0.4, 0.5, -2.5], 0]) == ["0", "1", "-3"]


def test_a_correlation_of_minus_a_thousandth_reads_0_00(context, board, tmp_path):
    from scoring.judgments.services import human_judgments_import

    page = context.new_page()
    login(page, board.url, "researcher")
    # A real study whose system-level Pearson r with ROUGE-1 F is -0.001.
    board_now = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")
    means = {s["system"]: s["rouge1_f"]["mean"] for s in board_now["systems"]}
    human = _scores_correlated(means, -0.001)
    body = "system,score\n" + "".join(f"{s},{v!r}\n" for s, v in human.items())
    path = tmp_path / "overall.csv"
    path.write_text(body, encoding="utf-8")
    human_judgments_import(dataset=board.dataset, name="overall", source=path, filename=path.name)
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")
    (item,) = [
        c for c in envelope["correlations"] if c["metric"] == "rouge1_f" and c["level"] == "system"
    ]
    assert item["pearson"]["value"] == pytest.approx(-0.001)
    row = page.locator("#corr-table tbody tr").filter(
        has=page.locator("td:nth-child(2)", has_text=re.compile("^R-1 F$"))
    )
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(4).locator(".mean")).to_have_text("0.00")
    assert "-0.00" not in page.locator("#corr-table").inner_text()


def _scores_correlated(x: dict[str, float], r: float) -> dict[str, float]:
    """Human scores whose Pearson correlation with ``x`` is ``r``: ``r`` times the standardised
    ``x`` plus the rest of a unit vector orthogonal to it (and to the mean), around 3."""
    systems = sorted(x)
    values = [x[s] for s in systems]
    mean = sum(values) / len(values)
    u = [v - mean for v in values]
    norm = math.sqrt(sum(v * v for v in u))
    u = [v / norm for v in u]
    w = [1.0 if i == 0 else 0.0 for i in range(len(values))]  # any vector, made orthogonal
    w = [v - sum(w) / len(w) for v in w]
    dot = sum(a * b for a, b in zip(w, u, strict=True))
    w = [a - dot * b for a, b in zip(w, u, strict=True)]
    norm = math.sqrt(sum(v * v for v in w))
    w = [v / norm for v in w]
    rest = math.sqrt(1 - r * r)
    return {s: 3 + r * a + rest * b for s, a, b in zip(systems, u, w, strict=True)}


def test_a_table_mean_over_fewer_documents_than_the_row_says_how_many(context, board):
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")
    checked = 0
    for row in envelope["systems"]:
        for metric in ("far", "sar", "rouge1_f"):
            cell = row[metric]
            shown = page.locator(
                f"#lb-table tr[data-system='{row['system']}'] td[data-metric='{metric}']"
            )
            if cell is not None and cell["n"] != row["n_documents"]:
                # FAR is over the 5 documents whose FAM has a supported facet, of 6.
                expect(shown.locator(".n")).to_have_text(f"n = {cell['n']}")
                checked += 1
            else:
                expect(shown.locator(".n")).to_have_count(0)
    assert checked == 4  # FAR and SAR of both extractive systems
