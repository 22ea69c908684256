"""Users in the browser (Playwright, Debian's Chromium, 1280x800): an admin invites an annotator
on /manage/users/ with the keyboard; the annotator opens the link, sets a password (a refused
one first), logs in and saves a FAM on a task of a campaign they were added to; the admin sees
who works on what, and deactivates them through the confirmation dialog."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login, login_through_form, open_task, sentence, wait_saved

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "Quiet-harbour-lamp-42"
FOCUSED = "(s) => document.activeElement && document.activeElement.matches(s)"


def tab_to(page, selector: str, *, limit: int = 60) -> None:
    """Press Tab until ``selector`` has the focus."""
    for _ in range(limit):
        if page.evaluate(FOCUSED, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never got the focus by Tab")


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def test_an_invited_annotator_sets_a_password_through_the_link_and_annotates(
    browser, context, make_world
):
    from annotation.campaigns.selectors import task_fam
    from annotation.campaigns.services import tasks_assign_manual

    world = make_world(documents=("demo-001", "demo-003"))
    admin = context.new_page()
    login_through_form(admin, world.url, "admin", "loupe-admin")
    expect(admin.locator("nav a[href='/manage/users/']")).to_be_visible()
    admin.click("nav a[href='/manage/users/']")
    expect(admin.locator("#users tr[data-user='annotator']")).to_be_visible()
    assert no_horizontal_scroll(admin)

    # The invitation, by keyboard alone: the username, then Tab to the role and Enter.
    admin.focus("#username")
    admin.keyboard.type("newbie")
    tab_to(admin, "#role")
    admin.keyboard.press("Enter")  # submits from the select (submitOnEnter)
    link = admin.locator("#link")
    expect(link).to_be_focused()
    expect(link).to_have_value(re.compile("/invite/"))
    url = link.input_value()
    assert url.startswith(f"{world.url}/invite/")
    expect(admin.locator("#result-title")).to_have_text("Invited newbie")
    row = admin.locator("#users tr[data-user='newbie']")
    expect(row).to_have_attribute("data-state", "invited")
    assert no_horizontal_scroll(admin)

    # The admin adds the new annotator to the campaign (before they have set a password).
    (task,) = tasks_assign_manual(campaign=world.campaign, assignments=[("demo-003", "newbie")])

    # The annotator, in a browser of their own: a refused password, then a good one.
    invitee = browser.new_context(viewport={"width": 1280, "height": 800})
    invitee.set_default_timeout(10_000)
    try:
        page = invitee.new_page()
        page.goto(url)
        expect(page.locator("h1")).to_have_text("Welcome to Loupe")
        expect(page.locator("#password")).to_be_focused()
        page.keyboard.type("12345678")
        page.keyboard.press("Tab")
        page.keyboard.type("12345678")
        page.keyboard.press("Enter")
        error = page.locator("[data-field=password] .field-error")
        expect(error).to_contain_text("too common")
        expect(page.locator("#password")).to_be_focused()
        shot(page, "invite-page.png")
        page.fill("#password", PASSWORD)
        page.fill("#password2", PASSWORD)
        page.keyboard.press("Enter")
        expect(page.locator("#done-text")).to_have_text("Your password is set. Log in as newbie.")
        expect(page.locator("#login-link")).to_be_focused()
        page.keyboard.press("Enter")
        page.wait_for_url(f"{world.url}/login/")
        login(page, world.url, "newbie", PASSWORD)

        # The link is used up: a clear page says so.
        again = page.goto(url)
        assert again.status == 410
        expect(page.locator("#invite-problem")).to_contain_text("used already")

        open_task(page, world, task)
        sentence(page, 0).click()
        wait_saved(page)
        fam = task_fam(task=task)
        assert fam.annotator.username == "newbie"
        assert fam.facets[0]["groups"] == [[0]] and fam.version >= 2

        # While newbie's workspace is open, the admin sees what they work on.
        admin.reload()
        row = admin.locator("#users tr[data-user='newbie']")
        expect(row).to_have_attribute("data-state", "active")
        expect(row.locator("[data-campaign='e2e']")).to_contain_text("0/1 done, 1 open")
        expect(row.locator("[data-campaign='e2e'] .badge")).to_have_text("working now")
        assert no_horizontal_scroll(admin)
        shot(admin, "users-page.png")
    finally:
        invitee.close()

    # The admin deactivates newbie through the confirmation dialog, by keyboard.
    row.get_by_role("button", name="Deactivate newbie").focus()
    admin.keyboard.press("Enter")
    dialog = admin.locator("#confirm")
    expect(dialog).to_be_visible()
    expect(admin.locator("#confirm-cancel")).to_be_focused()
    admin.keyboard.press("Shift+Tab")
    expect(admin.locator("#confirm-ok")).to_be_focused()
    admin.keyboard.press("Enter")
    expect(admin.locator("#result-title")).to_have_text("newbie was deactivated.")
    expect(admin.locator("#users tr[data-user='newbie']")).to_have_attribute(
        "data-state", "deactivated"
    )
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.get(username="newbie").is_active
