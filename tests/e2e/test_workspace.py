"""The annotator workspace end to end: build a FAM by mouse and by keyboard, reload, accept
suggestions (computed by the backend's service while the page waits), and a screenshot."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    ARTIFACTS,
    api_get,
    eventually,
    groups,
    login,
    pending_copies,
    sentence,
    wait_saved,
    workspace_page,
)

pytestmark = pytest.mark.django_db(transaction=True)
IN_GROUP = re.compile(r"\bin-group\b")
SUGGESTED = re.compile(r"\bsuggested\b")


def test_build_a_fam_with_the_mouse_then_the_keyboard(context, make_world):
    world = make_world()
    task, following = world.task("demo-001"), world.task("demo-003")
    page = context.new_page()
    login(page, world.url)

    # My tasks: progress and a link to the next unfinished task.
    page.goto(f"{world.url}/tasks/")
    expect(page.locator("#tasks tbody tr")).to_have_count(2)
    expect(page.locator("#progress-text")).to_have_text("0 of 2 done")
    page.click("#continue")
    page.wait_for_url(f"{world.url}/tasks/{task.pk}/")
    page.wait_for_selector("#workspace[aria-busy=false] #sentences li")

    # Mouse: facet 1 gets [0, 2] and an alternative group [1].
    page.click("#facets li[data-index='0'] .facet-head")
    sentence(page, 0).click()
    sentence(page, 2).click()
    page.click("#facets li[data-index='0'] .gnew")
    sentence(page, 1).click()
    wait_saved(page)
    assert groups(page, world, task)[0] == [[0, 2], [1]]
    expect(page.locator("#coverage-text")).to_have_text("Coverage 1/3")

    # Keyboard only: facet 2 gets [3, 4] and the alternative [5]. The cursor is still on the
    # last sentence clicked (index 1).
    page.keyboard.press("2")
    for key in ["j", "j", "Space", "j", "Space", "g", "j", "Space"]:
        page.keyboard.press(key)
    expect(sentence(page, 5)).to_have_class(IN_GROUP)
    wait_saved(page)
    expect(page.locator("#save-state")).to_have_text("Saved")
    assert groups(page, world, task)[:2] == [[[0, 2], [1]], [[3, 4], [5]]]
    assert pending_copies(page, task) == []  # confirmed: no copy left in the browser
    # k moves back; space takes a sentence out of the current group again.
    for key in ["k", "k", "]", "Space"]:
        page.keyboard.press(key)
    wait_saved(page)
    assert groups(page, world, task)[1] == [[4], [5]]
    expect(page.locator("#coverage-text")).to_have_text("Coverage 2/3")

    # Facet 3 by keyboard: pick it and mark it "no support (high abstraction)".
    page.keyboard.press("3")
    page.keyboard.press("u")
    expect(page.locator("#label-2-no_support")).to_be_checked()
    wait_saved(page)
    fam = api_get(page, world, f"/api/tasks/{task.pk}/")["fam"]
    assert fam["facets"][2]["label"] == "no_support"
    expect(page.locator("#category-derived")).to_have_text("Derived: High abstraction")

    # ? opens the help, Esc closes it; n goes to the next task.
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()
    page.keyboard.press("n")
    page.wait_for_url(f"{world.url}/tasks/{following.pk}/")


def test_the_fam_is_still_there_after_a_reload(context, make_world):
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    sentence(page, 0).click()
    sentence(page, 4).click()
    page.click("#facets li[data-index='1'] .facet-head")
    sentence(page, 5).click()
    page.click("#facets li[data-index='2'] .facet-head")
    page.check("#label-2-noise")
    page.fill("#note-2", "Not in the article <b>at all</b>")
    page.select_option("#category", "high")
    wait_saved(page)

    page.reload()
    page.wait_for_selector("#workspace[aria-busy=false] #sentences li")
    assert page.evaluate(f"localStorage.getItem('loupe:pending:{task.pk}')") is None
    expect(sentence(page, 0)).to_have_class(IN_GROUP)
    expect(sentence(page, 4)).to_have_class(IN_GROUP)
    expect(sentence(page, 1)).not_to_have_class(IN_GROUP)
    expect(page.locator("#facets li[data-index='1'] .fstatus")).to_have_text("✓ 1 group")
    expect(page.locator("#facets li[data-index='2'] .fstatus")).to_have_text("Noise")
    expect(page.locator("#category")).to_have_value("high")
    page.click("#facets li[data-index='2'] .facet-head")
    expect(page.locator("#label-2-noise")).to_be_checked()
    expect(page.locator("#note-2")).to_have_value("Not in the article <b>at all</b>")
    # The history lists the saved revisions.
    page.keyboard.press("h")
    expect(page.locator("#history-list .revision").first).to_contain_text("Category")
    assert groups(page, world, task) == [[[0, 4]], [[5]], []]


def test_a_suggestion_is_accepted(context, make_world):
    from annotation.campaigns.models import SuggestionEvent, SuggestionSet

    world = make_world(documents=("demo-001",), scorers=("rougeavg-f", "tfidf"))
    task = world.task()
    page = workspace_page(context, world, task)

    # Not computed yet: the page says so, and fills them in when they arrive.
    facet = page.locator("#facets li[data-index='0']")
    expect(facet.locator(".suggestions")).to_contain_text("being computed")
    expect(page.locator("#sugg-status")).to_have_attribute("data-state", "pending")
    world.compute_suggestions()
    expect(facet.locator(".srow[data-scorer='rougeavg-f'] .chip")).to_have_count(3, timeout=15_000)
    expect(facet.locator(".srow[data-scorer='tfidf'] .chip")).to_have_count(3)

    rouge = SuggestionSet.objects.get(campaign=world.campaign, scorer="rougeavg-f")
    tfidf = SuggestionSet.objects.get(campaign=world.campaign, scorer="tfidf")
    top = rouge.facets[0][0]["sentence"]
    expect(sentence(page, top)).to_have_class(SUGGESTED)
    # Highlighted, never pre-filled.
    expect(page.locator("#sentences li.in-group")).to_have_count(0)
    assert groups(page, world, task) == [[], [], []]

    # "a" accepts the top suggestion into the current group.
    page.keyboard.press("a")
    expect(sentence(page, top)).to_have_class(IN_GROUP)
    wait_saved(page)
    assert groups(page, world, task)[0] == [[top]]
    # A click on another scorer's chip accepts that one.
    other = next(s["sentence"] for s in tfidf.facets[0] if s["sentence"] != top)
    facet.locator(f".srow[data-scorer='tfidf'] .chip[data-sentence='{other}']").click()
    wait_saved(page)
    assert groups(page, world, task)[0] == [sorted([top, other])]

    # They can be turned off (and on again).
    page.keyboard.press("s")
    expect(page.locator("#sentences li.suggested")).to_have_count(0)
    page.keyboard.press("s")
    expect(sentence(page, top)).to_have_class(SUGGESTED)

    def logged(action):
        return SuggestionEvent.objects.filter(task=task, action=action)

    # The first "a" alone logs two (both scorers suggested that sentence): wait for the click's.
    eventually(
        lambda: logged("accepted").filter(scorer="tfidf", sentence=other).exists(),
        message="accepted events not logged",
    )
    assert logged("shown").filter(facet=0).count() == 6
    accepted = {(e.scorer, e.sentence, e.scorer_version) for e in logged("accepted")}
    assert ("rougeavg-f", top, rouge.scorer_version) in accepted
    assert ("tfidf", other, tfidf.scorer_version) in accepted

    # The screenshot: facet 2 by suggestion and by hand, then back to facet 1.
    page.keyboard.press("2")
    page.keyboard.press("a")
    page.keyboard.press("g")
    sentence(page, 4).click()
    page.keyboard.press("1")
    wait_saved(page)
    page.mouse.move(1270, 790)
    expect(page.locator("#flash")).to_be_hidden(timeout=5_000)  # let the last notice fade
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "workspace.png"))


def test_suggestion_badges_name_their_scorer_and_a_follows_the_chosen_scorer(context, make_world):
    """Issue 27: with ROUGE-1 F and ROUGE-AVG F the badges read "R11" and "R1", and "a" only
    ever took the first scorer's pick. The badges now say "R-1 #1" and "R-avg #1" (spelled out
    in their title), and "a" adds the pick of the scorer whose row is current (A switches)."""
    world = make_world(documents=("demo-001",), scorers=("rouge1-f", "rougeavg-f"))
    world.compute_suggestions()
    task = world.task()
    page = workspace_page(context, world, task)
    facet = page.locator("#facets li[data-index='0']")
    expect(facet.locator(".srow .chip")).to_have_count(6)

    # Facet 1: both scorers rank sentence 1 first.
    marks = sentence(page, 0).locator(".mark.sugg")
    expect(marks).to_have_text(["R-1 #1", "R-avg #1"])
    spelled = re.compile(r"^Suggested by ROUGE-1 F, rank 1 of 3")
    expect(marks.first).to_have_attribute("title", spelled)
    spelled = re.compile(r"^Suggested by ROUGE-AVG F, rank 1 of 3")
    expect(marks.nth(1)).to_have_attribute("aria-label", spelled)
    expect(page.locator("#sugg-status")).to_contain_text("R-1 = ROUGE-1 F")
    expect(page.locator("#sugg-status")).to_contain_text("R-avg = ROUGE-AVG F")

    # Facet 3: ROUGE-1 F ranks sentence 6 first, ROUGE-AVG F sentence 2.
    page.keyboard.press("3")
    facet = page.locator("#facets li[data-index='2']")
    current = facet.locator(".srow[aria-current='true']")
    expect(current).to_have_attribute("data-scorer", "rouge1-f")
    page.keyboard.press("Shift+A")
    expect(current).to_have_attribute("data-scorer", "rougeavg-f")
    page.keyboard.press("a")
    expect(sentence(page, 1)).to_have_class(IN_GROUP)
    expect(sentence(page, 5)).not_to_have_class(IN_GROUP)
    expect(page.locator("#flash")).to_contain_text("ROUGE-AVG F #1")
    # Again: that scorer's next pick not yet in the group (its #2, sentence 8).
    page.keyboard.press("a")
    expect(sentence(page, 7)).to_have_class(IN_GROUP)
    wait_saved(page)
    assert groups(page, world, task)[2] == [[1, 7]]

    # A suggestion with the keyboard focus is the one "a" takes (here ROUGE-1 F's #1).
    facet.locator(".srow[data-scorer='rouge1-f'] .chip[data-sentence='5']").focus()
    page.keyboard.press("a")
    expect(sentence(page, 5)).to_have_class(IN_GROUP)
    expect(current).to_have_attribute("data-scorer", "rouge1-f")
    wait_saved(page)
    assert groups(page, world, task)[2] == [[1, 5, 7]]

    # The keyboard help says so.
    page.keyboard.press("?")
    expect(page.locator("#help")).to_contain_text("the current scorer")
    expect(page.locator("#help")).to_contain_text("switch the current scorer")


def test_submit_marks_the_task_done_and_logs_ignored_suggestions(context, make_world):
    from annotation.campaigns.models import SuggestionEvent

    world = make_world(documents=("demo-001",), scorers=("tfidf",))
    world.compute_suggestions()
    task = world.task()
    page = workspace_page(context, world, task)
    expect(page.locator("#facets li[data-index='0'] .chip")).to_have_count(3)
    page.keyboard.press("a")  # facet 1: the top suggestion
    page.keyboard.press("2")
    page.keyboard.press("o")  # facet 2: noise
    page.click("#submit-btn")
    expect(page.locator("#flash")).to_contain_text("Facet 3 is not done")
    expect(page.locator("#facets li[data-index='2']")).to_have_class(re.compile(r"\bselected\b"))
    page.keyboard.press("u")  # facet 3: no support
    page.click("#submit-btn")
    expect(page.locator("#banner")).to_contain_text("Submitted")
    expect(page.locator("#submit-btn")).to_be_disabled()
    detail = api_get(page, world, f"/api/tasks/{task.pk}/")
    assert detail["status"] == "submitted"
    assert [f["label"] for f in detail["fam"]["facets"]] == ["supported", "noise", "no_support"]

    events = SuggestionEvent.objects.filter(task=task)
    shown = events.filter(action="shown").count()
    assert shown == 9  # three facets were on screen, three suggestions each
    assert events.filter(action="accepted").count() == 1
    assert events.filter(action="ignored").count() == shown - 1

    # My tasks: done, and it can be reopened.
    page.goto(f"{world.url}/tasks/")
    expect(page.locator("#progress-text")).to_contain_text("1 of 1 done")
    expect(page.locator("#continue")).to_be_hidden()
    page.click("#tasks button:has-text('Reopen')")
    page.wait_for_url(f"{world.url}/tasks/{task.pk}/")
    expect(page.locator("#banner")).to_be_hidden()
    assert api_get(page, world, f"/api/tasks/{task.pk}/")["status"] == "in_progress"

    # In adjudication a submitted task may still be reopened (until its document is
    # adjudicated); once the campaign is done, it can no longer be.
    from annotation.campaigns.models import Campaign

    page.wait_for_selector("#workspace[aria-busy=false] #sentences li")
    page.click("#submit-btn")
    expect(page.locator("#banner")).to_contain_text("Submitted")
    Campaign.objects.filter(pk=world.campaign.pk).update(status="adjudication")
    page.goto(f"{world.url}/tasks/")
    row = page.locator(f"#tasks tr[data-task='{task.pk}']")
    expect(row.locator("button:has-text('Reopen')")).to_have_count(1)
    Campaign.objects.filter(pk=world.campaign.pk).update(status="closed")
    page.goto(f"{world.url}/tasks/")
    row = page.locator(f"#tasks tr[data-task='{task.pk}']")
    expect(row.locator("a.button")).to_have_text("View")
    expect(row.locator("button:has-text('Reopen')")).to_have_count(0)


def test_the_first_space_on_a_fresh_workspace_puts_sentence_one_in_the_group(context, make_world):
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    # A fresh workspace shows sentence 1 as the current one, so space acts on it at once.
    expect(sentence(page, 0)).to_have_class(re.compile(r"\bcursor\b"))
    page.keyboard.press("Space")
    expect(sentence(page, 0)).to_have_class(IN_GROUP)
    wait_saved(page)
    assert groups(page, world, task) == [[[0]], [], []]


def test_submit_by_keyboard_only_with_ctrl_enter(context, make_world):
    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    # The help lists the key.
    page.keyboard.press("?")
    key = page.locator("#help dt", has_text="Enter")
    expect(key).to_have_text("Ctrl+Enter")
    expect(page.locator("#help dt:has-text('Enter') + dd")).to_have_text(
        "submit the task (the same checks as the Submit button)"
    )
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()

    for key in ["Space", "2", "o"]:  # facet 1: sentence 1; facet 2: noise
        page.keyboard.press(key)
    # Facet 3 is not done: the key refuses as the button does, and goes to the facet.
    page.keyboard.press("Control+Enter")
    expect(page.locator("#flash")).to_contain_text("Facet 3 is not done")
    expect(page.locator("#facets li[data-index='2']")).to_have_class(re.compile(r"\bselected\b"))
    wait_saved(page)
    assert api_get(page, world, f"/api/tasks/{task.pk}/")["status"] == "in_progress"

    page.keyboard.press("u")  # facet 3: no support
    page.keyboard.press("Control+Enter")
    expect(page.locator("#banner")).to_contain_text("Submitted")
    expect(page.locator("#submit-btn")).to_be_disabled()
    detail = api_get(page, world, f"/api/tasks/{task.pk}/")
    assert detail["status"] == "submitted"
    assert [f["label"] for f in detail["fam"]["facets"]] == ["supported", "noise", "no_support"]
    assert detail["fam"]["facets"][0]["groups"] == [[0]]


def test_a_refused_fam_save_says_why_and_keeps_the_change(context, make_world):
    from annotation.campaigns.models import Campaign, CampaignStatus

    world = make_world(documents=("demo-001",))
    task = world.task()
    page = workspace_page(context, world, task)
    # The admin closes the campaign while the page is open: the next save is refused (400).
    Campaign.objects.filter(pk=task.campaign_id).update(status=CampaignStatus.CLOSED)
    page.keyboard.press("Space")
    expect(page.locator("#save-state")).to_have_text("Not saved")
    expect(page.locator("#flash")).to_contain_text("Not saved: The campaign is closed")
    [copy] = pending_copies(page, task)  # kept in this browser, not lost
    assert copy["facets"][0]["groups"] == [[0]]
