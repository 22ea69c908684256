"""No lost work: two tabs on one task get the 409 path and a choice; offline edits are kept
in the browser and reach the server when the connection returns."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import api_get, eventually, groups, login, open_task, sentence, wait_saved

pytestmark = pytest.mark.django_db(transaction=True)
IN_GROUP = re.compile(r"\bin-group\b")


def test_two_tabs_conflict_and_the_annotator_chooses(context, make_world):
    world = make_world(documents=("demo-001",))
    task = world.task()
    first = context.new_page()
    login(first, world.url)
    open_task(first, world, task)
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
    assert first.evaluate(f"localStorage.getItem('loupe:pending:{task.pk}')") is None

    # Nothing is lost: both saved states are revisions.
    history = api_get(first, world, f"/api/tasks/{task.pk}/history/")
    states = {h["version"]: h["facets"][0]["groups"] for h in history}
    assert states[2] == [[0]] and states[3] == [[7]]
    assert max(states) == 3


def test_offline_edits_reach_the_server_when_the_connection_returns(context, make_world):
    from annotation.fams.models import Fam

    world = make_world(documents=("demo-001",))
    task = world.task()
    page = context.new_page()
    login(page, world.url)
    open_task(page, world, task)
    sentence(page, 0).click()
    wait_saved(page)

    context.set_offline(True)
    sentence(page, 1).click()
    state = page.locator("#save-state")
    expect(state).to_have_attribute("data-state", "offline")
    expect(state).to_have_text("Offline")
    # The annotator keeps working: a second facet by keyboard, a label and a note.
    page.keyboard.press("2")
    for key in ["j", "j", "Space", "j", "Space"]:
        page.keyboard.press(key)
    page.click("#facets li[data-index='2'] .facet-head")
    page.check("#label-2-no_support")
    page.fill("#note-2", "A paraphrase of the whole article")
    page.wait_for_timeout(800)  # past the debounce: the saves were tried and failed
    expect(state).to_have_attribute("data-state", "offline")

    pending = page.evaluate(f"JSON.parse(localStorage.getItem('loupe:pending:{task.pk}'))")
    assert pending["base_version"] == 2
    assert [f["groups"] for f in pending["facets"]] == [[[0, 1]], [[3, 4]], []]
    fam = Fam.objects.get(annotator__username="annotator", document=task.document)
    assert fam.facets[0]["groups"] == [[0]] and fam.version == 2  # the server has the first only

    context.set_offline(False)
    wait_saved(page)
    eventually(
        lambda: page.evaluate(f"localStorage.getItem('loupe:pending:{task.pk}')") is None,
        message="the pending copy was not dropped",
    )
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
    page = context.new_page()
    login(page, world.url)
    open_task(page, world, task)
    context.set_offline(True)
    sentence(page, 3).click()
    expect(page.locator("#save-state")).to_have_attribute("data-state", "offline")
    page.close()
    context.set_offline(False)

    again = context.new_page()
    open_task(again, world, task)
    wait_saved(again)
    assert groups(again, world, task) == [[[3]], [], []]
