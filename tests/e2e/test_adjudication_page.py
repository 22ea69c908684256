"""The adjudication page end to end, by keyboard only: two annotators' FAMs side by side with
their differences marked, a gold FAM built with take (1, 2), the union (u), the intersection
(i) and an edit by hand (e, the workspace's sentence keys), each facet's provenance, the
document marked adjudicated (d) and the next document (n); a stale save in a second tab gets
the conflict dialog instead of overwriting the first tab's gold; an annotator who adjudicates a
system-blind campaign sees no system and saves items by their opaque ids."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, api_get, login, wait_saved

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = ("demo-001", "demo-003")
# demo-001 has 11 sentences and 3 facets. Facet 1: bob adds a group alice lacks; facet 2: both
# give [3]; facet 3: alice says no support, bob gives [5] (0-based sentence indices).
FAMS = {
    "alice": [
        {"groups": [[0, 2]], "label": "supported"},
        {"groups": [[3]], "label": "supported"},
        {"groups": [], "label": "no_support"},
    ],
    "bob": [
        {"groups": [[0, 2], [1]], "label": "supported"},
        {"groups": [[3]], "label": "supported"},
        {"groups": [[5]], "label": "supported"},
    ],
}
DIFFERS = re.compile(r"\bdiffers\b")
AGREES = re.compile(r"\bagrees\b")


@pytest.fixture
def adjudication(make_world):
    """A campaign on demo-001 and demo-003 where alice and bob submitted demo-001's FAMs."""
    from annotation.campaigns.services import task_fam_save, task_submit

    world = make_world(slug="adj", documents=DOCS, annotators=("alice", "bob"))
    for name, facets in FAMS.items():
        task = world.task("demo-001", name)
        task_fam_save(task=task, user=task.annotator, facets=facets, base_version=1)
        task_submit(task=task)
    document = world.task("demo-001", "alice").document
    world.url_of = lambda doc: (
        f"{world.url}/manage/campaigns/{world.campaign.pk}/adjudication/{doc.pk}/"
    )
    world.document = document
    world.api = f"/api/campaigns/{world.campaign.pk}/adjudication/{document.pk}/"
    return world


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#adjudication[aria-busy=false] #facets li.adj-facet")


def _facet(page, f: int):
    return page.locator(f"#facets li.adj-facet[data-index='{f}']")


def _gold(page, f: int):
    return _facet(page, f).locator(".adj-gold")


def _press(page, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def test_a_gold_fam_built_by_keyboard_only(context, adjudication):
    world = adjudication
    page = context.new_page()
    login(page, world.url, "admin", "loupe-admin")
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    _open(page, world.url_of(world.document))
    expect(page.locator("#doc-title")).to_have_text("Document demo-001")
    expect(page.locator("#campaign-line")).to_contain_text("annotators: 1 alice, 2 bob")
    # Its place and neighbours come with the document: the campaign's list is not loaded.
    expect(page.locator("#campaign-line")).to_contain_text("document 1 of 2")
    expect(page.locator("#prev-btn")).to_be_disabled()
    listing = f"/api/campaigns/{world.campaign.pk}/adjudication/"
    assert not [url for url in requested if url.endswith(listing)]
    expect(page.locator("#gold-rule")).to_have_text(
        "The gold counts for the leaderboards only once the document is marked adjudicated (d)."
    )
    expect(page.locator("#gold-version")).to_have_text("No gold yet")

    # The differences: facets 1 and 3 differ, 2 agrees; a tag says so, not only the colour.
    expect(_facet(page, 0)).to_have_class(DIFFERS)
    expect(_facet(page, 0).locator(".diff-tag")).to_have_text("≠ Differs")
    expect(_facet(page, 1)).to_have_class(AGREES)
    expect(_facet(page, 1).locator(".diff-tag")).to_have_text("✓ Agree")
    expect(_facet(page, 2)).to_have_class(DIFFERS)
    expect(page.locator("#differ-text")).to_have_text("2 facets differ")
    # Bob's group [2] is his alone: dashed and tagged; [1, 3] both chose.
    bob = _facet(page, 0).locator(".adj-row").nth(1)
    expect(bob.locator(".chip.partial")).to_have_text("[2]only 1 of 2")
    expect(bob.locator(".chip.shared")).to_have_text("[1, 3]")
    # In the document, sentence 2 (index 1) is chosen by one of two annotators, 1 and 3 by all.
    expect(page.locator("#sentences li[data-index='1'] .dispute-tag")).to_have_text("1 of 2")
    expect(page.locator("#sentences li[data-index='0'] .agree-tag")).to_have_text("all")

    # Facet 1: take bob's facet (2).
    _press(page, "2")
    expect(_gold(page, 0).locator(".chips")).to_have_text("[1, 3][2]")
    expect(_gold(page, 0).locator(".prov")).to_have_text("taken from bob")
    # Facet 2 (j): both agree; taking alice's (1) records that they agreed.
    _press(page, "j", "1")
    expect(_gold(page, 1).locator(".prov")).to_have_text("agreed by alice, bob")
    # Facet 3 (j): the union (u) gives bob's [6]; the intersection (i) is empty: not decided.
    _press(page, "j", "u")
    expect(_gold(page, 2).locator(".chips")).to_have_text("[6]")
    expect(_gold(page, 2).locator(".prov")).to_have_text("union of alice, bob")
    _press(page, "i")
    expect(_gold(page, 2)).to_have_class(re.compile(r"\bundecided\b"))
    expect(page.locator("#decided-text")).to_have_text("Decided 2/3")
    # Marking the document done now is refused, and the page says which facet is open.
    _press(page, "d")
    expect(page.locator("#flash")).to_contain_text("Gold facet 3 is not decided")
    expect(page.locator("#adj-status")).to_have_text("Pending")

    # Edit facet 3 by hand (e): the workspace's keys. Sentence 5 into the group, a new group
    # (g) with sentence 6, then Esc.
    _press(page, "e")
    expect(page.locator("#edit-btn")).to_have_attribute("aria-pressed", "true")
    _press(page, "j", "j", "j", "j", "Space", "g", "j", "Space", "Escape")
    expect(_gold(page, 2).locator(".chips")).to_have_text("[5][6]")
    expect(_gold(page, 2).locator(".prov")).to_have_text("edited by hand (from alice, bob)")
    expect(page.locator("#edit-btn")).to_have_attribute("aria-pressed", "false")

    # Back to facet 1 (k, k): its intersection with alice is [1, 3].
    _press(page, "k", "k", "i")
    expect(_gold(page, 0).locator(".chips")).to_have_text("[1, 3]")
    expect(_gold(page, 0).locator(".prov")).to_have_text("intersection of alice, bob")
    wait_saved(page)

    # The server holds the gold with each facet's provenance.
    gold = api_get(page, world, world.api)["gold"]
    assert [(f["groups"], f["label"], f["provenance"]) for f in gold["facets"]] == [
        ([[0, 2]], "supported", {"method": "intersection", "annotators": ["alice", "bob"]}),
        ([[3]], "supported", {"method": "agreed", "annotators": ["alice", "bob"]}),
        ([[4], [5]], "supported", {"method": "edited", "annotators": ["alice", "bob"]}),
    ]
    expect(page.locator("#gold-version")).to_have_text(f"Gold version {gold['version']}")

    # d marks the document adjudicated; the gold is then read-only.
    _press(page, "d")
    expect(page.locator("#adj-status")).to_have_text("Adjudicated")
    expect(page.locator("#banner")).to_contain_text("reopen it to change the gold")
    assert api_get(page, world, world.api)["status"] == "done"
    _press(page, "1")
    expect(page.locator("#flash")).to_contain_text("reopen it to change the gold")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "adjudication.png"))

    # ? opens the keys, Esc closes them; n opens the campaign's next document.
    _press(page, "?")
    expect(page.locator("#help")).to_be_visible()
    _press(page, "Escape")
    expect(page.locator("#help")).to_be_hidden()
    following = world.task("demo-003", "alice").document
    _press(page, "n")
    page.wait_for_url(world.url_of(following))
    page.wait_for_selector("#adjudication[aria-busy=false]")
    expect(page.locator("#doc-title")).to_have_text("Document demo-003")
    # The address names the document: a reload stays on it (issue 27).
    page.reload()
    page.wait_for_selector("#adjudication[aria-busy=false]")
    expect(page.locator("#doc-title")).to_have_text("Document demo-003")
    _press(page, "p")
    page.wait_for_url(world.url_of(world.document))
    page.wait_for_selector("#adjudication[aria-busy=false]")
    page.reload()
    page.wait_for_selector("#adjudication[aria-busy=false]")
    expect(page.locator("#doc-title")).to_have_text("Document demo-001")

    # The list shows it adjudicated with its gold version.
    page.goto(f"{world.url}/manage/campaigns/{world.campaign.pk}/adjudication/")
    row = page.locator(f"#documents tr[data-document='{world.document.pk}']")
    expect(row).to_contain_text("Adjudicated")
    expect(row).to_contain_text(f"v{gold['version']}")
    expect(page.locator("#summary")).to_have_text("1 of 2 documents adjudicated")


def test_a_stale_save_in_another_tab_asks_instead_of_overwriting(context, adjudication):
    world = adjudication
    first = context.new_page()
    login(first, world.url, "admin", "loupe-admin")
    second = context.new_page()  # same session: another tab
    _open(first, world.url_of(world.document))
    _open(second, world.url_of(world.document))

    # The first tab takes alice's facet 1 and saves version 1.
    first.bring_to_front()
    _press(first, "1")
    wait_saved(first)
    assert api_get(first, world, world.api)["gold"]["version"] == 1

    # The second tab, still on version 0, takes bob's: the server refuses with 409 and the
    # page shows both golds instead of overwriting.
    second.bring_to_front()
    _press(second, "2")
    dialog = second.locator("#conflict")
    expect(dialog).to_be_visible()
    expect(second.locator("#save-state")).to_have_text("Conflict")
    expect(second.locator("#conflict-server-head")).to_have_text("Server (version 1)")
    row = second.locator("#conflict-rows tr").first
    expect(row).to_contain_text("[1, 3] or [2]")  # this tab's (bob's)
    expect(row).to_contain_text("[1, 3]")
    gold = api_get(second, world, world.api)["gold"]
    assert gold["version"] == 1 and gold["facets"][0]["provenance"]["annotators"] == ["alice"]

    # Keyboard: the focus is on "Save my choice"; Tab reaches "Keep all mine".
    expect(second.locator("#apply-merge")).to_be_focused()
    _press(second, "Tab")
    expect(second.locator("#keep-mine")).to_be_focused()
    _press(second, "Enter")
    expect(dialog).to_be_hidden()
    wait_saved(second)
    gold = api_get(second, world, world.api)["gold"]
    assert gold["version"] == 2
    assert gold["facets"][0]["groups"] == [[0, 2], [1]]
    assert gold["facets"][0]["provenance"] == {"method": "take", "annotators": ["bob"]}


SUMMARY_002 = (
    "Researchers at the University of Varrow found that the silver-backed beetle gathers water "
    "from fog on its ridged back. In tests, a single beetle collected half of its body weight "
    "in water in one hour. Engineers hope to copy the pattern for fog nets."
)


def _error(words: str) -> dict:
    """A PolyTope error over the first ``words`` of demo-abs's demo-002 summary."""
    start = SUMMARY_002.index(words)
    return {
        "side": "summary",
        "start": start,
        "end": start + len(words),
        "words": words,
        "type": "Inaccuracy Intrinsic",
        "label": "Number & Time",
        "reason": "",
    }


@pytest.fixture
def span_adjudication(demo):
    """A PolyTope campaign on demo-abs's demo-002 summary: alice marked "half", bob "half"
    and "one hour"; both submitted."""
    from annotation.accounts.roles import ANNOTATOR
    from annotation.accounts.services import user_create
    from annotation.campaigns.services import (
        polytope_campaign_create,
        task_spans_save,
        task_submit,
        tasks_assign_manual,
    )

    for name in ("alice", "bob"):
        user_create(username=name, password=f"pw-{name}", role=ANNOTATOR)
    campaign = polytope_campaign_create(
        dataset=demo.dataset, slug="adj-pt", name="PolyTope adjudication", systems=["demo-abs"],
        documents=["demo-002"], annotators_per_document=2,
    )  # fmt: skip
    tasks = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-002", "alice"), ("demo-002", "bob")]
    )
    marks = {"alice": [_error("half")], "bob": [_error("half"), _error("one hour")]}
    for task in tasks:
        errors = marks[task.annotator.username]
        task_spans_save(
            task=task, user=task.annotator, errors=errors, no_errors=False, base_version=1
        )
        task_submit(task=task)
    document = tasks[0].document
    return {
        "url": f"{demo.url}/manage/campaigns/{campaign.pk}/adjudication/{document.pk}/",
        "api": f"/api/campaigns/{campaign.pk}/adjudication/{document.pk}/",
        "base": demo.url,
    }


def api_get_url(page, world) -> dict:
    """The document's adjudication as the server holds it (with the page's session)."""
    response = page.request.get(f"{world['base']}{world['api']}")
    assert response.ok, response.text()
    return response.json()


def test_a_polytope_summary_adjudicated_by_keyboard(context, span_adjudication):
    world = span_adjudication
    page = context.new_page()
    login(page, world["base"], "admin", "loupe-admin")
    page.goto(world["url"])
    page.wait_for_selector("#adjudication[aria-busy=false] #items li.adj-item")
    item = page.locator("#items li.adj-item").first
    expect(item).to_have_class(DIFFERS)
    expect(item.locator(".facet-head")).to_contain_text("System DemoAbs")  # an admin sees it
    # "one hour" is bob's alone: tagged, beside the colour.
    expect(item.locator(".adj-err.partial")).to_contain_text('"one hour"')
    expect(item.locator(".adj-err.partial .ptag")).to_have_text(" only 1 of 2")

    _press(page, "1")  # alice's list: "half", which both marked (agreed)
    expect(item.locator(".adj-gold .adj-err")).to_have_count(1)
    expect(item.locator(".adj-gold .prov")).to_have_text(" agreed: alice, bob")
    _press(page, "u")  # the union: both errors
    expect(item.locator(".adj-gold .adj-err")).to_have_count(2)
    _press(page, "i")  # the intersection: "half" only
    expect(item.locator(".adj-gold .adj-err")).to_have_count(1)
    # By hand: e, then j to bob's "one hour", space puts it in the gold; Esc ends.
    _press(page, "e", "j", "Space", "Escape")
    expect(item.locator(".adj-gold .adj-err")).to_have_count(2)
    # The summary shows the gold errors as the span workspace draws them.
    expect(page.locator("#summary .etag")).to_have_count(2)
    wait_saved(page)
    (gold,) = [entry["gold"] for entry in api_get_url(page, world)["items"]]
    assert [(e["words"], e["provenance"]) for e in gold["errors"]] == [
        ("half", {"method": "intersection", "annotators": ["alice", "bob"]}),
        ("one hour", {"method": "edited", "annotators": ["bob"]}),
    ]
    _press(page, "d")
    expect(page.locator("#adj-status")).to_have_text("Adjudicated")
    assert api_get_url(page, world)["status"] == "done"


def test_an_annotator_adjudicating_a_system_blind_campaign_saves_items_by_their_ids(
    context, span_adjudication
):
    """alice annotates the (system-blind) campaign and adjudicates it: the page names no
    system, and the gold it saves names the item by its opaque id."""
    from annotation.adjudication.services import campaign_adjudicators_set
    from annotation.campaigns.models import Campaign

    world = span_adjudication
    campaign_adjudicators_set(campaign=Campaign.objects.get(slug="adj-pt"), usernames=["alice"])
    page = context.new_page()
    login(page, world["base"], "alice", "pw-alice")
    page.goto(world["url"])
    page.wait_for_selector("#adjudication[aria-busy=false] #items li.adj-item")
    (served,) = api_get_url(page, world)["items"]
    assert (served["output"], served["system"], served["system_name"]) == (None, None, None)
    item = page.locator("#items li.adj-item").first
    expect(item).to_have_attribute("data-item", served["item"])
    expect(item.locator(".facet-head")).to_contain_text("Summary")
    expect(item.locator(".facet-head")).not_to_contain_text("System")
    _press(page, "1")  # alice's own list as the gold
    expect(item.locator(".adj-gold .adj-err")).to_have_count(1)
    wait_saved(page)
    (saved,) = api_get_url(page, world)["items"]
    assert saved["gold"]["version"] == 1 and saved["gold"]["updated_by"] == "alice"
    _press(page, "d")
    expect(page.locator("#adj-status")).to_have_text("Adjudicated")


def test_the_address_keeps_the_summary_being_adjudicated(context, demo):
    """Issue 27: moving to another summary of a PolyTope document (j, k, a click) left the
    address as it was, so a reload went back to the first summary. The address now names the
    summary by its opaque item id (?item=<id>, never the output id a blind campaign hides); a
    reload, and a link, open that one."""
    from annotation.accounts.roles import ANNOTATOR
    from annotation.accounts.services import user_create
    from annotation.campaigns.services import (
        polytope_campaign_create,
        task_spans_save,
        task_submit,
        tasks_assign_manual,
    )

    user_create(username="alice", password="pw-alice", role=ANNOTATOR)
    campaign = polytope_campaign_create(
        dataset=demo.dataset, slug="adj-two", name="Two summaries", systems=["demo-abs", "lead-3"],
        documents=["demo-002"], annotators_per_document=1,
    )  # fmt: skip
    tasks = tasks_assign_manual(campaign=campaign, assignments=[("demo-002", "alice")])
    for task in tasks:
        task_spans_save(task=task, user=task.annotator, errors=[], no_errors=True, base_version=1)
        task_submit(task=task)
    document = tasks[0].document
    url = f"{demo.url}/manage/campaigns/{campaign.pk}/adjudication/{document.pk}/"
    page = context.new_page()
    login(page, demo.url, "admin", "loupe-admin")
    page.goto(url)
    page.wait_for_selector("#adjudication[aria-busy=false] #items li.adj-item")
    items = page.locator("#items li.adj-item")
    expect(items).to_have_count(2)
    expect(items.first).to_have_class(re.compile(r"\bselected\b"))
    second = items.nth(1).get_attribute("data-item")

    _press(page, "j")
    expect(items.nth(1)).to_have_class(re.compile(r"\bselected\b"))
    expect(page).to_have_url(f"{url}?item={second}")
    page.reload()
    page.wait_for_selector("#adjudication[aria-busy=false] #items li.adj-item")
    expect(items.nth(1)).to_have_class(re.compile(r"\bselected\b"))
    expect(items.first).not_to_have_class(re.compile(r"\bselected\b"))
    # Back to the first: the address drops the parameter again.
    items.first.locator(".facet-head").click()
    expect(page).to_have_url(url)
