"""No lost work: two tabs on one task get the 409 path and a choice; offline edits are kept
in the browser and reach the server when the connection returns."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    BEAT_MS,
    api_get,
    close_offline_page,
    eventually,
    groups,
    login,
    open_task,
    pending_copies,
    requests_held,
    requests_in_flight,
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
    context.clock.install()  # time runs as usual; it stands still while tab A closes
    first = workspace_page(context, world, task)
    flying = requests_in_flight(first)
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
    # A's copy is left over. (Closed as is, A could send it: a retry firing while the page
    # closes is no longer offline, and B's save then got a 409.)
    close_offline_page(context, first, flying)
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


def _fam_saves(page) -> list[int]:
    """The statuses of the page's FAM saves, in order (filled in as responses arrive)."""
    statuses: list[int] = []
    page.on(
        "response",
        lambda r: (
            statuses.append(r.status)
            if r.request.method == "PUT" and r.url.endswith("/fam/")
            else None
        ),
    )
    return statuses


def _row(dialog, facet: int):
    return dialog.locator("#conflict-rows tr").nth(facet)


def _picked(dialog, facet: int) -> str:
    return _row(dialog, facet).get_attribute("data-pick")


def test_two_tabs_merge_facet_by_facet_without_a_409_loop(context, make_world):
    """Both tabs edit; the stale one merges per facet (defaults from a three-way comparison),
    and when the other tab saves again meanwhile the choice is asked again, never looped."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    first = workspace_page(context, world, task)
    second = context.new_page()  # same browser profile: same session, same localStorage
    open_task(second, world, task)
    saves = _fam_saves(second)

    # Tab A: facet 1 gets sentence 1, facet 3 sentence 3 (the server is at version 2 or 3).
    first.bring_to_front()
    sentence(first, 0).click()
    first.click("#facets li[data-index='2'] .facet-head")
    sentence(first, 2).click()
    wait_saved(first)
    assert groups(first, world, task) == [[[0]], [], [[2]]]

    # Tab B, still on version 1, by keyboard: facet 2 gets sentence 7, facet 3 sentence 10.
    # Its saves are held until every key is in, so a slow machine cannot let the debounced save
    # leave between the two edits (the dialog then compares both edits with the server).
    second.bring_to_front()
    with requests_held(second, f"**/api/tasks/{task.pk}/fam/"):
        for key in ["2", "j", "j", "j", "j", "j", "j", "Space", "3", "j", "j", "j", "Space"]:
            second.keyboard.press(key)
    dialog = second.locator("#conflict")
    expect(dialog).to_be_visible()
    expect(second.locator("#save-state")).to_have_text("Conflict")
    # Facet 1, changed only by tab A: preset to the server's.
    expect(_row(dialog, 0).locator("td").nth(0)).to_have_text("—")
    expect(_row(dialog, 0).locator("td").nth(1)).to_have_text("[1]")
    expect(_row(dialog, 0).locator("input[value=theirs]")).to_be_checked()
    expect(_row(dialog, 0).locator("td.why")).to_have_text("on the server")
    # Facet 2, changed only here: preset to mine.
    expect(_row(dialog, 1).locator("td").nth(0)).to_have_text("[7]")
    expect(_row(dialog, 1).locator("input[value=mine]")).to_be_checked()
    expect(_row(dialog, 1).locator("td.why")).to_have_text("by you")
    # Facet 3, changed on both sides: a real conflict, marked, preset to mine.
    expect(_row(dialog, 2)).to_have_class(re.compile(r"\bconflict\b"))
    expect(_row(dialog, 2).locator("input[value=mine]")).to_be_checked()
    expect(_row(dialog, 2).locator("td.why")).to_have_text("on both sides: choose")
    expect(_row(dialog, 0)).not_to_have_class(re.compile(r"\bconflict\b"))
    # The category did not change: nothing to choose.
    expect(_row(dialog, 3).locator("input")).to_have_count(0)
    assert groups(second, world, task) == [[[0]], [], [[2]]]  # nothing overwritten yet
    version_a = api_get(second, world, f"/api/tasks/{task.pk}/")["fam"]["version"]

    # Meanwhile tab A keeps working: facet 1 becomes [1, 2].
    first.bring_to_front()
    first.click("#facets li[data-index='0'] .facet-head")
    sentence(first, 1).click()
    wait_saved(first)
    assert groups(first, world, task)[0] == [[0, 1]]

    # Tab B takes the server's facet 3 (keyboard: the arrow key switches the row's radio) and
    # saves its choice: it was based on the version of the first 409, so it gets a second 409
    # and the choice is asked again with the fresh state (no retry by itself).
    second.bring_to_front()
    _row(dialog, 2).locator("input[value=mine]").focus()
    second.keyboard.press("ArrowRight")
    expect(_row(dialog, 2).locator("input[value=theirs]")).to_be_checked()
    second.locator("#apply-merge").focus()
    second.keyboard.press("Enter")
    expect(second.locator("#conflict-server-head")).to_have_text(
        f"Server (version {version_a + 1})"
    )
    expect(dialog).to_be_visible()
    assert saves == [409, 409]
    # Now facet 1 changed only on the server (since the state the merge was based on): theirs.
    expect(_row(dialog, 0).locator("td").nth(0)).to_have_text("[1]")
    expect(_row(dialog, 0).locator("td").nth(1)).to_have_text("[1, 2]")
    expect(_row(dialog, 0).locator("input[value=theirs]")).to_be_checked()
    expect(_row(dialog, 1).locator("input[value=mine]")).to_be_checked()
    expect(_row(dialog, 2).locator("input")).to_have_count(0)  # both [3] now: nothing to choose
    assert [_picked(dialog, f) for f in range(3)] == ["theirs", "mine", ""]
    second.click("#apply-merge")
    expect(dialog).to_be_hidden()
    wait_saved(second)
    merged = [[[0, 1]], [[6]], [[2]]]
    assert groups(second, world, task) == merged
    assert saves == [409, 409, 200]  # one save for the merge, no loop
    second.keyboard.press("1")  # the page shows what it saved: facet 1 is [1, 2] here too
    expect(sentence(second, 0)).to_have_class(IN_GROUP)
    expect(sentence(second, 1)).to_have_class(IN_GROUP)
    assert pending_copies(second, task) == []
    history = _history(second, world, task)
    assert max(history) == version_a + 2 and history[version_a + 2] == merged

    # Tab A is stale now: its next change is merged the same way, against its own last save.
    first.bring_to_front()
    first.click("#facets li[data-index='2'] .facet-head")
    first.keyboard.press("u")  # facet 3: no support
    expect(first.locator("#conflict")).to_be_visible()
    other = first.locator("#conflict")
    expect(_row(other, 1).locator("input[value=theirs]")).to_be_checked()  # B's facet 2
    expect(_row(other, 2).locator("input[value=mine]")).to_be_checked()  # A's label
    first.click("#apply-merge")
    wait_saved(first)
    final = api_get(first, world, f"/api/tasks/{task.pk}/")["fam"]["facets"]
    assert [f["groups"] for f in final] == [[[0, 1]], [[6]], []]
    assert final[2]["label"] == "no_support"
    assert saves == [409, 409, 200]


NOTE_A = "Checked against the wire copy: the figure in sentence 4 is rounded."
NOTE_B = "Source unclear"


def test_a_conflict_only_in_a_note_shows_both_notes(context, make_world):
    """Two tabs change only the note of one facet: the dialog shows both notes (cut to a
    readable length, the whole note in the cell's title and the radio's label) instead of two
    equal cells, and the choice saves the chosen note."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    first = workspace_page(context, world, task)
    second = context.new_page()  # same browser profile: same session, same localStorage
    open_task(second, world, task)

    first.bring_to_front()
    first.focus("#note-0")
    first.keyboard.type(NOTE_A)
    wait_saved(first)
    assert api_get(first, world, f"/api/tasks/{task.pk}/")["fam"]["facets"][0]["note"] == NOTE_A

    # Tab B, still on version 1, types its own note; its saves are held until every key is in.
    second.bring_to_front()
    with requests_held(second, f"**/api/tasks/{task.pk}/fam/"):
        second.focus("#note-0")
        second.keyboard.type(NOTE_B)
    dialog = second.locator("#conflict")
    expect(dialog).to_be_visible()
    row = _row(dialog, 0)
    expect(row).to_have_class(re.compile(r"\bconflict\b"))
    expect(row.locator("td.why")).to_have_text("on both sides: choose")
    mine, theirs = row.locator("td").nth(0), row.locator("td").nth(1)
    expect(mine).to_have_text('— · note: "Source unclear"')
    expect(theirs).to_have_text('— · note: "Checked against the wire copy: the figu…"')
    expect(theirs.locator("label")).to_have_attribute("title", f'— · note: "{NOTE_A}"')
    expect(row.locator("input[value=mine]")).to_have_attribute(
        "aria-label", '1: keep yours (— · note: "Source unclear")'
    )
    expect(row.locator("input[value=theirs]")).to_have_attribute(
        "aria-label", f'1: take the server\'s (— · note: "{NOTE_A}")'
    )
    expect(row.locator("input[value=mine]")).to_be_checked()
    for other in (1, 2, 3):  # nothing else differs
        expect(_row(dialog, other).locator("input")).to_have_count(0)

    # The server's note, by keyboard, and save the choice.
    row.locator("input[value=mine]").focus()
    second.keyboard.press("ArrowRight")
    expect(row.locator("input[value=theirs]")).to_be_checked()
    second.locator("#apply-merge").focus()
    second.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    wait_saved(second)
    assert api_get(second, world, f"/api/tasks/{task.pk}/")["fam"]["facets"][0]["note"] == NOTE_A
    expect(second.locator("#note-0")).to_have_value(NOTE_A)


CHOOSE_FIRST = (
    "This task was saved elsewhere: choose what to keep first (this change was not made)."
)


def test_an_edit_while_the_conflict_dialog_loads_is_refused_not_lost(context, make_world):
    """A copy left by an older page has no base, so the dialog first reads the history. An edit
    in that moment is refused and said so; before, a category chosen then was replaced by the
    server's (preset, as only the server had changed it) without being shown."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    # The server moves on: facet 1 gets sentence 1, the category becomes Noise.
    sentence(page, 0).click()
    wait_saved(page)
    page.select_option("#category", "noise")
    wait_saved(page)
    assert api_get(page, world, f"/api/tasks/{task.pk}/")["fam"]["category"] == "noise"
    # An older page of this browser left a copy based on version 1, without the base.
    empty = {"groups": [], "label": "supported", "note": ""}
    copy = {
        "tab": "older-page",
        "base_version": 1,
        "facets": [empty, {**empty, "groups": [[4]]}, empty],
        "category": "",
        "at": "2024-01-01T00:00:00Z",
    }
    page.evaluate(
        "([key, copy]) => localStorage.setItem(key, JSON.stringify(copy))",
        [f"loupe:pending:{task.pk}:older-page", copy],
    )
    page.close()

    later = context.new_page()  # the same browser: the copy is left over for this page
    with requests_held(later, f"**/api/tasks/{task.pk}/history/") as held:
        open_task(later, world, task)  # restores the copy; its save gets a 409
        eventually(lambda: later.wait_for_timeout(50) or bool(held), message="no history request")
        expect(later.locator("#save-state")).to_have_text("Conflict")
        expect(later.locator("#conflict")).to_be_hidden()  # the base is still being read
        later.select_option("#category", "high")
        expect(later.locator("#flash")).to_have_text(CHOOSE_FIRST)
        expect(later.locator("#category")).to_have_value("")

    dialog = later.locator("#conflict")
    expect(dialog).to_be_visible()
    category = _row(dialog, 3)
    expect(category.locator("td").nth(0)).to_have_text("derived")  # yours: what the page shows
    expect(category.locator("td").nth(1)).to_have_text("Noise")
    expect(category.locator("input[value=theirs]")).to_be_checked()
    expect(_row(dialog, 0).locator("input[value=theirs]")).to_be_checked()
    expect(_row(dialog, 1).locator("td").nth(0)).to_have_text("[5]")
    expect(_row(dialog, 1).locator("input[value=mine]")).to_be_checked()
    later.click("#apply-merge")
    wait_saved(later)
    fam = api_get(later, world, f"/api/tasks/{task.pk}/")["fam"]
    assert [f["groups"] for f in fam["facets"]] == [[[0]], [[4]], []]
    assert fam["category"] == "noise"
    expect(later.locator("#category")).to_have_value("noise")


def _presence_post(response) -> bool:
    return response.request.method == "POST" and response.url.endswith("/presence/")


def test_the_presence_note_is_announced_only_when_who_is_there_changes(context, make_world):
    """The live region says who else has the task open, without the seconds: it stays the same
    across heartbeats while the other tab stays, even as its age grows (the visible note
    still shows the age)."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    tab = context.new_page()
    open_task(tab, world, task)
    page.bring_to_front()
    expect(page.locator("#presence")).to_be_visible()
    live = page.locator("[aria-live]", has_text="This task is also open")
    # Right after one of its heartbeats, the other tab's next ones are held: its age grows.
    with tab.expect_response(_presence_post, timeout=10_000):
        pass
    with requests_held(tab, "**/api/tasks/*/presence/"):
        with page.expect_response(_presence_post, timeout=10_000):
            pass
        said = live.text_content()
        with page.expect_response(_presence_post, timeout=10_000):
            pass
        expect(live).to_have_text(said)
        expect(live).to_have_count(1)
        assert said == (
            "This task is also open in another tab or browser (by annotator). If both save, you "
            "choose what to keep, facet by facet; nothing is overwritten."
        )
        expect(page.locator("#presence")).to_contain_text(re.compile(r"active \d+ s ago"))
    tab.unroute("**/api/tasks/*/presence/")


def test_a_refused_heartbeat_clears_the_note_and_stops(context, make_world):
    """A 403 on the heartbeat (no longer allowed on the task) takes the note down at once and
    ends the heartbeat instead of posting at every beat forever."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    tab = context.new_page()
    open_task(tab, world, task)
    page.bring_to_front()
    note = page.locator("#presence")
    expect(note).to_be_visible()
    refused = []

    def refuse(route):
        refused.append(route.request.url)
        route.fulfill(
            status=403,
            content_type="application/json",
            body='{"message": "You may not open this task."}',
        )

    page.route("**/api/tasks/*/presence/", refuse)
    expect(note).to_be_hidden(timeout=8_000)  # at the next heartbeat
    assert len(refused) == 1
    page.wait_for_timeout(10 * BEAT_MS)  # ten heartbeats' time
    assert len(refused) == 1
    expect(note).to_be_hidden()


def _left(task) -> set[str]:
    """The tabs on the task that said they left (the server's presence records, kept until they
    expire)."""
    from annotation.campaigns.models import TaskPresence

    return set(
        TaskPresence.objects.filter(task=task, left=True).values_list("client_id", flat=True)
    )


def test_the_presence_note_moves_nothing_under_the_pointer(context, make_world):
    """The note comes whenever someone opens the task: it comes below the panes, so the
    sentences stay where the annotator is pointing (it used to push the document down by its
    height, and a click at that moment landed between two sentences), and the keyboard's
    cursor still brings the last sentence into view above it, and the flash line stands above
    it."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    before = [sentence(page, i).bounding_box() for i in range(4)]
    other = context.new_page()
    open_task(other, world, task)
    page.bring_to_front()
    note = page.locator("#presence")
    expect(note).to_be_visible()
    assert [sentence(page, i).bounding_box() for i in range(4)] == before
    sentence(page, 2).click()
    expect(sentence(page, 2)).to_have_attribute("aria-pressed", "true")
    count = page.locator("#sentences li").count()
    for _ in range(count - 3):  # j: the next sentence, from the third to the last
        page.keyboard.press("j")
    expect(sentence(page, count - 1)).to_have_class(re.compile(r"\bcursor\b"))
    last, pane = sentence(page, count - 1).bounding_box(), page.locator(".doc").bounding_box()
    assert last["y"] + last["height"] <= min(pane["y"] + pane["height"], note.bounding_box()["y"])
    # The flash line stands above the note (it covered the note's start).
    page.keyboard.press("Control+Enter")  # facets are open: the flash names them
    flash = page.locator("#flash")
    expect(flash).to_contain_text("not done")
    box = flash.bounding_box()
    assert box["y"] + box["height"] <= note.bounding_box()["y"]


def test_a_tab_is_told_when_the_task_is_open_elsewhere(browser, context, make_world):
    """Presence across browsers: another browser of the same annotator appears within a few
    seconds (the server's heartbeat record), and the note goes when that browser leaves."""
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    note = page.locator("#presence")
    expect(page.locator("#workspace")).to_have_attribute("aria-busy", "false")
    expect(note).to_be_hidden()

    elsewhere = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        laptop = workspace_page(elsewhere, world, task)  # another browser: no shared storage
        also_open = re.compile(
            r"^This task is also open in another tab or browser \(by annotator, active "
            r"(just now|\d+ s ago)\)\. If both save, you choose what to keep, facet by facet;"
        )
        expect(laptop.locator("#presence")).to_have_text(also_open)  # at its first heartbeat
        # Within a heartbeat (5 s); the slack is for a busy machine running two browsers.
        expect(note).to_have_text(also_open, timeout=15_000)
        expect(note).to_be_visible()

        laptop.goto(f"{world.url}/tasks/")  # leaves the task
        # The server hears it leave (the note does not wait for the entry to expire)...
        eventually(lambda: _left(task), message="the other browser's leaving was not heard")
        expect(note).to_be_hidden(timeout=15_000)  # ...and this page at its next heartbeat
        # A second tab in the same browser is seen too.
        tab = context.new_page()
        open_task(tab, world, task)
        expect(note).to_have_text(also_open, timeout=15_000)
        gone = _left(task)
        tab.close(run_before_unload=True)
        eventually(lambda: _left(task) - gone, message="the closed tab's leaving was not heard")
        expect(note).to_be_hidden(timeout=15_000)
    finally:
        elsewhere.close()
