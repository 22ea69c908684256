"""The issue's acceptance as a new admin would check it, through the pages, with a real Celery
worker doing every job (suggestions, agreement runs, scoring, the release build):

log in as admin; create a FAM campaign with overlap 2 on the demo for two annotators (the new
campaign page); annotate as each (the workspace, by keyboard); watch the progress; see the
agreement (its Jaccard equals the value worked by hand below); adjudicate the document to gold;
see the leaderboard rescore once it is marked adjudicated, not before (lead-3's FAR on it,
worked by hand); export a release and import
it again through the datasets page (format loupe-release).
"""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, eventually, login, login_through_form, wait_saved

pytestmark = pytest.mark.django_db(transaction=True)

JOB_MS = 90_000  # a job on the shared machine: queue, worker, database

# The two annotators' FAMs of demo-001 (3 facets; sentences numbered from 1 on the page):
#   alice: facet 1 {1}, facet 2 {2}, facet 3 {3}
#   bob:   facet 1 {1}, facet 2 {2, 3}, facet 3 "no support"
# Jaccard of the support sentences per facet: 1/1, 1/2, 0/1 -> mean 0.5 over 3 units.
JACCARD = "0.500"
# The demo's gold FAM of demo-001 is [1] | [4, 5] | [6] or [7]; lead-3's summary is sentences
# 1-3, so at k = 3 one facet of three is covered: FAR 1/3. The adjudicated gold takes alice's
# facets, [1] | [2] | [3], all inside sentences 1-3: FAR 3/3.
FAR_BEFORE, FAR_AFTER = "33.3", "100.0"


@pytest.fixture
def worker(worker_factory, settings):
    """A real worker on a queue of its own that writes releases where this process reads them;
    every task the app sends during the test goes to it."""
    from config.celery import app

    queue = f"loupe-test-walk-{uuid.uuid4().hex[:8]}"
    worker_factory(queue, env={"LOUPE_RELEASES_DIR": str(settings.LOUPE_RELEASES_DIR)})
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    yield queue
    app.conf.task_default_queue = previous


@pytest.fixture
def site(live_server, worker):
    """The demo (scored by the worker) and two annotators, alice and bob."""
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ANNOTATOR, ROLES
    from annotation.accounts.services import user_create
    from annotation.corpus.demo import demo_load

    for role in ROLES:  # made by a data migration, gone after an earlier test's flush
        Group.objects.get_or_create(name=role)
    demo_load()
    for name in ("alice", "bob"):
        user_create(username=name, password=f"pw-{name}", role=ANNOTATOR)
    return live_server


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def _until(page, ready: str, check, message: str) -> None:
    """Reload the page until ``check()`` holds once it has drawn (``ready``: its selector)."""

    def fresh() -> bool:
        page.wait_for_timeout(700)  # the worker's turn
        page.reload()
        page.wait_for_selector(ready)
        return check()

    eventually(fresh, timeout=JOB_MS / 1000, message=message)


def _far_is(page, url: str, value: str, message: str) -> None:
    """lead-3's FAR x100 on demo-001 at k = 3 becomes ``value`` (the page reloaded until then)."""
    page.goto(f"{url}/leaderboards/demo/systems/lead-3/documents/demo-001/?k=3")
    far = page.locator("#scores td[data-metric='far'] .mean")
    ready = "#output-document[aria-busy=false]"
    _until(page, ready, lambda: far.count() == 1 and far.inner_text() == value, message)


def _annotate(browser, url: str, name: str, keys: list[str]) -> None:
    """Log in as ``name``, continue with the next task, type ``keys`` and submit."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        login(page, url, name, f"pw-{name}")
        page.goto(f"{url}/tasks/")
        page.click("#continue")
        page.wait_for_selector("#workspace[aria-busy=false] #sentences li")
        expect(page.locator("#doc-title")).to_have_text("Document demo-001")
        for key in keys:
            page.keyboard.press(key)
        wait_saved(page)
        page.keyboard.press("Control+Enter")
        expect(page.locator("#banner")).to_contain_text("Submitted")
    finally:
        context.close()


def test_the_admin_walkthrough(browser, context, site, tmp_path):
    from annotation.campaigns.models import Campaign, Task
    from annotation.corpus.models import Dataset
    from annotation.fams.models import Fam
    from scoring.scores.models import ScoringJob

    url = site.url
    page = context.new_page()
    login_through_form(page, url, "admin", "loupe-admin")
    # The demo's own scoring job ran on the worker: lead-3's FAR on demo-001 against the demo gold.
    _far_is(page, url, FAR_BEFORE, "the demo was not scored")

    # 1. A FAM campaign on demo-001, overlap 2, alice and bob, from the new campaign page.
    page.goto(f"{url}/manage/campaigns/new/")
    expect(page.locator("#dataset option[value=demo]")).to_have_count(1)
    page.select_option("#dataset", "demo")
    page.fill("#name", "Walkthrough")
    page.check("input[name=doc-mode][value=ids]")
    page.fill("#documents", "demo-001")
    page.check("#annotators input[value=alice]")
    page.check("#annotators input[value=bob]")
    page.fill("#overlap", "2")
    page.click("#create")
    page.wait_for_url(re.compile(r"/manage/campaigns/\d+/$"))
    campaign = Campaign.objects.get(slug="walkthrough")
    expect(page.locator("#notice")).to_have_text("Campaign created with 2 tasks.")
    assert sorted(
        Task.objects.filter(campaign=campaign).values_list("annotator__username", flat=True)
    ) == ["alice", "bob"]

    # 2. Each annotates demo-001 in the workspace, by keyboard, and submits.
    _annotate(browser, url, "alice", ["Space", "2", "j", "Space", "3", "j", "Space"])
    _annotate(browser, url, "bob", ["Space", "2", "j", "Space", "j", "Space", "3", "u"])

    # 3. The progress: both tasks done.
    page.reload()
    expect(page.locator("#totals")).to_contain_text("2 done · 0 in progress · 0 not started")

    # 4. The agreement, computed by the worker after the submissions.
    page.click("#agreement-link")
    page.wait_for_url(f"{url}/manage/campaigns/{campaign.pk}/agreement/")
    status = page.locator("#status")
    fresh = lambda: status.get_attribute("data-state") == "fresh"  # noqa: E731
    _until(page, "#agreement-page[aria-busy=false]", fresh, "the agreement was not computed")
    jaccard = page.locator("#overall tr[data-measure='jaccard_union']")
    expect(jaccard.locator(".mean")).to_have_text(JACCARD)
    expect(jaccard.locator("td").nth(1)).to_have_text("3")
    _shot(page, "walkthrough-agreement.png")

    # 5. Adjudicate demo-001 from the lowest-agreement list: alice's facets (1 on each; the
    # first facet both gave alike is recorded as agreed), then done.
    page.locator("#lowest li a").first.click()
    page.wait_for_selector("#adjudication[aria-busy=false] #facets li.adj-facet")
    for key in ["1", "j", "1", "j", "1"]:
        page.keyboard.press(key)
    wait_saved(page)
    # The gold is saved but not adjudicated yet: it does not count for scoring, so no rescoring.
    assert Fam.objects.filter(annotation_set__slug="walkthrough-gold").exists()
    assert not ScoringJob.objects.filter(trigger="fams").exists()
    page.keyboard.press("d")
    expect(page.locator("#adj-status")).to_have_text("Adjudicated")
    assert ScoringJob.objects.filter(trigger="fams").count() == 1  # queued by "done"
    gold = Fam.objects.get(
        annotation_set__slug="walkthrough-gold", document__external_id="demo-001"
    )
    assert [facet["groups"] for facet in gold.facets] == [[[0]], [[1]], [[2]]]
    assert [facet["provenance"]["method"] for facet in gold.facets] == ["agreed", "take", "take"]

    # 6. Marking it done rescored the dataset on the worker: lead-3's FAR follows the new gold.
    _far_is(page, url, FAR_AFTER, "the leaderboard was not rescored after the document was done")

    # 7. A release, built by the worker, downloaded, then imported again as a new dataset.
    page.goto(f"{url}/manage/datasets/demo/releases/")
    page.click("#export")
    release = page.locator("#releases li[data-version='1']")
    expect(release).to_have_attribute("data-status", "succeeded", timeout=JOB_MS)
    href = release.locator("a.download").get_attribute("href")
    archive = tmp_path / "demo-v1.zip"
    archive.write_bytes(page.request.get(f"{url}{href}").body())
    page.goto(f"{url}/manage/datasets/")
    page.select_option("#format", "loupe-release")
    page.set_input_files("#file", str(archive))
    page.fill("#slug", "demo-again")
    page.fill("#name", "Demo, released and imported")
    page.click("#import")
    expect(page.locator("#result")).to_have_attribute("data-state", "done", timeout=JOB_MS)
    expect(page.locator("#result-title")).to_have_text("Imported demo-again: 6 documents.")
    copy = Dataset.objects.get(slug="demo-again")
    assert copy.documents.count() == 6
    again = Fam.objects.get(
        annotation_set__dataset=copy,
        annotation_set__slug="walkthrough-gold",
        document__external_id="demo-001",
    )
    assert [facet["groups"] for facet in again.facets] == [[[0]], [[1]], [[2]]]
    _shot(page, "walkthrough-reimport.png")
