"""A dataset without FAMs (the hand-worked PolyTope one) has no FAR: its leaderboard shows no
FAR plots and no facet-category or k filter, and one line says why; so does a system's page
(no filter, one line); the demo (gold FAMs) keeps them. Checked at 1280x800."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import login
from tests.e2e.leaderboard_helpers import api, wait_query

pytestmark = pytest.mark.django_db(transaction=True)

NOTE = (
    "No FAR plots or facet-category and k filters: this dataset has no FAMs (gold or released)"
    " to compute FAR against."
)
SYSTEM_NOTE = (
    "No facet-category or k filter: this dataset has no FAMs (gold or released) to compute FAR"
    " against."
)


def test_without_fams_no_far_plots_or_filters_and_a_note_says_why(context, board):
    from scoring.scores.services import scoring_pending_run_inline
    from tests.scoring.polytope_helpers import build

    scoring_pending_run_inline(dataset=build()["dataset"])
    page = context.new_page()
    login(page, board.url, "researcher")
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{board.url}/leaderboards/pt/")
    wait_query(page, "?k=3")
    assert api(page, board.url, "/api/datasets/pt/leaderboard/?k=3")["has_fams"] is False
    expect(page.locator("#plots")).to_be_hidden()
    expect(page.locator("#category")).to_be_hidden()
    expect(page.locator("#k")).to_be_hidden()
    expect(page.locator("#no-fams")).to_be_visible()
    expect(page.locator("#no-fams")).to_have_text(NOTE)
    box = page.locator("#no-fams").bounding_box()
    assert box["height"] < 30 and box["x"] + box["width"] <= 1280  # one line
    assert not [url for url in requested if "/leaderboard/plots/far" in url]
    assert not [url for url in requested if "/leaderboard/plots/categories" in url]

    # The demo has gold FAMs: the plots and the filters are there, without the note.
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    assert api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")["has_fams"] is True
    expect(page.locator("#plots img")).to_have_count(4)
    expect(page.locator("#plots")).to_be_visible()
    expect(page.locator("#category")).to_be_visible()
    expect(page.locator("#k")).to_be_visible()
    expect(page.locator("#no-fams")).to_be_hidden()


def test_a_system_page_without_fams_has_no_far_filters_and_a_note_says_why(context, board):
    from scoring.scores.services import scoring_pending_run_inline
    from tests.scoring.polytope_helpers import build

    scoring_pending_run_inline(dataset=build()["dataset"])
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/pt/systems/a/")
    expect(page.locator("#system-page")).to_have_attribute("aria-busy", "false")
    assert api(page, board.url, "/api/datasets/pt/systems/a/scores/")["has_fams"] is False
    expect(page.locator("#doc-table tbody tr")).to_have_count(3)
    expect(page.locator("#category")).to_be_hidden()
    expect(page.locator("#k")).to_be_hidden()
    expect(page.locator("#version")).to_be_visible()
    expect(page.locator("#show-pr")).to_be_visible()
    note = page.locator("#no-fams")
    expect(note).to_be_visible()
    expect(note).to_have_text(SYSTEM_NOTE)
    box = note.bounding_box()
    assert box["height"] < 30 and box["x"] + box["width"] <= 1280  # one line
    # Nothing else speaks of k or of FAR scores to come.
    expect(page.locator("#subtitle")).not_to_contain_text("k =")
    expect(page.locator("#count")).not_to_contain_text("FAR")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280

    # The demo has gold FAMs: a system's page keeps the filters, without the note.
    page.goto(f"{board.url}/leaderboards/demo/systems/lead-3/")
    expect(page.locator("#system-page")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#category")).to_be_visible()
    expect(page.locator("#k")).to_be_visible()
    expect(page.locator("#no-fams")).to_be_hidden()
    expect(page.locator("#subtitle")).to_contain_text("k = 3")
