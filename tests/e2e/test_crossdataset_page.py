"""The cross-dataset page in the browser: the team's example as three toy datasets, reached from
the leaderboards index; the ranking, the heat maps' data-* values, the missing-cell rule chosen
with the keyboard, at 1280x800."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(demo, monkeypatch):
    """The demo (its systems have no training dataset: left out) and the example's nine.

    No worker runs here: a queued run of paired tests is run in the server's process by the
    same steps a worker takes (plan, each pair, finish), and recorded.
    """
    from scoring.crossdataset.models import CrossDatasetTestRun
    from scoring.crossdataset.services import crossdataset_test_run_inline
    from tests.crossdataset_helpers import example_load
    from tests.job_helpers import hold_job_sends

    def run_here(run_id):
        crossdataset_test_run_inline(run=CrossDatasetTestRun.objects.get(pk=run_id))

    runs = hold_job_sends(monkeypatch, "crossdataset", run=run_here)
    example_load()
    return SimpleNamespace(url=demo.url, runs=runs)


def _wait_ready(page):
    expect(page.locator("#crossdataset-page")).to_have_attribute("aria-busy", "false")


def _run_tests(page):
    """Start the paired tests with the keyboard: the button, then Enter."""
    button = page.locator("#tests-start")
    button.focus()
    page.keyboard.press("Enter")


def test_a_researcher_reads_the_example_and_switches_the_missing_cell_rule_by_keyboard(
    context, site
):
    from annotation.systems.models import OutputVersion

    url = site.url
    page = context.new_page()
    login(page, url, "researcher")
    page.goto(f"{url}/leaderboards/")
    link = page.get_by_role("link", name="Cross-dataset evaluation")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{url}/crossdataset/")
    _wait_ready(page)

    # Default: every dataset both trained and tested on (A, B, C; not the demo), cells required.
    expect(page.locator("#status")).to_have_text("3 systems on A, B, C by rouge1_f.")
    rows = page.locator("#ranking tbody tr")
    expect(rows).to_have_count(3)
    s1 = page.locator("#ranking tbody tr[data-system=S1]")
    expect(s1.locator("td").nth(0)).to_contain_text("0.3167")
    expect(s1.locator("td").nth(0)).to_contain_text("rank 2")
    expect(s1.locator("td").nth(1)).to_contain_text("0.6389")
    expect(s1.locator("td").nth(1)).to_contain_text("rank 3")
    expect(s1.locator("td").nth(2)).to_contain_text("0.5000")
    # The paper's formulas as printed (sums / N): 2.85 / 3 and 5.75 / 3, with the line saying
    # which normalisation is ranked.
    expect(s1.locator('td[data-measure="stiffness_printed"]')).to_have_text("0.9500")
    expect(s1.locator('td[data-measure="stableness_printed"]')).to_have_text("1.9167")
    expect(page.locator("#normalisation-note")).to_contain_text("Ranked by the means")
    # The paired tests start from their button, are queued once and drawn when they finish.
    expect(page.locator("#tests-job .job-status")).to_contain_text("have not run")
    assert site.runs == []
    _run_tests(page)
    expect(page.locator("#tests-status")).to_contain_text("3 pairs tested")
    expect(page.locator("#tests tbody tr")).to_have_count(3)
    assert len(site.runs) == 1
    pair = page.locator('#tests tr[data-pair="S1|S2"]')
    expect(pair).to_contain_text("+0.0333")
    # The paper's Wilcoxon tests beside the permutation test: S1 vs S2 over the cells,
    # worked by hand in tests/metrics/test_crossdataset.py (0.65625 and 0.125).
    stiffness = pair.locator('td[data-test="wilcoxon-stiffness-cells"]')
    assert float(stiffness.get_attribute("data-p")) == 0.65625
    expect(stiffness).to_contain_text("0.6563")  # toFixed(4) rounds the exact half up
    expect(stiffness).to_contain_text("8 cells, exact")
    stableness = pair.locator('td[data-test="wilcoxon-stableness-cells"]')
    assert float(stableness.get_attribute("data-p")) == 0.125
    expect(pair.locator('td[data-test="wilcoxon-stiffness-documents"]')).to_contain_text("units")
    expect(pair).to_contain_text("-0.2222")  # the stableness difference, (5.75 - 7.75) / 9
    # p-values under alpha are bold: S1 vs S2's stableness over the 18 documents (0.0113).
    documents = pair.locator('td[data-test="wilcoxon-stableness-documents"]')
    assert float(documents.get_attribute("data-p")) < 0.05
    expect(documents.locator("strong")).to_have_count(1)
    expect(stiffness.locator("strong")).to_have_count(0)
    # Heat maps inline: nine cells with their exact values, a legend, numbers in the cells.
    u = page.locator("section[data-system=S1] figure[data-matrix=u] svg")
    expect(u.locator("rect.cell")).to_have_count(9)
    cell = u.locator('rect.cell[data-row="B"][data-column="C"]')
    assert float(cell.get_attribute("data-value")) == pytest.approx(0.15, abs=1e-12)
    expect(u.locator("text.cell-value").nth(0)).to_have_text("0.500")
    expect(u.locator("rect.legend-swatch")).to_have_count(5)
    normalised = page.locator("section[data-system=S1] figure[data-matrix=normalised] svg")
    cell = normalised.locator('rect.cell[data-row="B"][data-column="C"]')
    assert float(cell.get_attribute("data-value")) == pytest.approx(0.25, abs=1e-12)
    expect(page.locator("#left-out")).to_contain_text("lead-3")
    expect(page.locator("#left-out")).to_contain_text("no training dataset given")
    # The page fits 1280 pixels: no horizontal scrolling.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280, width
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "crossdataset.png"), full_page=True)

    # S2 trained on A is never tested on B: the default rule refuses, naming the cell.
    OutputVersion.objects.filter(system__slug="s2-a", dataset__slug="B").delete()
    page.locator("#metric").focus()
    for name in ("A", "B", "C", "demo"):
        page.keyboard.press("Tab")
        expect(page.locator(f"#datasets input[value={name}]")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#missing")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#show")).to_be_focused()
    page.keyboard.press("Enter")
    _wait_ready(page)
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error")).to_contain_text("'S2'")
    expect(page.locator("#ranking-section")).to_be_hidden()

    # Exclude it for every system, chosen with the keyboard.
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#missing")).to_be_focused()
    page.keyboard.type("Exclude")
    expect(page.locator("#missing")).to_have_value("exclude")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    _wait_ready(page)
    expect(page.locator("#error")).to_be_hidden()
    expect(page.locator("#excluded-note")).to_contain_text("A → B")
    expect(s1.locator("td").nth(0)).to_contain_text(f"{2.65 / 8:.4f}")
    assert "missing=exclude" in page.url
    _run_tests(page)
    expect(page.locator("#tests-status")).to_contain_text("3 pairs tested")
    expect(page.locator('#tests tr[data-pair="S1|S2"] td').nth(1)).to_contain_text(
        f"+{(2.65 - 2.25) / 8:.4f}"
    )
    excluded = page.locator(
        'section[data-system=S3] figure[data-matrix=u] rect.cell[data-row="A"][data-column="B"]'
    )
    expect(excluded).to_have_attribute("data-excluded", "true")

    # A dataset chosen by keyboard: only A and B (Space unticks C).
    page.locator("#datasets input[value=C]").focus()
    page.keyboard.press("Space")
    page.locator("#show").focus()
    page.keyboard.press("Enter")
    _wait_ready(page)
    expect(page.locator("#status")).to_have_text("3 systems on A, B by rouge1_f.")
    expect(page.locator("section[data-system=S1] figure[data-matrix=u] rect.cell")).to_have_count(4)
    # Its tests run too (one run per request); nothing is left running when the page closes.
    _run_tests(page)
    expect(page.locator("#tests-status")).to_contain_text("3 pairs tested")
    expect(page.locator("#tests tbody tr")).to_have_count(3)
    assert len(site.runs) == 3
    page.close()
