"""AutoFAR-L on the leaderboard page at 1280x800, by keyboard: the estimate column against the
API, its label and notes, sorting by it, and why abstractive systems have none."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login
from tests.e2e.leaderboard_helpers import api, assert_table_matches, wait_query

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def autofar_board(demo):
    """The hand-worked dataset of tests/autofar/test_autofar_runs.py, scored and estimated here."""
    from scoring.autofar.services import autofar_run_create, autofar_run_inline
    from scoring.scores.services import scoring_pending_run_inline
    from tests.autofar.test_autofar_runs import build_tiny

    dataset, _, fit = build_tiny()
    scoring_pending_run_inline(dataset=dataset, ks=[2, 3])
    run = autofar_run_inline(run=autofar_run_create(dataset=dataset, fit=fit, queue=False))
    assert run.status == "succeeded", run.error
    return demo.url, dataset.slug


def test_autofar_column_notes_and_sort_by_keyboard(context, autofar_board):
    base, slug = autofar_board
    page = context.new_page()
    login(page, base, "researcher")
    page.goto(f"{base}/leaderboards/{slug}/")
    wait_query(page, "?k=3")
    envelope = api(page, base, f"/api/datasets/{slug}/leaderboard/?k=3")
    assert envelope["metrics"][:2] == ["far", "autofar_l"]
    assert_table_matches(page, envelope, columns=("far", "autofar_l", "rouge1_f"))
    header = page.locator("#lb-table thead button[data-sort='autofar_l']")
    expect(header).to_contain_text("AutoFAR-L (estimate)")
    # sys-a's estimate is 1.3 (not clipped): the page shows 130.0, like the API's mean x100.
    expect(
        page.locator("#lb-table tr[data-system='sys-a'] td[data-metric='autofar_l'] .mean")
    ).to_have_text("130.0")
    expect(
        page.locator("#lb-table tr[data-system='sys-abs'] td[data-metric='autofar_l']")
    ).to_contain_text("—")
    # The notes say it is an estimate, with the fit's figures, and why abstractive has none.
    notes = page.locator("#notes-list")
    expect(notes).to_contain_text(envelope["autofar"]["note"])
    expect(notes).to_contain_text("Abstractive systems have no extracted sentence indices")
    expect(page.locator("#notes")).to_be_visible()

    # Sort by the estimate with the keyboard: the header's button, then Enter.
    header.focus()
    page.keyboard.press("Enter")
    wait_query(page, "?k=3&sort=autofar_l")
    by_estimate = api(page, base, f"/api/datasets/{slug}/leaderboard/?k=3&sort=autofar_l")
    means = [s["autofar_l"]["mean"] for s in by_estimate["systems"] if s["autofar_l"]]
    assert means == sorted(means, reverse=True) == pytest.approx([1.3, 0.75, 0.2])
    assert_table_matches(page, by_estimate, columns=("autofar_l",))
    expect(page.locator("#lb-table thead button[data-sort='autofar_l']")).to_be_focused()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.screenshot(path=str(ARTIFACTS / "leaderboard-autofar.png"), full_page=True)
