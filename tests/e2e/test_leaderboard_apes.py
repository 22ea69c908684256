"""APES on the leaderboard page at 1280x800, by keyboard: its two columns against the API,
sorting by APES, and the section with APES's correlation with FAR."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login
from tests.e2e.leaderboard_helpers import api, assert_table_matches, wait_query

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def apes_board(board):
    """The demo scored at k = 2 and 3, and its APES run, both in this process."""
    from scoring.apes.services import apes_run_create, apes_run_inline

    run = apes_run_inline(run=apes_run_create(dataset=board.dataset, queue=False))
    assert run.status == "succeeded", run.error
    return board


def test_apes_columns_sort_and_far_correlation_by_keyboard(context, apes_board):
    base = apes_board.url
    page = context.new_page()
    login(page, base, "researcher")
    page.goto(f"{base}/leaderboards/demo/")
    wait_query(page, "?k=3")
    envelope = api(page, base, "/api/datasets/demo/leaderboard/?k=3")
    assert {"apes", "apes_embedding"} <= set(envelope["metrics"])
    # Both APES columns show the API's means and CIs (x100), like every other column.
    assert_table_matches(page, envelope, columns=("far", "rouge1_f", "apes", "apes_embedding"))
    expect(page.locator("#lb-table thead button[data-sort='apes']")).to_contain_text("APES")

    # Sort by APES with the keyboard: the header's button, then Enter.
    button = page.locator("#lb-table thead button[data-sort='apes']")
    button.focus()
    page.keyboard.press("Enter")
    wait_query(page, "?k=3&sort=apes")
    sorted_envelope = api(page, base, "/api/datasets/demo/leaderboard/?k=3&sort=apes")
    means = [s["apes"]["mean"] for s in sorted_envelope["systems"] if s["apes"]]
    assert means == sorted(means, reverse=True)
    assert_table_matches(page, sorted_envelope, columns=("apes", "apes_embedding"))
    expect(page.locator("#lb-table thead button[data-sort='apes']")).to_be_focused()

    # The APES section: what it is, and the correlation with FAR per answerer and level.
    section = page.locator("#apes-correlations")
    expect(section).to_be_visible()
    expect(page.locator("#apes-corr-about")).to_contain_text("cloze questions")
    block = sorted_envelope["apes"]
    assert block["available"] and block["correlations"]
    rows = page.locator("#apes-corr-table tbody tr")
    expect(rows).to_have_count(len(block["correlations"]))
    first = block["correlations"][0]
    expect(rows.first).to_have_attribute("data-metric", first["metric"])
    expect(rows.first).to_have_attribute("data-level", first["level"])
    # The table's scroll region is reachable by keyboard.
    region = page.locator("#apes-correlations .table-scroll")
    region.focus()
    expect(region).to_be_focused()
    region.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "leaderboard-apes.png"))
