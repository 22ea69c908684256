"""No lost work: two tabs on one task get the 409 path and a choice; offline edits are kept
in the browser and reach the server when the connection returns."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    api_get,
    eventually,
    groups,
    login,
    open_task,
    pending_copies,
    sentence,
    wait_saved,
    workspace_page,
)

pytestmark = pytest.mark.django_db(transaction=True)
IN_GROUP = re.compile(r"\bin-group\b")


def _failed_save(text: str = ""):
    """A predicate for a FAM save that failed on the network (and carried ``text``)."""

    def check(request) -> bool:
        body = request.post_data or ""
        return request.method == "PUT" and request.url.endswith("/fam/") and text in body

    return check


def test_two_tabs_conflict_and_the_annotator_chooses(context, make_world):
    world = make_world(documents=("demo-001",))
    task = world.task()
    first = workspace_page(context, world, task)
    second = context.new_page()  # same browser profile: same session, same localStorage
    open_task(second, world, task)

    first.bring_to_front()  # a background tab's animation frames are throttled
    sentence(first, 0).click()
    wait_saved(first)  # version 2
    second.bring_to_front()
    sentence(second, 7).click()  # edits version 1: the save gets 409

    dialog = second.locator("#conflict")
    expect(dialog).to_be_visible()
    expect(second.locator("#save-state")).to_have_attribute("data-state", "conflict")
    expect(second.locator("#save-state")).to_have_text("Conflict")
    row = dialog.locator("#conflict-rows tr").first
    expect(row.locator("td").nth(0)).to_have_text("[8]")  # yours
    expect(row.locator("td").nth(1)).to_have_text("[1]")  # the server's
    expect(row).to_have_class(re.compile(r"\bdiffers\b"))
    assert groups(second, world, task)[0] == [[0]]  # nothing overwritten while undecided
    second.keyboard.press("Escape")  # the choice cannot be dismissed
    expect(dialog).to_be_visible()

    second.click("#keep-mine")
    expect(dialog).to_be_hidden()
    wait_saved(second)
    assert groups(second, world, task) == [[[7]], [], []]

    # The first tab is stale now: its next change conflicts too, and it takes the server's.
    first.bring_to_front()
    sentence(first, 1).click()
    expect(first.locator("#conflict")).to_be_visible()
    expect(first.locator("#conflict-rows tr").first.locator("td").nth(0)).to_have_text("[1, 2]")
    first.click("#take-server")
    wait_saved(first)
    expect(sentence(first, 7)).to_have_class(IN_GROUP)
    expect(sentence(first, 0)).not_to_have_class(IN_GROUP)
    assert groups(first, world, task) == [[[7]], [], []]
    assert pending_copies(first, task) == []

    # Nothing is lost: both saved states are revisions.
    history = api_get(first, world, f"/api/tasks/{task.pk}/history/")
    states = {h["version"]: h["facets"][0]["groups"] for h in history}
    assert states[2] == [[0]] and states[3] == [[7]]
    assert max(states) == 3


def test_offline_edits_reach_the_server_when_the_connection_returns(context, make_world):
    from annotation.fams.models import Fam

    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    sentence(page, 0).click()
    wait_saved(page)

    context.set_offline(True)
    state = page.locator("#save-state")
    expect(state).to_have_text("Offline")  # shown even while every change is saved
    sentence(page, 1).click()
    expect(state).to_have_attribute("data-state", "offline")
    expect(state).to_have_text("Offline")
    # The annotator keeps working: a second facet by keyboard, a label and a note.
    page.keyboard.press("2")
    for key in ["j", "j", "Space", "j", "Space"]:
        page.keyboard.press(key)
    page.click("#facets li[data-index='2'] .facet-head")
    page.check("#label-2-no_support")
    # Past the debounce, the save carrying the note is tried and fails.
    with page.expect_event("requestfailed", predicate=_failed_save("A paraphrase")):
        page.fill("#note-2", "A paraphrase of the whole article")
    expect(state).to_have_attribute("data-state", "offline")

    [pending] = pending_copies(page, task)
    assert pending["base_version"] == 2
    assert [f["groups"] for f in pending["facets"]] == [[[0, 1]], [[3, 4]], []]
    fam = Fam.objects.get(annotator__username="annotator", document=task.document)
    assert fam.facets[0]["groups"] == [[0]] and fam.version == 2  # the server has the first only

    context.set_offline(False)
    wait_saved(page)
    eventually(lambda: pending_copies(page, task) == [], message="the pending copy was not dropped")
    facets = api_get(page, world, f"/api/tasks/{task.pk}/")["fam"]["facets"]
    assert [f["groups"] for f in facets] == [[[0, 1]], [[3, 4]], []]
    assert facets[2] == {
        "groups": [],
        "label": "no_support",
        "note": "A paraphrase of the whole article",
    }


def test_unsaved_changes_survive_closing_the_tab(context, make_world):
    """Changes made offline and never confirmed are saved when the task is opened again."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    context.set_offline(True)
    sentence(page, 3).click()
    expect(page.locator("#save-state")).to_have_attribute("data-state", "offline")
    page.close()
    context.set_offline(False)

    again = context.new_page()
    open_task(again, world, task)
    wait_saved(again)
    assert groups(again, world, task) == [[[3]], [], []]


def _history(page, world, task) -> dict[int, list]:
    """The server's revisions of a task: version -> support groups per facet."""
    history = api_get(page, world, f"/api/tasks/{task.pk}/history/")
    return {h["version"]: [f["groups"] for f in h["facets"]] for h in history}


def test_a_conflict_found_only_after_coming_back_online(context, make_world):
    """Tab A edits offline, tab B saves meanwhile, A reconnects: the 409 opens the choice."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    first = workspace_page(context, world, task)
    second = context.new_page()  # same profile: same session, same localStorage
    open_task(second, world, task)

    # Only tab A loses the network: its save fails and its copy stays in the browser.
    first.bring_to_front()
    first.route("**/api/tasks/*/fam/", lambda route: route.abort("internetdisconnected"))
    with first.expect_event("requestfailed", predicate=_failed_save()):
        sentence(first, 2).click()
    expect(first.locator("#save-state")).to_have_attribute("data-state", "offline")

    # Tab B saves version 2; that leaves A's unconfirmed copy alone.
    second.bring_to_front()
    sentence(second, 5).click()
    wait_saved(second)
    assert groups(second, world, task)[0] == [[5]]
    [copy] = pending_copies(second, task)
    assert copy["base_version"] == 1 and copy["facets"][0]["groups"] == [[2]]

    # A is back online: its retry is stale, and the annotator gets the choice.
    first.bring_to_front()
    first.unroute("**/api/tasks/*/fam/")
    first.evaluate("window.dispatchEvent(new Event('online'))")
    dialog = first.locator("#conflict")
    expect(dialog).to_be_visible()
    expect(first.locator("#save-state")).to_have_attribute("data-state", "conflict")
    row = dialog.locator("#conflict-rows tr").first
    expect(row.locator("td").nth(0)).to_have_text("[3]")  # A's
    expect(row.locator("td").nth(1)).to_have_text("[6]")  # the server's (B's)
    assert groups(first, world, task)[0] == [[5]]  # nothing overwritten while undecided
    first.keyboard.press("n")  # n does not leave an open conflict
    expect(dialog).to_be_visible()
    first.click("#keep-mine")
    wait_saved(first)
    assert groups(first, world, task) == [[[2]], [], []]
    assert pending_copies(first, task) == []
    states = _history(first, world, task)
    assert states[2][0] == [[5]] and states[3][0] == [[2]]  # both states are kept


def test_two_offline_tabs_and_one_closes(context, make_world):
    """Two tabs edit offline, one is closed: its copy is replayed later, nothing is lost."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    first = workspace_page(context, world, task)
    second = context.new_page()
    open_task(second, world, task)

    context.set_offline(True)
    first.bring_to_front()
    with first.expect_event("requestfailed", predicate=_failed_save()):
        sentence(first, 3).click()
    second.bring_to_front()
    second.click("#facets li[data-index='1'] .facet-head")
    with second.expect_event("requestfailed", predicate=_failed_save()):
        sentence(second, 6).click()
    expect(second.locator("#save-state")).to_have_text("Offline")
    copies = pending_copies(second, task)
    assert len(copies) == 2  # one per tab: neither overwrites the other
    assert sorted(str([f["groups"] for f in c["facets"]]) for c in copies) == sorted(
        [str([[[3]], [], []]), str([[], [[6]], []])]
    )
    first.close()  # A's copy is left over
    context.set_offline(False)
    wait_saved(second)  # B's change is version 2; A's copy is still kept
    assert groups(second, world, task) == [[], [[6]], []]
    [left] = pending_copies(second, task)
    assert left["facets"][0]["groups"] == [[3]]

    # My tasks replays the left-over copy: it is stale, so the annotator must choose.
    tasks = context.new_page()
    tasks.goto(f"{world.url}/tasks/")
    note = tasks.locator(f"[data-replay='{task.pk}']")
    expect(note).to_have_attribute("data-state", "conflict")
    tasks.click(f"#tasks tr[data-task='{task.pk}'] a.button")
    tasks.wait_for_selector("#workspace[aria-busy=false] #sentences li")
    dialog = tasks.locator("#conflict")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#conflict-rows tr").first.locator("td").nth(0)).to_have_text("[4]")
    tasks.click("#keep-mine")
    wait_saved(tasks)
    assert groups(tasks, world, task) == [[[3]], [], []]
    assert pending_copies(tasks, task) == []
    states = _history(tasks, world, task)
    assert states[2] == [[], [[6]], []] and states[3] == [[[3]], [], []]  # nothing lost


def test_a_logged_out_save_is_kept_and_sent_after_logging_in_again(context, make_world):
    """401/403 on save is not a dead end: the copy stays, the page says log in, it retries."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    page.route(
        "**/api/tasks/*/fam/",
        lambda route: route.fulfill(
            status=403, content_type="application/json", body='{"message": "Not logged in."}'
        ),
    )
    sentence(page, 4).click()
    state = page.locator("#save-state")
    expect(state).to_have_attribute("data-state", "auth")
    expect(state).to_have_text("Log in again")
    expect(page.locator("#relogin")).to_be_visible()
    [copy] = pending_copies(page, task)
    assert copy["facets"][0]["groups"] == [[4]]
    page.keyboard.press("n")  # does not move on with the change unconfirmed
    expect(page.locator("#flash")).to_contain_text("log in again")
    assert page.url.endswith(f"/tasks/{task.pk}/")

    page.unroute("**/api/tasks/*/fam/")  # logged in again (e.g. in another tab)
    page.evaluate("window.dispatchEvent(new Event('focus'))")
    wait_saved(page)
    expect(page.locator("#relogin")).to_be_hidden()
    assert groups(page, world, task) == [[[4]], [], []]
    assert pending_copies(page, task) == []


SESSION_ENDED = (
    "Your session has ended. Your changes are kept in this browser and sent once you log in again."
)
SESSION_ENDED_NEXT = (
    "Your session has ended: log in again (your changes are kept here), then press n."
)


def test_a_session_that_ends_mid_edit_says_so_in_words_and_the_edits_survive(context, make_world):
    """Logging out in another page of the same browser ends this page's session: the save is
    refused, the page says so in readable words, and the edit is saved after logging in again."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    sentence(page, 0).click()
    wait_saved(page)

    other = context.new_page()  # same browser profile: logging out there ends this session too
    other.goto(f"{world.url}/tasks/")
    other.click("form.logout button[type=submit]")
    other.wait_for_url(re.compile(r"/login/|/$"))

    page.bring_to_front()
    sentence(page, 3).click()
    state = page.locator("#save-state")
    expect(state).to_have_attribute("data-state", "auth")
    expect(page.locator("#flash")).to_have_text(SESSION_ENDED)
    expect(page.locator("#relogin")).to_be_visible()
    page.keyboard.press("n")  # not with the change unconfirmed
    expect(page.locator("#flash")).to_have_text(SESSION_ENDED_NEXT)
    assert page.url.endswith(f"/tasks/{task.pk}/")
    [copy] = pending_copies(page, task)
    assert copy["facets"][0]["groups"] == [[0, 3]]

    login(other, world.url)  # the annotator logs in again in the other page
    page.bring_to_front()
    wait_saved(page, timeout=20_000)  # without a reload: the kept change goes out by itself
    expect(page.locator("#relogin")).to_be_hidden()
    assert groups(page, world, task) == [[[0, 3]], [], []]
    assert pending_copies(page, task) == []
