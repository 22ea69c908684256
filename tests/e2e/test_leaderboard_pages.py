"""The researcher's leaderboard pages end to end: table values against the API, keyboard-driven
filters and sorting, the coverage warning, live scoring jobs, a system's documents, the
document view's support groups, and 403 pages for annotators."""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import login

pytestmark = pytest.mark.django_db(transaction=True)
DEFAULT_COLUMNS = ("far", "sar", "sap", "saf1", "rouge1_f", "rouge2_f", "rougeL_f")


@pytest.fixture
def demo(live_server):
    """The demo dataset (three systems, gold FAMs) and its users, not scored yet."""
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ROLES
    from annotation.corpus.demo import demo_load
    from annotation.corpus.models import Dataset

    for role in ROLES:  # made by a data migration, gone after an earlier test's flush
        Group.objects.get_or_create(name=role)
    demo_load()
    return SimpleNamespace(url=live_server.url, dataset=Dataset.objects.get(slug="demo"))


@pytest.fixture
def board(demo):
    """The demo scored at k = 2 and 3, in this process (no worker)."""
    from scoring.scores.services import scoring_pending_run_inline

    scoring_pending_run_inline(dataset=demo.dataset, ks=[2, 3])
    return demo


def partial_upload(dataset, tmp_path, lines: list[dict]):
    """Upload a new version of Lead-3's outputs covering only some documents."""
    from annotation.corpus.importers.bundle import SystemRecord
    from scoring.systems.models import OutputVersion
    from scoring.systems.services import system_output_import

    path = tmp_path / "lead-3.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    system = SystemRecord(slug="lead-3", name="Lead-3", kind="extractive")
    system_output_import(dataset=dataset, system=system, source=path)
    return OutputVersion.objects.filter(dataset=dataset, system__slug="lead-3").latest("number")


def fixed(value: float, places: int) -> str:
    """JS's ``value.toFixed(places)``: the exact double, halves rounded away from zero."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def x100(value) -> str:
    """What the pages show for a fraction: x100 with one decimal, or a dash."""
    return "—" if value is None else fixed(value * 100, 1)


def api(page, base: str, path: str) -> dict:
    response = page.request.get(f"{base}{path}")
    assert response.ok, response.text()
    return response.json()


def table_rows(page) -> list[dict]:
    """The leaderboard table as the page draws it: system, documents and every score cell."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#lb-table tbody tr[data-system]')].map((tr) => ({
            system: tr.dataset.system,
            cells: Object.fromEntries([...tr.querySelectorAll('td[data-metric]')].map((td) => [
                td.dataset.metric,
                [td.querySelector('.mean')?.textContent ?? td.textContent,
                 td.querySelector('.ci')?.textContent ?? null],
            ])),
            sig: tr.querySelector('td.sig').textContent,
        }))"""
    )


def assert_table_matches(page, envelope: dict, columns=DEFAULT_COLUMNS) -> None:
    rows = table_rows(page)
    assert [r["system"] for r in rows] == [s["system"] for s in envelope["systems"]]
    for row, expected in zip(rows, envelope["systems"], strict=True):
        assert row["cells"]["n_documents"][0] == str(expected["n_documents"])
        for metric in columns:
            if metric not in envelope["metrics"]:
                assert metric not in row["cells"]
                continue
            cell = expected[metric]
            if cell is None:
                assert row["cells"][metric] == ["—", None], (row["system"], metric)
            else:
                ci = f"{x100(cell['ci_low'])}–{x100(cell['ci_high'])}"
                assert row["cells"][metric] == [x100(cell["mean"]), ci], (row["system"], metric)
        test = expected["vs_next"]
        if test and test["p_value"] is not None:
            assert ("✱ significant" if test["significant"] else "n.s.") in row["sig"]
            assert f"n = {test['n']}" in row["sig"]
        elif test:
            assert test["reason"] in row["sig"]


def wait_query(page, query: str) -> None:
    """Wait until the table shows the leaderboard for exactly this API query."""
    expect(page.locator("#lb-table")).to_have_attribute("data-query", query)
    expect(page.locator("#leaderboard")).to_have_attribute("aria-busy", "false")


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
    version = partial_upload(board.dataset, tmp_path, lines)
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


def test_correlations_with_human_judgments(context, board, tmp_path):
    from scoring.leaderboards.judgments import human_judgments_import

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
