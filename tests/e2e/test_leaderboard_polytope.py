"""PolyTope on the leaderboard page at 1280x800, by keyboard: the PolyTope and error columns
against the API, sorting by PolyTope, the error breakdown (plot and tables) and the
correlations with the automatic metrics."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import POLYTOPE_OUTPUTS, SHARED_DATA
from tests.e2e.helpers import ARTIFACTS, login
from tests.e2e.leaderboard_helpers import api, fixed, wait_query

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def polytope_board(demo):
    """The hand-worked PolyTope dataset of tests/scoring, scored in this process."""
    from scoring.scores.services import scoring_pending_run_inline
    from tests.scoring.polytope_helpers import build

    built = build()
    scoring_pending_run_inline(dataset=built["dataset"])
    return demo


def _cells(page) -> dict[str, dict[str, list[str]]]:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#lb-table tbody tr')].map(
            (tr) => [tr.dataset.system, Object.fromEntries(
                [...tr.querySelectorAll('td[data-metric^=polytope]')].map((td) => [
                    td.dataset.metric, [...td.children].map((c) => c.textContent)]))]))"""
    )


def _table(page, selector: str) -> list[list[str]]:
    return page.evaluate(
        f"""() => [...document.querySelectorAll('{selector} tr')].map(
            (tr) => [...tr.children].map((c) => c.textContent))"""
    )


def test_polytope_columns_breakdown_and_correlations_by_keyboard(context, polytope_board):
    base = polytope_board.url
    page = context.new_page()
    login(page, base, "researcher")
    page.goto(f"{base}/leaderboards/pt/")
    wait_query(page, "?k=3")
    envelope = api(page, base, "/api/datasets/pt/leaderboard/?k=3")
    rows = {row["system"]: row for row in envelope["systems"]}

    # The columns show what the API says: score with 2 decimals, its ratio CI, coverage.
    cells = _cells(page)
    for system in ("a", "b"):
        p = rows[system]["polytope"]
        shown = cells[system]["polytope"]
        assert shown[0] == fixed(p["score"], 2)
        assert shown[1] == f"{fixed(p['ci_low'], 2)}–{fixed(p['ci_high'], 2)}"
        assert shown[2] == f"{p['n']} of {p['outputs']} annotated"
    # Hand-worked (tests/scoring/polytope_helpers.py): A 8 penalty over 30 words, B 15 over 35.
    assert cells["a"]["polytope"][0] == "73.33" and cells["b"]["polytope"][0] == "57.14"
    assert cells["a"]["polytope-errors"][0] == "1 C · 1 M · 1 m"
    assert cells["a"]["polytope-errors"][1] == "1 critical, 1 major, 1 minor"
    assert cells["b"]["polytope-errors"][0] == "3 C · 0 M · 0 m"
    expect(page.locator("#legend")).to_contain_text("not the same as clean")
    expect(page.locator("#notes-list")).to_contain_text("2 of System A's 3 outputs are annotated")

    # Sort by PolyTope with the keyboard: the header's button, then Enter.
    button = page.locator("#lb-table thead button[data-sort='polytope']")
    button.focus()
    page.keyboard.press("Enter")
    wait_query(page, "?k=3&sort=polytope")
    assert page.url.endswith("/leaderboards/pt/?sort=polytope")
    expect(page.locator("#lb-table th[aria-sort='descending'] button")).to_have_attribute(
        "data-sort", "polytope"
    )
    expect(page.locator("#lb-table thead button[data-sort='polytope']")).to_be_focused()
    expect(page.locator("#legend")).to_contain_text("paired permutation of pooled ratios")
    order = page.eval_on_selector_all(
        "#lb-table tbody tr", "rows => rows.map(r => r.dataset.system)"
    )
    assert order == ["a", "b"]

    # Read again, now from the stored snapshot (JSONB keeps no key order): same order.
    page.reload()
    wait_query(page, "?k=3&sort=polytope")

    # The breakdown: the stacked bar (an SVG from the server) and the tables for a system.
    section = page.locator("#polytope")
    expect(section).to_be_visible()
    img = page.locator("#polytope-plot")
    expect(img).to_have_attribute(
        "src", "/api/datasets/pt/leaderboard/plots/polytope-subtypes.svg?k=3"
    )
    page.wait_for_function("() => document.getElementById('polytope-plot').naturalWidth > 0")
    expect(page.locator("#breakdown-summary")).to_contain_text("System A: 3 errors in 2 annotated")
    page.locator("#breakdown-system").focus()
    page.keyboard.press("ArrowDown")  # System A -> System B
    expect(page.locator("#breakdown-summary")).to_contain_text("System B: 3 errors in 3 annotated")
    severity = _table(page, "#severity-table")
    assert severity[0][:4] == ["Severity", "Subject", "Object", "Predicate"]
    critical = severity[1]
    # B: Addition x Subject and Omission x Subject (critical), Inaccuracy Intrinsic x Predicate.
    assert critical[0] == "Critical" and critical[1:4] == ["2", "0", "1"] and critical[-1] == "3"
    assert severity[-1][0] == "All severities" and severity[-1][-1] == "3"
    order = [row[0] for row in _table(page, "#subtype-table tbody")]
    assert order[:3] == ["Addition", "Omission", "Inaccuracy Intrinsic"]
    assert order[-2:] == ["Word Form", "All subtypes"]
    subtypes = {row[0]: row[2] for row in _table(page, "#subtype-table tbody")}
    assert subtypes["Addition"] == "1" and subtypes["Omission"] == "1"
    assert subtypes["Inaccuracy Intrinsic"] == "1" and subtypes["All subtypes"] == "3"

    # Correlations with every automatic metric, with n and the paper's figures beside them.
    corr = page.locator("#polytope-correlations")
    expect(corr).to_be_visible()
    expect(page.locator("#pt-corr-about")).to_contain_text("not a reproduction")
    r1 = page.locator("#pt-corr-table tr[data-metric='rouge1_f'][data-level='instance']")
    expect(r1.locator("td").nth(2)).to_have_text("5 outputs (2 systems)")
    expect(r1.locator("td.paper")).to_have_text("0.40")
    system_r1 = page.locator("#pt-corr-table tr[data-metric='rouge1_f'][data-level='system']")
    expect(system_r1).to_contain_text("needs at least 3 systems")
    # PolyTope is a human study in the existing correlation view too.
    expect(page.locator("#corr-table")).to_contain_text("PolyTope (annotated outputs)")

    # Everything fits 1280 wide: nothing pushes the page sideways.
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 1280
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    section.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "leaderboard-polytope.png"), full_page=True)
    page.locator(".table-scroll").first.screenshot(path=str(ARTIFACTS / "lb-pt-table.png"))
    section.screenshot(path=str(ARTIFACTS / "lb-pt-breakdown.png"))


def test_a_dataset_without_annotations_has_no_polytope_parts(context, polytope_board):
    from scoring.scores.services import scoring_pending_run_inline

    scoring_pending_run_inline(dataset=polytope_board.dataset)
    page = context.new_page()
    login(page, polytope_board.url, "researcher")
    page.goto(f"{polytope_board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    expect(page.locator("#lb-table thead button[data-sort='polytope']")).to_have_count(0)
    expect(page.locator("#polytope")).to_be_hidden()
    expect(page.locator("#polytope-correlations")).to_be_hidden()


def test_the_system_page_shows_each_outputs_polytope_and_the_pooled_score(context, polytope_board):
    page = context.new_page()
    login(page, polytope_board.url, "researcher")
    page.goto(f"{polytope_board.url}/leaderboards/pt/")
    wait_query(page, "?k=3")
    page.locator("#lb-table a", has_text="System A").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/leaderboards/pt/systems/a/")
    expect(page.locator("#system-page")).to_have_attribute("aria-busy", "false")
    cells = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#doc-table tbody tr')].map(
            (tr) => [tr.dataset.document,
                     [...tr.querySelector('td[data-metric=polytope]').children].map(
                        (c) => c.textContent)]))"""
    )
    assert cells == {
        "d1": ["50.00", "1 C · 0 M · 0 m · 10 words"],
        "d2": ["85.00", "0 C · 1 M · 1 m · 20 words"],
        "d3": ["—", "not annotated"],
    }
    footer = page.locator("#doc-table tfoot td[data-metric=polytope]")
    expect(footer).to_contain_text("73.33")
    expect(footer).to_contain_text("pooled over 2 annotated")
    expect(page.locator("#mean-notes")).to_contain_text("1 output not annotated")
    # Sorting by PolyTope from the keyboard puts the best-scored output first.
    page.locator("#doc-table thead button[data-sort='polytope']").focus()
    page.keyboard.press("Enter")
    order = page.eval_on_selector_all(
        "#doc-table tbody tr", "rows => rows.map(r => r.dataset.document)"
    )
    assert order == ["d2", "d1", "d3"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1280


BART_WORKBOOK = (
    SHARED_DATA
    / "polytope-release"
    / "outputs_with_human_annotation"
    / "Human_Annotation_Summarization_BART.xlsm"
)


@pytest.mark.shared
@pytest.mark.skipif(
    not (POLYTOPE_OUTPUTS.is_dir() and BART_WORKBOOK.is_file()),
    reason="the PolyTope release is absent from ../shared/data",
)
def test_bart_on_the_release_page_at_the_published_score(context, demo):
    from django.core.management import call_command

    from annotation.corpus.models import Dataset
    from scoring.scores.services import scoring_pending_run_inline

    call_command(
        "import_dataset", str(POLYTOPE_OUTPUTS), "--format", "polytope-release",
        "--slug", "cnndm-polytope", verbosity=0,
    )  # fmt: skip
    call_command(
        "import_polytope_workbook", str(BART_WORKBOOK), "--dataset", "cnndm-polytope",
        "--system", "bart", verbosity=0,
    )  # fmt: skip
    scoring_pending_run_inline(dataset=Dataset.objects.get(slug="cnndm-polytope"))
    page = context.new_page()
    login(page, demo.url, "researcher")
    page.goto(f"{demo.url}/leaderboards/cnndm-polytope/?sort=polytope")
    wait_query(page, "?k=3&sort=polytope")
    bart = page.locator("#lb-table tr[data-system='bart']")
    score = bart.locator("td[data-metric='polytope'] .mean")
    expect(score).to_have_text("89.45")
    expect(score).to_have_attribute("title", re.compile(r"^89\.449 \(pooled over 4341 words"))
    expect(bart.locator("td[data-metric='polytope'] .n")).to_have_text("68 of 150 annotated")
    expect(bart.locator("td[data-metric='polytope-errors'] .sr-only")).to_have_text(
        "57 critical, 69 major, 1 minor"
    )
    first = page.eval_on_selector("#lb-table tbody tr", "tr => tr.dataset.system")
    assert first == "bart"
    others = page.locator("#lb-table td[data-metric='polytope'].na")
    expect(others).to_have_count(9)
    expect(page.locator("#breakdown-summary")).to_contain_text("127 errors in 68 annotated")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1280
    page.screenshot(path=str(ARTIFACTS / "leaderboard-polytope-bart.png"), full_page=True)
