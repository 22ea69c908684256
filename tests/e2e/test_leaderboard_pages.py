"""The researcher's leaderboard page end to end: table values against the API, keyboard-driven
filters and sorting, the coverage warning, live scoring jobs, correlations with human judgments,
and 403 pages for annotators."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import login
from tests.e2e.leaderboard_helpers import (
    DEFAULT_COLUMNS,
    api,
    assert_table_matches,
    fixed,
    partial_upload,
    table_rows,
    wait_query,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_leaderboard_values_filters_and_sorting_by_keyboard(context, board):
    page = context.new_page()
    login(page, board.url, "researcher")
    page.click("nav >> text=Leaderboards")
    page.click("#datasets a[href='/leaderboards/demo/']")
    wait_query(page, "?k=3")
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")
    assert len(table_rows(page)) == 3
    assert_table_matches(page, envelope)
    expect(page.locator("#legend")).to_contain_text(envelope["significance"]["test"])
    expect(page.locator("#legend")).to_contain_text(f"α = {envelope['significance']['alpha']}")
    expect(page.locator("#lb-table th[aria-sort='descending'] button")).to_have_attribute(
        "data-sort", "far"
    )
    expect(page.locator("#coverage")).to_contain_text("6 documents in scope")
    expect(page.locator("#notes")).to_be_hidden()

    # Facet category by keyboard: All -> Noise -> Low abstraction.
    page.focus("#category")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    wait_query(page, "?category=low&k=3")
    low = api(page, board.url, "/api/datasets/demo/leaderboard/?category=low&k=3")
    assert low["n_documents"] == 4
    assert_table_matches(page, low)
    assert page.url.endswith("/leaderboards/demo/?category=low")

    # k by keyboard: 3 -> 2; FAR is read at the other cut-off.
    page.focus("#k")
    page.keyboard.press("ArrowUp")
    wait_query(page, "?category=low&k=2")
    at_2 = api(page, board.url, "/api/datasets/demo/leaderboard/?category=low&k=2")
    assert_table_matches(page, at_2)
    expect(page.locator("#rescore")).to_have_text("Rescore at k = 2")
    src = page.locator("#plots img[data-plot='far-sar']").get_attribute("src")
    assert src == "/api/datasets/demo/leaderboard/plots/far-sar.svg?category=low&k=2"

    # Sorting by a header with the keyboard: the server re-sorts and re-tests.
    before = [r["system"] for r in table_rows(page)]
    page.focus("#lb-table th button[data-sort='rouge1_f']")
    page.keyboard.press("Enter")
    wait_query(page, "?category=low&k=2&sort=rouge1_f")
    by_rouge = api(
        page, board.url, "/api/datasets/demo/leaderboard/?category=low&k=2&sort=rouge1_f"
    )
    assert_table_matches(page, by_rouge)
    assert [r["system"] for r in table_rows(page)] != before
    expect(page.locator("#lb-table th[aria-sort]")).to_have_count(1)
    sorted_header = page.locator("#lb-table th[aria-sort='descending'] button")
    expect(sorted_header).to_have_attribute("data-sort", "rouge1_f")
    expect(sorted_header).to_be_focused()  # the focus stays on the header after the redraw
    expect(page.locator("#lb-table thead")).to_contain_text("vs next (R-1 F)")
    page.focus("#lb-table th button[data-sort='sar']")
    page.keyboard.press(" ")
    wait_query(page, "?category=low&k=2&sort=sar")
    expect(page.locator("#lb-table th[aria-sort='descending'] button")).to_have_attribute(
        "data-sort", "sar"
    )

    # Precision and recall columns on demand, then the view survives a reload from its URL.
    page.focus("#show-pr")
    page.keyboard.press(" ")
    expect(page.locator("#lb-table th button[data-sort='rouge2_p']")).to_be_visible()
    by_sar = api(page, board.url, "/api/datasets/demo/leaderboard/?category=low&k=2&sort=sar")
    assert_table_matches(page, by_sar, columns=by_sar["metrics"])
    page.reload()
    wait_query(page, "?category=low&k=2&sort=sar")
    expect(page.locator("#category")).to_have_value("low")
    expect(page.locator("#k")).to_have_value("2")
    expect(page.locator("#show-pr")).to_be_checked()
    expect(page.locator("#lb-table th[aria-sort='descending'] button")).to_have_attribute(
        "data-sort", "sar"
    )
    csv = page.locator("#download-csv").get_attribute("href")
    assert csv == "/api/datasets/demo/leaderboard/export/?file=csv&category=low&k=2"
    download = page.request.get(f"{board.url}{csv}")
    assert download.ok and download.text().startswith("system,name,kind,version,n_documents")


def test_coverage_warning_and_live_scoring_jobs(context, board, tmp_path):
    from scoring.scores.models import ScoringJob
    from scoring.scores.services import (
        scoring_job_create,
        scoring_job_run_inline,
        scoring_pending_run_inline,
    )

    ids = ("demo-001", "demo-003", "demo-005")
    version = partial_upload(
        board.dataset, tmp_path, [{"doc_id": d, "extracted": [0, 2, 1]} for d in ids]
    )
    job = scoring_job_create(
        dataset=board.dataset, trigger="upload", versions=[version], ks=[3], queue=False
    )
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")

    # The job is waiting: its status and a progress bar; coverage already differs.
    expect(page.locator("#jobs")).to_have_attribute("data-state", "queued")
    expect(page.locator("#job-status")).to_contain_text(f"Job {job.pk} (upload, k = 3) queued")
    expect(page.locator("#job-progress")).to_be_visible()
    expect(page.locator("#notes")).to_have_class("notes warning")
    expect(page.locator("#notes-heading")).to_contain_text("not compared over the same documents")

    # The job runs (here, in the test's process); the page notices and reloads the table.
    scoring_job_run_inline(job=job)
    expect(page.locator("#jobs")).to_have_attribute("data-state", "succeeded")
    expect(page.locator("#job-progress")).to_be_hidden()
    lead_far = page.locator("#lb-table tr[data-system='lead-3'] td[data-metric='far']")
    expect(lead_far).not_to_have_class(re.compile(r"\bna\b"))
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")
    assert not envelope["comparable"] and envelope["common_documents"] == 3
    assert_table_matches(page, envelope)
    notes = page.locator("#notes-list li")
    expect(notes).to_have_text(envelope["notes"])
    assert any("Lead-3" in note and "3 of 6" in note for note in envelope["notes"])
    expect(page.locator("#coverage")).to_contain_text(
        "6 documents in scope · 3 covered by every system"
    )

    # Common documents only, by keyboard: every mean is over the same three documents.
    page.focus("#common")
    page.keyboard.press(" ")
    wait_query(page, "?k=3&common=1")
    common = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3&common=1")
    assert_table_matches(page, common)
    assert {s["n_documents"] for s in common["systems"]} == {3}
    expect(page.locator("#coverage")).to_contain_text("means over the common documents only")

    # Rescore from the page: a new job is queued, shown, and followed until it is done.
    page.focus("#rescore")
    page.keyboard.press("Enter")
    expect(page.locator("#jobs")).to_have_attribute("data-state", "queued")
    rescore = ScoringJob.objects.order_by("-id").first()
    assert rescore.pk != job.pk and rescore.trigger == "manual" and rescore.ks == [3]
    expect(page.locator("#job-status")).to_contain_text(f"Job {rescore.pk} (manual")
    scoring_pending_run_inline(dataset=board.dataset, ks=[3])
    expect(page.locator("#jobs")).to_have_attribute("data-state", "succeeded")
    expect(page.locator("#job-status")).to_contain_text(
        f"Job {rescore.pk} (manual, k = 3) succeeded"
    )


def test_correlations_with_human_judgments(context, board, tmp_path):
    from scoring.judgments.services import human_judgments_import

    ratings = {"lead-3": 2.0, "demo-extsum": 3.5, "demo-abs": 4.0}
    path = tmp_path / "overall.jsonl"
    lines = [
        {"system": system, "doc_id": f"demo-00{d}", "score": value + d / 10}
        for system, value in ratings.items()
        for d in range(1, 7)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    human_judgments_import(dataset=board.dataset, name="overall", source=path, filename=path.name)

    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/?category=low")
    wait_query(page, "?category=low&k=3")
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?category=low&k=3")
    # The rows follow the table's columns: ROUGE precision and recall only when asked for.
    correlations = [c for c in envelope["correlations"] if c["metric"] in DEFAULT_COLUMNS]
    assert correlations and len(correlations) < len(envelope["correlations"])
    rows = page.locator("#corr-table tbody tr")
    expect(rows).to_have_count(len(correlations))
    reasons = 0
    for i, item in enumerate(correlations):
        cells = rows.nth(i).locator("td")
        expect(cells.nth(0)).to_have_text(item["judgment"])
        expect(cells.nth(2)).to_have_text(item["level"])
        expect(cells.nth(3)).to_contain_text(f"{item['n_systems']} systems")
        for column, method in enumerate(("pearson", "spearman", "kendall"), start=4):
            result = item[method]
            if result["value"] is None:
                expect(cells.nth(column)).to_have_text(result["reason"])
                reasons += 1
            else:
                expect(cells.nth(column).locator(".mean")).to_have_text(fixed(result["value"], 2))
    assert reasons  # FAR has two extractive systems only: some coefficients are undefined


def test_annotators_get_403(context, demo):
    page = context.new_page()
    login(page, demo.url, "annotator")
    expect(page.locator("nav[aria-label='Main'] >> text=Leaderboards")).to_have_count(0)
    for path in (
        "/leaderboards/",
        "/leaderboards/demo/",
        "/leaderboards/demo/systems/lead-3/",
        "/leaderboards/demo/systems/lead-3/documents/demo-001/",
    ):
        response = page.goto(f"{demo.url}{path}")
        assert response.status == 403, path
        expect(page.locator("#forbidden")).to_have_text(
            "Only researchers and admins may see this page."
        )
