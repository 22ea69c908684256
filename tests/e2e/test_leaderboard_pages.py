"""The researcher's leaderboard page end to end: table values against the API, keyboard-driven
filters and sorting, the coverage warning, live scoring jobs, correlations with human judgments,
and 403 pages for annotators."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, POLL_MS, choose_file, eventually, login, login_through_form
from tests.e2e.leaderboard_helpers import (
    DEFAULT_COLUMNS,
    api,
    assert_table_matches,
    fixed,
    overall_study,
    partial_upload,
    table_rows,
    wait_query,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_leaderboard_values_filters_and_sorting_by_keyboard(context, board):
    page = context.new_page()
    login_through_form(page, board.url, "researcher")
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
    # What the job kernel's watchdog records when it re-sends a lost worker's chunks.
    ScoringJob.objects.filter(pk=job.pk).update(
        recoveries=1, recovery_note="re-sent 2 chunks after a worker was lost"
    )
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    expect(page.locator("#job-counts")).to_contain_text(
        "Recovered: re-sent 2 chunks after a worker was lost."
    )

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


def test_the_job_follower_stops_when_the_job_is_gone(context, demo):
    """A job that no longer exists (404) is not polled every 2 s forever: the panel says it
    could not check the job, and the page stops asking."""
    from scoring.scores.models import ScoringJob

    job = ScoringJob.objects.get(dataset=demo.dataset)  # the demo's, queued: no worker here
    assert job.status == "queued"
    job_id = job.pk
    page = context.new_page()
    login(page, demo.url, "researcher")
    checks = []
    page.on(
        "request",
        lambda r: checks.append(r.url) if r.url.endswith(f"/api/scoring-jobs/{job_id}/") else None,
    )
    page.goto(f"{demo.url}/leaderboards/demo/")
    expect(page.locator("#jobs")).to_have_attribute("data-state", "queued")
    expect(page.locator("#job-status")).to_contain_text(f"Job {job_id} (")
    eventually(lambda: page.wait_for_timeout(50) or bool(checks), message="the job is not followed")
    job.delete()
    error = page.locator("#job-error")
    expect(error).to_be_visible(timeout=6_000)
    expect(error).to_have_text(
        f"Could not check job {job_id}: Not found. Reload the page to try again."
    )
    expect(page.locator("#job-progress")).to_be_hidden()
    asked = len(checks)
    page.wait_for_timeout(10 * POLL_MS)  # ten polls' time
    assert len(checks) == asked


def _studied_board(context, board, tmp_path, *, opened: str, asked: str):
    """The demo's board page with the ``overall`` study, opened at the query ``opened``, once it
    shows the API query ``asked``, and that query's envelope."""
    overall_study(board, tmp_path)
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/{opened}")
    wait_query(page, asked)
    return page, api(page, board.url, f"/api/datasets/demo/leaderboard/{asked or '?k=3'}")


def test_correlations_with_human_judgments(context, board, tmp_path):
    page, envelope = _studied_board(
        context, board, tmp_path, opened="?category=low", asked="?category=low&k=3"
    )
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


def test_meta_evaluation_by_subset_with_intervals(context, board, tmp_path):
    page, envelope = _studied_board(context, board, tmp_path, opened="", asked="")
    [study] = envelope["meta_evaluation"]["studies"]
    section = page.locator("#meta-evaluation")
    expect(section).to_be_visible()
    rows = {(r["metric"], r["subset"], r["level"]): r for r in study["rows"]}
    metrics = list(dict.fromkeys(r["metric"] for r in study["rows"]))
    subsets = [item["subset"] for item in study["subsets"]]
    assert subsets == ["all", "abstractive", "extractive"]  # 3 systems: no top k below all
    table = section.locator("table[data-study='overall'] tbody tr")
    expect(table).to_have_count(len(metrics))
    for method in ("kendall", "pearson"):
        if method != "kendall":  # the coefficient is chosen by keyboard
            page.focus("#meta-method")
            page.keyboard.press("ArrowDown")
            page.keyboard.press("ArrowDown")
            expect(page.locator("#meta-method")).to_have_value(method)
        for i, metric in enumerate(metrics):
            cells = table.nth(i).locator("td")
            for column, subset in enumerate([*subsets, "all"]):
                level = "summary" if column == len(subsets) else "system"
                result = rows[(metric, subset, level)][method]
                if result["value"] is None:
                    expect(cells.nth(column)).to_have_text(result["reason"])
                else:
                    cell = cells.nth(column)
                    expect(cell.locator(".mean")).to_have_text(fixed(result["value"], 2))
                    if result["low"] is not None:
                        ends = f"{fixed(result['low'], 2)}–{fixed(result['high'], 2)}"
                        expect(cell.locator(".ci")).to_have_text(ends)
    # One abstractive system: no correlation among the abstractive ones, with the reason.
    assert "at least 3 systems" in rows[(metrics[0], "abstractive", "system")]["kendall"]["reason"]
    expect(page.locator("#meta-released")).to_be_hidden()  # the demo has no released scores
    section.screenshot(path=str(ARTIFACTS / "leaderboard-meta-evaluation.png"))


def test_annotators_get_403(context, demo):
    page = context.new_page()
    login_through_form(page, demo.url, "annotator")
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


def _studies(page) -> list[list]:
    """The studies the page lists, each with whether it offers a Delete button."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#studies li[data-study]')].map((li) =>
            [li.dataset.study, li.querySelector('button.study-delete') !== null])"""
    )


def _upload_study(page, name: str, path, *, replace: bool = False) -> None:
    """Fill the judgment form by keyboard and send it."""
    page.focus("#judgment-name")
    page.keyboard.press("Control+A")
    page.keyboard.type(name)
    page.keyboard.press("Tab")
    choose_file(page, path)
    page.keyboard.press("Tab")
    expect(page.locator("#judgment-replace")).to_be_focused()
    if replace != page.locator("#judgment-replace").is_checked():
        page.keyboard.press("Space")
    page.keyboard.press("Tab")
    expect(page.locator("#judgment-submit")).to_be_focused()
    page.keyboard.press("Enter")


def test_a_researcher_uploads_replaces_and_deletes_a_judgment_study(context, board, tmp_path):
    from scoring.judgments.models import HumanJudgment
    from scoring.judgments.services import human_judgments_import

    good = tmp_path / "overall.csv"
    good.write_text("system,score\nlead-3,2\ndemo-extsum,3.5\ndemo-abs,4\n", encoding="utf-8")
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    expect(page.locator("#correlations")).to_be_hidden()
    expect(page.locator("#studies")).to_contain_text("No human judgment study yet.")
    # The name's pattern compiles in Chromium (RegExp v flag): a non-slug is a mismatch.
    name = page.locator("#judgment-name")
    name.focus()
    page.keyboard.type("bad name!")
    assert name.evaluate("(input) => input.validity.patternMismatch") is True
    name.fill("")

    # A valid study: the correlations appear without a reload, one row per metric shown.
    _upload_study(page, "overall", good)
    message = page.locator("#judgment-result")
    expect(message).to_be_focused()
    expect(message).to_have_attribute("data-state", "done")
    expect(message).to_contain_text("Uploaded overall: 3 rows, scores per system.")
    expect(page.locator("#correlations")).to_be_visible()
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3")
    shown = [c for c in envelope["correlations"] if c["metric"] in DEFAULT_COLUMNS]
    assert shown and {c["judgment"] for c in shown} == {"overall"}
    rows = page.locator("#corr-table tbody tr")
    expect(rows).to_have_count(len(shown))
    expect(rows.first.locator("td").first).to_have_text("overall")
    assert _studies(page) == [["overall", True]]
    expect(page.locator("#studies li[data-study=overall]")).to_contain_text(
        "scores per system · 3 systems · 3 rows · uploaded by researcher"
    )

    # A bad file: every problem with its file, line and field; nothing changes.
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "system,doc_id,score\nlead-3,demo-001,1\nlead-3,demo-404,2\nghost,demo-002,3\n",
        encoding="utf-8",
    )
    _upload_study(page, "faith", bad)
    expect(message).to_be_focused()
    expect(message).to_have_attribute("data-state", "refused")
    expect(message).to_contain_text("Refused: 2 problem(s); nothing was saved.")
    issues = message.locator(".issues li")
    expect(issues.locator("code")).to_have_text(["bad.csv:3 [doc_id]", "bad.csv:4 [system]"])
    expect(issues.nth(0)).to_contain_text("unknown document 'demo-404'")
    expect(issues.nth(1)).to_contain_text("unknown system 'ghost'")
    expect(rows).to_have_count(len(shown))
    assert _studies(page) == [["overall", True]]
    assert set(HumanJudgment.objects.values_list("name", flat=True)) == {"overall"}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaderboard-judgment-refused.png"))

    # The same name again is refused until "Replace" is ticked; then ranks replace the scores.
    ranks = tmp_path / "ranks.jsonl"
    ranks.write_text(
        "".join(
            json.dumps({"system": s, "doc_id": d, "rank": r}) + "\n"
            for d in ("demo-001", "demo-002")
            for s, r in (("lead-3", 3), ("demo-extsum", 1), ("demo-abs", 2))
        ),
        encoding="utf-8",
    )
    _upload_study(page, "overall", ranks)
    expect(message).to_have_attribute("data-state", "refused")
    expect(message).to_contain_text("already exists")
    expect(message).to_contain_text("tick “Replace the study of that name”")
    _upload_study(page, "overall", ranks, replace=True)
    expect(message).to_have_attribute("data-state", "done")
    expect(message).to_contain_text("Replaced overall: 6 rows, ranks per system and document.")
    expect(page.locator("#studies li[data-study=overall]")).to_contain_text(
        "ranks per system and document · 3 systems · 2 documents · 6 rows"
    )
    expect(page.locator("#corr-table tbody")).to_contain_text("summary")
    assert HumanJudgment.objects.filter(name="overall", kind="rank").count() == 6

    # Someone else's study is listed but offers no Delete; the researcher deletes their own.
    other = tmp_path / "other.csv"
    other.write_text("system,score\nlead-3,1\ndemo-extsum,2\ndemo-abs,3\n", encoding="utf-8")
    human_judgments_import(dataset=board.dataset, name="fluency", source=other, filename=other.name)
    page.reload()
    wait_query(page, "?k=3")
    expect(page.locator("#studies li[data-study]")).to_have_count(2)
    assert _studies(page) == [["fluency", False], ["overall", True]]
    page.once("dialog", lambda dialog: dialog.accept())
    page.focus("#studies li[data-study=overall] button.study-delete")
    page.keyboard.press("Enter")
    expect(message).to_contain_text("Deleted overall.")
    expect(page.locator("#studies li[data-study]")).to_have_count(1)
    assert _studies(page) == [["fluency", False]]
    expect(page.locator("#corr-table tbody")).not_to_contain_text("overall")
    assert set(HumanJudgment.objects.values_list("name", flat=True)) == {"fluency"}


def test_the_rouge_settings_and_their_columns_are_shown(context, board):
    """An admin's change of the demo's ROUGE (rescored here, no worker): the page says which
    rouge-score call the columns are, and names the unstemmed and split keys."""
    from scoring.metrics.rouge import RougeConfig
    from scoring.scores.services import rouge_settings_update, scoring_job_run_inline

    config = RougeConfig(("rouge1", "rougeLsum"), use_stemmer=False, split_summaries=True)
    scoring_job_run_inline(
        job=rouge_settings_update(dataset=board.dataset, config=config, queue=False)
    )
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/?sort=rouge1_nostem_f")
    wait_query(page, "?k=3&sort=rouge1_nostem_f")
    expect(page.locator("#rouge-settings")).to_have_text(
        'ROUGE as rouge-score\'s RougeScorer(["rouge1", "rougeLsum"], use_stemmer=False, '
        "split_summaries=True); ROUGE-Lsum over the sentences NLTK's Punkt finds."
    )
    envelope = api(page, board.url, "/api/datasets/demo/leaderboard/?k=3&sort=rouge1_nostem_f")
    assert_table_matches(page, envelope, columns=("far", "sar", "sap", "saf1", *config.f_keys()))
    head = page.locator("#lb-table thead")
    expect(head).to_contain_text("R-1 F (ns)")
    expect(head).to_contain_text("R-Lsum F (ns, split)")
    title = page.locator("#lb-table th button[data-sort='rougeLsum_nostem_split_f']")
    expect(title).to_have_attribute(
        "title", re.compile(r"ROUGE-Lsum F1 \(no stemming; sentences by NLTK Punkt\)")
    )
