"""A system's page and the document view in the browser: scores, sorting, versions, groups."""

from __future__ import annotations

import statistics

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login
from tests.e2e.leaderboard_helpers import DEFAULT_COLUMNS, api, partial_upload, wait_query, x100
from tests.score_helpers import stored_scores

pytestmark = pytest.mark.django_db(transaction=True)


def test_system_page_and_document_view(context, board, tmp_path):
    from scoring.scores.services import scoring_pending_run_inline

    first = board.dataset.documents.get(external_id="demo-001").sentences
    # Version 2 of Lead-3: three documents, one summary given as text that maps poorly.
    lines = [
        {"doc_id": "demo-003", "extracted": [0, 1, 2]},
        {"doc_id": "demo-005", "extracted": [0, 1, 2]},
    ]
    lines.append(
        {"doc_id": "demo-001", "sentences": [first[0], "Zebras juggle purple umbrellas.", first[2]]}
    )
    # Mapping it is refused unless accepted (tests/test_uploads_alignment.py): accept it here.
    version = partial_upload(board.dataset, tmp_path, lines, accept_low_confidence=True)
    assert version.number == 2 and version.report
    scoring_pending_run_inline(dataset=board.dataset, ks=[3])

    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    page.focus("#lb-table tr[data-system='lead-3'] th.system a")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{board.url}/leaderboards/demo/systems/lead-3/")
    expect(page.locator("#system-page")).to_have_attribute("aria-busy", "false")

    # The latest version: its documents with scores equal to the API's, and its upload report.
    scores = api(page, board.url, "/api/datasets/demo/systems/lead-3/scores/?k=3")
    rows = page.locator("#doc-table tbody tr")
    expect(rows).to_have_count(3)
    for doc in scores["documents"]:
        row = page.locator(f"#doc-table tr[data-document='{doc['external_id']}']")
        for metric in DEFAULT_COLUMNS:
            expect(row.locator(f"td[data-metric='{metric}'] .mean")).to_have_text(x100(doc[metric]))
    expect(page.locator("#report")).to_be_visible()
    expect(page.locator("#report-list li").first).to_contain_text("low-confidence mapping")
    expect(page.locator("#version-facts")).to_contain_text("2 of 2 (latest, on the leaderboard)")

    # Client-side sorting by keyboard: FAR descending, then ascending.
    page.focus("#doc-table th button[data-sort='far']")
    page.keyboard.press("Enter")
    expect(page.locator("#doc-table th[aria-sort='descending'] button")).to_have_attribute(
        "data-sort", "far"
    )
    shown = page.locator("#doc-table tbody td[data-metric='far'] .mean").all_text_contents()
    assert [float(v) for v in shown] == sorted((float(v) for v in shown), reverse=True)
    page.keyboard.press("Enter")
    expect(page.locator("#doc-table th[aria-sort='ascending'] button")).to_have_attribute(
        "data-sort", "far"
    )
    shown = page.locator("#doc-table tbody td[data-metric='far'] .mean").all_text_contents()
    assert [float(v) for v in shown] == sorted(float(v) for v in shown)

    # The older version stays readable: all six documents.
    page.focus("#version")
    page.keyboard.press("End")
    expect(page.locator("#doc-table")).to_have_attribute("data-query", "?version=1")
    expect(rows).to_have_count(6)
    expect(page.locator("#version-facts")).to_contain_text("1 of 2 (older")
    expect(page.locator("#report")).to_be_hidden()
    assert page.url.endswith("/systems/lead-3/?version=1&sort=far&order=ascending")

    # The document view of version 1 on demo-001: sentences, the considered ones, the groups.
    page.focus("#doc-table tr[data-document='demo-001'] a")
    page.keyboard.press("Enter")
    page.wait_for_url("**/leaderboards/demo/systems/lead-3/documents/demo-001/?version=1&k=3")
    expect(page.locator("#output-document")).to_have_attribute("aria-busy", "false")
    view = api(
        page, board.url, "/api/datasets/demo/systems/lead-3/documents/demo-001/?version=1&k=3"
    )
    expect(page.locator("#sentences li")).to_have_count(len(view["document"]["sentences"]))
    expect(page.locator("#sentences li.considered")).to_have_count(len(view["considered"]))
    for order, index in enumerate(view["extracted"]):
        expect(page.locator(f"#sentences li[data-index='{index}'] .mark")).to_contain_text(
            f"#{order + 1}"
        )
    expect(page.locator("#facts")).to_contain_text(view["fam"]["source"])
    for metric, value in view["scores"].items():
        expect(page.locator(f"#scores td[data-metric='{metric}'] .mean")).to_have_text(x100(value))
    facets = view["fam"]["facets"]
    assert any(g["covered"] for f in facets for g in f["groups"])
    assert not all(g["covered"] for f in facets for g in f["groups"])
    for facet in facets:
        item = page.locator(f"#facets li[data-index='{facet['index']}']")
        expect(item.locator(".fstatus")).to_have_text(
            "✓ covered" if facet["covered"] else "✗ not covered"
        )
        buttons = item.locator("button.dgroup")
        expect(buttons).to_have_count(len(facet["groups"]))
        for i, group in enumerate(facet["groups"]):
            button = buttons.nth(i)
            expect(button).to_have_attribute(
                "data-covered", "true" if group["covered"] else "false"
            )
            expect(button).to_contain_text(
                ("covered" if group["covered"] else "not covered") + " ("
            )

    # Focusing a group highlights its sentences in the document; leaving it clears them.
    group = next(
        g for f in facets for g in f["groups"] if not g["covered"] and len(g["sentences"]) > 1
    )
    button = page.locator(
        f"button.dgroup[data-sentences='{','.join(map(str, group['sentences']))}']"
    )
    button.focus()
    for index in group["sentences"]:
        expect(page.locator(f"#sentences li[data-index='{index}']")).to_have_class("sent in-group")
    page.focus("#k")
    expect(page.locator("#sentences li.in-group")).to_have_count(0)
    button.hover()
    expect(page.locator("#sentences li.in-group")).to_have_count(len(group["sentences"]))

    # k by keyboard on the document view: more sentences considered, same extraction.
    page.focus("#k")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.wait_for_url("**/documents/demo-001/?version=1&k=1")
    expect(page.locator("#sentences li.considered")).to_have_count(1)
    expect(page.locator("#sentences li.extracted")).to_have_count(2)
    expect(page.locator("#next")).to_be_visible()
    expect(page.locator("#position")).to_have_text("1 of 6")


def test_system_page_says_which_documents_each_mean_covers(context, board):
    from scoring.metrics.leaderboard import FAR_MEASURES, far_key

    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/systems/lead-3/")
    expect(page.locator("#system-page")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#doc-table tbody tr")).to_have_count(6)
    foot = page.locator("#doc-table tfoot")
    expect(foot).not_to_contain_text("Mean over 6 documents")
    for metric in DEFAULT_COLUMNS:
        # The stored per-document scores, read here, not through the page's API.
        key = far_key(metric, 3) if metric in FAR_MEASURES else metric
        stored = {
            s.row.document.external_id: s.value
            for s in stored_scores(key, version__system__slug="lead-3")
        }
        # FAR is only defined where the FAM has a supported facet: demo-006 has none.
        assert len(stored) == (5 if metric in FAR_MEASURES else 6), metric
        cell = foot.locator(f"td[data-metric='{metric}']")
        expect(cell.locator(".n")).to_have_text(f"n = {len(stored)}")
        expect(cell.locator(".mean")).to_have_text(x100(statistics.fmean(stored.values())))
    notes = page.locator("#mean-notes li")
    expect(notes).to_have_text(
        [
            "FAR, SAR, SAP, SAF1: mean over 5 of 6 documents; left out: demo-006 (its FAM has"
            " no supported facet).",
            "R-1 F, R-2 F, R-L F, R-Lsum F: mean over all 6 documents.",
        ]
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#mean-notes").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "system-page-means-1280x800.png"))
    # With precision and recall shown, their columns join the ROUGE line.
    page.focus("#show-pr")
    page.keyboard.press(" ")
    expect(notes.nth(1)).to_have_text(
        "R-1 P, R-1 R, R-1 F, R-2 P, R-2 R, R-2 F, R-L P, R-L R, R-L F, R-Lsum P, R-Lsum R, "
        "R-Lsum F: mean over all 6 documents."
    )
