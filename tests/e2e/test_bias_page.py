"""The dataset-bias page end to end at 1280x800: Compute by keyboard, the run followed while a
worker (the test, calling the tasks) computes it, the table and plots; the admin dataset page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login
from tests.job_helpers import hold_job_sends

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def runs(monkeypatch):
    """The bias runs the app queues (through the job kernel), held instead of sent."""
    return hold_job_sends(monkeypatch, "bias")


def _work(ids: list[int]) -> None:
    """Do what a worker does: plan the run, each chunk's task, then the chord callback."""
    from annotation.jobs.tasks import job_chunk_task, job_done_task
    from scoring.bias.models import BiasRun
    from scoring.bias.services import bias_run_plan

    assert ids, "no run was queued"
    for pk in dict.fromkeys(ids):
        run = BiasRun.objects.get(pk=pk)
        chunks = bias_run_plan(run=run, chunk_size=2)
        job_done_task([job_chunk_task("bias", pk, chunk.pk) for chunk in chunks], "bias", pk)
    ids.clear()


def _fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def test_the_bias_page_compute_by_keyboard_and_the_admin_panel(browser, context, demo, runs):
    page = context.new_page()
    login(page, demo.url, "researcher", "loupe-researcher")
    page.goto(f"{demo.url}/leaderboards/demo/")
    page.locator("#bias-link").click()
    page.wait_for_url(f"{demo.url}/leaderboards/demo/bias/")
    status = page.locator("#bias-status")
    expect(status).to_have_text("Not computed yet.")
    expect(page.locator("#bias-region")).to_be_hidden()
    # The keyboard path: Tab reaches Compute, Enter starts the run.
    button = page.locator("#bias-compute")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "bias-compute":
            break
    assert page.evaluate("document.activeElement.id") == "bias-compute"
    page.keyboard.press("Enter")
    expect(status).to_have_text("Waiting for a worker…")
    expect(button).to_be_disabled()
    expect(page.locator("#bias-progress")).to_be_visible()
    _work(runs)
    expect(page.locator("#bias-panel")).to_have_attribute("data-state", "succeeded", timeout=15_000)
    expect(button).to_be_enabled()
    rows = page.locator("#bias-table tbody tr")
    from annotation.systems.models import System

    systems = sorted(System.objects.values_list("slug", flat=True))
    expect(rows).to_have_count(1 + len(systems))
    expect(rows.nth(0)).to_have_attribute("data-source", "reference")
    api = page.request.get(f"{demo.url}/api/datasets/demo/bias/").json()
    assert [r["source"] for r in api["rows"]] == ["reference", *systems]
    for index, row in enumerate(api["rows"]):
        cells = rows.nth(index).locator("td")
        expect(cells.nth(2)).to_have_text(f"{row['coverage']:.3f}")  # kind, pairs, coverage
        expect(cells.nth(3)).to_have_text(f"{row['density']:.3f}")
        expect(cells.nth(6)).to_have_text(f"{100 * row['novel'][0]:.1f}")
    expect(status).to_contain_text("Computed")
    # The three plots are drawn (SVGs that loaded).
    for name in ("novel", "abstractiveness", "positions"):
        img = page.locator(f"img[data-bias-plot='{name}']")
        expect(img).to_have_attribute(
            "src", f"/api/datasets/demo/bias/plots/{name}.svg?run={api['run']['id']}"
        )
        page.wait_for_function(
            "(n) => { const i = document.querySelector(`img[data-bias-plot='${n}']`);"
            " return i.complete && i.naturalWidth > 0; }",
            arg=name,
        )
    _fits(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dataset-bias.png"), full_page=True)
    # Compute again: nothing changed, the figures stay and no run is queued.
    button.focus()
    page.keyboard.press("Enter")
    expect(status).to_contain_text("Computed")
    assert runs == []

    other = browser.new_context(viewport={"width": 1280, "height": 800})  # a second session
    admin = other.new_page()
    login(admin, demo.url, "admin", "loupe-admin")
    admin.goto(f"{demo.url}/manage/datasets/demo/")
    expect(admin.locator("#bias-table tbody tr")).to_have_count(1 + len(systems))
    expect(admin.locator("#bias-compute")).to_be_visible()
    _fits(admin)
    other.close()
