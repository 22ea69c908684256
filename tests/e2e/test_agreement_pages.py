"""The agreement pages end to end.

A FAM campaign's page: two annotators' submitted FAMs, the run computed by calling its Celery
task (as a worker would) while the page polls, the overall Jaccard equal to the value worked by
hand below, its interval, the pair, the per-document table and the lowest documents linked to
their adjudication; a reopened task makes the figures stale, Recompute asks for a new run and
the page shows the recomputed, hand-worked value. The XSum release's dataset page (shared data)
shows span agreement among its three workers per system and overall, with intervals.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import SHARED_DATA
from tests.e2e.helpers import ARTIFACTS, login

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = ("demo-001", "demo-003")
# Support sentences (0-based) per facet. demo-001: {0,2} vs {0,1,2} (J = 2/3), {3} vs {3} (1),
# none (no support) vs {5} (0). demo-003: {0,1} vs {0} (1/2); facet 2 neither supports (no
# support from both): left out. jaccard_union = mean of the units = (2/3 + 1 + 0 + 1/2) / 4
# = 13/24 = 0.5417, over 4 units with 1 left out. Per document: demo-001 5/9, demo-003 1/2.
FAMS = {
    ("demo-001", "alice"): [
        {"groups": [[0, 2]], "label": "supported"},
        {"groups": [[3]], "label": "supported"},
        {"groups": [], "label": "no_support"},
    ],
    ("demo-001", "bob"): [
        {"groups": [[0, 2], [1]], "label": "supported"},
        {"groups": [[3]], "label": "supported"},
        {"groups": [[5]], "label": "supported"},
    ],
    ("demo-003", "alice"): [
        {"groups": [[0, 1]], "label": "supported"},
        {"groups": [], "label": "no_support"},
    ],
    ("demo-003", "bob"): [
        {"groups": [[0]], "label": "supported"},
        {"groups": [], "label": "no_support"},
    ],
}
CI = re.compile(r"^95% CI -?\d\.\d{3}–-?\d\.\d{3}$")


@pytest.fixture
def runs(monkeypatch):
    """The FAM agreement runs the app queues (through the job kernel), held instead of sent to
    a broker: the test computes them in this process through the kernel, as a worker would."""
    from tests.job_helpers import hold_job_sends

    return hold_job_sends(monkeypatch, "fam_agreement")


def _compute(ids: list[int]) -> None:
    from tests.agreement_helpers import fam_run_compute

    assert ids, "no run was queued"
    for pk in dict.fromkeys(ids):
        fam_run_compute(pk)
    ids.clear()


@pytest.fixture
def campaign(make_world, runs):
    from annotation.campaigns.services import task_fam_save, task_submit

    world = make_world(slug="agree", documents=DOCS, annotators=("alice", "bob"))
    for (doc, name), facets in FAMS.items():
        task = world.task(doc, name)
        task_fam_save(task=task, user=task.annotator, facets=facets, base_version=1)
        task_submit(task=task)
    world.page_url = f"{world.url}/manage/campaigns/{world.campaign.pk}/agreement/"
    return world


def _fits(page) -> None:
    """Nothing sticks out sideways at 1280 pixels (wide tables scroll in their own box)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def _overall(page, measure: str):
    return page.locator(f"#overall tr[data-measure='{measure}']")


def test_the_campaign_agreement_page(context, campaign, runs):
    world = campaign
    page = context.new_page()
    login(page, world.url, "admin", "loupe-admin")
    page.goto(world.page_url)
    # The submissions queued a run; until a worker computes it the page says so.
    expect(page.locator("#status")).to_have_attribute("data-state", "busy")
    expect(page.locator("#status-text")).to_have_text("Waiting for a worker to compute it…")
    expect(page.locator("#recompute")).to_be_disabled()
    _compute(runs)
    expect(page.locator("#status")).to_have_attribute("data-state", "fresh", timeout=15_000)
    expect(page.locator("#title")).to_have_text("Agreement · Campaign agree")

    jaccard = _overall(page, "jaccard_union")
    expect(jaccard.locator(".mean")).to_have_text("0.542")  # 13/24, worked above
    expect(jaccard.locator(".ci")).to_have_text(CI)
    expect(jaccard.locator("td").nth(1)).to_have_text("4")  # units: facet x pair
    expect(jaccard.locator("td").nth(2)).to_contain_text("1 left out")
    expect(page.locator("#overall tbody tr")).to_have_count(8)  # the eight FAM measures
    # Categories (a no-support facet makes a document high): alice high, high; bob low, high.
    # Cohen's kappa: p_o = 1/2, p_e = 1 x 1/2 + 0 x 1/2 = 1/2, so (1/2 - 1/2) / (1 - 1/2) = 0.
    expect(_overall(page, "category_kappa").locator(".mean")).to_have_text("0.000")

    pair = page.locator("#pairs tr[data-pair='alice|bob']")
    expect(pair.locator("td[data-measure='jaccard_union'] .mean")).to_have_text("0.542")

    # Per document, lowest first: demo-003 (1/2) before demo-001 (5/9).
    rows = page.locator("#documents tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("th")).to_have_text("demo-003")
    expect(rows.nth(0).locator("td[data-measure='jaccard_union'] .mean")).to_have_text("0.500")
    expect(rows.nth(1).locator("td[data-measure='jaccard_union'] .mean")).to_have_text("0.556")

    # The lowest documents link to their adjudication page.
    lowest = page.locator("#lowest li").first
    expect(lowest).to_contain_text("demo-003")
    document = world.task("demo-003", "alice").document
    adjudication = f"/manage/campaigns/{world.campaign.pk}/adjudication/{document.pk}/"
    expect(lowest.locator("a")).to_have_attribute("href", adjudication)
    # The split by suggestions: this campaign showed none, so every document is "not shown".
    expect(page.locator("#suggestions-table tr[data-group='not_shown'] td").first).to_have_text("2")
    # The empty group says why it is empty, not that every facet was skipped (issue 27).
    empty = page.locator("#suggestions-table tr[data-group='shown']")
    expect(empty.locator("td").first).to_have_text("0")
    expect(empty.locator(".why")).to_have_text(
        "No document: no compared document on which every annotator saw suggestions."
    )
    expect(empty).not_to_contain_text("no facet has support")
    _fits(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "campaign-agreement.png"), full_page=True)
    lowest.locator("a").click()
    page.wait_for_url(f"{world.url}{adjudication}")
    expect(page.locator("#doc-title")).to_have_text("Document demo-003")

    # Bob reopens demo-003: only submitted FAMs count, so the figures are stale.
    from annotation.campaigns.services import task_reopen

    task_reopen(task=world.task("demo-003", "bob"))
    assert runs == []  # reopening queues nothing
    page.goto(world.page_url)
    expect(page.locator("#status")).to_have_attribute("data-state", "stale")
    expect(page.locator("#status-text")).to_contain_text("Stale: the annotations changed")
    expect(page.locator("#recompute")).to_be_enabled()
    page.click("#recompute")
    expect(page.locator("#status-text")).to_contain_text("A new run waits for a worker")
    _compute(runs)
    expect(page.locator("#status")).to_have_attribute("data-state", "fresh", timeout=15_000)
    # Now demo-001 alone: (2/3 + 1 + 0) / 3 = 5/9.
    expect(_overall(page, "jaccard_union").locator(".mean")).to_have_text("0.556")
    expect(page.locator("#documents tbody tr")).to_have_count(1)


def test_a_submission_in_the_workspace_leaves_the_agreement_fresh(
    context, browser, make_world, runs
):
    """The workspace sends every suggestion event before it submits (waiting for a batch
    already on its way) and none after, so the run the submission queues, computed at once as
    a worker would, is not stale a moment later: the agreement page says it is current."""
    from annotation.campaigns.models import SuggestionEvent
    from annotation.campaigns.services import task_fam_save, task_submit
    from tests.e2e.helpers import eventually, wait_saved, workspace_page

    world = make_world(
        slug="fresh", documents=("demo-001",), annotators=("alice", "bob"), scorers=("tfidf",)
    )
    world.compute_suggestions()
    bob = world.task("demo-001", "bob")
    task_fam_save(task=bob, user=bob.annotator, facets=FAMS[("demo-001", "bob")], base_version=1)
    task_submit(task=bob)  # queues the run that will also cover alice's submission
    alice = world.task("demo-001", "alice")
    page = workspace_page(context, world, alice, "alice")
    sent: list[str] = []

    def record(request):
        if request.method == "POST" and re.search(r"/(suggestion-events|submit)/$", request.url):
            sent.append(request.url.rsplit("/", 2)[-2])

    page.on("request", record)
    expect(page.locator("#facets li[data-index='0'] .chip")).to_have_count(3)
    held: list = []
    holding = [True]
    page.route(
        "**/suggestion-events/",
        lambda route: held.append(route) if holding[0] else route.continue_(),
    )
    page.keyboard.press("a")  # facet 1: the top suggestion (shown and accepted, sent in 1 s)
    eventually(lambda: page.wait_for_timeout(50) or bool(held), message="no events were sent")
    for key in ("2", "o", "3", "u"):  # facet 2 noise, facet 3 no support
        page.keyboard.press(key)
    wait_saved(page)
    page.click("#submit-btn")
    # The events' batch is still on its way: the submission waits for it.
    page.wait_for_timeout(700)
    assert "submit" not in sent, sent
    holding[0] = False
    for route in held:
        route.continue_()
    expect(page.locator("#banner")).to_contain_text("Submitted")
    assert sent[-1] == "submit" and sent.count("submit") == 1, sent
    _compute(runs)  # a worker computes the submission's run at once
    page.wait_for_timeout(2_000)  # longer than the suggestion log's 1 s batching
    assert sent[-1] == "submit", f"events were sent after the submission: {sent}"
    events = SuggestionEvent.objects.filter(task=alice)
    shown = events.filter(action="shown").count()
    assert shown >= 3 and events.filter(action="accepted").count() == 1
    assert events.filter(action="ignored").count() == shown - 1

    researcher = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        admin = researcher.new_page()
        login(admin, world.url, "admin", "loupe-admin")
        admin.goto(f"{world.url}/manage/campaigns/{world.campaign.pk}/agreement/")
        expect(admin.locator("#status")).to_have_attribute("data-state", "fresh", timeout=15_000)
        expect(admin.locator("#status-text")).not_to_contain_text("Stale")
    finally:
        researcher.close()


def test_an_annotator_who_is_no_adjudicator_is_told_why(context, campaign):
    world = campaign
    page = context.new_page()
    login(page, world.url, "alice", "pw-alice")
    page.goto(world.page_url)
    expect(page.locator("#error")).to_contain_text("You may not see this campaign's agreement")
    expect(page.locator("#result")).to_be_hidden()


XSUM = SHARED_DATA / "xsum-hallucinations"
WORKERS = ["xsum-wid_0", "xsum-wid_1", "xsum-wid_2"]


@pytest.mark.shared
@pytest.mark.skipif(not XSUM.is_dir(), reason=f"{XSUM} is absent (shared data)")
def test_the_xsum_release_shows_its_three_workers_per_system_with_intervals(context, demo):
    from django.core.management import call_command

    from annotation.agreement.services import span_agreement_run_create
    from annotation.fams.models import AnnotationSet
    from annotation.systems.models import SystemOutput
    from tests.agreement_helpers import span_run_compute

    call_command(
        "import_dataset", str(XSUM), "--format", "xsum-hallucinations", "--slug", "xsum-faith"
    )
    sets = AnnotationSet.objects.filter(dataset__slug="xsum-faith", slug__in=WORKERS)
    run = span_agreement_run_create(annotation_sets=[s.pk for s in sets], queue=False)
    assert span_run_compute(run.pk) == "succeeded"
    systems = sorted(
        set(
            SystemOutput.objects.filter(document__dataset__slug="xsum-faith").values_list(
                "system__slug", flat=True
            )
        )
    )
    assert len(systems) == 4  # BERTS2S, PtGen, TConvS2S, TranS2S

    page = context.new_page()
    login(page, demo.url, "researcher")
    page.goto(f"{demo.url}/manage/datasets/xsum-faith/agreement/")
    # Researchers read the runs over annotation sets (the release's published workers), but
    # only admins start one: no compute form for them.
    expect(page.locator("#status")).to_have_attribute("data-state", "fresh")
    expect(page.locator("#run-select")).to_have_value(str(run.pk))
    expect(page.locator("#compute-form")).to_be_hidden()
    admin = context.browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = admin.new_page()
        login(page, demo.url, "admin", "loupe-admin")
        page.goto(f"{demo.url}/manage/datasets/xsum-faith/agreement/")
        expect(page.locator("#status")).to_have_attribute("data-state", "fresh")
        expect(page.locator("#run-select")).to_have_value(str(run.pk))
        # Per system: one row per system of the release, each figure with its interval.
        rows = page.locator("#systems tbody tr")
        expect(rows).to_have_count(len(systems))
        assert [rows.nth(i).get_attribute("data-system") for i in range(len(systems))] == systems
        for i in range(len(systems)):
            for measure in ("span_f1_partial", "span_f1_exact"):
                cell = rows.nth(i).locator(f"td[data-measure='{measure}']")
                _within_interval(cell)
        # Overall, with intervals (kappa and alpha may be negative), and the three pairs.
        for measure in ("span_f1_partial", "span_f1_exact"):
            _within_interval(page.locator(f"#overall tr[data-measure='{measure}'] td").first)
        for measure in ("kappa_type", "alpha_type"):
            cell = page.locator(f"#overall tr[data-measure='{measure}'] td").first
            expect(cell.locator(".ci")).to_have_text(CI)
        expect(page.locator("#pairs tbody tr")).to_have_count(3)
        expect(page.locator("#lowest li")).to_have_count(10)
        _fits(page)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "dataset-agreement.png"), full_page=True)
    finally:
        admin.close()


def _within_interval(cell) -> None:
    """The cell shows a value in [0, 1] and a 95% interval around it."""
    expect(cell.locator(".ci")).to_have_text(CI)
    value = float(cell.locator(".mean").inner_text())
    low, high = (float(x) for x in re.findall(r"\d\.\d{3}", cell.locator(".ci").inner_text()))
    assert 0 <= low <= value <= high <= 1, (low, value, high)


def test_the_compute_form_offers_span_sets_only(context, demo):
    """The demo holds a FAM set (its gold); with two span sets beside it, only the span sets are
    offered for a span agreement run (the server refuses FAM sets)."""
    from annotation.fams.models import AnnotationSet, AnnotationSetKind

    for worker in ("worker-a", "worker-b"):
        span_set = AnnotationSet(
            dataset=demo.dataset,
            slug=worker,
            name=f"PolyTope {worker}",
            kind=AnnotationSetKind.RELEASED,
            scheme="polytope",
        )
        span_set.full_clean()
        span_set.save()
    sets = AnnotationSet.objects.filter(dataset=demo.dataset)
    spans = sorted(str(pk) for pk in sets.exclude(scheme="fam").values_list("pk", flat=True))
    fams = sorted(str(pk) for pk in sets.filter(scheme="fam").values_list("pk", flat=True))
    assert spans and fams, "the demo should have both kinds of set"
    page = context.new_page()
    login(page, demo.url, "admin", "loupe-admin")
    page.goto(f"{demo.url}/manage/datasets/demo/agreement/")
    expect(page.locator("#compute-form")).to_be_visible()
    boxes = page.locator("#sets input[type=checkbox]")
    expect(boxes).to_have_count(len(spans))
    assert sorted(boxes.nth(i).get_attribute("value") for i in range(len(spans))) == spans
