"""The admin pages in the browser (Playwright, Debian's Chromium, 1280x800): a dataset validated
then imported with the pipeline's report in the page; FAM campaigns created with the keyboard
alone (by category, and by a seeded sample after a refused size shown next to its field); a
campaign's progress per annotator and per task after saves and a submission made through the
services, its CSV, an added annotator, a reassigned task and a refused one, and the campaign
moved to adjudication and closed; the campaign's instructions in both workspaces."""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, choose_file, login

pytestmark = pytest.mark.django_db(transaction=True)

ANNOTATORS = ("bea", "cai")  # besides the demo's "annotator"


@pytest.fixture
def site(demo):
    """The demo, its users and two more annotators (passwords pw-bea, pw-cai)."""
    from annotation.accounts.roles import ANNOTATOR
    from annotation.accounts.services import user_create

    for username in ANNOTATORS:
        user_create(username=username, password=f"pw-{username}", role=ANNOTATOR)
    return demo


def admin_page(context, url: str, path: str):
    page = context.new_page()
    login(page, url, "admin", "loupe-admin")
    page.goto(f"{url}{path}")
    return page


FOCUSED = "(s) => document.activeElement && document.activeElement.matches(s)"


def tab_to(page, selector: str, *, limit: int = 60, back: bool = False) -> None:
    """Press Tab (Shift+Tab with ``back``) until ``selector`` has the focus."""
    for _ in range(limit):
        if page.evaluate(FOCUSED, selector):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"{selector} never got the focus by Tab")


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


# --- datasets ---------------------------------------------------------------------------------


def _dataset_file(path, *, broken: bool = False):
    lines = [
        {
            "id": "n-1",
            "sentences": ["The river rose overnight.", "Roads near the bridge were closed."],
            "references": [["The river flooded roads near the bridge."]],
            "category": "low",
        },
        {
            "id": "n-2",
            "text": "A new bakery opened on Main Street. It sells rye bread only.",
            "references": ["A rye-only bakery opened."],
            "category": "high",
        },
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    if broken:
        text += '{"id": "n-3", "sentences": []}\n'
    path.write_text(text, encoding="utf-8")
    return path


def test_a_dataset_is_validated_then_imported_with_the_report_in_the_page(context, site, tmp_path):
    from annotation.corpus.models import Dataset

    page = admin_page(context, site.url, "/manage/datasets/")
    expect(page.locator("#datasets tr[data-dataset=demo]")).to_have_count(1)
    expect(page.locator("#format option[value=jsonl]")).to_have_count(1)

    # A file with a bad line: refused, the line named, nothing written.
    tab_to(page, "#file")
    choose_file(page, _dataset_file(tmp_path / "news.jsonl", broken=True), "#file")
    page.keyboard.press("Tab")
    expect(page.locator("#slug")).to_be_focused()
    page.keyboard.type("e2e-news")
    page.keyboard.press("Tab")
    page.keyboard.type("E2E news")
    page.keyboard.press("Enter")  # the form's first button: Validate only
    result = page.locator("#result")
    expect(result).to_be_focused()
    expect(result).to_have_attribute("data-state", "refused")
    expect(page.locator("#result-title")).to_contain_text("nothing was written")
    issue = result.locator(".issues li").first
    expect(issue.locator("code")).to_contain_text("news.jsonl:3")
    assert not Dataset.objects.filter(slug="e2e-news").exists()

    # The good file: validated (nothing written) ...
    tab_to(page, "#file", back=True)
    choose_file(page, _dataset_file(tmp_path / "news.jsonl"), "#file")
    tab_to(page, "#validate")
    page.keyboard.press("Enter")
    expect(result).to_be_focused()
    expect(result).to_have_attribute("data-state", "done")
    expect(page.locator("#result-title")).to_have_text(
        "Valid: 2 documents would become e2e-news. Nothing was written."
    )
    expect(result.locator(".facts")).to_contain_text("References")
    assert not Dataset.objects.filter(slug="e2e-news").exists()
    # ... then imported: the report, the dataset in the list, a link to its page.
    tab_to(page, "#import", back=True)
    page.keyboard.press("Enter")
    expect(page.locator("#result-title")).to_have_text("Imported e2e-news: 2 documents.")
    dataset = Dataset.objects.get(slug="e2e-news")
    assert (dataset.name, dataset.documents.count()) == ("E2E news", 2)
    expect(page.locator("#datasets tr[data-dataset=e2e-news]")).to_have_count(1)
    assert no_horizontal_scroll(page)
    shot(page, "admin-datasets-import.png")

    # The dataset's page: its categories and documents.
    result.get_by_role("link", name="e2e-news").click()
    page.wait_for_url(f"{site.url}/manage/datasets/e2e-news/")
    expect(page.locator("#title")).to_have_text("E2E news")
    expect(page.locator("#categories tr[data-category=low] td")).to_have_text("1")
    expect(page.locator("#categories tr[data-category=high] td")).to_have_text("1")
    expect(page.locator("#documents tbody tr")).to_have_count(2)
    page.locator("#category-filter").select_option("high")
    expect(page.locator("#documents tbody tr")).to_have_count(1)
    expect(page.locator("#documents tbody tr")).to_have_attribute("data-document", "n-2")
    assert no_horizontal_scroll(page)


def test_the_demo_dataset_page_lists_its_sets_and_campaigns(context, site):
    from annotation.campaigns.services import campaign_launch
    from annotation.corpus.models import Dataset

    campaign = campaign_launch(
        dataset=Dataset.objects.get(slug="demo"), slug="seen", name="Seen", scorers=[]
    ).campaign
    page = admin_page(context, site.url, "/manage/datasets/demo/")
    expect(page.locator("#sets tr[data-set=gold]")).to_have_count(1)
    expect(page.locator("#categories tr[data-category=low] td")).to_have_text("4")
    row = page.locator(f"#campaigns tr[data-campaign='{campaign.pk}']")
    expect(row.get_by_role("link", name="Seen")).to_have_attribute(
        "href", f"/manage/campaigns/{campaign.pk}/"
    )
    expect(row).to_contain_text("Annotating")
    for name, href in [
        ("Releases", "/manage/datasets/demo/releases/"),
        ("Agreement", "/manage/datasets/demo/agreement/"),
        ("New campaign", "/manage/campaigns/new/?dataset=demo"),
    ]:
        expect(page.get_by_role("link", name=name, exact=True)).to_have_attribute("href", href)
    expect(page.locator("#documents tbody tr")).to_have_count(6)
    assert no_horizontal_scroll(page)
    shot(page, "admin-dataset.png")


# --- creating campaigns -----------------------------------------------------------------------


def _start_form(page, *, name: str) -> None:
    """From the top of the new-campaign page: the dataset, the kind (FAM) and the name."""
    expect(page.locator("#dataset option[value=demo]")).to_have_count(1)
    expect(page.locator("#annotators input[value=bea]")).to_have_count(1)
    page.keyboard.press("Tab")
    expect(page.locator(".skip")).to_be_focused()
    page.keyboard.press("Enter")
    tab_to(page, "#dataset")
    page.keyboard.type("Demo")  # type-ahead: "Demo news (demo, 6 documents)"
    expect(page.locator("#dataset")).to_have_value("demo")
    expect(page.locator("#docs-total")).to_have_text("6 documents in the dataset.")
    page.keyboard.press("Tab")
    expect(page.locator("input[name=kind][value=fam]")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#name")).to_be_focused()
    page.keyboard.type(name)


def _annotators_and_overlap(page, names=("annotator", "bea"), overlap: str = "2") -> None:
    for username in names:
        tab_to(page, f"#annotators input[value={username}]")
        page.keyboard.press("Space")
    tab_to(page, "#overlap")
    page.keyboard.press("Control+A")
    page.keyboard.type(overlap)


def test_fam_campaigns_are_created_by_keyboard_by_category_and_by_seeded_sample(context, site):
    from annotation.campaigns.models import Campaign, Task

    page = admin_page(context, site.url, "/manage/campaigns/new/")
    _start_form(page, name="Noise and high")
    expect(page.locator("#slug")).to_have_value("noise-and-high")  # made from the name
    tab_to(page, "input[name=doc-mode][value=all]")
    page.keyboard.press("ArrowRight")  # the radio group: "By category"
    expect(page.locator("input[name=doc-mode][value=categories]")).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.locator("#categories input[value=noise]")).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # low: left out
    page.keyboard.press("Tab")
    expect(page.locator("#categories input[value=high]")).to_be_focused()
    page.keyboard.press("Space")
    _annotators_and_overlap(page)
    tab_to(page, "#instructions")
    page.keyboard.type("Mark every facet.")
    page.keyboard.press("Enter")  # a new line in the text
    page.keyboard.type("Ask bea if unsure.")
    assert no_horizontal_scroll(page)
    shot(page, "admin-campaign-form.png")
    tab_to(page, "#create")
    page.keyboard.press("Enter")

    page.wait_for_url(f"{site.url}/manage/campaigns/*/")
    campaign = Campaign.objects.get(slug="noise-and-high")
    assert page.url == f"{site.url}/manage/campaigns/{campaign.pk}/"
    expect(page.locator("#notice")).to_have_text("Campaign created with 4 tasks.")
    # demo-004 is noise, demo-006 high: both annotators on each (overlap 2).
    assert sorted(campaign.documents.values_list("external_id", flat=True)) == [
        "demo-004",
        "demo-006",
    ]
    pairs = sorted(
        Task.objects.filter(campaign=campaign).values_list(
            "document__external_id", "annotator__username"
        )
    )
    assert pairs == [
        ("demo-004", "annotator"),
        ("demo-004", "bea"),
        ("demo-006", "annotator"),
        ("demo-006", "bea"),
    ]
    assert (campaign.annotators_per_document, campaign.kind, campaign.blind) == (2, "fam", True)
    assert campaign.instructions == "Mark every facet.\nAsk bea if unsure."
    assert campaign.scorers == ["rougeavg-f", "tfidf"] and campaign.sample is None
    expect(page.locator("#totals")).to_contain_text("0 done · 0 in progress · 4 not started")
    # The campaigns' list has it, with its progress and a link to its page.
    page.get_by_role("link", name="Campaigns", exact=True).first.click()
    page.wait_for_url(f"{site.url}/manage/campaigns/")
    row = page.locator(f"#campaigns tr[data-campaign='{campaign.pk}']")
    expect(row).to_contain_text("0 of 4 tasks done")
    expect(row).to_contain_text("Annotating")
    expect(row.get_by_role("link", name="Noise and high")).to_have_attribute(
        "href", f"/manage/campaigns/{campaign.pk}/"
    )
    assert no_horizontal_scroll(page)
    shot(page, "admin-campaigns.png")

    # By a seeded sample: 10 of 6 is refused next to the size, the form keeps what was typed.
    page.goto(f"{site.url}/manage/campaigns/new/")
    _start_form(page, name="Sampled")
    tab_to(page, "input[name=doc-mode][value=all]")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(page.locator("input[name=doc-mode][value=sample]")).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.locator("#sample-size")).to_be_focused()
    page.keyboard.type("10")
    page.keyboard.press("Tab")
    expect(page.locator("#sample-seed")).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type("7")
    _annotators_and_overlap(page)
    page.keyboard.press("Enter")  # Enter in a text field submits

    size = page.locator("#sample-size")
    error = page.locator("[data-field='sample.size'] > .field-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("only 6 document")
    expect(size).to_have_attribute("aria-invalid", "true")
    assert error.get_attribute("id") in size.get_attribute("aria-describedby").split()
    expect(size).to_be_focused()
    expect(page.locator("#form-errors")).to_contain_text("One field needs attention")
    expect(page.locator("#name")).to_have_value("Sampled")
    expect(page.locator("#overlap")).to_have_value("2")
    expect(page.locator("#annotators input[value=bea]")).to_be_checked()
    assert not Campaign.objects.filter(slug="sampled").exists()
    shot(page, "admin-campaign-form-refused.png")

    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{site.url}/manage/campaigns/*/")
    campaign = Campaign.objects.get(slug="sampled")
    # The documented rule: pool in dataset order, indices sorted(Random(seed).sample(range, n)).
    pool = ["demo-001", "demo-002", "demo-003", "demo-004", "demo-005", "demo-006"]
    expected = [pool[i] for i in sorted(random.Random(7).sample(range(6), 3))]  # noqa: S311
    assert list(campaign.documents.order_by("position").values_list("external_id", flat=True)) == (
        expected
    )
    assert campaign.sample == {"size": 3, "seed": 7, "categories": []}
    assert Task.objects.filter(campaign=campaign).count() == 6
    expect(page.locator("#summary")).to_contain_text("random sample of 3, seed 7")
    expect(page.locator("#notice")).to_have_text("Campaign created with 6 tasks.")


def test_a_polytope_campaign_is_created_from_the_form_after_a_refused_empty_system_choice(
    context, site
):
    from annotation.campaigns.models import Campaign, Task

    page = admin_page(context, site.url, "/manage/campaigns/new/?dataset=demo")
    expect(page.locator("#dataset")).to_have_value("demo")  # from the dataset page's link
    expect(page.locator("#systems input[value=lead-3]")).to_have_count(1)
    page.locator("input[name=kind][value=polytope]").check()
    # Only what a PolyTope campaign takes shows: systems and system-blind, no reference or
    # suggestion scorers.
    expect(page.locator("#systems")).to_be_visible()
    expect(page.locator("#system-blind")).to_be_visible()
    expect(page.locator("#reference")).to_be_hidden()
    expect(page.locator("#scorers")).to_be_hidden()
    page.locator("#name").fill("Spans")
    page.locator("input[name=doc-mode][value=ids]").check()
    page.locator("#documents").fill("demo-001\ndemo-002")
    page.locator("#annotators input[value=annotator]").check()
    page.locator("#create").click()
    error = page.locator("[data-field=systems] > .field-error")
    expect(error).to_have_text("A PolyTope campaign needs at least one system (a list of slugs).")
    expect(page.locator("#systems input[value=lead-3]")).to_have_attribute("aria-invalid", "true")
    assert not Campaign.objects.filter(slug="spans").exists()

    page.locator("#systems input[value=demo-abs]").check()
    page.locator("#systems input[value=lead-3]").check()
    page.locator("#documents").press("Control+Enter")  # submits from the text area
    page.wait_for_url(f"{site.url}/manage/campaigns/*/")
    campaign = Campaign.objects.get(slug="spans")
    assert (campaign.kind, campaign.system_blind, campaign.scorers) == ("polytope", True, [])
    assert sorted(campaign.systems.values_list("slug", flat=True)) == ["demo-abs", "lead-3"]
    items = Task.objects.filter(campaign=campaign, annotator__username="annotator")
    assert sorted(items.values_list("document__external_id", "output__system__slug")) == [
        ("demo-001", "demo-abs"),
        ("demo-001", "lead-3"),
        ("demo-002", "demo-abs"),
        ("demo-002", "lead-3"),
    ]
    expect(page.locator("#notice")).to_have_text("Campaign created with 4 tasks.")
    expect(page.locator("#system-col")).to_be_visible()  # PolyTope tasks show their system
    expect(page.locator("#tasks-table tbody tr")).to_have_count(4)


# --- a running campaign -----------------------------------------------------------------------


@pytest.fixture
def running(site):
    """A FAM campaign on demo-001..003 with overlap 2: annotator has demo-001 (saved three
    times and submitted: 100 s, then a 900 s pause counted as 600 s) and demo-002 (saved once:
    in progress); bea has demo-003 (not started)."""
    from django.contrib.auth import get_user_model

    from annotation.campaigns.models import Task
    from annotation.campaigns.selectors import task_fam
    from annotation.campaigns.services import (
        campaign_launch,
        task_fam_save,
        task_submit,
        tasks_assign_manual,
    )
    from annotation.corpus.models import Dataset
    from annotation.fams.models import FamRevision

    campaign = campaign_launch(
        dataset=Dataset.objects.get(slug="demo"),
        slug="running",
        name="Running",
        documents=["demo-001", "demo-002", "demo-003"],
        annotators_per_document=2,
        scorers=[],
    ).campaign
    tasks_assign_manual(
        campaign=campaign,
        assignments=[("demo-001", "annotator"), ("demo-002", "annotator"), ("demo-003", "bea")],
    )
    tasks = {
        (t.document.external_id, t.annotator.username): t
        for t in Task.objects.filter(campaign=campaign).select_related("document", "annotator")
    }
    annotator = get_user_model().objects.get(username="annotator")

    def facets(task, first):
        n = task.document.references.get(position=0).facet_count
        rest = {"groups": [], "label": "noise", "note": ""}
        return [{"groups": first, "label": "supported", "note": ""}] + [rest] * (n - 1)

    done = tasks[("demo-001", "annotator")]
    for version, groups in enumerate([[[0]], [[0, 1]], [[1]]], start=1):
        task_fam_save(task=done, user=annotator, facets=facets(done, groups), base_version=version)
    done = task_submit(task=done)
    # The saves' times, set by hand: 30, 28:20 and 13:20 minutes before the submission.
    moment = done.submitted_at - timedelta(minutes=30)
    revisions = FamRevision.objects.filter(fam=task_fam(task=done), author=annotator)
    for revision, offset in zip(revisions.order_by("version"), (0, 100, 1000), strict=True):
        FamRevision.objects.filter(pk=revision.pk).update(
            created_at=moment + timedelta(seconds=offset)
        )
    draft = tasks[("demo-002", "annotator")]
    task_fam_save(task=draft, user=annotator, facets=facets(draft, [[2]]), base_version=1)
    campaign.refresh_from_db()
    return campaign, tasks


def test_progress_csv_add_annotator_reassign_and_close(context, site, running):
    from annotation.campaigns.models import Campaign, Task
    from annotation.campaigns.selectors import task_fam

    campaign, tasks = running
    done, draft, todo = (
        tasks[("demo-001", "annotator")],
        tasks[("demo-002", "annotator")],
        tasks[("demo-003", "bea")],
    )
    page = admin_page(context, site.url, f"/manage/campaigns/{campaign.pk}/")
    expect(page.locator("#title")).to_have_text("Running")
    expect(page.locator("#state-badge")).to_have_text("Annotating")
    expect(page.locator("#totals")).to_contain_text("1 done · 1 in progress · 1 not started, of 3")

    # Per annotator: annotator's one done task took 100 s + min(900 s, 600 s) = 700 s.
    cells = page.locator("#annotators-table tr[data-annotator=annotator] td")
    expect(cells).to_have_count(7)
    for index, text in enumerate(["1", "1", "0", "2", "11 min 40 s", "11 min 40 s"]):
        expect(cells.nth(index)).to_have_text(text)
    assert cells.nth(6).inner_text() not in ("", "—")  # the last activity: a time
    bea = page.locator("#annotators-table tr[data-annotator=bea]")
    expect(bea.locator("td")).to_have_text(["0", "0", "1", "1", "—", "—", "—"])
    expect(page.locator("#time-rule")).to_contain_text("at most 10 min")

    # Per task: the done one has its time and no Reassign; the others can be reassigned.
    done_row = page.locator(f"#tasks-table tr[data-task='{done.pk}']")
    expect(done_row).to_contain_text("Done")
    expect(done_row).to_contain_text("11 min 40 s")
    expect(done_row.get_by_role("button")).to_have_count(0)
    expect(page.locator(f"#tasks-table tr[data-task='{draft.pk}']")).to_contain_text("In progress")
    expect(page.locator(f"#tasks-table tr[data-task='{todo.pk}']")).to_contain_text("Not started")
    assert no_horizontal_scroll(page)
    shot(page, "admin-campaign-progress.png")

    # The CSV link downloads one row per task under a header.
    with page.expect_download() as download:
        page.get_by_role("link", name="Progress CSV").click()
    rows = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
    assert download.value.suggested_filename == "running-progress.csv"
    by_task = {int(r["task"]): r for r in rows}
    assert sorted(by_task) == sorted([done.pk, draft.pk, todo.pk])
    assert (by_task[done.pk]["document"], by_task[done.pk]["status"]) == ("demo-001", "submitted")
    assert by_task[done.pk]["seconds"] == "700.0" and by_task[todo.pk]["seconds"] == ""

    # Add cai: every document has one annotator of two, so cai gets all three.
    tab_to(page, "#add-annotators input[value=cai]")
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    expect(page.locator("#notice")).to_have_text("Added cai: 3 tasks created.")
    assert Task.objects.filter(campaign=campaign, annotator__username="cai").count() == 3
    expect(page.locator("#annotators-table tr[data-annotator=cai] td").nth(3)).to_have_text("3")

    # Reassign annotator's draft (demo-002) to bea, by keyboard: the draft goes with it.
    button = page.get_by_role("button", name=f"Reassign task {draft.pk} (annotator)")
    button.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#reassign")
    expect(dialog).to_be_visible()
    expect(page.locator("#reassign-to")).to_be_focused()
    page.keyboard.type("bea")
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(page.locator("#notice")).to_have_text(f"Task {draft.pk} moved from annotator to bea.")
    draft.refresh_from_db()
    assert draft.annotator.username == "bea"
    assert task_fam(task=draft).facets[0]["groups"] == [[2]]

    # Reassigning bea's demo-003 to cai is refused (cai has demo-003 now), next to the field.
    page.get_by_role("button", name=f"Reassign task {todo.pk} (bea)").click()
    expect(page.locator("#reassign-to option[value=cai]")).to_have_text(
        "cai (already has this item)"
    )
    page.locator("#reassign-to").select_option("cai")
    page.locator("#reassign-to").press("Enter")
    error = page.locator("#reassign [data-field=annotator] > .field-error")
    expect(error).to_have_text("cai already has document 'demo-003' in this campaign.")
    expect(page.locator("#reassign-to")).to_have_attribute("aria-invalid", "true")
    todo.refresh_from_db()
    assert todo.annotator.username == "bea"
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # Adjudicating, then done; each step confirmed, and done is final.
    page.get_by_role("button", name="Start adjudicating").click()
    expect(page.locator("#confirm-state")).to_be_visible()
    page.locator("#confirm-ok").click()
    expect(page.locator("#state-badge")).to_have_text("Adjudicating")
    # An unfinished task can still change hands while adjudicating; no one is added.
    expect(page.get_by_role("button", name=f"Reassign task {todo.pk} (bea)")).to_have_count(1)
    expect(page.locator("#add-btn")).to_be_disabled()
    page.get_by_role("button", name="Close the campaign").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#confirm-text")).to_contain_text("cannot be undone")
    page.locator("#confirm-ok").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#state-badge")).to_have_text("Done")
    expect(page.locator("#state-actions")).to_have_text("No further state.")
    expect(page.get_by_role("button", name=f"Reassign task {todo.pk} (bea)")).to_have_count(0)
    assert Campaign.objects.get(pk=campaign.pk).status == "closed"


def test_name_and_instructions_are_edited_and_reach_the_workspace(browser, context, site, running):
    campaign, tasks = running
    page = admin_page(context, site.url, f"/manage/campaigns/{campaign.pk}/")
    expect(page.locator("#edit-name")).to_have_value("Running")
    page.locator("#edit-name").fill("")
    page.locator("#edit-name").press("Enter")
    error = page.locator("#edit-form [data-field=name] > .field-error")
    expect(error).to_be_visible()
    expect(page.locator("#edit-name")).to_have_attribute("aria-invalid", "true")
    page.locator("#edit-name").fill("Running, renamed")
    page.locator("#edit-instructions").fill("Read the whole article first.\nThen mark.")
    page.locator("#edit-instructions").press("Control+Enter")
    expect(page.locator("#notice")).to_have_text("Name and instructions saved.")
    expect(page.locator("#title")).to_have_text("Running, renamed")
    campaign.refresh_from_db()
    assert campaign.instructions == "Read the whole article first.\nThen mark."

    # The annotator's FAM workspace (their own browser) shows them, opened the first time,
    # toggled with i.
    own = browser.new_context(viewport={"width": 1280, "height": 800})
    worker = own.new_page()
    login(worker, site.url, "annotator")
    worker.goto(f"{site.url}/tasks/{tasks[('demo-002', 'annotator')].pk}/")
    worker.wait_for_selector("#workspace[aria-busy=false] #sentences li")
    panel = worker.locator("#instructions")
    expect(panel).to_be_visible()
    expect(panel).to_have_js_property("open", True)
    expect(worker.locator("#instructions-text")).to_have_text(
        "Read the whole article first.\nThen mark."
    )
    worker.keyboard.press("i")
    expect(panel).to_have_js_property("open", False)
    worker.reload()
    worker.wait_for_selector("#workspace[aria-busy=false] #sentences li")
    expect(panel).to_have_js_property("open", False)  # seen: it stays as it was left
    worker.keyboard.press("i")
    expect(panel).to_have_js_property("open", True)
    worker.keyboard.press("?")
    expect(worker.locator("#help")).to_contain_text("the campaign's instructions")
    own.close()


def test_the_span_workspace_shows_the_instructions_too(context, site):
    from annotation.campaigns.models import Task
    from annotation.campaigns.services import campaign_launch
    from annotation.corpus.models import Dataset

    launch = campaign_launch(
        dataset=Dataset.objects.get(slug="demo"),
        slug="pt-instructions",
        name="PolyTope with instructions",
        kind="polytope",
        systems=["demo-abs"],
        documents=["demo-002"],
        instructions="Omissions are marked in the source.",
        annotators=["annotator"],
    )
    task = Task.objects.get(campaign=launch.campaign)
    page = context.new_page()
    login(page, site.url, "annotator")
    page.goto(f"{site.url}/tasks/{task.pk}/")
    page.wait_for_selector("#workspace[aria-busy=false]")
    panel = page.locator("#instructions")
    expect(page.locator("#instructions-text")).to_have_text("Omissions are marked in the source.")
    expect(panel).to_have_js_property("open", True)
    page.keyboard.press("i")
    expect(panel).to_have_js_property("open", False)
    shot(page, "span-workspace-instructions.png")
